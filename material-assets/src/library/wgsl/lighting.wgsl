// f3d engine library: the lit path. One directional light with PCF shadows, point lights,
// and image-based lighting (prefiltered radiance cube + BRDF LUT, or SH irradiance).

#include <brdf.wgsl>

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
#ifdef F3D_CUSTOM_LIGHT
    var inputs: LightInputs;
    inputs.light_direction = l;
    inputs.radiance = radiance;
    inputs.attenuation = attenuation;
    inputs.shadow = shadow;
    inputs.normal = n;
    inputs.view_direction = v;
    inputs.base_color = m.base_color;
    inputs.metallic = clamp(m.metallic, 0.0, 1.0);
    inputs.roughness = roughness;
    return light(&inputs);
#else
    return brdf_direct(n, v, l, diffuse_color, f0, roughness) * radiance * (attenuation * shadow);
#endif
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
