//! `SHADER`: shaders, pipelines and draws. Every check compares pixels against arithmetic
//! done in the check, with the tolerance it states. A device that refuses the check's
//! pipeline at draw time (the null backend refuses all) declines with its reason.

mod blend;
mod formats;
mod fuzz;
mod noise;
mod passes;
mod primitives;
mod raster;
mod storage;
mod textures;

use crate::{Check, CheckFn, Tier};

/// Named colours as shader-side floats.
pub(crate) const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];
pub(crate) const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];
pub(crate) const BLUE: [f32; 4] = [0.0, 0.0, 1.0, 1.0];
pub(crate) const WHITE: [f32; 4] = [1.0, 1.0, 1.0, 1.0];

pub(crate) fn checks() -> Vec<Check> {
    let mut all = Vec::new();
    for (name, f) in passes::CHECKS
        .iter()
        .chain(primitives::CHECKS)
        .chain(textures::CHECKS)
        .chain(blend::CHECKS)
        .chain(raster::CHECKS)
        .chain(formats::CHECKS)
        .chain(fuzz::CHECKS)
        .chain(noise::CHECKS)
        .chain(storage::CHECKS)
    {
        all.push(Check { tier: Tier::Shader, name, run: CheckFn::Device(*f) });
    }
    all
}

/// A check of this tier: its name and function.
pub(crate) type Entry = (&'static str, fn(&dyn f3d_hal::GraphicsDevice) -> crate::CheckResult);

/// Whether two RGBA8 texels differ by at most `tolerance` in every channel.
pub(crate) fn near(a: [u8; 4], b: [u8; 4], tolerance: u8) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= tolerance)
}

/// RGBA8 of a float colour, by hand.
pub(crate) fn rgba8(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}
