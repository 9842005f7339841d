//! The soft device's side of a pass: the HAL's [`Recorder`](f3d_hal::record::Recorder) checks
//! every call; at submit the soft device lowers the recorded commands into draws that each
//! carry the state they were recorded with, and runs the whole pass
//! ([`execute_pass`](crate::draw::execute_pass)), so a pass's effects appear in submission
//! order.

use std::ops::Range;

pub(crate) use f3d_hal::record::Bound;
use f3d_hal::record::{PassCommand, PassSink, RecordedPass};
use f3d_hal::{
    DeviceError, GeometryBuffer, GraphicsDevice, IndexFormat, PipelineHandle, QuerySetHandle,
    RenderPassDescriptor, ScissorRect, Viewport,
};

use crate::device::SoftDevice;

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

/// Everything a draw needs: the state it was recorded with.
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

/// A lowered command.
#[derive(Clone, Debug)]
pub(crate) enum Recorded {
    Draw(Box<RecordedDraw>),
    Timestamp(QuerySetHandle, u32),
    /// Resets an occlusion query to zero when it begins.
    BeginOcclusion(QuerySetHandle, u32),
}

/// A pass ready to run on the soft device.
pub(crate) struct SoftPass<'a> {
    pub(crate) device: &'a SoftDevice,
    pub(crate) desc: RenderPassDescriptor,
    pub(crate) size: (u32, u32),
    pub(crate) commands: Vec<Recorded>,
    pub(crate) arena: Vec<u8>,
}

impl PassSink for SoftDevice {
    fn device(&self) -> &dyn GraphicsDevice {
        self
    }

    /// The soft device reads uniform blocks as bytes: no alignment.
    fn uniform_alignment(&self) -> usize {
        1
    }

    fn submit(&self, pass: RecordedPass) -> Result<(), DeviceError> {
        crate::draw::execute_pass(lower(self, pass))
    }
}

/// Replays the recorded state changes, giving each draw the state in force when it was
/// recorded.
fn lower(device: &SoftDevice, pass: RecordedPass) -> SoftPass<'_> {
    let (width, height) = pass.size;
    let mut commands = Vec::with_capacity(pass.draws);
    let mut pipeline: Option<PipelineHandle> = None;
    let mut viewport = Viewport::full(width, height);
    let mut scissor = None;
    let mut stencil_reference = 0;
    let mut blend_constant = [0.0; 4];
    let mut vertex_buffers: Vec<Option<(GeometryBuffer, u64)>> = Vec::new();
    let mut index_buffer = None;
    let mut bindings: Vec<Option<Bound>> = Vec::new();
    let mut occlusion = None;
    for command in pass.commands {
        let kind = match command {
            PassCommand::SetPipeline(p) => {
                bindings = vec![None; p.bindings().entries().len()];
                pipeline = Some(p);
                continue;
            }
            PassCommand::SetViewport(v) => {
                viewport = v;
                continue;
            }
            PassCommand::SetScissor(r) => {
                scissor = r;
                continue;
            }
            PassCommand::SetStencilReference(r) => {
                stencil_reference = r;
                continue;
            }
            PassCommand::SetBlendConstant(c) => {
                blend_constant = [c.r as f32, c.g as f32, c.b as f32, c.a as f32];
                continue;
            }
            PassCommand::SetVertexBuffer { slot, buffer, offset } => {
                let slot = slot as usize;
                if vertex_buffers.len() <= slot {
                    vertex_buffers.resize(slot + 1, None);
                }
                vertex_buffers[slot] = Some((buffer, offset));
                continue;
            }
            PassCommand::SetIndexBuffer { buffer, format, offset } => {
                index_buffer = Some((buffer, format, offset));
                continue;
            }
            PassCommand::Bind { slot, bound } => {
                if let Some(b) = bindings.get_mut(slot.0 as usize) {
                    *b = Some(bound);
                }
                continue;
            }
            PassCommand::WriteTimestamp { set, index } => {
                commands.push(Recorded::Timestamp(set, index));
                continue;
            }
            PassCommand::BeginOcclusion { set, index } => {
                commands.push(Recorded::BeginOcclusion(set.clone(), index));
                occlusion = Some((set, index));
                continue;
            }
            PassCommand::EndOcclusion => {
                occlusion = None;
                continue;
            }
            PassCommand::Draw { vertices, instances } => DrawKind::Direct { vertices, instances },
            PassCommand::DrawIndexed { indices, base_vertex, instances } => {
                DrawKind::Indexed { indices, base_vertex, instances }
            }
            PassCommand::DrawIndirect { buffer, offset, count, .. } => {
                DrawKind::Indirect { buffer, offset, count }
            }
        };
        // The recorder refuses draws without a pipeline.
        let Some(pipeline) = pipeline.clone() else { continue };
        commands.push(Recorded::Draw(Box::new(RecordedDraw {
            pipeline,
            kind,
            viewport,
            scissor,
            stencil_reference,
            blend_constant,
            vertex_buffers: vertex_buffers.clone(),
            index_buffer: index_buffer.clone(),
            bindings: bindings.clone(),
            occlusion: occlusion.clone(),
        })));
    }
    SoftPass { device, desc: pass.desc, size: pass.size, commands, arena: pass.uniforms }
}
