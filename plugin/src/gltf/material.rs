//! glTF materials as f3d's [`StandardMaterial`], and samplers as bevy_image descriptors.

use std::collections::{BTreeSet, HashSet};

use bevy_asset::Handle;
use bevy_color::{Color, LinearRgba};
use bevy_image::{Image, ImageAddressMode, ImageFilterMode, ImageSamplerDescriptor};
use gltf::texture::{MagFilter, MinFilter, WrappingMode};

use crate::material::{AlphaMode, StandardMaterial};

/// The textures materials use as colour (sRGB: base colour, emissive) and as data (linear:
/// metallic-roughness, normal, occlusion).
pub(crate) fn texture_uses(doc: &gltf::Document) -> (HashSet<usize>, HashSet<usize>) {
    let (mut srgb, mut linear) = (HashSet::new(), HashSet::new());
    for m in doc.materials() {
        let pbr = m.pbr_metallic_roughness();
        srgb.extend(pbr.base_color_texture().map(|t| t.texture().index()));
        srgb.extend(m.emissive_texture().map(|t| t.texture().index()));
        linear.extend(pbr.metallic_roughness_texture().map(|t| t.texture().index()));
        linear.extend(m.normal_texture().map(|t| t.texture().index()));
        linear.extend(m.occlusion_texture().map(|t| t.texture().index()));
    }
    (srgb, linear)
}

/// The material, with its textures from `texture(index, srgb)`; what it has that f3d does
/// not draw goes to `skipped`.
pub(crate) fn standard_material(
    m: &gltf::Material<'_>,
    texture: &dyn Fn(usize, bool) -> Option<Handle<Image>>,
    skipped: &mut BTreeSet<String>,
) -> StandardMaterial {
    let pbr = m.pbr_metallic_roughness();
    let mut uses_uv1 = false;
    let mut pick = |info: Option<(usize, u32)>, srgb: bool| {
        info.and_then(|(index, set)| {
            uses_uv1 |= set != 0;
            texture(index, srgb)
        })
    };
    let base_color_texture =
        pick(pbr.base_color_texture().map(|t| (t.texture().index(), t.tex_coord())), true);
    let emissive_texture = pick(m.emissive_texture().map(|t| (t.texture().index(), t.tex_coord())), true);
    let metallic_roughness_texture =
        pick(pbr.metallic_roughness_texture().map(|t| (t.texture().index(), t.tex_coord())), false);
    let normal_map_texture = pick(m.normal_texture().map(|t| (t.texture().index(), t.tex_coord())), false);
    let occlusion_texture = pick(m.occlusion_texture().map(|t| (t.texture().index(), t.tex_coord())), false);
    if uses_uv1 {
        skipped.insert("textures on TEXCOORD_1 (f3d samples TEXCOORD_0)".to_owned());
    }
    if m.normal_texture().is_some_and(|t| t.scale() != 1.0) {
        skipped.insert("normal texture scale".to_owned());
    }
    if m.occlusion_texture().is_some_and(|t| t.strength() != 1.0) {
        skipped.insert("occlusion strength".to_owned());
    }
    let [r, g, b, a] = pbr.base_color_factor();
    let [er, eg, eb] = m.emissive_factor();
    let strength = m.emissive_strength().unwrap_or(1.0);
    let alpha_mode = match m.alpha_mode() {
        gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
        gltf::material::AlphaMode::Mask => AlphaMode::Mask(m.alpha_cutoff().unwrap_or(0.5)),
        gltf::material::AlphaMode::Blend => AlphaMode::Blend,
    };
    StandardMaterial {
        // glTF factors are linear.
        base_color: Color::linear_rgba(r, g, b, a),
        base_color_texture,
        emissive: LinearRgba::rgb(er * strength, eg * strength, eb * strength),
        emissive_texture,
        perceptual_roughness: pbr.roughness_factor(),
        metallic: pbr.metallic_factor(),
        metallic_roughness_texture,
        normal_map_texture,
        occlusion_texture,
        double_sided: m.double_sided(),
        unlit: m.unlit(),
        alpha_mode,
    }
}

/// A glTF sampler as a bevy_image descriptor (linear filtering where the file says none).
pub(crate) fn sampler_descriptor(sampler: &gltf::texture::Sampler<'_>) -> ImageSamplerDescriptor {
    let address = |mode: WrappingMode| match mode {
        WrappingMode::ClampToEdge => ImageAddressMode::ClampToEdge,
        WrappingMode::MirroredRepeat => ImageAddressMode::MirrorRepeat,
        WrappingMode::Repeat => ImageAddressMode::Repeat,
    };
    let mag_filter = match sampler.mag_filter() {
        Some(MagFilter::Nearest) => ImageFilterMode::Nearest,
        Some(MagFilter::Linear) | None => ImageFilterMode::Linear,
    };
    let (min_filter, mipmap_filter) = match sampler.min_filter() {
        Some(MinFilter::Nearest) => (ImageFilterMode::Nearest, ImageFilterMode::Nearest),
        Some(MinFilter::Linear) => (ImageFilterMode::Linear, ImageFilterMode::Nearest),
        Some(MinFilter::NearestMipmapNearest) => (ImageFilterMode::Nearest, ImageFilterMode::Nearest),
        Some(MinFilter::LinearMipmapNearest) => (ImageFilterMode::Linear, ImageFilterMode::Nearest),
        Some(MinFilter::NearestMipmapLinear) => (ImageFilterMode::Nearest, ImageFilterMode::Linear),
        Some(MinFilter::LinearMipmapLinear) | None => (ImageFilterMode::Linear, ImageFilterMode::Linear),
    };
    ImageSamplerDescriptor {
        label: sampler.name().map(str::to_owned),
        address_mode_u: address(sampler.wrap_s()),
        address_mode_v: address(sampler.wrap_t()),
        mag_filter,
        min_filter,
        mipmap_filter,
        ..ImageSamplerDescriptor::default()
    }
}
