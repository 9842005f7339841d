// f3d engine library: the material contract (DESIGN §5).
//
// A material's `vertex` may move a vertex and change its normal through VertexInputs'
// world_position and world_normal (world space: the engine projects world_position after
// `vertex` returns, in every pass, and shades with world_normal); position, normal and
// camera_position are read-only. Its `surface` fills MaterialInputs. The accessors below read
// the current fragment and are meant for `surface`.

#include <view.wgsl>
#include <draw.wgsl>

struct VertexInputs {
    // Object-space position, as the mesh has it (read-only).
    position: vec3<f32>,
    // Object-space normal (read-only).
    normal: vec3<f32>,
    // World-space position: the model transform of `position`. What `vertex` leaves here is
    // what the engine projects (colour, depth and shadow passes alike).
    world_position: vec3<f32>,
    // World-space normal, starting at unit length: what `vertex` leaves here, normalised, is
    // the shading normal (and the shadow pass's normal-bias direction).
    world_normal: vec3<f32>,
    // First texture coordinate.
    uv0: vec2<f32>,
    // Object-space tangent; w is the bitangent's sign.
    tangent: vec4<f32>,
    // Vertex colour (linear).
    color: vec4<f32>,
    // The camera's world position (read-only).
    camera_position: vec3<f32>,
}

struct MaterialInputs {
    // Linear colour and straight alpha (Premultiplied blending: already premultiplied).
    base_color: vec4<f32>,
    // World-space shading normal; starts as world_normal().
    normal: vec3<f32>,
    // Linear emitted radiance (Lit only).
    emissive: vec3<f32>,
    // 0 dielectric, 1 metal.
    metallic: f32,
    // Perceptual roughness, 0 to 1.
    roughness: f32,
    // Ambient occlusion, 1 = none.
    occlusion: f32,
}

// What a material's `light` hook gets for one light (Lit materials with a `light` block):
// everything is world space and the hook returns the light's linear radiance towards the
// viewer, in place of the engine BRDF's direct term.
struct LightInputs {
    // Unit vector from the surface towards the light.
    light_direction: vec3<f32>,
    // The light's colour times its intensity.
    radiance: vec3<f32>,
    // Distance and cone falloff (1 for the directional light).
    attenuation: f32,
    // 1 lit, 0 in shadow (filtered in between).
    shadow: f32,
    // The shading normal (MaterialInputs.normal, unit length).
    normal: vec3<f32>,
    // Unit vector from the surface towards the camera.
    view_direction: vec3<f32>,
    // MaterialInputs.base_color.
    base_color: vec4<f32>,
    // MaterialInputs.metallic, clamped to 0..1.
    metallic: f32,
    // MaterialInputs.roughness, clamped as the engine BRDF clamps it.
    roughness: f32,
}

struct F3dFragment {
    world_position: vec3<f32>,
    world_normal: vec3<f32>,
    world_tangent: vec4<f32>,
    uv0: vec2<f32>,
    color: vec4<f32>,
    frag_coord: vec4<f32>,
}

var<private> f3d_fragment: F3dFragment;

// The fragment's world position.
fn world_position() -> vec3<f32> {
    return f3d_fragment.world_position;
}

// The interpolated world normal, unit length, facing the viewer on two-sided materials.
fn world_normal() -> vec3<f32> {
    return f3d_fragment.world_normal;
}

// The unit vector from the fragment towards the camera.
fn view_direction() -> vec3<f32> {
    return f3d_safe_normalize(view.camera_position - f3d_fragment.world_position);
}

// The first texture coordinate.
fn uv0() -> vec2<f32> {
    return f3d_fragment.uv0;
}

// The vertex colour.
fn vertex_color() -> vec4<f32> {
    return f3d_fragment.color;
}

// Seconds since the app started (also in `vertex`).
fn time() -> f32 {
    return view.time;
}

// The fragment's position on screen, (0, 0) top left to (1, 1) bottom right.
fn screen_uv() -> vec2<f32> {
    return f3d_fragment.frag_coord.xy / view.viewport_size;
}

// The linear view-space depth (distance along the view direction) of a depth-buffer value.
fn f3d_linear_view_depth(uv: vec2<f32>, depth: f32) -> f32 {
    let ndc = vec4<f32>(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0, depth, 1.0);
    let p = view.inverse_projection * ndc;
    return -p.z / p.w;
}

// The fragment's linear view depth, comparable with scene_depth().
fn fragment_view_depth() -> f32 {
    return f3d_linear_view_depth(screen_uv(), f3d_fragment.frag_coord.z);
}

// A tangent-space normal (as read from a normal map, already mapped to -1..1) in world space.
fn normal_from_tangent_space(n: vec3<f32>) -> vec3<f32> {
    let normal = f3d_fragment.world_normal;
    let tangent = f3d_safe_normalize(f3d_fragment.world_tangent.xyz - normal * dot(normal, f3d_fragment.world_tangent.xyz));
    let bitangent = cross(normal, tangent) * select(1.0, -1.0, f3d_fragment.world_tangent.w < 0.0);
    return f3d_safe_normalize(tangent * n.x + bitangent * n.y + normal * n.z);
}

#ifdef F3D_SCENE_COLOR
// The opaque scene's linear colour behind this fragment, offset in screen uv; black when the
// frame has no scene colour (its snapshot pass switched off).
fn scene_color(offset: vec2<f32>) -> vec3<f32> {
    let uv = clamp(screen_uv() + offset, vec2<f32>(0.0), vec2<f32>(1.0));
    return textureSampleLevel(scene_color_texture, scene_color_texture_sampler, uv, 0.0).rgb;
}
#endif

#ifdef F3D_SCENE_DEPTH
// The opaque scene's linear view depth behind this fragment, offset in screen uv; the far
// plane's (a huge depth) when the frame has no scene depth.
fn scene_depth(offset: vec2<f32>) -> f32 {
    let size = vec2<i32>(textureDimensions(scene_depth_texture));
    let uv = clamp(screen_uv() + offset, vec2<f32>(0.0), vec2<f32>(1.0));
    let texel = clamp(vec2<i32>(uv * vec2<f32>(size)), vec2<i32>(0), size - vec2<i32>(1));
    return f3d_linear_view_depth(uv, textureLoad(scene_depth_texture, texel, 0));
}
#endif
