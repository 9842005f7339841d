//! Opening: instance → adapter → device, and what the device can do, asked of the adapter.
//!
//! f3d never asks for a constant wish-list: it requests the intersection of the wgpu features
//! it uses ([`used_features`]) with what the adapter offers, and the adapter's own limits. A
//! device that asks for a missing feature does not open, so this is the only way to open on
//! every adapter. The HAL features it then reports ([`hal_features`]) are those granted *and*
//! implemented here.

use f3d_hal::{BackendId, DeviceFeature, DeviceFeatures, DeviceLimits, DeviceRequest, OpenError};

use crate::conv;
use crate::readback::block_on;

/// What the device was granted: the facts every later decision reads.
#[derive(Clone, Debug)]
pub(crate) struct Grant {
    /// wgpu features requested and granted.
    pub(crate) features: wgpu::Features,
    /// Downlevel flags of the adapter (not requestable: they are what the API can do).
    pub(crate) downlevel: wgpu::DownlevelFlags,
    /// The device's limits (the adapter's, requested whole).
    pub(crate) limits: wgpu::Limits,
    /// The API underneath.
    pub(crate) backend: wgpu::Backend,
}

/// An open device and where it came from.
pub(crate) struct Opened {
    pub(crate) instance: wgpu::Instance,
    pub(crate) adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) grant: Grant,
}

/// Every wgpu feature some part of this backend uses; the device asks for the part of it the
/// adapter has.
pub(crate) fn used_features() -> wgpu::Features {
    wgpu::Features::TIMESTAMP_QUERY
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
        | wgpu::Features::POLYGON_MODE_LINE
        | wgpu::Features::DEPTH_CLIP_CONTROL
        | wgpu::Features::TEXTURE_COMPRESSION_BC
        | wgpu::Features::FLOAT32_FILTERABLE
        | wgpu::Features::DEPTH32FLOAT_STENCIL8
        | wgpu::Features::INDIRECT_FIRST_INSTANCE
        | wgpu::Features::MULTIVIEW
        | wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
        | wgpu::Features::PIPELINE_CACHE
}

fn unavailable(reason: String) -> OpenError {
    OpenError::DeviceUnavailable { backend: BackendId::WGPU, reason }
}

/// The instance f3d opens devices from: Vulkan, Metal and DX12, with wgpu's usual
/// environment variables applied (DESIGN §9: the plain constructor ignores them).
///
/// wgpu's GL backend is left out unless `WGPU_BACKEND` names it: on it wgpu does not keep
/// f3d's contract (measured on Mesa's llvmpipe GL 4.5: clears of a cube face do not land,
/// line rasterisation differs, 32-bit float targets are not renderable), so opening it by
/// default would hand out a device that fails conformance instead of declining.
///
/// The API's validation layers (wgpu's `InstanceFlags::VALIDATION | DEBUG`) are on when the
/// request asks for validation, not whenever wgpu itself is built with debug assertions
/// (wgpu's default): which layers load is the app's setting, as on the vulkan backend.
/// wgpu-core's own validation is always on, and `WGPU_VALIDATION`/`WGPU_DEBUG` still
/// override. One reason this matters: the Khronos layer Debian 12 ships (1.3.239) keeps its
/// per-device state in an unsynchronised map and crashes when devices are created or
/// destroyed while others are in use on other threads — a debug build that opened a device
/// per test thread crashed a few runs in fifty.
pub(crate) fn instance(request: &DeviceRequest) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    if std::env::var_os("WGPU_BACKEND").is_none() {
        desc.backends = wgpu::Backends::PRIMARY;
    }
    let layers = if request.validation {
        wgpu::InstanceFlags::debugging()
    } else {
        wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL
    };
    desc.flags = layers.with_env();
    wgpu::Instance::new(desc)
}

/// Opens a device on the adapter `request` prefers, from `instance`, for `surface` if given.
pub(crate) fn open(
    instance: wgpu::Instance,
    request: &DeviceRequest,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<Opened, OpenError> {
    let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: conv::power_preference(request.power_preference),
        force_fallback_adapter: false,
        compatible_surface: surface,
        apply_limit_buckets: false,
    }))
    .map_err(|e| {
        unavailable(format!(
            "no Vulkan, Metal or DX12 adapter found (is mesa-vulkan-drivers installed?; GL is tried only when WGPU_BACKEND=gl asks for it): {e}"
        ))
    })?;
    let info = adapter.get_info();
    let features = adapter.features() & used_features();
    let limits = adapter.limits();
    let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some(&request.label),
        required_features: features,
        required_limits: limits.clone(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| {
        unavailable(format!("the adapter {} ({:?}) did not open a device: {e}", info.name, info.backend))
    })?;
    let grant = Grant {
        features: device.features(),
        downlevel: adapter.get_downlevel_capabilities().flags,
        limits: device.limits(),
        backend: info.backend,
    };
    Ok(Opened { instance, adapter, device, queue, grant })
}

/// What the device can do with `format`, in wgpu's words: the adapter's own answer when the
/// device was granted adapter-specific format features, WebGPU's guarantee otherwise (that
/// is what the device then validates against).
pub(crate) fn format_features(
    adapter: &wgpu::Adapter,
    grant: &Grant,
    format: wgpu::TextureFormat,
) -> wgpu::TextureFormatFeatures {
    if grant.features.contains(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES) {
        adapter.get_texture_format_features(format)
    } else {
        format.guaranteed_format_features(grant.features)
    }
}

/// The HAL features this device reports: granted by the adapter *and* implemented here.
pub(crate) fn hal_features(adapter: &wgpu::Adapter, grant: &Grant) -> DeviceFeatures {
    let has = |f: wgpu::Features| grant.features.contains(f);
    let down = |f: wgpu::DownlevelFlags| grant.downlevel.contains(f);
    let mut out = DeviceFeatures::empty()
        .with(DeviceFeature::COPY_TEXTURE)
        .with(DeviceFeature::INSTANCING)
        .with(DeviceFeature::STENCIL)
        .with(DeviceFeature::BLEND_CONSTANT);
    let rgba8 = format_features(adapter, grant, wgpu::TextureFormat::Rgba8Unorm).flags;
    let mut add = |feature, when: bool| {
        if when {
            out.insert(feature);
        }
    };
    let compute = down(wgpu::DownlevelFlags::COMPUTE_SHADERS);
    // The HAL's storage buffers are read by vertex and fragment stages too (material tables),
    // and compute needs them (nothing it does could be seen otherwise): an adapter without
    // vertex-stage storage (some GLES ones) reports neither.
    let storage = compute
        && down(wgpu::DownlevelFlags::VERTEX_STORAGE)
        && grant.limits.max_storage_buffers_per_shader_stage > 0;
    add(DeviceFeature::COMPUTE, storage);
    add(DeviceFeature::STORAGE_BUFFERS, storage);
    // Timestamps are written from inside passes (`PassEncoder::write_timestamp`).
    add(
        DeviceFeature::TIMESTAMP_QUERY,
        has(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
    );
    // GL's occlusion queries answer "any samples passed", not a count; the HAL's are counts.
    add(DeviceFeature::OCCLUSION_QUERY, grant.backend != wgpu::Backend::Gl);
    add(DeviceFeature::INDIRECT_DRAW, down(wgpu::DownlevelFlags::INDIRECT_EXECUTION));
    add(DeviceFeature::MULTI_DRAW_INDIRECT, down(wgpu::DownlevelFlags::INDIRECT_EXECUTION));
    add(
        DeviceFeature::MSAA,
        rgba8.contains(
            wgpu::TextureFormatFeatureFlags::MULTISAMPLE_X4
                | wgpu::TextureFormatFeatureFlags::MULTISAMPLE_RESOLVE,
        ),
    );
    add(DeviceFeature::WIREFRAME, has(wgpu::Features::POLYGON_MODE_LINE));
    add(
        DeviceFeature::MULTIVIEW,
        has(wgpu::Features::MULTIVIEW) && grant.limits.max_multiview_view_count >= 2,
    );
    add(DeviceFeature::DEPTH_CLIP_CONTROL, has(wgpu::Features::DEPTH_CLIP_CONTROL));
    add(DeviceFeature::TEXTURE_COMPRESSION_BC, has(wgpu::Features::TEXTURE_COMPRESSION_BC));
    add(DeviceFeature::FLOAT32_FILTERABLE, has(wgpu::Features::FLOAT32_FILTERABLE));
    // Every native wgpu backend presents to the windows of its platform (wgpu enables the
    // instance's surface extensions where the driver has them); a window it cannot reach is
    // refused by `create_surface` naming it.
    add(DeviceFeature::PRESENT, !matches!(grant.backend, wgpu::Backend::Noop | wgpu::Backend::BrowserWebGpu));
    out
}

/// The HAL limits of the device. Every uniform block is bound with a dynamic offset into the
/// uniform ring, so the dynamic-buffer limit bounds the blocks per stage too.
pub(crate) fn hal_limits(grant: &Grant) -> DeviceLimits {
    let l = &grant.limits;
    let anisotropic = grant.downlevel.contains(wgpu::DownlevelFlags::ANISOTROPIC_FILTERING);
    DeviceLimits {
        max_texture_dimension_2d: l.max_texture_dimension_2d,
        max_texture_array_layers: l.max_texture_array_layers,
        max_uniform_block_size: u32::try_from(l.max_uniform_buffer_binding_size).unwrap_or(u32::MAX),
        max_uniform_blocks_per_stage: l
            .max_uniform_buffers_per_shader_stage
            .min(l.max_dynamic_uniform_buffers_per_pipeline_layout),
        max_sampled_textures_per_stage: l.max_sampled_textures_per_shader_stage,
        max_samplers_per_stage: l.max_samplers_per_shader_stage,
        max_vertex_attributes: l.max_vertex_attributes,
        max_vertex_buffers: l.max_vertex_buffers,
        max_vertex_stride: l.max_vertex_buffer_array_stride,
        max_color_attachments: l.max_color_attachments,
        // wgpu clamps anisotropy to 16 and needs every filter linear for more than 1.
        max_sampler_anisotropy: if anisotropic { 16 } else { 1 },
        max_geometry_buffer_size: l.max_buffer_size,
    }
    .within_reported_caps()
}
