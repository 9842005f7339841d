//! The showcase: `cargo run --release --example showcase [-- --backend soft --size 1280x720
//! --out showcase.png --frames 1 --pipelined --verbose]`. Writes the last frame to a PNG and
//! prints the backend, the adapter and the frame time (`--verbose`: and the device's memory
//! by kind).

use f3d_examples::cli::run_scene;

fn main() -> std::process::ExitCode {
    run_scene("showcase", f3d_examples::showcase)
}
