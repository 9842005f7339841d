//! `f3d`: the command-line tool.
//!
//! * `f3d conformance --backend <name> [--tier <tier>]` runs the conformance suite on one
//!   backend, prints a table of every check and the summary line
//!   `conformance <backend>: N passed, N failed, N declined`, and exits 1 if any check failed.
//! * `f3d material check <files...>` validates materials: exit 0 when all are valid, else 1
//!   with one `path:line:col: error: message` diagnostic (and a source excerpt) per problem.
//! * `f3d material compile <file> --backend <name> [--emit wgsl|spirv|reflection]` prints what
//!   the backend receives.
//! * `f3d render [scene] [--out file.png] [--size WxH] [--backend name] [--frames N]` draws the
//!   showcase (or another scene of `f3d_examples::SCENES`) through the plugin into a PNG.
//! * `f3d watch <material.ron> [--out preview.png] [--size WxH] [--backend name] [--events N]`
//!   previews a material on a sphere and redraws the PNG on every save of it or its
//!   includes, printing `reloaded <Name> in <N> ms` or `error: path:line:col: message` per
//!   event (the first load is an event too); `--events N` exits after N events.
//! * `f3d graph [scene] [--dot]` prints the compiled render graph of that scene's frame (a
//!   text dump, or Graphviz dot).
//! * `f3d trace record [--scene NAME] --backend B --out frame.f3dtrace [--frames N]` renders a
//!   scene through a tracing device and writes every device call (and the frame's readback)
//!   to a trace; `f3d trace replay frame.f3dtrace --backend B2 [--out DIR] [--compare]`
//!   replays it on another backend, writes each readback as PNG and, with `--compare`, exits
//!   1 when one differs from the recording past the tolerance; `f3d trace info FILE` says
//!   what a trace holds.

mod render;
mod trace;
mod watch;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "f3d", version, about = "f3d: render plugin tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lists every backend the registry knows, with the adapter each would open here or why
    /// it cannot.
    Backends,
    /// Runs the conformance suite on one backend.
    Conformance {
        /// The backend: one of the registered backends (`f3d conformance --backend list` lists them).
        #[arg(long)]
        backend: String,
        /// Only this tier: core, capabilities, lifecycle or shader.
        #[arg(long)]
        tier: Option<String>,
        /// Checks run at once, each on its own device (default: one per core).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Checks or compiles `.ron` materials.
    Material {
        #[command(subcommand)]
        command: MaterialCommand,
    },
    /// Renders the showcase (or another example scene) to a PNG.
    Render {
        /// The scene: showcase, or one of the focused scenes (`--list` names them).
        #[arg(default_value = "showcase")]
        scene: String,
        /// The PNG to write.
        #[arg(long, default_value = "showcase.png")]
        out: std::path::PathBuf,
        /// WxH.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// A backend name; the registry's order (GPU first, soft last) when left out.
        #[arg(long)]
        backend: Option<String>,
        /// Frames to run; the last is written.
        #[arg(long, default_value_t = 1)]
        frames: u32,
        /// Every camera's MSAA: off, 2, 4 or 8 (the scene's own when left out; the showcase
        /// uses 4).
        #[arg(long)]
        msaa: Option<String>,
        /// List the scenes and exit.
        #[arg(long)]
        list: bool,
    },
    /// Previews a material, redrawing a PNG each time it or a file it includes is saved.
    Watch {
        /// The `.ron` material.
        material: std::path::PathBuf,
        /// The PNG to write.
        #[arg(long, default_value = "preview.png")]
        out: std::path::PathBuf,
        /// WxH.
        #[arg(long, default_value = "512x512")]
        size: String,
        /// A backend name (soft, wgpu, vulkan, null); the registry's order (GPU first, soft
        /// last) when left out.
        #[arg(long)]
        backend: Option<String>,
        /// Exit after this many events (loads, reloads and errors); watch forever without.
        #[arg(long)]
        events: Option<u64>,
    },
    /// Prints the compiled render graph of a scene's frame.
    Graph {
        /// The scene.
        #[arg(default_value = "showcase")]
        scene: String,
        /// Print Graphviz dot instead of the text dump.
        #[arg(long)]
        dot: bool,
        /// WxH.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// A backend name.
        #[arg(long)]
        backend: Option<String>,
    },
    /// Captures a scene's device calls to a trace, or replays a trace on another backend.
    Trace {
        #[command(subcommand)]
        command: TraceCommand,
    },
}

#[derive(Subcommand)]
enum TraceCommand {
    /// Renders a scene through a tracing device and writes the trace.
    Record {
        /// The scene.
        #[arg(long, default_value = "showcase")]
        scene: String,
        /// The backend to record on.
        #[arg(long)]
        backend: String,
        /// The trace file to write.
        #[arg(long, default_value = "frame.f3dtrace")]
        out: std::path::PathBuf,
        /// The recorded frame as PNG (default: the trace's path with `.png`).
        #[arg(long)]
        png: Option<std::path::PathBuf>,
        /// WxH.
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// Frames to record; the last is read back.
        #[arg(long, default_value_t = 1)]
        frames: u32,
        /// Every camera's MSAA: off, 2, 4 or 8.
        #[arg(long)]
        msaa: Option<String>,
    },
    /// Says what a trace holds: where it was recorded, its calls, passes and readbacks.
    Info {
        /// The `.f3dtrace` file.
        file: std::path::PathBuf,
    },
    /// Replays a trace on a backend and writes its readbacks as PNG.
    Replay {
        /// The `.f3dtrace` file.
        file: std::path::PathBuf,
        /// The backend to replay on.
        #[arg(long)]
        backend: String,
        /// A folder for the readbacks' PNGs.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Compare each readback with the recorded one; exit 1 past the tolerance.
        #[arg(long)]
        compare: bool,
    },
}

#[derive(Subcommand)]
enum MaterialCommand {
    /// Validates materials; prints `path:line:col: error: message` for each problem.
    Check {
        /// The `.ron` files.
        files: Vec<std::path::PathBuf>,
    },
    /// Prints what one backend receives for a material.
    Compile {
        /// The `.ron` file.
        file: std::path::PathBuf,
        /// The backend whose compiler to use.
        #[arg(long, default_value = "soft")]
        backend: String,
        /// What to print: wgsl, spirv or reflection.
        #[arg(long, default_value = "wgsl")]
        emit: String,
    },
    /// Writes a typed Rust struct for a material: one field and setter per parameter (see
    /// `f3d::material::typed`). The material is checked first; a problem is printed as
    /// `path:line:col: error: message` and nothing is written.
    Codegen {
        /// The `.ron` file, as the app's repository names it (written into the source).
        file: std::path::PathBuf,
        /// The struct's name (default: the file's stem in UpperCamelCase).
        #[arg(long)]
        name: Option<String>,
        /// Where to write the source (default: standard output).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Backends => backends(),
        Command::Conformance { backend, tier, jobs } => conformance(&backend, tier.as_deref(), jobs),
        Command::Material { command } => material(command),
        Command::Render { scene, out, size, backend, frames, msaa, list } => {
            if list {
                for (name, _) in f3d_examples::SCENES {
                    println!("{name}");
                }
                return ExitCode::SUCCESS;
            }
            let msaa = match msaa.as_deref().map(f3d_examples::cli::parse_msaa).transpose() {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            render_command(scene, Some(out), &size, backend, frames, msaa, None)
        }
        Command::Watch { material, out, size, backend, events } => {
            watch::run(watch::WatchJob { material, backend, out, size, events })
        }
        Command::Graph { scene, dot, size, backend } => {
            render_command(scene, None, &size, backend, 1, None, Some(dot))
        }
        Command::Trace { command } => trace_command(command),
    }
}

fn trace_command(command: TraceCommand) -> ExitCode {
    match command {
        TraceCommand::Record { scene, backend, out, png, size, frames, msaa } => {
            let Some(size) = f3d_examples::parse_size(&size) else {
                eprintln!("error: --size {size}: expected WxH");
                return ExitCode::from(2);
            };
            let msaa = match msaa.as_deref().map(f3d_examples::cli::parse_msaa).transpose() {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let png = png.unwrap_or_else(|| out.with_extension("png"));
            let job = render::RenderJob { scene, size, backend: Some(backend), frames, out: Some(png), msaa };
            match trace::record(&job, &out) {
                Ok(summary) => {
                    println!("{summary}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        TraceCommand::Info { file } => match trace::read(&file) {
            Ok(t) => {
                print!("{}", t.summary());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        TraceCommand::Replay { file, backend, out, compare } => {
            match trace::replay(&file, &backend, out.as_deref(), compare) {
                Ok(report) => {
                    for line in &report.lines {
                        println!("{line}");
                    }
                    if report.matched { ExitCode::SUCCESS } else { ExitCode::FAILURE }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

fn render_command(
    scene: String,
    out: Option<std::path::PathBuf>,
    size: &str,
    backend: Option<String>,
    frames: u32,
    msaa: Option<f3d::prelude::Msaa>,
    graph: Option<bool>,
) -> ExitCode {
    let Some(size) = f3d_examples::parse_size(size) else {
        eprintln!("error: --size {size}: expected WxH");
        return ExitCode::from(2);
    };
    let job = render::RenderJob { scene, size, backend, frames, out, msaa };
    match render::run(&job) {
        Ok(result) => {
            match graph {
                Some(true) => print!("{}", result.graph.dot),
                Some(false) => print!("{}", result.graph.dump),
                None => {
                    println!("backend: {}", result.device);
                    if let Some(p) = &result.written {
                        println!("wrote {} ({}x{})", p.display(), size.0, size.1);
                    }
                    println!("frame time: {:.1} ms", result.frame_time.as_secs_f64() * 1e3);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn exit(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

fn material(command: MaterialCommand) -> ExitCode {
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    match command {
        MaterialCommand::Check { files } => exit(f3d::f3d_materials::cli::check(&files, &mut err)),
        MaterialCommand::Compile { file, backend, emit } => {
            let Some(emit) = f3d::f3d_materials::cli::Emit::from_name(&emit) else {
                eprintln!("error: unknown --emit {emit} (wgsl, spirv, reflection)");
                return ExitCode::from(2);
            };
            let compilers = f3d::material::offline_compilers();
            let Some(compiler) = compilers.get(&f3d::f3d_hal::BackendId::from_name(&backend)) else {
                eprintln!("error: no material compiler for backend {backend}");
                return ExitCode::from(2);
            };
            exit(f3d::f3d_materials::cli::compile(&file, compiler.as_ref(), emit, &mut out, &mut err))
        }
        MaterialCommand::Codegen { file, name, out: path } => {
            let source = match f3d::material::typed::generate(&file, name.as_deref()) {
                Ok(source) => source,
                Err(errors) => {
                    for e in &errors {
                        let _ = write!(err, "{}", e.diagnostic());
                    }
                    return ExitCode::from(1);
                }
            };
            let written = match &path {
                Some(path) => std::fs::write(path, source).map_err(|e| format!("{}: {e}", path.display())),
                None => out.write_all(source.as_bytes()).map_err(|e| format!("standard output: {e}")),
            };
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// `f3d backends`: one line per registered backend, `name: adapter (kind)` or
/// `name: not available: reason`, in the registry's order of preference.
fn backends() -> ExitCode {
    let registry = f3d::plugin::default_registry();
    for id in registry.backends() {
        let mut request = f3d::f3d_hal::DeviceRequest::new(64, 64);
        request.backend = Some(id.clone());
        request.label = "f3d backends".into();
        match registry.open(&request) {
            Ok(device) => {
                let info = device.adapter_info();
                let kind = if info.cpu { "CPU" } else { "GPU" };
                let driver =
                    if info.driver.is_empty() { String::new() } else { format!(", {}", info.driver) };
                println!("{id}: {} ({kind}{driver})", info.name);
            }
            Err(e) => println!("{id}: not available: {e}"),
        }
    }
    ExitCode::SUCCESS
}

fn conformance(backend: &str, tier: Option<&str>, jobs: Option<usize>) -> ExitCode {
    let registry = f3d::plugin::default_registry();
    if backend == "list" {
        for b in registry.backends() {
            println!("{b}");
        }
        return ExitCode::SUCCESS;
    }
    let tier = match tier.map(|t| f3d_conformance::Tier::from_name(t).ok_or(t)) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(t)) => {
            eprintln!("error: unknown tier {t} (core, capabilities, lifecycle, shader)");
            return ExitCode::from(2);
        }
    };
    let id = f3d::f3d_hal::BackendId::from_name(backend);
    if !registry.backends().contains(&id) {
        let known: Vec<_> = registry.backends().iter().map(|b| b.to_string()).collect();
        eprintln!("error: unknown backend {backend} (known: {})", known.join(", "));
        return ExitCode::from(2);
    }
    let mut request = f3d::f3d_hal::DeviceRequest::new(256, 256);
    request.backend = Some(id.clone());
    request.label = "conformance".into();
    let factory = move || registry.open(&request);
    let report = match jobs {
        Some(jobs) => f3d_conformance::run_suite_with_jobs(id, &factory, tier, jobs),
        None => f3d_conformance::run_suite(id, &factory, tier),
    };
    print!("{}", report.table());
    if report.failed() > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
