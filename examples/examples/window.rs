//! The showcase, live in a window: `cargo run --release --example window --features window
//! [-- --size 1280x720 --frames N --pipelined]`. The camera sways around the scene so the
//! picture is visibly live; resize the window and the render follows; close it to quit.
//! `--frames N` exits after N frames (tests, screenshots of the desktop).
//!
//! Windowed mode needs the wgpu backend and a display (X11 or Wayland); see `f3d::window`.

use f3d::plugin::FrameClock;
use f3d::prelude::*;

struct Args {
    size: (u32, u32),
    frames: Option<u32>,
    pipelined: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { size: (1280, 720), frames: None, pipelined: false };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
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
            "-h" | "--help" => {
                println!("window [--size WxH] [--frames N] [--pipelined]");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

/// Where the showcase camera looks (`f3d_examples::showcase`).
const TARGET: Vec3 = Vec3::new(0.0, 1.1, -0.6);

/// Swings the camera ±35° around the scene's vertical axis, once every 20 s.
fn orbit_camera(
    clock: Res<FrameClock>,
    mut cameras: Query<&mut Transform, With<Camera3d>>,
    mut start: Local<Option<Vec3>>,
) {
    for mut transform in &mut cameras {
        let eye = *start.get_or_insert(transform.translation);
        let angle = 0.6 * (clock.time as f32 * std::f32::consts::TAU / 20.0).sin();
        let offset = Quat::from_rotation_y(angle) * (eye - TARGET);
        *transform = Transform::from_translation(TARGET + offset).looking_at(TARGET, Vec3::Y);
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
    let exit = App::new()
        .add_plugins(F3dRenderPlugin {
            size: args.size,
            window: Some(WindowSettings { title: "f3d showcase".into(), ..Default::default() }),
            pipelined: args.pipelined,
            exit_after_frames: args.frames,
            ..Default::default()
        })
        .add_systems(Startup, f3d_examples::showcase)
        .add_systems(Update, orbit_camera)
        .run();
    match exit {
        AppExit::Success => std::process::ExitCode::SUCCESS,
        AppExit::Error(_) => std::process::ExitCode::FAILURE,
    }
}
