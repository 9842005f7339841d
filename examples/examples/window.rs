//! The showcase, live in a window: `cargo run --release --example window --features window
//! [-- --backend vulkan|wgpu|soft --size 1280x720 --frames N --msaa off|4 --pipelined]`.
//!
//! An orbit camera: drag with the left mouse button to orbit, turn the wheel to zoom, Esc
//! quits (as does closing the window). The window is bevy_window's, the loop bevy_winit's and
//! the input bevy_input's (`F3dDefaultPlugins`); f3d presents into it on any backend, the soft
//! rasteriser included. `--frames N` exits after N frames; `--msaa` overrides the showcase's
//! 4× MSAA.

use f3d::bevy_input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll, MouseScrollUnit};
use f3d::f3d_hal::BackendId;
use f3d::prelude::*;

struct Args {
    backend: Option<String>,
    size: (u32, u32),
    frames: Option<u32>,
    msaa: Option<Msaa>,
    pipelined: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { backend: None, size: (1280, 720), frames: None, msaa: None, pipelined: false };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--backend" => args.backend = Some(value("--backend")?),
            "--size" => {
                let v = value("--size")?;
                args.size =
                    f3d_examples::parse_size(&v).ok_or_else(|| format!("--size {v}: expected WxH"))?;
            }
            "--frames" => {
                let v = value("--frames")?;
                args.frames = Some(
                    v.parse()
                        .ok()
                        .filter(|n| *n > 0)
                        .ok_or_else(|| format!("--frames {v}: expected a count"))?,
                );
            }
            "--pipelined" => args.pipelined = true,
            "--msaa" => args.msaa = Some(f3d_examples::cli::parse_msaa(&value("--msaa")?)?),
            "-h" | "--help" => {
                println!("window [--backend B] [--size WxH] [--frames N] [--msaa off|2|4|8] [--pipelined]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Where the showcase camera looks (`f3d_examples::showcase`).
const TARGET: Vec3 = Vec3::new(0.0, 1.1, -0.6);

/// The orbit: angles about the target and the distance from it.
#[derive(Component)]
struct Orbit {
    yaw: f32,
    pitch: f32,
    distance: f32,
}

/// Gives the showcase's camera an orbit that starts where the camera stands.
type NewCameras<'w, 's> = Query<'w, 's, (Entity, &'static Transform), (With<Camera3d>, Without<Orbit>)>;

fn add_orbit(mut commands: Commands, cameras: NewCameras) {
    for (entity, transform) in &cameras {
        let offset = transform.translation - TARGET;
        let distance = offset.length().max(0.1);
        commands.entity(entity).insert(Orbit {
            yaw: offset.x.atan2(offset.z),
            pitch: (offset.y / distance).asin(),
            distance,
        });
    }
}

/// Drag to orbit, wheel to zoom.
fn orbit_camera(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    mut cameras: Query<(&mut Transform, &mut Orbit)>,
) {
    for (mut transform, mut orbit) in &mut cameras {
        if buttons.pressed(MouseButton::Left) {
            orbit.yaw -= motion.delta.x * 0.005;
            orbit.pitch = (orbit.pitch + motion.delta.y * 0.005).clamp(-1.4, 1.4);
        }
        let notches = match scroll.unit {
            MouseScrollUnit::Line => scroll.delta.y,
            MouseScrollUnit::Pixel => scroll.delta.y / 40.0,
        };
        orbit.distance = (orbit.distance * 0.9f32.powf(notches)).clamp(1.0, 40.0);
        let offset = Quat::from_euler(EulerRot::YXZ, orbit.yaw, -orbit.pitch, 0.0) * Vec3::Z * orbit.distance;
        *transform = Transform::from_translation(TARGET + offset).looking_at(TARGET, Vec3::Y);
    }
}

/// With `--frames N`: the frame times once N frames were drawn (the wall clock between frames
/// after the first two, and the render world's own time, extraction to presentation).
#[derive(Resource)]
struct FrameReport {
    frames: Option<u32>,
    started: Option<(u64, std::time::Instant)>,
    printed: bool,
}

fn report_frame_time(stats: Res<RenderStats>, mut report: ResMut<FrameReport>) {
    let Some(n) = report.frames else { return };
    if report.started.is_none() && stats.frames_rendered >= 2 {
        report.started = Some((stats.frames_rendered, std::time::Instant::now()));
    }
    if let Some((from, at)) = report.started
        && !report.printed
        && stats.frames_rendered >= u64::from(n)
        && stats.frames_rendered > from
    {
        report.printed = true;
        let frames = stats.frames_rendered - from;
        println!(
            "frame time: {:.2} ms between frames (mean of {frames}), {:.2} ms render world (mean of {})",
            at.elapsed().as_secs_f64() * 1e3 / frames as f64,
            stats.total_frame_time.as_secs_f64() * 1e3 / stats.frames_rendered.max(1) as f64,
            stats.frames_rendered
        );
    }
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("window: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let mut app = App::new();
    app.add_plugins(
        F3dDefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "f3d showcase".into(),
                    resolution: WindowResolution::new(args.size.0, args.size.1),
                    ..default()
                }),
                ..default()
            })
            .set(F3dRenderPlugin {
                backend: args
                    .backend
                    .as_deref()
                    .map_or(BackendChoice::Auto, |b| BackendChoice::Named(BackendId::from_name(b))),
                pipelined: args.pipelined,
                exit_after_frames: args.frames,
                ..default()
            }),
    )
    .insert_resource(FrameReport { frames: args.frames, started: None, printed: false })
    .add_systems(Startup, f3d_examples::showcase)
    .add_systems(Last, report_frame_time)
    .add_systems(Update, (add_orbit, orbit_camera, f3d_examples::cli::quit_on_escape).chain());
    if let Some(msaa) = args.msaa {
        f3d_examples::cli::add_msaa_override(&mut app, msaa);
    }
    let exit = app.run();
    match exit {
        AppExit::Success => std::process::ExitCode::SUCCESS,
        AppExit::Error(_) => std::process::ExitCode::FAILURE,
    }
}
