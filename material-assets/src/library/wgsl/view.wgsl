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
#ifdef F3D_SCENE_COLOR
@group(0) @binding(8) var scene_color_texture: texture_2d<f32>;
@group(0) @binding(9) var scene_color_texture_sampler: sampler;
#endif
#ifdef F3D_SCENE_DEPTH
@group(0) @binding(10) var scene_depth_texture: texture_depth_2d;
#endif

// v normalised, or zero for a zero vector (never NaN).
fn f3d_safe_normalize(v: vec3<f32>) -> vec3<f32> {
    return v * inverseSqrt(max(dot(v, v), 1e-20));
}
