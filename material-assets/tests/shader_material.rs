//! The raw escape hatch: complete fragment shaders in WGSL or GLSL 450.

use f3d_hal::BindingKind;
use f3d_materials::{MaterialError, ShaderMaterial};

const GLSL: &str = r#"#version 450
layout(location = 2) in vec2 v_uv;
layout(location = 0) out vec4 o_color;

layout(set = 1, binding = 0) uniform Params {
    vec3 tint;
    float gain;
    mat4 xf;
};
layout(set = 1, binding = 1) uniform sampler2D albedo;

void main() {
    o_color = texture(albedo, v_uv) * vec4(tint * gain, 1.0);
}
"#;

#[test]
fn glsl_with_a_combined_sampler_compiles_and_binds_by_name() {
    let m = ShaderMaterial::from_glsl("flat.frag", GLSL).unwrap_or_else(|e| panic!("{}", e.diagnostic()));
    assert_eq!(m.entry_point(), "main");
    let block = m.block("Params").expect("blocks bind by type name");
    let members: Vec<(&str, u32)> = block.members.iter().map(|x| (x.name.as_str(), x.offset)).collect();
    assert_eq!(members, [("tint", 0), ("gain", 12), ("xf", 16)]);
    let bindings = m.bindings().unwrap();
    let albedo = bindings.iter().find(|b| b.name == "albedo").expect("the texture keeps its name");
    assert_eq!((albedo.group, albedo.binding), (1, 1));
    assert!(matches!(albedo.kind, BindingKind::Texture { .. }));
    let sampler = bindings.iter().find(|b| b.name == "albedo_sampler").expect("a generated sampler");
    assert_eq!((sampler.group, sampler.binding), (1, 2));
}

#[test]
fn glsl_errors_point_at_the_users_line() {
    let broken = GLSL.replace("o_color = texture(albedo, v_uv)", "o_color = texturee(albedo, v_uv)");
    let e = ShaderMaterial::from_glsl("flat.frag", &broken).unwrap_err();
    let at = e.location().unwrap();
    assert_eq!((at.path.to_str(), at.line, at.column), (Some("flat.frag"), 13, 15), "{}", e.diagnostic());
}

#[test]
fn wgsl_fragment_shaders_reflect_their_blocks() {
    let src = r#"
struct Tint { color: vec4<f32>, strength: f32 }
@group(1) @binding(0) var<uniform> tint: Tint;
@fragment
fn main_fs(@location(2) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return tint.color * tint.strength * vec4<f32>(uv, 0.0, 1.0);
}
"#;
    let m = ShaderMaterial::from_wgsl("tint.wgsl", src).unwrap();
    assert_eq!(m.entry_point(), "main_fs");
    assert_eq!(m.block("Tint").unwrap().member("strength").unwrap().offset, 16);
    assert_eq!(m.bindings().unwrap().len(), 1);
    let e =
        ShaderMaterial::from_wgsl("tint.wgsl", "@fragment fn f() -> @location(0) vec4<f32> { return 1; }")
            .unwrap_err();
    assert!(matches!(e, MaterialError::Shader { .. }), "{e:?}");
    let e = ShaderMaterial::from_wgsl("none.wgsl", "fn f() {}").unwrap_err();
    assert!(matches!(e, MaterialError::MissingFunction { .. }), "{e:?}");
}

/// What the engine gives a shader material and takes from it: the contract is checked at
/// load, each refusal at the user's line.
#[test]
fn the_fragment_contract_is_checked_at_the_users_line() {
    let ok = "@group(1) @binding(0) var<uniform> tint: vec4<f32>;
@group(1) @binding(1) var environment_radiance: texture_cube<f32>;
@group(1) @binding(2) var environment_radiance_sampler: sampler;
@fragment
fn fs(@location(0) p: vec3<f32>, @location(1) n: vec3<f32>, @location(2) uv: vec2<f32>,
      @location(3) t: vec4<f32>, @location(4) c: vec4<f32>) -> @location(0) vec4<f32> {
    return tint * c + textureSample(environment_radiance, environment_radiance_sampler, n) + vec4<f32>(p + t.xyz, uv.x);
}
";
    ShaderMaterial::from_wgsl("ok.wgsl", ok).unwrap_or_else(|e| panic!("{}", e.diagnostic()));
    let refused = |label: &str, src: &str, line: u32, says: &str| {
        let e = ShaderMaterial::from_wgsl(label, src).unwrap_err();
        let at = e.location().unwrap_or_else(|| panic!("{label}: no location: {e:?}"));
        assert_eq!(at.line, line, "{label}: {}", e.diagnostic());
        assert!(e.diagnostic().contains(says), "{label}: {}", e.diagnostic());
    };
    refused(
        "type.wgsl",
        &ok.replace("@location(2) uv: vec2<f32>", "@location(2) uv: vec3<f32>"),
        5,
        "`uv0`, a vec2<f32>, not a vec3<f32>",
    );
    refused(
        "unknown.wgsl",
        &ok.replace("@location(4) c: vec4<f32>", "@location(6) c: vec4<f32>"),
        6,
        "not an engine varying",
    );
    refused(
        "output.wgsl",
        &ok.replace("-> @location(0) vec4<f32>", "-> @location(0) vec3<f32>")
            .replace("return tint * c", "return (tint * c")
            .replace("uv.x);", "uv.x)).xyz;"),
        6,
        "one vec4<f32> colour",
    );
    refused(
        "group.wgsl",
        &ok.replace("@group(1) @binding(0) var<uniform> tint", "@group(0) @binding(0) var<uniform> tint"),
        1,
        "group 0",
    );
    refused(
        "engine.wgsl",
        &ok.replace("var<uniform> tint: vec4<f32>;", "var<uniform> lights: vec4<f32>;")
            .replace("tint * c", "lights * c"),
        1,
        "engine's view bindings",
    );
    refused(
        "storage.wgsl",
        &ok.replace("var<uniform> tint: vec4<f32>;", "var<storage, read> tint: vec4<f32>;"),
        1,
        "uniform blocks, float 2D or cube textures",
    );
    // GLSL: the declaration's line.
    let glsl = "#version 450\nlayout(location = 2) in vec2 uv;\nlayout(location = 7) in float extra;\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(uv, extra, 1.0); }\n";
    let e = ShaderMaterial::from_glsl("extra.frag", glsl).unwrap_err();
    assert_eq!(e.location().map(|l| l.line), Some(3), "{}", e.diagnostic());
}

/// A shader file that is not there is an error naming it, not a panic.
#[test]
fn a_missing_shader_file_is_named() {
    let path = std::path::Path::new("no/such/dir/glow.wgsl");
    let e = ShaderMaterial::from_path(path).unwrap_err();
    assert!(e.diagnostic().contains("no/such/dir/glow.wgsl"), "{}", e.diagnostic());
}
