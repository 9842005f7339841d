//! The null device.

use std::sync::Mutex;
use std::sync::atomic::Ordering;

use f3d_hal::backend::{self, LiveCounter, LiveToken, MemoryCounter, check_region};
use f3d_hal::{
    AdapterInfo, BackendId, CommandEncoder, DepthRange, DeviceError, DeviceFeature, DeviceFeatures,
    DeviceLimits, DeviceOwner, FormatSupport, FramebufferOrigin, GeometryBuffer, GeometryDescriptor,
    GraphicsDevice, MemoryKind, MemoryReport, PendingReadback, PipelineDescriptor, PipelineHandle,
    PipelineInfo, PipelineRefusal, PipelineRefusals, RenderPassDescriptor, SamplerDescriptor, SamplerHandle,
    ShaderDescriptor, ShaderHandle, TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
    check_readback,
};
use f3d_materials::reflect;

use crate::NULL_BACKEND;
use crate::pipeline::{NullPipeline, NullSampler, NullShader};
use crate::texture::{NullGeometry, NullTexture};

/// The null device. See the crate docs.
pub struct NullDevice {
    owner: DeviceOwner,
    features: DeviceFeatures,
    limits: DeviceLimits,
    live: LiveCounter,
    memory: MemoryCounter,
    pub(crate) refusals: Mutex<PipelineRefusals>,
}

impl NullDevice {
    /// A new null device labelled `label`.
    pub fn new(label: &str) -> Self {
        Self {
            owner: DeviceOwner::new(NULL_BACKEND, label),
            features: DeviceFeatures::empty().with(DeviceFeature::COPY_TEXTURE),
            limits: DeviceLimits { max_texture_dimension_2d: 16384, ..DeviceLimits::GUARANTEED },
            live: LiveCounter::new(),
            memory: MemoryCounter::new(),
            refusals: Mutex::new(Vec::new()),
        }
    }

    /// This device also taking a draw of many instances as one call
    /// ([`DeviceFeature::INSTANCING`]; the instance range is validated like any backend's and,
    /// like every draw here, nothing is drawn). A stand-in for a GPU in CPU benchmarks of the
    /// engine, which then records what it records for a GPU rather than one draw per
    /// instance. Its conformance check for instancing declines: with the pipeline refused,
    /// where the instances land cannot be seen. [`NullDevice::new`] does not report it, and
    /// passes every check it answers.
    pub fn with_instancing(mut self) -> Self {
        self.features = self.features.with(DeviceFeature::INSTANCING);
        self
    }

    pub(crate) fn live_token(&self) -> LiveToken {
        self.live.token()
    }

    pub(crate) fn texture<'a>(
        &self,
        t: &'a TextureHandle,
        op: &'static str,
    ) -> Result<&'a NullTexture, DeviceError> {
        backend::texture_payload::<NullTexture>(&self.owner, t, op)
    }

    pub(crate) fn refuse_once(&self, pipeline: &PipelineHandle, payload: &NullPipeline) {
        if !payload.refusal_reported.swap(true, Ordering::AcqRel) {
            let mut refusals = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
            refusals.push(PipelineRefusal {
                pipeline: pipeline.label(),
                reason: "the null backend runs no shaders".into(),
            });
        }
    }
}

impl GraphicsDevice for NullDevice {
    fn backend_id(&self) -> BackendId {
        NULL_BACKEND
    }

    fn owner(&self) -> &DeviceOwner {
        &self.owner
    }

    fn adapter_info(&self) -> AdapterInfo {
        AdapterInfo { name: "f3d null".into(), driver: env!("CARGO_PKG_VERSION").into(), cpu: true }
    }

    fn default_color_format(&self) -> TextureFormat {
        TextureFormat::Rgba8UnormSrgb
    }

    fn default_depth_stencil_format(&self) -> TextureFormat {
        TextureFormat::Depth32Float
    }

    fn hdr_color_format(&self) -> TextureFormat {
        TextureFormat::Rgba16Float
    }

    fn framebuffer_origin(&self) -> FramebufferOrigin {
        FramebufferOrigin::TopLeft
    }

    fn depth_range(&self) -> DepthRange {
        DepthRange::ZeroToOne
    }

    fn features(&self) -> &DeviceFeatures {
        &self.features
    }

    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn texture_format_support(&self, format: TextureFormat) -> FormatSupport {
        let table = FormatSupport::from_facts(format, &self.features);
        // Nothing is ever sampled, filtered or blended here: only what memory can do.
        FormatSupport { create: table.create, renderable: table.renderable, ..FormatSupport::NONE }
    }

    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError> {
        self.owner.check_alive("create_texture")?;
        backend::check_texture_descriptor(desc, &self.features, &self.limits, &NULL_BACKEND)?;
        let payload = NullTexture::new(desc, self.live_token(), &self.memory);
        Ok(backend::wrap_texture(&self.owner, desc.clone(), payload))
    }

    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        let t = self.texture(texture, "write_texture")?;
        let desc = texture.descriptor();
        backend::check_write_texture(desc, &region, data.len())?;
        t.write_region(&region, data);
        Ok(())
    }

    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        self.owner.check_alive("create_geometry")?;
        backend::check_geometry_descriptor(desc, data, &self.features, &self.limits, &NULL_BACKEND)?;
        let bytes = data.map_or_else(|| vec![0; desc.size as usize], <[u8]>::to_vec);
        let payload = NullGeometry {
            _memory: self.memory.charge(MemoryKind::Geometry, bytes.len() as u64),
            bytes: Mutex::new(bytes),
            _live: self.live_token(),
        };
        Ok(backend::wrap_geometry(&self.owner, desc.clone(), payload))
    }

    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        let g = backend::geometry_payload::<NullGeometry>(&self.owner, buffer, "write_geometry")?;
        backend::check_write_geometry(buffer.descriptor(), offset, data.len())?;
        let mut bytes = g.bytes.lock().unwrap_or_else(|e| e.into_inner());
        bytes[offset as usize..offset as usize + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        self.owner.check_alive("create_sampler")?;
        let desc = backend::clamp_sampler(desc, &self.limits)?;
        Ok(backend::wrap_sampler(&self.owner, desc, NullSampler { _live: self.live_token() }))
    }

    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        self.owner.check_alive("create_shader")?;
        if desc.module.entry_point_index(desc.stage, &desc.entry_point).is_none() {
            return Err(DeviceError::Shader {
                label: desc.label.clone(),
                message: format!("the module has no {} entry point named {}", desc.stage, desc.entry_point),
            });
        }
        Ok(backend::wrap_shader(&self.owner, desc.clone(), NullShader { _live: self.live_token() }))
    }

    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        const OP: &str = "create_pipeline";
        self.owner.check_alive(OP)?;
        backend::check_pipeline_descriptor(desc, &self.features, &self.limits, &NULL_BACKEND)?;
        let mut stages = Vec::new();
        for shader in std::iter::once(&desc.vertex).chain(desc.fragment.as_ref()) {
            backend::shader_payload::<NullShader>(&self.owner, shader, OP)?;
            let d = shader.descriptor();
            stages.push((&*d.module, d.stage, d.entry_point.as_str()));
        }
        let bindings = reflect::pipeline_bindings(&stages)
            .map_err(|e| DeviceError::Shader { label: desc.label.clone(), message: e.to_string() })?;
        backend::check_binding_limits(&bindings, &self.limits)?;
        backend::check_render_storage(&desc.label, &bindings, &self.features, &NULL_BACKEND)?;
        let info = PipelineInfo { label: desc.label.clone(), bindings, render: Some(desc.clone()) };
        let payload = NullPipeline { refusal_reported: false.into(), _live: self.live_token() };
        Ok(backend::wrap_pipeline(&self.owner, info, payload))
    }

    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.owner.check_alive("begin_frame")
    }

    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        const OP: &str = "begin_render_pass";
        self.owner.check_alive(OP)?;
        backend::check_render_pass(desc, &self.features, &self.limits, &NULL_BACKEND)?;
        Ok(Box::new(f3d_hal::record::Recorder::begin(self, desc)?))
    }

    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        let t = self.texture(texture, "readback")?;
        check_readback(texture.descriptor(), &region, &NULL_BACKEND)?;
        // Everything submitted so far has already landed in memory; later work cannot touch
        // this copy.
        Ok(PendingReadback::ready(Ok(t.readback(texture.descriptor(), &region))))
    }

    fn live_resources(&self) -> usize {
        self.live.count()
    }

    fn memory_report(&self) -> MemoryReport {
        self.memory.report()
    }

    fn pipeline_refusals(&self) -> PipelineRefusals {
        self.refusals.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        const OP: &str = "copy_texture";
        let s = self.texture(src, OP)?;
        let d = self.texture(dst, OP)?;
        backend::check_copy_texture(src, &src_region, dst, &dst_region)?;
        check_region(OP, dst.descriptor(), &dst_region)?;
        let texels = s.read_region(&src_region);
        d.write_region(&dst_region, &texels);
        Ok(())
    }
}
