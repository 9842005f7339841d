//! `f3d`: the command-line tool — [`f3d_cli::run`] over the backends and material compilers
//! compiled in.

fn main() -> std::process::ExitCode {
    // Before the registry is made: it logs what `F3D_BACKEND_PATH` loaded and refused.
    f3d::init_stderr_log();
    f3d_cli::run(f3d::plugin::default_registry(), f3d::material::offline_compilers())
}
