//! # f3d_examples
//!
//! The scenes f3d's examples draw, as plain functions over a `World`, so the examples, the
//! `f3d render` command and the golden tests draw exactly the same thing:
//!
//! * [`showcase`]: a grid of spheres sweeping metallic × roughness, the toon, brass, ocean
//!   and water materials, a shadowed ground plane, a procedural sky with IBL.
//! * [`SCENES`]: the focused scenes the goldens use, by name.
//!
//! Assets live in `examples/assets/` ([`assets_dir`]).

pub mod scenes;

pub use scenes::{SCENES, scene, showcase};

use std::path::PathBuf;

/// The `examples/assets` folder of this checkout.
pub fn assets_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// Parses `WxH` (`1280x720`).
pub fn parse_size(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.split_once(['x', 'X'])?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0 && h > 0 && w <= 8192 && h <= 8192).then_some((w, h))
}
