//! Recording: a device wrapper that logs every call it passes on.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::{
    Trace, TraceCall, TraceColorAttachment, TraceCommand, TraceDepthAttachment, TraceError, TraceId,
    TracePass, TracePipeline, TraceTransition, TraceView,
};
use crate::backend;
use crate::{
    AttachmentView, BackendId, BindingLayout, BindingSlot, Color, CommandEncoder, ComputePipelineDescriptor,
    DeviceError, DeviceFeature, DeviceFeatures, DeviceLimits, GeometryBuffer, GeometryDescriptor,
    GraphicsDevice, HandleWatch, IndexFormat, PassEncoder, PendingReadback, PipelineDescriptor,
    PipelineHandle, QueryKind, QuerySetHandle, RenderPassDescriptor, SamplerDescriptor, SamplerHandle,
    ScissorRect, ShaderDescriptor, ShaderHandle, TextureDescriptor, TextureHandle, TextureRegion,
    ValidatedModule, Viewport,
};

/// A handle the log can number.
trait Traced {
    const KIND: &'static str;
    fn key(&self) -> usize;
    fn watch(&self) -> HandleWatch;
    fn label(&self) -> String;
}

macro_rules! traced {
    ($($t:ty => $kind:literal),*) => {$(
        impl Traced for $t {
            const KIND: &'static str = $kind;
            fn key(&self) -> usize {
                <$t>::key(self)
            }
            fn watch(&self) -> HandleWatch {
                <$t>::watch(self)
            }
            fn label(&self) -> String {
                <$t>::label(self)
            }
        }
    )*};
}

traced!(
    TextureHandle => "texture",
    GeometryBuffer => "geometry buffer",
    SamplerHandle => "sampler",
    ShaderHandle => "shader",
    PipelineHandle => "pipeline",
    QuerySetHandle => "query set"
);

#[derive(Default)]
struct LogState {
    calls: Vec<TraceCall>,
    /// Handles by address. The watch holds a weak reference, which keeps the address from
    /// being reused by a later handle without keeping the resource alive.
    ids: HashMap<usize, (TraceId, HandleWatch)>,
    modules: HashMap<usize, (TraceId, Weak<ValidatedModule>)>,
    next: TraceId,
    gaps: Vec<String>,
}

impl LogState {
    fn add<H: Traced>(&mut self, handle: &H) -> TraceId {
        let id = self.next;
        self.next += 1;
        self.ids.insert(handle.key(), (id, handle.watch()));
        id
    }

    fn id<H: Traced>(&mut self, handle: &H) -> TraceId {
        match self.ids.get(&handle.key()) {
            Some((id, _)) => *id,
            None => {
                self.gaps.push(format!("{} {} was made before tracing began", H::KIND, handle.label()));
                TraceId::MAX
            }
        }
    }

    fn view(&mut self, view: &AttachmentView) -> TraceView {
        TraceView { texture: self.id(&view.texture), mip_level: view.mip_level, layer: view.layer }
    }

    fn module(&mut self, module: &Arc<ValidatedModule>) -> TraceId {
        let key = Arc::as_ptr(module) as usize;
        if let Some((id, _)) = self.modules.get(&key) {
            return *id;
        }
        let id = self.next;
        self.next += 1;
        self.modules.insert(key, (id, Arc::downgrade(module)));
        let flags = naga::back::wgsl::WriterFlags::empty();
        match naga::back::wgsl::write_string(module.module(), module.info(), flags) {
            Ok(wgsl) => self.calls.push(TraceCall::Module { id, wgsl }),
            Err(e) => self.gaps.push(format!("a shader module could not be written as WGSL: {e}")),
        }
        id
    }
}

/// The calls a [`TracingDevice`] has logged, shared with readbacks still in flight.
pub struct TraceLog {
    backend: String,
    adapter: String,
    state: Mutex<LogState>,
}

impl TraceLog {
    fn lock(&self) -> MutexGuard<'_, LogState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, call: TraceCall) {
        self.lock().calls.push(call);
    }

    /// How many calls are logged so far.
    pub fn len(&self) -> usize {
        self.lock().calls.len()
    }

    /// Whether nothing was logged yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The trace so far. Readbacks not yet waited for have no recorded pixels. Fails, listing
    /// them, when calls referred to what the log never saw made.
    pub fn finish(&self) -> Result<Trace, TraceError> {
        let state = self.lock();
        if !state.gaps.is_empty() {
            return Err(TraceError::Incomplete(state.gaps.clone()));
        }
        Ok(Trace { backend: self.backend.clone(), adapter: self.adapter.clone(), calls: state.calls.clone() })
    }
}

/// A device that logs every call it passes on to the device it wraps (see the
/// [module docs](super)). Handles it hands out are the wrapped device's. It holds the limits
/// it reports ([`DeviceLimits::GUARANTEED`]): textures, geometry, pipelines (their bindings
/// included) and passes past them are refused here, naming the limit, even where the wrapped
/// device would take them, so nothing recorded fails to replay for a limit.
pub struct TracingDevice {
    inner: Arc<dyn GraphicsDevice>,
    features: DeviceFeatures,
    log: Arc<TraceLog>,
}

impl TracingDevice {
    /// Wraps `inner`; the log starts empty.
    pub fn new(inner: Arc<dyn GraphicsDevice>) -> Self {
        let mut features = inner.features().clone();
        features.remove(DeviceFeature::PRESENT);
        let info = inner.adapter_info();
        let log = Arc::new(TraceLog {
            backend: inner.backend_id().to_string(),
            adapter: info.name,
            state: Mutex::new(LogState::default()),
        });
        Self { inner, features, log }
    }

    /// The log, to [`finish`](TraceLog::finish) into a [`Trace`] once the frames are done.
    pub fn log(&self) -> Arc<TraceLog> {
        self.log.clone()
    }
}

impl GraphicsDevice for TracingDevice {
    crate::device::forward_device_queries!();

    fn features(&self) -> &DeviceFeatures {
        &self.features
    }

    fn limits(&self) -> &DeviceLimits {
        &DeviceLimits::GUARANTEED
    }

    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError> {
        backend::check_texture_descriptor(desc, &self.features, self.limits(), &self.backend_id())?;
        let texture = self.inner.create_texture(desc)?;
        let mut log = self.log.lock();
        let id = log.add(&texture);
        log.calls.push(TraceCall::CreateTexture { id, desc: desc.clone() });
        Ok(texture)
    }

    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        self.inner.write_texture(texture, region, data)?;
        let mut log = self.log.lock();
        let texture = log.id(texture);
        log.calls.push(TraceCall::WriteTexture { texture, region, data: data.to_vec() });
        Ok(())
    }

    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        backend::check_geometry_descriptor(desc, data, &self.features, self.limits(), &self.backend_id())?;
        let buffer = self.inner.create_geometry(desc, data)?;
        let mut log = self.log.lock();
        let id = log.add(&buffer);
        log.calls.push(TraceCall::CreateGeometry { id, desc: desc.clone(), data: data.map(<[u8]>::to_vec) });
        Ok(buffer)
    }

    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        self.inner.write_geometry(buffer, offset, data)?;
        let mut log = self.log.lock();
        let buffer = log.id(buffer);
        log.calls.push(TraceCall::WriteGeometry { buffer, offset, data: data.to_vec() });
        Ok(())
    }

    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        let sampler = self.inner.create_sampler(desc)?;
        let mut log = self.log.lock();
        let id = log.add(&sampler);
        log.calls.push(TraceCall::CreateSampler { id, desc: desc.clone() });
        Ok(sampler)
    }

    /// Not a call a trace records: it makes nothing a later call refers to.
    fn prepare_shader(&self, desc: &ShaderDescriptor) -> Result<(), DeviceError> {
        self.inner.prepare_shader(desc)
    }

    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        let shader = self.inner.create_shader(desc)?;
        let mut log = self.log.lock();
        let module = log.module(&desc.module);
        let id = log.add(&shader);
        log.calls.push(TraceCall::CreateShader {
            id,
            label: desc.label.clone(),
            module,
            stage: desc.stage,
            entry_point: desc.entry_point.clone(),
        });
        Ok(shader)
    }

    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        backend::check_pipeline_descriptor(desc, &self.features, self.limits(), &self.backend_id())?;
        let pipeline = self.inner.create_pipeline(desc)?;
        backend::check_binding_limits(pipeline.bindings(), self.limits())?;
        backend::check_render_storage(&desc.label, pipeline.bindings(), self.features(), &self.backend_id())?;
        let mut log = self.log.lock();
        let traced = TracePipeline {
            label: desc.label.clone(),
            vertex: log.id(&desc.vertex),
            fragment: desc.fragment.as_ref().map(|f| log.id(f)),
            vertex_buffers: desc.vertex_buffers.clone(),
            primitive: desc.primitive,
            depth_stencil: desc.depth_stencil,
            color_targets: desc.color_targets.clone(),
            sample_count: desc.sample_count,
            multiview: desc.multiview.map(|v| v.get()),
        };
        let id = log.add(&pipeline);
        log.calls.push(TraceCall::CreatePipeline { id, desc: traced });
        Ok(pipeline)
    }

    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.inner.begin_frame()?;
        self.log.push(TraceCall::BeginFrame);
        Ok(())
    }

    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        backend::check_render_pass(desc, &self.features, self.limits(), &self.backend_id())?;
        let inner = self.inner.begin_render_pass(desc)?;
        let mut log = self.log.lock();
        let pass = TracePass {
            label: desc.label.clone(),
            color_attachments: desc
                .color_attachments
                .iter()
                .map(|a| TraceColorAttachment {
                    view: log.view(&a.view),
                    resolve_target: a.resolve_target.as_ref().map(|v| log.view(v)),
                    load: a.load,
                    store: a.store,
                })
                .collect(),
            depth_stencil_attachment: desc.depth_stencil_attachment.as_ref().map(|d| TraceDepthAttachment {
                view: log.view(&d.view),
                depth_load: d.depth_load,
                depth_store: d.depth_store,
                stencil_load: d.stencil_load,
                stencil_store: d.stencil_store,
            }),
            multiview: desc.multiview.map(|v| v.get()),
            transitions: desc
                .transitions
                .iter()
                .map(|t| TraceTransition { texture: log.id(&t.texture), before: t.before, after: t.after })
                .collect(),
            commands: Vec::new(),
        };
        drop(log);
        Ok(Box::new(TracingEncoder { inner, log: &self.log, pass }))
    }

    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        let pending = self.inner.readback(texture, region)?;
        let index = {
            let mut log = self.log.lock();
            let texture = log.id(texture);
            log.calls.push(TraceCall::Readback { texture, region, recorded: None });
            log.calls.len() - 1
        };
        let log = self.log.clone();
        Ok(PendingReadback::deferred(move || {
            let result = pending.wait();
            if let Ok(image) = &result
                && let Some(TraceCall::Readback { recorded, .. }) = log.lock().calls.get_mut(index)
            {
                *recorded = Some(image.clone());
            }
            result
        }))
    }

    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        self.inner.copy_texture(src, src_region, dst, dst_region)?;
        let mut log = self.log.lock();
        let (src, dst) = (log.id(src), log.id(dst));
        log.calls.push(TraceCall::CopyTexture { src, src_region, dst, dst_region });
        Ok(())
    }

    fn create_query_set(
        &self,
        label: &str,
        kind: QueryKind,
        count: u32,
    ) -> Result<QuerySetHandle, DeviceError> {
        let set = self.inner.create_query_set(label, kind, count)?;
        let mut log = self.log.lock();
        let id = log.add(&set);
        log.calls.push(TraceCall::CreateQuerySet { id, label: label.to_owned(), kind, count });
        Ok(set)
    }

    fn read_query_set(&self, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
        self.inner.read_query_set(set)
    }

    fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor,
    ) -> Result<PipelineHandle, DeviceError> {
        let pipeline = self.inner.create_compute_pipeline(desc)?;
        let mut log = self.log.lock();
        let shader = log.id(&desc.shader);
        let id = log.add(&pipeline);
        log.calls.push(TraceCall::CreateComputePipeline { id, label: desc.label.clone(), shader });
        Ok(pipeline)
    }

    fn dispatch(
        &self,
        pipeline: &PipelineHandle,
        uniforms: &[(&str, &[u8])],
        storage: &[(&str, &GeometryBuffer)],
        groups: [u32; 3],
    ) -> Result<(), DeviceError> {
        self.inner.dispatch(pipeline, uniforms, storage, groups)?;
        let mut log = self.log.lock();
        let call = TraceCall::Dispatch {
            pipeline: log.id(pipeline),
            uniforms: uniforms.iter().map(|(n, b)| ((*n).to_owned(), b.to_vec())).collect(),
            storage: storage.iter().map(|(n, b)| ((*n).to_owned(), log.id(*b))).collect(),
            groups,
        };
        log.calls.push(call);
        Ok(())
    }

    fn read_geometry(&self, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
        self.inner.read_geometry(buffer)
    }
}

/// A pass that logs the commands its wrapped encoder accepts, and the pass when submitted.
struct TracingEncoder<'a> {
    inner: Box<dyn CommandEncoder + 'a>,
    log: &'a TraceLog,
    pass: TracePass,
}

impl TracingEncoder<'_> {
    /// Logs `command` when `result` says the wrapped encoder took the call.
    fn took(
        &mut self,
        result: Result<(), DeviceError>,
        command: impl FnOnce(&mut LogState) -> TraceCommand,
    ) -> Result<(), DeviceError> {
        if result.is_ok() {
            let command = command(&mut self.log.lock());
            self.pass.commands.push(command);
        }
        result
    }

    fn bound(&mut self, accepted: bool, command: impl FnOnce(&mut LogState) -> TraceCommand) -> bool {
        if accepted {
            let command = command(&mut self.log.lock());
            self.pass.commands.push(command);
        }
        accepted
    }
}

impl PassEncoder for TracingEncoder<'_> {
    fn backend(&self) -> BackendId {
        self.inner.backend()
    }

    fn set_pipeline(&mut self, pipeline: &PipelineHandle) -> Result<(), DeviceError> {
        let result = self.inner.set_pipeline(pipeline);
        self.took(result, |log| TraceCommand::SetPipeline(log.id(pipeline)))
    }

    fn pipeline_bindings(&self) -> Option<&BindingLayout> {
        self.inner.pipeline_bindings()
    }

    fn set_viewport(&mut self, viewport: Viewport) -> Result<(), DeviceError> {
        let result = self.inner.set_viewport(viewport);
        self.took(result, |_| TraceCommand::SetViewport(viewport))
    }

    fn set_scissor(&mut self, rect: Option<ScissorRect>) -> Result<(), DeviceError> {
        let result = self.inner.set_scissor(rect);
        self.took(result, |_| TraceCommand::SetScissor(rect))
    }

    fn set_stencil_reference(&mut self, reference: u32) -> Result<(), DeviceError> {
        let result = self.inner.set_stencil_reference(reference);
        self.took(result, |_| TraceCommand::SetStencilReference(reference))
    }

    fn set_blend_constant(&mut self, color: Color) -> Result<(), DeviceError> {
        let result = self.inner.set_blend_constant(color);
        self.took(result, |_| TraceCommand::SetBlendConstant(color))
    }

    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: &GeometryBuffer,
        offset: u64,
    ) -> Result<(), DeviceError> {
        let result = self.inner.set_vertex_buffer(slot, buffer, offset);
        self.took(result, |log| TraceCommand::SetVertexBuffer { slot, buffer: log.id(buffer), offset })
    }

    fn set_index_buffer(
        &mut self,
        buffer: &GeometryBuffer,
        format: IndexFormat,
        offset: u64,
    ) -> Result<(), DeviceError> {
        let result = self.inner.set_index_buffer(buffer, format, offset);
        self.took(result, |log| TraceCommand::SetIndexBuffer { buffer: log.id(buffer), format, offset })
    }

    fn bind_uniform_block_at(&mut self, slot: BindingSlot, bytes: &[u8]) -> bool {
        let accepted = self.inner.bind_uniform_block_at(slot, bytes);
        self.bound(accepted, |_| TraceCommand::BindUniform { slot: slot.0, bytes: bytes.to_vec() })
    }

    fn bind_texture_at(&mut self, slot: BindingSlot, texture: &TextureHandle) -> bool {
        let accepted = self.inner.bind_texture_at(slot, texture);
        self.bound(accepted, |log| TraceCommand::BindTexture { slot: slot.0, texture: log.id(texture) })
    }

    fn bind_storage_buffer_at(&mut self, slot: BindingSlot, buffer: &GeometryBuffer) -> bool {
        let accepted = self.inner.bind_storage_buffer_at(slot, buffer);
        self.bound(accepted, |log| TraceCommand::BindStorage { slot: slot.0, buffer: log.id(buffer) })
    }

    fn bind_sampler_at(&mut self, slot: BindingSlot, sampler: &SamplerHandle) -> bool {
        let accepted = self.inner.bind_sampler_at(slot, sampler);
        self.bound(accepted, |log| TraceCommand::BindSampler { slot: slot.0, sampler: log.id(sampler) })
    }

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) -> Result<(), DeviceError> {
        let result = self.inner.draw(vertices.clone(), instances.clone());
        self.took(result, |_| TraceCommand::Draw { vertices, instances })
    }

    fn draw_indexed(
        &mut self,
        indices: Range<u32>,
        base_vertex: i32,
        instances: Range<u32>,
    ) -> Result<(), DeviceError> {
        let result = self.inner.draw_indexed(indices.clone(), base_vertex, instances.clone());
        self.took(result, |_| TraceCommand::DrawIndexed { indices, base_vertex, instances })
    }

    fn draw_indirect(&mut self, buffer: &GeometryBuffer, offset: u64) -> Result<(), DeviceError> {
        let result = self.inner.draw_indirect(buffer, offset);
        self.took(result, |log| TraceCommand::DrawIndirect { buffer: log.id(buffer), offset })
    }

    fn multi_draw_indirect(
        &mut self,
        buffer: &GeometryBuffer,
        offset: u64,
        count: u32,
    ) -> Result<(), DeviceError> {
        let result = self.inner.multi_draw_indirect(buffer, offset, count);
        self.took(result, |log| TraceCommand::MultiDrawIndirect { buffer: log.id(buffer), offset, count })
    }

    fn write_timestamp(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        let result = self.inner.write_timestamp(set, index);
        self.took(result, |log| TraceCommand::WriteTimestamp { set: log.id(set), index })
    }

    fn begin_occlusion_query(&mut self, set: &QuerySetHandle, index: u32) -> Result<(), DeviceError> {
        let result = self.inner.begin_occlusion_query(set, index);
        self.took(result, |log| TraceCommand::BeginOcclusion { set: log.id(set), index })
    }

    fn end_occlusion_query(&mut self) -> Result<(), DeviceError> {
        let result = self.inner.end_occlusion_query();
        self.took(result, |_| TraceCommand::EndOcclusion)
    }
}

impl CommandEncoder for TracingEncoder<'_> {
    fn submit(self: Box<Self>) -> Result<(), DeviceError> {
        let Self { inner, log, pass } = *self;
        inner.submit()?;
        log.push(TraceCall::Pass(pass));
        Ok(())
    }
}
