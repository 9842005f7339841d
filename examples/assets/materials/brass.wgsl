// Fragment code of brass.ron.
#include <noise.wgsl>

fn surface(m: ptr<function, MaterialInputs>) {
    let uv = uv0();
    // Fine streaks along u: stretched fractal noise perturbs the roughness.
    let streaks = noise_fbm2(vec2<f32>(uv.x * 2.0, uv.y * 180.0), 7, 4);
    (*m).base_color = vec4<f32>(material_params.tint, 1.0);
    (*m).metallic = 1.0;
    (*m).roughness = clamp(material_params.roughness + streaks * material_params.brushing, 0.05, 1.0);
    (*m).occlusion = textureSample(occlusion_map, occlusion_map_sampler, uv).r;
}
