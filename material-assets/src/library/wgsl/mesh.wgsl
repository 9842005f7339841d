// f3d engine library: the vertex framework (unskinned).
//
// VertexInput, VertexOutput, f3d_load_attributes, f3d_store_varyings and f3d_load_varyings
// are generated from the material's attributes and varyings; `vertex` is the material's.

#include <surface.wgsl>


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

// The hook's inputs for the current vertex (after f3d_load_transform): the mesh's attributes,
// and their world-space forms.
fn f3d_vertex_inputs(in: VertexInput) -> VertexInputs {
    var v: VertexInputs;
    v.position = in.position;
    v.normal = in.normal;
    let world = f3d_model * vec4<f32>(in.position, 1.0);
    v.world_position = world.xyz / world.w;
    v.world_normal = f3d_safe_normalize(f3d_normal_matrix * in.normal);
    v.uv0 = in.uv0;
    v.tangent = in.tangent;
    v.color = in.color;
    v.camera_position = view.camera_position;
    return v;
}

// Runs the material's vertex hook on the current vertex's inputs.
fn f3d_run_vertex(in: VertexInput) -> VertexInputs {
    f3d_load_attributes(in);
    f3d_load_transform(in);
    var v = f3d_vertex_inputs(in);
    vertex(&v);
    return v;
}

#ifdef F3D_VARIANT_COLOR
@vertex
fn vs_mesh(in: VertexInput) -> VertexOutput {
    let v = f3d_run_vertex(in);
    var out: VertexOutput;
    out.clip_position = view.view_proj * vec4<f32>(v.world_position, 1.0);
    out.world_position = v.world_position;
    out.world_normal = f3d_safe_normalize(v.world_normal);
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
    let v = f3d_run_vertex(in);
    var out: F3dPositionOnly;
    out.clip_position = view.view_proj * vec4<f32>(v.world_position, 1.0);
    return out;
}
#endif

#ifdef F3D_VARIANT_SHADOW
// Shadow map: the light's projection, pushed along the normal by the normal bias.
@vertex
fn vs_shadow(in: VertexInput) -> F3dPositionOnly {
    let v = f3d_run_vertex(in);
    let normal = f3d_safe_normalize(v.world_normal);
    let sun = lights.directional;
    let offset = normal * (sun.shadow_normal_bias * sun.shadow_texel_size);
    var out: F3dPositionOnly;
    out.clip_position = sun.shadow_view_proj * vec4<f32>(v.world_position - offset, 1.0);
    return out;
}
#endif
