//! The wgpu device: [`GraphicsDevice`] over a `wgpu::Device` and its queue.

use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use f3d_hal::backend::{self, LiveCounter, LiveToken, MemoryCounter, check_region};
use f3d_hal::shader_cache::{CacheKey, ShaderCache};
use f3d_hal::{
    AdapterInfo, BackendId, CommandEncoder, ComputePipelineDescriptor, DepthRange, DeviceError,
    DeviceFeature, DeviceFeatures, DeviceLimits, DeviceOwner, DeviceRequest, FormatSupport,
    FramebufferOrigin, GeometryBuffer, GeometryDescriptor, GraphicsDevice, LossReason, MemoryKind,
    MemoryReport, OpenError, PendingReadback, PipelineDescriptor, PipelineHandle, PipelineRefusal,
    PipelineRefusals, QueryKind, QuerySetHandle, RenderPassDescriptor, SamplerDescriptor, SamplerHandle,
    ShaderDescriptor, ShaderHandle, ShaderStage, TextureDescriptor, TextureFormat, TextureHandle,
    TextureRegion, check_readback,
};

use crate::adapter::{self, Grant, Opened};
use crate::conv;
use crate::pipeline::{Compiled, WgpuPipeline, WgpuShader};
use crate::readback::{LossCell, block_on, read_buffer, read_texture};
use crate::ring::UniformRing;
use crate::texture::{
    WgpuGeometry, WgpuSampler, WgpuTexture, align4, buffer_usages, copy_extent, copy_origin, format_support,
    texture_descriptor,
};

/// The wgpu device. See the crate docs.
pub struct WgpuDevice {
    owner: DeviceOwner,
    // The wgpu objects that keep the driver's device alive are dropped by hand, under the
    // driver lifecycle turn (see `Drop`).
    instance: ManuallyDrop<wgpu::Instance>,
    adapter: ManuallyDrop<wgpu::Adapter>,
    pub(crate) device: ManuallyDrop<wgpu::Device>,
    pub(crate) queue: ManuallyDrop<wgpu::Queue>,
    pub(crate) grant: Grant,
    info: AdapterInfo,
    features: DeviceFeatures,
    limits: DeviceLimits,
    formats: HashMap<TextureFormat, FormatSupport>,
    live: LiveCounter,
    /// What f3d asked wgpu for, by kind (wgpu's own rounding and deferred frees are not
    /// visible through its API, so `retiring` stays 0).
    pub(crate) memory: MemoryCounter,
    next_id: AtomicU64,
    refusals: Mutex<PipelineRefusals>,
    pub(crate) ring: ManuallyDrop<Mutex<UniformRing>>,
    pub(crate) loss: LossCell,
    uncaptured: Arc<Mutex<Vec<String>>>,
    /// The driver's pipeline cache, when wgpu has one for this adapter (Vulkan), read from the
    /// shader cache on disk at open and written back when the device drops.
    pub(crate) pipeline_cache: Option<wgpu::PipelineCache>,
    shader_cache: ShaderCache,
    pipeline_cache_key: Option<CacheKey>,
}

impl WgpuDevice {
    /// Opens a device on the adapter `request` prefers: instance → adapter → device, asking
    /// for the features f3d uses that the adapter has and for the adapter's limits.
    /// [`OpenError::DeviceUnavailable`] (with a sentence saying why) when there is no adapter,
    /// so a registry moves on to the next backend.
    pub fn open(request: &DeviceRequest) -> Result<Self, OpenError> {
        Self::open_with_shader_cache(request, ShaderCache::from_env())
    }

    /// [`open`](Self::open) keeping the driver's pipeline cache in `cache` (the environment's
    /// shader cache otherwise: `f3d_hal::shader_cache`).
    pub fn open_with_shader_cache(request: &DeviceRequest, cache: ShaderCache) -> Result<Self, OpenError> {
        // NVIDIA's driver deadlocks on devices made and destroyed at once (see `Drop`).
        let turn = f3d_hal::backend::driver_lifecycle_turn();
        let opened = adapter::open(adapter::instance(request), request, None);
        drop(turn);
        opened.map(|opened| Self::from_opened(opened, &request.label, cache))
    }

    /// Opens a device from an instance the caller made, able to present to `surface` (the
    /// presenter's path: the instance must know the window's display).
    pub fn open_for_surface(
        instance: wgpu::Instance,
        surface: &wgpu::Surface<'_>,
        request: &DeviceRequest,
    ) -> Result<Self, OpenError> {
        let turn = f3d_hal::backend::driver_lifecycle_turn();
        let opened = adapter::open(instance, request, Some(surface));
        drop(turn);
        opened.map(|opened| Self::from_opened(opened, &request.label, ShaderCache::from_env()))
    }

    fn from_opened(opened: Opened, label: &str, shader_cache: ShaderCache) -> Self {
        let Opened { instance, adapter, device, queue, grant } = opened;
        let features = adapter::hal_features(&adapter, &grant);
        let limits = adapter::hal_limits(&grant);
        let formats =
            TextureFormat::ALL.iter().map(|&f| (f, format_support(&adapter, &grant, &features, f))).collect();
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        // wgpu's default handler panics; every error f3d can foresee is caught in an error
        // scope around the call that made it, and whatever escapes is kept here, not thrown.
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(e.to_string());
        }));
        let loss: LossCell = Arc::new(Mutex::new(None));
        let cell = loss.clone();
        device.set_device_lost_callback(move |reason, message| {
            let mut lost = cell.lock().unwrap_or_else(|p| p.into_inner());
            if lost.is_none() && reason != wgpu::DeviceLostReason::Destroyed {
                *lost = Some(LossReason::Driver(message));
            }
        });
        let wi = adapter.get_info();
        let info = AdapterInfo {
            name: wi.name.clone(),
            driver: format!("{:?} {} {}", wi.backend, wi.driver, wi.driver_info).trim().to_owned(),
            cpu: wi.device_type == wgpu::DeviceType::Cpu,
        };
        let memory = MemoryCounter::new();
        let ring = UniformRing::new(&device, grant.limits.min_uniform_buffer_offset_alignment, &memory);
        let (pipeline_cache, pipeline_cache_key) = open_pipeline_cache(&device, &grant, &wi, &shader_cache);
        Self {
            owner: DeviceOwner::new(BackendId::WGPU, label),
            instance: ManuallyDrop::new(instance),
            adapter: ManuallyDrop::new(adapter),
            device: ManuallyDrop::new(device),
            queue: ManuallyDrop::new(queue),
            grant,
            info,
            features,
            limits,
            formats,
            live: LiveCounter::new(),
            memory,
            next_id: AtomicU64::new(1),
            refusals: Mutex::new(Vec::new()),
            ring: ManuallyDrop::new(Mutex::new(ring)),
            loss,
            uncaptured,
            pipeline_cache,
            shader_cache,
            pipeline_cache_key,
        }
    }

    /// Writes the driver's pipeline cache back to the shader cache on disk.
    fn save_pipeline_cache(&self) {
        let (Some(cache), Some(key)) = (&self.pipeline_cache, &self.pipeline_cache_key) else { return };
        if let Some(data) = cache.get_data().filter(|d| !d.is_empty()) {
            self.shader_cache.put(key, &data);
        }
    }

    /// The wgpu instance the device came from.
    pub fn wgpu_instance(&self) -> &wgpu::Instance {
        &self.instance
    }

    /// The wgpu adapter.
    pub fn wgpu_adapter(&self) -> &wgpu::Adapter {
        &self.adapter
    }

    /// The wgpu device, for presenters and benchmarks that drive wgpu directly.
    pub fn wgpu_device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue.
    pub fn wgpu_queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The wgpu features the device was granted (the intersection of what f3d uses and what
    /// the adapter has).
    pub fn wgpu_features(&self) -> wgpu::Features {
        self.grant.features
    }

    /// The wgpu texture behind `texture`, for presenters (refuses foreign handles and lost
    /// devices, like every operation).
    pub fn wgpu_texture<'a>(&self, texture: &'a TextureHandle) -> Result<&'a wgpu::Texture, DeviceError> {
        self.texture(texture, "wgpu_texture").map(|t| &t.texture)
    }

    /// wgpu errors that escaped every error scope (none are expected), oldest first; taking
    /// them empties the list.
    pub fn wgpu_take_uncaptured_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.uncaptured.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn live_token(&self) -> LiveToken {
        self.live.token()
    }

    pub(crate) fn next_id(&self) -> u64 {
        self.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// `Ok` while the device lives; a loss the driver reported is taken over first.
    pub(crate) fn alive(&self, operation: &'static str) -> Result<(), DeviceError> {
        if let Some(reason) = self.loss.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            self.owner.lose(reason);
        }
        self.owner.check_alive(operation)
    }

    pub(crate) fn texture<'a>(
        &self,
        t: &'a TextureHandle,
        operation: &'static str,
    ) -> Result<&'a WgpuTexture, DeviceError> {
        self.alive(operation)?;
        backend::texture_payload::<WgpuTexture>(&self.owner, t, operation)
    }

    pub(crate) fn geometry<'a>(
        &self,
        g: &'a GeometryBuffer,
        operation: &'static str,
    ) -> Result<&'a WgpuGeometry, DeviceError> {
        self.alive(operation)?;
        backend::geometry_payload::<WgpuGeometry>(&self.owner, g, operation)
    }

    pub(crate) fn support(&self, format: TextureFormat) -> FormatSupport {
        self.formats.get(&format).copied().unwrap_or(FormatSupport::NONE)
    }

    /// Runs `f` (wgpu calls for `operation`) inside error scopes, so wgpu's validation and
    /// allocation errors come back as values instead of reaching the uncaptured handler.
    /// `bytes` is what the operation allocates, for out-of-memory reports.
    pub(crate) fn scoped<T>(
        &self,
        operation: &'static str,
        bytes: u64,
        f: impl FnOnce() -> T,
    ) -> Result<T, DeviceError> {
        scoped_on(&self.device, operation, bytes, f)
    }

    /// A link to the device's identity for what outlives a call (window surfaces).
    pub(crate) fn owner_link(&self) -> f3d_hal::OwnerLink {
        self.owner.link()
    }

    /// Reports a pipeline's refusal the first time it is drawn with.
    pub(crate) fn refuse_once(&self, pipeline: &PipelineHandle, payload: &WgpuPipeline) {
        let Compiled::Refused(reason) = &payload.compiled else { return };
        if !payload.refusal_reported.swap(true, Ordering::AcqRel) {
            let mut refusals = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
            refusals.push(PipelineRefusal { pipeline: pipeline.label(), reason: reason.clone() });
        }
    }

    /// The allowed wgpu usages of `format` on this device.
    fn allowed_usages(&self, format: TextureFormat) -> wgpu::TextureUsages {
        conv::format(format)
            .map(|f| adapter::format_features(&self.adapter, &self.grant, f).allowed_usages)
            .unwrap_or(wgpu::TextureUsages::empty())
    }

    pub(crate) fn check_formats_for_pipeline(&self, desc: &PipelineDescriptor) -> Result<(), DeviceError> {
        let invalid = |reason: String| DeviceError::InvalidDescriptor {
            operation: "create_pipeline",
            label: desc.label.clone(),
            reason,
        };
        for t in &desc.color_targets {
            let s = self.support(t.format);
            if !s.renderable {
                return Err(invalid(format!("{} is not renderable on this adapter", t.format)));
            }
            if t.blend.is_some() && !s.blendable {
                return Err(invalid(format!("{} cannot be blended on this adapter", t.format)));
            }
            if desc.sample_count > 1 && !s.multisample {
                return Err(invalid(format!("{} cannot be multisampled on this adapter", t.format)));
            }
        }
        if let Some(ds) = &desc.depth_stencil {
            let s = self.support(ds.format);
            if !s.renderable || (desc.sample_count > 1 && !s.multisample) {
                return Err(invalid(format!(
                    "{} cannot be this pipeline's depth attachment here",
                    ds.format
                )));
            }
        }
        Ok(())
    }
}

impl GraphicsDevice for WgpuDevice {
    fn backend_id(&self) -> BackendId {
        BackendId::WGPU
    }

    fn owner(&self) -> &DeviceOwner {
        &self.owner
    }

    fn adapter_info(&self) -> AdapterInfo {
        self.info.clone()
    }

    fn default_color_format(&self) -> TextureFormat {
        TextureFormat::Rgba8UnormSrgb
    }

    fn default_depth_stencil_format(&self) -> TextureFormat {
        TextureFormat::Depth24PlusStencil8
    }

    fn hdr_color_format(&self) -> TextureFormat {
        TextureFormat::Rgba16Float
    }

    fn framebuffer_origin(&self) -> FramebufferOrigin {
        // WebGPU's framebuffer coordinates have row 0 at the top on every API underneath.
        FramebufferOrigin::TopLeft
    }

    fn depth_range(&self) -> DepthRange {
        DepthRange::ZeroToOne
    }

    fn features(&self) -> &DeviceFeatures {
        &self.features
    }

    fn limits(&self) -> &DeviceLimits {
        &self.limits
    }

    fn texture_format_support(&self, format: TextureFormat) -> FormatSupport {
        self.support(format)
    }

    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError> {
        const OP: &str = "create_texture";
        self.alive(OP)?;
        backend::check_texture_descriptor(desc, &self.features, &self.limits, &BackendId::WGPU)?;
        let wdesc = texture_descriptor(desc, self.support(desc.format), self.allowed_usages(desc.format))?;
        let texture = self.scoped(OP, desc.total_bytes(), || self.device.create_texture(&wdesc))?;
        let memory = self.memory.charge(MemoryKind::Textures, desc.total_bytes());
        let payload = WgpuTexture::new(self.next_id(), texture, desc, self.live_token(), memory);
        Ok(backend::wrap_texture(&self.owner, desc.clone(), payload))
    }

    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        const OP: &str = "write_texture";
        let t = self.texture(texture, OP)?;
        let desc = texture.descriptor();
        backend::check_write_texture(desc, &region, data.len())?;
        let layout = crate::readback::RowLayout::of(desc, &region);
        self.scoped(OP, 0, || {
            self.queue.write_texture(
                copy_origin(&t.texture, &region),
                data,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(layout.row_bytes),
                    rows_per_image: Some(layout.rows),
                },
                copy_extent(desc.format, &region),
            )
        })
    }

    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        const OP: &str = "create_geometry";
        self.alive(OP)?;
        backend::check_geometry_descriptor(desc, data, &self.features, &self.limits, &BackendId::WGPU)?;
        let size = align4(desc.size);
        let buffer = self.scoped(OP, size, || {
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&desc.label),
                size,
                usage: buffer_usages(desc.usage),
                mapped_at_creation: data.is_some(),
            });
            if let Some(data) = data {
                // A fresh mapping of the whole buffer cannot be refused; if wgpu disagrees,
                // the error scope reports it and the buffer stays zeroed.
                if let Ok(mut view) = buffer.get_mapped_range_mut(..) {
                    view.slice(..data.len()).copy_from_slice(data);
                }
                buffer.unmap();
            }
            buffer
        })?;
        let payload = WgpuGeometry {
            id: self.next_id(),
            buffer,
            _live: self.live_token(),
            _memory: self.memory.charge(MemoryKind::Geometry, size),
        };
        Ok(backend::wrap_geometry(&self.owner, desc.clone(), payload))
    }

    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        const OP: &str = "write_geometry";
        let g = self.geometry(buffer, OP)?;
        backend::check_write_geometry(buffer.descriptor(), offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        let len = data.len() as u64;
        let (start, end) = (offset / 4 * 4, align4(offset + len));
        if (start, end) == (offset, offset + len) {
            return self.scoped(OP, 0, || self.queue.write_buffer(&g.buffer, offset, data));
        }
        // wgpu writes whole 4-byte words: read the words the write only partly covers (the
        // copy is ordered after every earlier operation), then write whole words.
        let head = (&g.buffer, start, 4);
        let tail = (&g.buffer, end - 4, 4);
        let edges = read_buffer(&self.device, &self.queue, &self.loss, OP, &[head, tail])?;
        let mut words = vec![0u8; (end - start) as usize];
        words[..4].copy_from_slice(&edges[..4]);
        let n = words.len();
        words[n - 4..].copy_from_slice(&edges[4..8]);
        words[(offset - start) as usize..(offset - start + len) as usize].copy_from_slice(data);
        self.scoped(OP, 0, || self.queue.write_buffer(&g.buffer, start, &words))
    }

    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        const OP: &str = "create_sampler";
        self.alive(OP)?;
        let mut desc = backend::clamp_sampler(desc, &self.limits)?;
        let linear = [desc.mag_filter, desc.min_filter, desc.mipmap_filter]
            .iter()
            .all(|f| *f == f3d_hal::FilterMode::Linear);
        if !linear {
            // wgpu (and every API under it) only filters anisotropically when all filters are
            // linear; anything else samples as anisotropy 1.
            desc.max_anisotropy = 1;
        }
        let sampler = self.scoped(OP, 0, || {
            self.device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some(&desc.label),
                address_mode_u: conv::address_mode(desc.address_mode[0]),
                address_mode_v: conv::address_mode(desc.address_mode[1]),
                address_mode_w: conv::address_mode(desc.address_mode[2]),
                mag_filter: conv::filter(desc.mag_filter),
                min_filter: conv::filter(desc.min_filter),
                mipmap_filter: conv::mipmap_filter(desc.mipmap_filter),
                lod_min_clamp: desc.lod_min_clamp,
                lod_max_clamp: desc.lod_max_clamp,
                compare: desc.compare.map(conv::compare),
                anisotropy_clamp: desc.max_anisotropy,
                border_color: None,
            })
        })?;
        let payload = WgpuSampler { id: self.next_id(), sampler, _live: self.live_token() };
        Ok(backend::wrap_sampler(&self.owner, desc, payload))
    }

    fn shader_cache(&self) -> Option<ShaderCache> {
        // What wgpu keeps on disk is the driver's pipeline cache: there is none off Vulkan.
        self.grant.features.contains(wgpu::Features::PIPELINE_CACHE).then(|| self.shader_cache.clone())
    }

    fn check_shader_module(
        &self,
        label: &str,
        module: &std::sync::Arc<f3d_hal::ValidatedModule>,
    ) -> Result<(), String> {
        use f3d_materials::MaterialCompiler;
        crate::WgpuCompiler::for_device(self).check(label, module)
    }

    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        const OP: &str = "create_shader";
        self.alive(OP)?;
        if desc.module.entry_point_index(desc.stage, &desc.entry_point).is_none() {
            return Err(DeviceError::Shader {
                label: desc.label.clone(),
                message: format!("the module has no {} entry point named {}", desc.stage, desc.entry_point),
            });
        }
        if desc.stage == ShaderStage::Compute && !self.features.has(DeviceFeature::COMPUTE) {
            return Err(DeviceError::Unsupported {
                feature: DeviceFeature::COMPUTE,
                backend: BackendId::WGPU,
            });
        }
        let module = self
            .scoped(OP, 0, || {
                self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&desc.label),
                    source: wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(desc.module.module().clone())),
                })
            })
            .map_err(|e| DeviceError::Shader { label: desc.label.clone(), message: e.to_string() })?;
        let payload = WgpuShader { module, _live: self.live_token() };
        Ok(backend::wrap_shader(&self.owner, desc.clone(), payload))
    }

    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        crate::pipeline::create_render_pipeline(self, desc)
    }

    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.alive("begin_frame")
    }

    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        const OP: &str = "begin_render_pass";
        self.alive(OP)?;
        backend::check_render_pass(desc, &self.features, &self.limits, &BackendId::WGPU)?;
        crate::pass::check_begin(self, desc)?;
        Ok(Box::new(f3d_hal::record::Recorder::begin(self, desc)?))
    }

    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        const OP: &str = "readback";
        let t = self.texture(texture, OP)?;
        check_readback(texture.descriptor(), &region, &BackendId::WGPU)?;
        self.scoped(OP, 0, || {
            read_texture(&self.device, &self.queue, &self.loss, &t.texture, texture.descriptor(), region)
        })
    }

    fn live_resources(&self) -> usize {
        self.live.count()
    }

    fn memory_report(&self) -> MemoryReport {
        self.memory.report()
    }

    fn pipeline_refusals(&self) -> PipelineRefusals {
        self.refusals.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn simulate_loss(&self, why: &str) {
        let reason = LossReason::Simulated(why.to_owned());
        {
            let mut lost = self.loss.lock().unwrap_or_else(|e| e.into_inner());
            if lost.is_none() {
                *lost = Some(reason.clone());
            }
        }
        self.owner.lose(reason);
        // As a driver reset would: the wgpu device is gone too, so nothing still in flight
        // can complete (waiters answer `Lost`).
        self.device.destroy();
    }

    fn create_surface(
        &self,
        target: &f3d_hal::SurfaceTarget,
        config: &f3d_hal::SurfaceConfig,
    ) -> Result<Box<dyn f3d_hal::PresentSurface>, DeviceError> {
        Ok(Box::new(crate::present::WgpuSurface::new(self, target, config)?))
    }

    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        const OP: &str = "copy_texture";
        let s = self.texture(src, OP)?;
        let d = self.texture(dst, OP)?;
        backend::check_copy_texture(src, &src_region, dst, &dst_region)?;
        check_region(OP, dst.descriptor(), &dst_region)?;
        let extent = copy_extent(src.descriptor().format, &src_region);
        // WebGPU refuses a copy within one subresource even where the rectangles do not
        // overlap (the HAL allows it): such a copy goes through a scratch texture.
        let same_subresource = src.same(dst)
            && src_region.mip_level == dst_region.mip_level
            && src_region.layer == dst_region.layer;
        self.scoped(OP, 0, || {
            let mut encoder =
                self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(OP) });
            if same_subresource {
                let scratch = self.device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("f3d copy scratch"),
                    size: extent,
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: s.texture.format(),
                    usage: wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                });
                let whole = TextureRegion::rect(0, 0, extent.width, extent.height);
                encoder.copy_texture_to_texture(
                    copy_origin(&s.texture, &src_region),
                    copy_origin(&scratch, &whole),
                    extent,
                );
                encoder.copy_texture_to_texture(
                    copy_origin(&scratch, &whole),
                    copy_origin(&d.texture, &dst_region),
                    extent,
                );
            } else {
                encoder.copy_texture_to_texture(
                    copy_origin(&s.texture, &src_region),
                    copy_origin(&d.texture, &dst_region),
                    extent,
                );
            }
            self.queue.submit([encoder.finish()]);
        })
    }

    fn create_query_set(
        &self,
        label: &str,
        kind: QueryKind,
        count: u32,
    ) -> Result<QuerySetHandle, DeviceError> {
        crate::query::create_query_set(self, label, kind, count)
    }

    fn read_query_set(&self, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
        crate::query::read_query_set(self, set)
    }

    fn create_compute_pipeline(
        &self,
        desc: &ComputePipelineDescriptor,
    ) -> Result<PipelineHandle, DeviceError> {
        crate::compute::create_compute_pipeline(self, desc)
    }

    fn dispatch(
        &self,
        pipeline: &PipelineHandle,
        uniforms: &[(&str, &[u8])],
        storage: &[(&str, &GeometryBuffer)],
        groups: [u32; 3],
    ) -> Result<(), DeviceError> {
        crate::compute::dispatch(self, pipeline, uniforms, storage, groups)
    }

    fn read_geometry(&self, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
        crate::compute::read_geometry(self, buffer)
    }
}

/// Runs `f` inside error scopes on `device` and turns what wgpu reports into the HAL's error
/// naming `operation` (see [`WgpuDevice::scoped`]).
pub(crate) fn scoped_on<T>(
    device: &wgpu::Device,
    operation: &'static str,
    bytes: u64,
    f: impl FnOnce() -> T,
) -> Result<T, DeviceError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let internal = device.push_error_scope(wgpu::ErrorFilter::Internal);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    // Scopes pop innermost first.
    let errors = [block_on(validation.pop()), block_on(internal.pop()), block_on(oom.pop())];
    match errors.into_iter().flatten().next() {
        None => Ok(out),
        Some(wgpu::Error::OutOfMemory { .. }) => Err(DeviceError::OutOfMemory { operation, bytes }),
        Some(e) => Err(DeviceError::Backend { operation, backend: BackendId::WGPU, message: e.to_string() }),
    }
}

impl Drop for WgpuDevice {
    fn drop(&mut self) {
        self.save_pipeline_cache();
        // NVIDIA's driver deadlocks when devices are destroyed while others are made or
        // destroyed (`f3d_hal::backend::driver_lifecycle_turn`): what this device holds of
        // wgpu goes under the turn. wgpu destroys the driver's device with the last of its
        // objects, so one an app still holds (a buffer, a texture) ends it later, unturned.
        let _turn = f3d_hal::backend::driver_lifecycle_turn();
        self.pipeline_cache = None;
        // SAFETY: each is dropped once, here, and never used again (the device is going).
        unsafe {
            ManuallyDrop::drop(&mut self.ring);
            ManuallyDrop::drop(&mut self.queue);
            ManuallyDrop::drop(&mut self.device);
            ManuallyDrop::drop(&mut self.adapter);
            ManuallyDrop::drop(&mut self.instance);
        }
    }
}

/// The driver's pipeline cache for this adapter (wgpu keeps one on Vulkan only), seeded with
/// the data an earlier run saved in `shader_cache` under a key naming wgpu's adapter key and
/// the driver; with its key, for saving. A miss counts as a compile. Data another wgpu
/// release wrote is recognised by wgpu's own header and ignored (`fallback`), then replaced
/// when this device drops.
fn open_pipeline_cache(
    device: &wgpu::Device,
    grant: &Grant,
    info: &wgpu::AdapterInfo,
    shader_cache: &ShaderCache,
) -> (Option<wgpu::PipelineCache>, Option<CacheKey>) {
    if !grant.features.contains(wgpu::Features::PIPELINE_CACHE) || shader_cache.dir().is_none() {
        return (None, None);
    }
    let Some(adapter_key) = wgpu::util::pipeline_cache_key(info) else { return (None, None) };
    let key = CacheKey::of(&[
        b"wgpu pipeline cache",
        adapter_key.as_bytes(),
        info.driver.as_bytes(),
        info.driver_info.as_bytes(),
    ]);
    let data = shader_cache.get(&key);
    if data.is_none() {
        shader_cache.note_compile();
    }
    // SAFETY: the data, if any, is what `PipelineCache::get_data` returned for an adapter of
    // the same wgpu cache key and driver (the entry's checksum held); wgpu checks its own
    // header (its release among it) and the driver its, and `fallback` makes an unusable
    // blob an empty cache.
    let cache = unsafe {
        device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: Some("f3d pipeline cache"),
            data: data.as_deref(),
            fallback: true,
        })
    };
    (Some(cache), Some(key))
}
