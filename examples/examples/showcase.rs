//! The showcase: `cargo run --release --example showcase [-- --backend soft --size 1280x720
//! --out showcase.png --frames 1 --verbose]`. Writes the last frame to a PNG and prints the
//! backend, the adapter and the frame time (`--verbose`: and the device's memory by kind).

use std::path::PathBuf;

use f3d::f3d_hal::BackendId;
use f3d::prelude::*;

struct Args {
    backend: Option<String>,
    size: (u32, u32),
    out: PathBuf,
    frames: u32,
    pipelined: bool,
    verbose: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        backend: None,
        size: (1280, 720),
        out: "showcase.png".into(),
        frames: 1,
        pipelined: false,
        verbose: false,
    };
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
            "--out" => args.out = value("--out")?.into(),
            "--frames" => {
                let v = value("--frames")?;
                args.frames = v
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("--frames {v}: expected a count"))?;
            }
            "--pipelined" => args.pipelined = true,
            "--verbose" | "-v" => args.verbose = true,
            "-h" | "--help" => {
                println!(
                    "showcase [--backend NAME] [--size WxH] [--out FILE] [--frames N] [--pipelined] [--verbose]"
                );
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

#[derive(Resource)]
struct Out(PathBuf, u32, bool);

fn screenshot_last_frame(mut commands: Commands, out: Res<Out>, mut frame: Local<u32>) {
    *frame += 1;
    if *frame == out.1 {
        commands.spawn(Screenshot::to_file(out.0.clone()));
    }
}

fn report(mut shots: MessageReader<ScreenshotCaptured>, stats: Res<RenderStats>, out: Res<Out>) {
    for shot in shots.read() {
        if let Some(path) = &shot.path {
            println!("wrote {} ({}x{})", path.display(), shot.width, shot.height);
        }
        let frames = stats.frames_rendered.max(1);
        println!(
            "frame time: {:.1} ms (last frame), {:.1} ms (mean of {} frames): extract, prepare, graph, execute and readback",
            stats.last_frame_time.as_secs_f64() * 1e3,
            stats.total_frame_time.as_secs_f64() * 1e3 / frames as f64,
            stats.frames_rendered
        );
        if out.2 {
            println!("device memory: {}", stats.memory);
            println!("device memory, peak total: {:.2} MB", stats.peak_memory as f64 / 1e6);
        }
    }
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("showcase: {e}");
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
        pipelined: args.pipelined,
        exit_after_frames: Some(args.frames),
        fixed_time_step: Some(1.0 / 60.0),
        ..Default::default()
    })
    .add_plugins(bevy_app::ScheduleRunnerPlugin::run_loop(std::time::Duration::ZERO))
    .insert_resource(Out(args.out.clone(), args.frames, args.verbose))
    .add_systems(Startup, f3d_examples::showcase)
    .add_systems(Update, (screenshot_last_frame, report));
    app.finish();
    app.cleanup();
    if let Some(device) = app.world().get_resource::<RenderDevice>() {
        let info = device.adapter_info();
        println!(
            "backend: {}  adapter: {}{}",
            device.backend_id(),
            info.name,
            if info.cpu { " (CPU)" } else { "" }
        );
    }
    match app.run() {
        AppExit::Success => std::process::ExitCode::SUCCESS,
        AppExit::Error(_) => std::process::ExitCode::FAILURE,
    }
}
