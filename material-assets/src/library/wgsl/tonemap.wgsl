// f3d engine library: tonemap and resolve. Reads the linear HDR scene colour texel for
// texel, applies exposure and a tone curve, and encodes sRGB when the target does not.

#include <color.wgsl>

const TONEMAP_NONE: u32 = 0u;
const TONEMAP_PBR_NEUTRAL: u32 = 1u;
const TONEMAP_ACES: u32 = 2u;

struct Tonemap {
    // Multiplier before the curve.
    exposure: f32,
    // TONEMAP_NONE, TONEMAP_PBR_NEUTRAL (the default) or TONEMAP_ACES.
    curve: u32,
    // 1 when the target is not an sRGB format, so the shader must encode.
    encode_srgb: u32,
}

@group(0) @binding(0) var<uniform> tonemap: Tonemap;
@group(0) @binding(1) var hdr_color: texture_2d<f32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

// Khronos PBR Neutral: colours stay as authored up to a highlight shoulder, then compress
// towards white with a little desaturation.
fn tonemap_pbr_neutral(color: vec3<f32>) -> vec3<f32> {
    let start_compression = 0.8 - 0.04;
    let desaturation = 0.15;
    let x = min(color.r, min(color.g, color.b));
    let offset = select(0.04, x - 6.25 * x * x, x < 0.08);
    let c = color - offset;
    let peak = max(c.r, max(c.g, c.b));
    if peak < start_compression {
        return c;
    }
    let d = 1.0 - start_compression;
    let new_peak = 1.0 - d * d / (peak + d - start_compression);
    let scaled = c * (new_peak / peak);
    let g = 1.0 - 1.0 / (desaturation * (peak - new_peak) + 1.0);
    return mix(scaled, vec3<f32>(new_peak), g);
}

// ACES filmic (Stephen Hill's fit of the RRT and sRGB ODT).
fn tonemap_aces(color: vec3<f32>) -> vec3<f32> {
    let input = mat3x3<f32>(
        vec3<f32>(0.59719, 0.07600, 0.02840),
        vec3<f32>(0.35458, 0.90834, 0.13383),
        vec3<f32>(0.04823, 0.01566, 0.83777),
    );
    let output = mat3x3<f32>(
        vec3<f32>(1.60475, -0.10208, -0.00327),
        vec3<f32>(-0.53108, 1.10813, -0.07276),
        vec3<f32>(-0.07367, -0.00605, 1.07602),
    );
    let v = input * color;
    let a = v * (v + 0.0245786) - 0.000090537;
    let b = v * (0.983729 * v + 0.4329510) + 0.238081;
    return clamp(output * (a / b), vec3<f32>(0.0), vec3<f32>(1.0));
}

@fragment
fn fs_tonemap(@builtin(position) frag_coord: vec4<f32>) -> @location(0) vec4<f32> {
    let hdr = textureLoad(hdr_color, vec2<i32>(frag_coord.xy), 0);
    var rgb = max(hdr.rgb * tonemap.exposure, vec3<f32>(0.0));
    switch tonemap.curve {
        case 1u: {
            rgb = tonemap_pbr_neutral(rgb);
        }
        case 2u: {
            rgb = tonemap_aces(rgb);
        }
        default: {}
    }
    rgb = clamp(rgb, vec3<f32>(0.0), vec3<f32>(1.0));
    if tonemap.encode_srgb != 0u {
        rgb = color_linear_to_srgb(rgb);
    }
    return vec4<f32>(rgb, clamp(hdr.a, 0.0, 1.0));
}
