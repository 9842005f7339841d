//! Render passes on Vulkan: the HAL's [`Recorder`](f3d_hal::record::Recorder) checks every
//! call (with this device's own rules through [`PassSink`]'s hooks); at submit the recorded
//! pass is lowered here and replayed into the open command buffer with dynamic rendering
//! (`replay.rs`).
//!
//! ```text
//!  begin_render_pass ──► check_begin (what only Vulkan refuses) ──► Recorder
//!  submit ──► lower: RecordedPass ──► VkPass { commands, bindings arena, uniform bytes }
//!         ──► barriers (graph transitions, attachments, sampled textures), query resets,
//!             uniform bytes into the ring (one memcpy), vkCmdBeginRendering, replay,
//!             vkCmdEndRendering, vkQueueSubmit2
//! ```
//!
//! A pass's effects start when it is submitted, so a pass begun but not submitted changes
//! nothing. No string is hashed and nothing is allocated per draw beyond appending to the
//! pass's own lists.

use std::ops::Range;

use f3d_hal::backend;
use f3d_hal::record::{PassCommand, PassSink, RecordedPass};
use f3d_hal::{
    Color, DeviceError, FilterMode, GeometryBuffer, GraphicsDevice, IndexFormat, LoadOp, PipelineHandle,
    QuerySetHandle, RenderPassDescriptor, ResourceState, SamplerHandle, ScissorRect, TextureHandle, Viewport,
};

use crate::device::VulkanDevice;
use crate::pipeline::VkPipeline;
use crate::texture::VkTexture;

/// What is bound to one slot of the current pipeline.
#[derive(Clone)]
pub(crate) enum Bound {
    Empty,
    /// A uniform block: its offset in the pass's uniform bytes.
    Uniform(u32),
    Texture(TextureHandle),
    Sampler(SamplerHandle),
    /// A read-only storage buffer, bound whole.
    Storage(GeometryBuffer),
}

/// One lowered command.
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

/// A pass lowered for Vulkan, ready to replay.
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
    pub(crate) occlusion: Option<QuerySetHandle>,
    /// Queries written in the pass, reset before it begins.
    pub(crate) queries: Vec<(QuerySetHandle, u32)>,
}

pub(crate) fn refused(operation: &'static str, reason: impl Into<String>) -> DeviceError {
    DeviceError::Refused { operation, reason: reason.into() }
}

fn out_of_bounds(operation: &'static str, what: impl Into<String>) -> DeviceError {
    DeviceError::OutOfBounds { operation, what: what.into() }
}

/// What only Vulkan refuses at `begin_render_pass`, beyond the HAL's rules: more views than
/// the device renders at once, attachments without attachment usage, views past the layers,
/// a level and layer attached twice, mixed sample counts, resolves across formats.
pub(crate) fn check_begin(device: &VulkanDevice, desc: &RenderPassDescriptor) -> Result<(), DeviceError> {
    const OP: &str = "begin_render_pass";
    let views = desc.multiview.map_or(1, |n| n.get());
    let invalid =
        |reason: String| DeviceError::InvalidDescriptor { operation: OP, label: desc.label.clone(), reason };
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
            return Err(out_of_bounds(OP, format!("{views} views from layer {} of {}", view.layer, d.label)));
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
    Ok(())
}

/// Whether the render graph made `desc`'s depth attachment read-only (and the pass loads both
/// of its aspects), so shaders may sample it and nothing may write it.
fn depth_read_only(desc: &RenderPassDescriptor) -> bool {
    desc.depth_stencil_attachment.as_ref().is_some_and(|d| {
        let graph_says = desc
            .transitions
            .iter()
            .any(|t| t.texture.same(&d.view.texture) && t.after == ResourceState::DepthStencilReadOnly);
        graph_says
            && d.depth_load == LoadOp::Load
            && (!d.view.texture.descriptor().format.has_stencil() || d.stencil_load == LoadOp::Load)
    })
}

impl<'a> VkPass<'a> {
    pub(crate) fn owner(&self) -> &f3d_hal::DeviceOwner {
        self.device.owner()
    }

    /// Whether `texture` is the pass's depth attachment in a read-only layout.
    pub(crate) fn is_read_only_depth(&self, texture: &TextureHandle) -> bool {
        self.depth_read_only
            && self.desc.depth_stencil_attachment.as_ref().is_some_and(|d| d.view.texture.same(texture))
    }
}

impl PassSink for VulkanDevice {
    fn device(&self) -> &dyn GraphicsDevice {
        self
    }

    fn uniform_alignment(&self) -> usize {
        self.shared.core().ring.align() as usize
    }

    /// A pipeline Vulkan refused at creation draws nothing; its refusal is reported once.
    fn pipeline_draws(&self, pipeline: &PipelineHandle) -> bool {
        match backend::pipeline_payload::<VkPipeline>(self.owner(), pipeline, "draw") {
            Ok(p) if p.refusal.is_some() => {
                self.refuse_once(pipeline, p);
                false
            }
            _ => true,
        }
    }

    fn check_pipeline(
        &self,
        pass: &RenderPassDescriptor,
        pipeline: &PipelineHandle,
    ) -> Result<(), DeviceError> {
        const OP: &str = "set_pipeline";
        let p = backend::pipeline_payload::<VkPipeline>(self.owner(), pipeline, OP)?;
        if p.writes_depth_stencil && depth_read_only(pass) {
            return Err(refused(
                OP,
                format!(
                    "pipeline {} writes depth or stencil, and pass {} only reads its depth attachment",
                    pipeline.label(),
                    pass.label
                ),
            ));
        }
        Ok(())
    }

    /// Vulkan's own bounds (viewportBoundsRange, maxViewportDimensions).
    fn check_viewport(&self, v: &Viewport) -> Result<(), DeviceError> {
        let l = &self.shared.caps.limits;
        let (lo, hi) = (l.viewport_bounds_range[0], l.viewport_bounds_range[1]);
        let inside = v.x >= lo && v.y >= lo && v.x + v.width <= hi && v.y + v.height <= hi;
        if !inside
            || v.width > l.max_viewport_dimensions[0] as f32
            || v.height > l.max_viewport_dimensions[1] as f32
        {
            return Err(out_of_bounds(
                "set_viewport",
                format!("{v:?} lies outside this device's viewport bounds"),
            ));
        }
        Ok(())
    }

    /// Vulkan's rule for every format (the shared check covers 32-bit floats): a texture is
    /// filtered linearly only where its format allows it, and compared only where its format
    /// allows depth comparison.
    fn check_bindings(
        &self,
        operation: &'static str,
        bound: &[Option<f3d_hal::record::Bound>],
        pairs: &[(usize, usize)],
    ) -> Result<(), DeviceError> {
        use ash::vk::FormatFeatureFlags2 as V;
        use f3d_hal::record::Bound as B;
        for &(texture, sampler) in pairs {
            let (Some(Some(B::Texture(t))), Some(Some(B::Sampler(s)))) =
                (bound.get(texture), bound.get(sampler))
            else {
                continue;
            };
            let (desc, s) = (t.descriptor(), s.descriptor());
            let features = self.shared.formats.get(desc.format).features;
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

    fn check_indirect(&self, operation: &'static str, count: u32) -> Result<(), DeviceError> {
        let max = self.shared.caps.limits.max_draw_indirect_count;
        if count > max {
            return Err(DeviceError::LimitExceeded {
                operation,
                limit: "maxDrawIndirectCount",
                requested: count.into(),
                max: max.into(),
            });
        }
        Ok(())
    }

    /// A depth attachment the render graph made read-only may be sampled in its own pass.
    fn can_sample_attached(&self, pass: &RenderPassDescriptor, texture: &TextureHandle) -> bool {
        depth_read_only(pass)
            && pass.depth_stencil_attachment.as_ref().is_some_and(|d| d.view.texture.same(texture))
    }

    fn can_sample(&self, texture: &TextureHandle) -> bool {
        backend::texture_payload::<VkTexture>(self.owner(), texture, "bind_texture")
            .is_ok_and(|t| t.sampled_view.is_some())
    }

    fn submit(&self, pass: RecordedPass) -> Result<(), DeviceError> {
        lower(self, pass).submit()
    }
}

/// Lowers a recorded pass: pipelines Vulkan compiled are bound, bindings are gathered into
/// one set per change before the draw that follows it, empty draws are dropped, the queries
/// the pass writes are listed for their reset.
fn lower(device: &VulkanDevice, pass: RecordedPass) -> VkPass<'_> {
    let (width, height) = pass.size;
    let mut commands = Vec::with_capacity(pass.commands.len());
    let mut binds = Vec::new();
    let mut bound: Vec<Bound> = Vec::new();
    let mut dirty = false;
    let mut occlusion = None;
    let mut open = 0;
    let mut queries = Vec::new();
    for command in pass.commands {
        let draw = match command {
            PassCommand::SetPipeline(p) => {
                bound.clear();
                bound.resize(p.bindings().entries().len(), Bound::Empty);
                dirty = true;
                let compiled = backend::pipeline_payload::<VkPipeline>(device.owner(), &p, "submit")
                    .is_ok_and(|v| v.refusal.is_none());
                if compiled {
                    commands.push(Cmd::Pipeline(p));
                }
                continue;
            }
            PassCommand::SetViewport(v) => Cmd::Viewport(v),
            PassCommand::SetScissor(r) => {
                Cmd::Scissor(r.unwrap_or(ScissorRect { x: 0, y: 0, width, height }))
            }
            PassCommand::SetStencilReference(r) => Cmd::StencilReference(r),
            PassCommand::SetBlendConstant(c) => Cmd::BlendConstant(c),
            PassCommand::SetVertexBuffer { slot, buffer, offset } => Cmd::Vertex { slot, buffer, offset },
            PassCommand::SetIndexBuffer { buffer, format, offset } => Cmd::Index { buffer, format, offset },
            PassCommand::Bind { slot, bound: b } => {
                if let Some(entry) = bound.get_mut(slot.0 as usize) {
                    *entry = match b {
                        f3d_hal::record::Bound::Uniform(r) => Bound::Uniform(r.start as u32),
                        f3d_hal::record::Bound::Texture(t) => Bound::Texture(t),
                        f3d_hal::record::Bound::Sampler(s) => Bound::Sampler(s),
                        f3d_hal::record::Bound::Storage(b) => Bound::Storage(b),
                    };
                    dirty = true;
                }
                continue;
            }
            PassCommand::Draw { vertices, instances } => {
                if vertices.is_empty() || instances.is_empty() {
                    continue;
                }
                Cmd::Draw { vertices, instances }
            }
            PassCommand::DrawIndexed { indices, base_vertex, instances } => {
                if indices.is_empty() || instances.is_empty() {
                    continue;
                }
                Cmd::DrawIndexed { indices, base_vertex, instances }
            }
            PassCommand::DrawIndirect { buffer, offset, count, .. } => {
                if count == 0 {
                    continue;
                }
                Cmd::DrawIndirect { buffer, offset, count }
            }
            PassCommand::WriteTimestamp { set, index } => {
                queries.push((set.clone(), index));
                Cmd::Timestamp { set, index }
            }
            PassCommand::BeginOcclusion { set, index } => {
                queries.push((set.clone(), index));
                occlusion = Some(set);
                open = index;
                Cmd::BeginOcclusion(index)
            }
            PassCommand::EndOcclusion => Cmd::EndOcclusion(open),
        };
        if dirty && matches!(draw, Cmd::Draw { .. } | Cmd::DrawIndexed { .. } | Cmd::DrawIndirect { .. }) {
            let start = binds.len() as u32;
            binds.extend_from_slice(&bound);
            commands.push(Cmd::Bind { start, len: bound.len() as u32 });
            dirty = false;
        }
        commands.push(draw);
    }
    VkPass {
        device,
        depth_read_only: depth_read_only(&pass.desc),
        views: pass.desc.multiview.map_or(1, |n| n.get()),
        size: pass.size,
        desc: pass.desc,
        commands,
        binds,
        uniforms: pass.uniforms,
        occlusion,
        queries,
    }
}
