//! Runs one fill-rate case single-threaded, for profilers (callgrind counts instructions,
//! which stay repeatable on a busy machine):
//! `valgrind --tool=callgrind target/release/profile_fill b 2`.

use f3d_backend_soft::SoftDevice;
use f3d_benches::soft_fill::{frame, scene};

fn main() {
    let case = std::env::args().nth(1).unwrap_or_else(|| "b".into());
    let frames: u32 = std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    let s = scene(std::sync::Arc::new(SoftDevice::single_threaded("profile")));
    let (pipeline, depth) = match case.as_str() {
        "a" => (&s.flat, false),
        "b" => (&s.four, true),
        _ => (&s.lit, false),
    };
    for _ in 0..frames {
        frame(&s, pipeline, depth);
    }
}
