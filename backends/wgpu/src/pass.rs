//! Render passes: recorded into a command list, replayed into a wgpu render pass at submit
//! (`replay.rs`).
//!
//! ```text
//!  begin_render_pass ──► WgpuPass { commands, uniform bytes }   (nothing reaches wgpu yet)
//!        set_pipeline / bind_* / draw*  ──► checked now, appended to `commands`
//!  submit ──► reserve a ring range, write the uniform bytes once,
//!             begin a wgpu render pass, replay `commands`, queue.submit
//! ```
//!
//! Recording checks everything wgpu would refuse (so a refusal is an error from the call at
//! fault, never a broken submit), and a pass's effects start when it is submitted, as the HAL
//! wants: a pass begun but not submitted changes nothing.

use std::collections::HashSet;
use std::ops::Range;

use f3d_hal::backend;
use f3d_hal::{
    BackendId, BindingKind, BindingLayout, BindingSlot, Color, ColorAttachment, DepthStencilAttachment,
    DeviceError, DeviceFeature, GeometryBuffer, GeometryUsages, GraphicsDevice, IndexFormat, PassEncoder,
    PipelineHandle, QueryKind, QuerySetHandle, RenderPassDescriptor, SamplerHandle, ScissorRect,
    TextureHandle, VertexStepMode, Viewport,
};

use crate::device::WgpuDevice;
use crate::pipeline::{Compiled, Target, WgpuPipeline, WgpuQuerySet};
use crate::ring::push_block;
use crate::texture::{WgpuSampler, WgpuTexture, bindable};

/// What is bound to one slot of the current pipeline.
#[derive(Clone)]
pub(crate) enum Bound {
    Empty,
    /// A uniform block: its offset in the pass's uniform bytes.
    Uniform(u32),
    Texture(TextureHandle),
    Sampler(SamplerHandle),
}

/// One recorded command.
pub(crate) enum Cmd {
    Pipeline(PipelineHandle),
    Viewport(Viewport),
    Scissor(ScissorRect),
    StencilReference(u32),
    BlendConstant(Color),
    Vertex { slot: u32, buffer: GeometryBuffer, offset: u64 },
    Index { buffer: GeometryBuffer, format: IndexFormat, offset: u64 },
    Bind(Vec<Bound>),
    Draw { vertices: Range<u32>, instances: Range<u32> },
    DrawIndexed { indices: Range<u32>, base_vertex: i32, instances: Range<u32> },
    DrawIndirect { buffer: GeometryBuffer, offset: u64, count: Option<u32> },
    Timestamp { set: QuerySetHandle, index: u32 },
    BeginOcclusion(u32),
    EndOcclusion,
}

/// A render pass on the wgpu device.
pub(crate) struct WgpuPass<'a> {
    pub(crate) device: &'a WgpuDevice,
    pub(crate) label: String,
    pub(crate) colors: Vec<ColorAttachment>,
    pub(crate) depth: Option<DepthStencilAttachment>,
    pub(crate) views: u32,
    pub(crate) target: Target,
    pub(crate) size: (u32, u32),
    pub(crate) commands: Vec<Cmd>,
    pub(crate) uniforms: Vec<u8>,
    pub(crate) align: u64,
    pub(crate) pipeline: Option<PipelineHandle>,
    pub(crate) bound: Vec<Bound>,
    pub(crate) dirty: bool,
    /// Per vertex buffer slot: bytes from the offset to the end of the buffer.
    pub(crate) vertex: Vec<Option<u64>>,
    pub(crate) index: Option<(u64, u64, IndexFormat)>,
    pub(crate) occlusion: Option<QuerySetHandle>,
    pub(crate) occlusion_open: bool,
    pub(crate) occlusion_used: HashSet<u32>,
}

pub(crate) fn refused(operation: &'static str, reason: impl Into<String>) -> DeviceError {
    DeviceError::Refused { operation, reason: reason.into() }
}

fn out_of_bounds(operation: &'static str, what: impl Into<String>) -> DeviceError {
    DeviceError::OutOfBounds { operation, what: what.into() }
}

impl<'a> WgpuPass<'a> {
    pub(crate) fn new(device: &'a WgpuDevice, desc: &RenderPassDescriptor) -> Result<Self, DeviceError> {
        const OP: &str = "begin_render_pass";
        let views = desc.multiview.map_or(1, |n| n.get());
        let invalid = |reason: String| DeviceError::InvalidDescriptor {
            operation: OP,
            label: desc.label.clone(),
            reason,
        };
        let attachments = desc
            .color_attachments
            .iter()
            .flat_map(|a| std::iter::once(&a.view).chain(a.resolve_target.as_ref()))
            .chain(desc.depth_stencil_attachment.as_ref().map(|d| &d.view));
        for view in attachments {
            let payload = device.texture(&view.texture, OP)?;
            let t = view.texture.descriptor();
            if !payload.texture.usage().contains(wgpu::TextureUsages::RENDER_ATTACHMENT) {
                return Err(invalid(format!(
                    "{} ({}) cannot be a render attachment on this adapter",
                    t.label, t.format
                )));
            }
            if u64::from(view.layer) + u64::from(views) > u64::from(t.array_layers) {
                return Err(out_of_bounds(
                    OP,
                    format!("{views} views from layer {} of {}", view.layer, t.label),
                ));
            }
        }
        let samples: Vec<u32> = desc
            .color_attachments
            .iter()
            .map(|a| &a.view)
            .chain(desc.depth_stencil_attachment.as_ref().map(|d| &d.view))
            .map(|v| v.texture.descriptor().sample_count)
            .collect();
        if samples.windows(2).any(|w| w[0] != w[1]) {
            return Err(invalid(format!("attachments differ in sample count ({samples:?})")));
        }
        for a in &desc.color_attachments {
            if let Some(r) = &a.resolve_target {
                let (from, to) = (a.view.texture.descriptor().format, r.texture.descriptor().format);
                if from != to {
                    return Err(invalid(format!("a {from} attachment cannot resolve into {to}")));
                }
            }
        }
        let target = Target {
            colors: desc.color_attachments.iter().map(|a| a.view.texture.descriptor().format).collect(),
            depth: desc.depth_stencil_attachment.as_ref().map(|d| d.view.texture.descriptor().format),
            samples: samples.first().copied().unwrap_or(1),
            views: desc.multiview,
        };
        let align = device.ring.lock().unwrap_or_else(|e| e.into_inner()).align();
        Ok(Self {
            device,
            label: desc.label.clone(),
            colors: desc.color_attachments.clone(),
            depth: desc.depth_stencil_attachment.clone(),
            views,
            target,
            size: desc.size().unwrap_or((0, 0)),
            commands: Vec::new(),
            uniforms: Vec::new(),
            align,
            pipeline: None,
            bound: Vec::new(),
            dirty: false,
            vertex: vec![None; device.limits().max_vertex_buffers as usize],
            index: None,
            occlusion: None,
            occlusion_open: false,
            occlusion_used: HashSet::new(),
        })
    }

    pub(crate) fn owner(&self) -> &f3d_hal::DeviceOwner {
        self.device.owner()
    }

    fn features(&self) -> &f3d_hal::DeviceFeatures {
        self.device.features()
    }

    fn unsupported(&self, feature: DeviceFeature) -> Result<(), DeviceError> {
        if self.features().has(feature) {
            Ok(())
        } else {
            Err(DeviceError::Unsupported { feature, backend: BackendId::WGPU })
        }
    }

    /// The checks every draw makes; `Ok(false)` when the pipeline is refused (the draw is
    /// dropped, the refusal reported once), `Ok(true)` when it draws. `ranges` are the
    /// vertices and instances of a direct draw (`None` for vertices of an indexed draw).
    fn prepare_draw(
        &mut self,
        operation: &'static str,
        ranges: Option<(Option<&Range<u32>>, &Range<u32>)>,
    ) -> Result<bool, DeviceError> {
        self.device.alive(operation)?;
        let Some(pipeline) = self.pipeline.clone() else { return Err(DeviceError::NoPipeline { operation }) };
        let textures: Vec<_> = self.bound_textures().collect();
        let samplers: Vec<_> = self.bound_samplers().collect();
        backend::check_float32_filtering(
            pipeline.bindings(),
            &textures,
            &samplers,
            self.features(),
            &BackendId::WGPU,
        )?;
        let payload = backend::pipeline_payload::<WgpuPipeline>(self.owner(), &pipeline, operation)?;
        if matches!(payload.compiled, Compiled::Refused(_)) {
            self.device.refuse_once(&pipeline, payload);
            return Ok(false);
        }
        for (i, b) in pipeline.bindings().entries().iter().enumerate() {
            if matches!(self.bound.get(i), None | Some(Bound::Empty)) {
                return Err(refused(
                    operation,
                    format!("pipeline {} declares {}, which is not bound", pipeline.label(), b.name),
                ));
            }
        }
        for slot in 0..payload.vertex_steps.len() {
            if self.vertex.get(slot).copied().flatten().is_none() {
                return Err(refused(
                    operation,
                    format!("pipeline {} reads vertex buffer {slot}, which is not set", pipeline.label()),
                ));
            }
        }
        if let Some((vertices, instances)) = ranges {
            self.check_vertex_ranges(operation, payload, vertices, instances)?;
        }
        if self.dirty {
            self.commands.push(Cmd::Bind(self.bound.clone()));
            self.dirty = false;
        }
        Ok(true)
    }

    fn bound_textures(&self) -> impl Iterator<Item = (BindingSlot, &f3d_hal::TextureDescriptor)> {
        self.bound.iter().enumerate().filter_map(|(i, b)| match b {
            Bound::Texture(t) => Some((BindingSlot(i as u32), t.descriptor())),
            _ => None,
        })
    }

    fn bound_samplers(&self) -> impl Iterator<Item = (BindingSlot, &f3d_hal::SamplerDescriptor)> {
        self.bound.iter().enumerate().filter_map(|(i, b)| match b {
            Bound::Sampler(s) => Some((BindingSlot(i as u32), s.descriptor())),
            _ => None,
        })
    }

    /// wgpu's rule for direct draws: every vertex (and instance) read lies inside its buffer.
    fn check_vertex_ranges(
        &self,
        operation: &'static str,
        payload: &WgpuPipeline,
        vertices: Option<&Range<u32>>,
        instances: &Range<u32>,
    ) -> Result<(), DeviceError> {
        for (slot, step) in payload.vertex_steps.iter().enumerate() {
            let available = self.vertex.get(slot).copied().flatten().unwrap_or(0);
            let range = match step.mode {
                VertexStepMode::Vertex => match vertices {
                    Some(v) => v,
                    None => continue,
                },
                VertexStepMode::Instance => instances,
            };
            if range.is_empty() {
                continue;
            }
            // wgpu's formula: a stride of 0 repeats one element for every index.
            let fits = available >= step.last_stride
                && ((available - step.last_stride).checked_div(step.stride))
                    .is_none_or(|whole| u64::from(range.end) <= whole + 1);
            if !fits {
                return Err(out_of_bounds(
                    operation,
                    format!(
                        "elements {}..{} of vertex buffer {slot} run past its {available} bytes",
                        range.start, range.end
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_ranges(operation: &'static str, ranges: &[(&str, &Range<u32>)]) -> Result<(), DeviceError> {
        for (what, r) in ranges {
            if r.start > r.end {
                return Err(out_of_bounds(operation, format!("{what} {}..{} run backwards", r.start, r.end)));
            }
        }
        Ok(())
    }

    fn indirect(
        &mut self,
        operation: &'static str,
        buffer: &GeometryBuffer,
        offset: u64,
        count: Option<u32>,
    ) -> Result<(), DeviceError> {
        self.device.geometry(buffer, operation)?;
        let desc = buffer.descriptor();
        if !desc.usage.contains(GeometryUsages::INDIRECT) {
            return Err(DeviceError::MissingUsage {
                operation,
                label: desc.label.clone(),
                usage: "INDIRECT",
            });
        }
        let bytes = 16 * u64::from(count.unwrap_or(1));
        if !offset.is_multiple_of(4) || offset.checked_add(bytes).is_none_or(|end| end > desc.size) {
            return Err(out_of_bounds(
                operation,
                format!(
                    "{bytes} bytes of arguments at offset {offset} of {} ({} bytes)",
                    desc.label, desc.size
                ),
            ));
        }
        if self.prepare_draw(operation, None)? {
            self.commands.push(Cmd::DrawIndirect { buffer: buffer.clone(), offset, count });
        }
        Ok(())
    }

    fn query_set<'q>(
        &self,
        set: &'q QuerySetHandle,
        index: u32,
        operation: &'static str,
    ) -> Result<&'q WgpuQuerySet, DeviceError> {
        self.device.alive(operation)?;
        let q = backend::query_set_payload::<WgpuQuerySet>(self.owner(), set, operation)?;
        if index >= set.descriptor().count {
            return Err(out_of_bounds(
                operation,
                format!("query {index} of {}, which has {}", set.label(), set.descriptor().count),
            ));
        }
        Ok(q)
    }
}

impl PassEncoder for WgpuPass<'_> {
    fn backend(&self) -> BackendId {
        BackendId::WGPU
    }

    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        const OP: &str = "set_pipeline";
        self.device.alive(OP)?;
        let p = backend::pipeline_payload::<WgpuPipeline>(self.owner(), pipeline, OP)?;
        let Some(target) = &p.target else {
            return Err(refused(OP, format!("{} is a compute pipeline", pipeline.label())));
        };
        if *target != self.target {
            return Err(refused(
                OP,
                format!(
                    "pipeline {} draws into {target:?}, but pass {} has {:?}",
                    pipeline.label(),
                    self.label,
                    self.target
                ),
            ));
        }
        if matches!(p.compiled, Compiled::Render(_)) {
            self.commands.push(Cmd::Pipeline(pipeline.clone()));
        }
        self.bound = vec![Bound::Empty; pipeline.bindings().entries().len()];
        self.dirty = true;
        self.pipeline = Some(pipeline.clone());
        Ok(())
    }

    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.pipeline.as_ref().map(|p| p.bindings())
    }

    fn set_viewport(&mut self, v: Viewport) -> Result<(), DeviceError> {
        const OP: &str = "set_viewport";
        let max = self.device.limits().max_texture_dimension_2d as f32;
        let finite = [v.x, v.y, v.width, v.height, v.min_depth, v.max_depth].iter().all(|x| x.is_finite());
        let inside = v.x >= -2.0 * max
            && v.y >= -2.0 * max
            && v.x + v.width <= 2.0 * max - 1.0
            && v.y + v.height <= 2.0 * max - 1.0;
        if !finite
            || v.width <= 0.0
            || v.height <= 0.0
            || v.width > max
            || v.height > max
            || !inside
            || !(0.0..=1.0).contains(&v.min_depth)
            || !(0.0..=1.0).contains(&v.max_depth)
            || v.min_depth > v.max_depth
        {
            return Err(out_of_bounds(OP, format!("{v:?}")));
        }
        self.commands.push(Cmd::Viewport(v));
        Ok(())
    }

    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError> {
        let (w, h) = self.size;
        let r = rect.unwrap_or(ScissorRect { x: 0, y: 0, width: w, height: h });
        if u64::from(r.x) + u64::from(r.width) > u64::from(w)
            || u64::from(r.y) + u64::from(r.height) > u64::from(h)
        {
            return Err(out_of_bounds("set_scissor", format!("{r:?} lies past the {w}x{h} attachment")));
        }
        self.commands.push(Cmd::Scissor(r));
        Ok(())
    }

    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError> {
        self.commands.push(Cmd::StencilReference(reference));
        Ok(())
    }

    fn set_blend_constant(&mut self, color: Color) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::BLEND_CONSTANT)?;
        self.commands.push(Cmd::BlendConstant(color));
        Ok(())
    }

    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        const OP: &str = "set_vertex_buffer";
        self.device.geometry(buffer, OP)?;
        backend::check_vertex_buffer(slot, buffer, offset, self.device.limits())?;
        let size = buffer.descriptor().size;
        self.vertex[slot as usize] = Some(size - offset);
        self.commands.push(Cmd::Vertex { slot, buffer: buffer.clone(), offset });
        Ok(())
    }

    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        const OP: &str = "set_index_buffer";
        self.device.geometry(buffer, OP)?;
        let desc = buffer.descriptor();
        if !desc.usage.contains(GeometryUsages::INDEX) {
            return Err(DeviceError::MissingUsage {
                operation: OP,
                label: desc.label.clone(),
                usage: "INDEX",
            });
        }
        if !offset.is_multiple_of(u64::from(format.size())) || offset > desc.size {
            return Err(out_of_bounds(
                OP,
                format!("offset {offset} is not a multiple of the index size inside {}", desc.label),
            ));
        }
        self.index = Some((desc.size, offset, format));
        self.commands.push(Cmd::Index { buffer: buffer.clone(), format, offset });
        Ok(())
    }

    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let Some(size) = self.pipeline_bindings().and_then(|l| l.get(slot)).and_then(|b| match b.kind {
            BindingKind::UniformBlock { size } if b.accepts_uniform_bytes(bytes) => Some(size),
            _ => None,
        }) else {
            return false;
        };
        let offset = push_block(&mut self.uniforms, self.align, &bytes[..size as usize]);
        self.bound[slot.0 as usize] = Bound::Uniform(offset);
        self.dirty = true;
        true
    }

    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        // A pass may not sample a texture it draws into (wgpu's usage rule; the whole texture
        // is bound, so any of its levels or layers counts).
        let attached = self
            .colors
            .iter()
            .flat_map(|a| std::iter::once(&a.view).chain(a.resolve_target.as_ref()))
            .chain(self.depth.as_ref().map(|d| &d.view))
            .any(|v| v.texture.same(texture));
        let ok = !attached
            && backend::texture_payload::<WgpuTexture>(self.owner(), texture, "bind_texture")
                .is_ok_and(|t| t.sampled_view.is_some())
            && bindable(texture.descriptor().format, self.features())
            && self
                .pipeline_bindings()
                .and_then(|l| l.get(slot))
                .is_some_and(|b| b.accepts_texture(texture.descriptor()));
        if ok {
            self.bound[slot.0 as usize] = Bound::Texture(texture.clone());
            self.dirty = true;
        }
        ok
    }

    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        let comparison = sampler.descriptor().compare.is_some();
        let ok = backend::sampler_payload::<WgpuSampler>(self.owner(), sampler, "bind_sampler").is_ok()
            && self
                .pipeline_bindings()
                .and_then(|l| l.get(slot))
                .is_some_and(|b| b.kind == BindingKind::Sampler { comparison });
        if ok {
            self.bound[slot.0 as usize] = Bound::Sampler(sampler.clone());
            self.dirty = true;
        }
        ok
    }

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        const OP: &str = "draw";
        backend::check_instances(&instances, self.features(), &BackendId::WGPU)?;
        Self::check_ranges(OP, &[("vertices", &vertices), ("instances", &instances)])?;
        if self.prepare_draw(OP, Some((Some(&vertices), &instances)))? {
            self.commands.push(Cmd::Draw { vertices, instances });
        }
        Ok(())
    }

    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError> {
        const OP: &str = "draw_indexed";
        backend::check_instances(&instances, self.features(), &BackendId::WGPU)?;
        Self::check_ranges(OP, &[("instances", &instances)])?;
        let Some((size, offset, format)) = self.index else {
            return Err(refused(OP, "no index buffer is set"));
        };
        backend::check_index_window(&indices, size, offset, format)?;
        if self.prepare_draw(OP, Some((None, &instances)))? {
            self.commands.push(Cmd::DrawIndexed { indices, base_vertex, instances });
        }
        Ok(())
    }

    fn draw_indirect(&mut self, buffer: &GeometryBuffer, offset: u64) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::INDIRECT_DRAW)?;
        self.indirect("draw_indirect", buffer, offset, None)
    }

    fn multi_draw_indirect(
        &mut self,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::MULTI_DRAW_INDIRECT)?;
        self.indirect("multi_draw_indirect", buffer, offset, Some(count))
    }

    fn write_timestamp(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        const OP: &str = "write_timestamp";
        self.unsupported(DeviceFeature::TIMESTAMP_QUERY)?;
        self.query_set(set, index, OP)?;
        if set.descriptor().kind != QueryKind::Timestamp {
            return Err(refused(OP, format!("{} is not a timestamp query set", set.label())));
        }
        self.commands.push(Cmd::Timestamp { set: set.clone(), index });
        Ok(())
    }

    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        const OP: &str = "begin_occlusion_query";
        self.unsupported(DeviceFeature::OCCLUSION_QUERY)?;
        self.query_set(set, index, OP)?;
        if set.descriptor().kind != QueryKind::Occlusion {
            return Err(refused(OP, format!("{} is not an occlusion query set", set.label())));
        }
        if self.occlusion.as_ref().is_some_and(|s| !s.same(set)) {
            return Err(refused(OP, "a pass counts occlusion into one query set"));
        }
        if self.occlusion_open {
            return Err(refused(OP, "an occlusion query is already running in this pass"));
        }
        if !self.occlusion_used.insert(index) {
            return Err(refused(OP, format!("occlusion query {index} was already used in this pass")));
        }
        self.occlusion = Some(set.clone());
        self.occlusion_open = true;
        self.commands.push(Cmd::BeginOcclusion(index));
        Ok(())
    }

    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::OCCLUSION_QUERY)?;
        if !self.occlusion_open {
            return Err(refused("end_occlusion_query", "no occlusion query is running"));
        }
        self.occlusion_open = false;
        self.commands.push(Cmd::EndOcclusion);
        Ok(())
    }
}
