//! The null pass: checks what is recorded, applies clears at submit, draws nothing.

use std::ops::Range;

use f3d_hal::backend;
use f3d_hal::{
    BackendId, BindingLayout, BindingSlot, CommandEncoder, DeviceError, GeometryBuffer, GeometryUsages,
    IndexFormat, LoadOp, PassEncoder, PipelineHandle, RenderPassDescriptor, SamplerHandle, ScissorRect,
    TextureHandle, Viewport, encode_clear_color,
};

use crate::device::NullDevice;
use crate::pipeline::NullPipeline;
use crate::texture::{NullGeometry, NullTexture};

struct Clear {
    texture: TextureHandle,
    level: u32,
    layer: u32,
    texel: Vec<u8>,
}

/// A render pass on the null device.
pub(crate) struct NullPass<'a> {
    device: &'a NullDevice,
    clears: Vec<Clear>,
    size: (u32, u32),
    desc: RenderPassDescriptor,
    vertex_buffers: Vec<Option<(u64, u64)>>,
    pipeline: Option<PipelineHandle>,
    index: Option<(u64, u64, IndexFormat)>,
    textures: Vec<(BindingSlot, TextureHandle)>,
    samplers: Vec<(BindingSlot, SamplerHandle)>,
    bound: Vec<BindingSlot>,
}

impl<'a> NullPass<'a> {
    pub(crate) fn new(device: &'a NullDevice, desc: &RenderPassDescriptor) -> Result<Self, DeviceError> {
        const OP: &str = "begin_render_pass";
        let mut clears = Vec::new();
        for a in &desc.color_attachments {
            device.texture(&a.view.texture, OP)?;
            if let Some(r) = &a.resolve_target {
                device.texture(&r.texture, OP)?;
            }
            if let LoadOp::Clear(color) = a.load {
                let t = a.view.texture.descriptor();
                clears.push(Clear {
                    texture: a.view.texture.clone(),
                    level: a.view.mip_level,
                    layer: a.view.layer,
                    texel: encode_clear_color(t.format, color.to_array()),
                });
            }
        }
        if let Some(d) = &desc.depth_stencil_attachment {
            device.texture(&d.view.texture, OP)?;
        }
        Ok(Self {
            device,
            clears,
            size: desc.size().unwrap_or((0, 0)),
            desc: desc.clone(),
            vertex_buffers: Vec::new(),
            pipeline: None,
            index: None,
            textures: Vec::new(),
            samplers: Vec::new(),
            bound: Vec::new(),
        })
    }

    fn owner(&self) -> &f3d_hal::DeviceOwner {
        f3d_hal::GraphicsDevice::owner(self.device)
    }

    fn draw_with_pipeline(&self, operation: &'static str) -> Result<(), DeviceError> {
        self.owner().check_alive(operation)?;
        let Some(pipeline) = &self.pipeline else { return Err(DeviceError::NoPipeline { operation }) };
        backend::check_bindings_complete(operation, pipeline, |slot| self.bound.contains(&slot))?;
        let textures: Vec<_> = self.textures.iter().map(|(s, t)| (*s, t.descriptor())).collect();
        let samplers: Vec<_> = self.samplers.iter().map(|(s, t)| (*s, t.descriptor())).collect();
        let features = f3d_hal::GraphicsDevice::features(self.device);
        backend::check_float32_filtering(
            pipeline.bindings(),
            &textures,
            &samplers,
            features,
            &BackendId::NULL,
        )?;
        let payload = backend::pipeline_payload::<NullPipeline>(self.owner(), pipeline, operation)?;
        self.device.refuse_once(pipeline, payload);
        Ok(())
    }
}

impl PassEncoder for NullPass<'_> {
    fn backend(&self) -> BackendId {
        BackendId::NULL
    }

    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        backend::pipeline_payload::<NullPipeline>(self.owner(), pipeline, "set_pipeline")?;
        backend::check_pipeline_matches_pass(pipeline, &self.desc)?;
        self.pipeline = Some(pipeline.clone());
        self.textures.clear();
        self.samplers.clear();
        self.bound.clear();
        Ok(())
    }

    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.pipeline.as_ref().map(|p| p.bindings())
    }

    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError> {
        backend::check_viewport(&viewport, f3d_hal::GraphicsDevice::limits(self.device))
    }

    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError> {
        if let Some(r) = rect
            && (u64::from(r.x) + u64::from(r.width) > u64::from(self.size.0)
                || u64::from(r.y) + u64::from(r.height) > u64::from(self.size.1))
        {
            return Err(DeviceError::OutOfBounds {
                operation: "set_scissor",
                what: format!("{r:?} lies past the {}x{} attachment", self.size.0, self.size.1),
            });
        }
        Ok(())
    }

    fn set_stencil_reference(&mut self, _reference: u32) -> Result<(), DeviceError> {
        Ok(())
    }

    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        backend::geometry_payload::<NullGeometry>(self.owner(), buffer, "set_vertex_buffer")?;
        backend::check_vertex_buffer(slot, buffer, offset, f3d_hal::GraphicsDevice::limits(self.device))?;
        let slot = slot as usize;
        if self.vertex_buffers.len() <= slot {
            self.vertex_buffers.resize(slot + 1, None);
        }
        self.vertex_buffers[slot] = Some((buffer.descriptor().size, offset));
        Ok(())
    }

    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        backend::geometry_payload::<NullGeometry>(self.owner(), buffer, "set_index_buffer")?;
        let desc = buffer.descriptor();
        if !desc.usage.contains(GeometryUsages::INDEX) {
            return Err(DeviceError::MissingUsage {
                operation: "set_index_buffer",
                label: desc.label.clone(),
                usage: "INDEX",
            });
        }
        if !offset.is_multiple_of(u64::from(format.size())) {
            return Err(DeviceError::OutOfBounds {
                operation: "set_index_buffer",
                what: format!("offset {offset} is not a multiple of the index size"),
            });
        }
        self.index = Some((desc.size, offset, format));
        Ok(())
    }

    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let ok = self
            .pipeline_bindings()
            .and_then(|l| l.get(slot))
            .is_some_and(|b| b.accepts_uniform_bytes(bytes));
        if ok {
            self.bound.push(slot);
        }
        ok
    }

    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        let ok = backend::texture_payload::<NullTexture>(self.owner(), texture, "bind_texture").is_ok()
            && self
                .pipeline_bindings()
                .and_then(|l| l.get(slot))
                .is_some_and(|b| b.accepts_texture(texture.descriptor()));
        if ok {
            self.textures.retain(|(s, _)| *s != slot);
            self.textures.push((slot, texture.clone()));
            self.bound.push(slot);
        }
        ok
    }

    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        let ok = sampler.is_owned_by(self.owner())
            && self
                .pipeline_bindings()
                .and_then(|l| l.get(slot))
                .is_some_and(|b| matches!(b.kind, f3d_hal::BindingKind::Sampler { .. }));
        if ok {
            self.samplers.retain(|(s, _)| *s != slot);
            self.samplers.push((slot, sampler.clone()));
            self.bound.push(slot);
        }
        ok
    }

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        backend::check_instances(
            &instances,
            f3d_hal::GraphicsDevice::features(self.device),
            &BackendId::NULL,
        )?;
        if let Some(pipeline) = &self.pipeline {
            backend::check_vertex_ranges(pipeline, &self.vertex_buffers, &vertices, &instances)?;
        }
        self.draw_with_pipeline("draw")
    }

    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        _base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError> {
        backend::check_instances(
            &instances,
            f3d_hal::GraphicsDevice::features(self.device),
            &BackendId::NULL,
        )?;
        let Some((size, offset, format)) = self.index else {
            return Err(DeviceError::Refused {
                operation: "draw_indexed",
                reason: "no index buffer is set".into(),
            });
        };
        backend::check_index_window(&indices, size, offset, format)?;
        self.draw_with_pipeline("draw_indexed")
    }
}

impl CommandEncoder for NullPass<'_> {
    fn submit(self: Box<Self>) -> Result<(), DeviceError> {
        self.owner().check_alive("submit")?;
        for clear in &self.clears {
            let t = self.device.texture(&clear.texture, "submit")?;
            t.clear(clear.level, clear.layer, &clear.texel);
        }
        Ok(())
    }
}
