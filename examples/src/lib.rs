//! # f3d_examples
//!
//! The scenes f3d's examples draw, as plain functions over a `World`, so the examples, the
//! `f3d render` command and the golden tests draw exactly the same thing:
//!
//! * [`showcase`]: a grid of spheres sweeping metallic × roughness, the toon, brass, ocean
//!   and water materials, a shadowed ground plane, a procedural sky with IBL.
//! * [`SCENES`]: the focused scenes the goldens use, by name.
//! * [`preview`]: one `.ron` material on a sphere, redrawn whenever its files change
//!   (`f3d watch`, the `hot_reload` example, the hot-reload benchmark).
//!
//! * [`bevy_scenes`]: scenes of Bevy's own examples, as Bevy writes them.
//! * [`cli`]: the flags, app and report the headless examples share.
//! * [`vignette`]: a custom pass as a plugin (the `custom_pass` example).
//!
//! Assets live in `examples/assets/` ([`assets_dir`]).

pub mod bevy_scenes;
pub mod cli;
pub mod preview;
pub mod scenes;
pub mod typed;
pub mod vignette;

pub use preview::{Preview, PreviewEvent, PreviewSettings, material_preview};
pub use scenes::{SCENES, scene, showcase};

use std::path::PathBuf;

/// The examples' assets: `F3D_ASSETS` when set, else the `examples/assets` folder of the
/// checkout the binary was built in, else `examples/assets` under the working directory (a
/// binary copied to another machine and run from a copy of the repository).
pub fn assets_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("F3D_ASSETS") {
        return dir.into();
    }
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets");
    let here = PathBuf::from("examples").join("assets");
    if !built.is_dir() && here.is_dir() { here } else { built }
}

/// Parses `WxH` (`1280x720`).
pub fn parse_size(text: &str) -> Option<(u32, u32)> {
    let (w, h) = text.split_once(['x', 'X'])?;
    let (w, h) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
    (w > 0 && h > 0 && w <= 8192 && h <= 8192).then_some((w, h))
}
