//! The soft device.

use std::sync::{Mutex, RwLock};
use std::time::Instant;

use f3d_hal::backend::{self, LiveCounter, MemoryCounter};
use f3d_hal::shader_cache::ShaderCache;
use f3d_hal::{
    AdapterInfo, BackendId, CommandEncoder, DepthRange, DeviceError, DeviceFeature, DeviceFeatures,
    DeviceLimits, DeviceOwner, FormatSupport, FramebufferOrigin, GeometryBuffer, GeometryDescriptor,
    GraphicsDevice, PendingReadback, PipelineDescriptor, PipelineHandle, PipelineRefusal, PipelineRefusals,
    QueryKind, QuerySetDescriptor, QuerySetHandle, RenderPassDescriptor, SamplerDescriptor, SamplerHandle,
    ShaderDescriptor, ShaderHandle, TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
    check_readback,
};

use crate::pipeline::{SoftPipeline, SoftShader};
use crate::raster::srgb::SrgbEncoder;
use crate::texture::{SoftGeometry, SoftQuerySet, SoftSampler, SoftTexture};

/// The soft device: a CPU rasteriser running the engine's naga shaders. See the crate docs.
pub struct SoftDevice {
    owner: DeviceOwner,
    features: DeviceFeatures,
    limits: DeviceLimits,
    live: LiveCounter,
    memory: MemoryCounter,
    refusals: Mutex<PipelineRefusals>,
    epoch: Instant,
    queue: Mutex<()>,
    pub(crate) threads: usize,
    /// A pool of `threads` threads when fewer than rayon's global pool were asked for
    /// ([`with_threads`](Self::with_threads)); passes rasterise inside it.
    pub(crate) pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    pub(crate) pack_quads: bool,
    pub(crate) srgb: SrgbEncoder,
    /// Compiled programs kept between runs (`f3d_hal::shader_cache`).
    shader_cache: ShaderCache,
}

impl SoftDevice {
    /// A new soft device labelled `label`, using every core rayon's pool offers.
    pub fn new(label: &str) -> Self {
        let features = [
            DeviceFeature::COPY_TEXTURE,
            DeviceFeature::INSTANCING,
            DeviceFeature::STENCIL,
            DeviceFeature::BLEND_CONSTANT,
            DeviceFeature::WIREFRAME,
            DeviceFeature::DEPTH_CLIP_CONTROL,
            DeviceFeature::FLOAT32_FILTERABLE,
            DeviceFeature::INDIRECT_DRAW,
            DeviceFeature::MULTI_DRAW_INDIRECT,
            DeviceFeature::OCCLUSION_QUERY,
            DeviceFeature::TIMESTAMP_QUERY,
            DeviceFeature::MSAA,
            DeviceFeature::STORAGE_BUFFERS,
            #[cfg(feature = "present")]
            DeviceFeature::PRESENT,
        ]
        .into_iter()
        .collect();
        Self {
            owner: DeviceOwner::new(BackendId::SOFT, label),
            features,
            limits: DeviceLimits {
                max_texture_dimension_2d: 8192,
                max_color_attachments: 8,
                max_sampler_anisotropy: 1,
                ..DeviceLimits::GUARANTEED
            },
            live: LiveCounter::new(),
            memory: MemoryCounter::new(),
            refusals: Mutex::new(Vec::new()),
            epoch: Instant::now(),
            queue: Mutex::new(()),
            srgb: SrgbEncoder::new(),
            threads: rayon::current_num_threads(),
            pool: None,
            pack_quads: true,
            shader_cache: ShaderCache::from_env(),
        }
    }

    /// This device keeping its compiled programs in `cache` instead of the environment's
    /// shader cache (`ShaderCache::off()` compiles every program in every run).
    pub fn with_shader_cache(mut self, cache: ShaderCache) -> Self {
        self.shader_cache = cache;
        self
    }

    /// The same device restricted to one thread: for benchmarks and determinism tests.
    pub fn single_threaded(label: &str) -> Self {
        let mut device = Self::new(label);
        device.threads = 1;
        device
    }

    /// The same device on `threads` threads (at least 1, at most rayon's global pool, whose
    /// size is the default): what the thread-scaling benchmarks compare. Between 1 and the
    /// global pool's size the device rasterises in a pool of its own of that many threads.
    pub fn with_threads(label: &str, threads: usize) -> Self {
        let mut device = Self::new(label);
        let all = device.threads.max(1);
        device.threads = threads.clamp(1, all);
        if device.threads > 1 && device.threads < all {
            // A pool that cannot be made leaves the global one, and the adapter's name (which
            // states the thread count) says so.
            match rayon::ThreadPoolBuilder::new().num_threads(device.threads).build() {
                Ok(pool) => device.pool = Some(std::sync::Arc::new(pool)),
                Err(_) => device.threads = all,
            }
        }
        device
    }

    /// This device shading every covered 8x8 block of a primitive as a batch of its own.
    /// By default the sparse blocks of a small primitive are packed, quad by quad, into
    /// shared batches (see `raster::rasterize_prim`); the pixels are the same either way, and
    /// this switch lets tests say so and benchmarks show what packing saves.
    pub fn without_quad_packing(mut self) -> Self {
        self.pack_quads = false;
        self
    }

    /// This device without [`STORAGE_BUFFERS`](DeviceFeature::STORAGE_BUFFERS), refusing them
    /// as a device that lacks them does: what a renderer's fallback for such devices (uniform
    /// arrays instead of storage buffers) is tested with.
    pub fn without_storage_buffers(mut self) -> Self {
        self.features.remove(DeviceFeature::STORAGE_BUFFERS);
        self
    }

    pub(crate) fn texture<'a>(
        &self,
        t: &'a TextureHandle,
        op: &'static str,
    ) -> Result<&'a SoftTexture, DeviceError> {
        backend::texture_payload::<SoftTexture>(&self.owner, t, op)
    }

    pub(crate) fn geometry<'a>(
        &self,
        g: &'a GeometryBuffer,
        op: &'static str,
    ) -> Result<&'a SoftGeometry, DeviceError> {
        backend::geometry_payload::<SoftGeometry>(&self.owner, g, op)
    }

    /// Records a pipeline refusal once (by label).
    pub(crate) fn refuse(&self, pipeline: &PipelineHandle, reason: String) {
        let mut refusals = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
        let label = pipeline.label();
        if !refusals.iter().any(|r| r.pipeline == label) {
            refusals.push(PipelineRefusal { pipeline: label, reason });
        }
    }

    /// The device's queue: every operation that touches texels or geometry (uploads, copies,
    /// submits, readbacks) holds it, so they happen one at a time in call order and no two
    /// ever wait on each other's texture locks.
    pub(crate) fn queue(&self) -> std::sync::MutexGuard<'_, ()> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Nanoseconds since the device was made: the timestamp clock.
    pub(crate) fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

fn write_lock<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn read_lock<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

impl GraphicsDevice for SoftDevice {
    fn backend_id(&self) -> BackendId {
        BackendId::SOFT
    }

    fn owner(&self) -> &DeviceOwner {
        &self.owner
    }

    fn adapter_info(&self) -> AdapterInfo {
        AdapterInfo {
            name: format!("f3d soft ({} threads)", self.threads),
            driver: env!("CARGO_PKG_VERSION").into(),
            cpu: true,
        }
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
        FormatSupport::from_facts(format, &self.features)
    }

    fn create_texture(&self, desc: &TextureDescriptor) -> Result<TextureHandle, DeviceError> {
        self.owner.check_alive("create_texture")?;
        backend::check_texture_descriptor(desc, &self.features, &self.limits, &BackendId::SOFT)?;
        let payload = SoftTexture::new(desc, self.live.token(), &self.memory);
        Ok(backend::wrap_texture(&self.owner, desc.clone(), payload))
    }

    fn write_texture(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
        data: &[u8],
    ) -> Result<(), DeviceError> {
        let _queue = self.queue();
        let t = self.texture(texture, "write_texture")?;
        backend::check_write_texture(texture.descriptor(), &region, data.len())?;
        write_lock(&t.store).main.write_region(&region, data);
        Ok(())
    }

    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        self.owner.check_alive("create_geometry")?;
        backend::check_geometry_descriptor(desc, data, &self.features, &self.limits, &BackendId::SOFT)?;
        let bytes = data.map_or_else(|| vec![0; desc.size as usize], <[u8]>::to_vec);
        let payload = SoftGeometry {
            _memory: self.memory.charge(f3d_hal::MemoryKind::Geometry, bytes.len() as u64),
            bytes: RwLock::new(bytes),
            _live: self.live.token(),
        };
        Ok(backend::wrap_geometry(&self.owner, desc.clone(), payload))
    }

    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        let _queue = self.queue();
        let g = self.geometry(buffer, "write_geometry")?;
        backend::check_write_geometry(buffer.descriptor(), offset, data.len())?;
        write_lock(&g.bytes)[offset as usize..offset as usize + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn read_geometry(&self, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
        let _queue = self.queue();
        let g = self.geometry(buffer, "read_geometry")?;
        Ok(g.bytes.read().unwrap_or_else(|e| e.into_inner()).clone())
    }

    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        self.owner.check_alive("create_sampler")?;
        let desc = backend::clamp_sampler(desc, &self.limits)?;
        Ok(backend::wrap_sampler(&self.owner, desc, SoftSampler { _live: self.live.token() }))
    }

    fn check_shader_module(
        &self,
        label: &str,
        module: &std::sync::Arc<f3d_hal::ValidatedModule>,
    ) -> Result<(), String> {
        use f3d_materials::MaterialCompiler;
        f3d_materials::SoftCompiler.check(label, module)
    }

    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        self.owner.check_alive("create_shader")?;
        let payload = SoftShader::compile(desc, self.live.token(), &self.shader_cache)?;
        Ok(backend::wrap_shader(&self.owner, desc.clone(), payload))
    }

    fn prepare_shader(&self, desc: &ShaderDescriptor) -> Result<(), DeviceError> {
        self.owner.check_alive("prepare_shader")?;
        SoftShader::program(desc, &self.shader_cache).map(drop)
    }

    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        self.owner.check_alive("create_pipeline")?;
        backend::check_pipeline_descriptor(desc, &self.features, &self.limits, &BackendId::SOFT)?;
        let (info, payload) = SoftPipeline::new(&self.owner, desc, self.live.token())?;
        backend::check_binding_limits(&info.bindings, &self.limits)?;
        backend::check_render_storage(&desc.label, &info.bindings, &self.features, &BackendId::SOFT)?;
        Ok(backend::wrap_pipeline(&self.owner, info, payload))
    }

    fn begin_frame(&self) -> Result<(), DeviceError> {
        self.owner.check_alive("begin_frame")
    }

    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        self.owner.check_alive("begin_render_pass")?;
        backend::check_render_pass(desc, &self.features, &self.limits, &BackendId::SOFT)?;
        Ok(Box::new(f3d_hal::record::Recorder::begin(self, desc)?))
    }

    fn readback(
        &self,
        texture: &TextureHandle,
        region: TextureRegion,
    ) -> Result<PendingReadback, DeviceError> {
        let _queue = self.queue();
        let t = self.texture(texture, "readback")?;
        check_readback(texture.descriptor(), &region, &BackendId::SOFT)?;
        // Passes run at submit, so the texels are final now; later passes cannot touch this copy.
        let image = read_lock(&t.store).main.readback(texture.descriptor(), &region);
        Ok(PendingReadback::ready(Ok(image)))
    }

    fn live_resources(&self) -> usize {
        self.live.count()
    }

    fn memory_report(&self) -> f3d_hal::MemoryReport {
        self.memory.report()
    }

    fn shader_cache(&self) -> Option<ShaderCache> {
        Some(self.shader_cache.clone())
    }

    fn pipeline_refusals(&self) -> PipelineRefusals {
        self.refusals.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    #[cfg(feature = "present")]
    fn create_surface(
        &self,
        target: &f3d_hal::SurfaceTarget,
        config: &f3d_hal::SurfaceConfig,
    ) -> Result<Box<dyn f3d_hal::PresentSurface>, DeviceError> {
        Ok(Box::new(crate::present::SoftSurface::new(self.owner.link(), target, config)?))
    }

    fn copy_texture(
        &self,
        src: &TextureHandle,
        src_region: TextureRegion,
        dst: &TextureHandle,
        dst_region: TextureRegion,
    ) -> Result<(), DeviceError> {
        let _queue = self.queue();
        const OP: &str = "copy_texture";
        let s = self.texture(src, OP)?;
        let d = self.texture(dst, OP)?;
        backend::check_copy_texture(src, &src_region, dst, &dst_region)?;
        let texels = read_lock(&s.store).main.read_region(&src_region);
        write_lock(&d.store).main.write_region(&dst_region, &texels);
        Ok(())
    }

    fn create_query_set(
        &self,
        label: &str,
        kind: QueryKind,
        count: u32,
    ) -> Result<QuerySetHandle, DeviceError> {
        self.owner.check_alive("create_query_set")?;
        if count == 0 || count > 4096 {
            return Err(DeviceError::LimitExceeded {
                operation: "create_query_set",
                limit: "query count",
                requested: count.into(),
                max: 4096,
            });
        }
        let desc = QuerySetDescriptor { label: label.into(), kind, count };
        let payload = SoftQuerySet { values: Mutex::new(vec![0; count as usize]), _live: self.live.token() };
        Ok(backend::wrap_query_set(&self.owner, desc, payload))
    }

    fn read_query_set(&self, set: &QuerySetHandle) -> Result<Vec<u64>, DeviceError> {
        let q = backend::query_set_payload::<SoftQuerySet>(&self.owner, set, "read_query_set")?;
        Ok(q.values.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }
}
