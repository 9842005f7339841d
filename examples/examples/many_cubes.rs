//! Many cubes, one entity each: `cargo run --release --example many_cubes -- [--n N]
//! [--per-cube-materials] [--moving] [--frames F] [--backend B] [--size WxH] [--out FILE]`.
//!
//! A cubic grid of `N` cubes (default 10,000) under a sun, viewed from a corner. With
//! `--per-cube-materials` every cube has its own `StandardMaterial` (same shader, its own
//! colour); without, all share one. `--moving` spins every cube each frame, so every transform
//! is extracted and uploaded. Prints the backend, the mean frame time (each frame ends with a
//! readback, so GPU work is counted) and the process's peak resident memory.

use std::path::PathBuf;

use f3d::f3d_hal::BackendId;
use f3d::prelude::*;

struct Args {
    n: u32,
    per_cube_materials: bool,
    moving: bool,
    frames: u32,
    backend: Option<String>,
    size: (u32, u32),
    out: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        n: 10_000,
        per_cube_materials: false,
        moving: false,
        frames: 5,
        backend: None,
        size: (1280, 720),
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let count = |name: &str, v: String, max: u32| {
            v.parse::<u32>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| format!("{name} {v}: expected a count from 1 to {max}"))
        };
        match a.as_str() {
            "--n" => args.n = count("--n", value("--n")?, 4_000_000)?,
            "--frames" => args.frames = count("--frames", value("--frames")?, 100_000)?,
            "--per-cube-materials" => args.per_cube_materials = true,
            "--moving" => args.moving = true,
            "--backend" => args.backend = Some(value("--backend")?),
            "--size" => {
                let v = value("--size")?;
                args.size =
                    f3d_examples::parse_size(&v).ok_or_else(|| format!("--size {v}: expected WxH"))?;
            }
            "--out" => args.out = Some(value("--out")?.into()),
            "-h" | "--help" => {
                println!(
                    "many_cubes [--n N] [--per-cube-materials] [--moving] [--frames F] [--backend NAME] [--size WxH] [--out FILE]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

#[derive(Resource)]
struct Settings {
    n: u32,
    per_cube_materials: bool,
    moving: bool,
    frames: u32,
    out: Option<PathBuf>,
}

#[derive(Component)]
struct Cube;

fn setup(world: &mut World) {
    let settings = world.resource::<Settings>();
    let (n, per_cube) = (settings.n, settings.per_cube_materials);
    let side = (n as f32).cbrt().ceil() as u32;
    let cube = world.resource_mut::<Assets<Mesh>>().add(shapes::cube(0.6));
    let shared =
        world.resource_mut::<Assets<Material>>().add(StandardMaterial::color([0.8, 0.5, 0.3, 1.0]).into());
    let mut spawned = 0;
    'grid: for x in 0..side {
        for y in 0..side {
            for z in 0..side {
                if spawned == n {
                    break 'grid;
                }
                let material = if per_cube {
                    let c = |v: u32| 0.15 + 0.85 * v as f32 / side.max(2) as f32;
                    let m = StandardMaterial::color([c(x), c(y), c(z), 1.0]);
                    world.resource_mut::<Assets<Material>>().add(m.into())
                } else {
                    shared
                };
                world.spawn((
                    Cube,
                    Mesh3d(cube),
                    MeshMaterial(material),
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
    world.spawn((
        Camera3d::default(),
        Transform::from_xyz(-0.6 * s, 1.4 * s, 1.9 * s).looking_at(Vec3::splat(s * 0.5), Vec3::Y),
    ));
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

fn report(mut shots: MessageReader<ScreenshotCaptured>, stats: Res<RenderStats>, settings: Res<Settings>) {
    for shot in shots.read() {
        if let Some(e) = &shot.error {
            println!("frame {}: screenshot failed: {e}", shot.frame);
        }
        if stats.frames_rendered >= u64::from(settings.frames) {
            println!(
                "frame time: {:.2} ms (mean of {} frames), {:.2} ms (last)",
                stats.total_frame_time.as_secs_f64() * 1e3 / stats.frames_rendered.max(1) as f64,
                stats.frames_rendered,
                stats.last_frame_time.as_secs_f64() * 1e3
            );
            println!("device memory: {}", stats.memory);
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
        Err(e) => {
            eprintln!("many_cubes: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        backend: args
            .backend
            .as_deref()
            .map_or(BackendChoice::Auto, |b| BackendChoice::Named(BackendId::from_name(b))),
        size: args.size,
        exit_after_frames: Some(args.frames),
        passes: StandardPasses { shadow: false, ..Default::default() },
        ..Default::default()
    })
    .add_plugins(bevy_app::ScheduleRunnerPlugin::run_loop(std::time::Duration::ZERO))
    .insert_resource(Settings {
        n: args.n,
        per_cube_materials: args.per_cube_materials,
        moving: args.moving,
        frames: args.frames,
        out: args.out.clone(),
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
