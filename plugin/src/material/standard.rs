//! The standard material as a `.ron` material: one generated source per (alpha mode,
//! sidedness, lit/unlit), so it goes through exactly the path user materials take.

use std::path::Path;

use bevy_asset::Handle;
use bevy_color::{ColorToComponents, LinearRgba};
use bevy_image::Image;
use f3d_materials::{LoadedMaterial, MaterialError, MaterialParameters};

use super::{AlphaMode, StandardMaterial};

/// What selects one of the standard material's shader variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct StandardKey {
    /// The `.ron` blending.
    pub blending: &'static str,
    /// Alpha below the cutoff is discarded (`AlphaMode::Mask`).
    pub mask: bool,
    pub double_sided: bool,
    pub unlit: bool,
}

impl StandardKey {
    pub fn of(m: &StandardMaterial) -> Self {
        Self {
            blending: m.alpha_mode.ron(),
            mask: matches!(m.alpha_mode, AlphaMode::Mask(_)),
            double_sided: m.double_sided,
            unlit: m.unlit,
        }
    }
}

const SURFACE: &str = r#"
fn surface(m: ptr<function, MaterialInputs>) {
    let uv = uv0();
    let base = material_params.base_color
        * textureSample(base_color_texture, base_color_texture_sampler, uv)
        * vertex_color();
    let mr = textureSample(metallic_roughness_texture, metallic_roughness_texture_sampler, uv);
#ifdef F3D_ALPHA_MASK
    if base.a < material_params.alpha_cutoff {
        discard;
    }
    (*m).base_color = vec4<f32>(base.rgb, 1.0);
#else
    (*m).base_color = base;
#endif
    (*m).metallic = material_params.metallic * mr.b;
    (*m).roughness = material_params.roughness * mr.g;
    (*m).emissive = material_params.emissive * textureSample(emissive_texture, emissive_texture_sampler, uv).rgb;
    (*m).occlusion = textureSample(occlusion_texture, occlusion_texture_sampler, uv).r;
    if material_params.normal_map != 0 {
        let t = textureSample(normal_texture, normal_texture_sampler, uv).xyz * 2.0 - vec3<f32>(1.0);
        (*m).normal = normal_from_tangent_space(t);
    }
#ifdef F3D_UNLIT
    (*m).base_color = vec4<f32>(base.rgb + (*m).emissive, base.a);
#endif
}
"#;

/// The `.ron` text of one standard variant.
pub(crate) fn source(key: StandardKey) -> String {
    format!(
        r#"Material(
    name: "StandardMaterial",
    shading_model: {shading},
    blending: {blending},
    culling: {culling},
    parameters: [
        (name: "base_color", type: Vec4, default: [1.0, 1.0, 1.0, 1.0]),
        (name: "emissive", type: Vec3, default: [0.0, 0.0, 0.0]),
        (name: "metallic", type: Float, default: 0.0),
        (name: "roughness", type: Float, default: 0.5),
        (name: "normal_map", type: Int, default: 0),
        (name: "alpha_cutoff", type: Float, default: 0.5),
        (name: "base_color_texture", type: Texture2d, hint: DefaultWhite),
        (name: "metallic_roughness_texture", type: Texture2d, hint: DefaultWhite),
        (name: "normal_texture", type: Texture2d, hint: DefaultNormal),
        (name: "emissive_texture", type: Texture2d, hint: DefaultWhite),
        (name: "occlusion_texture", type: Texture2d, hint: DefaultWhite),
    ],
    fragment: {surface:?},
)"#,
        shading = if key.unlit { "Unlit" } else { "Lit" },
        blending = key.blending,
        culling = if key.double_sided { "None" } else { "Back" },
        surface = if key.mask { format!("#define F3D_ALPHA_MASK\n{SURFACE}") } else { SURFACE.to_owned() },
    )
}

/// Parses one standard variant.
pub(crate) fn load(key: StandardKey) -> Result<LoadedMaterial, Vec<MaterialError>> {
    f3d_materials::parse_material(Path::new("<f3d>/standard_material.ron"), source(key).as_bytes())
}

/// Writes a standard material's factors into its parameter block.
pub(crate) fn write_parameters(m: &StandardMaterial, params: &mut MaterialParameters) {
    // Names and types are the template's own: these cannot fail.
    let base = LinearRgba::from(m.base_color);
    let _ = params.set_vec4("base_color", base.to_f32_array());
    let _ = params.set_vec3("emissive", [m.emissive.red, m.emissive.green, m.emissive.blue]);
    let _ = params.set_float("metallic", m.metallic);
    let _ = params.set_float("roughness", m.perceptual_roughness);
    let _ = params.set_int("normal_map", i32::from(m.normal_map_texture.is_some()));
    if let AlphaMode::Mask(cutoff) = m.alpha_mode {
        let _ = params.set_float("alpha_cutoff", cutoff);
    }
}

/// The image bound to each texture parameter of the template.
pub(crate) fn images(m: &StandardMaterial) -> [(&'static str, Option<&Handle<Image>>); 5] {
    [
        ("base_color_texture", m.base_color_texture.as_ref()),
        ("metallic_roughness_texture", m.metallic_roughness_texture.as_ref()),
        ("normal_texture", m.normal_map_texture.as_ref()),
        ("emissive_texture", m.emissive_texture.as_ref()),
        ("occlusion_texture", m.occlusion_texture.as_ref()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_compiles() {
        let modes = [
            AlphaMode::Opaque,
            AlphaMode::Mask(0.5),
            AlphaMode::Blend,
            AlphaMode::Premultiplied,
            AlphaMode::Add,
            AlphaMode::Multiply,
        ];
        for alpha_mode in modes {
            for double_sided in [false, true] {
                for unlit in [false, true] {
                    let m = StandardMaterial { alpha_mode, double_sided, unlit, ..Default::default() };
                    let key = StandardKey::of(&m);
                    let loaded = load(key).unwrap_or_else(|e| panic!("{key:?}: {e:?}"));
                    // As the renderer compiles them: with the material array, at the smallest
                    // and largest budget a device gives.
                    for budget in [16 << 10, crate::render::prepare::materials::MATERIAL_ARRAY_BYTES] {
                        let options = crate::render::prepare::materials::render_compile_options(budget);
                        for variant in f3d_materials::Variant::ALL {
                            let c = f3d_materials::compile_material(&loaded, variant, &options)
                                .unwrap_or_else(|e| panic!("{key:?}: {}", e.diagnostic()));
                            assert!(c.material_slots > 1, "{key:?}: {} slots", c.material_slots);
                        }
                    }
                }
            }
        }
    }
}
