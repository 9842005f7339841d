//! # f3d_backend_wgpu: f3d on every API wgpu reaches
//!
//! A [`GraphicsDevice`] over wgpu (Vulkan, Metal, DX12, GL underneath), held to the same
//! conformance suite as every backend.
//!
//! ## Opening
//!
//! Instance → adapter (the request's power preference) → device. The device asks for the
//! *intersection* of the wgpu features this backend uses and the adapter's features, and for
//! the adapter's own limits — never a constant wish-list, since a device that asks for a
//! missing feature does not open. [`GraphicsDevice::features`] reports what was granted *and*
//! is implemented here. No adapter is [`OpenError::DeviceUnavailable`] with a sentence saying
//! why, so a [`DeviceRegistry`] moves on to the next backend.
//!
//! ## Rules this backend keeps
//!
//! * **Refusals come from the call at fault, with the HAL's words.** Every rule the HAL shares
//!   (`f3d_hal::backend::check_*`) is applied before wgpu sees the call, and so are the rules
//!   wgpu adds (vertex ranges of direct draws, vertex offsets in multiples of 4, a pipeline's
//!   attachments matching its pass's, one occlusion query set per pass). Whatever wgpu still
//!   refuses is caught in an error scope around the call and returned as
//!   [`DeviceError::Backend`]; nothing reaches wgpu's uncaptured-error handler, which would
//!   panic (a handler that keeps such errors is installed anyway:
//!   [`WgpuDevice::wgpu_take_uncaptured_errors`]).
//! * **Order.** Uploads, copies, submissions and readbacks take effect in call order: each is
//!   queued when called. A pass's commands are recorded into the pass and replayed into a
//!   wgpu render pass at `submit`, so a pass begun and not submitted changes nothing.
//!   `readback` records and submits its copy when called, so it sees exactly the work
//!   submitted before it; its [`PendingReadback`] maps the copy when waited for.
//! * **Per-draw uniforms** go into one ring buffer bound with dynamic offsets (aligned to the
//!   device's `min_uniform_buffer_offset_alignment`): no buffer is made per draw, and bind
//!   groups (built from the pipeline's reflected bindings) are cached per pipeline by the
//!   resources they hold.
//! * **Refused pipelines.** A pipeline wgpu refuses (a shader interface it rejects, say) is
//!   handed out anyway, draws nothing, and is reported once in
//!   [`GraphicsDevice::pipeline_refusals`] with wgpu's message.
//! * **A pass does not sample what it draws into.** `bind_texture` answers false for a texture
//!   that is one of the pass's attachments (wgpu's usage rule; the whole texture is bound, so
//!   any of its levels counts).
//! * **Copies within one level and layer** (non-overlapping, which the HAL allows and WebGPU
//!   does not) go through a scratch texture.
//! * **32-bit float textures** are bound as filterable. Without
//!   [`DeviceFeature::FLOAT32_FILTERABLE`] they are therefore not sampled at all here
//!   (`texture_format_support(..).sampled` is false and `bind_texture` answers false) rather
//!   than sampled with a layout that would need the feature.
//! * **Loss.** [`GraphicsDevice::simulate_loss`] destroys the wgpu device, as a driver reset
//!   would; a loss wgpu reports is taken over by the next operation. Afterwards every
//!   operation answers [`DeviceError::Lost`] naming itself.
//!
//! ## Presenting
//!
//! [`GraphicsDevice::create_surface`] makes a wgpu surface from a window's raw handles (any
//! window system wgpu reaches) and shows frames the engine rendered into its own textures: a
//! blit over the surface's texture (scaled, sRGB kept), then `present`. A surface that is
//! hidden, zero-sized, outdated or lost is reconfigured or made again and that frame skipped,
//! never an error (`present.rs`).
//!
//! Backend-specific accessors carry a `wgpu_` prefix ([`WgpuDevice::wgpu_device`],
//! [`WgpuDevice::wgpu_queue`], ...), so a later HAL member cannot collide with them.

mod adapter;
mod compiler;
mod compute;
mod conv;
mod device;
mod pass;
mod pipeline;
mod present;
mod query;
mod readback;
mod replay;
mod ring;
mod texture;

use std::sync::Arc;

pub use compiler::WgpuCompiler;
pub use device::WgpuDevice;
use f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice, Registration};
/// The wgpu the `wgpu_*` accessors speak, so callers name the same one.
pub use wgpu;

#[cfg(doc)]
use f3d_hal::{DeviceError, DeviceFeature, OpenError, PendingReadback};

/// Registers the wgpu backend; it opens wherever wgpu finds an adapter.
pub fn register_wgpu_backend(registry: &mut DeviceRegistry) -> Registration {
    registry.add_backend(BackendId::WGPU, |request| {
        WgpuDevice::open(request).map(|device| Arc::new(device) as Arc<dyn GraphicsDevice>)
    })
}
