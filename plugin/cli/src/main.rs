//! `f3d`: the command-line tool — [`f3d_cli::run`] over the backends and material compilers
//! compiled in.

fn main() -> std::process::ExitCode {
    f3d_cli::run(f3d::plugin::default_registry(), f3d::material::offline_compilers())
}
