// f3d material `Ocean`, color variant: composed by f3d_materials; do not edit.
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
    deep_color: vec3<f32>,
    foam_color: vec3<f32>,
    amplitude: f32,
    wavelength: f32,
    speed: f32,
    wind: vec2<f32>,
}
@group(1) @binding(0) var<uniform> material_params: MaterialParams;

// ---- generated: vertex interface
struct VertexInput {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv0: vec2<f32>,
    @location(3) tangent: vec4<f32>,
    @location(4) color: vec4<f32>,
    @location(8) custom_phase: f32,
}

struct VertexOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv0: vec2<f32>,
    @location(3) world_tangent: vec4<f32>,
    @location(4) color: vec4<f32>,
    @location(8) custom_crest: f32,
}

var<private> phase: f32;
var<private> crest: f32;

fn f3d_load_attributes(f3d_in: VertexInput) {
    phase = f3d_in.custom_phase;
}

fn f3d_store_varyings(f3d_out: ptr<function, VertexOutput>) {
    (*f3d_out).custom_crest = crest;
}

fn f3d_load_varyings(f3d_in: VertexOutput) {
    crest = f3d_in.custom_crest;
}

// ---- material: vertex

fn vertex(v: ptr<function, VertexInputs>) {
    let k = 6.2831853 / material_params.wavelength;
    let d = normalize(material_params.wind);
    let t = time() * material_params.speed;
    var height = 0.0;
    var slope = vec2<f32>(0.0);
    // Three octaves of directional waves, each a little shorter and turned.
    for (var i = 0; i < 3; i += 1) {
        let s = f32(i);
        let ki = k * (1.0 + 0.7 * s);
        let dir = normalize(d + vec2<f32>(0.3 * s, -0.2 * s));
        let x = dot((*v).position.xz, dir) * ki - t * sqrt(9.81 * ki) + phase;
        let a = material_params.amplitude / (1.0 + s * 1.5);
        height += a * sin(x);
        slope += dir * (a * ki * cos(x));
    }
    // Waves travel over the patch (object space); the surface rises in the world.
    (*v).world_position.y += height;
    (*v).world_normal = normalize(vec3<f32>(-slope.x, 1.0, -slope.y));
    crest = clamp(height / max(material_params.amplitude, 0.001) * 0.5 + 0.5, 0.0, 1.0);
}

// ---- material: fragment

fn surface(m: ptr<function, MaterialInputs>) {
    let foam = smoothstep(0.75, 0.95, crest);
    (*m).base_color = vec4<f32>(mix(material_params.deep_color, material_params.foam_color, foam), 1.0);
    (*m).roughness = mix(0.08, 0.6, foam);
    (*m).metallic = 0.0;
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

























// f3d engine library: the lit path. One directional light with PCF shadows, point lights,
// and image-based lighting (prefiltered radiance cube + BRDF LUT, or SH irradiance).

// f3d engine library: BRDF helpers (Cook-Torrance: GGX distribution, Smith height-correlated
// visibility, Schlick Fresnel; Lambert diffuse). Roughness is perceptual (alpha = roughness²).

const BRDF_PI: f32 = 3.14159265358979;

// GGX / Trowbridge-Reitz normal distribution.
fn brdf_d_ggx(n_dot_h: f32, roughness: f32) -> f32 {
    let a = roughness * roughness;
    let a2 = a * a;
    let f = (n_dot_h * a2 - n_dot_h) * n_dot_h + 1.0;
    return a2 / (BRDF_PI * f * f);
}

// Smith height-correlated visibility (the geometry term divided by 4 n·l n·v).
fn brdf_v_smith_ggx_correlated(n_dot_v: f32, n_dot_l: f32, roughness: f32) -> f32 {
    let a = roughness * roughness;
    let a2 = a * a;
    let gv = n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2);
    let gl = n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2);
    return 0.5 / max(gv + gl, 1e-5);
}

// Schlick's Fresnel approximation.
fn brdf_f_schlick(f0: vec3<f32>, v_dot_h: f32) -> vec3<f32> {
    let f = pow(1.0 - v_dot_h, 5.0);
    return f0 + (vec3<f32>(1.0) - f0) * f;
}

// Lambert diffuse.
fn brdf_lambert() -> f32 {
    return 1.0 / BRDF_PI;
}

// Specular reflectance at normal incidence: 4% for dielectrics, the base colour for metals.
fn brdf_f0(base_color: vec3<f32>, metallic: f32) -> vec3<f32> {
    return mix(vec3<f32>(0.04), base_color, metallic);
}

// The diffuse colour: metals have none.
fn brdf_diffuse_color(base_color: vec3<f32>, metallic: f32) -> vec3<f32> {
    return base_color * (1.0 - metallic);
}

// The BRDF times n·l for one light direction l (unit vectors, l towards the light).
fn brdf_direct(n: vec3<f32>, v: vec3<f32>, l: vec3<f32>, diffuse_color: vec3<f32>, f0: vec3<f32>, roughness: f32) -> vec3<f32> {
    let n_dot_l = clamp(dot(n, l), 0.0, 1.0);
    if n_dot_l <= 0.0 {
        return vec3<f32>(0.0);
    }
    let h = normalize(v + l);
    let n_dot_v = max(dot(n, v), 1e-4);
    let n_dot_h = clamp(dot(n, h), 0.0, 1.0);
    let v_dot_h = clamp(dot(v, h), 0.0, 1.0);
    let specular = brdf_d_ggx(n_dot_h, roughness) * brdf_v_smith_ggx_correlated(n_dot_v, n_dot_l, roughness)
        * brdf_f_schlick(f0, v_dot_h);
    return (diffuse_color * brdf_lambert() + specular) * n_dot_l;
}

// An analytic fit of the split-sum environment BRDF (scale and bias of f0), for when no LUT
// is bound.
fn brdf_env_approx(f0: vec3<f32>, roughness: f32, n_dot_v: f32) -> vec3<f32> {
    let c0 = vec4<f32>(-1.0, -0.0275, -0.572, 0.022);
    let c1 = vec4<f32>(1.0, 0.0425, 1.04, -0.04);
    let r = roughness * c0 + c1;
    let a004 = min(r.x * r.x, exp2(-9.28 * n_dot_v)) * r.x + r.y;
    let ab = vec2<f32>(-1.04, 1.04) * a004 + r.zw;
    return f0 * ab.x + ab.y;
}


// 3x3 PCF over the shadow map; 1 = fully lit.
fn f3d_shadow_factor(world_position: vec3<f32>) -> f32 {
    let sun = lights.directional;
    if sun.shadow_enabled == 0u {
        return 1.0;
    }
    let p = sun.shadow_view_proj * vec4<f32>(world_position, 1.0);
    let ndc = p.xyz / p.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0 {
        return 1.0;
    }
    let depth = ndc.z - sun.shadow_bias;
    var sum = 0.0;
    for (var y = -1; y <= 1; y += 1) {
        for (var x = -1; x <= 1; x += 1) {
            let o = vec2<f32>(f32(x), f32(y)) * sun.shadow_texel_size;
            sum += textureSampleCompareLevel(shadow_map, shadow_map_sampler, uv + o, depth);
        }
    }
    return sum / 9.0;
}

// Irradiance from the nine SH coefficients in lights.sh (Ramamoorthi and Hanrahan's
// cosine-lobe convolution).
fn f3d_sh_irradiance(n: vec3<f32>) -> vec3<f32> {
    let c1 = 0.429043;
    let c2 = 0.511664;
    let c3 = 0.743125;
    let c4 = 0.886227;
    let c5 = 0.247708;
    let sh = lights.sh;
    let e = c1 * sh[8].xyz * (n.x * n.x - n.y * n.y) + c3 * sh[6].xyz * n.z * n.z + c4 * sh[0].xyz
        - c5 * sh[6].xyz
        + 2.0 * c1 * (sh[4].xyz * n.x * n.y + sh[7].xyz * n.x * n.z + sh[5].xyz * n.y * n.z)
        + 2.0 * c2 * (sh[3].xyz * n.x + sh[1].xyz * n.y + sh[2].xyz * n.z);
    return max(e, vec3<f32>(0.0));
}

// Light from the environment (or the constant ambient), diffuse and specular.
fn f3d_environment(n: vec3<f32>, v: vec3<f32>, diffuse_color: vec3<f32>, f0: vec3<f32>, roughness: f32) -> vec3<f32> {
    let n_dot_v = max(dot(n, v), 1e-4);
    let r = reflect(-v, n);
    var diffuse = lights.ambient;
    var specular = lights.ambient;
    var env_brdf = brdf_env_approx(f0, roughness, n_dot_v);
    let flags = lights.environment_flags;
    if (flags & F3D_ENV_SH) != 0u {
        diffuse = f3d_sh_irradiance(n) / BRDF_PI;
        specular = f3d_sh_irradiance(r) / BRDF_PI;
    }
    if (flags & F3D_ENV_RADIANCE) != 0u {
        let last = max(lights.radiance_mip_count - 1.0, 0.0);
        specular = textureSampleLevel(environment_radiance, environment_radiance_sampler, r, roughness * last).rgb;
        if (flags & F3D_ENV_SH) == 0u {
            diffuse = textureSampleLevel(environment_radiance, environment_radiance_sampler, n, last).rgb;
        }
        let lut = textureSampleLevel(brdf_lut, brdf_lut_sampler, vec2<f32>(n_dot_v, roughness), 0.0).rg;
        env_brdf = f0 * lut.x + lut.y;
    }
    return (diffuse_color * diffuse + specular * env_brdf) * lights.environment_intensity;
}

// One light's direct contribution: the engine BRDF, or the material's `light` hook.
fn f3d_direct(
    m: MaterialInputs,
    n: vec3<f32>,
    v: vec3<f32>,
    l: vec3<f32>,
    radiance: vec3<f32>,
    attenuation: f32,
    shadow: f32,
    diffuse_color: vec3<f32>,
    f0: vec3<f32>,
    roughness: f32,
) -> vec3<f32> {













    return brdf_direct(n, v, l, diffuse_color, f0, roughness) * radiance * (attenuation * shadow);

}

// The lit colour of a surface (linear radiance, not premultiplied).
fn f3d_shade_lit(m: MaterialInputs) -> vec3<f32> {
    let n = f3d_safe_normalize(m.normal);
    let p = f3d_fragment.world_position;
    let v = view_direction();
    let roughness = clamp(m.roughness, 0.045, 1.0);
    let metallic = clamp(m.metallic, 0.0, 1.0);
    let diffuse_color = brdf_diffuse_color(m.base_color.rgb, metallic);
    let f0 = brdf_f0(m.base_color.rgb, metallic);
    var color = vec3<f32>(0.0);
    let sun = lights.directional;
    if sun.enabled != 0u {
        let l = -f3d_safe_normalize(sun.direction);
        color += f3d_direct(m, n, v, l, sun.color, 1.0, f3d_shadow_factor(p), diffuse_color, f0, roughness);
    }
    let count = min(lights.point_count, F3D_MAX_POINT_LIGHTS);
    for (var i = 0u; i < count; i += 1u) {
        let light = lights.points[i];
        let to_light = light.position - p;
        let d2 = max(dot(to_light, to_light), light.radius * light.radius + 1e-4);
        let fade = clamp(1.0 - pow(d2 / max(light.range * light.range, 1e-4), 2.0), 0.0, 1.0);
        let l = f3d_safe_normalize(to_light);
        let cone = clamp(dot(-l, light.spot_direction) * light.spot_scale + light.spot_offset, 0.0, 1.0);
        let attenuation = fade * fade / d2 * cone * cone;
        color += f3d_direct(m, n, v, l, light.color, attenuation, 1.0, diffuse_color, f0, roughness);
    }
    color += f3d_environment(n, v, diffuse_color, f0, roughness) * m.occlusion;
    return color + m.emissive;
}
// f3d engine library: the fragment entry points of surface materials.



fn f3d_begin_fragment(in: VertexOutput, front_facing: bool) {
    var n = f3d_safe_normalize(in.world_normal);

    if !front_facing {
        n = -n;
    }

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
fn fs_lit(in: VertexOutput, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    f3d_begin_fragment(in, front_facing);
    var m = f3d_default_material();
    surface(&m);
    return f3d_finish(f3d_shade_lit(m), m.base_color.a);
}




















