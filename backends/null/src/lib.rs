//! # f3d_backend_null: the template backend
//!
//! A real device that draws nothing. Textures live in memory: clears, uploads, overwrites,
//! copies and readback all work and are held to the conformance suite's `CORE`,
//! `CAPABILITIES` and `LIFECYCLE` tiers. Shaders and pipelines are accepted (bindings are
//! reflected, so bind-by-name answers truthfully), but every pipeline is refused at its first
//! draw — it draws nothing, the rest of the pass goes on, and the refusal is reported once in
//! `pipeline_refusals()`. It reports only what it does: [`DeviceFeature::COPY_TEXTURE`], and so
//! passes every CORE, CAPABILITIES and LIFECYCLE check. [`NullDevice::with_instancing`] also
//! takes a draw of many instances as one call ([`DeviceFeature::INSTANCING`]), so CPU
//! benchmarks on null measure what the engine records for a GPU, not a million
//! single-instance draws; that device's instancing check declines (with its pipeline
//! refused, where the instances land cannot be seen).
//!
//! It is also the template for a new backend (copy the crate and rename it; a generator,
//! `f3d create backend`, is planned and does not exist yet):
//! it compiles against the published APIs of `f3d_hal` and `f3d_materials` only, and has
//! the files every backend has — `device.rs` (the `GraphicsDevice`), `pass.rs` (encoders),
//! `texture.rs`, `pipeline.rs` — minus `conv.rs`, since there is no API to convert HAL enums
//! into, and `readback.rs`, since host memory reads back through the HAL's `HostPlanes`.

mod device;
mod pass;
mod pipeline;
mod texture;

use std::sync::Arc;

pub use device::NullDevice;
use f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice, Registration};

#[cfg(doc)]
use f3d_hal::DeviceFeature;

/// Registers the null backend; it always opens.
pub fn register_null_backend(registry: &mut DeviceRegistry) -> Registration {
    registry.add_backend(BackendId::NULL, |request| {
        Ok(Arc::new(NullDevice::new(&request.label)) as Arc<dyn GraphicsDevice>)
    })
}
