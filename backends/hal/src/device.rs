//! The device contract.

use crate::{
    BackendId, CommandEncoder, DeviceError, DeviceFeature, DeviceFeatures, DeviceLimits, DeviceOwner,
    FormatSupport, GeometryBuffer, GeometryDescriptor, LossReason, MemoryReport, PendingReadback,
    PipelineDescriptor, PipelineHandle, PresentSurface, QueryKind, QuerySetHandle, RenderPassDescriptor,
    SamplerDescriptor, SamplerHandle, ShaderDescriptor, ShaderHandle, SurfaceConfig, SurfaceTarget,
    TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
};

/// Where row 0 of a render target sits in the API's own framebuffer coordinates.
///
/// This is a fact for backend authors and for shaders that compute pixel positions; it never
/// changes readback, whose rows always come from the top. Flip for patterns, never for
/// lookups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FramebufferOrigin {
    /// Row 0 is the top row (Vulkan, Metal, D3D, WebGPU, f3d's soft backend).
    TopLeft,
    /// Row 0 is the bottom row (OpenGL).
    BottomLeft,
}

/// The depth range clip space maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepthRange {
    /// z in `[0, 1]` (Vulkan, Metal, D3D, WebGPU).
    ZeroToOne,
    /// z in `[-1, 1]` (OpenGL without clip control).
    MinusOneToOne,
}

/// What a device is running on, for logs and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdapterInfo {
    /// The adapter's name ("NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)", "f3d soft").
    pub name: String,
    /// The driver and its version, where known.
    pub driver: String,
    /// Whether it is a CPU implementation.
    pub cpu: bool,
}

/// A pipeline a device refused to draw with, reported once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineRefusal {
    /// The pipeline's label.
    pub pipeline: String,
    /// Why, in words.
    pub reason: String,
}

/// Pipeline refusals a device has seen, each reported once: a refused pipeline draws
/// nothing, the rest of its pass draws, and the refusal lands here (and in the log) the first
/// time, not per frame.
pub type PipelineRefusals = Vec<PipelineRefusal>;

/// How to create a compute pipeline.
#[derive(Clone, Debug)]
pub struct ComputePipelineDescriptor {
    /// A name for logs and errors.
    pub label: String,
    /// The compute shader.
    pub shader: ShaderHandle,
}

/// A device: the contract every backend implements.
///
/// Object-safe and `Send + Sync`: apps hold it as `Arc<dyn GraphicsDevice>` (the plugin's
/// `RenderDevice` resource). Members without a default body are required; members with one
/// are feature-gated and refuse with [`DeviceError::Unsupported`] naming their feature until a
/// backend overrides them *and* reports the feature in [`features`](Self::features).
///
/// Device operations (uploads, copies, submissions, readbacks) take effect in the order they
/// are called; a pass's commands take effect when it is submitted. See the crate docs for
/// the semantics no signature shows and the conformance check holding each.
pub trait GraphicsDevice: Send + Sync {
    /// The backend's name.
    fn backend_id(&self) -> BackendId;

    /// This device's identity, shared with every handle it makes.
    fn owner(&self) -> &DeviceOwner;

    /// What the device runs on.
    fn adapter_info(&self) -> AdapterInfo;

    /// The colour format for 8-bit targets (screens, screenshots).
    fn default_color_format(&self) -> TextureFormat;

    /// The depth-stencil format the engine uses by default.
    fn default_depth_stencil_format(&self) -> TextureFormat;

    /// The format for HDR scene colour.
    fn hdr_color_format(&self) -> TextureFormat;

    /// Where row 0 of a render target sits in the API's framebuffer.
    fn framebuffer_origin(&self) -> FramebufferOrigin;

    /// The clip-space depth range.
    fn depth_range(&self) -> DepthRange;

    /// What the device can do: every reported feature works, every unreported one is refused
    /// by name.
    fn features(&self) -> &DeviceFeatures;

    /// Numeric limits.
    fn limits(&self) -> &DeviceLimits;

    /// What the device can do with `format`; answers for every format, never fails.
    fn texture_format_support(&self, format: TextureFormat) -> FormatSupport;

    /// Creates a texture; its contents start undefined (backends clear to zero).
    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError>;

    /// Uploads `data` (tightly packed rows, top row first) into `region`; nothing else changes.
    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError>;

    /// Creates a geometry buffer, filled with `data` (exactly `desc.size` bytes) or zeros.
    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError>;

    /// Overwrites the bytes at `offset`; its neighbours stay as they were.
    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError>;

    /// Creates a sampler; anisotropy above the limit is clamped.
    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError>;

    /// Turns one entry point of a validated module into a shader.
    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError>;

    /// Makes, ahead of [`create_shader`](Self::create_shader), the form of `desc`'s entry
    /// point that this backend keeps with its module (soft's program, vulkan's SPIR-V), so
    /// that creating the shader later finds it made. Creates no device object and may be
    /// called from several threads at once: a renderer compiles a new material's stages side
    /// by side with it. The default does nothing, for backends that keep no such form (their
    /// work happens when the shader or pipeline is created). An error is what
    /// `create_shader` would say.
    fn prepare_shader(&self, desc: &ShaderDescriptor) -> Result<(), DeviceError> {
        let _ = desc;
        Ok(())
    }

    /// Whether this device can run `module` (named `label` in the reason): what the device's
    /// own shader path — its SPIR-V writer with the capabilities it enabled, wgpu's adapter, the
    /// CPU executor — refuses, in words, before any shader is made. The material store asks
    /// the live device this for every material version, so a material is checked against the
    /// device that draws it, not against a baseline. The default accepts every validated
    /// module (a device whose `create_shader` refuses nothing a validated module holds).
    fn check_shader_module(
        &self,
        label: &str,
        module: &std::sync::Arc<crate::ValidatedModule>,
    ) -> Result<(), String> {
        let _ = (label, module);
        Ok(())
    }

    /// Creates a render pipeline. A backend that cannot run it may still hand out the handle
    /// and refuse it at its first draw (reported once in
    /// [`pipeline_refusals`](Self::pipeline_refusals)).
    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError>;

    /// Starts a frame. Never returns an error an earlier frame caused; fails only when the
    /// device is lost.
    fn begin_frame(&self) -> Result<(), DeviceError>;

    /// Begins a render pass: attachments are loaded or cleared (the whole attachment), and the
    /// pass starts clean (see [`PassEncoder`](crate::PassEncoder)).
    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError>;

    /// Asks for the pixels of `region`, rows from the top, as they are after every pass
    /// submitted so far. Rules: [`check_readback`](crate::check_readback),
    /// [`readback_format`](crate::readback_format).
    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError>;

    /// How many resources (textures, buffers, samplers, shaders, pipelines, query sets) the
    /// device holds for live handles. Returns to its earlier value once the handles drop.
    fn live_resources(&self) -> usize;

    /// The bytes the device holds, by kind: behind live handles, for itself (rings, staging),
    /// and retiring (dropped, not yet given back). Cheap enough to ask every frame.
    fn memory_report(&self) -> MemoryReport;

    /// Pipelines refused at draw time, each once.
    fn pipeline_refusals(&self) -> PipelineRefusals;

    /// The shader cache on disk this device reads its compiled shaders from and writes them
    /// to ([`shader_cache`](crate::shader_cache)); `None` for a backend that keeps no compiled
    /// form on disk. A clone, sharing the device's counters.
    fn shader_cache(&self) -> Option<crate::shader_cache::ShaderCache> {
        None
    }

    /// Marks the device lost, as a driver reset would; for tests of loss handling.
    fn simulate_loss(&self, why: &str) {
        self.owner().lose(LossReason::Simulated(why.to_owned()));
    }

    /// The loss, reported once: `Some` the first time it is asked for after the device was
    /// lost, `None` otherwise.
    fn take_loss_report(&self) -> Option<LossReason> {
        self.owner().take_loss_report()
    }

    /// Copies `src_region` of `src` into `dst` at `dst_region` (same size; same format or its
    /// sRGB twin). Needs [`COPY_TEXTURE`](DeviceFeature::COPY_TEXTURE).
    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        let _ = (src, src_region, dst, dst_region);
        Err(DeviceError::Unsupported { feature: DeviceFeature::COPY_TEXTURE, backend: self.backend_id() })
    }

    /// Creates a set of `count` queries of `kind` (needs the kind's feature).
    fn create_query_set(
        &self,
        label: &str,
        kind: QueryKind,
        count: u32,
    ) -> Result<QuerySetHandle, DeviceError> {
        let _ = (label, count);
        Err(DeviceError::Unsupported { feature: kind.feature(), backend: self.backend_id() })
    }

    /// The results of a query set: nanoseconds for timestamps, sample counts for occlusion.
    fn read_query_set(&self, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
        Err(DeviceError::Unsupported { feature: set.descriptor().kind.feature(), backend: self.backend_id() })
    }

    /// Creates a compute pipeline (needs [`COMPUTE`](DeviceFeature::COMPUTE)).
    fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor,
    ) -> Result<PipelineHandle, DeviceError> {
        let _ = desc;
        Err(DeviceError::Unsupported { feature: DeviceFeature::COMPUTE, backend: self.backend_id() })
    }

    /// Runs `groups` workgroups of a compute pipeline, with uniform blocks and storage
    /// buffers bound by name (needs [`COMPUTE`](DeviceFeature::COMPUTE)).
    fn dispatch(
        &self,
        pipeline: &PipelineHandle,
        uniforms: &[(&str, &[u8])],
        storage: &[(&str, &GeometryBuffer)],
        groups: [u32; 3],
    ) -> Result<(), DeviceError> {
        let _ = (pipeline, uniforms, storage, groups);
        Err(DeviceError::Unsupported { feature: DeviceFeature::COMPUTE, backend: self.backend_id() })
    }

    /// A surface that shows frames in `target`'s window, set up for `config` (needs
    /// [`PRESENT`](DeviceFeature::PRESENT); see [`crate::present`]). A backend that reports
    /// the feature but cannot present to this particular window (another window system, no
    /// adapter that reaches it) refuses with an error naming the backend and the window.
    fn create_surface(
        &self,
        target: &SurfaceTarget,
        config: &SurfaceConfig,
    ) -> Result<Box<dyn PresentSurface>, DeviceError> {
        let _ = (target, config);
        Err(DeviceError::Unsupported { feature: DeviceFeature::PRESENT, backend: self.backend_id() })
    }

    /// Reads a geometry buffer back (needs [`STORAGE_BUFFERS`](DeviceFeature::STORAGE_BUFFERS):
    /// it exists to read what shaders wrote).
    fn read_geometry(&self, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
        let _ = buffer;
        Err(DeviceError::Unsupported { feature: DeviceFeature::STORAGE_BUFFERS, backend: self.backend_id() })
    }
}

/// The queries a device wrapper (the validation layer, the tracer) answers as the device it
/// wraps does — identity, formats, conventions, counters, loss — as members of an
/// `impl GraphicsDevice` whose type holds that device in `self.inner`.
macro_rules! forward_device_queries {
    () => {
        fn backend_id(&self) -> $crate::BackendId {
            self.inner.backend_id()
        }
        fn owner(&self) -> &$crate::DeviceOwner {
            self.inner.owner()
        }
        fn adapter_info(&self) -> $crate::AdapterInfo {
            self.inner.adapter_info()
        }
        fn default_color_format(&self) -> $crate::TextureFormat {
            self.inner.default_color_format()
        }
        fn default_depth_stencil_format(&self) -> $crate::TextureFormat {
            self.inner.default_depth_stencil_format()
        }
        fn hdr_color_format(&self) -> $crate::TextureFormat {
            self.inner.hdr_color_format()
        }
        fn framebuffer_origin(&self) -> $crate::FramebufferOrigin {
            self.inner.framebuffer_origin()
        }
        fn depth_range(&self) -> $crate::DepthRange {
            self.inner.depth_range()
        }
        fn texture_format_support(&self, format: $crate::TextureFormat) -> $crate::FormatSupport {
            self.inner.texture_format_support(format)
        }
        fn live_resources(&self) -> usize {
            self.inner.live_resources()
        }
        fn memory_report(&self) -> $crate::MemoryReport {
            self.inner.memory_report()
        }
        fn pipeline_refusals(&self) -> $crate::PipelineRefusals {
            self.inner.pipeline_refusals()
        }
        fn shader_cache(&self) -> Option<$crate::shader_cache::ShaderCache> {
            self.inner.shader_cache()
        }
        fn simulate_loss(&self, why: &str) {
            self.inner.simulate_loss(why)
        }
        fn take_loss_report(&self) -> Option<$crate::LossReason> {
            self.inner.take_loss_report()
        }
        fn check_shader_module(
            &self,
            label: &str,
            module: &std::sync::Arc<$crate::ValidatedModule>,
        ) -> Result<(), String> {
            self.inner.check_shader_module(label, module)
        }
    };
}
pub(crate) use forward_device_queries;
