//! Goldens on the wgpu backend: the showcase and every focused scene of
//! `f3d_examples::SCENES`, at 192x108, drawn through the whole engine (plugin, render graph,
//! materials) on a wgpu device, compared with `tests/goldens/wgpu/` (`F3D_BLESS=1` rewrites
//! them). A second test bounds how far each wgpu frame is from the soft frame of the same
//! scene drawn in the same test — the CPU rasteriser is the reference the GPU backends answer to (DESIGN
//! §7). Tolerances: [`f3d_testing::gpu`].
//!
//! Without an adapter both tests say so and pass; CI installs lavapipe and sets
//! `F3D_REQUIRE_BACKENDS=...,wgpu`, under which a missing adapter fails instead.

use std::sync::Arc;

use f3d_testing::{Frame, gpu, render_frame};

mod gpu_support;
use gpu_support as common;

const SIZE: (u32, u32) = (192, 108);

fn scenes() -> Vec<&'static str> {
    f3d_examples::SCENES.iter().map(|(name, _)| *name).collect()
}

fn frame(name: &str) -> Option<Frame> {
    let device = common::wgpu_device(SIZE)?;
    let build = f3d_examples::scene(name).unwrap_or_else(|| panic!("no scene {name}"));
    Some(render_frame(SIZE.0, SIZE.1, Arc::new(device), build).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// The scene drawn now on the soft backend, the reference.
fn soft(name: &str) -> Frame {
    let build = f3d_examples::scene(name).unwrap_or_else(|| panic!("no scene {name}"));
    f3d_testing::soft_frame(SIZE.0, SIZE.1, build).unwrap_or_else(|e| panic!("soft {name}: {e}"))
}

#[test]
fn goldens() {
    gpu::goldens("wgpu", &scenes(), frame);
}

#[test]
fn wgpu_stays_close_to_soft() {
    gpu::close_to_soft("wgpu", &scenes(), frame, soft);
}
