//! A custom post pass through public API only: a vignette between the translucent pass and
//! tonemapping, added by a plugin (`f3d_examples::vignette`) over the PBR grid. `cargo run
//! --release --example custom_pass [-- --out custom_pass.png --pipelined --backend B]`: the
//! same pixels inline and pipelined.

use f3d::prelude::*;
use f3d_examples::cli::{ExampleArgs, bad_args, run};
use f3d_examples::vignette::VignettePlugin;

fn main() -> std::process::ExitCode {
    let defaults = ExampleArgs { size: (640, 360), ..ExampleArgs::defaults(Some("custom_pass.png"), 1) };
    let args = match ExampleArgs::parse_with("custom_pass", "", defaults, |_, _| Ok(false)) {
        Ok(a) => a,
        Err(e) => return bad_args("custom_pass", &e),
    };
    let mut app = args.app();
    app.add_plugins(VignettePlugin).add_systems(Startup, f3d_examples::scenes::pbr_grid);
    run(app)
}
