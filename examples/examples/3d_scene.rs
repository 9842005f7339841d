//! Bevy's `3d_scene` example with f3d as the renderer: a circular base, a cube, a point
//! light casting shadows and a camera, written against Bevy's own crates; the renderer plugin
//! is the only f3d line (the scene: `f3d_examples::bevy_scenes::three_d_scene`). `cargo run --release --example 3d_scene [-- --backend B --size WxH
//! --out 3d_scene.png]`; live in a window (feature `window`): `cargo run --release --example
//! 3d_scene --features window -- --window`.

use f3d_examples::cli::run_scene;

fn main() -> std::process::ExitCode {
    run_scene("3d_scene", f3d_examples::bevy_scenes::three_d_scene)
}
