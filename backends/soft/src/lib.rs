//! # f3d_backend_soft: the software rasteriser
//!
//! f3d's embedded default and the reference the GPU backends are compared with: a device
//! that needs nothing but the CPU and draws what a GPU draws from the same naga-compiled
//! shaders.
//!
//! * **Shaders** run on the CPU through [`exec`]: each entry point is compiled once into a
//!   structure-of-arrays program and run over 64-lane batches (8×8 pixels in 2×2 quads, so
//!   derivatives and implicit-LOD sampling work). A small primitive covers a few quads of
//!   each of several blocks; its sparse blocks are packed quad by quad into shared batches
//!   (up to 16 quads), so a batch is not run for a handful of pixels. Packing never changes
//!   a pixel: each lane's inputs come from its own block's origin by the same formula, quads
//!   stay whole, and depth, stencil and colour are written back block by block
//!   ([`SoftDevice::without_quad_packing`] turns it off; a test compares every example scene
//!   both ways).
//! * **Rasterisation** (the internal `raster` module): homogeneous clipping (near, far, a guard band),
//!   fixed-point edge functions with 8 sub-pixel bits and the top-left fill rule, perspective-
//!   correct, linear and flat interpolation, depth (bias, clamp), stencil, every blend factor
//!   and operation, write masks, several render targets; points and lines as one-pixel
//!   quads; wireframe as the triangles' edges.
//! * **Both cores**: primitives are binned into bands of 32 rows and bands are rasterised in
//!   parallel (rayon); each band walks its primitives in submission order, so the pixels are
//!   the same whatever the number of threads.
//! * **Ordering**: uploads, copies, submits and readbacks take the device's queue lock and
//!   happen in call order; a pass runs entirely at `submit`.
//! * **Honest capabilities**: copies, instancing, stencil, blend constant, wireframe, depth
//!   clip control, float32 filtering, indirect and multi-draw-indirect, occlusion and
//!   timestamp queries, 4× MSAA (see `raster`). Not: BC compression, multiview, compute, storage buffers
//!   (refused by name).
//!
//! Files follow the backend layout: `device.rs`, `pass.rs` (the recorder's sink), `draw.rs`
//! (running a pass: geometry and the vertex stage), `shade.rs` (fragment block shading),
//! `geometry.rs` (vertex fetch to primitives), `pipeline.rs`, `texture.rs`, and the soft
//! backend's own `raster/`; the shader executor is its own crate, [`f3d_soft_exec`]
//! (re-exported as [`exec`]).

mod device;
mod draw;
/// The shader executor (its own crate, [`f3d_soft_exec`]: it needs only naga and the HAL).
pub use f3d_soft_exec as exec;
mod geometry;
mod pass;
mod pipeline;
#[cfg(feature = "present")]
mod present;
mod raster;
mod shade;
mod texture;

use std::sync::Arc;

pub use device::SoftDevice;
use f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice, Registration};

/// Registers the soft backend; it always opens.
pub fn register_soft_backend(registry: &mut DeviceRegistry) -> Registration {
    registry.add_backend(BackendId::SOFT, |request| {
        Ok(Arc::new(SoftDevice::new(&request.label)) as Arc<dyn GraphicsDevice>)
    })
}
