//! Textures, geometry buffers and samplers: their payloads, and what a format can do here.

use std::collections::HashMap;
use std::sync::Mutex;

use f3d_hal::{
    DeviceError, DeviceFeature, DeviceFeatures, FormatSupport, SampleKind, TextureDescriptor, TextureFormat,
    TextureRegion, TextureUsages,
};

use crate::adapter::{Grant, format_features};
use crate::conv;
use f3d_hal::backend::{LiveToken, MemoryCharge};

/// A texture: the wgpu texture, the view shaders sample, and attachment views made on demand.
pub(crate) struct WgpuTexture {
    /// Unique for the device's lifetime (bind groups are cached by it).
    pub(crate) id: u64,
    pub(crate) texture: wgpu::Texture,
    /// The whole texture as its dimension, depth aspect only for depth formats; `None` unless
    /// created `SAMPLED` (and granted it) and single-sampled.
    pub(crate) sampled_view: Option<wgpu::TextureView>,
    /// Views of one level: `(mip level, first layer, layers)` → view.
    attachment_views: Mutex<HashMap<(u32, u32, u32), wgpu::TextureView>>,
    pub(crate) _live: LiveToken,
    pub(crate) _memory: MemoryCharge,
}

impl WgpuTexture {
    pub(crate) fn new(
        id: u64,
        texture: wgpu::Texture,
        desc: &TextureDescriptor,
        live: LiveToken,
        memory: MemoryCharge,
    ) -> Self {
        let sampled = texture.usage().contains(wgpu::TextureUsages::TEXTURE_BINDING);
        let sampled_view = (sampled && desc.sample_count == 1).then(|| {
            texture.create_view(&wgpu::TextureViewDescriptor {
                label: Some(&desc.label),
                dimension: Some(conv::view_dimension(desc.dimension)),
                aspect: if desc.format.has_depth() {
                    wgpu::TextureAspect::DepthOnly
                } else {
                    wgpu::TextureAspect::All
                },
                ..Default::default()
            })
        });
        Self {
            id,
            texture,
            sampled_view,
            attachment_views: Mutex::new(HashMap::new()),
            _live: live,
            _memory: memory,
        }
    }

    /// The view of level `mip` and `layers` layers from `layer` that a pass draws into: 2D for
    /// one layer, a 2D array for multiview.
    pub(crate) fn attachment_view(&self, mip: u32, layer: u32, layers: u32) -> wgpu::TextureView {
        let mut views = self.attachment_views.lock().unwrap_or_else(|e| e.into_inner());
        views
            .entry((mip, layer, layers))
            .or_insert_with(|| {
                self.texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("f3d attachment"),
                    dimension: Some(if layers > 1 {
                        wgpu::TextureViewDimension::D2Array
                    } else {
                        wgpu::TextureViewDimension::D2
                    }),
                    base_mip_level: mip,
                    mip_level_count: Some(1),
                    base_array_layer: layer,
                    array_layer_count: Some(layers),
                    ..Default::default()
                })
            })
            .clone()
    }
}

/// A geometry buffer. The wgpu buffer is the HAL size rounded up to 4 bytes (wgpu's copy
/// granularity); the HAL size is what every check uses.
pub(crate) struct WgpuGeometry {
    pub(crate) id: u64,
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) _live: LiveToken,
    pub(crate) _memory: MemoryCharge,
}

/// A sampler.
pub(crate) struct WgpuSampler {
    pub(crate) id: u64,
    pub(crate) sampler: wgpu::Sampler,
    pub(crate) _live: LiveToken,
}

use f3d_hal::backend::is_float32;

/// Whether a texture of `format` may be bound for sampling on a device with `features`.
/// 32-bit float textures are bound as filterable, which needs
/// [`FLOAT32_FILTERABLE`](DeviceFeature::FLOAT32_FILTERABLE); without it they are not
/// sampled here at all (see the crate docs).
pub(crate) fn bindable(format: TextureFormat, features: &DeviceFeatures) -> bool {
    !is_float32(format) || features.has(DeviceFeature::FLOAT32_FILTERABLE)
}

/// What the device can do with `format`: the adapter's format features, intersected with the
/// HAL's format table and with what this backend implements.
pub(crate) fn format_support(
    adapter: &wgpu::Adapter,
    grant: &Grant,
    features: &DeviceFeatures,
    format: TextureFormat,
) -> FormatSupport {
    let Some(w) = conv::format(format) else { return FormatSupport::NONE };
    let facts = format.facts();
    if (facts.compressed && !features.has(DeviceFeature::TEXTURE_COMPRESSION_BC))
        || !grant.features.contains(w.required_features())
    {
        return FormatSupport::NONE;
    }
    let ff = format_features(adapter, grant, w);
    let allowed = ff.allowed_usages;
    let copies = wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST;
    let create = !allowed.is_empty() && (!format.is_color() || allowed.contains(copies));
    let sampled =
        create && allowed.contains(wgpu::TextureUsages::TEXTURE_BINDING) && bindable(format, features);
    let filterable = sampled
        && ff.flags.contains(wgpu::TextureFormatFeatureFlags::FILTERABLE)
        && (facts.filterable || (is_float32(format) && features.has(DeviceFeature::FLOAT32_FILTERABLE)));
    let renderable = create && facts.renderable && allowed.contains(wgpu::TextureUsages::RENDER_ATTACHMENT);
    let blendable =
        renderable && facts.blendable && ff.flags.contains(wgpu::TextureFormatFeatureFlags::BLENDABLE);
    let integer = matches!(facts.sample_kind, SampleKind::Uint | SampleKind::Sint);
    let multisample = renderable
        && features.has(DeviceFeature::MSAA)
        && !integer
        && ff.flags.contains(wgpu::TextureFormatFeatureFlags::MULTISAMPLE_X4)
        && (!format.is_color() || ff.flags.contains(wgpu::TextureFormatFeatureFlags::MULTISAMPLE_RESOLVE));
    FormatSupport { create, sampled, filterable, renderable, blendable, multisample }
}

/// The wgpu descriptor of a texture the shared checks accepted, or why this device cannot make
/// it (the answers [`format_support`] gave).
pub(crate) fn texture_descriptor<'a>(
    desc: &'a TextureDescriptor,
    support: FormatSupport,
    allowed: wgpu::TextureUsages,
) -> Result<wgpu::TextureDescriptor<'a>, DeviceError> {
    const OP: &str = "create_texture";
    let invalid =
        |reason: String| DeviceError::InvalidDescriptor { operation: OP, label: desc.label.clone(), reason };
    let format = match conv::format(desc.format) {
        Some(f) if support.create => f,
        _ => return Err(invalid(format!("{} is not supported by this adapter", desc.format))),
    };
    if !desc.format.is_color() && desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && !support.renderable
    {
        return Err(invalid(format!("{} cannot be a depth attachment on this adapter", desc.format)));
    }
    let mut usage = conv::texture_usages(desc.usage);
    // A colour usage the adapter does not give this format is not granted (the texture can
    // still be uploaded, copied and read back); what needs it is refused naming the format:
    // a pass drawing into it, a binding sampling it. `texture_format_support` said so first.
    if !support.renderable {
        usage.remove(wgpu::TextureUsages::RENDER_ATTACHMENT);
    }
    if !allowed.contains(wgpu::TextureUsages::TEXTURE_BINDING) {
        usage.remove(wgpu::TextureUsages::TEXTURE_BINDING);
    }
    if desc.sample_count > 1 {
        if !support.multisample {
            return Err(invalid(format!("{} cannot be multisampled on this adapter", desc.format)));
        }
        if !desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) {
            return Err(invalid("a multisampled texture is only ever a render attachment".into()));
        }
        // Nothing copies, reads back or samples a multisampled texture (the shared rules refuse
        // it), and wgpu would refuse some of these usages: keep only the attachment.
        usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
    }
    // Depth formats never take part in copies or uploads (the shared rules refuse them), and
    // wgpu allows them only some copy usages: drop the ones it does not allow.
    if !desc.format.is_color() {
        usage &= allowed | !(wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::COPY_DST);
    }
    Ok(wgpu::TextureDescriptor {
        label: Some(&desc.label),
        size: wgpu::Extent3d {
            width: desc.width,
            height: desc.height,
            depth_or_array_layers: desc.array_layers,
        },
        mip_level_count: desc.mip_level_count,
        sample_count: desc.sample_count,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// The copy extent of `region`: its size, rounded up to whole blocks for compressed formats
/// (the shared checks allow a region to end at a level's edge that is not block-aligned;
/// wgpu wants the physical size there).
pub(crate) fn copy_extent(format: TextureFormat, region: &TextureRegion) -> wgpu::Extent3d {
    let (bw, bh) = format.facts().block_size;
    wgpu::Extent3d {
        width: region.width.div_ceil(bw) * bw,
        height: region.height.div_ceil(bh) * bh,
        depth_or_array_layers: 1,
    }
}

/// Where `region` starts, for copies.
pub(crate) fn copy_origin<'a>(
    texture: &'a wgpu::Texture,
    region: &TextureRegion,
) -> wgpu::TexelCopyTextureInfo<'a> {
    wgpu::TexelCopyTextureInfo {
        texture,
        mip_level: region.mip_level,
        origin: wgpu::Origin3d { x: region.x, y: region.y, z: region.layer },
        aspect: wgpu::TextureAspect::All,
    }
}

/// The wgpu usages of a geometry buffer: vertex, index and copies always (the HAL lets any
/// buffer feed a draw), indirect and storage when asked for.
pub(crate) fn buffer_usages(usage: f3d_hal::GeometryUsages) -> wgpu::BufferUsages {
    use f3d_hal::GeometryUsages as G;
    let mut out = wgpu::BufferUsages::VERTEX
        | wgpu::BufferUsages::INDEX
        | wgpu::BufferUsages::COPY_DST
        | wgpu::BufferUsages::COPY_SRC;
    if usage.contains(G::INDIRECT) {
        out |= wgpu::BufferUsages::INDIRECT;
    }
    if usage.contains(G::STORAGE) {
        out |= wgpu::BufferUsages::STORAGE;
    }
    out
}

/// `n` rounded up to wgpu's buffer copy granularity (4 bytes).
pub(crate) fn align4(n: u64) -> u64 {
    n.div_ceil(wgpu::COPY_BUFFER_ALIGNMENT) * wgpu::COPY_BUFFER_ALIGNMENT
}
