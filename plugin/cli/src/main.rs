//! `f3d`: the command-line tool.
//!
//! * `f3d conformance --backend <name> [--tier <tier>]` runs the conformance suite on one
//!   backend, prints a table of every check and the summary line
//!   `conformance <backend>: N passed, N failed, N declined`, and exits 1 if any check failed.

mod backends;

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
    /// Runs the conformance suite on one backend.
    Conformance {
        /// The backend: one of the registered backends (`f3d conformance --backend list` lists them).
        #[arg(long)]
        backend: String,
        /// Only this tier: core, capabilities, lifecycle or shader.
        #[arg(long)]
        tier: Option<String>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Conformance { backend, tier } => conformance(&backend, tier.as_deref()),
    }
}

fn conformance(backend: &str, tier: Option<&str>) -> ExitCode {
    let registry = backends::registry();
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
    let id = f3d_hal::BackendId::from_name(backend);
    if !registry.backends().contains(&id) {
        let known: Vec<_> = registry.backends().iter().map(|b| b.to_string()).collect();
        eprintln!("error: unknown backend {backend} (known: {})", known.join(", "));
        return ExitCode::from(2);
    }
    let mut request = f3d_hal::DeviceRequest::new(256, 256);
    request.backend = Some(id.clone());
    request.label = "conformance".into();
    let factory = move || registry.open(&request);
    let report = f3d_conformance::run_suite(id, &factory, tier);
    print!("{}", report.table());
    if report.failed() > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
