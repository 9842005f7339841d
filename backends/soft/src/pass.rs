//! The soft pass encoder: checks each call as it is recorded, keeps the commands, and runs
//! the whole pass at `submit` (so a pass's effects appear in submission order).

use std::ops::Range;

use f3d_hal::backend;
use f3d_hal::{
    BackendId, BindingKind, BindingLayout, BindingSlot, Color, CommandEncoder, DeviceError, GeometryBuffer,
    GeometryUsages, GraphicsDevice, IndexFormat, PassEncoder, PipelineHandle, QueryKind, QuerySetHandle,
    RenderPassDescriptor, SamplerHandle, ScissorRect, TextureHandle, Viewport,
};

use crate::device::SoftDevice;
use crate::pipeline::SoftPipeline;
use crate::texture::{SoftGeometry, SoftQuerySet, SoftTexture};

/// What a draw reads its vertices from.
#[derive(Clone, Debug)]
pub(crate) enum DrawKind {
    /// `draw`.
    Direct { vertices: Range<u32>, instances: Range<u32> },
    /// `draw_indexed`.
    Indexed { indices: Range<u32>, base_vertex: i32, instances: Range<u32> },
    /// `draw_indirect` / `multi_draw_indirect`: arguments read at submit.
    Indirect { buffer: GeometryBuffer, offset: u64, count: u32 },
}

/// A binding captured for a draw.
#[derive(Clone, Debug)]
pub(crate) enum Bound {
    /// Uniform bytes: a range of the pass's arena.
    Uniform(Range<usize>),
    /// A texture.
    Texture(TextureHandle),
    /// A sampler.
    Sampler(SamplerHandle),
}

/// Everything a draw needs, captured when it was recorded.
#[derive(Clone, Debug)]
pub(crate) struct RecordedDraw {
    pub(crate) pipeline: PipelineHandle,
    pub(crate) kind: DrawKind,
    pub(crate) viewport: Viewport,
    pub(crate) scissor: Option<ScissorRect>,
    pub(crate) stencil_reference: u32,
    pub(crate) blend_constant: [f32; 4],
    pub(crate) vertex_buffers: Vec<Option<(GeometryBuffer, u64)>>,
    pub(crate) index_buffer: Option<(GeometryBuffer, IndexFormat, u64)>,
    pub(crate) bindings: Vec<Option<Bound>>,
    /// The occlusion query counting this draw's samples, if one is running.
    pub(crate) occlusion: Option<(QuerySetHandle, u32)>,
}

/// A recorded command that is not a draw.
#[derive(Clone, Debug)]
pub(crate) enum Recorded {
    Draw(Box<RecordedDraw>),
    Timestamp(QuerySetHandle, u32),
    /// Resets an occlusion query to zero when it begins.
    BeginOcclusion(QuerySetHandle, u32),
}

/// A render pass being recorded on the soft device.
pub(crate) struct SoftPass<'a> {
    pub(crate) device: &'a SoftDevice,
    pub(crate) desc: RenderPassDescriptor,
    pub(crate) size: (u32, u32),
    pub(crate) commands: Vec<Recorded>,
    pub(crate) arena: Vec<u8>,
    pipeline: Option<PipelineHandle>,
    viewport: Viewport,
    scissor: Option<ScissorRect>,
    stencil_reference: u32,
    blend_constant: [f32; 4],
    vertex_buffers: Vec<Option<(GeometryBuffer, u64)>>,
    index_buffer: Option<(GeometryBuffer, IndexFormat, u64)>,
    bindings: Vec<Option<Bound>>,
    occlusion: Option<(QuerySetHandle, u32)>,
}

impl<'a> SoftPass<'a> {
    pub(crate) fn new(device: &'a SoftDevice, desc: &RenderPassDescriptor) -> Result<Self, DeviceError> {
        const OP: &str = "begin_render_pass";
        for a in &desc.color_attachments {
            device.texture(&a.view.texture, OP)?;
            if let Some(r) = &a.resolve_target {
                device.texture(&r.texture, OP)?;
            }
        }
        if let Some(d) = &desc.depth_stencil_attachment {
            device.texture(&d.view.texture, OP)?;
        }
        let size = desc.size().unwrap_or((1, 1));
        Ok(Self {
            device,
            desc: desc.clone(),
            size,
            commands: Vec::new(),
            arena: Vec::new(),
            pipeline: None,
            viewport: Viewport::full(size.0, size.1),
            scissor: None,
            stencil_reference: 0,
            blend_constant: [0.0; 4],
            vertex_buffers: Vec::new(),
            index_buffer: None,
            bindings: Vec::new(),
            occlusion: None,
        })
    }

    fn owner(&self) -> &f3d_hal::DeviceOwner {
        self.device.owner()
    }

    fn slot_kind(&self, slot: BindingSlot) -> Option<BindingKind> {
        self.pipeline_bindings().and_then(|l| l.get(slot)).map(|b| b.kind)
    }

    fn record_draw(&mut self, operation: &'static str, kind: DrawKind) -> Result<(), DeviceError> {
        self.owner().check_alive(operation)?;
        let Some(pipeline) = self.pipeline.clone() else { return Err(DeviceError::NoPipeline { operation }) };
        backend::check_bindings_complete(operation, &pipeline, |slot| {
            self.bindings.get(slot.0 as usize).is_some_and(Option::is_some)
        })?;
        let textures: Vec<_> = self
            .bindings
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b {
                Some(Bound::Texture(t)) => Some((BindingSlot(i as u32), t.descriptor())),
                _ => None,
            })
            .collect();
        let samplers: Vec<_> = self
            .bindings
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b {
                Some(Bound::Sampler(s)) => Some((BindingSlot(i as u32), s.descriptor())),
                _ => None,
            })
            .collect();
        backend::check_float32_filtering(
            pipeline.bindings(),
            &textures,
            &samplers,
            self.device.features(),
            &BackendId::SOFT,
        )?;
        self.commands.push(Recorded::Draw(Box::new(RecordedDraw {
            pipeline,
            kind,
            viewport: self.viewport,
            scissor: self.scissor,
            stencil_reference: self.stencil_reference,
            blend_constant: self.blend_constant,
            vertex_buffers: self.vertex_buffers.clone(),
            index_buffer: self.index_buffer.clone(),
            bindings: self.bindings.clone(),
            occlusion: self.occlusion.clone(),
        })));
        Ok(())
    }
}

impl PassEncoder for SoftPass<'_> {
    fn backend(&self) -> BackendId {
        BackendId::SOFT
    }

    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        backend::pipeline_payload::<SoftPipeline>(self.owner(), pipeline, "set_pipeline")?;
        backend::check_pipeline_matches_pass(pipeline, &self.desc)?;
        self.bindings = vec![None; pipeline.bindings().entries().len()];
        self.pipeline = Some(pipeline.clone());
        Ok(())
    }

    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.pipeline.as_ref().map(|p| p.bindings())
    }

    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError> {
        backend::check_viewport(&viewport, self.device.limits())?;
        self.viewport = viewport;
        Ok(())
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
        self.scissor = rect;
        Ok(())
    }

    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError> {
        self.stencil_reference = reference;
        Ok(())
    }

    fn set_blend_constant(&mut self, color: Color) -> Result<(), DeviceError> {
        self.blend_constant = [color.r as f32, color.g as f32, color.b as f32, color.a as f32];
        Ok(())
    }

    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        backend::geometry_payload::<SoftGeometry>(self.owner(), buffer, "set_vertex_buffer")?;
        backend::check_vertex_buffer(slot, buffer, offset, self.device.limits())?;
        let slot = slot as usize;
        if self.vertex_buffers.len() <= slot {
            self.vertex_buffers.resize(slot + 1, None);
        }
        self.vertex_buffers[slot] = Some((buffer.clone(), offset));
        Ok(())
    }

    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        backend::geometry_payload::<SoftGeometry>(self.owner(), buffer, "set_index_buffer")?;
        let desc = buffer.descriptor();
        if !desc.usage.contains(GeometryUsages::INDEX) {
            return Err(DeviceError::MissingUsage {
                operation: "set_index_buffer",
                label: desc.label.clone(),
                usage: "INDEX",
            });
        }
        if !offset.is_multiple_of(u64::from(format.size())) || offset > desc.size {
            return Err(DeviceError::OutOfBounds {
                operation: "set_index_buffer",
                what: format!("offset {offset} of {} is not a whole index inside it", desc.label),
            });
        }
        self.index_buffer = Some((buffer.clone(), format, offset));
        Ok(())
    }

    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let Some(BindingKind::UniformBlock { size }) = self.slot_kind(slot) else { return false };
        if bytes.len() < size as usize {
            return false;
        }
        let start = self.arena.len();
        self.arena.extend_from_slice(&bytes[..size as usize]);
        self.bindings[slot.0 as usize] = Some(Bound::Uniform(start..start + size as usize));
        true
    }

    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        let accepted = backend::texture_payload::<SoftTexture>(self.owner(), texture, "bind_texture").is_ok()
            && self
                .pipeline_bindings()
                .and_then(|l| l.get(slot))
                .is_some_and(|b| b.accepts_texture(texture.descriptor()));
        if accepted {
            self.bindings[slot.0 as usize] = Some(Bound::Texture(texture.clone()));
        }
        accepted
    }

    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        let accepted = sampler.is_owned_by(self.owner())
            && matches!(self.slot_kind(slot), Some(BindingKind::Sampler { comparison }) if comparison == sampler.descriptor().compare.is_some());
        if accepted {
            self.bindings[slot.0 as usize] = Some(Bound::Sampler(sampler.clone()));
        }
        accepted
    }

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        backend::check_instances(&instances, self.device.features(), &BackendId::SOFT)?;
        if let Some(pipeline) = &self.pipeline {
            let bound: Vec<_> = self
                .vertex_buffers
                .iter()
                .map(|b| b.as_ref().map(|(g, o)| (g.descriptor().size, *o)))
                .collect();
            backend::check_vertex_ranges(pipeline, &bound, &vertices, &instances)?;
        }
        self.record_draw("draw", DrawKind::Direct { vertices, instances })
    }

    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError> {
        backend::check_instances(&instances, self.device.features(), &BackendId::SOFT)?;
        let Some((buffer, format, offset)) = &self.index_buffer else {
            return Err(DeviceError::Refused {
                operation: "draw_indexed",
                reason: "no index buffer is set".into(),
            });
        };
        backend::check_index_window(&indices, buffer.descriptor().size, *offset, *format)?;
        self.record_draw("draw_indexed", DrawKind::Indexed { indices, base_vertex, instances })
    }

    fn draw_indirect(&mut self, buffer: &GeometryBuffer, offset: u64) -> Result<(), DeviceError> {
        self.indirect("draw_indirect", buffer, offset, 1)
    }

    fn multi_draw_indirect(
        &mut self,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        self.indirect("multi_draw_indirect", buffer, offset, count)
    }

    fn write_timestamp(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        self.query(set, index, QueryKind::Timestamp, "write_timestamp")?;
        self.commands.push(Recorded::Timestamp(set.clone(), index));
        Ok(())
    }

    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        self.query(set, index, QueryKind::Occlusion, "begin_occlusion_query")?;
        if self.occlusion.is_some() {
            return Err(DeviceError::Refused {
                operation: "begin_occlusion_query",
                reason: "a query is already running".into(),
            });
        }
        self.commands.push(Recorded::BeginOcclusion(set.clone(), index));
        self.occlusion = Some((set.clone(), index));
        Ok(())
    }

    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        if self.occlusion.take().is_none() {
            return Err(DeviceError::Refused {
                operation: "end_occlusion_query",
                reason: "no query is running".into(),
            });
        }
        Ok(())
    }
}

impl SoftPass<'_> {
    fn indirect(
        &mut self,
        operation: &'static str,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        backend::geometry_payload::<SoftGeometry>(self.owner(), buffer, operation)?;
        let desc = buffer.descriptor();
        if !desc.usage.contains(GeometryUsages::INDIRECT) {
            return Err(DeviceError::MissingUsage {
                operation,
                label: desc.label.clone(),
                usage: "INDIRECT",
            });
        }
        let end = offset.checked_add(16 * u64::from(count));
        if !offset.is_multiple_of(4) || end.is_none_or(|e| e > desc.size) {
            return Err(DeviceError::OutOfBounds {
                operation,
                what: format!(
                    "{count} indirect draws at offset {offset} of {} ({} bytes)",
                    desc.label, desc.size
                ),
            });
        }
        self.record_draw(operation, DrawKind::Indirect { buffer: buffer.clone(), offset, count })
    }

    fn query(
        &self,
        set: &QuerySetHandle,
        index: u32,
        kind: QueryKind,
        operation: &'static str,
    ) -> Result<(), DeviceError> {
        backend::query_set_payload::<SoftQuerySet>(self.owner(), set, operation)?;
        if set.descriptor().kind != kind || index >= set.descriptor().count {
            return Err(DeviceError::OutOfBounds {
                operation,
                what: format!(
                    "query {index} of {} ({:?}, {} queries)",
                    set.label(),
                    set.descriptor().kind,
                    set.descriptor().count
                ),
            });
        }
        Ok(())
    }
}

impl CommandEncoder for SoftPass<'_> {
    fn submit(self: Box<Self>) -> Result<(), DeviceError> {
        self.owner().check_alive("submit")?;
        crate::draw::execute_pass(*self)
    }
}
