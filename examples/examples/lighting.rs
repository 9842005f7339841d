//! Bevy's `lighting` example, reduced to what f3d draws, with f3d as the renderer: a
//! directional light with shadows, a red point light and a green and a blue spot light over a
//! ground plane, a cube, a sphere and a wall (`f3d_examples::bevy_scenes::lighting`). `cargo run --release --example lighting
//! [-- --backend B --size WxH --out lighting.png]`.

use f3d_examples::cli::run_scene;

fn main() -> std::process::ExitCode {
    run_scene("lighting", f3d_examples::bevy_scenes::lighting)
}
