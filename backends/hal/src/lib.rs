//! # f3d_hal: the device contract
//!
//! Every f3d backend — Vulkan through ash, wgpu, the software rasteriser, the null backend,
//! and backends written outside this repository — implements [`GraphicsDevice`]. The rest of
//! f3d (the render graph, the materials, the plugin) talks only to this trait, so the contract
//! is written here, and each rule names the conformance check (crate `f3d_conformance`,
//! tier and check name) that holds every backend to it.
//!
//! This crate knows nothing of ECS, materials or the render graph; it depends on naga only
//! for IR types.
//!
//! ## Members
//!
//! * **Required** members have no default body: formats, framebuffer origin, depth range,
//!   features, limits, format support, creation of textures, geometry, samplers, shaders and
//!   pipelines, `begin_frame`, `begin_render_pass`, `readback`, identity and resource counts.
//! * **Feature-gated** members have a default body that refuses with
//!   [`DeviceError::Unsupported`] naming the feature: copies ([`DeviceFeature::COPY_TEXTURE`]),
//!   queries, compute, storage-buffer readback, indirect draws, the blend constant. State a
//!   feature needs (wireframe, MSAA, stencil, depth clip control, multiview, BC formats,
//!   instancing) is refused by the shared checks in [`backend`] with the same error. A backend
//!   overrides the member *and* reports the feature; a new member arrives with a default body,
//!   so every backend keeps compiling.
//!
//! Beside the contract: [`record`], the one pass encoder backends submit from; [`dynamic`],
//! backends built as libraries and loaded at run time with an ABI check; [`shader_cache`],
//! compiled shaders kept on disk between runs;
//! [`ValidatingDevice`], the validation layer; [`trace`], a device wrapper that captures a
//! session's calls into a versioned `.f3dtrace` file any backend can replay.
//!
//! ## Semantics no signature shows
//!
//! * **Capabilities are a set**, honest in both directions: a reported feature works, an
//!   unreported one is refused by *its own* name, and a device that does something it does not
//!   report fails too. — `capabilities::<feature>` (one probe per [`DeviceFeature::ALL`]).
//! * **Every format gets an answer** from [`GraphicsDevice::texture_format_support`], and what
//!   it answers is what happens. — `core::format_queries_answer`,
//!   `core::round_trip_every_supported_format`.
//! * **Handles** are made only through [`backend`]`::wrap_*`; dropping the last clone releases
//!   the resource ([`GraphicsDevice::live_resources`] falls back). A handle given to another
//!   device, or used after its device was lost or dropped, is an error naming the operation —
//!   never undefined behaviour, never a panic. There is no `==` on handles; identity is by
//!   pointer. — `lifecycle::handles_release_on_drop`, `lifecycle::foreign_handles_refused`,
//!   `lifecycle::use_after_loss_refused`, `lifecycle::drop_is_loss_destroyed`.
//! * **Rows come from the top.** [`GraphicsDevice::readback`] returns row 0 = the top row on
//!   every backend; [`FramebufferOrigin`] only tells where the API keeps row 0. —
//!   `core::readback_rows_from_top`.
//! * **Readback** sees what was submitted before the call and nothing after, even if waited
//!   for later (clear red, ask, clear blue → red). Multisampled, depth and compressed textures
//!   and regions past the edge are refused ([`check_readback`]); which formats convert is
//!   decided once, by [`readback_format`]. — `core::readback_sees_submitted_work_only`,
//!   `core::readback_region_rules`, `core::readback_conversion`.
//! * **Uploads** take tightly packed rows, top first, of exactly the region's size; a region
//!   overwrite changes only its texels. — `core::wrong_size_upload_refused`,
//!   `core::region_overwrite_changes_only_region`.
//! * **A pass starts clean**: a clear covers the whole attachment whatever the scissor; the
//!   viewport covers the attachment's level; no scissor, stencil or binding is inherited; a
//!   pass touches only its own attachment (level and layer). — `core::clear_ignores_scissor`,
//!   `core::pass_touches_only_its_attachment`, and the shader tier.
//! * **Binding is by name**, from reflection: `bind_*` answer false for a name the pipeline
//!   does not declare and never panic; `set_pipeline` forgets every binding. Hot paths resolve
//!   a name to a [`BindingSlot`] once per pipeline. — shader tier.
//! * **A refused pipeline draws nothing**, the rest of the pass draws, and the refusal is
//!   reported once in [`GraphicsDevice::pipeline_refusals`]. — shader tier.
//! * **Memory you can see**: [`GraphicsDevice::memory_report`] gives the bytes a device holds
//!   by kind ([`MemoryReport`]); creating a resource raises its kind by at least the resource's
//!   size, dropping the handle takes it back out (into `retiring` until the GPU is done). —
//!   `lifecycle::memory_report_follows_resources`.
//! * **Device loss** is reported once ([`GraphicsDevice::take_loss_report`]); every handle is
//!   spent after it; dropping a device is loss with [`LossReason::Destroyed`];
//!   [`GraphicsDevice::begin_frame`] never returns what an earlier frame did. —
//!   `lifecycle::loss_reported_once`, `lifecycle::begin_frame_after_failed_frame`.
//! * **Encoders**: [`PassEncoder`] records; [`CommandEncoder`] adds `submit(self: Box<Self>)`,
//!   so a contributor handed `&mut dyn PassEncoder` cannot submit and nobody can submit twice.
//! * **Presentation** is a capability ([`DeviceFeature::PRESENT`]):
//!   [`GraphicsDevice::create_surface`] takes a window's raw handles ([`SurfaceTarget`]) and
//!   gives a [`PresentSurface`] that draws any sampled colour frame over the window, scaled and
//!   with its sRGB values kept; a frame the window cannot take is [`Presented::Skipped`], not
//!   an error; without the feature the call is refused by that name ([`present`]). —
//!   `capabilities::present` (a pattern read back from a real X window, before and after a
//!   resize).
//! * **Barriers** are HAL vocabulary ([`ResourceState`], [`TextureTransition`]): the render
//!   graph computes them, [`RenderPassDescriptor::transitions`] carries them, explicit backends
//!   act on them and implicit ones may ignore them.
//!
//! ## Picking a backend
//!
//! [`DeviceRegistry`] is a plain value: `add_backend` returns a [`Registration`]; `open` tries
//! the last added first, moves on past [`OpenError::DeviceUnavailable`], never hands out a
//! device lacking a required feature or limit, and fails with every backend's reason.
//! `F3D_BACKEND=name` forces one backend and `F3D_VALIDATION=1` wraps the device in
//! [`ValidatingDevice`] ([`DeviceRequest::with_process_env`]). —
//! `lifecycle::registry_order_and_fallback`.

pub mod backend;
mod device;
pub mod dynamic;
mod error;
mod feature;
mod format;
mod geometry;
mod handle;
mod host;
mod memory;
mod pass;
mod pipeline;
pub mod present;
pub mod record;
/// The window-handle crate [`SurfaceTarget`] is made from, so backends and apps name the same
/// version.
pub use raw_window_handle;
mod readback;
mod registry;
mod shader;
pub mod shader_cache;
mod texture;
pub mod trace;
mod validation;
mod watchdog;

pub use device::{
    AdapterInfo, ComputePipelineDescriptor, DepthRange, FramebufferOrigin, GraphicsDevice, PipelineRefusal,
    PipelineRefusals,
};
pub use dynamic::{LoadError, LoadReport};
pub use error::DeviceError;
pub use feature::{DeviceFeature, DeviceFeatures, DeviceLimits};
pub use format::{FormatAspects, FormatFacts, FormatSupport, SampleKind, TextureFormat};
pub use geometry::{
    GeometryDescriptor, GeometryUsages, IndexFormat, VertexAttribute, VertexBufferLayout, VertexFormat,
    VertexStepMode,
};
pub use handle::{
    DeviceOwner, GeometryBuffer, HandleWatch, LossReason, OwnerLink, PipelineHandle, PipelineInfo,
    QuerySetDescriptor, QuerySetHandle, SamplerHandle, ShaderHandle, TextureHandle,
};
pub use memory::{MemoryKind, MemoryReport};
pub use pass::{
    AttachmentView, Color, ColorAttachment, CommandEncoder, DepthStencilAttachment, LoadOp, PassEncoder,
    QueryKind, RenderPassDescriptor, ResourceState, ScissorRect, StoreOp, TextureTransition, Viewport,
};
pub use pipeline::{
    BlendComponent, BlendFactor, BlendOperation, BlendState, ColorTargetState, ColorWrites, CullMode,
    DepthBias, DepthStencilState, FrontFace, PipelineDescriptor, PolygonMode, PrimitiveState,
    PrimitiveTopology, StencilFaceState, StencilOperation, StencilState,
};
pub use present::{PresentMode, PresentSurface, Presented, SurfaceConfig, SurfaceTarget};
pub use readback::{
    PendingReadback, ReadbackImage, check_readback, convert_for_readback, decode_texel, encode_clear_color,
    exact_clear_color, f16_to_f32, f32_to_f16, linear_to_srgb, readback_converts, readback_format,
    srgb_to_linear,
};
pub use registry::{
    BackendId, DeviceRegistry, DeviceRequest, OpenError, Opener, PowerPreference, Registration,
};
pub use shader::{
    BindingInfo, BindingKind, BindingLayout, BindingSlot, ShaderDescriptor, ShaderStage, ValidatedModule,
};
pub use texture::{
    AddressMode, CompareFunction, FilterMode, SamplerDescriptor, TextureDescriptor, TextureDimension,
    TextureRegion, TextureUsages,
};
pub use validation::{ValidatingDevice, ValidationError};
pub use watchdog::{DEFAULT_GPU_TIMEOUT, parse_gpu_timeout};

/// Re-exported so backends and tools name the same naga.
pub use naga;
