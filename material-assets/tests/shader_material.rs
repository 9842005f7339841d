//! The raw escape hatch: complete fragment shaders in WGSL or GLSL 450.

use f3d_hal::BindingKind;
use f3d_materials::{MaterialError, ShaderMaterial};

const GLSL: &str = r#"#version 450
layout(location = 0) in vec2 v_uv;
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
fn main_fs(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
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
