// f3d material `Brass`, color variant: composed by f3d_materials; do not edit.
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
    tint: vec3<f32>,
    roughness: f32,
    brushing: f32,
}
@group(1) @binding(0) var<uniform> material_params: MaterialParams;
@group(1) @binding(1) var occlusion_map: texture_2d<f32>;
@group(1) @binding(2) var occlusion_map_sampler: sampler;

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
// Fragment code of brass.ron.
// f3d engine library: procedural noise. `#include <noise.wgsl>` in material code.
//
// Every function takes an i32 seed; the same seed gives the same field. The integer hashes
// agree bit for bit with f3d_materials::noise (the CPU port); the float noise agrees within
// the tolerance stated there. Ranges: simplex, perlin and value noise about -1..1; cellular
// gives (F1, F2) distances; fbm about -1..1; ridged 0..1.

// A 32-bit integer mix (xor-shift-multiply; a full-avalanche permutation of u32).
fn noise_hash_u32(x: u32) -> u32 {
    var h = x;
    h = h ^ (h >> 16u);
    h = h * 0x7feb352du;
    h = h ^ (h >> 15u);
    h = h * 0x846ca68bu;
    h = h ^ (h >> 16u);
    return h;
}

// Hash of a 2D lattice point and a seed.
fn noise_hash2(p: vec2<i32>, seed: i32) -> u32 {
    return noise_hash_u32(bitcast<u32>(p.x) ^ noise_hash_u32(bitcast<u32>(p.y) ^ noise_hash_u32(bitcast<u32>(seed))));
}

// Hash of a 3D lattice point and a seed.
fn noise_hash3(p: vec3<i32>, seed: i32) -> u32 {
    let h = noise_hash_u32(bitcast<u32>(p.z) ^ noise_hash_u32(bitcast<u32>(seed)));
    return noise_hash_u32(bitcast<u32>(p.x) ^ noise_hash_u32(bitcast<u32>(p.y) ^ h));
}

// A hash as a float in [0, 1) (its top 24 bits, exactly).
fn noise_hash_unit(h: u32) -> f32 {
    return f32(h >> 8u) * 5.9604644775390625e-8;
}

// One of eight 2D gradients: the four diagonals and the four axes.
fn noise_grad2(h: u32) -> vec2<f32> {
    let sx = select(1.0, -1.0, (h & 1u) != 0u);
    let sy = select(1.0, -1.0, (h & 2u) != 0u);
    if (h & 4u) == 0u {
        return vec2<f32>(sx, sy);
    }
    if (h & 8u) == 0u {
        return vec2<f32>(sx, 0.0);
    }
    return vec2<f32>(0.0, sy);
}

// The dot product of one of Perlin's twelve cube-edge gradients (sixteen entries) with d.
fn noise_grad3_dot(h: u32, d: vec3<f32>) -> f32 {
    let k = h & 15u;
    let u = select(d.y, d.x, k < 8u);
    let v = select(select(d.z, d.x, k == 12u || k == 14u), d.y, k < 4u);
    return select(u, -u, (k & 1u) != 0u) + select(v, -v, (k & 2u) != 0u);
}

fn noise_quintic2(t: vec2<f32>) -> vec2<f32> {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn noise_quintic3(t: vec3<f32>) -> vec3<f32> {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn noise_lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t;
}

// Classic gradient noise on the square lattice.
fn noise_perlin2(p: vec2<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let f = p - cell;
    let i = vec2<i32>(cell);
    let u = noise_quintic2(f);
    let n00 = dot(noise_grad2(noise_hash2(i, seed)), f);
    let n10 = dot(noise_grad2(noise_hash2(i + vec2<i32>(1, 0), seed)), f - vec2<f32>(1.0, 0.0));
    let n01 = dot(noise_grad2(noise_hash2(i + vec2<i32>(0, 1), seed)), f - vec2<f32>(0.0, 1.0));
    let n11 = dot(noise_grad2(noise_hash2(i + vec2<i32>(1, 1), seed)), f - vec2<f32>(1.0, 1.0));
    return noise_lerp(noise_lerp(n00, n10, u.x), noise_lerp(n01, n11, u.x), u.y) * 0.7071;
}

// Classic gradient noise on the cubic lattice (Perlin's improved gradients).
fn noise_perlin3(p: vec3<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let f = p - cell;
    let i = vec3<i32>(cell);
    let u = noise_quintic3(f);
    let n000 = noise_grad3_dot(noise_hash3(i, seed), f);
    let n100 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 0, 0), seed), f - vec3<f32>(1.0, 0.0, 0.0));
    let n010 = noise_grad3_dot(noise_hash3(i + vec3<i32>(0, 1, 0), seed), f - vec3<f32>(0.0, 1.0, 0.0));
    let n110 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 1, 0), seed), f - vec3<f32>(1.0, 1.0, 0.0));
    let n001 = noise_grad3_dot(noise_hash3(i + vec3<i32>(0, 0, 1), seed), f - vec3<f32>(0.0, 0.0, 1.0));
    let n101 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 0, 1), seed), f - vec3<f32>(1.0, 0.0, 1.0));
    let n011 = noise_grad3_dot(noise_hash3(i + vec3<i32>(0, 1, 1), seed), f - vec3<f32>(0.0, 1.0, 1.0));
    let n111 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 1, 1), seed), f - vec3<f32>(1.0, 1.0, 1.0));
    let x0 = noise_lerp(noise_lerp(n000, n100, u.x), noise_lerp(n010, n110, u.x), u.y);
    let x1 = noise_lerp(noise_lerp(n001, n101, u.x), noise_lerp(n011, n111, u.x), u.y);
    return noise_lerp(x0, x1, u.z);
}

// Value noise: random values at lattice points, smoothly interpolated.
fn noise_value2(p: vec2<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let i = vec2<i32>(cell);
    let u = noise_quintic2(p - cell);
    let a = noise_hash_unit(noise_hash2(i, seed));
    let b = noise_hash_unit(noise_hash2(i + vec2<i32>(1, 0), seed));
    let c = noise_hash_unit(noise_hash2(i + vec2<i32>(0, 1), seed));
    let d = noise_hash_unit(noise_hash2(i + vec2<i32>(1, 1), seed));
    return noise_lerp(noise_lerp(a, b, u.x), noise_lerp(c, d, u.x), u.y) * 2.0 - 1.0;
}

// Value noise in 3D.
fn noise_value3(p: vec3<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let i = vec3<i32>(cell);
    let u = noise_quintic3(p - cell);
    let a = noise_hash_unit(noise_hash3(i, seed));
    let b = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 0, 0), seed));
    let c = noise_hash_unit(noise_hash3(i + vec3<i32>(0, 1, 0), seed));
    let d = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 1, 0), seed));
    let e = noise_hash_unit(noise_hash3(i + vec3<i32>(0, 0, 1), seed));
    let f = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 0, 1), seed));
    let g = noise_hash_unit(noise_hash3(i + vec3<i32>(0, 1, 1), seed));
    let h = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 1, 1), seed));
    let z0 = noise_lerp(noise_lerp(a, b, u.x), noise_lerp(c, d, u.x), u.y);
    let z1 = noise_lerp(noise_lerp(e, f, u.x), noise_lerp(g, h, u.x), u.y);
    return noise_lerp(z0, z1, u.z) * 2.0 - 1.0;
}

fn noise_simplex_corner2(x: vec2<f32>, h: u32) -> f32 {
    let t = 0.5 - dot(x, x);
    if t <= 0.0 {
        return 0.0;
    }
    let t2 = t * t;
    return t2 * t2 * dot(noise_grad2(h), x);
}

// Simplex noise in 2D.
fn noise_simplex2(p: vec2<f32>, seed: i32) -> f32 {
    let skew = (p.x + p.y) * 0.36602540378;
    let cell = floor(p + skew);
    let unskew = (cell.x + cell.y) * 0.2113248654;
    let x0 = p - (cell - unskew);
    let o = select(vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), x0.x > x0.y);
    let x1 = x0 - o + 0.2113248654;
    let x2 = x0 - 1.0 + 0.4226497308;
    let i = vec2<i32>(cell);
    var n = noise_simplex_corner2(x0, noise_hash2(i, seed));
    n += noise_simplex_corner2(x1, noise_hash2(i + vec2<i32>(o), seed));
    n += noise_simplex_corner2(x2, noise_hash2(i + vec2<i32>(1, 1), seed));
    return 70.0 * n;
}

fn noise_simplex_corner3(x: vec3<f32>, h: u32) -> f32 {
    let t = 0.6 - dot(x, x);
    if t <= 0.0 {
        return 0.0;
    }
    let t2 = t * t;
    return t2 * t2 * noise_grad3_dot(h, x);
}

// Simplex noise in 3D.
fn noise_simplex3(p: vec3<f32>, seed: i32) -> f32 {
    let skew = (p.x + p.y + p.z) * 0.33333333333;
    let cell = floor(p + skew);
    let unskew = (cell.x + cell.y + cell.z) * 0.16666666667;
    let x0 = p - (cell - unskew);
    let g = step(x0.yzx, x0.xyz);
    let l = 1.0 - g;
    let o1 = min(g, l.zxy);
    let o2 = max(g, l.zxy);
    let x1 = x0 - o1 + 0.16666666667;
    let x2 = x0 - o2 + 0.33333333333;
    let x3 = x0 - 0.5;
    let i = vec3<i32>(cell);
    var n = noise_simplex_corner3(x0, noise_hash3(i, seed));
    n += noise_simplex_corner3(x1, noise_hash3(i + vec3<i32>(o1), seed));
    n += noise_simplex_corner3(x2, noise_hash3(i + vec3<i32>(o2), seed));
    n += noise_simplex_corner3(x3, noise_hash3(i + vec3<i32>(1, 1, 1), seed));
    return 32.0 * n;
}

// Cellular (Worley) noise: distances to the nearest and second-nearest feature points, one
// random point per cell.
fn noise_cellular2(p: vec2<f32>, seed: i32) -> vec2<f32> {
    let cell = floor(p);
    let i = vec2<i32>(cell);
    let f = p - cell;
    var f1 = 8.0;
    var f2 = 8.0;
    for (var y = -1; y <= 1; y += 1) {
        for (var x = -1; x <= 1; x += 1) {
            let offset = vec2<i32>(x, y);
            let h = noise_hash2(i + offset, seed);
            let point = vec2<f32>(offset) + vec2<f32>(noise_hash_unit(h), noise_hash_unit(noise_hash_u32(h)));
            let d = length(point - f);
            if d < f1 {
                f2 = f1;
                f1 = d;
            } else if d < f2 {
                f2 = d;
            }
        }
    }
    return vec2<f32>(f1, f2);
}

// Fractal sum of simplex octaves (lacunarity 2, gain 0.5), normalised to about -1..1.
// `octaves` is clamped to 1..16.
fn noise_fbm2(p: vec2<f32>, seed: i32, octaves: i32) -> f32 {
    var sum = 0.0;
    var amplitude = 0.5;
    var norm = 0.0;
    var q = p;
    let count = clamp(octaves, 1, 16);
    for (var o = 0; o < count; o += 1) {
        sum += amplitude * noise_simplex2(q, seed + o);
        norm += amplitude;
        q = q * 2.0;
        amplitude *= 0.5;
    }
    return sum / norm;
}

// Ridged multifractal: sharp crests where the noise crosses zero, 0..1.
fn noise_ridged2(p: vec2<f32>, seed: i32, octaves: i32) -> f32 {
    var sum = 0.0;
    var amplitude = 0.5;
    var norm = 0.0;
    var q = p;
    let count = clamp(octaves, 1, 16);
    for (var o = 0; o < count; o += 1) {
        let r = 1.0 - abs(noise_simplex2(q, seed + o));
        sum += amplitude * r * r;
        norm += amplitude;
        q = q * 2.0;
        amplitude *= 0.5;
    }
    return sum / norm;
}

// p pushed by two independent noise fields times `strength`.
fn noise_domain_warp2(p: vec2<f32>, seed: i32, strength: f32) -> vec2<f32> {
    let w = vec2<f32>(noise_simplex2(p, seed), noise_simplex2(p + vec2<f32>(5.2, 1.3), seed + 1));
    return p + w * strength;
}

// p pushed by three independent noise fields times `strength`.
fn noise_domain_warp3(p: vec3<f32>, seed: i32, strength: f32) -> vec3<f32> {
    let w = vec3<f32>(
        noise_simplex3(p, seed),
        noise_simplex3(p + vec3<f32>(5.2, 1.3, 2.8), seed + 1),
        noise_simplex3(p + vec3<f32>(1.7, 9.2, 4.4), seed + 2),
    );
    return p + w * strength;
}

// A divergence-free field: the curl of three simplex potentials, by central differences.
fn noise_curl3(p: vec3<f32>, seed: i32) -> vec3<f32> {
    let e = 0.01;
    let dx = vec3<f32>(e, 0.0, 0.0);
    let dy = vec3<f32>(0.0, e, 0.0);
    let dz = vec3<f32>(0.0, 0.0, e);
    // Potentials a (seed), b (seed + 1), c (seed + 2).
    let da_dy = noise_simplex3(p + dy, seed) - noise_simplex3(p - dy, seed);
    let da_dz = noise_simplex3(p + dz, seed) - noise_simplex3(p - dz, seed);
    let db_dx = noise_simplex3(p + dx, seed + 1) - noise_simplex3(p - dx, seed + 1);
    let db_dz = noise_simplex3(p + dz, seed + 1) - noise_simplex3(p - dz, seed + 1);
    let dc_dx = noise_simplex3(p + dx, seed + 2) - noise_simplex3(p - dx, seed + 2);
    let dc_dy = noise_simplex3(p + dy, seed + 2) - noise_simplex3(p - dy, seed + 2);
    return vec3<f32>(dc_dy - db_dz, da_dz - dc_dx, db_dx - da_dy) / (2.0 * e);
}


fn surface(m: ptr<function, MaterialInputs>) {
    let uv = uv0();
    // Fine streaks along u: stretched fractal noise perturbs the roughness.
    let streaks = noise_fbm2(vec2<f32>(uv.x * 2.0, uv.y * 180.0), 7, 4);
    (*m).base_color = vec4<f32>(material_params.tint, 1.0);
    (*m).metallic = 1.0;
    (*m).roughness = clamp(material_params.roughness + streaks * material_params.brushing, 0.05, 1.0);
    (*m).occlusion = textureSample(occlusion_map, occlusion_map_sampler, uv).r;
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




















