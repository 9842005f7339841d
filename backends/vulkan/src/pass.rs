//! Render passes: checked and recorded into a command list, replayed into the open command
//! buffer with dynamic rendering at submit (`replay.rs`).
//!
//! ```text
//!  begin_render_pass ──► VkPass { commands, bindings arena, uniform bytes }   (no Vulkan yet)
//!        set_pipeline / bind_* / draw*  ──► checked now, appended to `commands`
//!  submit ──► barriers (graph transitions, attachments, sampled textures), query resets,
//!             uniform bytes into the ring (one memcpy), vkCmdBeginRendering, replay,
//!             vkCmdEndRendering, vkQueueSubmit2
//! ```
//!
//! Recording refuses everything Vulkan (or its validation layers) would refuse, so a refusal
//! is an error from the call at fault and never a broken submission; a pass's effects start
//! when it is submitted, so a pass begun but not submitted changes nothing. No string is
//! hashed and nothing is allocated per draw beyond appending to the pass's own lists.

use std::collections::HashSet;
use std::ops::Range;

use f3d_hal::backend;
use f3d_hal::{
    BackendId, BindingKind, BindingLayout, BindingSlot, Color, DeviceError, DeviceFeature, FilterMode,
    GeometryBuffer, GeometryUsages, GraphicsDevice, IndexFormat, LoadOp, PassEncoder, PipelineHandle,
    QueryKind, QuerySetHandle, RenderPassDescriptor, ResourceState, SamplerHandle, ScissorRect,
    TextureHandle, Viewport,
};

use crate::device::VulkanDevice;
use crate::pipeline::VkPipeline;
use crate::query::VkQuerySet;
use crate::ring::push_block;
use crate::texture::{VkSampler, VkTexture};

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
    Vertex {
        slot: u32,
        buffer: GeometryBuffer,
        offset: u64,
    },
    Index {
        buffer: GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    },
    /// The bindings of the following draws: `binds[start..start + len]`.
    Bind {
        start: u32,
        len: u32,
    },
    Draw {
        vertices: Range<u32>,
        instances: Range<u32>,
    },
    DrawIndexed {
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    },
    DrawIndirect {
        buffer: GeometryBuffer,
        offset: u64,
        count: u32,
    },
    Timestamp {
        set: QuerySetHandle,
        index: u32,
    },
    BeginOcclusion(u32),
    EndOcclusion(u32),
}

/// What draws need to know of the current pipeline, so that no draw looks it up again.
#[derive(Default)]
struct PipelineFacts {
    /// The device refused it (draws are dropped and the refusal reported once).
    refused: bool,
    /// Vertex buffer slots it reads.
    vertex_buffers: u32,
    /// `(texture slot, sampler slot)` of every texture with a sampler, by the HAL's pairing
    /// (`BindingLayout::sampler_for`).
    samplers: Vec<(usize, usize)>,
}

/// A render pass on the Vulkan device.
pub(crate) struct VkPass<'a> {
    pub(crate) device: &'a VulkanDevice,
    /// The pass as begun: attachments, and the render graph's transitions.
    pub(crate) desc: RenderPassDescriptor,
    /// The graph says the pass only reads its depth attachment (and it loads both aspects):
    /// the attachment is in a read-only layout, shaders may sample it, nothing may write it.
    pub(crate) depth_read_only: bool,
    pub(crate) views: u32,
    pub(crate) size: (u32, u32),
    pub(crate) commands: Vec<Cmd>,
    /// Every binding set recorded, back to back (`Cmd::Bind` points into it).
    pub(crate) binds: Vec<Bound>,
    pub(crate) uniforms: Vec<u8>,
    align: u64,
    pipeline: Option<PipelineHandle>,
    /// What draws need of the current pipeline, read once at `set_pipeline`.
    facts: PipelineFacts,
    bound: Vec<Bound>,
    dirty: bool,
    /// Per vertex buffer slot: the buffer's size and the offset, once set.
    vertex: Vec<Option<(u64, u64)>>,
    index: Option<(u64, u64, IndexFormat)>,
    pub(crate) occlusion: Option<QuerySetHandle>,
    pub(crate) occlusion_open: Option<u32>,
    /// Queries written in the pass, reset before it begins.
    pub(crate) queries: Vec<(QuerySetHandle, u32)>,
    used_queries: HashSet<(u64, u32)>,
}

pub(crate) fn refused(operation: &'static str, reason: impl Into<String>) -> DeviceError {
    DeviceError::Refused { operation, reason: reason.into() }
}

fn out_of_bounds(operation: &'static str, what: impl Into<String>) -> DeviceError {
    DeviceError::OutOfBounds { operation, what: what.into() }
}

impl<'a> VkPass<'a> {
    pub(crate) fn new(device: &'a VulkanDevice, desc: &RenderPassDescriptor) -> Result<Self, DeviceError> {
        const OP: &str = "begin_render_pass";
        let views = desc.multiview.map_or(1, |n| n.get());
        let invalid = |reason: String| DeviceError::InvalidDescriptor {
            operation: OP,
            label: desc.label.clone(),
            reason,
        };
        if views > 1 && views > device.shared.caps.max_multiview_views {
            return Err(DeviceError::LimitExceeded {
                operation: OP,
                limit: "maxMultiviewViewCount",
                requested: views.into(),
                max: device.shared.caps.max_multiview_views.into(),
            });
        }
        let attachments = desc
            .color_attachments
            .iter()
            .flat_map(|a| std::iter::once(&a.view).chain(a.resolve_target.as_ref()))
            .chain(desc.depth_stencil_attachment.as_ref().map(|d| &d.view));
        let mut seen: Vec<(u64, u32, u32)> = Vec::new();
        for view in attachments {
            let t = device.texture(&view.texture, OP)?;
            let d = view.texture.descriptor();
            let usage = if d.format.is_color() {
                ash::vk::ImageUsageFlags::COLOR_ATTACHMENT
            } else {
                ash::vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            };
            if !t.plan.usage.contains(usage) {
                return Err(invalid(format!(
                    "{} ({}) cannot be a render attachment on this device",
                    d.label, d.format
                )));
            }
            if u64::from(view.layer) + u64::from(views) > u64::from(d.array_layers) {
                return Err(out_of_bounds(
                    OP,
                    format!("{views} views from layer {} of {}", view.layer, d.label),
                ));
            }
            if seen.contains(&(t.id, view.mip_level, view.layer)) {
                return Err(invalid(format!(
                    "{} level {} layer {} is attached twice",
                    d.label, view.mip_level, view.layer
                )));
            }
            seen.push((t.id, view.mip_level, view.layer));
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
        for t in &desc.transitions {
            device.texture(&t.texture, OP)?;
        }
        let depth_read_only = desc.depth_stencil_attachment.as_ref().is_some_and(|d| {
            let graph_says = desc
                .transitions
                .iter()
                .any(|t| t.texture.same(&d.view.texture) && t.after == ResourceState::DepthStencilReadOnly);
            graph_says
                && d.depth_load == LoadOp::Load
                && (!d.view.texture.descriptor().format.has_stencil() || d.stencil_load == LoadOp::Load)
        });
        let align = device.shared.core().ring.align();
        Ok(Self {
            device,
            desc: desc.clone(),
            depth_read_only,
            views,
            size: desc.size().unwrap_or((0, 0)),
            commands: Vec::new(),
            binds: Vec::new(),
            uniforms: Vec::new(),
            align,
            pipeline: None,
            facts: PipelineFacts::default(),
            bound: Vec::new(),
            dirty: false,
            vertex: vec![None; device.limits().max_vertex_buffers as usize],
            index: None,
            occlusion: None,
            occlusion_open: None,
            queries: Vec::new(),
            used_queries: HashSet::new(),
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
            Err(DeviceError::Unsupported { feature, backend: BackendId::VULKAN })
        }
    }

    /// Whether `texture` is the pass's depth attachment in a read-only layout.
    pub(crate) fn is_read_only_depth(&self, texture: &TextureHandle) -> bool {
        self.depth_read_only
            && self.desc.depth_stencil_attachment.as_ref().is_some_and(|d| d.view.texture.same(texture))
    }

    /// The checks every draw makes; `Ok(false)` when the pipeline is refused (the draw is
    /// dropped, the refusal reported once), `Ok(true)` when it draws.
    fn prepare_draw(
        &mut self,
        operation: &'static str,
        ranges: Option<(&Range<u32>, &Range<u32>)>,
    ) -> Result<bool, DeviceError> {
        self.device.alive(operation)?;
        let Some(pipeline) = self.pipeline.clone() else { return Err(DeviceError::NoPipeline { operation }) };
        // Checks of what is bound run when a binding changed since the last draw.
        if self.dirty {
            let textures: Vec<_> = self.bound_textures().collect();
            let samplers: Vec<_> = self.bound_samplers().collect();
            backend::check_float32_filtering(
                pipeline.bindings(),
                &textures,
                &samplers,
                self.features(),
                &BackendId::VULKAN,
            )?;
        }
        if self.facts.refused {
            let payload = backend::pipeline_payload::<VkPipeline>(self.owner(), &pipeline, operation)?;
            self.device.refuse_once(&pipeline, payload);
            return Ok(false);
        }
        if self.dirty {
            backend::check_bindings_complete(operation, &pipeline, |slot| {
                !matches!(self.bound.get(slot.0 as usize), None | Some(Bound::Empty))
            })?;
            self.check_filtering(operation)?;
        }
        if let Some((vertices, instances)) = ranges {
            backend::check_vertex_ranges(&pipeline, &self.vertex, vertices, instances)?;
        }
        for slot in 0..self.facts.vertex_buffers {
            if self.vertex.get(slot as usize).copied().flatten().is_none() {
                return Err(refused(
                    operation,
                    format!("pipeline {} reads vertex buffer {slot}, which is not set", pipeline.label()),
                ));
            }
        }
        if self.dirty {
            let start = self.binds.len() as u32;
            self.binds.extend_from_slice(&self.bound);
            self.commands.push(Cmd::Bind { start, len: self.bound.len() as u32 });
            self.dirty = false;
        }
        Ok(true)
    }

    /// Vulkan's rule for every format (the shared check covers 32-bit floats): a texture is
    /// filtered linearly only where its format allows it, and compared only where its format
    /// allows depth comparison.
    fn check_filtering(&self, operation: &'static str) -> Result<(), DeviceError> {
        use ash::vk::FormatFeatureFlags2 as V;
        for (texture, sampler) in &self.facts.samplers {
            let (Some(Bound::Texture(t)), Some(Bound::Sampler(s))) =
                (self.bound.get(*texture), self.bound.get(*sampler))
            else {
                continue;
            };
            let (desc, s) = (t.descriptor(), s.descriptor());
            let features = self.device.shared.formats.get(desc.format).features;
            let linear = [s.mag_filter, s.min_filter, s.mipmap_filter].contains(&FilterMode::Linear);
            if s.compare.is_none() && linear && !features.contains(V::SAMPLED_IMAGE_FILTER_LINEAR) {
                return Err(refused(
                    operation,
                    format!("{} ({}) cannot be filtered linearly on this device", desc.label, desc.format),
                ));
            }
            if s.compare.is_some() && !features.contains(V::SAMPLED_IMAGE_DEPTH_COMPARISON) {
                return Err(refused(
                    operation,
                    format!(
                        "{} ({}) cannot be sampled with comparison on this device",
                        desc.label, desc.format
                    ),
                ));
            }
        }
        Ok(())
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
        count: u32,
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
        let max = self.device.shared.caps.limits.max_draw_indirect_count;
        if count > max {
            return Err(DeviceError::LimitExceeded {
                operation,
                limit: "maxDrawIndirectCount",
                requested: count.into(),
                max: max.into(),
            });
        }
        let bytes = 16 * u64::from(count.max(1));
        if !offset.is_multiple_of(4) || offset.checked_add(bytes).is_none_or(|end| end > desc.size) {
            return Err(out_of_bounds(
                operation,
                format!(
                    "{bytes} bytes of arguments at offset {offset} of {} ({} bytes)",
                    desc.label, desc.size
                ),
            ));
        }
        if self.prepare_draw(operation, None)? && count > 0 {
            self.commands.push(Cmd::DrawIndirect { buffer: buffer.clone(), offset, count });
        }
        Ok(())
    }

    fn query_set<'q>(
        &self,
        set: &'q QuerySetHandle,
        index: u32,
        kind: QueryKind,
        operation: &'static str,
    ) -> Result<&'q VkQuerySet, DeviceError> {
        self.device.alive(operation)?;
        let q = backend::query_set_payload::<VkQuerySet>(self.owner(), set, operation)?;
        let count = set.descriptor().count;
        // A query in a multiview pass takes one query per view.
        if u64::from(index) + u64::from(self.views) > u64::from(count) {
            return Err(out_of_bounds(
                operation,
                format!("query {index} ({} views) of {}, which has {count}", self.views, set.label()),
            ));
        }
        if set.descriptor().kind != kind {
            let what = if kind == QueryKind::Timestamp { "a timestamp" } else { "an occlusion" };
            return Err(refused(operation, format!("{} is not {what} query set", set.label())));
        }
        Ok(q)
    }

    /// Notes that the pass writes query `index` of `set` (reset before the pass begins); a
    /// query is written at most once per pass.
    fn use_query(
        &mut self,
        operation: &'static str,
        set: &QuerySetHandle,
        id: u64,
        index: u32,
    ) -> Result<(), DeviceError> {
        for i in index..index + self.views {
            if !self.used_queries.insert((id, i)) {
                return Err(refused(
                    operation,
                    format!("query {i} of {} was already written in this pass", set.label()),
                ));
            }
        }
        self.queries.push((set.clone(), index));
        Ok(())
    }
}

impl PassEncoder for VkPass<'_> {
    fn backend(&self) -> BackendId {
        BackendId::VULKAN
    }

    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        const OP: &str = "set_pipeline";
        self.device.alive(OP)?;
        let p = backend::pipeline_payload::<VkPipeline>(self.owner(), pipeline, OP)?;
        backend::check_pipeline_matches_pass(pipeline, &self.desc)?;
        if self.depth_read_only && p.writes_depth_stencil {
            return Err(refused(
                OP,
                format!(
                    "pipeline {} writes depth or stencil, and pass {} only reads its depth attachment",
                    pipeline.label(),
                    self.desc.label
                ),
            ));
        }
        if p.refusal.is_none() {
            self.commands.push(Cmd::Pipeline(pipeline.clone()));
        }
        let layout = pipeline.bindings();
        self.facts = PipelineFacts {
            refused: p.refusal.is_some(),
            vertex_buffers: p.vertex_buffers,
            samplers: layout
                .entries()
                .iter()
                .enumerate()
                .filter(|(_, b)| matches!(b.kind, BindingKind::Texture { .. }))
                .filter_map(|(i, b)| layout.sampler_for(&b.name).map(|s| (i, s.0 as usize)))
                .collect(),
        };
        self.bound.clear();
        self.bound.resize(pipeline.bindings().entries().len(), Bound::Empty);
        self.dirty = true;
        self.pipeline = Some(pipeline.clone());
        Ok(())
    }

    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.pipeline.as_ref().map(|p| p.bindings())
    }

    fn set_viewport(&mut self, v: Viewport) -> Result<(), DeviceError> {
        const OP: &str = "set_viewport";
        backend::check_viewport(&v, self.device.limits())?;
        // Vulkan's own bounds (viewportBoundsRange, maxViewportDimensions) on top of the shared rule.
        let l = &self.device.shared.caps.limits;
        let (lo, hi) = (l.viewport_bounds_range[0], l.viewport_bounds_range[1]);
        let inside = v.x >= lo && v.y >= lo && v.x + v.width <= hi && v.y + v.height <= hi;
        if !inside
            || v.width > l.max_viewport_dimensions[0] as f32
            || v.height > l.max_viewport_dimensions[1] as f32
        {
            return Err(out_of_bounds(OP, format!("{v:?} lies outside this device's viewport bounds")));
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
        let Some(entry) = self.vertex.get_mut(slot as usize) else {
            return Err(out_of_bounds(OP, format!("slot {slot}")));
        };
        *entry = Some((size, offset));
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
        // A pass samples none of its attachments (their layouts are attachment layouts), except
        // a depth attachment the render graph marked read-only.
        let attached = self
            .desc
            .color_attachments
            .iter()
            .flat_map(|a| std::iter::once(&a.view).chain(a.resolve_target.as_ref()))
            .chain(self.desc.depth_stencil_attachment.as_ref().map(|d| &d.view))
            .any(|v| v.texture.same(texture));
        if attached && !self.is_read_only_depth(texture) {
            return false;
        }
        let ok = backend::texture_payload::<VkTexture>(self.owner(), texture, "bind_texture")
            .is_ok_and(|t| t.sampled_view.is_some())
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
        let ok = backend::sampler_payload::<VkSampler>(self.owner(), sampler, "bind_sampler").is_ok()
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
        backend::check_instances(&instances, self.features(), &BackendId::VULKAN)?;
        Self::check_ranges(OP, &[("vertices", &vertices), ("instances", &instances)])?;
        if self.prepare_draw(OP, Some((&vertices, &instances)))?
            && !vertices.is_empty()
            && !instances.is_empty()
        {
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
        backend::check_instances(&instances, self.features(), &BackendId::VULKAN)?;
        Self::check_ranges(OP, &[("instances", &instances)])?;
        let Some((size, offset, format)) = self.index else {
            return Err(refused(OP, "no index buffer is set"));
        };
        backend::check_index_window(&indices, size, offset, format)?;
        if self.prepare_draw(OP, Some((&(0..0), &instances)))? && !indices.is_empty() && !instances.is_empty()
        {
            self.commands.push(Cmd::DrawIndexed { indices, base_vertex, instances });
        }
        Ok(())
    }

    fn draw_indirect(&mut self, buffer: &GeometryBuffer, offset: u64) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::INDIRECT_DRAW)?;
        self.indirect("draw_indirect", buffer, offset, 1)
    }

    fn multi_draw_indirect(
        &mut self,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::MULTI_DRAW_INDIRECT)?;
        self.indirect("multi_draw_indirect", buffer, offset, count)
    }

    fn write_timestamp(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        const OP: &str = "write_timestamp";
        self.unsupported(DeviceFeature::TIMESTAMP_QUERY)?;
        let id = self.query_set(set, index, QueryKind::Timestamp, OP)?.id;
        self.use_query(OP, set, id, index)?;
        self.commands.push(Cmd::Timestamp { set: set.clone(), index });
        Ok(())
    }

    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        const OP: &str = "begin_occlusion_query";
        self.unsupported(DeviceFeature::OCCLUSION_QUERY)?;
        let id = self.query_set(set, index, QueryKind::Occlusion, OP)?.id;
        if self.occlusion.as_ref().is_some_and(|s| !s.same(set)) {
            return Err(refused(OP, "a pass counts occlusion into one query set"));
        }
        if self.occlusion_open.is_some() {
            return Err(refused(OP, "an occlusion query is already running in this pass"));
        }
        self.use_query(OP, set, id, index)?;
        self.occlusion = Some(set.clone());
        self.occlusion_open = Some(index);
        self.commands.push(Cmd::BeginOcclusion(index));
        Ok(())
    }

    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        self.unsupported(DeviceFeature::OCCLUSION_QUERY)?;
        let Some(index) = self.occlusion_open.take() else {
            return Err(refused("end_occlusion_query", "no occlusion query is running"));
        };
        self.commands.push(Cmd::EndOcclusion(index));
        Ok(())
    }
}
