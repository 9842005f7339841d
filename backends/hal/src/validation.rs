//! The validation layer: a device wrapper that checks what backends may not.
//!
//! [`ValidatingDevice`] wraps any device (on with [`DeviceRequest::validation`](crate::DeviceRequest)
//! or `F3D_VALIDATION=1`) and refuses misuse before the backend sees it, so a backend that
//! forgets a rule of the contract cannot let it through:
//!
//! * the contract's own rules, in the contract's own errors (the errors the conformance suite
//!   expects: `Unsupported` naming the feature, `LimitExceeded` naming the limit,
//!   `MissingUsage`, `InvalidDescriptor`), checked against what the wrapped device reports —
//!   descriptors of textures, geometry, pipelines and passes through the shared checks of
//!   [`crate::backend`], every usage a texture asks for against the device's
//!   [`FormatSupport`] for its format, the usages each operation needs, instanced draws
//!   without instancing;
//! * misuse the contract has no error of its own for, as a typed [`ValidationError`]:
//!   handles of another device, draws without a pipeline, draws missing a binding or a vertex
//!   buffer the pipeline declares, and pipelines whose targets (colour formats, depth format
//!   — present or absent — and samples) disagree with the pass's attachments.
//!
//! The conformance suite runs through it on every backend (`conformance_validated`) and
//! must give the same answers as without it. It costs a few checks per call and is meant for
//! development and tests, like LuisaCompute's validation device or the Vulkan layers.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

use crate::{
    BackendId, BindingLayout, BindingSlot, Color, CommandEncoder, ComputePipelineDescriptor, DeviceError,
    DeviceFeatures, DeviceLimits, DeviceOwner, FormatSupport, GeometryBuffer, GeometryDescriptor,
    GraphicsDevice, IndexFormat, PassEncoder, PendingReadback, PipelineDescriptor, PipelineHandle, QueryKind,
    QuerySetHandle, RenderPassDescriptor, SamplerDescriptor, SamplerHandle, ScissorRect, ShaderDescriptor,
    ShaderHandle, TextureDescriptor, TextureFormat, TextureHandle, TextureRegion, TextureUsages, Viewport,
};

/// A misuse the validation layer caught.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidationError {
    /// A handle made by another device.
    #[error("{operation}: {handle} was made by another device")]
    ForeignHandle {
        /// The operation.
        operation: &'static str,
        /// The handle's label.
        handle: String,
    },
    /// A draw with no pipeline set.
    #[error("{operation} in pass {pass}: no pipeline is set")]
    DrawWithoutPipeline {
        /// The draw call.
        operation: &'static str,
        /// The pass's label.
        pass: String,
    },
    /// A draw while a binding the pipeline declares is unbound.
    #[error("draw in pass {pass}: pipeline {pipeline} declares {binding}, which is not bound")]
    MissingBinding {
        /// The pass's label.
        pass: String,
        /// The pipeline's label.
        pipeline: String,
        /// The binding's name.
        binding: String,
    },
    /// A draw while a vertex buffer the pipeline reads is unset.
    #[error("draw in pass {pass}: pipeline {pipeline} reads vertex buffer {slot}, which is not set")]
    MissingVertexBuffer {
        /// The pass's label.
        pass: String,
        /// The pipeline's label.
        pipeline: String,
        /// The buffer slot.
        slot: u32,
    },
    /// An indexed draw with no index buffer.
    #[error("draw_indexed in pass {pass}: no index buffer is set")]
    MissingIndexBuffer {
        /// The pass's label.
        pass: String,
    },
    /// A pipeline whose targets disagree with the pass's attachments.
    #[error("set_pipeline in pass {pass}: pipeline {pipeline} {reason}")]
    AttachmentMismatch {
        /// The pass's label.
        pass: String,
        /// The pipeline's label.
        pipeline: String,
        /// What disagrees.
        reason: String,
    },
}

/// A device wrapped in the validation layer. Everything it does not refuse goes to the
/// wrapped device unchanged; handles it hands out belong to the wrapped device.
pub struct ValidatingDevice {
    inner: Arc<dyn GraphicsDevice>,
}

impl ValidatingDevice {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn GraphicsDevice>) -> Self {
        Self { inner }
    }

    /// The wrapped device.
    pub fn inner(&self) -> &Arc<dyn GraphicsDevice> {
        &self.inner
    }
}

macro_rules! owned {
    ($owner:expr, $op:expr, $($h:expr),+) => {
        $(
            if !$h.is_owned_by($owner) {
                return Err(ValidationError::ForeignHandle { operation: $op, handle: $h.label() }.into());
            }
        )+
    };
}

fn usage(
    operation: &'static str,
    t: &TextureHandle,
    needed: TextureUsages,
    name: &'static str,
) -> Result<(), DeviceError> {
    if t.descriptor().usage.contains(needed) {
        Ok(())
    } else {
        Err(DeviceError::MissingUsage { operation, label: t.label(), usage: name })
    }
}

/// A texture against what the device says its format supports: it must be creatable, and
/// renderable or multisampled only where the device says so (the shared descriptor check
/// knows the format's facts, not the device's answer). `SAMPLED` is a usage, not a draw: a
/// device that runs no shaders (null) still makes sampled textures, and sampling itself is
/// checked where a texture is bound.
fn format_allows(desc: &TextureDescriptor, support: FormatSupport) -> Result<(), DeviceError> {
    let refuse = |what: &str| DeviceError::InvalidDescriptor {
        operation: "create_texture",
        label: desc.label.clone(),
        reason: format!("the device does not support {} {what}", desc.format),
    };
    if !support.create {
        return Err(refuse("textures"));
    }
    if desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && !support.renderable {
        return Err(refuse("as a render attachment"));
    }
    if desc.sample_count > 1 && !support.multisample {
        return Err(refuse("multisampled"));
    }
    Ok(())
}

impl GraphicsDevice for ValidatingDevice {
    crate::device::forward_device_queries!();

    fn features(&self) -> &DeviceFeatures {
        self.inner.features()
    }
    fn limits(&self) -> &DeviceLimits {
        self.inner.limits()
    }
    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError> {
        let backend = self.inner.backend_id();
        crate::backend::check_texture_descriptor(desc, self.features(), self.limits(), &backend)?;
        format_allows(desc, self.inner.texture_format_support(desc.format))?;
        self.inner.create_texture(desc)
    }
    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        owned!(self.inner.owner(), "write_texture", texture);
        usage("write_texture", texture, TextureUsages::COPY_DST, "COPY_DST")?;
        crate::backend::check_write_texture(texture.descriptor(), &region, data.len())?;
        self.inner.write_texture(texture, region, data)
    }
    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        let backend = self.inner.backend_id();
        crate::backend::check_geometry_descriptor(desc, data, self.features(), self.limits(), &backend)?;
        self.inner.create_geometry(desc, data)
    }
    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        owned!(self.inner.owner(), "write_geometry", buffer);
        self.inner.write_geometry(buffer, offset, data)
    }
    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        self.inner.create_sampler(desc)
    }
    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        self.inner.create_shader(desc)
    }
    fn prepare_shader(&self, desc: &ShaderDescriptor) -> Result<(), DeviceError> {
        self.inner.prepare_shader(desc)
    }
    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        owned!(self.inner.owner(), "create_pipeline", desc.vertex);
        if let Some(f) = &desc.fragment {
            owned!(self.inner.owner(), "create_pipeline", f);
        }
        let backend = self.inner.backend_id();
        crate::backend::check_pipeline_descriptor(desc, self.features(), self.limits(), &backend)?;
        let pipeline = self.inner.create_pipeline(desc)?;
        // The backend reflected the stages; its binding table must obey the shared rules too.
        crate::backend::check_binding_limits(pipeline.bindings(), self.limits())?;
        crate::backend::check_render_storage(&desc.label, pipeline.bindings(), self.features(), &backend)?;
        Ok(pipeline)
    }
    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.inner.begin_frame()
    }
    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        const OP: &str = "begin_render_pass";
        for a in &desc.color_attachments {
            owned!(self.inner.owner(), OP, a.view.texture);
            usage(OP, &a.view.texture, TextureUsages::RENDER_ATTACHMENT, "RENDER_ATTACHMENT")?;
        }
        if let Some(d) = &desc.depth_stencil_attachment {
            owned!(self.inner.owner(), OP, d.view.texture);
            usage(OP, &d.view.texture, TextureUsages::RENDER_ATTACHMENT, "RENDER_ATTACHMENT")?;
        }
        let backend = self.inner.backend_id();
        crate::backend::check_render_pass(desc, self.features(), self.limits(), &backend)?;
        let inner = self.inner.begin_render_pass(desc)?;
        Ok(Box::new(ValidatingEncoder {
            inner,
            owner: self.inner.owner(),
            features: self.inner.features().clone(),
            pass: desc.label.clone(),
            color_formats: desc
                .color_attachments
                .iter()
                .map(|a| a.view.texture.descriptor().format)
                .collect(),
            depth_format: desc.depth_stencil_attachment.as_ref().map(|d| d.view.texture.descriptor().format),
            samples: desc.size().map(|_| {
                desc.color_attachments
                    .first()
                    .map(|a| a.view.texture.descriptor().sample_count)
                    .or(desc
                        .depth_stencil_attachment
                        .as_ref()
                        .map(|d| d.view.texture.descriptor().sample_count))
                    .unwrap_or(1)
            }),
            pipeline: None,
            bound: BTreeSet::new(),
            vertex_buffers: BTreeSet::new(),
            index_buffer: false,
        }))
    }
    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        owned!(self.inner.owner(), "readback", texture);
        usage("readback", texture, TextureUsages::COPY_SRC, "COPY_SRC")?;
        self.inner.readback(texture, region)
    }
    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        owned!(self.inner.owner(), "copy_texture", src, dst);
        usage("copy_texture", src, TextureUsages::COPY_SRC, "COPY_SRC")?;
        usage("copy_texture", dst, TextureUsages::COPY_DST, "COPY_DST")?;
        self.inner.copy_texture(src, src_region, dst, dst_region)
    }
    fn create_query_set(
        &self,
        label: &str,
        kind: QueryKind,
        count: u32,
    ) -> Result<QuerySetHandle, DeviceError> {
        self.inner.create_query_set(label, kind, count)
    }
    fn read_query_set(&self, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
        owned!(self.inner.owner(), "read_query_set", set);
        self.inner.read_query_set(set)
    }
    fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor,
    ) -> Result<PipelineHandle, DeviceError> {
        owned!(self.inner.owner(), "create_compute_pipeline", desc.shader);
        self.inner.create_compute_pipeline(desc)
    }
    fn dispatch(
        &self,
        pipeline: &PipelineHandle,
        uniforms: &[(&str, &[u8])],
        storage: &[(&str, &GeometryBuffer)],
        groups: [u32; 3],
    ) -> Result<(), DeviceError> {
        owned!(self.inner.owner(), "dispatch", pipeline);
        for (_, b) in storage {
            owned!(self.inner.owner(), "dispatch", b);
        }
        self.inner.dispatch(pipeline, uniforms, storage, groups)
    }
    fn create_surface(
        &self,
        target: &crate::SurfaceTarget,
        config: &crate::SurfaceConfig,
    ) -> Result<Box<dyn crate::PresentSurface>, DeviceError> {
        self.inner.create_surface(target, config)
    }
    fn read_geometry(&self, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
        owned!(self.inner.owner(), "read_geometry", buffer);
        self.inner.read_geometry(buffer)
    }
}

struct ValidatingEncoder<'a> {
    inner: Box<dyn CommandEncoder + 'a>,
    owner: &'a DeviceOwner,
    features: DeviceFeatures,
    pass: String,
    color_formats: Vec<TextureFormat>,
    depth_format: Option<TextureFormat>,
    samples: Option<u32>,
    pipeline: Option<PipelineHandle>,
    bound: BTreeSet<BindingSlot>,
    vertex_buffers: BTreeSet<u32>,
    index_buffer: bool,
}

impl ValidatingEncoder<'_> {
    fn check_targets(&self, pipeline: &PipelineHandle) -> Result<(), ValidationError> {
        let Some(desc) = &pipeline.descriptor().render else { return Ok(()) };
        let mismatch = |reason: String| ValidationError::AttachmentMismatch {
            pass: self.pass.clone(),
            pipeline: pipeline.label(),
            reason,
        };
        let targets: Vec<_> = desc.color_targets.iter().map(|t| t.format).collect();
        if targets != self.color_formats {
            return Err(mismatch(format!("writes {targets:?}, the pass has {:?}", self.color_formats)));
        }
        // Absent on one side and present on the other disagrees too: a pipeline without depth
        // state in a pass with a depth attachment (or the reverse).
        let depth = desc.depth_stencil.map(|d| d.format);
        if depth != self.depth_format {
            return Err(mismatch(format!("tests depth {depth:?}, the pass has {:?}", self.depth_format)));
        }
        if self.samples.is_some_and(|s| s != desc.sample_count) {
            return Err(mismatch(format!("has {} samples, the pass {:?}", desc.sample_count, self.samples)));
        }
        Ok(())
    }

    fn check_draw(&self, operation: &'static str) -> Result<(), DeviceError> {
        let Some(pipeline) = &self.pipeline else {
            return Err(ValidationError::DrawWithoutPipeline { operation, pass: self.pass.clone() }.into());
        };
        for (i, b) in pipeline.bindings().entries().iter().enumerate() {
            if !self.bound.contains(&BindingSlot(i as u32)) {
                return Err(ValidationError::MissingBinding {
                    pass: self.pass.clone(),
                    pipeline: pipeline.label(),
                    binding: b.name.clone(),
                }
                .into());
            }
        }
        if let Some(desc) = &pipeline.descriptor().render {
            for slot in 0..desc.vertex_buffers.len() as u32 {
                if !self.vertex_buffers.contains(&slot) {
                    return Err(ValidationError::MissingVertexBuffer {
                        pass: self.pass.clone(),
                        pipeline: pipeline.label(),
                        slot,
                    }
                    .into());
                }
            }
        }
        Ok(())
    }
}

impl PassEncoder for ValidatingEncoder<'_> {
    fn backend(&self) -> BackendId {
        self.inner.backend()
    }
    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        owned!(self.owner, "set_pipeline", pipeline);
        self.check_targets(pipeline)?;
        self.inner.set_pipeline(pipeline)?;
        self.pipeline = Some(pipeline.clone());
        self.bound.clear();
        Ok(())
    }
    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.inner.pipeline_bindings()
    }
    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError> {
        self.inner.set_viewport(viewport)
    }
    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError> {
        self.inner.set_scissor(rect)
    }
    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError> {
        self.inner.set_stencil_reference(reference)
    }
    fn set_blend_constant(&mut self, color: Color) -> Result<(), DeviceError> {
        self.inner.set_blend_constant(color)
    }
    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        owned!(self.owner, "set_vertex_buffer", buffer);
        self.inner.set_vertex_buffer(slot, buffer, offset)?;
        self.vertex_buffers.insert(slot);
        Ok(())
    }
    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        owned!(self.owner, "set_index_buffer", buffer);
        self.inner.set_index_buffer(buffer, format, offset)?;
        self.index_buffer = true;
        Ok(())
    }
    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let ok = self.inner.bind_uniform_block_at(slot, bytes);
        if ok {
            self.bound.insert(slot);
        }
        ok
    }
    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        // A foreign texture or one that cannot be sampled is refused here rather than passed
        // on; the bool contract has no room for the reason, so the draw reports the binding
        // as missing.
        if !texture.is_owned_by(self.owner) || !texture.descriptor().usage.contains(TextureUsages::SAMPLED) {
            return false;
        }
        let ok = self.inner.bind_texture_at(slot, texture);
        if ok {
            self.bound.insert(slot);
        }
        ok
    }
    fn bind_storage_buffer_at(&mut self, slot: BindingSlot, buffer: &crate::GeometryBuffer) -> bool {
        // As for textures: a foreign buffer or one without STORAGE is refused here.
        if !buffer.is_owned_by(self.owner)
            || !buffer.descriptor().usage.contains(crate::GeometryUsages::STORAGE)
        {
            return false;
        }
        let ok = self.inner.bind_storage_buffer_at(slot, buffer);
        if ok {
            self.bound.insert(slot);
        }
        ok
    }
    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        if !sampler.is_owned_by(self.owner) {
            return false;
        }
        let ok = self.inner.bind_sampler_at(slot, sampler);
        if ok {
            self.bound.insert(slot);
        }
        ok
    }
    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        self.check_draw("draw")?;
        crate::backend::check_instances(&instances, &self.features, &self.inner.backend())?;
        self.inner.draw(vertices, instances)
    }
    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError> {
        self.check_draw("draw_indexed")?;
        crate::backend::check_instances(&instances, &self.features, &self.inner.backend())?;
        if !self.index_buffer {
            return Err(ValidationError::MissingIndexBuffer { pass: self.pass.clone() }.into());
        }
        self.inner.draw_indexed(indices, base_vertex, instances)
    }
    fn draw_indirect(&mut self, buffer: &GeometryBuffer, offset: u64) -> Result<(), DeviceError> {
        owned!(self.owner, "draw_indirect", buffer);
        self.check_draw("draw_indirect")?;
        self.inner.draw_indirect(buffer, offset)
    }
    fn multi_draw_indirect(
        &mut self,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        owned!(self.owner, "multi_draw_indirect", buffer);
        self.check_draw("multi_draw_indirect")?;
        self.inner.multi_draw_indirect(buffer, offset, count)
    }
    fn write_timestamp(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        owned!(self.owner, "write_timestamp", set);
        self.inner.write_timestamp(set, index)
    }
    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        owned!(self.owner, "begin_occlusion_query", set);
        self.inner.begin_occlusion_query(set, index)
    }
    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        self.inner.end_occlusion_query()
    }
}

impl CommandEncoder for ValidatingEncoder<'_> {
    fn submit(self: Box<Self>) -> Result<(), DeviceError> {
        self.inner.submit()
    }
}
