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
