//! Frame capture and replay: record a device's calls on one backend, replay them on another.
//!
//! [`TracingDevice`] wraps any device and logs every call that changes what the device holds
//! or draws — resource creation and uploads, passes with every command, copies, dispatches
//! and readbacks (with the pixels the recording device read back) — into a [`Trace`].
//! [`Trace::to_bytes`] writes it in the `.f3dtrace` format below; [`Trace::from_bytes`]
//! reads it back, and [`Trace::replay`] re-issues every call on another device and hands
//! back each readback next to the one recorded. A capture made on a GPU replays on the soft
//! rasteriser, so a user's GPU bug report can be looked at on any machine (`f3d trace
//! record` / `f3d trace replay`).
//!
//! ## What is and is not captured
//!
//! * Shaders travel as WGSL: the validated naga module is written back out with naga's WGSL
//!   writer and parsed and validated again on replay, whatever language it came from.
//! * Bindings are recorded by slot; a pipeline's slots are ordered by group and binding, which
//!   the WGSL round trip keeps.
//! * Resources are never destroyed on replay: a trace holds one session of a few frames.
//! * A tracing device reports [`DeviceLimits::GUARANTEED`](crate::DeviceLimits::GUARANTEED),
//!   what every f3d device offers, so what an app sizes by the limits (uniform arrays,
//!   texture sizes) fits whichever device replays it. Features are the recording device's
//!   (less presenting): a trace that used multisampling replays only where it is supported,
//!   and the replay says which call was refused and why.
//! * Presenting is not captured: a tracing device does not report
//!   [`PRESENT`](crate::DeviceFeature::PRESENT), so apps render headless while tracing.
//! * Query results (timestamps, occlusion counts) are not recorded: they are timings and
//!   counts of one machine, not pictures.
//! * A call that refers to something the trace never saw made (a handle from before the
//!   device was wrapped) cannot be replayed: [`TraceLog::finish`] reports it as
//!   [`TraceError::Incomplete`] instead of writing a trace that would replay differently.
//!
//! ## The `.f3dtrace` format, version 1
//!
//! Little-endian throughout. Lists are a `u32` count then the items; byte strings and
//! UTF-8 strings are a `u64` length then the bytes; an option is a `u8` 0 (none) or 1 then the
//! value; field-less enums are one `u8`, the variant's position as declared in `f3d_hal`;
//! texture formats are their name as a string; flag sets are their bits.
//!
//! ```text
//! header  "F3DTRACE" (8 bytes) · version u32 (1) · backend string · adapter string
//!         · record count u32
//! record  tag u8 · payload length u32 · payload (the call's fields, in declaration order
//!         of the TraceCall variant; ids are u32)
//! ```
//!
//! Tags: 1 module (id, WGSL), 2 create_texture, 3 write_texture, 4 create_geometry,
//! 5 write_geometry, 6 create_sampler, 7 create_shader, 8 create_pipeline,
//! 9 create_compute_pipeline, 10 create_query_set, 11 begin_frame, 12 pass, 13 copy_texture,
//! 14 dispatch, 15 readback. A pass is its descriptor then its commands, each a `u8` tag
//! (1 set_pipeline … 17 end_occlusion_query, in [`TraceCommand`] order) and its fields.
//!
//! A reader checks the magic, the version, every length against the bytes left (so a count
//! or length past the end is refused before anything is allocated for it), every tag and
//! enum value, and that each record's payload is read exactly; the first problem is a
//! [`TraceError::Format`] naming the byte offset. Nothing in a file can make the reader
//! panic; what a replay device refuses comes back as [`TraceError::Replay`] naming the record.

mod capture;
mod replay;
mod wire;

use std::ops::Range;

pub use capture::{TraceLog, TracingDevice};
pub use replay::Replayed;

use crate::{
    Color, ColorTargetState, DepthStencilState, DeviceError, GeometryDescriptor, IndexFormat, LoadOp,
    PrimitiveState, QueryKind, ReadbackImage, ResourceState, SamplerDescriptor, ScissorRect, ShaderStage,
    StoreOp, TextureDescriptor, TextureRegion, VertexBufferLayout, Viewport,
};
use wire::{Reader, Wire, Writer};

/// The format version this build writes and reads.
pub const TRACE_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"F3DTRACE";

/// A resource's number in a trace: assigned in creation order, shared by every kind.
pub type TraceId = u32;

/// What went wrong reading, finishing or replaying a trace.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The bytes are not a valid trace.
    #[error("offset {offset}: {what}")]
    Format {
        /// The byte offset of the first thing wrong.
        offset: u64,
        /// What was wrong there.
        what: String,
    },
    /// A trace of a format version this build does not read.
    #[error("trace format version {found}; this build reads version {TRACE_VERSION}")]
    Version {
        /// The file's version.
        found: u32,
    },
    /// The capture saw calls it could not record (listed).
    #[error("the capture is incomplete: {}", .0.join("; "))]
    Incomplete(Vec<String>),
    /// The replay device refused a call.
    #[error("record {record} ({call}): {error}")]
    Replay {
        /// The record's index.
        record: usize,
        /// The call.
        call: &'static str,
        /// The device's answer.
        error: DeviceError,
    },
    /// A record the replay cannot carry out (an id of the wrong kind, a shader that does
    /// not parse back).
    #[error("record {record} ({call}): {what}")]
    Invalid {
        /// The record's index.
        record: usize,
        /// The call.
        call: &'static str,
        /// What was wrong.
        what: String,
    },
}

/// An attachment view: the texture, mip level and layer.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceView {
    /// The texture.
    pub texture: TraceId,
    /// The mip level.
    pub mip_level: u32,
    /// The array layer.
    pub layer: u32,
}

/// A colour attachment of a recorded pass.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceColorAttachment {
    /// Where colour goes.
    pub view: TraceView,
    /// Where it resolves to.
    pub resolve_target: Option<TraceView>,
    /// How it starts.
    pub load: LoadOp<Color>,
    /// How it ends.
    pub store: StoreOp,
}

/// The depth-stencil attachment of a recorded pass.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceDepthAttachment {
    /// The depth texture.
    pub view: TraceView,
    /// How depth starts.
    pub depth_load: LoadOp<f32>,
    /// How depth ends.
    pub depth_store: StoreOp,
    /// How stencil starts.
    pub stencil_load: LoadOp<u32>,
    /// How stencil ends.
    pub stencil_store: StoreOp,
}

/// A state change before a pass.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceTransition {
    /// The texture.
    pub texture: TraceId,
    /// Its state before.
    pub before: ResourceState,
    /// The state the pass needs.
    pub after: ResourceState,
}

/// A render pipeline's description, shaders by id.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePipeline {
    /// The label.
    pub label: String,
    /// The vertex shader.
    pub vertex: TraceId,
    /// The fragment shader.
    pub fragment: Option<TraceId>,
    /// Vertex buffer layouts.
    pub vertex_buffers: Vec<VertexBufferLayout>,
    /// Primitive state.
    pub primitive: PrimitiveState,
    /// Depth and stencil.
    pub depth_stencil: Option<DepthStencilState>,
    /// Colour targets.
    pub color_targets: Vec<ColorTargetState>,
    /// Samples per pixel.
    pub sample_count: u32,
    /// Views at once.
    pub multiview: Option<u32>,
}

/// One submitted render pass.
#[derive(Clone, Debug, PartialEq)]
pub struct TracePass {
    /// The label.
    pub label: String,
    /// Colour attachments.
    pub color_attachments: Vec<TraceColorAttachment>,
    /// The depth-stencil attachment.
    pub depth_stencil_attachment: Option<TraceDepthAttachment>,
    /// Views at once.
    pub multiview: Option<u32>,
    /// Transitions before the pass.
    pub transitions: Vec<TraceTransition>,
    /// The commands the pass accepted, in order.
    pub commands: Vec<TraceCommand>,
}

/// One accepted call of a pass (refused calls are not recorded: they changed nothing).
#[derive(Clone, Debug, PartialEq)]
pub enum TraceCommand {
    /// `set_pipeline`.
    SetPipeline(TraceId),
    /// `set_viewport`.
    SetViewport(Viewport),
    /// `set_scissor`.
    SetScissor(Option<ScissorRect>),
    /// `set_stencil_reference`.
    SetStencilReference(u32),
    /// `set_blend_constant`.
    SetBlendConstant(Color),
    /// `set_vertex_buffer`.
    SetVertexBuffer {
        /// The slot.
        slot: u32,
        /// The buffer.
        buffer: TraceId,
        /// The offset.
        offset: u64,
    },
    /// `set_index_buffer`.
    SetIndexBuffer {
        /// The buffer.
        buffer: TraceId,
        /// The index size.
        format: IndexFormat,
        /// The offset.
        offset: u64,
    },
    /// `bind_uniform_block_at`.
    BindUniform {
        /// The slot.
        slot: u32,
        /// The block's bytes.
        bytes: Vec<u8>,
    },
    /// `bind_texture_at`.
    BindTexture {
        /// The slot.
        slot: u32,
        /// The texture.
        texture: TraceId,
    },
    /// `bind_storage_buffer_at`.
    BindStorage {
        /// The slot.
        slot: u32,
        /// The buffer.
        buffer: TraceId,
    },
    /// `bind_sampler_at`.
    BindSampler {
        /// The slot.
        slot: u32,
        /// The sampler.
        sampler: TraceId,
    },
    /// `draw`.
    Draw {
        /// Vertices.
        vertices: Range<u32>,
        /// Instances.
        instances: Range<u32>,
    },
    /// `draw_indexed`.
    DrawIndexed {
        /// Indices.
        indices: Range<u32>,
        /// Added to each index.
        base_vertex: i32,
        /// Instances.
        instances: Range<u32>,
    },
    /// `draw_indirect`.
    DrawIndirect {
        /// The argument buffer.
        buffer: TraceId,
        /// The offset.
        offset: u64,
    },
    /// `multi_draw_indirect`.
    MultiDrawIndirect {
        /// The argument buffer.
        buffer: TraceId,
        /// The offset.
        offset: u64,
        /// How many draws.
        count: u32,
    },
    /// `write_timestamp`.
    WriteTimestamp {
        /// The query set.
        set: TraceId,
        /// The query.
        index: u32,
    },
    /// `begin_occlusion_query`.
    BeginOcclusion {
        /// The query set.
        set: TraceId,
        /// The query.
        index: u32,
    },
    /// `end_occlusion_query`.
    EndOcclusion,
}

/// One recorded device call.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceCall {
    /// A shader module, as WGSL (shaders refer to it by id).
    Module {
        /// Its id.
        id: TraceId,
        /// The module written out as WGSL.
        wgsl: String,
    },
    /// `create_texture`.
    CreateTexture {
        /// The new texture's id.
        id: TraceId,
        /// Its descriptor.
        desc: TextureDescriptor,
    },
    /// `write_texture`.
    WriteTexture {
        /// The texture.
        texture: TraceId,
        /// The region.
        region: TextureRegion,
        /// The bytes.
        data: Vec<u8>,
    },
    /// `create_geometry`.
    CreateGeometry {
        /// The new buffer's id.
        id: TraceId,
        /// Its descriptor.
        desc: GeometryDescriptor,
        /// Its first contents.
        data: Option<Vec<u8>>,
    },
    /// `write_geometry`.
    WriteGeometry {
        /// The buffer.
        buffer: TraceId,
        /// The offset.
        offset: u64,
        /// The bytes.
        data: Vec<u8>,
    },
    /// `create_sampler`.
    CreateSampler {
        /// The new sampler's id.
        id: TraceId,
        /// Its descriptor.
        desc: SamplerDescriptor,
    },
    /// `create_shader`.
    CreateShader {
        /// The new shader's id.
        id: TraceId,
        /// Its label.
        label: String,
        /// The module's id.
        module: TraceId,
        /// The stage.
        stage: ShaderStage,
        /// The entry point.
        entry_point: String,
    },
    /// `create_pipeline`.
    CreatePipeline {
        /// The new pipeline's id.
        id: TraceId,
        /// Its description.
        desc: TracePipeline,
    },
    /// `create_compute_pipeline`.
    CreateComputePipeline {
        /// The new pipeline's id.
        id: TraceId,
        /// Its label.
        label: String,
        /// The compute shader.
        shader: TraceId,
    },
    /// `create_query_set`.
    CreateQuerySet {
        /// The new set's id.
        id: TraceId,
        /// Its label.
        label: String,
        /// What it counts.
        kind: QueryKind,
        /// How many queries.
        count: u32,
    },
    /// `begin_frame`.
    BeginFrame,
    /// A submitted render pass.
    Pass(TracePass),
    /// `copy_texture`.
    CopyTexture {
        /// The source.
        src: TraceId,
        /// Its region.
        src_region: TextureRegion,
        /// The destination.
        dst: TraceId,
        /// Its region.
        dst_region: TextureRegion,
    },
    /// `dispatch`.
    Dispatch {
        /// The compute pipeline.
        pipeline: TraceId,
        /// Uniform blocks by name.
        uniforms: Vec<(String, Vec<u8>)>,
        /// Storage buffers by name.
        storage: Vec<(String, TraceId)>,
        /// Workgroups.
        groups: [u32; 3],
    },
    /// `readback`, with what the recording device read back (`None` when the app never
    /// waited for it).
    Readback {
        /// The texture.
        texture: TraceId,
        /// The region.
        region: TextureRegion,
        /// The pixels the recording device returned.
        recorded: Option<ReadbackImage>,
    },
}

impl TraceCall {
    /// The device call's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Module { .. } => "module",
            Self::CreateTexture { .. } => "create_texture",
            Self::WriteTexture { .. } => "write_texture",
            Self::CreateGeometry { .. } => "create_geometry",
            Self::WriteGeometry { .. } => "write_geometry",
            Self::CreateSampler { .. } => "create_sampler",
            Self::CreateShader { .. } => "create_shader",
            Self::CreatePipeline { .. } => "create_pipeline",
            Self::CreateComputePipeline { .. } => "create_compute_pipeline",
            Self::CreateQuerySet { .. } => "create_query_set",
            Self::BeginFrame => "begin_frame",
            Self::Pass(_) => "render pass",
            Self::CopyTexture { .. } => "copy_texture",
            Self::Dispatch { .. } => "dispatch",
            Self::Readback { .. } => "readback",
        }
    }
}

/// A recorded session: where it was recorded and every call, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The recording device's backend.
    pub backend: String,
    /// The recording device's adapter.
    pub adapter: String,
    /// The calls.
    pub calls: Vec<TraceCall>,
}

impl Trace {
    /// How many frames the trace holds (`begin_frame` calls).
    pub fn frames(&self) -> usize {
        self.calls.iter().filter(|c| matches!(c, TraceCall::BeginFrame)).count()
    }

    /// A few lines saying what the trace holds: where it was recorded, its calls by kind,
    /// each pass with its draws, and each readback.
    pub fn summary(&self) -> String {
        use std::collections::BTreeMap;
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        let mut passes = Vec::new();
        let mut readbacks = Vec::new();
        for (record, call) in self.calls.iter().enumerate() {
            *kinds.entry(call.name()).or_default() += 1;
            match call {
                TraceCall::Pass(pass) => {
                    let draws = pass
                        .commands
                        .iter()
                        .filter(|c| {
                            matches!(
                                c,
                                TraceCommand::Draw { .. }
                                    | TraceCommand::DrawIndexed { .. }
                                    | TraceCommand::DrawIndirect { .. }
                                    | TraceCommand::MultiDrawIndirect { .. }
                            )
                        })
                        .count();
                    passes.push(format!("  record {record}: pass {} ({draws} draws)", pass.label));
                }
                TraceCall::Readback { region, recorded, .. } => readbacks.push(format!(
                    "  record {record}: readback {}x{}{}",
                    region.width,
                    region.height,
                    if recorded.is_some() { ", pixels recorded" } else { ", not waited for" }
                )),
                _ => {}
            }
        }
        let mut out = format!(
            "recorded on {} ({}): {} calls over {} frames\n",
            self.backend,
            self.adapter,
            self.calls.len(),
            self.frames()
        );
        let counts: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        out += &format!("calls: {}\n", counts.join(", "));
        out += &format!("passes:\n{}\n", passes.join("\n"));
        out += &format!("readbacks:\n{}\n", readbacks.join("\n"));
        out
    }

    /// The trace in the `.f3dtrace` format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.buf.extend_from_slice(MAGIC);
        TRACE_VERSION.put(&mut w);
        self.backend.put(&mut w);
        self.adapter.put(&mut w);
        (self.calls.len() as u32).put(&mut w);
        for call in &self.calls {
            let mut payload = Writer::default();
            call.put_fields(&mut payload);
            call.tag().put(&mut w);
            (payload.buf.len() as u32).put(&mut w);
            w.buf.extend_from_slice(&payload.buf);
        }
        w.buf
    }

    /// Reads a trace written by [`to_bytes`](Self::to_bytes); any damage is an error naming
    /// its offset.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TraceError> {
        let mut r = Reader::new(bytes, 0);
        if r.take(MAGIC.len(), "the magic").ok() != Some(MAGIC.as_slice()) {
            return Err(TraceError::Format {
                offset: 0,
                what: "not an f3d trace (no F3DTRACE magic)".into(),
            });
        }
        let found = u32::get(&mut r)?;
        if found != TRACE_VERSION {
            return Err(TraceError::Version { found });
        }
        let backend = String::get(&mut r)?;
        let adapter = String::get(&mut r)?;
        let count = r.count("records")?;
        let mut calls = Vec::with_capacity(count);
        for index in 0..count {
            let at = r.offset();
            let tag = u8::get(&mut r)?;
            if !(1..=15).contains(&tag) {
                return Err(TraceError::Format { offset: at, what: format!("unknown record tag {tag}") });
            }
            let len = u32::get(&mut r)? as usize;
            let payload = r.take(len, &format!("record {index}"))?;
            let mut p = Reader::new(payload, at + 5);
            let call = TraceCall::get_fields(tag, &mut p)?;
            p.finish(&format!("record {index} ({})", call.name()))?;
            calls.push(call);
        }
        r.finish("the trace")?;
        Ok(Self { backend, adapter, calls })
    }
}

impl Wire for TraceView {
    fn put(&self, w: &mut Writer) {
        self.texture.put(w);
        self.mip_level.put(w);
        self.layer.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let (texture, mip_level, layer) = Wire::get(r)?;
        Ok(Self { texture, mip_level, layer })
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn put(&self, w: &mut Writer) {
        self.0.put(w);
        self.1.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok((A::get(r)?, B::get(r)?))
    }
}

impl<A: Wire, B: Wire, C: Wire> Wire for (A, B, C) {
    fn put(&self, w: &mut Writer) {
        self.0.put(w);
        self.1.put(w);
        self.2.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok((A::get(r)?, B::get(r)?, C::get(r)?))
    }
}

/// Byte strings inside records: one bulk copy rather than a list of `u8`s.
struct Blob(Vec<u8>);

impl Wire for Blob {
    fn put(&self, w: &mut Writer) {
        w.bytes(&self.0);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(Blob(r.bytes("a byte string")?))
    }
}

impl Wire for TraceColorAttachment {
    fn put(&self, w: &mut Writer) {
        self.view.put(w);
        self.resolve_target.put(w);
        self.load.put(w);
        self.store.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        let (view, resolve_target) = Wire::get(r)?;
        Ok(Self { view, resolve_target, load: Wire::get(r)?, store: Wire::get(r)? })
    }
}

impl Wire for TraceDepthAttachment {
    fn put(&self, w: &mut Writer) {
        self.view.put(w);
        self.depth_load.put(w);
        self.depth_store.put(w);
        self.stencil_load.put(w);
        self.stencil_store.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(Self {
            view: Wire::get(r)?,
            depth_load: Wire::get(r)?,
            depth_store: Wire::get(r)?,
            stencil_load: Wire::get(r)?,
            stencil_store: Wire::get(r)?,
        })
    }
}

impl Wire for TraceTransition {
    fn put(&self, w: &mut Writer) {
        self.texture.put(w);
        self.before.put(w);
        self.after.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(Self { texture: Wire::get(r)?, before: Wire::get(r)?, after: Wire::get(r)? })
    }
}

impl Wire for TracePipeline {
    fn put(&self, w: &mut Writer) {
        self.label.put(w);
        self.vertex.put(w);
        self.fragment.put(w);
        self.vertex_buffers.put(w);
        self.primitive.put(w);
        self.depth_stencil.put(w);
        self.color_targets.put(w);
        self.sample_count.put(w);
        self.multiview.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(Self {
            label: Wire::get(r)?,
            vertex: Wire::get(r)?,
            fragment: Wire::get(r)?,
            vertex_buffers: Wire::get(r)?,
            primitive: Wire::get(r)?,
            depth_stencil: Wire::get(r)?,
            color_targets: Wire::get(r)?,
            sample_count: Wire::get(r)?,
            multiview: Wire::get(r)?,
        })
    }
}

impl Wire for TracePass {
    fn put(&self, w: &mut Writer) {
        self.label.put(w);
        self.color_attachments.put(w);
        self.depth_stencil_attachment.put(w);
        self.multiview.put(w);
        self.transitions.put(w);
        self.commands.put(w);
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(Self {
            label: Wire::get(r)?,
            color_attachments: Wire::get(r)?,
            depth_stencil_attachment: Wire::get(r)?,
            multiview: Wire::get(r)?,
            transitions: Wire::get(r)?,
            commands: Wire::get(r)?,
        })
    }
}

impl Wire for TraceCommand {
    fn put(&self, w: &mut Writer) {
        use TraceCommand as C;
        match self {
            C::SetPipeline(p) => (1u8, *p).put(w),
            C::SetViewport(v) => (2u8, *v).put(w),
            C::SetScissor(s) => (3u8, *s).put(w),
            C::SetStencilReference(v) => (4u8, *v).put(w),
            C::SetBlendConstant(c) => (5u8, *c).put(w),
            C::SetVertexBuffer { slot, buffer, offset } => (6u8, (*slot, *buffer, *offset)).put(w),
            C::SetIndexBuffer { buffer, format, offset } => (7u8, (*buffer, *format, *offset)).put(w),
            C::BindUniform { slot, bytes } => {
                (8u8, *slot).put(w);
                w.bytes(bytes);
            }
            C::BindTexture { slot, texture } => (9u8, (*slot, *texture)).put(w),
            C::BindSampler { slot, sampler } => (10u8, (*slot, *sampler)).put(w),
            C::Draw { vertices, instances } => (11u8, (vertices.clone(), instances.clone())).put(w),
            C::DrawIndexed { indices, base_vertex, instances } => {
                (12u8, (indices.clone(), *base_vertex, instances.clone())).put(w)
            }
            C::DrawIndirect { buffer, offset } => (13u8, (*buffer, *offset)).put(w),
            C::MultiDrawIndirect { buffer, offset, count } => (14u8, (*buffer, *offset, *count)).put(w),
            C::WriteTimestamp { set, index } => (15u8, (*set, *index)).put(w),
            C::BeginOcclusion { set, index } => (16u8, (*set, *index)).put(w),
            C::EndOcclusion => 17u8.put(w),
            C::BindStorage { slot, buffer } => (18u8, (*slot, *buffer)).put(w),
        }
    }
    fn get(r: &mut Reader<'_>) -> Result<Self, TraceError> {
        use TraceCommand as C;
        let (tag, bad) = r.tag()?;
        Ok(match tag {
            1 => C::SetPipeline(Wire::get(r)?),
            2 => C::SetViewport(Wire::get(r)?),
            3 => C::SetScissor(Wire::get(r)?),
            4 => C::SetStencilReference(Wire::get(r)?),
            5 => C::SetBlendConstant(Wire::get(r)?),
            6 => {
                let (slot, buffer, offset) = Wire::get(r)?;
                C::SetVertexBuffer { slot, buffer, offset }
            }
            7 => {
                let (buffer, format, offset) = Wire::get(r)?;
                C::SetIndexBuffer { buffer, format, offset }
            }
            8 => C::BindUniform { slot: Wire::get(r)?, bytes: r.bytes("uniform bytes")? },
            9 => {
                let (slot, texture) = Wire::get(r)?;
                C::BindTexture { slot, texture }
            }
            10 => {
                let (slot, sampler) = Wire::get(r)?;
                C::BindSampler { slot, sampler }
            }
            18 => {
                let (slot, buffer) = Wire::get(r)?;
                C::BindStorage { slot, buffer }
            }
            11 => {
                let (vertices, instances) = Wire::get(r)?;
                C::Draw { vertices, instances }
            }
            12 => {
                let (indices, base_vertex, instances) = Wire::get(r)?;
                C::DrawIndexed { indices, base_vertex, instances }
            }
            13 => {
                let (buffer, offset) = Wire::get(r)?;
                C::DrawIndirect { buffer, offset }
            }
            14 => {
                let (buffer, offset, count) = Wire::get(r)?;
                C::MultiDrawIndirect { buffer, offset, count }
            }
            15 => {
                let (set, index) = Wire::get(r)?;
                C::WriteTimestamp { set, index }
            }
            16 => {
                let (set, index) = Wire::get(r)?;
                C::BeginOcclusion { set, index }
            }
            17 => C::EndOcclusion,
            n => return Err(bad(format!("unknown pass command tag {n}"))),
        })
    }
}

impl TraceCall {
    fn tag(&self) -> u8 {
        match self {
            Self::Module { .. } => 1,
            Self::CreateTexture { .. } => 2,
            Self::WriteTexture { .. } => 3,
            Self::CreateGeometry { .. } => 4,
            Self::WriteGeometry { .. } => 5,
            Self::CreateSampler { .. } => 6,
            Self::CreateShader { .. } => 7,
            Self::CreatePipeline { .. } => 8,
            Self::CreateComputePipeline { .. } => 9,
            Self::CreateQuerySet { .. } => 10,
            Self::BeginFrame => 11,
            Self::Pass(_) => 12,
            Self::CopyTexture { .. } => 13,
            Self::Dispatch { .. } => 14,
            Self::Readback { .. } => 15,
        }
    }

    fn put_fields(&self, w: &mut Writer) {
        match self {
            Self::Module { id, wgsl } => {
                id.put(w);
                wgsl.put(w);
            }
            Self::CreateTexture { id, desc } => {
                id.put(w);
                desc.put(w);
            }
            Self::WriteTexture { texture, region, data } => {
                texture.put(w);
                region.put(w);
                w.bytes(data);
            }
            Self::CreateGeometry { id, desc, data } => {
                id.put(w);
                desc.put(w);
                match data {
                    None => 0u8.put(w),
                    Some(d) => {
                        1u8.put(w);
                        w.bytes(d);
                    }
                }
            }
            Self::WriteGeometry { buffer, offset, data } => {
                buffer.put(w);
                offset.put(w);
                w.bytes(data);
            }
            Self::CreateSampler { id, desc } => {
                id.put(w);
                desc.put(w);
            }
            Self::CreateShader { id, label, module, stage, entry_point } => {
                id.put(w);
                label.put(w);
                module.put(w);
                stage.put(w);
                entry_point.put(w);
            }
            Self::CreatePipeline { id, desc } => {
                id.put(w);
                desc.put(w);
            }
            Self::CreateComputePipeline { id, label, shader } => {
                id.put(w);
                label.put(w);
                shader.put(w);
            }
            Self::CreateQuerySet { id, label, kind, count } => {
                id.put(w);
                label.put(w);
                kind.put(w);
                count.put(w);
            }
            Self::BeginFrame => {}
            Self::Pass(pass) => pass.put(w),
            Self::CopyTexture { src, src_region, dst, dst_region } => {
                src.put(w);
                src_region.put(w);
                dst.put(w);
                dst_region.put(w);
            }
            Self::Dispatch { pipeline, uniforms, storage, groups } => {
                pipeline.put(w);
                (uniforms.len() as u32).put(w);
                for (name, bytes) in uniforms {
                    name.put(w);
                    w.bytes(bytes);
                }
                storage.put(w);
                groups.put(w);
            }
            Self::Readback { texture, region, recorded } => {
                texture.put(w);
                region.put(w);
                recorded.put(w);
            }
        }
    }

    fn get_fields(tag: u8, r: &mut Reader<'_>) -> Result<Self, TraceError> {
        Ok(match tag {
            1 => {
                let (id, wgsl) = Wire::get(r)?;
                Self::Module { id, wgsl }
            }
            2 => {
                let (id, desc) = Wire::get(r)?;
                Self::CreateTexture { id, desc }
            }
            3 => {
                let (texture, region) = Wire::get(r)?;
                Self::WriteTexture { texture, region, data: r.bytes("texture data")? }
            }
            4 => {
                let (id, desc) = Wire::get(r)?;
                let data: Option<Blob> = Wire::get(r)?;
                Self::CreateGeometry { id, desc, data: data.map(|b| b.0) }
            }
            5 => {
                let (buffer, offset) = Wire::get(r)?;
                Self::WriteGeometry { buffer, offset, data: r.bytes("geometry data")? }
            }
            6 => {
                let (id, desc) = Wire::get(r)?;
                Self::CreateSampler { id, desc }
            }
            7 => {
                let (id, label, module) = Wire::get(r)?;
                let (stage, entry_point) = Wire::get(r)?;
                Self::CreateShader { id, label, module, stage, entry_point }
            }
            8 => Self::CreatePipeline { id: Wire::get(r)?, desc: Wire::get(r)? },
            9 => {
                let (id, label, shader) = Wire::get(r)?;
                Self::CreateComputePipeline { id, label, shader }
            }
            10 => {
                let (id, label) = Wire::get(r)?;
                let (kind, count) = Wire::get(r)?;
                Self::CreateQuerySet { id, label, kind, count }
            }
            11 => Self::BeginFrame,
            12 => Self::Pass(Wire::get(r)?),
            13 => {
                let (src, src_region) = Wire::get(r)?;
                let (dst, dst_region) = Wire::get(r)?;
                Self::CopyTexture { src, src_region, dst, dst_region }
            }
            14 => {
                let pipeline = Wire::get(r)?;
                let uniforms: Vec<(String, Blob)> = Wire::get(r)?;
                Self::Dispatch {
                    pipeline,
                    uniforms: uniforms.into_iter().map(|(n, b)| (n, b.0)).collect(),
                    storage: Wire::get(r)?,
                    groups: Wire::get(r)?,
                }
            }
            15 => {
                let (texture, region) = Wire::get(r)?;
                Self::Readback { texture, region, recorded: Wire::get(r)? }
            }
            n => return Err(r.error(format!("unknown record tag {n}"))),
        })
    }
}

#[cfg(test)]
mod tests;
