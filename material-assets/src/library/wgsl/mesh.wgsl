// f3d engine library: the vertex framework (unskinned).
//
// VertexInput, VertexOutput, f3d_load_attributes, f3d_store_varyings and f3d_load_varyings
// are generated from the material's attributes and varyings; `vertex` is the material's.

#include <surface.wgsl>

fn f3d_vertex_inputs(in: VertexInput) -> VertexInputs {
    var v: VertexInputs;
    v.position = in.position;
    v.normal = in.normal;
    v.uv0 = in.uv0;
    v.tangent = in.tangent;
    v.color = in.color;
    v.world_offset = vec3<f32>(0.0);
    return v;
}

// Runs the material's vertex hook and returns the world position.
fn f3d_world_position(v: VertexInputs) -> vec3<f32> {
    let world = draw.model * vec4<f32>(v.position, 1.0);
    return world.xyz / world.w + v.world_offset;
}

#ifdef F3D_VARIANT_COLOR
@vertex
fn vs_mesh(in: VertexInput) -> VertexOutput {
    f3d_load_attributes(in);
    var v = f3d_vertex_inputs(in);
    vertex(&v);
    let world_position = f3d_world_position(v);
    var out: VertexOutput;
    out.clip_position = view.view_proj * vec4<f32>(world_position, 1.0);
    out.world_position = world_position;
    out.world_normal = f3d_safe_normalize((draw.normal_matrix * vec4<f32>(v.normal, 0.0)).xyz);
    out.world_tangent = vec4<f32>(f3d_safe_normalize((draw.model * vec4<f32>(v.tangent.xyz, 0.0)).xyz), v.tangent.w);
    out.uv0 = v.uv0;
    out.color = v.color;
    f3d_store_varyings(&out);
    return out;
}
#endif

struct F3dPositionOnly {
    @builtin(position) clip_position: vec4<f32>,
}

#ifdef F3D_VARIANT_DEPTH
// Depth prepass: the same vertex hook, so displaced geometry matches the colour pass.
@vertex
fn vs_depth(in: VertexInput) -> F3dPositionOnly {
    f3d_load_attributes(in);
    var v = f3d_vertex_inputs(in);
    vertex(&v);
    var out: F3dPositionOnly;
    out.clip_position = view.view_proj * vec4<f32>(f3d_world_position(v), 1.0);
    return out;
}
#endif

#ifdef F3D_VARIANT_SHADOW
// Shadow map: the light's projection, pushed along the normal by the normal bias.
@vertex
fn vs_shadow(in: VertexInput) -> F3dPositionOnly {
    f3d_load_attributes(in);
    var v = f3d_vertex_inputs(in);
    vertex(&v);
    let normal = f3d_safe_normalize((draw.normal_matrix * vec4<f32>(v.normal, 0.0)).xyz);
    let sun = lights.directional;
    let offset = normal * (sun.shadow_normal_bias * sun.shadow_texel_size);
    var out: F3dPositionOnly;
    out.clip_position = sun.shadow_view_proj * vec4<f32>(f3d_world_position(v) - offset, 1.0);
    return out;
}
#endif
