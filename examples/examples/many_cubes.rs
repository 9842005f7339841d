//! Many cubes, one entity each: `cargo run --release --example many_cubes -- [--n N]
//! [--per-cube-materials] [--moving] [--turn DEG] [--frames F] [--backend B] [--size WxH]
//! [--out FILE]`.
//!
//! A cubic grid of `N` cubes (default 10,000) under a sun, viewed from a corner. With
//! `--per-cube-materials` every cube has its own `StandardMaterial` (same shader, its own
//! colour); without, all share one. `--moving` spins every cube each frame, so every transform
//! is extracted and uploaded. `--turn DEG` turns the camera that many degrees to its left, so
//! part of the grid leaves the view and bevy_camera's frustum culling drops it. Prints the
//! backend, the mean frame time (each frame ends with a readback, so GPU work is counted),
//! how many cubes were culled, and the process's peak resident memory.

use std::path::PathBuf;

use f3d::prelude::*;
use f3d_examples::cli::{ExampleArgs, bad_args};

struct Args {
    common: ExampleArgs,
    n: u32,
    per_cube_materials: bool,
    moving: bool,
    turn: f32,
}

fn parse_args() -> Result<Args, String> {
    let (mut n, mut per_cube_materials, mut moving, mut turn) = (10_000, false, false, 0.0);
    let common = ExampleArgs::parse_with(
        "many_cubes",
        "[--n N] [--per-cube-materials] [--moving] [--turn DEG] ",
        ExampleArgs::defaults(None, 5),
        |flag, value| {
            match flag {
                "--n" => {
                    let v = value()?;
                    n = v
                        .parse::<u32>()
                        .ok()
                        .filter(|n| (1..=4_000_000).contains(n))
                        .ok_or_else(|| format!("--n {v}: expected a count from 1 to 4000000"))?;
                }
                "--per-cube-materials" => per_cube_materials = true,
                "--moving" => moving = true,
                "--turn" => {
                    let v = value()?;
                    turn = v
                        .parse::<f32>()
                        .ok()
                        .filter(|d| d.is_finite())
                        .ok_or_else(|| format!("--turn {v}: expected degrees"))?;
                }
                _ => return Ok(false),
            }
            Ok(true)
        },
    )?;
    Ok(Args { common, n, per_cube_materials, moving, turn })
}

#[derive(Resource)]
struct Settings {
    n: u32,
    per_cube_materials: bool,
    moving: bool,
    turn: f32,
    frames: u32,
    out: Option<PathBuf>,
}

#[derive(Component)]
struct Cube;

fn setup(world: &mut World) {
    let settings = world.resource::<Settings>();
    let (n, per_cube, turn) = (settings.n, settings.per_cube_materials, settings.turn);
    let side = (n as f32).cbrt().ceil() as u32;
    let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::from_length(0.6));
    let shared = world.resource_mut::<Assets<StandardMaterial>>().add(Color::linear_rgb(0.8, 0.5, 0.3));
    let mut spawned = 0;
    'grid: for x in 0..side {
        for y in 0..side {
            for z in 0..side {
                if spawned == n {
                    break 'grid;
                }
                let material = if per_cube {
                    let c = |v: u32| 0.15 + 0.85 * v as f32 / side.max(2) as f32;
                    let m = Color::linear_rgb(c(x), c(y), c(z));
                    world.resource_mut::<Assets<StandardMaterial>>().add(m)
                } else {
                    shared.clone()
                };
                world.spawn((
                    Cube,
                    Mesh3d(cube.clone()),
                    MeshMaterial3d(material),
                    NotShadowCaster,
                    Transform::from_xyz(x as f32, y as f32, z as f32),
                ));
                spawned += 1;
            }
        }
    }
    let s = side as f32;
    world.spawn((
        DirectionalLight::default(),
        Transform::from_xyz(3.0, 5.0, 2.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let mut eye = Transform::from_xyz(-0.6 * s, 1.4 * s, 1.9 * s).looking_at(Vec3::splat(s * 0.5), Vec3::Y);
    eye.rotate_y(turn.to_radians());
    world.spawn((Camera3d::default(), eye));
    world.spawn(Environment::default());
}

fn spin(settings: Res<Settings>, mut cubes: Query<&mut Transform, With<Cube>>, mut frame: Local<u32>) {
    *frame += 1;
    if !settings.moving {
        return;
    }
    let angle = *frame as f32 * 0.05;
    for mut t in &mut cubes {
        t.rotation = Quat::from_rotation_y(angle);
    }
}

fn capture_each_frame(mut commands: Commands, settings: Res<Settings>, mut frame: Local<u32>) {
    // Every frame ends in a readback, so a frame time includes the GPU's work.
    *frame += 1;
    let last = *frame == settings.frames;
    match (&settings.out, last) {
        (Some(path), true) => commands.spawn(Screenshot::to_file(path.clone())),
        _ => commands.spawn(Screenshot::pixels()),
    };
}

fn report(
    mut shots: MessageReader<ScreenshotCaptured>,
    stats: Res<RenderStats>,
    settings: Res<Settings>,
    cubes: Query<&ViewVisibility, With<Cube>>,
    mut times: Local<Vec<std::time::Duration>>,
) {
    for shot in shots.read() {
        if let Some(e) = &shot.error {
            println!("frame {}: screenshot failed: {e}", shot.frame);
        }
        times.push(stats.last_frame_time);
        if stats.frames_rendered >= u64::from(settings.frames) {
            println!(
                "frame time: {:.2} ms (mean of {} frames), {:.2} ms (last)",
                stats.total_frame_time.as_secs_f64() * 1e3 / stats.frames_rendered.max(1) as f64,
                stats.frames_rendered,
                stats.last_frame_time.as_secs_f64() * 1e3
            );
            f3d_examples::cli::print_steady_median(&times);
            println!("device memory: {}", stats.memory);
            let culled = cubes.iter().filter(|v| !v.get()).count();
            println!("culled: {culled} of {} cubes", cubes.iter().len());
        }
    }
}

/// Peak resident memory of this process, from `/proc/self/status` (Linux).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => return bad_args("many_cubes", &e),
    };
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        passes: StandardPasses { shadow: false, ..Default::default() },
        fixed_time_step: None,
        ..args.common.plugin()
    })
    .add_plugins(bevy_app::ScheduleRunnerPlugin::run_loop(std::time::Duration::ZERO))
    .insert_resource(Settings {
        n: args.n,
        per_cube_materials: args.per_cube_materials,
        moving: args.moving,
        turn: args.turn,
        frames: args.common.frames,
        out: args.common.out.clone(),
    })
    .add_systems(Startup, setup)
    .add_systems(Update, (spin, capture_each_frame, report));
    app.finish();
    app.cleanup();
    if let Some(device) = app.world().get_resource::<RenderDevice>() {
        println!("backend: {}", device.describe());
    }
    let exit = app.run();
    if let Some(bytes) = peak_rss() {
        println!("peak resident memory: {:.1} MB", bytes as f64 / 1e6);
    }
    match exit {
        AppExit::Success => std::process::ExitCode::SUCCESS,
        AppExit::Error(_) => std::process::ExitCode::FAILURE,
    }
}
