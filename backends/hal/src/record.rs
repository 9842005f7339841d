//! The one pass recorder: [`Recorder`] is the [`PassEncoder`] of every backend that submits
//! through it. It keeps the bound state, checks every call against the contract's rules (the
//! same refusals in the same words on every backend), copies uniform bytes into one arena,
//! and at `submit` hands the backend a [`RecordedPass`]: a flat command list to execute
//! (soft), replay onto an API (wgpu, Vulkan) or apply the clears of (null).
//!
//! ```text
//!  pass contributor ──PassEncoder──▶ Recorder (state, checks, arena)
//!                                        │ submit
//!                                        ▼
//!                      PassSink::submit(RecordedPass { commands, uniforms })
//! ```
//!
//! What stays in a backend: the checks only its API makes (a format its adapter cannot attach,
//! say) at `begin_render_pass`, whether a pipeline it could not compile draws
//! ([`PassSink::pipeline_draws`]), and the uniform alignment its API needs.

use std::ops::Range;

use crate::backend;
use crate::{
    BackendId, BindingKind, BindingLayout, BindingSlot, Color, CommandEncoder, DeviceError, DeviceFeature,
    GeometryBuffer, GeometryUsages, GraphicsDevice, IndexFormat, PassEncoder, PipelineHandle, QueryKind,
    QuerySetHandle, RenderPassDescriptor, SamplerHandle, ScissorRect, TextureHandle, Viewport,
};

/// A resource bound to one slot of the current pipeline.
#[derive(Clone, Debug)]
pub enum Bound {
    /// Uniform bytes: a range of [`RecordedPass::uniforms`], starting at a multiple of the
    /// sink's [`uniform_alignment`](PassSink::uniform_alignment).
    Uniform(Range<usize>),
    /// A sampled texture.
    Texture(TextureHandle),
    /// A sampler.
    Sampler(SamplerHandle),
    /// A read-only storage buffer (a geometry buffer made with
    /// [`STORAGE`](GeometryUsages::STORAGE)), bound whole.
    Storage(GeometryBuffer),
}

/// One recorded call. Every command was checked when it was recorded; a backend executes
/// them in order, keeping the state they set (a pass starts with the full viewport, no
/// scissor, stencil reference 0 and a blend constant of zero).
#[derive(Clone, Debug)]
pub enum PassCommand {
    /// The pipeline of the following draws; every binding is forgotten.
    SetPipeline(PipelineHandle),
    /// The viewport.
    SetViewport(Viewport),
    /// The scissor rectangle (`None`: the whole attachment).
    SetScissor(Option<ScissorRect>),
    /// The stencil reference.
    SetStencilReference(u32),
    /// The blend constant.
    SetBlendConstant(Color),
    /// A vertex buffer for `slot`.
    SetVertexBuffer {
        /// The slot.
        slot: u32,
        /// The buffer.
        buffer: GeometryBuffer,
        /// Where the vertices start, in bytes.
        offset: u64,
    },
    /// The index buffer.
    SetIndexBuffer {
        /// The buffer.
        buffer: GeometryBuffer,
        /// Its index size.
        format: IndexFormat,
        /// Where the indices start, in bytes.
        offset: u64,
    },
    /// A binding of the current pipeline.
    Bind {
        /// The slot in the pipeline's [`BindingLayout`].
        slot: BindingSlot,
        /// What is bound there.
        bound: Bound,
    },
    /// A direct draw.
    Draw {
        /// The vertices.
        vertices: Range<u32>,
        /// The instances.
        instances: Range<u32>,
    },
    /// An indexed draw.
    DrawIndexed {
        /// The index window.
        indices: Range<u32>,
        /// Added to every index.
        base_vertex: i32,
        /// The instances.
        instances: Range<u32>,
    },
    /// `count` indirect draws, arguments packed from `offset` (16 bytes each).
    DrawIndirect {
        /// The argument buffer.
        buffer: GeometryBuffer,
        /// The first argument's offset.
        offset: u64,
        /// How many draws.
        count: u32,
        /// Whether it was recorded as `multi_draw_indirect`.
        multi: bool,
    },
    /// A timestamp into query `index`.
    WriteTimestamp {
        /// The query set.
        set: QuerySetHandle,
        /// The query.
        index: u32,
    },
    /// Starts counting samples into query `index` (reset to zero first).
    BeginOcclusion {
        /// The query set.
        set: QuerySetHandle,
        /// The query.
        index: u32,
    },
    /// Stops the running occlusion query.
    EndOcclusion,
}

/// A whole pass, checked and ready for the backend.
#[derive(Debug)]
pub struct RecordedPass {
    /// The pass as it was begun.
    pub desc: RenderPassDescriptor,
    /// The attachments' size.
    pub size: (u32, u32),
    /// The calls, in order.
    pub commands: Vec<PassCommand>,
    /// Every uniform block's bytes ([`Bound::Uniform`] ranges point here).
    pub uniforms: Vec<u8>,
    /// How many draws the pass holds (indirect draws count their `count`).
    pub draws: usize,
}

/// The backend side of a [`Recorder`]: what it submits to.
pub trait PassSink: Sync {
    /// The device the pass records for (its owner, features and limits).
    fn device(&self) -> &dyn GraphicsDevice;

    /// The alignment of each uniform block in [`RecordedPass::uniforms`] (a power of two; the
    /// GPU backends bind with dynamic offsets into one buffer).
    fn uniform_alignment(&self) -> usize {
        16
    }

    /// Whether draws with `pipeline` draw (asked at its first draw after `set_pipeline`): a
    /// backend that made a pipeline it cannot run answers false and reports the refusal once
    /// (in its refusal list); the recorder then drops those draws.
    fn pipeline_draws(&self, pipeline: &PipelineHandle) -> bool {
        let _ = pipeline;
        true
    }

    /// What only this backend refuses at `set_pipeline`, after the shared rules (Vulkan: a
    /// pipeline that writes depth in a pass whose depth attachment the graph made read-only).
    fn check_pipeline(
        &self,
        pass: &RenderPassDescriptor,
        pipeline: &PipelineHandle,
    ) -> Result<(), DeviceError> {
        let _ = (pass, pipeline);
        Ok(())
    }

    /// What only this backend refuses in `set_viewport`, after the shared rule (its API's
    /// viewport bounds).
    fn check_viewport(&self, viewport: &Viewport) -> Result<(), DeviceError> {
        let _ = viewport;
        Ok(())
    }

    /// What only this backend refuses of the bindings at a draw, after the shared rules (a
    /// format its API cannot filter linearly, say); asked when a binding changed since the
    /// last draw. `bound[i]` is what slot `i` of `pipeline` holds; `pairs` lists each
    /// texture slot with its sampler's slot (the HAL's pairing, `BindingLayout::texture_samplers`).
    fn check_bindings(
        &self,
        operation: &'static str,
        bound: &[Option<Bound>],
        pairs: &[(usize, usize)],
    ) -> Result<(), DeviceError> {
        let _ = (operation, bound, pairs);
        Ok(())
    }

    /// What only this backend refuses of `count` indirect draws (its API's most draws per call).
    fn check_indirect(&self, operation: &'static str, count: u32) -> Result<(), DeviceError> {
        let _ = (operation, count);
        Ok(())
    }

    /// Whether the pass may sample `texture`, one of its own attachments (Vulkan: a depth
    /// attachment the render graph made read-only). Otherwise a pass never samples what it
    /// draws into.
    fn can_sample_attached(&self, pass: &RenderPassDescriptor, texture: &TextureHandle) -> bool {
        let _ = (pass, texture);
        false
    }

    /// Whether `texture` can be sampled on this device at all (its API may lack a view or a
    /// filterable format for it); the recorder has checked the rest.
    fn can_sample(&self, texture: &TextureHandle) -> bool {
        let _ = texture;
        true
    }

    /// Executes the pass; its effects are visible to every later operation.
    fn submit(&self, pass: RecordedPass) -> Result<(), DeviceError>;
}

/// The pass encoder of every backend: see the module docs.
pub struct Recorder<'a> {
    sink: &'a dyn PassSink,
    pass: RecordedPass,
    pipeline: Option<PipelineHandle>,
    /// Whether draws with the current pipeline draw ([`PassSink::pipeline_draws`]), asked at
    /// its first draw.
    draws: Option<bool>,
    /// What each slot of the current pipeline has bound.
    bound: Vec<Option<Bound>>,
    /// Per vertex buffer slot: the buffer's size and the offset.
    vertex: Vec<Option<(u64, u64)>>,
    /// The index buffer's size, offset and format.
    index: Option<(u64, u64, IndexFormat)>,
    /// Whether an occlusion query is running.
    occlusion: bool,
    /// The one query set the pass's occlusion queries use.
    occlusion_set: Option<QuerySetHandle>,
    /// Every query the pass writes (set, index): each once per pass.
    queries: Vec<(QuerySetHandle, u32)>,
    /// Whether a binding changed since the last draw (the binding checks run again).
    rebound: bool,
    /// The sink's uniform alignment, asked once.
    align: usize,
}

fn refused(operation: &'static str, reason: impl Into<String>) -> DeviceError {
    DeviceError::Refused { operation, reason: reason.into() }
}

fn out_of_bounds(operation: &'static str, what: impl Into<String>) -> DeviceError {
    DeviceError::OutOfBounds { operation, what: what.into() }
}

impl<'a> Recorder<'a> {
    /// Begins a pass: the attachments must belong to the sink's device and be alive. (The
    /// descriptor's rules, [`backend::check_render_pass`], are the caller's, before this.)
    pub fn begin(sink: &'a dyn PassSink, desc: &RenderPassDescriptor) -> Result<Self, DeviceError> {
        const OP: &str = "begin_render_pass";
        let owner = sink.device().owner();
        owner.check_alive(OP)?;
        let views = desc
            .color_attachments
            .iter()
            .flat_map(|a| std::iter::once(&a.view).chain(a.resolve_target.as_ref()))
            .chain(desc.depth_stencil_attachment.as_ref().map(|d| &d.view));
        for view in views {
            view.texture.check_usable(owner, OP)?;
        }
        Ok(Self {
            sink,
            pass: RecordedPass {
                desc: desc.clone(),
                size: desc.size().unwrap_or((1, 1)),
                commands: Vec::new(),
                uniforms: Vec::new(),
                draws: 0,
            },
            pipeline: None,
            draws: None,
            bound: Vec::new(),
            vertex: Vec::new(),
            index: None,
            occlusion: false,
            occlusion_set: None,
            queries: Vec::new(),
            rebound: true,
            align: sink.uniform_alignment().max(1),
        })
    }

    fn device(&self) -> &'a dyn GraphicsDevice {
        self.sink.device()
    }

    fn feature(&self, feature: DeviceFeature) -> Result<(), DeviceError> {
        if self.device().features().has(feature) {
            Ok(())
        } else {
            Err(DeviceError::Unsupported { feature, backend: self.device().backend_id() })
        }
    }

    /// Whether `texture` is one of the pass's attachments (or resolve targets): a pass may
    /// not sample what it draws into, at any level or layer.
    fn attached(&self, texture: &TextureHandle) -> bool {
        let desc = &self.pass.desc;
        desc.color_attachments
            .iter()
            .flat_map(|a| std::iter::once(&a.view).chain(a.resolve_target.as_ref()))
            .chain(desc.depth_stencil_attachment.as_ref().map(|d| &d.view))
            .any(|v| v.texture.same(texture))
    }

    fn slot_kind(&self, slot: BindingSlot) -> Option<BindingKind> {
        self.pipeline_bindings().and_then(|l| l.get(slot)).map(|b| b.kind)
    }

    /// The checks every draw makes. `Ok(false)`: the pipeline does not draw on this backend,
    /// so the draw is dropped.
    fn prepare_draw(&mut self, operation: &'static str) -> Result<bool, DeviceError> {
        self.device().owner().check_alive(operation)?;
        let Some(pipeline) = &self.pipeline else { return Err(DeviceError::NoPipeline { operation }) };
        if !self.rebound {
            return Ok(*self.draws.get_or_insert_with(|| self.sink.pipeline_draws(pipeline)));
        }
        backend::check_bindings_complete(operation, pipeline, |slot| {
            self.bound.get(slot.0 as usize).is_some_and(Option::is_some)
        })?;
        let device = self.device();
        let float32 = |b: &Option<Bound>| matches!(b, Some(Bound::Texture(t)) if backend::is_float32(t.descriptor().format));
        if !device.features().has(DeviceFeature::FLOAT32_FILTERABLE) && self.bound.iter().any(float32) {
            let mut textures = Vec::new();
            let mut samplers = Vec::new();
            for (i, b) in self.bound.iter().enumerate() {
                match b {
                    Some(Bound::Texture(t)) => textures.push((BindingSlot(i as u32), t.descriptor())),
                    Some(Bound::Sampler(s)) => samplers.push((BindingSlot(i as u32), s.descriptor())),
                    _ => {}
                }
            }
            backend::check_float32_filtering(
                pipeline.bindings(),
                &textures,
                &samplers,
                device.features(),
                &device.backend_id(),
            )?;
        }
        let draws = *self.draws.get_or_insert_with(|| self.sink.pipeline_draws(pipeline));
        if draws {
            self.sink.check_bindings(operation, &self.bound, pipeline.bindings().texture_samplers())?;
        }
        self.rebound = false;
        Ok(draws)
    }

    fn push_draw(&mut self, command: PassCommand, draws: usize) {
        self.pass.draws += draws;
        self.pass.commands.push(command);
    }

    fn indirect(
        &mut self,
        operation: &'static str,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        let multi = operation == "multi_draw_indirect";
        self.feature(if multi { DeviceFeature::MULTI_DRAW_INDIRECT } else { DeviceFeature::INDIRECT_DRAW })?;
        buffer.check_usable(self.device().owner(), operation)?;
        let desc = buffer.descriptor();
        if !desc.usage.contains(GeometryUsages::INDIRECT) {
            return Err(DeviceError::MissingUsage {
                operation,
                label: desc.label.clone(),
                usage: "INDIRECT",
            });
        }
        self.sink.check_indirect(operation, count)?;
        let end = offset.checked_add(16 * u64::from(count));
        if !offset.is_multiple_of(4) || end.is_none_or(|e| e > desc.size) {
            return Err(out_of_bounds(
                operation,
                format!("{count} indirect draws at offset {offset} of {} ({} bytes)", desc.label, desc.size),
            ));
        }
        if self.prepare_draw(operation)? {
            let command = PassCommand::DrawIndirect { buffer: buffer.clone(), offset, count, multi };
            self.push_draw(command, count as usize);
        }
        Ok(())
    }

    fn query(
        &self,
        set: &QuerySetHandle,
        index: u32,
        kind: QueryKind,
        operation: &'static str,
    ) -> Result<(), DeviceError> {
        self.feature(kind.feature())?;
        set.check_usable(self.device().owner(), operation)?;
        let d = set.descriptor();
        // A query in a multiview pass takes one query per view.
        let views = self.pass.desc.multiview.map_or(1, |n| n.get());
        if d.kind != kind || u64::from(index) + u64::from(views) > u64::from(d.count) {
            return Err(out_of_bounds(
                operation,
                format!(
                    "query {index} ({views} views) of {} ({:?}, {} queries)",
                    set.label(),
                    d.kind,
                    d.count
                ),
            ));
        }
        Ok(())
    }

    /// Notes that the pass writes query `index` of `set` (each query at most once per pass).
    fn use_query(
        &mut self,
        operation: &'static str,
        set: &QuerySetHandle,
        index: u32,
    ) -> Result<(), DeviceError> {
        let views = self.pass.desc.multiview.map_or(1, |n| n.get());
        let overlaps = |(s, i): &(QuerySetHandle, u32)| {
            s.same(set) && *i < index.saturating_add(views) && index < i.saturating_add(views)
        };
        if self.queries.iter().any(overlaps) {
            return Err(refused(
                operation,
                format!("query {index} of {} was already written in this pass", set.label()),
            ));
        }
        self.queries.push((set.clone(), index));
        Ok(())
    }
}

/// Refuses ranges that run backwards.
fn forwards(operation: &'static str, ranges: &[(&str, &Range<u32>)]) -> Result<(), DeviceError> {
    for (what, r) in ranges {
        if r.start > r.end {
            return Err(out_of_bounds(operation, format!("{what} {}..{} run backwards", r.start, r.end)));
        }
    }
    Ok(())
}

impl PassEncoder for Recorder<'_> {
    fn backend(&self) -> BackendId {
        self.device().backend_id()
    }

    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        const OP: &str = "set_pipeline";
        pipeline.check_usable(self.device().owner(), OP)?;
        backend::check_pipeline_matches_pass(pipeline, &self.pass.desc)?;
        self.sink.check_pipeline(&self.pass.desc, pipeline)?;
        self.bound.clear();
        self.bound.resize(pipeline.bindings().entries().len(), None);
        self.rebound = true;
        self.draws = None;
        self.pipeline = Some(pipeline.clone());
        self.pass.commands.push(PassCommand::SetPipeline(pipeline.clone()));
        Ok(())
    }

    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.pipeline.as_ref().map(|p| p.bindings())
    }

    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError> {
        backend::check_viewport(&viewport, self.device().limits())?;
        self.sink.check_viewport(&viewport)?;
        self.pass.commands.push(PassCommand::SetViewport(viewport));
        Ok(())
    }

    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError> {
        let (w, h) = self.pass.size;
        if let Some(r) = rect
            && (u64::from(r.x) + u64::from(r.width) > u64::from(w)
                || u64::from(r.y) + u64::from(r.height) > u64::from(h))
        {
            return Err(out_of_bounds("set_scissor", format!("{r:?} lies past the {w}x{h} attachment")));
        }
        self.pass.commands.push(PassCommand::SetScissor(rect));
        Ok(())
    }

    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError> {
        self.pass.commands.push(PassCommand::SetStencilReference(reference));
        Ok(())
    }

    fn set_blend_constant(&mut self, color: Color) -> Result<(), DeviceError> {
        self.feature(DeviceFeature::BLEND_CONSTANT)?;
        self.pass.commands.push(PassCommand::SetBlendConstant(color));
        Ok(())
    }

    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        const OP: &str = "set_vertex_buffer";
        buffer.check_usable(self.device().owner(), OP)?;
        backend::check_vertex_buffer(slot, buffer, offset, self.device().limits())?;
        let slot_index = slot as usize;
        if self.vertex.len() <= slot_index {
            self.vertex.resize(slot_index + 1, None);
        }
        self.vertex[slot_index] = Some((buffer.descriptor().size, offset));
        self.pass.commands.push(PassCommand::SetVertexBuffer { slot, buffer: buffer.clone(), offset });
        Ok(())
    }

    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        const OP: &str = "set_index_buffer";
        buffer.check_usable(self.device().owner(), OP)?;
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
                format!("offset {offset} of {} is not a whole index inside it", desc.label),
            ));
        }
        self.index = Some((desc.size, offset, format));
        self.pass.commands.push(PassCommand::SetIndexBuffer { buffer: buffer.clone(), format, offset });
        Ok(())
    }

    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let Some(BindingKind::UniformBlock { size }) = self.slot_kind(slot) else { return false };
        let size = size as usize;
        if bytes.len() < size {
            return false;
        }
        let start = self.pass.uniforms.len().next_multiple_of(self.align);
        self.pass.uniforms.resize(start, 0);
        self.pass.uniforms.extend_from_slice(&bytes[..size]);
        let bound = Bound::Uniform(start..start + size);
        self.bound[slot.0 as usize] = Some(bound.clone());
        self.rebound = true;
        self.pass.commands.push(PassCommand::Bind { slot, bound });
        true
    }

    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        let device = self.device();
        let accepted = texture.check_usable(device.owner(), "bind_texture").is_ok()
            && (!self.attached(texture) || self.sink.can_sample_attached(&self.pass.desc, texture))
            && self.sink.can_sample(texture)
            && self
                .pipeline_bindings()
                .and_then(|l| l.get(slot))
                .is_some_and(|b| b.accepts_texture(texture.descriptor()));
        if accepted {
            let bound = Bound::Texture(texture.clone());
            self.bound[slot.0 as usize] = Some(bound.clone());
            self.rebound = true;
            self.pass.commands.push(PassCommand::Bind { slot, bound });
        }
        accepted
    }

    fn bind_storage_buffer_at(&mut self, slot: BindingSlot, buffer: &GeometryBuffer) -> bool {
        let accepted = self.device().features().has(DeviceFeature::STORAGE_BUFFERS)
            && buffer.check_usable(self.device().owner(), "bind_storage_buffer").is_ok()
            && buffer.descriptor().usage.contains(GeometryUsages::STORAGE)
            && matches!(self.slot_kind(slot), Some(BindingKind::StorageBuffer { read_only: true }));
        if accepted {
            let bound = Bound::Storage(buffer.clone());
            self.bound[slot.0 as usize] = Some(bound.clone());
            self.rebound = true;
            self.pass.commands.push(PassCommand::Bind { slot, bound });
        }
        accepted
    }

    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        let comparison = sampler.descriptor().compare.is_some();
        let accepted = sampler.check_usable(self.device().owner(), "bind_sampler").is_ok()
            && matches!(self.slot_kind(slot), Some(BindingKind::Sampler { comparison: c }) if c == comparison);
        if accepted {
            let bound = Bound::Sampler(sampler.clone());
            self.bound[slot.0 as usize] = Some(bound.clone());
            self.rebound = true;
            self.pass.commands.push(PassCommand::Bind { slot, bound });
        }
        accepted
    }

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        let device = self.device();
        backend::check_instances(&instances, device.features(), &device.backend_id())?;
        forwards("draw", &[("vertices", &vertices), ("instances", &instances)])?;
        if let Some(pipeline) = &self.pipeline {
            backend::check_vertex_ranges(pipeline, &self.vertex, &vertices, &instances)?;
        }
        if self.prepare_draw("draw")? {
            self.push_draw(PassCommand::Draw { vertices, instances }, 1);
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
        let device = self.device();
        backend::check_instances(&instances, device.features(), &device.backend_id())?;
        forwards(OP, &[("instances", &instances)])?;
        let Some((size, offset, format)) = self.index else {
            return Err(refused(OP, "no index buffer is set"));
        };
        backend::check_index_window(&indices, size, offset, format)?;
        if let Some(pipeline) = &self.pipeline {
            // Indexed draws read any vertex: only the instances are known, and every buffer
            // the pipeline reads must be set.
            backend::check_vertex_ranges(pipeline, &self.vertex, &(0..0), &instances)?;
            let layouts = pipeline.descriptor().render.as_ref().map_or(&[][..], |d| &d.vertex_buffers[..]);
            for (slot, layout) in layouts.iter().enumerate() {
                if !layout.attributes.is_empty() && self.vertex.get(slot).copied().flatten().is_none() {
                    return Err(refused(
                        OP,
                        format!("vertex buffer {slot} of {} is not set", pipeline.label()),
                    ));
                }
            }
        }
        if self.prepare_draw(OP)? {
            self.push_draw(PassCommand::DrawIndexed { indices, base_vertex, instances }, 1);
        }
        Ok(())
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
        self.use_query("write_timestamp", set, index)?;
        self.pass.commands.push(PassCommand::WriteTimestamp { set: set.clone(), index });
        Ok(())
    }

    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        const OP: &str = "begin_occlusion_query";
        self.query(set, index, QueryKind::Occlusion, OP)?;
        if self.occlusion {
            return Err(refused(OP, "a query is already running"));
        }
        // WebGPU's rule, held everywhere: one occlusion query set per pass.
        if !self.occlusion_set.get_or_insert_with(|| set.clone()).same(set) {
            return Err(refused(OP, "a pass counts occlusion into one query set"));
        }
        self.use_query(OP, set, index)?;
        self.occlusion = true;
        self.pass.commands.push(PassCommand::BeginOcclusion { set: set.clone(), index });
        Ok(())
    }

    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        const OP: &str = "end_occlusion_query";
        self.feature(DeviceFeature::OCCLUSION_QUERY)?;
        if !self.occlusion {
            return Err(refused(OP, "no query is running"));
        }
        self.occlusion = false;
        self.pass.commands.push(PassCommand::EndOcclusion);
        Ok(())
    }
}

impl CommandEncoder for Recorder<'_> {
    fn submit(self: Box<Self>) -> Result<(), DeviceError> {
        self.sink.device().owner().check_alive("submit")?;
        if self.occlusion {
            return Err(refused("submit", "an occlusion query is still running"));
        }
        self.sink.submit(self.pass)
    }
}
