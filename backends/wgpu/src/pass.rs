//! Render passes on wgpu: the HAL's [`Recorder`](f3d_hal::record::Recorder) checks every call;
//! at submit the recorded pass is lowered into wgpu's terms here (bindings gathered into one
//! bind per change, uniform offsets into the ring, draws of refused pipelines already dropped)
//! and replayed into a wgpu render pass (`replay.rs`).
//!
//! ```text
//!  begin_render_pass ──► check_begin (what only this adapter refuses) ──► Recorder
//!  submit ──► lower: RecordedPass ──► WgpuPass { commands, uniform bytes }
//!         ──► reserve a ring range, write the uniform bytes once,
//!             begin a wgpu render pass, replay `commands`, queue.submit
//! ```
//!
//! A pass's effects start when it is submitted, as the HAL wants: a pass begun but not
//! submitted changes nothing.

use std::ops::Range;

use f3d_hal::backend;
use f3d_hal::record::{PassCommand, PassSink, RecordedPass};
use f3d_hal::{
    Color, ColorAttachment, DepthStencilAttachment, DeviceError, GeometryBuffer, GraphicsDevice, IndexFormat,
    PipelineHandle, QuerySetHandle, RenderPassDescriptor, SamplerHandle, ScissorRect, TextureHandle,
    Viewport,
};

use crate::device::WgpuDevice;
use crate::pipeline::{Compiled, WgpuPipeline};
use crate::texture::{WgpuTexture, bindable};

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

/// A pass lowered for wgpu, ready to replay.
pub(crate) struct WgpuPass<'a> {
    pub(crate) device: &'a WgpuDevice,
    pub(crate) label: String,
    pub(crate) colors: Vec<ColorAttachment>,
    pub(crate) depth: Option<DepthStencilAttachment>,
    pub(crate) views: u32,
    /// The pass's multiview count, if it renders to several layers at once.
    pub(crate) multiview: Option<std::num::NonZeroU32>,
    pub(crate) commands: Vec<Cmd>,
    pub(crate) uniforms: Vec<u8>,
    pub(crate) occlusion: Option<QuerySetHandle>,
}

pub(crate) fn refused(operation: &'static str, reason: impl Into<String>) -> DeviceError {
    DeviceError::Refused { operation, reason: reason.into() }
}

fn out_of_bounds(operation: &'static str, what: impl Into<String>) -> DeviceError {
    DeviceError::OutOfBounds { operation, what: what.into() }
}

/// What this adapter refuses at `begin_render_pass` beyond the HAL's rules: attachments it
/// cannot render into, views past the layers, mixed sample counts, resolves across formats.
pub(crate) fn check_begin(device: &WgpuDevice, desc: &RenderPassDescriptor) -> Result<(), DeviceError> {
    const OP: &str = "begin_render_pass";
    let views = desc.multiview.map_or(1, |n| n.get());
    let invalid =
        |reason: String| DeviceError::InvalidDescriptor { operation: OP, label: desc.label.clone(), reason };
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
            return Err(out_of_bounds(OP, format!("{views} views from layer {} of {}", view.layer, t.label)));
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
    Ok(())
}

impl PassSink for WgpuDevice {
    fn device(&self) -> &dyn GraphicsDevice {
        self
    }

    fn uniform_alignment(&self) -> usize {
        self.ring.lock().unwrap_or_else(|e| e.into_inner()).align() as usize
    }

    /// A pipeline wgpu refused at creation draws nothing; its refusal is reported once.
    fn pipeline_draws(&self, pipeline: &PipelineHandle) -> bool {
        match backend::pipeline_payload::<WgpuPipeline>(self.owner(), pipeline, "draw") {
            Ok(p) if matches!(p.compiled, Compiled::Refused(_)) => {
                self.refuse_once(pipeline, p);
                false
            }
            _ => true,
        }
    }

    fn can_sample(&self, texture: &TextureHandle) -> bool {
        backend::texture_payload::<WgpuTexture>(self.owner(), texture, "bind_texture")
            .is_ok_and(|t| t.sampled_view.is_some())
            && bindable(texture.descriptor().format, self.features())
    }

    fn submit(&self, pass: RecordedPass) -> Result<(), DeviceError> {
        lower(self, pass).submit()
    }
}

/// Lowers a recorded pass: pipelines wgpu compiled are set, bindings are gathered and bound
/// once before the draw that follows a change, uniform ranges become ring offsets.
fn lower(device: &WgpuDevice, pass: RecordedPass) -> WgpuPass<'_> {
    let (width, height) = pass.size;
    let mut commands = Vec::with_capacity(pass.commands.len());
    let mut bound: Vec<Bound> = Vec::new();
    let mut dirty = false;
    let mut occlusion = None;
    for command in pass.commands {
        let draw = match command {
            PassCommand::SetPipeline(p) => {
                bound = vec![Bound::Empty; p.bindings().entries().len()];
                dirty = true;
                let compiled = backend::pipeline_payload::<WgpuPipeline>(device.owner(), &p, "submit")
                    .is_ok_and(|w| matches!(w.compiled, Compiled::Render(_)));
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
            PassCommand::Draw { vertices, instances } => Cmd::Draw { vertices, instances },
            PassCommand::DrawIndexed { indices, base_vertex, instances } => {
                Cmd::DrawIndexed { indices, base_vertex, instances }
            }
            PassCommand::DrawIndirect { buffer, offset, count, multi } => {
                Cmd::DrawIndirect { buffer, offset, count: multi.then_some(count) }
            }
            PassCommand::WriteTimestamp { set, index } => Cmd::Timestamp { set, index },
            PassCommand::BeginOcclusion { set, index } => {
                occlusion = Some(set);
                Cmd::BeginOcclusion(index)
            }
            PassCommand::EndOcclusion => Cmd::EndOcclusion,
        };
        if matches!(draw, Cmd::Draw { .. } | Cmd::DrawIndexed { .. } | Cmd::DrawIndirect { .. }) && dirty {
            commands.push(Cmd::Bind(bound.clone()));
            dirty = false;
        }
        commands.push(draw);
    }
    let desc = pass.desc;
    WgpuPass {
        device,
        label: desc.label,
        views: desc.multiview.map_or(1, |n| n.get()),
        multiview: desc.multiview,
        colors: desc.color_attachments,
        depth: desc.depth_stencil_attachment,
        commands,
        uniforms: pass.uniforms,
        occlusion,
    }
}
