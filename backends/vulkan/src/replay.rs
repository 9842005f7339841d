//! Replaying a recorded pass into the open command buffer, at submit.
//!
//! ```text
//!  submit ──► attachment views (made on demand, kept with the texture)
//!         ──► barriers: the graph's transitions first, then the pass's own needs
//!             (attachments, resolve targets, every texture it binds)
//!         ──► query resets, the pass's uniform bytes into one range of the ring
//!         ──► vkCmdBeginRendering (loads, clears, resolves), default state: viewport = the
//!             attachment level, scissor = all of it, stencil reference 0, blend constant 0
//!         ──► the commands (descriptor sets from the pipeline's cache, dynamic offsets =
//!             ring base + block offset) ──► vkCmdEndRendering ──► vkQueueSubmit2
//! ```

use ash::vk;
use f3d_hal::backend;
use f3d_hal::{BindingKind, DeviceError, LoadOp, PipelineHandle, StoreOp};

use crate::barrier::{Need, Use, prepare};
use crate::conv;
use crate::descriptor::{SetEntry, descriptor_set};
use crate::pass::{Bound, Cmd, VkPass, refused};
use crate::pipeline::VkPipeline;
use crate::query::VkQuerySet;
use crate::sync::{Core, Shared};
use crate::texture::{VkGeometry, VkSampler, VkTexture};

const OP: &str = "submit";

fn load(op: LoadOp<impl Copy>) -> vk::AttachmentLoadOp {
    match op {
        LoadOp::Clear(_) => vk::AttachmentLoadOp::CLEAR,
        LoadOp::Load => vk::AttachmentLoadOp::LOAD,
    }
}

fn store(op: StoreOp) -> vk::AttachmentStoreOp {
    match op {
        StoreOp::Store => vk::AttachmentStoreOp::STORE,
        StoreOp::Discard => vk::AttachmentStoreOp::DONT_CARE,
    }
}

/// The views a pass draws into, made before the core lock is taken.
struct Views {
    colors: Vec<(vk::ImageView, Option<vk::ImageView>)>,
    depth: Option<vk::ImageView>,
}

/// What the replay loop keeps between commands.
struct ReplayState<'p> {
    pipeline: Option<(&'p PipelineHandle, &'p VkPipeline)>,
    /// Per group index: the key of the set bound last, and the set.
    last: Vec<(Vec<u64>, vk::DescriptorSet)>,
    /// Per group index: the set and dynamic offsets bound last. A bind that would bind the same
    /// again is skipped: some drivers pay for every `vkCmdBindDescriptorSets` in a pass (Mesa
    /// 22.3's lavapipe keeps about 4 MB per bind until the pass executes; see BENCHMARKS.md).
    bound: Vec<(vk::DescriptorSet, Vec<u32>)>,
    entries: Vec<SetEntry>,
    offsets: Vec<u32>,
}

impl VkPass<'_> {
    fn views(&self) -> Result<Views, DeviceError> {
        let view = |v: &f3d_hal::AttachmentView| -> Result<vk::ImageView, DeviceError> {
            let t = self.device.texture(&v.texture, OP)?;
            self.device.attachment_view(t, v.mip_level, v.layer, self.views, OP)
        };
        let mut colors = Vec::new();
        for a in &self.desc.color_attachments {
            colors.push((view(&a.view)?, a.resolve_target.as_ref().map(view).transpose()?));
        }
        let depth = self.desc.depth_stencil_attachment.as_ref().map(|d| view(&d.view)).transpose()?;
        Ok(Views { colors, depth })
    }

    /// What the pass needs of every texture it touches, graph transitions first.
    fn needs(&self) -> Result<Vec<Need<'_>>, DeviceError> {
        let mut needs = Vec::new();
        for t in &self.desc.transitions {
            let Some(to) = Use::from_state(t.after) else { continue };
            let payload = self.device.texture(&t.texture, OP)?;
            let mut need = Need::whole(payload, to);
            need.discard = t.before == f3d_hal::ResourceState::Undefined;
            needs.push(need);
        }
        for a in &self.desc.color_attachments {
            let t = self.device.texture(&a.view.texture, OP)?;
            let clear = matches!(a.load, LoadOp::Clear(_));
            needs
                .push(Need::at(t, a.view.mip_level, a.view.layer, self.views, Use::Color).overwriting(clear));
            if let Some(r) = &a.resolve_target {
                let t = self.device.texture(&r.texture, OP)?;
                // The resolve writes every texel of the render area, which is the whole level.
                needs.push(Need::at(t, r.mip_level, r.layer, self.views, Use::Color).overwriting(true));
            }
        }
        if let Some(d) = &self.desc.depth_stencil_attachment {
            let t = self.device.texture(&d.view.texture, OP)?;
            let stencil = d.view.texture.descriptor().format.has_stencil();
            let clear = matches!(d.depth_load, LoadOp::Clear(_))
                && (!stencil || matches!(d.stencil_load, LoadOp::Clear(_)));
            let to = if self.depth_read_only { Use::DepthRead } else { Use::Depth };
            needs.push(Need::at(t, d.view.mip_level, d.view.layer, self.views, to).overwriting(clear));
        }
        let mut sampled: Vec<u64> = Vec::new();
        for b in &self.binds {
            if let Bound::Texture(handle) = b {
                let t = self.device.texture(handle, OP)?;
                if !sampled.contains(&t.id) && !self.is_read_only_depth(handle) {
                    sampled.push(t.id);
                    needs.push(Need::whole(t, Use::Sampled));
                }
            }
        }
        Ok(needs)
    }

    fn record(&self) -> Result<(), DeviceError> {
        let device = self.device;
        let shared = &*device.shared;
        let views = self.views()?;
        let needs = self.needs()?;
        let mut core = shared.core();
        let cmd = core.cmd(shared, OP)?;
        core.buffer_reads(shared, cmd);
        prepare(&mut core, shared, cmd, &needs)?;
        for (set, index) in &self.queries {
            let q = backend::query_set_payload::<VkQuerySet>(self.owner(), set, OP)?;
            // SAFETY: recording outside a render pass; the range lies inside the pool.
            unsafe { shared.device.cmd_reset_query_pool(cmd, q.pool, *index, self.views) };
        }
        let base = crate::ring::upload(&mut core, shared, &self.uniforms, OP)?;
        let colors: Vec<vk::RenderingAttachmentInfo<'_>> = self
            .desc
            .color_attachments
            .iter()
            .zip(&views.colors)
            .map(|(a, (view, resolve))| {
                let format = a.view.texture.descriptor().format;
                let clear = match a.load {
                    LoadOp::Clear(c) => conv::clear_color(format, c),
                    LoadOp::Load => vk::ClearColorValue::default(),
                };
                let info = vk::RenderingAttachmentInfo::default()
                    .image_view(*view)
                    .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                    .load_op(load(a.load))
                    .store_op(store(a.store))
                    .clear_value(vk::ClearValue { color: clear });
                match resolve {
                    Some(r) => info
                        .resolve_mode(conv::resolve_mode(format))
                        .resolve_image_view(*r)
                        .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
                    None => info,
                }
            })
            .collect();
        let layout = if self.depth_read_only {
            vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
        } else {
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        };
        let read_only_store =
            |s: StoreOp| if self.depth_read_only { vk::AttachmentStoreOp::NONE } else { store(s) };
        let depth = self.desc.depth_stencil_attachment.as_ref().zip(views.depth).map(|(d, view)| {
            let value = match d.depth_load {
                LoadOp::Clear(v) => v,
                LoadOp::Load => 0.0,
            };
            vk::RenderingAttachmentInfo::default()
                .image_view(view)
                .image_layout(layout)
                .load_op(load(d.depth_load))
                .store_op(read_only_store(d.depth_store))
                .clear_value(vk::ClearValue {
                    depth_stencil: vk::ClearDepthStencilValue { depth: value, stencil: 0 },
                })
        });
        let stencil = self
            .desc
            .depth_stencil_attachment
            .as_ref()
            .zip(views.depth)
            .filter(|(d, _)| d.view.texture.descriptor().format.has_stencil())
            .map(|(d, view)| {
                let value = match d.stencil_load {
                    LoadOp::Clear(v) => v,
                    LoadOp::Load => 0,
                };
                vk::RenderingAttachmentInfo::default()
                    .image_view(view)
                    .image_layout(layout)
                    .load_op(load(d.stencil_load))
                    .store_op(read_only_store(d.stencil_store))
                    .clear_value(vk::ClearValue {
                        depth_stencil: vk::ClearDepthStencilValue { depth: 0.0, stencil: value },
                    })
            });
        let (w, h) = self.size;
        let area =
            vk::Rect2D { offset: vk::Offset2D { x: 0, y: 0 }, extent: vk::Extent2D { width: w, height: h } };
        let mut rendering = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .view_mask(if self.views > 1 { (1u32 << self.views.min(31)) - 1 } else { 0 })
            .color_attachments(&colors);
        if let Some(d) = depth.as_ref() {
            rendering = rendering.depth_attachment(d);
        }
        if let Some(s) = stencil.as_ref() {
            rendering = rendering.stencil_attachment(s);
        }
        let dev = &shared.device;
        // SAFETY: recording outside a render pass; every attachment is in the layout named (the
        // barriers above), of the pass's size, with the usage its role needs.
        unsafe {
            dev.cmd_begin_rendering(cmd, &rendering);
            dev.cmd_set_viewport(
                cmd,
                0,
                &[vk::Viewport {
                    x: 0.0,
                    y: 0.0,
                    width: w as f32,
                    height: h as f32,
                    min_depth: 0.0,
                    max_depth: 1.0,
                }],
            );
            dev.cmd_set_scissor(cmd, 0, &[area]);
            dev.cmd_set_stencil_reference(cmd, vk::StencilFaceFlags::FRONT_AND_BACK, 0);
            dev.cmd_set_blend_constants(cmd, &[0.0; 4]);
        }
        let replayed = self.replay(&mut core, shared, cmd, base);
        // SAFETY: the render pass instance begun above is ended once, whatever the replay did.
        unsafe { dev.cmd_end_rendering(cmd) };
        replayed?;
        core.submit_labelled(shared, OP, &format!("pass `{}`", self.desc.label))?;
        Ok(())
    }

    fn replay(
        &self,
        core: &mut Core,
        shared: &Shared,
        cmd: vk::CommandBuffer,
        base: u64,
    ) -> Result<(), DeviceError> {
        let owner = self.owner();
        let dev = &shared.device;
        let mut state = ReplayState {
            pipeline: None,
            last: Vec::new(),
            bound: Vec::new(),
            entries: Vec::new(),
            offsets: Vec::new(),
        };
        for c in &self.commands {
            match c {
                Cmd::Pipeline(handle) => {
                    let p = backend::pipeline_payload::<VkPipeline>(owner, handle, OP)?;
                    // SAFETY: the replay rule (see `replay`).
                    unsafe { dev.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, p.pipeline) };
                    state.pipeline = Some((handle, p));
                    state.last.clear();
                    state.bound.clear();
                }
                Cmd::Viewport(v) => {
                    // SAFETY: the replay rule (see `replay`).
                    unsafe {
                        dev.cmd_set_viewport(
                            cmd,
                            0,
                            &[vk::Viewport {
                                x: v.x,
                                y: v.y,
                                width: v.width,
                                height: v.height,
                                min_depth: v.min_depth,
                                max_depth: v.max_depth,
                            }],
                        )
                    }
                }
                Cmd::Scissor(r) => {
                    // SAFETY: the replay rule (see `replay`).
                    unsafe {
                        dev.cmd_set_scissor(
                            cmd,
                            0,
                            &[vk::Rect2D {
                                offset: vk::Offset2D { x: r.x as i32, y: r.y as i32 },
                                extent: vk::Extent2D { width: r.width, height: r.height },
                            }],
                        )
                    }
                }
                Cmd::StencilReference(r) => {
                    // SAFETY: the replay rule (see `replay`).
                    unsafe { dev.cmd_set_stencil_reference(cmd, vk::StencilFaceFlags::FRONT_AND_BACK, *r) }
                }
                Cmd::BlendConstant(c) => {
                    // SAFETY: the replay rule (see `replay`).
                    unsafe {
                        dev.cmd_set_blend_constants(cmd, &[c.r as f32, c.g as f32, c.b as f32, c.a as f32])
                    }
                }
                Cmd::Vertex { slot, buffer, offset } => {
                    let g = backend::geometry_payload::<VkGeometry>(owner, buffer, OP)?;
                    // SAFETY: the replay rule (see `replay`).
                    unsafe { dev.cmd_bind_vertex_buffers(cmd, *slot, &[g.buffer], &[*offset]) };
                }
                Cmd::Index { buffer, format, offset } => {
                    let g = backend::geometry_payload::<VkGeometry>(owner, buffer, OP)?;
                    // SAFETY: the replay rule (see `replay`).
                    unsafe { dev.cmd_bind_index_buffer(cmd, g.buffer, *offset, conv::index_type(*format)) };
                }
                Cmd::Bind { start, len } => {
                    let bound = &self.binds[*start as usize..(*start + *len) as usize];
                    self.bind(core, shared, cmd, &mut state, bound, base)?;
                }
                Cmd::Draw { vertices, instances } => {
                    // SAFETY: the replay rule (see `replay`).
                    unsafe {
                        dev.cmd_draw(
                            cmd,
                            vertices.len() as u32,
                            instances.len() as u32,
                            vertices.start,
                            instances.start,
                        )
                    }
                }
                Cmd::DrawIndexed { indices, base_vertex, instances } => {
                    // SAFETY: the replay rule (see `replay`).
                    unsafe {
                        dev.cmd_draw_indexed(
                            cmd,
                            indices.len() as u32,
                            instances.len() as u32,
                            indices.start,
                            *base_vertex,
                            instances.start,
                        )
                    }
                }
                Cmd::DrawIndirect { buffer, offset, count } => {
                    let g = backend::geometry_payload::<VkGeometry>(owner, buffer, OP)?;
                    // SAFETY: the replay rule (see `replay`).
                    unsafe { dev.cmd_draw_indirect(cmd, g.buffer, *offset, *count, 16) };
                }
                Cmd::Timestamp { set, index } => {
                    let q = backend::query_set_payload::<VkQuerySet>(owner, set, OP)?;
                    // SAFETY: the replay rule (see `replay`).
                    unsafe {
                        dev.cmd_write_timestamp2(cmd, vk::PipelineStageFlags2::ALL_COMMANDS, q.pool, *index)
                    };
                }
                Cmd::BeginOcclusion(index) | Cmd::EndOcclusion(index) => {
                    let Some(set) = &self.occlusion else { continue };
                    let q = backend::query_set_payload::<VkQuerySet>(owner, set, OP)?;
                    match c {
                        Cmd::BeginOcclusion(_) => {
                            // SAFETY: the replay rule (see `replay`).
                            unsafe {
                                dev.cmd_begin_query(cmd, q.pool, *index, vk::QueryControlFlags::PRECISE)
                            }
                        }
                        _ => {
                            // SAFETY: the replay rule (see `replay`).
                            unsafe { dev.cmd_end_query(cmd, q.pool, *index) }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Binds the descriptor sets of the current pipeline for `bound`.
    fn bind<'p>(
        &'p self,
        core: &mut Core,
        shared: &Shared,
        cmd: vk::CommandBuffer,
        state: &mut ReplayState<'p>,
        bound: &'p [Bound],
        base: u64,
    ) -> Result<(), DeviceError> {
        let owner = self.owner();
        let Some((handle, p)) = state.pipeline else { return Ok(()) };
        let layout = handle.bindings();
        for group in &p.groups {
            state.entries.clear();
            state.offsets.clear();
            for slot in &group.slots {
                let entry = match bound.get(slot.0 as usize) {
                    Some(Bound::Uniform(offset)) => {
                        let size = match layout.get(*slot).map(|b| b.kind) {
                            Some(BindingKind::UniformBlock { size }) => size,
                            _ => {
                                return Err(refused(OP, "a uniform was bound to a slot that is not a block"));
                            }
                        };
                        state.offsets.push((base + u64::from(*offset)) as u32);
                        SetEntry::Uniform { size }
                    }
                    Some(Bound::Texture(t)) => {
                        let tex = backend::texture_payload::<VkTexture>(owner, t, OP)?;
                        let image_layout = if self.is_read_only_depth(t) {
                            vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL
                        } else {
                            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                        };
                        let view = tex
                            .sampled_view
                            .ok_or_else(|| refused(OP, "a texture without a sampled view was bound"))?;
                        SetEntry::Texture { id: tex.id, view, layout: image_layout }
                    }
                    Some(Bound::Sampler(s)) => {
                        let sampler = backend::sampler_payload::<VkSampler>(owner, s, OP)?;
                        SetEntry::Sampler { id: sampler.id, sampler: sampler.sampler }
                    }
                    Some(Bound::Storage(b)) => {
                        let g = backend::geometry_payload::<VkGeometry>(owner, b, OP)?;
                        SetEntry::Storage { id: g.id, buffer: g.buffer, range: b.descriptor().size }
                    }
                    // Recording refuses draws with an unbound slot, so this is not reached.
                    Some(Bound::Empty) | None => return Err(refused(OP, "a binding was not bound")),
                };
                state.entries.push(entry);
            }
            let key: Vec<u64> = state.entries.iter().map(SetEntry::key).collect();
            let index = group.index as usize;
            if state.last.len() <= index {
                state.last.resize(index + 1, (Vec::new(), vk::DescriptorSet::null()));
            }
            let set = if state.last[index].0 == key && state.last[index].1 != vk::DescriptorSet::null() {
                state.last[index].1
            } else {
                let set = descriptor_set(core, shared, p, group, &state.entries, OP)?;
                state.last[index] = (key, set);
                set
            };
            if state.bound.len() <= index {
                state.bound.resize(index + 1, (vk::DescriptorSet::null(), Vec::new()));
            }
            let (bound_set, bound_offsets) = &mut state.bound[index];
            if *bound_set == set && *bound_offsets == state.offsets {
                continue;
            }
            *bound_set = set;
            bound_offsets.clone_from(&state.offsets);
            // SAFETY: recording inside the pass; the set matches the group's layout and the
            // offsets (one per dynamic uniform, in binding order) lie inside the ring.
            unsafe {
                shared.device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::GRAPHICS,
                    p.layout,
                    group.index,
                    &[set],
                    &state.offsets,
                )
            };
        }
        Ok(())
    }
}

impl VkPass<'_> {
    /// Replays the pass into the open command buffer and submits it.
    pub(crate) fn submit(self) -> Result<(), DeviceError> {
        let device = self.device;
        device.alive(OP)?;
        // The pass (and every handle it holds) drops after the core lock is released.
        device.checked(OP, || self.record())
    }
}
