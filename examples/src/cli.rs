//! What the headless examples share: their flags (`--backend`, `--size`, `--out`, `--frames`,
//! `--pipelined`, `--verbose`, and each example's own), the app around a scene, and the lines
//! they print (backend, adapter, frame time, the file written).

use std::path::PathBuf;
use std::process::ExitCode;

use f3d::f3d_hal::BackendId;
use f3d::prelude::*;

/// The flags every headless example takes.
#[derive(Clone, Debug)]
pub struct ExampleArgs {
    /// `--backend NAME` (the registry's choice when absent).
    pub backend: Option<String>,
    /// `--size WxH` (1280x720).
    pub size: (u32, u32),
    /// `--out FILE`: the last frame's PNG.
    pub out: Option<PathBuf>,
    /// `--frames N` (1).
    pub frames: u32,
    /// `--pipelined`: the render world on its own thread.
    pub pipelined: bool,
    /// `--verbose`: also the device's memory.
    pub verbose: bool,
    /// `--msaa off|2|4|8`: every camera's [`Msaa`], over what the scene gives it.
    pub msaa: Option<Msaa>,
    /// Arguments that are not flags, in order.
    pub positional: Vec<String>,
}

impl ExampleArgs {
    /// Parses the process's arguments. `extra` sees each flag the common ones do not take,
    /// with a function giving its value, and answers whether it took it; `usage` is the
    /// example's own part of the help line.
    pub fn parse(
        name: &str,
        usage: &str,
        default_out: Option<&str>,
        extra: impl FnMut(&str, &mut dyn FnMut() -> Result<String, String>) -> Result<bool, String>,
    ) -> Result<Self, String> {
        Self::parse_with(name, usage, Self::defaults(default_out, 1), extra)
    }

    /// The flags' defaults: 1280x720, the registry's backend, `frames` frames to `out`.
    pub fn defaults(out: Option<&str>, frames: u32) -> Self {
        Self {
            backend: None,
            size: (1280, 720),
            out: out.map(PathBuf::from),
            frames,
            pipelined: false,
            verbose: false,
            msaa: None,
            positional: Vec::new(),
        }
    }

    /// [`parse`](Self::parse) from other defaults.
    pub fn parse_with(
        name: &str,
        usage: &str,
        defaults: Self,
        mut extra: impl FnMut(&str, &mut dyn FnMut() -> Result<String, String>) -> Result<bool, String>,
    ) -> Result<Self, String> {
        let mut args = defaults;
        let mut it = std::env::args().skip(1);
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
            match a.as_str() {
                "--backend" => args.backend = Some(value()?),
                "--size" => {
                    let v = value()?;
                    args.size = crate::parse_size(&v).ok_or_else(|| format!("--size {v}: expected WxH"))?;
                }
                "--out" => args.out = Some(value()?.into()),
                "--frames" => {
                    let v = value()?;
                    args.frames = v
                        .parse()
                        .ok()
                        .filter(|n| (1..=100_000).contains(n))
                        .ok_or_else(|| format!("--frames {v}: expected a count from 1 to 100000"))?;
                }
                "--pipelined" => args.pipelined = true,
                "--msaa" => args.msaa = Some(parse_msaa(&value()?)?),
                "--verbose" | "-v" => args.verbose = true,
                "-h" | "--help" => {
                    println!(
                        "{name} {usage}[--backend NAME] [--size WxH] [--out FILE] [--frames N] [--msaa off|2|4|8] [--pipelined] [--verbose]"
                    );
                    std::process::exit(0);
                }
                flag if flag.starts_with("--") => {
                    if !extra(flag, &mut value)? {
                        return Err(format!("unknown argument {flag}"));
                    }
                }
                _ => args.positional.push(a),
            }
        }
        Ok(args)
    }

    /// The render plugin for these flags (a fixed clock step, so pictures repeat).
    pub fn plugin(&self) -> F3dRenderPlugin {
        F3dRenderPlugin {
            backend: self
                .backend
                .as_deref()
                .map_or(BackendChoice::Auto, |b| BackendChoice::Named(BackendId::from_name(b))),
            size: self.size,
            pipelined: self.pipelined,
            exit_after_frames: Some(self.frames),
            fixed_time_step: Some(1.0 / 60.0),
            ..Default::default()
        }
    }

    /// An app drawing `frames` frames with the plugin, writing the last one to `out` and
    /// printing the file written and the frame time.
    pub fn app(&self) -> App {
        // No `LogPlugin` here (headless): f3d's warnings and errors go to standard error.
        f3d::init_stderr_log();
        let mut app = App::new();
        app.add_plugins(self.plugin())
            .add_plugins(bevy_app::ScheduleRunnerPlugin::run_loop(std::time::Duration::ZERO))
            .insert_resource(Run(self.clone()))
            .add_systems(Update, (screenshot_last_frame, report));
        self.add_msaa_override(&mut app);
        app
    }

    /// With `--msaa`, gives every camera that flag's [`Msaa`] ([`add_msaa_override`]).
    pub fn add_msaa_override(&self, app: &mut App) {
        if let Some(msaa) = self.msaa {
            add_msaa_override(app, msaa);
        }
    }
}

/// The value of `--msaa`: `off` (or `1`), `2`, `4` or `8`.
pub fn parse_msaa(v: &str) -> Result<Msaa, String> {
    match v {
        "off" | "1" => Ok(Msaa::Off),
        "2" => Ok(Msaa::Sample2),
        "4" => Ok(Msaa::Sample4),
        "8" => Ok(Msaa::Sample8),
        _ => Err(format!("--msaa {v}: expected off, 2, 4 or 8")),
    }
}

/// Gives every camera `msaa` as it appears, over what the scene gave it.
pub fn add_msaa_override(app: &mut App, msaa: Msaa) {
    app.add_systems(PostUpdate, move |mut commands: Commands, cameras: Query<Entity, Added<Camera3d>>| {
        for camera in &cameras {
            commands.entity(camera).insert(msaa);
        }
    });
}

/// Prints the error the way every example does and gives the exit code for bad flags.
pub fn bad_args(name: &str, error: &str) -> ExitCode {
    eprintln!("{name}: {error}");
    ExitCode::from(2)
}

#[derive(Resource)]
struct Run(ExampleArgs);

fn screenshot_last_frame(mut commands: Commands, run: Res<Run>, mut frame: Local<u32>) {
    *frame += 1;
    if *frame == run.0.frames {
        match &run.0.out {
            Some(path) => commands.spawn(Screenshot::to_file(path.clone())),
            // Still read back, so the frame time counts the device's work.
            None => commands.spawn(Screenshot::pixels()),
        };
    }
}

/// Prints the file written, the frame time and the shader cache line (and with `--verbose`
/// the device's memory).
fn report(
    mut shots: MessageReader<ScreenshotCaptured>,
    stats: Res<RenderStats>,
    run: Res<Run>,
    device: Option<Res<RenderDevice>>,
) {
    for shot in shots.read() {
        if let Some(e) = &shot.error {
            println!("frame {}: screenshot failed: {e}", shot.frame);
        }
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
        if let Some(device) = &device {
            println!("{}", shader_cache_line(device.0.as_ref()));
        }
        if run.0.verbose {
            println!("device memory: {}", stats.memory);
            println!("device memory, peak total: {:.2} MB", stats.peak_memory as f64 / 1e6);
        }
    }
}

/// Finishes `app`, prints the backend and adapter, and runs it.
pub fn run(mut app: App) -> ExitCode {
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
        AppExit::Success => ExitCode::SUCCESS,
        AppExit::Error(_) => ExitCode::FAILURE,
    }
}

/// `shader cache: N read, N compiled (DIR)` — what the device's shader cache on disk did this
/// run (and how many corrupt entries it replaced, if any), or why there was none.
pub fn shader_cache_line(device: &dyn f3d::f3d_hal::GraphicsDevice) -> String {
    let Some(cache) = device.shader_cache() else {
        return format!(
            "shader cache: none (the {} backend keeps no compiled shaders on disk)",
            device.backend_id()
        );
    };
    let Some(dir) = cache.dir() else {
        return "shader cache: off (F3D_SHADER_CACHE=off, or no cache directory)".to_owned();
    };
    let s = cache.stats();
    let corrupt = if s.corrupt > 0 { format!(", {} corrupt replaced", s.corrupt) } else { String::new() };
    format!("shader cache: {} read, {} compiled{corrupt} ({})", s.hits, s.compiles, dir.display())
}

/// The whole `main` of an example that draws one scene: parses the common flags (the picture
/// goes to `<name>.png` by default), adds `setup` at startup and runs. With `--window` (feature
/// `window`) the scene is shown live in a bevy_winit window instead ([`window_app`]) until the
/// window is closed or Esc is pressed.
pub fn run_scene<M>(
    name: &str,
    setup: impl bevy_ecs::schedule::IntoScheduleConfigs<bevy_ecs::system::ScheduleSystem, M>,
) -> ExitCode {
    let out = format!("{name}.png");
    let mut windowed = false;
    let args = match ExampleArgs::parse(name, "[--window] ", Some(&out), |flag, _| {
        windowed |= flag == "--window";
        Ok(flag == "--window")
    }) {
        Ok(a) => a,
        Err(e) => return bad_args(name, &e),
    };
    if windowed {
        let mut app = window_app(name, &args);
        app.add_systems(Startup, setup);
        return match app.run() {
            AppExit::Success => ExitCode::SUCCESS,
            AppExit::Error(_) => ExitCode::FAILURE,
        };
    }
    let mut app = args.app();
    app.add_systems(Startup, setup);
    run(app)
}

/// An app showing a scene in a window titled `title` at `args.size` with
/// [`F3dDefaultPlugins`] (`--backend` and `--pipelined` honoured); Esc quits.
pub fn window_app(title: &str, args: &ExampleArgs) -> App {
    let mut plugin = args.plugin();
    plugin.exit_after_frames = None;
    plugin.fixed_time_step = None;
    let mut app = App::new();
    app.add_plugins(
        F3dDefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!("f3d: {title}"),
                    resolution: WindowResolution::new(args.size.0, args.size.1),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .set(plugin),
    )
    .add_systems(Update, quit_on_escape);
    args.add_msaa_override(&mut app);
    app
}

/// Esc ends the app.
pub fn quit_on_escape(keys: Res<ButtonInput<KeyCode>>, mut exit: MessageWriter<AppExit>) {
    if keys.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
}

/// The steady frame time of a run: the median of the frame times after the first three
/// (which build pipelines and upload), `None` for three frames or fewer. What the frame-time
/// benchmarks print beside the mean.
///
/// ```
/// use std::time::Duration;
/// let ms = |v: &[u64]| v.iter().map(|&m| Duration::from_millis(m)).collect::<Vec<_>>();
/// // The first three (90, 50, 40) are left out; the median of 4, 6, 5 is 5.
/// assert_eq!(f3d_examples::cli::steady_median(&ms(&[90, 50, 40, 4, 6, 5])), Some(Duration::from_millis(5)));
/// assert_eq!(f3d_examples::cli::steady_median(&ms(&[9, 9, 9])), None);
/// ```
pub fn steady_median(times: &[std::time::Duration]) -> Option<std::time::Duration> {
    let mut steady = times.get(3..).filter(|t| !t.is_empty())?.to_vec();
    steady.sort_unstable();
    Some(steady[steady.len() / 2])
}

/// Prints [`steady_median`] as `steady frame time: X ms (median of frames 4 to N)`.
pub fn print_steady_median(times: &[std::time::Duration]) {
    if let Some(median) = steady_median(times) {
        println!(
            "steady frame time: {:.2} ms (median of frames 4 to {})",
            median.as_secs_f64() * 1e3,
            times.len()
        );
    }
}
