//! Textures, geometry buffers and samplers: their payloads, and what a format can do here.
//!
//! What the device can do with a format is read once at open (`vkGetPhysicalDeviceFormatProperties2`
//! with `VkFormatProperties3`, and the sample counts of attachments) and intersected with the
//! HAL's format table and with what this backend implements; [`FormatTable`] answers
//! `texture_format_support` and every later question about a format.

use std::collections::HashMap;
use std::sync::{Mutex, Weak};

use ash::vk;
use f3d_hal::backend::LiveToken;
use f3d_hal::{DeviceFeature, DeviceFeatures, FormatSupport, SampleKind, TextureFormat};

use crate::alloc::ImagePlan;
use crate::barrier::Use;
use crate::conv;
use crate::instance::Enabled;
use crate::sync::Shared;

/// One HAL format on this device.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FormatCaps {
    /// The Vulkan format it is stored in.
    pub(crate) vk: vk::Format,
    /// Optimal-tiling features of that format.
    pub(crate) features: vk::FormatFeatureFlags2,
    /// What the HAL is told.
    pub(crate) support: FormatSupport,
}

const NO_FORMAT: FormatCaps = FormatCaps {
    vk: vk::Format::UNDEFINED,
    features: vk::FormatFeatureFlags2::empty(),
    support: FormatSupport::NONE,
};

/// What the device can do with every HAL format.
pub(crate) struct FormatTable {
    formats: HashMap<TextureFormat, FormatCaps>,
}

/// Raw facts about one format, before the HAL features are known.
struct Raw {
    vk: vk::Format,
    features: vk::FormatFeatureFlags2,
    /// Attachments of it can have 4 samples.
    ms4: bool,
}

use f3d_hal::backend::is_float32;

fn query(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    format: vk::Format,
) -> vk::FormatFeatureFlags2 {
    let mut p3 = vk::FormatProperties3::default();
    let mut p2 = vk::FormatProperties2::default().push_next(&mut p3);
    // SAFETY: a query into structures that live for the call.
    unsafe { instance.get_physical_device_format_properties2(physical, format, &mut p2) };
    p3.optimal_tiling_features
}

fn samples4(instance: &ash::Instance, physical: vk::PhysicalDevice, format: vk::Format, color: bool) -> bool {
    let usage = vk::ImageUsageFlags::TRANSFER_DST
        | if color {
            vk::ImageUsageFlags::COLOR_ATTACHMENT
        } else {
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        };
    // SAFETY: a plain query.
    let props = unsafe {
        instance.get_physical_device_image_format_properties(
            physical,
            format,
            vk::ImageType::TYPE_2D,
            vk::ImageTiling::OPTIMAL,
            usage,
            vk::ImageCreateFlags::empty(),
        )
    };
    props.is_ok_and(|p| p.sample_counts.contains(vk::SampleCountFlags::TYPE_4))
}

fn raw(instance: &ash::Instance, physical: vk::PhysicalDevice, format: TextureFormat) -> Option<Raw> {
    let candidates = conv::format_candidates(format);
    let pick = if format.has_depth() {
        // The first candidate that can hold depth attachments.
        candidates.iter().copied().find(|&f| {
            query(instance, physical, f).contains(vk::FormatFeatureFlags2::DEPTH_STENCIL_ATTACHMENT)
        })
    } else {
        candidates.first().copied()
    }?;
    let features = query(instance, physical, pick);
    let renderable = features.intersects(
        vk::FormatFeatureFlags2::COLOR_ATTACHMENT | vk::FormatFeatureFlags2::DEPTH_STENCIL_ATTACHMENT,
    );
    let ms4 = renderable && samples4(instance, physical, pick, format.is_color());
    Some(Raw { vk: pick, features, ms4 })
}

fn has(features: vk::FormatFeatureFlags2, f: vk::FormatFeatureFlags2) -> bool {
    features.contains(f)
}

/// What the HAL is told about `format`, from the raw facts and the device's features.
fn support(format: TextureFormat, raw: &Raw, features: &DeviceFeatures) -> FormatSupport {
    use vk::FormatFeatureFlags2 as V;
    let facts = format.facts();
    if facts.compressed && !features.has(DeviceFeature::TEXTURE_COMPRESSION_BC) {
        return FormatSupport::NONE;
    }
    if format.has_stencil() && !features.has(DeviceFeature::STENCIL) {
        return FormatSupport::NONE;
    }
    let f = raw.features;
    let create = if format.is_color() {
        has(f, V::TRANSFER_SRC | V::TRANSFER_DST) && (!facts.compressed || has(f, V::SAMPLED_IMAGE))
    } else {
        has(f, V::DEPTH_STENCIL_ATTACHMENT | V::TRANSFER_DST)
    };
    let sampled = create && has(f, V::SAMPLED_IMAGE);
    let filterable = sampled
        && has(f, V::SAMPLED_IMAGE_FILTER_LINEAR)
        && (facts.filterable || (is_float32(format) && features.has(DeviceFeature::FLOAT32_FILTERABLE)));
    let attachment = if format.is_color() { V::COLOR_ATTACHMENT } else { V::DEPTH_STENCIL_ATTACHMENT };
    let renderable = create && facts.renderable && has(f, attachment);
    let blendable = renderable && facts.blendable && has(f, V::COLOR_ATTACHMENT_BLEND);
    let integer = matches!(facts.sample_kind, SampleKind::Uint | SampleKind::Sint);
    let multisample =
        renderable && raw.ms4 && features.has(DeviceFeature::MSAA) && !integer && !is_float32(format);
    FormatSupport { create, sampled, filterable, renderable, blendable, multisample }
}

impl FormatTable {
    /// Reads every format's facts, decides the format-dependent HAL features, and fills the
    /// table. `features` comes in with what does not depend on formats and goes out complete.
    pub(crate) fn build(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        enabled: &Enabled,
        features: &mut DeviceFeatures,
    ) -> Self {
        use vk::FormatFeatureFlags2 as V;
        let raws: HashMap<TextureFormat, Raw> =
            TextureFormat::ALL.iter().filter_map(|&f| raw(instance, physical, f).map(|r| (f, r))).collect();
        let feat = |f: TextureFormat| raws.get(&f).map_or(V::empty(), |r| r.features);
        let ds = |f: TextureFormat| has(feat(f), V::DEPTH_STENCIL_ATTACHMENT | V::TRANSFER_DST);
        if ds(TextureFormat::Depth24PlusStencil8) || ds(TextureFormat::Depth32FloatStencil8) {
            features.insert(DeviceFeature::STENCIL);
        }
        let bc = [
            TextureFormat::Bc1RgbaUnorm,
            TextureFormat::Bc1RgbaUnormSrgb,
            TextureFormat::Bc3RgbaUnorm,
            TextureFormat::Bc3RgbaUnormSrgb,
            TextureFormat::Bc5RgUnorm,
            TextureFormat::Bc7RgbaUnorm,
            TextureFormat::Bc7RgbaUnormSrgb,
        ];
        if enabled.texture_compression_bc
            && bc.iter().all(|&f| has(feat(f), V::SAMPLED_IMAGE | V::TRANSFER_SRC | V::TRANSFER_DST))
        {
            features.insert(DeviceFeature::TEXTURE_COMPRESSION_BC);
        }
        let float32 = [TextureFormat::R32Float, TextureFormat::Rg32Float, TextureFormat::Rgba32Float];
        if float32.iter().all(|&f| has(feat(f), V::SAMPLED_IMAGE | V::SAMPLED_IMAGE_FILTER_LINEAR)) {
            features.insert(DeviceFeature::FLOAT32_FILTERABLE);
        }
        if raws.get(&TextureFormat::Rgba8Unorm).is_some_and(|r| r.ms4) {
            features.insert(DeviceFeature::MSAA);
        }
        let formats = raws
            .iter()
            .map(|(&f, r)| {
                (f, FormatCaps { vk: r.vk, features: r.features, support: support(f, r, features) })
            })
            .collect();
        Self { formats }
    }

    /// The facts about `format` (no support at all for a format the device lacks).
    pub(crate) fn get(&self, format: TextureFormat) -> &FormatCaps {
        self.formats.get(&format).unwrap_or(&NO_FORMAT)
    }
}

/// A texture: the image, the plan it was made from, its views and the state of every
/// subresource (level-major: `level * layers + layer`).
pub(crate) struct VkTexture {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    pub(crate) image: vk::Image,
    pub(crate) plan: ImagePlan,
    /// The whole texture as shaders see it; `None` unless the plan has `SAMPLED`.
    pub(crate) sampled_view: Option<vk::ImageView>,
    /// Views a pass draws into: `(level, first layer, layers)` → view, made on demand.
    pub(crate) attachment_views: Mutex<HashMap<(u32, u32, u32), vk::ImageView>>,
    pub(crate) states: Mutex<Vec<Use>>,
    pub(crate) _live: LiveToken,
}

impl Drop for VkTexture {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

/// A geometry buffer (the Vulkan buffer may be a little larger than the HAL size, never
/// smaller; every check uses the HAL size).
pub(crate) struct VkGeometry {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    pub(crate) buffer: vk::Buffer,
    pub(crate) _live: LiveToken,
}

impl Drop for VkGeometry {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

/// A sampler.
pub(crate) struct VkSampler {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    pub(crate) sampler: vk::Sampler,
    pub(crate) _live: LiveToken,
}

impl Drop for VkSampler {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

/// The Vulkan usages of a geometry buffer: vertex, index and copies always (the HAL lets any
/// buffer feed a draw), indirect and storage when asked for.
pub(crate) fn buffer_usage(usage: f3d_hal::GeometryUsages) -> vk::BufferUsageFlags {
    use f3d_hal::GeometryUsages as G;
    let mut out = vk::BufferUsageFlags::VERTEX_BUFFER
        | vk::BufferUsageFlags::INDEX_BUFFER
        | vk::BufferUsageFlags::TRANSFER_DST
        | vk::BufferUsageFlags::TRANSFER_SRC;
    if usage.contains(G::INDIRECT) {
        out |= vk::BufferUsageFlags::INDIRECT_BUFFER;
    }
    if usage.contains(G::STORAGE) {
        out |= vk::BufferUsageFlags::STORAGE_BUFFER;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_with(features: vk::FormatFeatureFlags2, ms4: bool) -> Raw {
        Raw { vk: vk::Format::R32_SFLOAT, features, ms4 }
    }

    #[test]
    fn float32_filters_only_with_the_feature() {
        use vk::FormatFeatureFlags2 as V;
        let all = V::TRANSFER_SRC | V::TRANSFER_DST | V::SAMPLED_IMAGE | V::SAMPLED_IMAGE_FILTER_LINEAR;
        let without = support(TextureFormat::R32Float, &raw_with(all, false), &DeviceFeatures::empty());
        assert!(without.sampled && !without.filterable);
        let with = DeviceFeatures::empty().with(DeviceFeature::FLOAT32_FILTERABLE);
        assert!(support(TextureFormat::R32Float, &raw_with(all, false), &with).filterable);
    }

    #[test]
    fn integers_never_multisample() {
        use vk::FormatFeatureFlags2 as V;
        let all = V::TRANSFER_SRC | V::TRANSFER_DST | V::SAMPLED_IMAGE | V::COLOR_ATTACHMENT;
        let msaa = DeviceFeatures::empty().with(DeviceFeature::MSAA);
        let s = support(TextureFormat::R32Uint, &raw_with(all, true), &msaa);
        assert!(s.renderable && !s.multisample);
    }
}
