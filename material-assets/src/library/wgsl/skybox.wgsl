// f3d engine library: the skybox. A full-screen triangle at the far plane (depth 1, so draw
// it with LessEqual after the opaques) reading the environment's radiance cube at mip 0.

#include <view.wgsl>

struct SkyboxOutput {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

@vertex
fn vs_skybox(@builtin(vertex_index) index: u32) -> SkyboxOutput {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    let ndc = uv * 2.0 - 1.0;
    var out: SkyboxOutput;
    out.clip_position = vec4<f32>(ndc, 1.0, 1.0);
    out.ndc = ndc;
    return out;
}

@fragment
fn fs_skybox(in: SkyboxOutput) -> @location(0) vec4<f32> {
    let p = view.inverse_view_proj * vec4<f32>(in.ndc, 0.5, 1.0);
    let direction = f3d_safe_normalize(p.xyz / p.w - view.camera_position);
    let radiance = textureSampleLevel(environment_radiance, environment_radiance_sampler, direction, 0.0).rgb;
    return vec4<f32>(radiance * lights.environment_intensity, 1.0);
}
