//! The engine shader library: WGSL files compiled into the crate, reachable from material code
//! and from each other through `#include <name.wgsl>`, and the tables the renderer reads
//! (vertex attribute locations, binding numbers, reserved names).
//!
//! ```text
//!  view.wgsl     @group(0): View, Lights, shadow map, environment, BRDF LUT, scene colour/depth
//!  draw.wgsl     @group(2): Draw (model and normal matrices)
//!  surface.wgsl  VertexInputs, MaterialInputs, the accessors (world_position(), uv0(), ...)
//!  mesh.wgsl     vs_mesh / vs_depth / vs_shadow around the material's `vertex`
//!  fragment.wgsl fs_lit / fs_unlit / fs_depth / fs_shadow around the material's `surface`
//!  lighting.wgsl Cook-Torrance lights, PCF shadows, IBL          brdf.wgsl  the BRDF terms
//!  skybox.wgsl   vs_skybox / fs_skybox       tonemap.wgsl  vs_fullscreen / fs_tonemap
//!  noise.wgsl    noise_* (see crate::noise)  color.wgsl    sRGB transfer functions
//! ```

/// Every library file, by the name `#include <...>` uses.
pub const FILES: &[(&str, &str)] = &[
    ("view.wgsl", include_str!("wgsl/view.wgsl")),
    ("draw.wgsl", include_str!("wgsl/draw.wgsl")),
    ("surface.wgsl", include_str!("wgsl/surface.wgsl")),
    ("mesh.wgsl", include_str!("wgsl/mesh.wgsl")),
    ("fragment.wgsl", include_str!("wgsl/fragment.wgsl")),
    ("lighting.wgsl", include_str!("wgsl/lighting.wgsl")),
    ("brdf.wgsl", include_str!("wgsl/brdf.wgsl")),
    ("noise.wgsl", include_str!("wgsl/noise.wgsl")),
    ("color.wgsl", include_str!("wgsl/color.wgsl")),
    ("skybox.wgsl", include_str!("wgsl/skybox.wgsl")),
    ("tonemap.wgsl", include_str!("wgsl/tonemap.wgsl")),
];

/// The library file called `name`.
pub fn file(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// The display path of a library file in diagnostics.
pub(crate) fn display_path(name: &str) -> String {
    format!("<f3d>/{name}")
}

/// One vertex attribute the mesh framework reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EngineAttribute {
    /// Its name in `VertexInputs` and in meshes.
    pub name: &'static str,
    /// Its `@location`.
    pub location: u32,
    /// Its WGSL type.
    pub wgsl: &'static str,
    /// What the renderer supplies when a mesh lacks it.
    pub fallback: [f32; 4],
}

/// The engine's vertex attributes, by location. Custom attributes start at
/// [`FIRST_CUSTOM_LOCATION`].
pub const ENGINE_ATTRIBUTES: &[EngineAttribute] = &[
    EngineAttribute { name: "position", location: 0, wgsl: "vec3<f32>", fallback: [0.0, 0.0, 0.0, 1.0] },
    EngineAttribute { name: "normal", location: 1, wgsl: "vec3<f32>", fallback: [0.0, 0.0, 1.0, 0.0] },
    EngineAttribute { name: "uv0", location: 2, wgsl: "vec2<f32>", fallback: [0.0; 4] },
    EngineAttribute { name: "tangent", location: 3, wgsl: "vec4<f32>", fallback: [1.0, 0.0, 0.0, 1.0] },
    EngineAttribute { name: "color", location: 4, wgsl: "vec4<f32>", fallback: [1.0; 4] },
];

/// The engine's varyings (vertex to fragment), by location.
pub const ENGINE_VARYINGS: &[(&str, u32, &str)] = &[
    ("world_position", 0, "vec3<f32>"),
    ("world_normal", 1, "vec3<f32>"),
    ("uv0", 2, "vec2<f32>"),
    ("world_tangent", 3, "vec4<f32>"),
    ("color", 4, "vec4<f32>"),
];

/// The first location of custom attributes and custom varyings.
pub const FIRST_CUSTOM_LOCATION: u32 = 8;

/// With `CompileOptions::instanced`, the locations of the three rows of the per-instance
/// affine model matrix (`vec4<f32>` each: row *i* holds the matrix's *i*-th row, translation
/// in `w`), read from a vertex buffer stepped per instance. They sit between the engine
/// attributes and the custom ones.
pub const INSTANCE_LOCATIONS: [u32; 3] = [5, 6, 7];

/// With [`CompileOptions::material_array_bytes`](crate::CompileOptions::material_array_bytes),
/// the location of the per-instance material slot (`u32`, from a vertex buffer stepped per
/// instance): which element of the material array the instance reads its parameters from.
pub const INSTANCE_MATERIAL_LOCATION: u32 = 15;

/// The varying location that carries the material slot from the vertex to the fragment stage
/// (flat), between the engine varyings and the custom ones.
pub const MATERIAL_SLOT_VARYING_LOCATION: u32 = 5;

/// Bind group numbers (DESIGN §5's convention).
pub mod groups {
    /// View and frame: camera, exposure, time, lights, shadow map, environment, scene inputs.
    pub const VIEW: u32 = 0;
    /// The material: `material_params` at binding 0, then each texture and its sampler.
    pub const MATERIAL: u32 = 1;
    /// Per draw: the model matrix.
    pub const DRAW: u32 = 2;
}

/// The bindings of group 0, by name: what the renderer binds for every view.
pub const VIEW_BINDINGS: &[(&str, u32)] = &[
    ("view", 0),
    ("lights", 1),
    ("shadow_map", 2),
    ("shadow_map_sampler", 3),
    ("environment_radiance", 4),
    ("environment_radiance_sampler", 5),
    ("brdf_lut", 6),
    ("brdf_lut_sampler", 7),
    ("scene_color_texture", 8),
    ("scene_color_texture_sampler", 9),
    ("scene_depth_texture", 10),
];

/// Names the library declares that user code sees; no parameter, varying or attribute may
/// take them.
pub const RESERVED_NAMES: &[&str] = &[
    "view",
    "lights",
    "draw",
    "View",
    "Lights",
    "Draw",
    "DirectionalLight",
    "PointLight",
    "shadow_map",
    "shadow_map_sampler",
    "environment_radiance",
    "environment_radiance_sampler",
    "brdf_lut",
    "brdf_lut_sampler",
    "scene_color_texture",
    "scene_color_texture_sampler",
    "scene_depth_texture",
    "material_params",
    "MaterialParams",
    "MaterialInputs",
    "VertexInputs",
    "LightInputs",
    "VertexInput",
    "VertexOutput",
    "surface",
    "vertex",
    "light",
    "world_position",
    "world_normal",
    "view_direction",
    "uv0",
    "vertex_color",
    "time",
    "screen_uv",
    "scene_color",
    "scene_depth",
    "fragment_view_depth",
    "normal_from_tangent_space",
    "vs_mesh",
    "vs_depth",
    "vs_shadow",
    "fs_lit",
    "fs_unlit",
    "fs_depth",
    "fs_shadow",
    // Files a material may include (`tonemap.wgsl`, `skybox.wgsl`).
    "Tonemap",
    "tonemap",
    "hdr_color",
    "vs_fullscreen",
    "fs_tonemap",
    "SkyboxOutput",
    "vs_skybox",
    "fs_skybox",
];

/// Name prefixes the library keeps for itself (its types are `F3d*`, its constants
/// `F3D_*`, `BRDF_*`, `TONEMAP_*`).
pub const RESERVED_PREFIXES: &[&str] =
    &["f3d_", "F3D_", "F3d", "brdf_", "BRDF_", "noise_", "color_", "tonemap_", "TONEMAP_"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_reachable_and_unique() {
        let mut names: Vec<_> = FILES.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FILES.len());
        assert!(file("noise.wgsl").is_some_and(|t| t.contains("fn noise_simplex2")));
        assert!(file("nope.wgsl").is_none());
    }

    /// The name a module-scope declaration (one starting in the first column) declares:
    /// `fn x(`, `struct X {`, `const X`, `var<private> x:`, `@group(0) @binding(1) var x:`.
    fn declared_name(line: &str) -> Option<&str> {
        let ident_end =
            |s: &str| s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
        let mut rest = line;
        while let Some(attribute) = rest.strip_prefix('@') {
            rest = &attribute[ident_end(attribute)..];
            if let Some(arguments) = rest.strip_prefix('(') {
                rest = arguments.split_once(')')?.1;
            }
            rest = rest.trim_start();
        }
        if let Some(template) = rest.strip_prefix("var<") {
            rest = template.split_once('>')?.1;
        } else {
            let (keyword, after) = rest.split_once(' ')?;
            if !matches!(keyword, "fn" | "struct" | "const" | "alias" | "override" | "var") {
                return None;
            }
            rest = after;
        }
        let rest = rest.trim_start();
        Some(&rest[..ident_end(rest)]).filter(|name| !name.is_empty())
    }

    /// A material name equal to one the library declares must be refused by the checks, not
    /// reported by naga as a redefinition inside the library.
    #[test]
    fn every_module_scope_name_is_reserved() {
        for (file, text) in FILES {
            for name in text.lines().filter_map(declared_name) {
                let reserved =
                    RESERVED_NAMES.contains(&name) || RESERVED_PREFIXES.iter().any(|p| name.starts_with(p));
                assert!(reserved, "{file} declares `{name}`, which a material could also name");
            }
        }
        assert_eq!(declared_name("@group(0) @binding(1) var<uniform> view: View;"), Some("view"));
        assert_eq!(declared_name("@vertex fn vs_x(@builtin(vertex_index) i: u32)"), Some("vs_x"));
        assert_eq!(declared_name("    let x = 1;"), None);
    }
}
