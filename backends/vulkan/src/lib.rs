//! # f3d_backend_vulkan: f3d on raw Vulkan
//!
//! A [`GraphicsDevice`] over Vulkan 1.3 through ash, with no layer in between: f3d's render
//! graph plans the barriers, memory comes from gpu-allocator, shaders are SPIR-V written by
//! naga's spv-out from the validated module, and a draw costs what recording it into a
//! command list and replaying it costs. Held to the same conformance suite as every backend.
//!
//! ## Opening
//!
//! The loader is opened at run time, so a binary with this backend starts anywhere and the
//! registry moves on where there is no Vulkan. The instance is Vulkan 1.3, with
//! `VK_LAYER_KHRONOS_validation` and a debug-utils messenger when the request asks for
//! validation. A physical device must offer dynamic rendering, synchronization2 and timeline
//! semaphores and a graphics+compute queue family; among those the request's power preference
//! picks (discrete first unless low power is asked for). The device is opened with those and
//! every optional feature f3d uses that it has; [`GraphicsDevice::features`] reports what
//! was enabled *and* is implemented here. Anything missing is
//! [`OpenError::DeviceUnavailable`] with a sentence ("no Vulkan 1.3 device with dynamic
//! rendering, synchronization2 and timeline semaphores (is mesa-vulkan-drivers installed?): …").
//!
//! ## Rules this backend keeps
//!
//! * **Refusals come from the call at fault, in the HAL's words, before Vulkan sees
//!   anything.** Every shared rule (`f3d_hal::backend::check_*`) runs first, then what Vulkan
//!   and its validation layers add: format features of this device, a pipeline's attachments
//!   matching its pass's exactly, vertex buffers every pipeline slot needs, offsets in
//!   multiples of 4, linear filtering and depth comparison only where the format allows,
//!   vertex inputs, varyings and fragment outputs that agree (a pipeline that fails those is
//!   handed out and refused at its first draw, reported once), independent blend, query
//!   indices written once per pass.
//! * **Order.** Every device call records into one open command buffer in call order
//!   (uploads, copies, zeroing of fresh textures); a pass is recorded into its own command
//!   list and replayed into that buffer when submitted, then the buffer is submitted with the
//!   next value of one timeline semaphore. `readback` records its copy and submits at once, so
//!   it sees exactly the work called before it; its [`PendingReadback`] waits for the value.
//! * **Layouts.** Every subresource's use is tracked (`barrier.rs`); uploads, copies and
//!   readbacks move textures by themselves; a pass applies the render graph's
//!   [`RenderPassDescriptor::transitions`] first (a transition from `Undefined` discards, a
//!   read-only depth attachment may be sampled in the same pass) and then what its own
//!   attachments and bindings need, so a pass built by hand works too. A texture starts zeroed:
//!   fresh subresources are cleared before the first use that reads them.
//! * **Memory and lifetime.** Images and buffers come from plans (`alloc.rs`) the payload keeps,
//!   so wrapper and Vulkan object never disagree. Dropping a handle hands its objects to a
//!   queue that destroys them once the timeline passed the last submission that could use
//!   them. Dropping the device waits for the GPU and destroys everything, whatever handles are
//!   still around ([`VulkanDevice::vk_object_counter`] returns to zero).
//! * **Per-draw uniforms** go into one host-visible ring bound with dynamic offsets; ranges are
//!   reused once the GPU passed their submission; descriptor sets are cached per pipeline.
//! * **Frames in flight.** [`GraphicsDevice::begin_frame`] submits what is pending and waits
//!   until at most two frames are unfinished on the GPU.
//! * **Y.** Vulkan's framebuffer row 0 is the top row ([`FramebufferOrigin::TopLeft`]); vertex
//!   stages flip clip-space y so clip-space y up lands in the top rows, and viewports stay
//!   plain y-down rectangles.
//! * **Loss.** [`GraphicsDevice::simulate_loss`], a `VK_ERROR_DEVICE_LOST` from the driver, and
//!   a wait during which nothing progresses for the request's `gpu_timeout` (30 s by default,
//!   `F3D_GPU_TIMEOUT_S`) are reported once; afterwards every call answers
//!   [`DeviceError::Lost`] naming itself. "Progress" is a timeline value reached or, on a CPU
//!   adapter such as lavapipe, CPU time spent by the process: lavapipe grinding through one
//!   huge submission is a slow frame, not a hung GPU. The reason names the frame and the
//!   submission waited on (`frame 3: pass `opaque``).
//! * **The loader and the drivers stay loaded** once a device opened them: the first device
//!   also makes one bare instance that is never destroyed, because the loader unloads a
//!   driver with the last instance using it and NVIDIA's driver does not survive being
//!   unloaded and loaded again in one process (on the H200, devices opened one after another
//!   failed from about the thirtieth, and sixteen threads opening and dropping devices at
//!   once hung in the driver).
//! * **Presentation** (`swapchain.rs`). The instance enables `VK_KHR_surface` and whichever of
//!   the Xlib, XCB and Wayland surface extensions the loader offers, the device
//!   `VK_KHR_swapchain` where it has it; [`DeviceFeature::PRESENT`] is reported exactly when
//!   both are on (a machine without them opens headless, and
//!   [`GraphicsDevice::create_surface`] refuses by the feature's name). A window's surface
//!   blits the frame texture (tracked like any copy source) onto an acquired swapchain image,
//!   scaling and sRGB-encoding it, submits that with the timeline under the core lock and
//!   presents it; outdated and lost surfaces are made again and that frame is skipped.
//! * **Validation.** With validation on, every layer message is logged as a `tracing`
//!   warning (`vulkan validation: …`), kept in a [`ValidationLog`], and turns the call during which it
//!   arrived into an error. SPIR-V carries no `OpSource`, so nothing needs filtering.
//!
//! Backend-specific accessors carry a `vk_` prefix ([`VulkanDevice::vk_device`],
//! [`VulkanDevice::vk_queue_family`], ...), so a later HAL member cannot collide with them.

mod alloc;
mod barrier;
mod compiler;
mod compute;
mod conv;
mod descriptor;
mod device;
mod instance;
mod pass;
mod pipeline;
mod query;
mod readback;
mod replay;
mod ring;
mod swapchain;
mod sync;
mod texture;

use std::sync::Arc;

pub use compiler::VulkanCompiler;
pub use device::{VulkanDevice, VulkanOptions};
use f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice, Registration};
pub use instance::ValidationLog;
pub use sync::ObjectCounter;

/// The ash the `vk_*` accessors speak, so callers name the same one.
pub use ash;

#[cfg(doc)]
use f3d_hal::{
    DeviceError, DeviceFeature, FramebufferOrigin, OpenError, PendingReadback, RenderPassDescriptor,
};

/// Registers the vulkan backend; it opens wherever a Vulkan 1.3 device with dynamic
/// rendering, synchronization2 and timeline semaphores is found.
pub fn register_vulkan_backend(registry: &mut DeviceRegistry) -> Registration {
    registry.add_backend(BackendId::VULKAN, |request| {
        VulkanDevice::open(request).map(|device| Arc::new(device) as Arc<dyn GraphicsDevice>)
    })
}
