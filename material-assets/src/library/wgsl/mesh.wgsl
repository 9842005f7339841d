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

// The object's transform for the current vertex: per instance with F3D_INSTANCED (three rows
// of the affine model matrix at locations 5-7, the normal matrix derived here), per draw (the
// `draw` block) without.
var<private> f3d_model: mat4x4<f32>;
var<private> f3d_normal_matrix: mat3x3<f32>;

fn f3d_load_transform(in: VertexInput) {
#ifdef F3D_INSTANCED
    f3d_model = transpose(mat4x4<f32>(in.f3d_instance_row0, in.f3d_instance_row1, in.f3d_instance_row2, vec4<f32>(0.0, 0.0, 0.0, 1.0)));
    let a = f3d_model[0].xyz;
    let b = f3d_model[1].xyz;
    let c = f3d_model[2].xyz;
    // The cofactor matrix is det * inverse transpose; the sign keeps mirrored normals outward.
    let cofactor = mat3x3<f32>(cross(b, c), cross(c, a), cross(a, b));
    f3d_normal_matrix = cofactor * select(1.0, -1.0, dot(a, cross(b, c)) < 0.0);
#else
    f3d_model = draw.model;
    f3d_normal_matrix = mat3x3<f32>(draw.normal_matrix[0].xyz, draw.normal_matrix[1].xyz, draw.normal_matrix[2].xyz);
#endif
}

// Runs the material's vertex hook and returns the world position.
fn f3d_world_position(v: VertexInputs) -> vec3<f32> {
    let world = f3d_model * vec4<f32>(v.position, 1.0);
    return world.xyz / world.w + v.world_offset;
}

#ifdef F3D_VARIANT_COLOR
@vertex
fn vs_mesh(in: VertexInput) -> VertexOutput {
    f3d_load_attributes(in);
    f3d_load_transform(in);
    var v = f3d_vertex_inputs(in);
    vertex(&v);
    let world_position = f3d_world_position(v);
    var out: VertexOutput;
    out.clip_position = view.view_proj * vec4<f32>(world_position, 1.0);
    out.world_position = world_position;
    out.world_normal = f3d_safe_normalize(f3d_normal_matrix * v.normal);
    out.world_tangent = vec4<f32>(f3d_safe_normalize((f3d_model * vec4<f32>(v.tangent.xyz, 0.0)).xyz), v.tangent.w);
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
    f3d_load_transform(in);
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
    f3d_load_transform(in);
    var v = f3d_vertex_inputs(in);
    vertex(&v);
    let normal = f3d_safe_normalize(f3d_normal_matrix * v.normal);
    let sun = lights.directional;
    let offset = normal * (sun.shadow_normal_bias * sun.shadow_texel_size);
    var out: F3dPositionOnly;
    out.clip_position = sun.shadow_view_proj * vec4<f32>(f3d_world_position(v) - offset, 1.0);
    return out;
}
#endif
