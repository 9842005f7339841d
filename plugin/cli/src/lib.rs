//! `f3d`: the command-line tool, as a library.
//!
//! The `f3d` binary is [`run`] over the default registry and compilers. A backend crate's own
//! small binary calls the same function with its backend added, and is the full `f3d` with
//! one more backend — conformance, rendering, watching, tracing and material compiles all
//! go through the registry and compilers it is given:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     let mut registry = f3d::plugin::default_registry();
//!     let _ = f3d_backend_null::register_null_backend(&mut registry); // your backend here
//!     let mut compilers = f3d::material::offline_compilers();
//!     compilers.add(std::sync::Arc::new(f3d_backend_null::NullCompiler));
//!     f3d_cli::run(registry, compilers)
//! }
//! ```
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
//! * `f3d create backend --name NAME [--path DIR] [--f3d-path CHECKOUT | --workspace]` writes
//!   a new backend crate from the null backend ([`create`]).

pub mod create;
mod render;
mod trace;
mod watch;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use f3d::f3d_hal::DeviceRegistry;
use f3d::f3d_materials::MaterialCompilers;

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
    /// Writes a new crate from a template.
    Create {
        #[command(subcommand)]
        command: CreateCommand,
    },
}

#[derive(Subcommand)]
enum CreateCommand {
    /// A backend crate: the null backend under a new name (device, submit, material
    /// compiler, registration, a conformance test and a registration test).
    Backend {
        /// The backend's name: lower-case letters, digits and `_` (the crate is
        /// `f3d_backend_<name>`).
        #[arg(long)]
        name: String,
        /// The crate's directory (default: `./f3d_backend_<name>`); must not exist or be empty.
        #[arg(long)]
        path: Option<std::path::PathBuf>,
        /// Depend on the f3d crates of this checkout by path instead of by version.
        #[arg(long, conflicts_with = "workspace")]
        f3d_path: Option<std::path::PathBuf>,
        /// Depend on the f3d crates as workspace dependencies (a backend inside f3d's
        /// workspace).
        #[arg(long)]
        workspace: bool,
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

/// Writes to the command's output, ignoring a closed pipe (as `print!` would not).
macro_rules! say {
    ($w:expr, $($arg:tt)*) => {{
        let _ = write!($w, $($arg)*);
    }};
}

/// [`say!`] with a newline.
macro_rules! sayln {
    ($w:expr, $($arg:tt)*) => {{
        let _ = writeln!($w, $($arg)*);
    }};
}

/// What the commands open devices from and compile materials with.
struct Tools {
    registry: DeviceRegistry,
    compilers: MaterialCompilers,
}

/// Runs `f3d` on the process's arguments with `registry`'s backends and `compilers`, writing
/// to standard output; returns the process's exit status (0 success, 1 failure, 2 bad
/// arguments).
pub fn run(registry: DeviceRegistry, compilers: MaterialCompilers) -> ExitCode {
    // The library's warnings (a material that failed, a backend refused) reach the terminal.
    f3d::init_stderr_log();
    let code = run_from(std::env::args_os(), registry, compilers, &mut std::io::stdout().lock());
    ExitCode::from(code)
}

/// Runs `f3d` on `args` (the first is the program's name), writing what the command prints
/// to `w` (diagnostics and `watch`'s event lines still go to standard error and output); the
/// exit status is returned: 0 success, 1 failure, 2 bad arguments.
pub fn run_from<I, T>(
    args: I,
    registry: DeviceRegistry,
    compilers: MaterialCompilers,
    w: &mut dyn Write,
) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return u8::try_from(code).unwrap_or(2);
        }
    };
    let tools = Tools { registry, compilers };
    match cli.command {
        Command::Backends => backends(&tools, w),
        Command::Conformance { backend, tier, jobs } => {
            conformance(&tools, &backend, tier.as_deref(), jobs, w)
        }
        Command::Material { command } => material(&tools, command, w),
        Command::Render { scene, out, size, backend, frames, msaa, list } => {
            if list {
                for (name, _) in f3d_examples::SCENES {
                    sayln!(w, "{name}");
                }
                return 0;
            }
            let msaa = match msaa.as_deref().map(f3d_examples::cli::parse_msaa).transpose() {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            let job = RenderArgs { scene, out: Some(out), size, backend, frames, msaa };
            render_command(&tools, job, None, w)
        }
        Command::Watch { material, out, size, backend, events } => {
            watch::run(watch::WatchJob { material, backend, out, size, events }, tools.registry)
        }
        Command::Graph { scene, dot, size, backend } => {
            let job = RenderArgs { scene, out: None, size, backend, frames: 1, msaa: None };
            render_command(&tools, job, Some(dot), w)
        }
        Command::Trace { command } => trace_command(&tools, command, w),
        Command::Create { command: CreateCommand::Backend { name, path, f3d_path, workspace } } => {
            create_backend(&name, path, f3d_path, workspace, w)
        }
    }
}

fn create_backend(
    name: &str,
    path: Option<std::path::PathBuf>,
    f3d_path: Option<std::path::PathBuf>,
    workspace: bool,
    w: &mut dyn Write,
) -> u8 {
    let deps = match (f3d_path, workspace) {
        (_, true) => create::Dependencies::Workspace,
        (Some(root), false) => match std::path::absolute(&root) {
            Ok(root) if root.join("backends/hal/Cargo.toml").is_file() => create::Dependencies::Path(root),
            _ => {
                eprintln!(
                    "error: --f3d-path {}: not an f3d checkout (no backends/hal/Cargo.toml)",
                    root.display()
                );
                return 2;
            }
        },
        (None, false) => create::Dependencies::Version(env!("CARGO_PKG_VERSION").to_owned()),
    };
    let files = match create::generate(name, &deps) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let dir = path.unwrap_or_else(|| format!("f3d_backend_{name}").into());
    if let Err(e) = create::write(&dir, &files) {
        eprintln!("error: {e}");
        return 1;
    }
    sayln!(w, "created f3d_backend_{name} in {} ({} files)", dir.display(), files.len());
    sayln!(w, "`cargo test` there runs its registration test and the conformance suite");
    0
}

fn trace_command(tools: &Tools, command: TraceCommand, w: &mut dyn Write) -> u8 {
    match command {
        TraceCommand::Record { scene, backend, out, png, size, frames, msaa } => {
            let Some(size) = f3d_examples::parse_size(&size) else {
                eprintln!("error: --size {size}: expected WxH");
                return 2;
            };
            let msaa = match msaa.as_deref().map(f3d_examples::cli::parse_msaa).transpose() {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            let png = png.unwrap_or_else(|| out.with_extension("png"));
            let job = render::RenderJob { scene, size, backend: Some(backend), frames, out: Some(png), msaa };
            match trace::record(&job, &out, &tools.registry) {
                Ok(summary) => {
                    sayln!(w, "{summary}");
                    0
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            }
        }
        TraceCommand::Info { file } => match trace::read(&file) {
            Ok(t) => {
                say!(w, "{}", t.summary());
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        },
        TraceCommand::Replay { file, backend, out, compare } => {
            match trace::replay(&file, &backend, out.as_deref(), compare, &tools.registry) {
                Ok(report) => {
                    for line in &report.lines {
                        sayln!(w, "{line}");
                    }
                    if report.matched { 0 } else { 1 }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            }
        }
    }
}

/// `f3d render` and `f3d graph`'s arguments.
struct RenderArgs {
    scene: String,
    out: Option<std::path::PathBuf>,
    size: String,
    backend: Option<String>,
    frames: u32,
    msaa: Option<f3d::prelude::Msaa>,
}

fn render_command(tools: &Tools, args: RenderArgs, graph: Option<bool>, w: &mut dyn Write) -> u8 {
    let RenderArgs { scene, out, size, backend, frames, msaa } = args;
    let Some(size) = f3d_examples::parse_size(&size) else {
        eprintln!("error: --size {size}: expected WxH");
        return 2;
    };
    let job = render::RenderJob { scene, size, backend, frames, out, msaa };
    match render::run_with(&job, tools.registry.clone()) {
        Ok(result) => {
            match graph {
                Some(true) => say!(w, "{}", result.graph.dot),
                Some(false) => say!(w, "{}", result.graph.dump),
                None => {
                    sayln!(w, "backend: {}", result.device);
                    if let Some(p) = &result.written {
                        sayln!(w, "wrote {} ({}x{})", p.display(), size.0, size.1);
                    }
                    sayln!(w, "frame time: {:.1} ms", result.frame_time.as_secs_f64() * 1e3);
                }
            }
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn exit(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

fn material(tools: &Tools, command: MaterialCommand, w: &mut dyn Write) -> u8 {
    let mut err = std::io::stderr().lock();
    match command {
        MaterialCommand::Check { files } => exit(f3d::f3d_materials::cli::check(&files, &mut err)),
        MaterialCommand::Compile { file, backend, emit } => {
            let Some(emit) = f3d::f3d_materials::cli::Emit::from_name(&emit) else {
                eprintln!("error: unknown --emit {emit} (wgsl, spirv, reflection)");
                return 2;
            };
            let Some(compiler) = tools.compilers.get(&f3d::f3d_hal::BackendId::from_name(&backend)) else {
                eprintln!("error: no material compiler for backend {backend}");
                return 2;
            };
            exit(f3d::f3d_materials::cli::compile(&file, compiler.as_ref(), emit, w, &mut err))
        }
        MaterialCommand::Codegen { file, name, out: path } => {
            let source = match f3d::material::typed::generate(&file, name.as_deref()) {
                Ok(source) => source,
                Err(errors) => {
                    for e in &errors {
                        let _ = write!(err, "{}", e.diagnostic());
                    }
                    return 1;
                }
            };
            let written = match &path {
                Some(path) => std::fs::write(path, source).map_err(|e| format!("{}: {e}", path.display())),
                None => w.write_all(source.as_bytes()).map_err(|e| format!("standard output: {e}")),
            };
            match written {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            }
        }
    }
}

/// `f3d backends`: one line per registered backend, `name: adapter (kind)` or
/// `name: not available: reason`, in the registry's order of preference; then a line per
/// backend library the registry loaded or refused (`F3D_BACKEND_PATH`).
fn backends(tools: &Tools, w: &mut dyn Write) -> u8 {
    let registry = &tools.registry;
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
                sayln!(w, "{id}: {} ({kind}{driver})", info.name);
            }
            Err(e) => sayln!(w, "{id}: not available: {e}"),
        }
    }
    for line in registry.load_reports().iter().flat_map(|r| r.lines()) {
        sayln!(w, "{line}");
    }
    0
}

fn conformance(
    tools: &Tools,
    backend: &str,
    tier: Option<&str>,
    jobs: Option<usize>,
    w: &mut dyn Write,
) -> u8 {
    let registry = tools.registry.clone();
    if backend == "list" {
        for b in registry.backends() {
            sayln!(w, "{b}");
        }
        return 0;
    }
    let tier = match tier.map(|t| f3d_conformance::Tier::from_name(t).ok_or(t)) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(t)) => {
            eprintln!("error: unknown tier {t} (core, capabilities, lifecycle, shader)");
            return 2;
        }
    };
    let id = f3d::f3d_hal::BackendId::from_name(backend);
    if !registry.backends().contains(&id) {
        let known: Vec<_> = registry.backends().iter().map(|b| b.to_string()).collect();
        eprintln!("error: unknown backend {backend} (known: {})", known.join(", "));
        return 2;
    }
    let mut request = f3d::f3d_hal::DeviceRequest::new(256, 256);
    request.backend = Some(id.clone());
    request.label = "conformance".into();
    let factory = move || registry.open(&request);
    let report = match jobs {
        Some(jobs) => f3d_conformance::run_suite_with_jobs(id, &factory, tier, jobs),
        None => f3d_conformance::run_suite(id, &factory, tier),
    };
    say!(w, "{}", report.table());
    if report.failed() > 0 { 1 } else { 0 }
}
