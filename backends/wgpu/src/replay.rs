//! Replaying a recorded pass into a wgpu render pass, at submit.
//!
//! ```text
//!  submit ──► attachment views (cached per texture, level and layer)
//!         ──► reserve one range of the uniform ring, write the pass's uniform bytes once
//!         ──► begin the wgpu pass, replay the commands (bind groups from the pipeline's
//!             cache, dynamic offsets = ring base + block offset), queue.submit
//! ```
//!
//! Everything wgpu could refuse was refused while recording; the replay still runs inside an
//! error scope, so anything left comes back as an error of `submit`, never a panic.

use f3d_hal::backend;
use f3d_hal::{BindingLayout, DeviceError, GraphicsDevice, PipelineHandle};

use crate::conv;
use crate::device::WgpuDevice;
use crate::pass::{Bound, Cmd, WgpuPass, refused};
use crate::pipeline::{Compiled, Resource, WgpuPipeline, WgpuQuerySet};
use crate::ring::UniformRing;
use crate::texture::{WgpuGeometry, WgpuSampler, WgpuTexture};

impl WgpuPass<'_> {
    fn owner(&self) -> &f3d_hal::DeviceOwner {
        self.device.owner()
    }

    /// Views of the attachments, for the wgpu pass descriptor.
    fn attachment_views(&self) -> Result<AttachmentViews, DeviceError> {
        const OP: &str = "submit";
        let view = |v: &f3d_hal::AttachmentView| -> Result<wgpu::TextureView, DeviceError> {
            let t: &WgpuTexture = self.device.texture(&v.texture, OP)?;
            Ok(t.attachment_view(v.mip_level, v.layer, self.views))
        };
        let mut colors = Vec::new();
        for a in &self.colors {
            colors.push((view(&a.view)?, a.resolve_target.as_ref().map(view).transpose()?));
        }
        let depth = self.depth.as_ref().map(|d| view(&d.view)).transpose()?;
        let occlusion = match &self.occlusion {
            Some(set) => Some(backend::query_set_payload::<WgpuQuerySet>(self.owner(), set, OP)?.set.clone()),
            None => None,
        };
        Ok(AttachmentViews { colors, depth, occlusion })
    }

    /// Replays the recorded commands into `rp`; uniform bytes sit at `base` in `ring`.
    fn replay(
        &self,
        rp: &mut wgpu::RenderPass<'_>,
        ring: &UniformRing,
        base: u64,
    ) -> Result<(), DeviceError> {
        const OP: &str = "submit";
        let owner = self.owner();
        let mut current: Option<(&PipelineHandle, &WgpuPipeline)> = None;
        let mut bound_groups = BoundGroups::default();
        for cmd in &self.commands {
            match cmd {
                Cmd::Pipeline(handle) => {
                    let p = backend::pipeline_payload::<WgpuPipeline>(owner, handle, OP)?;
                    if let Compiled::Render(rpipe) = &p.compiled {
                        rp.set_pipeline(rpipe);
                    }
                    current = Some((handle, p));
                    bound_groups.0.clear();
                }
                Cmd::Viewport(v) => rp.set_viewport(v.x, v.y, v.width, v.height, v.min_depth, v.max_depth),
                Cmd::Scissor(r) => rp.set_scissor_rect(r.x, r.y, r.width, r.height),
                Cmd::StencilReference(r) => rp.set_stencil_reference(*r),
                Cmd::BlendConstant(c) => rp.set_blend_constant(conv::color(*c)),
                Cmd::Vertex { slot, buffer, offset } => {
                    let g = backend::geometry_payload::<WgpuGeometry>(owner, buffer, OP)?;
                    rp.set_vertex_buffer(*slot, g.buffer.slice(*offset..buffer.descriptor().size));
                }
                Cmd::Index { buffer, format, offset } => {
                    let g = backend::geometry_payload::<WgpuGeometry>(owner, buffer, OP)?;
                    rp.set_index_buffer(
                        g.buffer.slice(*offset..buffer.descriptor().size),
                        conv::index_format(*format),
                    );
                }
                Cmd::Bind(bound) => {
                    let Some((handle, p)) = current else { continue };
                    bind(self.device, rp, handle.bindings(), p, bound, ring, base, &mut bound_groups)?;
                }
                Cmd::Draw { vertices, instances } => rp.draw(vertices.clone(), instances.clone()),
                Cmd::DrawIndexed { indices, base_vertex, instances } => {
                    rp.draw_indexed(indices.clone(), *base_vertex, instances.clone())
                }
                Cmd::DrawIndirect { buffer, offset, count } => {
                    let g = backend::geometry_payload::<WgpuGeometry>(owner, buffer, OP)?;
                    match count {
                        None => rp.draw_indirect(&g.buffer, *offset),
                        Some(n) => rp.multi_draw_indirect(&g.buffer, *offset, *n),
                    }
                }
                Cmd::Timestamp { set, index } => {
                    let q = backend::query_set_payload::<WgpuQuerySet>(owner, set, OP)?;
                    rp.write_timestamp(&q.set, *index);
                }
                Cmd::BeginOcclusion(index) => rp.begin_occlusion_query(*index),
                Cmd::EndOcclusion => rp.end_occlusion_query(),
            }
        }
        Ok(())
    }
}

struct AttachmentViews {
    colors: Vec<(wgpu::TextureView, Option<wgpu::TextureView>)>,
    depth: Option<wgpu::TextureView>,
    occlusion: Option<wgpu::QuerySet>,
}

/// Per group index, what was bound last: the resources' ids and the dynamic offsets. A bind that
/// would set the same group again is skipped: some drivers pay for every bind in a pass (Mesa
/// 22.3's lavapipe keeps about 4 MB per bind until the pass executes; see BENCHMARKS.md).
#[derive(Default)]
struct BoundGroups(Vec<Option<(Vec<u64>, Vec<u32>)>>);

/// Sets the bind groups of `pipeline` for the bindings in `bound` (those that changed).
#[allow(clippy::too_many_arguments)]
fn bind(
    device: &WgpuDevice,
    rp: &mut wgpu::RenderPass<'_>,
    layout: &BindingLayout,
    pipeline: &WgpuPipeline,
    bound: &[Bound],
    ring: &UniformRing,
    base: u64,
    last: &mut BoundGroups,
) -> Result<(), DeviceError> {
    const OP: &str = "submit";
    let owner = device.owner();
    for group in &pipeline.groups {
        let mut resources = Vec::with_capacity(group.slots.len());
        let mut offsets = Vec::new();
        for slot in &group.slots {
            match bound.get(slot.0 as usize) {
                Some(Bound::Uniform(offset)) => {
                    resources.push(Resource::Uniform);
                    offsets.push((base + u64::from(*offset)) as u32);
                }
                Some(Bound::Texture(t)) => {
                    resources.push(Resource::Texture(backend::texture_payload::<WgpuTexture>(owner, t, OP)?))
                }
                Some(Bound::Sampler(s)) => {
                    resources.push(Resource::Sampler(backend::sampler_payload::<WgpuSampler>(owner, s, OP)?))
                }
                Some(Bound::Storage(b)) => resources
                    .push(Resource::Storage(backend::geometry_payload::<WgpuGeometry>(owner, b, OP)?)),
                // Recording refuses draws with an unbound slot, so this is not reached.
                Some(Bound::Empty) | None => return Err(refused(OP, "a binding was not bound")),
            }
        }
        let index = group.index as usize;
        if last.0.len() <= index {
            last.0.resize(index + 1, None);
        }
        let ids: Vec<u64> = resources.iter().map(Resource::id).collect();
        if last.0[index].as_ref().is_some_and(|(i, o)| *i == ids && *o == offsets) {
            continue;
        }
        let bg = pipeline.bind_group(&device.device, layout, group, ring, &resources);
        rp.set_bind_group(group.index, &bg, &offsets);
        last.0[index] = Some((ids, offsets));
    }
    Ok(())
}

impl WgpuPass<'_> {
    /// Replays the pass into a wgpu render pass and submits it.
    pub(crate) fn submit(self) -> Result<(), DeviceError> {
        const OP: &str = "submit";
        let device = self.device;
        device.alive(OP)?;
        let views = self.attachment_views()?;
        let colors: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = self
            .colors
            .iter()
            .zip(&views.colors)
            .map(|(a, (view, resolve))| {
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: resolve.as_ref(),
                    ops: wgpu::Operations {
                        load: conv::load(a.load, |c| {
                            conv::clear_color(a.view.texture.descriptor().format, c)
                        }),
                        store: conv::store(a.store),
                    },
                })
            })
            .collect();
        let depth = self.depth.as_ref().zip(views.depth.as_ref()).map(|(d, view)| {
            let format = d.view.texture.descriptor().format;
            wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations {
                    load: conv::load(d.depth_load, |v| v),
                    store: conv::store(d.depth_store),
                }),
                stencil_ops: format.has_stencil().then(|| wgpu::Operations {
                    load: conv::load(d.stencil_load, |v| v),
                    store: conv::store(d.stencil_store),
                }),
            }
        });
        let mut ring = device.ring.lock().unwrap_or_else(|e| e.into_inner());
        let base = ring
            .reserve(&device.device, self.uniforms.len() as u64, device.grant.limits.max_buffer_size)
            .ok_or(DeviceError::OutOfMemory { operation: OP, bytes: self.uniforms.len() as u64 })?;
        let ring = &*ring;
        device.scoped(OP, 0, || {
            if !self.uniforms.is_empty() {
                device.queue.write_buffer(ring.buffer(), base, &self.uniforms);
            }
            let mut encoder = device
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(&self.label) });
            {
                let mut rp = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some(&self.label),
                    color_attachments: &colors,
                    depth_stencil_attachment: depth,
                    timestamp_writes: None,
                    occlusion_query_set: views.occlusion.as_ref(),
                    multiview_mask: self
                        .multiview
                        .and_then(|n| std::num::NonZeroU32::new((1u32 << n.get().min(31)) - 1)),
                });
                self.replay(&mut rp, ring, base)?;
            }
            device.queue.submit([encoder.finish()]);
            Ok(())
        })?
    }
}
