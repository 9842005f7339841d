//! The Vulkan device: [`GraphicsDevice`] over an ash device and its graphics queue.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ash::vk;
use f3d_hal::backend::{self, LiveCounter, check_region};
use f3d_hal::{
    AdapterInfo, BackendId, CommandEncoder, ComputePipelineDescriptor, DepthRange, DeviceError,
    DeviceFeature, DeviceFeatures, DeviceLimits, DeviceOwner, DeviceRequest, FilterMode, FormatSupport,
    FramebufferOrigin, GeometryBuffer, GeometryDescriptor, GeometryUsages, GraphicsDevice, LossReason,
    MemoryKind, MemoryReport, OpenError, PendingReadback, PipelineDescriptor, PipelineHandle,
    PipelineRefusal, PipelineRefusals, PresentSurface, QueryKind, QuerySetHandle, RenderPassDescriptor,
    SamplerDescriptor, SamplerHandle, ShaderDescriptor, ShaderHandle, ShaderStage, SurfaceConfig,
    SurfaceTarget, TextureDescriptor, TextureFormat, TextureHandle, TextureRegion, check_readback,
};

use crate::alloc::{BufferPlan, ImagePlan, create_buffer, create_image};
use crate::barrier::{Need, Use, prepare};
use crate::compiler::{ShaderCaps, cached_entry_spirv};
use crate::conv;
use crate::instance::{Instance, ValidationLog, open_device};
use crate::pipeline::{VkPipeline, VkShader};
use crate::readback::{buffer_of, read_texture, staging_upload};
use crate::swapchain::VkSurface;
use crate::sync::{ObjectCounter, Resource, Shared, WatchSettings};
use crate::texture::{FormatTable, VkGeometry, VkSampler, VkTexture, buffer_usage};
use f3d_hal::shader_cache::ShaderCache;

/// Bytes of uploads the open command buffer may collect before it is submitted on its own.
const UPLOAD_FLUSH_BYTES: u64 = 64 << 20;

/// How to open a [`VulkanDevice`] beyond the [`DeviceRequest`].
#[derive(Clone, Debug, Default)]
pub struct VulkanOptions {
    validation_log: Option<ValidationLog>,
    pipeline_cache_dir: Option<PathBuf>,
    no_pipeline_cache: bool,
}

impl VulkanOptions {
    /// The defaults: validation layers when the request asks for validation, the pipeline cache
    /// in the default cache folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Turns on the validation layers whatever the request says, collecting their messages in
    /// `log` (which may be shared by several devices).
    pub fn with_validation_log(mut self, log: ValidationLog) -> Self {
        self.validation_log = Some(log);
        self
    }

    /// Keeps the pipeline cache under `dir` (in `dir/vulkan/`).
    pub fn with_pipeline_cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.pipeline_cache_dir = Some(dir.into());
        self.no_pipeline_cache = false;
        self
    }

    /// Neither reads nor writes a pipeline cache on disk.
    pub fn without_pipeline_cache(mut self) -> Self {
        self.no_pipeline_cache = true;
        self
    }
}

/// The Vulkan device. See the crate docs.
pub struct VulkanDevice {
    owner: DeviceOwner,
    pub(crate) shared: Arc<Shared>,
    info: AdapterInfo,
    features: DeviceFeatures,
    limits: DeviceLimits,
    live: LiveCounter,
    refusals: Mutex<PipelineRefusals>,
    shader_caps: ShaderCaps,
    shader_cache: ShaderCache,
}

fn unavailable(reason: String) -> OpenError {
    OpenError::DeviceUnavailable { backend: BackendId::VULKAN, reason }
}

/// The HAL features that do not depend on formats: what the device enabled and this backend
/// implements. `FormatTable::build` adds the format-dependent ones.
fn base_features(caps: &crate::instance::Caps) -> DeviceFeatures {
    let e = &caps.enabled;
    let mut out = DeviceFeatures::empty()
        .with(DeviceFeature::COPY_TEXTURE)
        .with(DeviceFeature::INSTANCING)
        .with(DeviceFeature::BLEND_CONSTANT)
        .with(DeviceFeature::COMPUTE)
        .with(DeviceFeature::STORAGE_BUFFERS);
    let mut add = |feature, when: bool| {
        if when {
            out.insert(feature);
        }
    };
    add(DeviceFeature::TIMESTAMP_QUERY, caps.timestamp_period.is_some());
    // The HAL's occlusion queries are exact sample counts.
    add(DeviceFeature::OCCLUSION_QUERY, e.occlusion_query_precise);
    // Indirect arguments carry a first instance.
    add(DeviceFeature::INDIRECT_DRAW, e.draw_indirect_first_instance);
    add(DeviceFeature::MULTI_DRAW_INDIRECT, e.draw_indirect_first_instance && e.multi_draw_indirect);
    add(DeviceFeature::WIREFRAME, e.fill_mode_non_solid);
    add(DeviceFeature::MULTIVIEW, caps.max_multiview_views >= 2);
    add(DeviceFeature::DEPTH_CLIP_CONTROL, e.depth_clamp);
    // Only enabled where the instance has VK_KHR_surface too (see `instance.rs`).
    add(DeviceFeature::PRESENT, e.swapchain);
    out
}

fn hal_limits(caps: &crate::instance::Caps) -> DeviceLimits {
    let l = &caps.limits;
    let max_2d = l
        .max_image_dimension2_d
        .min(l.max_image_dimension_cube)
        .min(l.max_framebuffer_width)
        .min(l.max_framebuffer_height)
        .min(l.max_viewport_dimensions[0])
        .min(l.max_viewport_dimensions[1]);
    let mut buffer = caps.max_allocation_size;
    if caps.max_buffer_size > 0 {
        buffer = buffer.min(caps.max_buffer_size);
    }
    DeviceLimits {
        max_texture_dimension_2d: max_2d,
        max_texture_array_layers: l.max_image_array_layers,
        max_uniform_block_size: l.max_uniform_buffer_range,
        max_uniform_blocks_per_stage: l
            .max_per_stage_descriptor_uniform_buffers
            .min(l.max_descriptor_set_uniform_buffers_dynamic),
        max_sampled_textures_per_stage: l.max_per_stage_descriptor_sampled_images,
        max_samplers_per_stage: l.max_per_stage_descriptor_samplers,
        max_vertex_attributes: l.max_vertex_input_attributes,
        max_vertex_buffers: l.max_vertex_input_bindings,
        max_vertex_stride: l.max_vertex_input_binding_stride,
        max_color_attachments: l.max_color_attachments.min(l.max_fragment_output_attachments),
        max_sampler_anisotropy: if caps.enabled.sampler_anisotropy {
            l.max_sampler_anisotropy.clamp(1.0, 16.0) as u16
        } else {
            1
        },
        max_geometry_buffer_size: buffer,
    }
    .within_reported_caps()
}

/// [`VulkanDevice::checked`] for code that holds the shared state only (a window's surface).
pub(crate) fn checked<T>(
    shared: &Shared,
    operation: &'static str,
    f: impl FnOnce() -> Result<T, DeviceError>,
) -> Result<T, DeviceError> {
    let Some(log) = shared.instance.log.as_ref() else { return f() };
    let before = log.len();
    let out = f();
    if log.len() > before {
        return Err(DeviceError::Backend {
            operation,
            backend: BackendId::VULKAN,
            message: format!("the validation layer reported: {}", log.since(before).join(" | ")),
        });
    }
    out
}

impl VulkanDevice {
    /// Opens a device on the physical device `request` prefers (by power preference), with the
    /// validation layers when `request.validation` is set. [`OpenError::DeviceUnavailable`] with
    /// a sentence saying why when there is no Vulkan 1.3 device with dynamic rendering,
    /// synchronization2 and timeline semaphores, so a registry moves on to the next backend.
    pub fn open(request: &DeviceRequest) -> Result<Self, OpenError> {
        Self::open_with(request, VulkanOptions::default())
    }

    /// [`open`](Self::open) with options beyond the request.
    pub fn open_with(request: &DeviceRequest, options: VulkanOptions) -> Result<Self, OpenError> {
        let log = options.validation_log.or_else(|| request.validation.then(ValidationLog::new));
        // NVIDIA's driver deadlocks on devices made and destroyed at once (see the function).
        let turn = f3d_hal::backend::driver_lifecycle_turn();
        let instance = Instance::new(log)?;
        let opened = open_device(&instance, request.power_preference)?;
        drop(turn);
        let mut features = base_features(&opened.caps);
        let formats =
            FormatTable::build(&instance.instance, opened.physical, &opened.caps.enabled, &mut features);
        let limits = hal_limits(&opened.caps);
        let shader_caps = ShaderCaps::from_enabled(&opened.caps.enabled);
        let explicit_dir = options.pipeline_cache_dir.is_some();
        let cache_dir = if options.no_pipeline_cache {
            None
        } else {
            options.pipeline_cache_dir.or_else(crate::pipeline::default_cache_dir)
        };
        // SPIR-V beside the driver's pipeline cache: the same switch and directory.
        let shader_cache = match (&cache_dir, explicit_dir) {
            (None, _) => ShaderCache::off(),
            (Some(dir), true) => {
                ShaderCache::at(dir.join("shaders"), f3d_hal::shader_cache::DEFAULT_CAP_BYTES)
            }
            (Some(_), false) => ShaderCache::from_env(),
        };
        let cache_file = cache_dir.map(|d| crate::pipeline::cache_file(&d, &opened.caps));
        let info = AdapterInfo {
            name: opened.caps.name.clone(),
            driver: opened.caps.driver.clone(),
            cpu: opened.caps.device_type == vk::PhysicalDeviceType::CPU,
        };
        let watch = WatchSettings { timeout: request.gpu_timeout, cpu: info.cpu };
        let shared = Shared::new(instance, opened, formats, cache_file, watch).map_err(unavailable)?;
        Ok(Self {
            owner: DeviceOwner::new(BackendId::VULKAN, &request.label),
            shared: Arc::new(shared),
            info,
            features,
            limits,
            live: LiveCounter::new(),
            refusals: Mutex::new(Vec::new()),
            shader_caps,
            shader_cache,
        })
    }

    /// The ash device, for code that drives Vulkan directly (benchmarks, presenters).
    pub fn vk_device(&self) -> &ash::Device {
        &self.shared.device
    }

    /// The ash instance.
    pub fn vk_instance(&self) -> &ash::Instance {
        &self.shared.instance.instance
    }

    /// The physical device.
    pub fn vk_physical_device(&self) -> vk::PhysicalDevice {
        self.shared.physical
    }

    /// The graphics-and-compute queue family every submission goes to.
    pub fn vk_queue_family(&self) -> u32 {
        self.shared.family
    }

    /// The dedicated transfer queue family, when the device has one (its queue is created; f3d
    /// keeps every submission on the graphics queue so that call order is queue order).
    pub fn vk_transfer_queue_family(&self) -> Option<u32> {
        self.shared.transfer_family
    }

    /// The timeline value of the last submission, and the value the GPU has reached.
    pub fn vk_timeline(&self) -> (u64, u64) {
        let submitted = self.shared.core().submitted();
        (submitted, self.shared.completed_value().unwrap_or(0))
    }

    /// The validation messages of this device, when it was opened with validation.
    pub fn vk_validation_log(&self) -> Option<&ValidationLog> {
        self.shared.instance.log.as_ref()
    }

    /// A count of the device's live Vulkan objects that outlives it: zero once the device and
    /// everything it made are gone.
    pub fn vk_object_counter(&self) -> ObjectCounter {
        self.shared.objects.clone()
    }

    /// Where the pipeline cache is kept, if anywhere.
    pub fn vk_pipeline_cache_file(&self) -> Option<&std::path::Path> {
        self.shared.cache_file.as_deref()
    }

    /// The Vulkan image behind `texture` (refuses foreign handles and lost devices).
    pub fn vk_image(&self, texture: &TextureHandle) -> Result<vk::Image, DeviceError> {
        self.texture(texture, "vk_image").map(|t| t.image)
    }

    pub(crate) fn shader_caps(&self) -> &ShaderCaps {
        &self.shader_caps
    }

    pub(crate) fn live_token(&self) -> backend::LiveToken {
        self.live.token()
    }

    pub(crate) fn owner_ref(&self) -> &DeviceOwner {
        &self.owner
    }

    /// `Ok` while the device lives; a loss noted on the shared state (by the driver) is taken
    /// over first.
    pub(crate) fn alive(&self, operation: &'static str) -> Result<(), DeviceError> {
        if let Some(reason) = self.shared.lost() {
            self.owner.lose(reason);
        }
        self.owner.check_alive(operation)
    }

    /// Runs `f` (which calls Vulkan for `operation`); with validation on, a message the layer
    /// reported meanwhile turns the result into an error naming it.
    pub(crate) fn checked<T>(
        &self,
        operation: &'static str,
        f: impl FnOnce() -> Result<T, DeviceError>,
    ) -> Result<T, DeviceError> {
        checked(&self.shared, operation, f)
    }

    pub(crate) fn texture<'a>(
        &self,
        t: &'a TextureHandle,
        operation: &'static str,
    ) -> Result<&'a VkTexture, DeviceError> {
        self.alive(operation)?;
        backend::texture_payload::<VkTexture>(&self.owner, t, operation)
    }

    pub(crate) fn geometry<'a>(
        &self,
        g: &'a GeometryBuffer,
        operation: &'static str,
    ) -> Result<&'a VkGeometry, DeviceError> {
        self.alive(operation)?;
        backend::geometry_payload::<VkGeometry>(&self.owner, g, operation)
    }

    pub(crate) fn support(&self, format: TextureFormat) -> FormatSupport {
        self.shared.formats.get(format).support
    }

    /// Reports a pipeline's refusal the first time it is drawn with.
    pub(crate) fn refuse_once(&self, pipeline: &PipelineHandle, payload: &VkPipeline) {
        let Some(reason) = &payload.refusal else { return };
        if !payload.refusal_reported.swap(true, std::sync::atomic::Ordering::AcqRel) {
            let mut refusals = self.refusals.lock().unwrap_or_else(|e| e.into_inner());
            refusals.push(PipelineRefusal { pipeline: pipeline.label(), reason: reason.clone() });
        }
    }

    /// Submits the open command buffer when uploads piled up in it.
    fn flush_if_large(
        &self,
        core: &mut crate::sync::Core,
        bytes: u64,
        operation: &'static str,
    ) -> Result<(), DeviceError> {
        if core.note_upload(bytes) > UPLOAD_FLUSH_BYTES {
            core.submit(&self.shared, operation)?;
        }
        Ok(())
    }

    /// A view of the texture `t` made on demand (attachment views), registered with its image.
    pub(crate) fn attachment_view(
        &self,
        t: &VkTexture,
        level: u32,
        layer: u32,
        layers: u32,
        operation: &'static str,
    ) -> Result<vk::ImageView, DeviceError> {
        let mut views = t.attachment_views.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = views.get(&(level, layer, layers)) {
            return Ok(*v);
        }
        let info = vk::ImageViewCreateInfo::default()
            .image(t.image)
            .view_type(if layers > 1 { vk::ImageViewType::TYPE_2D_ARRAY } else { vk::ImageViewType::TYPE_2D })
            .format(t.plan.format)
            .subresource_range(t.plan.range(level, 1, layer, layers));
        // SAFETY: the image is alive (its handle is borrowed) and the range lies inside it.
        let view = unsafe { self.shared.device.create_image_view(&info, None) }
            .map_err(|e| self.shared.vk_error(operation, e))?;
        if !self.shared.core().add_view(t.id, view) {
            // SAFETY: the view was never used.
            unsafe { self.shared.device.destroy_image_view(view, None) };
            return Err(DeviceError::Backend {
                operation,
                backend: BackendId::VULKAN,
                message: "the texture's image is gone".into(),
            });
        }
        views.insert((level, layer, layers), view);
        Ok(view)
    }
}

impl VulkanDevice {
    /// The SPIR-V of `desc`'s entry point, written once per module (and kept on disk).
    fn entry_spirv(&self, desc: &ShaderDescriptor) -> Result<Arc<Vec<u32>>, DeviceError> {
        let shader_error = |message: String| DeviceError::Shader { label: desc.label.clone(), message };
        if desc.module.entry_point_index(desc.stage, &desc.entry_point).is_none() {
            return Err(shader_error(format!(
                "the module has no {} entry point named {}",
                desc.stage, desc.entry_point
            )));
        }
        cached_entry_spirv(&desc.module, desc.stage, &desc.entry_point, &self.shader_caps, &self.shader_cache)
            .map_err(shader_error)
    }
}

impl GraphicsDevice for VulkanDevice {
    fn backend_id(&self) -> BackendId {
        BackendId::VULKAN
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
        if self.support(TextureFormat::Depth24PlusStencil8).renderable {
            TextureFormat::Depth24PlusStencil8
        } else {
            TextureFormat::Depth32Float
        }
    }

    fn hdr_color_format(&self) -> TextureFormat {
        TextureFormat::Rgba16Float
    }

    fn framebuffer_origin(&self) -> FramebufferOrigin {
        // Vulkan's framebuffer coordinates put row 0 at the top (and so does its readback).
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
        backend::check_texture_descriptor(desc, &self.features, &self.limits, &BackendId::VULKAN)?;
        let plan = ImagePlan::new(desc, self.shared.formats.get(desc.format))?;
        let shared = &self.shared;
        let (id, image, sampled_view) = self.checked(OP, || {
            let mut core = shared.core();
            let (image, allocation) =
                create_image(&shared.device, core.allocator(OP)?, &plan, &desc.label, OP)?;
            let mut views = Vec::new();
            if plan.usage.contains(vk::ImageUsageFlags::SAMPLED) {
                let info = vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(plan.view_type)
                    .format(plan.format)
                    .subresource_range(vk::ImageSubresourceRange {
                        aspect_mask: plan.sampled_aspect,
                        base_mip_level: 0,
                        level_count: plan.mips,
                        base_array_layer: 0,
                        layer_count: plan.layers,
                    });
                // SAFETY: the image was just made with SAMPLED usage; the range is all of it.
                match unsafe { shared.device.create_image_view(&info, None) } {
                    Ok(v) => views.push(v),
                    Err(e) => {
                        let r = Resource::image(image, views, allocation);
                        let id = core.register(r);
                        core.release_now(id);
                        return Err(shared.vk_error(OP, e));
                    }
                }
            }
            let sampled_view = views.first().copied();
            let id = core.register(Resource::image(image, views, allocation));
            Ok((id, image, sampled_view))
        })?;
        let states = vec![Use::Fresh; (plan.mips * plan.layers) as usize];
        let payload = VkTexture {
            shared: Arc::downgrade(&self.shared),
            id,
            image,
            plan,
            sampled_view,
            attachment_views: Mutex::new(HashMap::new()),
            states: Mutex::new(states),
            _live: self.live_token(),
        };
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
        let shared = &self.shared;
        self.checked(OP, || {
            let mut core = shared.core();
            let id = staging_upload(&mut core, shared, data, "f3d upload")?;
            let buffer = buffer_of(&core, id, OP)?;
            let cmd = core.cmd(shared, OP)?;
            let whole = TextureRegion::level(desc, region.mip_level, region.layer) == region;
            let need = Need::at(t, region.mip_level, region.layer, 1, Use::CopyDst).overwriting(whole);
            prepare(&mut core, shared, cmd, &[need])?;
            let copy = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: region.mip_level,
                    base_array_layer: region.layer,
                    layer_count: 1,
                })
                .image_offset(vk::Offset3D { x: region.x as i32, y: region.y as i32, z: 0 })
                .image_extent(vk::Extent3D { width: region.width, height: region.height, depth: 1 });
            // SAFETY: recording outside a render pass; the subresource is in
            // TRANSFER_DST_OPTIMAL and the staging buffer holds exactly the region's texels.
            unsafe {
                shared.device.cmd_copy_buffer_to_image(
                    cmd,
                    buffer,
                    t.image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[copy],
                )
            };
            core.release_now(id);
            self.flush_if_large(&mut core, data.len() as u64, OP)
        })
    }

    fn create_geometry(
        &self,
        desc: &GeometryDescriptor,
        data: Option<&[u8]>,
    ) -> Result<GeometryBuffer, DeviceError> {
        const OP: &str = "create_geometry";
        self.alive(OP)?;
        backend::check_geometry_descriptor(desc, data, &self.features, &self.limits, &BackendId::VULKAN)?;
        let storage_range = u64::from(self.shared.caps.limits.max_storage_buffer_range);
        if desc.usage.contains(GeometryUsages::STORAGE) && desc.size > storage_range {
            return Err(DeviceError::LimitExceeded {
                operation: OP,
                limit: "maxStorageBufferRange",
                requested: desc.size,
                max: storage_range,
            });
        }
        let usage = buffer_usage(desc.usage);
        let plan = BufferPlan::device(desc.size, usage);
        let shared = &self.shared;
        let (id, buffer) = self.checked(OP, || {
            let mut core = shared.core();
            let (buffer, allocation) =
                create_buffer(&shared.device, core.allocator(OP)?, &plan, &desc.label, OP)?;
            let id = core.register(Resource::buffer(buffer, allocation, MemoryKind::Geometry));
            let recorded = (|| {
                let cmd = core.cmd(shared, OP)?;
                core.buffer_write(shared, cmd);
                match data {
                    Some(bytes) => {
                        let staging = staging_upload(&mut core, shared, bytes, "f3d geometry upload")?;
                        let src = buffer_of(&core, staging, OP)?;
                        let copy = vk::BufferCopy { src_offset: 0, dst_offset: 0, size: desc.size };
                        // SAFETY: recording outside a render pass; both buffers hold `size` bytes.
                        unsafe { shared.device.cmd_copy_buffer(cmd, src, buffer, &[copy]) };
                        core.release_now(staging);
                    }
                    // SAFETY: as above; the whole buffer is zeroed (the HAL's "or zeros").
                    None => unsafe { shared.device.cmd_fill_buffer(cmd, buffer, 0, vk::WHOLE_SIZE, 0) },
                }
                self.flush_if_large(&mut core, desc.size, OP)
            })();
            if let Err(e) = recorded {
                core.release_now(id);
                return Err(e);
            }
            Ok((id, buffer))
        })?;
        let payload =
            VkGeometry { shared: Arc::downgrade(&self.shared), id, buffer, _live: self.live_token() };
        Ok(backend::wrap_geometry(&self.owner, desc.clone(), payload))
    }

    fn write_geometry(&self, buffer: &GeometryBuffer, offset: u64, data: &[u8]) -> Result<(), DeviceError> {
        const OP: &str = "write_geometry";
        let g = self.geometry(buffer, OP)?;
        backend::check_write_geometry(buffer.descriptor(), offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        let shared = &self.shared;
        self.checked(OP, || {
            let mut core = shared.core();
            let staging = staging_upload(&mut core, shared, data, "f3d geometry write")?;
            let src = buffer_of(&core, staging, OP)?;
            let cmd = core.cmd(shared, OP)?;
            core.buffer_write(shared, cmd);
            let copy = vk::BufferCopy { src_offset: 0, dst_offset: offset, size: data.len() as u64 };
            // SAFETY: recording outside a render pass; the range lies inside both buffers.
            unsafe { shared.device.cmd_copy_buffer(cmd, src, g.buffer, &[copy]) };
            core.release_now(staging);
            self.flush_if_large(&mut core, data.len() as u64, OP)
        })
    }

    fn create_sampler(&self, desc: &SamplerDescriptor) -> Result<SamplerHandle, DeviceError> {
        const OP: &str = "create_sampler";
        self.alive(OP)?;
        let mut desc = backend::clamp_sampler(desc, &self.limits)?;
        let linear =
            [desc.mag_filter, desc.min_filter, desc.mipmap_filter].iter().all(|f| *f == FilterMode::Linear);
        if !linear {
            // Anisotropic filtering is only meaningful (and on some drivers only defined) with
            // every filter linear; otherwise the sampler samples as anisotropy 1.
            desc.max_anisotropy = 1;
        }
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(conv::filter(desc.mag_filter))
            .min_filter(conv::filter(desc.min_filter))
            .mipmap_mode(conv::mipmap_mode(desc.mipmap_filter))
            .address_mode_u(conv::address_mode(desc.address_mode[0]))
            .address_mode_v(conv::address_mode(desc.address_mode[1]))
            .address_mode_w(conv::address_mode(desc.address_mode[2]))
            .anisotropy_enable(desc.max_anisotropy > 1)
            .max_anisotropy(f32::from(desc.max_anisotropy))
            .compare_enable(desc.compare.is_some())
            .compare_op(desc.compare.map_or(vk::CompareOp::NEVER, conv::compare_op))
            .min_lod(desc.lod_min_clamp)
            .max_lod(desc.lod_max_clamp)
            .border_color(vk::BorderColor::FLOAT_TRANSPARENT_BLACK);
        let shared = &self.shared;
        let (id, sampler) = self.checked(OP, || {
            // SAFETY: anisotropy above 1 only with the feature enabled (the limit is 1 without).
            let sampler =
                unsafe { shared.device.create_sampler(&info, None) }.map_err(|e| shared.vk_error(OP, e))?;
            Ok((shared.core().register(Resource::Sampler(sampler)), sampler))
        })?;
        let payload =
            VkSampler { shared: Arc::downgrade(&self.shared), id, sampler, _live: self.live_token() };
        Ok(backend::wrap_sampler(&self.owner, desc, payload))
    }

    fn shader_cache(&self) -> Option<ShaderCache> {
        Some(self.shader_cache.clone())
    }

    fn check_shader_module(
        &self,
        _label: &str,
        module: &std::sync::Arc<f3d_hal::ValidatedModule>,
    ) -> Result<(), String> {
        // Each entry point as create_shader will ask for it: the words stay with the module,
        // so the shaders made next compile nothing again.
        for ep in &module.module().entry_points {
            let stage = ShaderStage::from_naga(ep.stage)
                .ok_or_else(|| format!("entry point `{}` is a {:?} stage", ep.name, ep.stage))?;
            cached_entry_spirv(module, stage, &ep.name, &self.shader_caps, &self.shader_cache)
                .map_err(|reason| format!("entry point `{}`: {reason}", ep.name))?;
        }
        Ok(())
    }

    fn prepare_shader(&self, desc: &ShaderDescriptor) -> Result<(), DeviceError> {
        self.alive("prepare_shader")?;
        self.entry_spirv(desc).map(drop)
    }

    fn create_shader(&self, desc: &ShaderDescriptor) -> Result<ShaderHandle, DeviceError> {
        const OP: &str = "create_shader";
        self.alive(OP)?;
        let words = self.entry_spirv(desc)?;
        let shared = &self.shared;
        let (id, module) = self.checked(OP, || {
            let info = vk::ShaderModuleCreateInfo::default().code(&words);
            // SAFETY: the words are SPIR-V naga wrote from a validated module, using only the
            // capabilities the device enabled.
            let module = unsafe { shared.device.create_shader_module(&info, None) }
                .map_err(|e| shared.vk_error(OP, e))?;
            Ok((shared.core().register(Resource::Shader(module)), module))
        })?;
        let payload = VkShader { shared: Arc::downgrade(&self.shared), id, module, _live: self.live_token() };
        Ok(backend::wrap_shader(&self.owner, desc.clone(), payload))
    }

    fn create_pipeline(&self, desc: &PipelineDescriptor) -> Result<PipelineHandle, DeviceError> {
        crate::pipeline::create_render_pipeline(self, desc)
    }

    fn begin_frame(&self) -> Result<(), DeviceError> {
        const OP: &str = "begin_frame";
        self.alive(OP)?;
        let shared = &self.shared;
        shared.next_frame();
        let wait = self.checked(OP, || {
            let mut core = shared.core();
            if core.has_open() {
                core.submit(shared, OP)?;
            }
            Ok(core.begin_frame(shared))
        })?;
        match wait {
            Some(value) => shared.wait(value, OP),
            None => Ok(()),
        }
    }

    fn begin_render_pass(
        &self,
        desc: &RenderPassDescriptor,
    ) -> Result<Box<dyn CommandEncoder + '_>, DeviceError> {
        const OP: &str = "begin_render_pass";
        self.alive(OP)?;
        backend::check_render_pass(desc, &self.features, &self.limits, &BackendId::VULKAN)?;
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
        check_readback(texture.descriptor(), &region, &BackendId::VULKAN)?;
        let shared = &self.shared;
        self.checked(OP, || {
            let mut core = shared.core();
            let cmd = core.cmd(shared, OP)?;
            prepare(&mut core, shared, cmd, &[Need::at(t, region.mip_level, region.layer, 1, Use::CopySrc)])?;
            read_texture(shared, &mut core, cmd, t.image, texture.descriptor(), region)
        })
    }

    fn live_resources(&self) -> usize {
        self.live.count()
    }

    fn memory_report(&self) -> MemoryReport {
        // The core lock retires handles dropped since the last lock first, so what they held
        // is counted as retiring, not as theirs.
        let core = self.shared.core();
        core.memory.report()
    }

    fn pipeline_refusals(&self) -> PipelineRefusals {
        self.refusals.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn simulate_loss(&self, why: &str) {
        let reason = LossReason::Simulated(why.to_owned());
        self.shared.lose(reason.clone());
        self.owner.lose(reason);
    }

    fn take_loss_report(&self) -> Option<LossReason> {
        if let Some(reason) = self.shared.lost() {
            self.owner.lose(reason);
        }
        self.owner.take_loss_report()
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
        let same = src.same(dst)
            && src_region.mip_level == dst_region.mip_level
            && src_region.layer == dst_region.layer;
        let shared = &self.shared;
        self.checked(OP, || {
            let mut core = shared.core();
            let cmd = core.cmd(shared, OP)?;
            let (src_use, dst_use) =
                if same { (Use::General, Use::General) } else { (Use::CopySrc, Use::CopyDst) };
            let whole = !same
                && TextureRegion::level(dst.descriptor(), dst_region.mip_level, dst_region.layer)
                    == dst_region;
            let needs = [
                Need::at(s, src_region.mip_level, src_region.layer, 1, src_use),
                Need::at(d, dst_region.mip_level, dst_region.layer, 1, dst_use).overwriting(whole),
            ];
            prepare(&mut core, shared, cmd, if same { &needs[..1] } else { &needs })?;
            let layers = |r: &TextureRegion| vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: r.mip_level,
                base_array_layer: r.layer,
                layer_count: 1,
            };
            let copy = vk::ImageCopy {
                src_subresource: layers(&src_region),
                src_offset: vk::Offset3D { x: src_region.x as i32, y: src_region.y as i32, z: 0 },
                dst_subresource: layers(&dst_region),
                dst_offset: vk::Offset3D { x: dst_region.x as i32, y: dst_region.y as i32, z: 0 },
                extent: vk::Extent3D { width: src_region.width, height: src_region.height, depth: 1 },
            };
            // SAFETY: recording outside a render pass; both subresources are in the layouts
            // named (GENERAL for a copy within one subresource, whose rectangles the shared
            // rules keep apart), the formats are equal or sRGB twins of one size.
            unsafe {
                shared.device.cmd_copy_image(
                    cmd,
                    s.image,
                    src_use.layout(),
                    d.image,
                    dst_use.layout(),
                    &[copy],
                )
            };
            Ok(())
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

    fn create_surface(
        &self,
        target: &SurfaceTarget,
        config: &SurfaceConfig,
    ) -> Result<Box<dyn PresentSurface>, DeviceError> {
        const OP: &str = "create_surface";
        self.alive(OP)?;
        if !self.features.has(DeviceFeature::PRESENT) {
            return Err(DeviceError::Unsupported {
                feature: DeviceFeature::PRESENT,
                backend: BackendId::VULKAN,
            });
        }
        let surface = self.checked(OP, || VkSurface::new(&self.shared, self.owner.link(), target, config))?;
        Ok(Box::new(surface))
    }
}
