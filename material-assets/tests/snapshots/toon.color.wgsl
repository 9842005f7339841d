// f3d material `Toon`, color variant: composed by f3d_materials; do not edit.
// f3d engine library: the material contract (DESIGN §5).
//
// A material's `vertex` may move a vertex and change its normal through VertexInputs'
// world_position and world_normal (world space: the engine projects world_position after
// `vertex` returns, in every pass, and shades with world_normal); position, normal and
// camera_position are read-only. Its `surface` fills MaterialInputs. The accessors below read
// the current fragment and are meant for `surface`.

// f3d engine library: group 0, what the whole frame shares (DESIGN §5).
//
// Binding convention: @group(0) view and frame, @group(1) material, @group(2) per draw.

// The camera and the frame. Depth runs 0 (near) to 1 (far); clip space is WebGPU's.
struct View {
    // Clip from world.
    view_proj: mat4x4<f32>,
    // World from clip.
    inverse_view_proj: mat4x4<f32>,
    // View from world (the camera looks down -z).
    view_from_world: mat4x4<f32>,
    // Clip from view.
    projection: mat4x4<f32>,
    // View from clip.
    inverse_projection: mat4x4<f32>,
    // The camera's world position.
    camera_position: vec3<f32>,
    // Seconds since the app started.
    time: f32,
    // The target's size in pixels.
    viewport_size: vec2<f32>,
    // Exposure multiplier applied before tonemapping.
    exposure: f32,
    // Frames since the app started.
    frame_index: u32,
}

// The one directional light, with its shadow map.
struct DirectionalLight {
    // The direction the light travels (away from the light), world space, unit length.
    direction: vec3<f32>,
    // 1 when the light is on.
    enabled: u32,
    // Linear colour times illuminance.
    color: vec3<f32>,
    // Constant depth bias subtracted before the shadow comparison.
    shadow_bias: f32,
    // Shadow clip from world.
    shadow_view_proj: mat4x4<f32>,
    // World-space offset along the normal, in shadow texels.
    shadow_normal_bias: f32,
    // 1 / the shadow map's size in texels.
    shadow_texel_size: f32,
    // 1 when the shadow map is valid.
    shadow_enabled: u32,
}

// A point light, or a spot light (a point light with a cone).
struct PointLight {
    // World position.
    position: vec3<f32>,
    // Distance at which its light has faded to nothing.
    range: f32,
    // Linear colour times intensity.
    color: vec3<f32>,
    // Physical radius (keeps the falloff finite close to the light).
    radius: f32,
    // A spot light's axis, the direction its cone points (unit); zero for a point light.
    spot_direction: vec3<f32>,
    // Cone falloff: clamp(cos(angle to the axis) * spot_scale + spot_offset, 0, 1) squared.
    // A point light has scale 0 and offset 1 (no cone).
    spot_scale: f32,
    spot_offset: f32,
}

const F3D_MAX_POINT_LIGHTS: u32 = 8u;
// lights.environment_flags: a prefiltered radiance cube and a BRDF LUT are bound.
const F3D_ENV_RADIANCE: u32 = 1u;
// lights.environment_flags: lights.sh holds irradiance.
const F3D_ENV_SH: u32 = 2u;

struct Lights {
    directional: DirectionalLight,
    points: array<PointLight, 8>,
    // How many of points are used.
    point_count: u32,
    // F3D_ENV_RADIANCE | F3D_ENV_SH.
    environment_flags: u32,
    // Multiplier on all image-based and ambient light.
    environment_intensity: f32,
    // Mip levels of environment_radiance (roughness 1 reads the last).
    radiance_mip_count: f32,
    // Constant ambient radiance used where no environment is bound.
    ambient: vec3<f32>,
    // Nine radiance SH coefficients (rgb in xyz): L00, L1-1, L10, L11, L2-2, L2-1, L20, L21, L22.
    sh: array<vec4<f32>, 9>,
}

@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var<uniform> lights: Lights;
@group(0) @binding(2) var shadow_map: texture_depth_2d;
@group(0) @binding(3) var shadow_map_sampler: sampler_comparison;
@group(0) @binding(4) var environment_radiance: texture_cube<f32>;
@group(0) @binding(5) var environment_radiance_sampler: sampler;
@group(0) @binding(6) var brdf_lut: texture_2d<f32>;
@group(0) @binding(7) var brdf_lut_sampler: sampler;








// v normalised, or zero for a zero vector (never NaN).
fn f3d_safe_normalize(v: vec3<f32>) -> vec3<f32> {
    return v * inverseSqrt(max(dot(v, v), 1e-20));
}

// f3d engine library: group 2, per draw.

struct Draw {
    // World from object.
    model: mat4x4<f32>,
    // The inverse transpose of model's upper 3x3 (in a mat4 for layout); transforms normals.
    normal_matrix: mat4x4<f32>,
}

@group(2) @binding(0) var<uniform> draw: Draw;


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





















// ---- generated: material parameters (@group(1))
struct MaterialParams {
    base_color: vec4<f32>,
    shadow_color: vec3<f32>,
    light_direction: vec3<f32>,
    band_count: i32,
    rim_strength: f32,
}
@group(1) @binding(0) var<uniform> material_params: MaterialParams;
@group(1) @binding(1) var base_color_texture: texture_2d<f32>;
@group(1) @binding(2) var base_color_texture_sampler: sampler;

// ---- generated: vertex interface
struct VertexInput {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv0: vec2<f32>,
    @location(3) tangent: vec4<f32>,
    @location(4) color: vec4<f32>,
}

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv0: vec2<f32>,
    @location(3) world_tangent: vec4<f32>,
    @location(4) color: vec4<f32>,
}


fn f3d_load_attributes(f3d_in: VertexInput) {
}

fn f3d_store_varyings(f3d_out: ptr<function, VertexOutput>) {
}

fn f3d_load_varyings(f3d_in: VertexOutput) {
}

fn vertex(v: ptr<function, VertexInputs>) {}

// ---- material: fragment

fn surface(m: ptr<function, MaterialInputs>) {
    let albedo = material_params.base_color * textureSample(base_color_texture, base_color_texture_sampler, uv0());
    let n = world_normal();
    let l = normalize(material_params.light_direction);
    let bands = f32(max(material_params.band_count, 1));
    // Quantise the Lambert term into bands; the darkest band is the shadow colour.
    let lambert = clamp(dot(n, l) * 0.5 + 0.5, 0.0, 1.0);
    let band = floor(lambert * bands) / max(bands - 1.0, 1.0);
    var color = mix(material_params.shadow_color, albedo.rgb, clamp(band, 0.0, 1.0));
    // A hard rim light on silhouettes.
    let rim = step(0.7, 1.0 - max(dot(n, view_direction()), 0.0)) * material_params.rim_strength;
    color += vec3<f32>(rim);
    (*m).base_color = vec4<f32>(color, albedo.a);
}

// ---- engine: entry points
// f3d engine library: the vertex framework (unskinned).
//
// VertexInput, VertexOutput, f3d_load_attributes, f3d_store_varyings and f3d_load_varyings
// are generated from the material's attributes and varyings; `vertex` is the material's.




// The object's transform for the current vertex: per instance with F3D_INSTANCED (three rows
// of the affine model matrix at locations 5-7, the normal matrix derived here), per draw (the
// `draw` block) without.
var<private> f3d_model: mat4x4<f32>;
var<private> f3d_normal_matrix: mat3x3<f32>;

fn f3d_load_transform(in: VertexInput) {









    f3d_model = draw.model;
    f3d_normal_matrix = mat3x3<f32>(draw.normal_matrix[0].xyz, draw.normal_matrix[1].xyz, draw.normal_matrix[2].xyz);

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


struct F3dPositionOnly {
    @builtin(position) clip_position: vec4<f32>,
}

























// f3d engine library: the fragment entry points of surface materials.



fn f3d_begin_fragment(in: VertexOutput, front_facing: bool) {
    var n = f3d_safe_normalize(in.world_normal);





    f3d_fragment.world_position = in.world_position;
    f3d_fragment.world_normal = n;
    f3d_fragment.world_tangent = in.world_tangent;
    f3d_fragment.uv0 = in.uv0;
    f3d_fragment.color = in.color;
    f3d_fragment.frag_coord = in.clip_position;
    f3d_load_varyings(in);
}

fn f3d_default_material() -> MaterialInputs {
    return MaterialInputs(vec4<f32>(1.0), f3d_fragment.world_normal, vec3<f32>(0.0), 0.0, 0.5, 1.0);
}

// Linear, premultiplied output.
fn f3d_finish(rgb: vec3<f32>, alpha: f32) -> vec4<f32> {

    return vec4<f32>(rgb, 1.0);







}











@fragment
fn fs_unlit(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    f3d_begin_fragment(in, front_facing);
    var m = f3d_default_material();
    surface(&m);
    return f3d_finish(m.base_color.rgb, m.base_color.a);
}












