//! Formats as shaders see them: sRGB encode, decode and blending against the exact curve,
//! rendering into a texture and sampling it in the next pass (colour and depth), cube maps
//! with mips, 2D arrays, LOD clamps, half-float blending, BGRA sRGB, the HDR format, and
//! every format the device claims.
//!
//! Every expected value is worked out here by hand: the sRGB curve is written out in
//! [`srgb_encode`] and [`srgb_decode`], half floats are decoded by [`half_to_f32`], and no
//! table or converter the backends use is consulted.

use f3d_hal::{
    AddressMode, BlendComponent, BlendFactor, BlendOperation, BlendState, Color, CompareFunction,
    DepthStencilState, FilterMode, GraphicsDevice, PipelineDescriptor, ReadbackImage, SampleKind,
    SamplerDescriptor, SamplerHandle, TextureDescriptor, TextureDimension, TextureFormat, TextureHandle,
    TextureRegion, TextureUsages,
};

use super::{Entry, GREEN, RED};
use crate::draw::{draw_vertices, pipeline_from, quad, render, require_sampled, scene_pipeline, target};
use crate::{CheckResult, Context, Verdict, ensure};

pub(crate) const CHECKS: &[Entry] = &[
    ("srgb_encode_on_write_follows_the_curve", srgb_encode_on_write),
    ("srgb_decode_on_sample_follows_the_curve", srgb_decode_on_sample),
    ("blending_in_srgb_targets_is_linear", blending_in_srgb_is_linear),
    ("render_then_sample_in_the_next_pass", render_then_sample),
    ("depth_render_then_compare_sample", depth_then_compare),
    ("cube_mips_through_sample_level", cube_mips),
    ("array_layers_sample_by_index", array_layers),
    ("lod_min_clamp_limits_the_level", lod_min_clamp),
    ("rgba16float_blends", rgba16float_blends),
    ("bgra8_srgb_renders_like_rgba8_srgb", bgra8_srgb_like_rgba8_srgb),
    // These two found a soft bug: its fast path for replacing draws into `Rgba16Float` skipped
    // block rows running past the end of a target whose width is not a multiple of 8 (a 4×1
    // target stayed as cleared).
    ("hdr_format_renders_and_samples_past_one", hdr_past_one),
    ("every_claimed_format_renders_and_samples", every_claimed_format),
];

/// The sRGB transfer function, linear → encoded, written out (IEC 61966-2-1).
fn srgb_encode(x: f64) -> f64 {
    if x <= 0.0031308 { 12.92 * x } else { 1.055 * x.powf(1.0 / 2.4) - 0.055 }
}

/// The sRGB transfer function, encoded → linear, written out (IEC 61966-2-1).
fn srgb_decode(c: f64) -> f64 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// An IEEE half float, decoded by hand (sign, 5-bit exponent, 10-bit mantissa).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((h >> 10) & 0x1f);
    let mantissa = f32::from(h & 0x3ff);
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

/// The channels of texel (`x`, `y`) of a readback, by hand from its bytes: 8-bit images as
/// byte values (0–255), half and single floats as floats, 32-bit integers as integers.
fn channels(image: &ReadbackImage, x: u32, y: u32) -> Vec<f64> {
    let bytes = image.texel(x, y);
    let facts = image.format.facts();
    let width = (facts.block_bytes / facts.components) as usize;
    bytes
        .chunks_exact(width)
        .map(|c| match (width, facts.sample_kind) {
            (1, _) => f64::from(c[0]),
            (2, _) => f64::from(half_to_f32(u16::from_le_bytes([c[0], c[1]]))),
            (_, SampleKind::Uint) => f64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            (_, SampleKind::Sint) => f64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            _ => f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        })
        .collect()
}

/// Texel (`x`, `y`) of an `Rgba32Float` readback, by hand.
fn rgba32f(image: &ReadbackImage, x: u32, y: u32) -> Result<[f64; 4], Verdict> {
    ensure!(
        image.format == TextureFormat::Rgba32Float,
        "an Rgba32Float target read back as {}",
        image.format
    );
    let c = channels(image, x, y);
    Ok([c[0], c[1], c[2], c[3]])
}

/// A WGSL module whose `vs` covers the target with one triangle, followed by `$fs`.
macro_rules! fullscreen {
    ($fs:literal) => {
        concat!(
            r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
"#,
            $fs
        )
    };
}

/// Draws `wgsl`'s `vs` + `fs` once over `out` (cleared to black), with `textures` bound by
/// name, and reads `out` back. Declines when the device refused the pipeline.
fn draw_fullscreen(
    device: &dyn GraphicsDevice,
    wgsl: &str,
    out: &TextureHandle,
    textures: &[(&str, &TextureHandle, &SamplerHandle)],
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> Result<ReadbackImage, Verdict> {
    let p = pipeline_from(device, wgsl, ("vs", "fs"), &[out.descriptor().format], adjust)?;
    render(device, out, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        for (name, t, s) in textures {
            ensure!(pass.bind_texture(name, t, s), "binding `{name}` was refused");
        }
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })
}

fn nearest_sampler(device: &dyn GraphicsDevice) -> Result<SamplerHandle, Verdict> {
    device.create_sampler(&SamplerDescriptor::nearest(AddressMode::ClampToEdge)).ctx("create_sampler")
}

/// Fills `level` of `layer` of `t` with `color`.
fn fill(
    device: &dyn GraphicsDevice,
    t: &TextureHandle,
    level: u32,
    layer: u32,
    color: [u8; 4],
) -> CheckResult {
    let region = TextureRegion::level(t.descriptor(), level, layer);
    let data: Vec<u8> = (0..region.width * region.height).flat_map(|_| color).collect();
    device.write_texture(t, region, &data).ctx("upload")
}

const ENCODE_VALUES: [f32; 7] = [0.0, 0.001, 0.0031308, 0.2, 0.5, 0.8, 1.0];

const ENCODE_WGSL: &str = fullscreen!(
    r#"
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var v = array<f32, 7>(0.0, 0.001, 0.0031308, 0.2, 0.5, 0.8, 1.0);
    let x = v[u32(p.x)];
    return vec4<f32>(x, x, x, x);
}
"#
);

/// A shader writing the linear values 0, 0.001, 0.0031308, 0.2, 0.5, 0.8 and 1 into an
/// `Rgba8UnormSrgb` target stores, in R, G and B, the bytes of the piecewise sRGB curve
/// (12.92·x below 0.0031308, else 1.055·x^(1/2.4) − 0.055) within ±1, and in alpha the linear
/// byte. A device that stores linear bytes (0.5 → 128), uses a gamma-2.2 approximation
/// (0.001 → 11 instead of 3) or encodes alpha fails.
fn srgb_encode_on_write(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, ENCODE_VALUES.len() as u32, 1, TextureFormat::Rgba8UnormSrgb)?;
    let image = draw_fullscreen(device, ENCODE_WGSL, &t, &[], |_| {})?;
    for (x, v) in ENCODE_VALUES.iter().enumerate() {
        let v = f64::from(*v);
        let colour = (srgb_encode(v) * 255.0).round() as u8;
        let alpha = (v * 255.0).round() as u8;
        let want = [colour, colour, colour, alpha];
        let got = image.rgba8(x as u32, 0);
        ensure!(
            super::near(got, want, 1),
            "linear {v} written to Rgba8UnormSrgb stored {got:?}, the sRGB curve gives {want:?} (±1)"
        );
    }
    Ok(())
}

const DECODE_BYTES: [u8; 8] = [0, 1, 10, 11, 64, 128, 188, 255];

const DECODE_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var tex_sampler: sampler;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let size = vec2<f32>(textureDimensions(tex));
    return textureSampleLevel(tex, tex_sampler, p.xy / size, 0.0);
}
"#
);

/// Sampling an `Rgba8UnormSrgb` texture holding the bytes 0, 1, 10, 11, 64, 128, 188 and 255
/// returns, in R, G and B, the decoded values of the sRGB curve (c/12.92 up to 0.04045, else
/// ((c + 0.055)/1.055)^2.4) to 8-bit precision — encoded again with the exact curve, each
/// lands within half a step of its byte — and the byte/255 (±0.001) in alpha, written to an
/// `Rgba32Float` target. Half a step, not a fixed ±0.001: hardware decodes through a table
/// (NVIDIA's H100 returns 0.50390625 for 188, 0.0010 above the curve's 0.50289, 0.18 of a
/// step), which the formats' rules allow. A device that does not decode (128 → 0.502, which
/// encodes back to 188: 60 steps off), decodes with gamma 2.2 (188 → 0.511, which encodes
/// back to 189.4) or decodes alpha fails.
fn srgb_decode_on_sample(device: &dyn GraphicsDevice) -> CheckResult {
    let n = DECODE_BYTES.len() as u32;
    let desc = TextureDescriptor::new_2d("srgb bytes", n, 1, TextureFormat::Rgba8UnormSrgb);
    let tex = device.create_texture(&desc).ctx("create")?;
    // Green holds the byte reversed, so a channel mix-up shows.
    let bytes: Vec<u8> =
        DECODE_BYTES.iter().zip(DECODE_BYTES.iter().rev()).flat_map(|(&b, &r)| [b, r, b, b]).collect();
    device.write_texture(&tex, TextureRegion::full(&desc), &bytes).ctx("upload")?;
    let out = target(device, n, 1, TextureFormat::Rgba32Float)?;
    let s = nearest_sampler(device)?;
    let image = draw_fullscreen(device, DECODE_WGSL, &out, &[("tex", &tex, &s)], |_| {})?;
    require_sampled(device, TextureFormat::Rgba8UnormSrgb)?;
    for x in 0..n {
        let texel = &bytes[x as usize * 4..x as usize * 4 + 4];
        let want = [
            srgb_decode(f64::from(texel[0]) / 255.0),
            srgb_decode(f64::from(texel[1]) / 255.0),
            srgb_decode(f64::from(texel[2]) / 255.0),
            f64::from(texel[3]) / 255.0,
        ];
        let got = rgba32f(&image, x, 0)?;
        let steps_off = |c: usize| (srgb_encode(got[c]) * 255.0 - f64::from(texel[c])).abs();
        ensure!(
            (0..3).all(|c| steps_off(c) <= 0.5) && (got[3] - want[3]).abs() <= 1e-3,
            "sRGB bytes {texel:?} sampled as {got:?}, the sRGB curve gives {want:?} (colour within half \
             an 8-bit step once encoded again, alpha ±0.001)"
        );
    }
    Ok(())
}

const HALF_WHITE_WGSL: &str = fullscreen!(
    r#"
@fragment
fn fs() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0, 1.0, 1.0, 0.5);
}
"#
);

/// White at alpha 0.5 blended over black (SrcAlpha, OneMinusSrcAlpha) into an
/// `Rgba8UnormSrgb` target is blended in linear space and then encoded: the stored colour is
/// encode(0.5) = 188 (±1), not the 128 of blending the encoded bytes; alpha (blended
/// One, Zero) stores 128.
fn blending_in_srgb_is_linear(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 4, 4, TextureFormat::Rgba8UnormSrgb)?;
    let blend = BlendState {
        color: BlendComponent {
            src_factor: BlendFactor::SrcAlpha,
            dst_factor: BlendFactor::OneMinusSrcAlpha,
            operation: BlendOperation::Add,
        },
        alpha: BlendComponent::REPLACE,
    };
    let image =
        draw_fullscreen(device, HALF_WHITE_WGSL, &t, &[], |d| d.color_targets[0].blend = Some(blend))?;
    let colour = (srgb_encode(0.5) * 255.0).round() as u8;
    let want = [colour, colour, colour, 128];
    for y in 0..4 {
        for x in 0..4 {
            let got = image.rgba8(x, y);
            ensure!(
                super::near(got, want, 1),
                "50 % white over black in an sRGB target stored {got:?} at ({x}, {y}), expected \
                 {want:?}: the blend must happen on linear values"
            );
        }
    }
    Ok(())
}

/// 4, 1000, 2⁻⁷ and 2⁻¹⁴ (the smallest normal half float), as the shader below writes them.
const HDR_VALUES: [f32; 4] = [4.0, 1000.0, 1.0 / 128.0, 1.0 / 16384.0];

const HDR_WRITE_WGSL: &str = fullscreen!(
    r#"
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var v = array<f32, 4>(4.0, 1000.0, 0.0078125, 0.00006103515625);
    let x = v[u32(p.x)];
    return vec4<f32>(x, 2.0 * x, 1.5, 1.0);
}
"#
);

/// The device's HDR colour format is renderable and sampleable, and the values 4, 1000,
/// 2⁻⁷ and 2⁻¹⁴ (and twice each) survive a render into it (read back) and a sample of it
/// (written to `Rgba32Float`), within 0.1 % relative. A device whose HDR format clamps to 1,
/// flushes small values to zero or loses them in sampling fails.
fn hdr_past_one(device: &dyn GraphicsDevice) -> CheckResult {
    let format = device.hdr_color_format();
    let support = device.texture_format_support(format);
    ensure!(support.renderable, "the HDR colour format {format} is not renderable");
    let n = HDR_VALUES.len() as u32;
    let hdr = target(device, n, 1, format)?;
    let written = draw_fullscreen(device, HDR_WRITE_WGSL, &hdr, &[], |_| {})?;
    ensure!(support.sampled, "the HDR colour format {format} is not sampleable");
    let out = target(device, n, 1, TextureFormat::Rgba32Float)?;
    let s = nearest_sampler(device)?;
    let sampled = draw_fullscreen(device, DECODE_WGSL, &out, &[("tex", &hdr, &s)], |_| {})?;
    let close = |got: f64, want: f64| (got - want).abs() <= want.abs() * 1e-3;
    for (x, v) in HDR_VALUES.iter().enumerate() {
        let v = f64::from(*v);
        let want = [v, 2.0 * v, 1.5, 1.0];
        let got = channels(&written, x as u32, 0);
        ensure!(
            got.len() >= 3 && got.iter().zip(want).take(3).all(|(g, w)| close(*g, w)),
            "{v} rendered into {format} read back as {got:?}, expected {want:?}"
        );
        let got = rgba32f(&sampled, x as u32, 0)?;
        ensure!(
            got.iter().zip(want).take(3).all(|(g, w)| close(*g, w)),
            "{v} rendered into {format} sampled as {got:?}, expected {want:?}"
        );
    }
    Ok(())
}

/// Pass 1 draws red over the top-left quarter and green over the bottom-right 2×2 corner of
/// an 8×8 texture cleared to black; pass 2 samples it texel for texel into another target.
/// Every pixel of the copy is what pass 1 drew there, so a device that flips the rendered
/// texture, offsets it, or samples it before pass 1 finished fails.
fn render_then_sample(device: &dyn GraphicsDevice) -> CheckResult {
    let rendered = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    render(device, &rendered, Color::BLACK, None, |pass| {
        draw_vertices(device, pass, &p, &quad(-1.0, 0.0, 0.0, 1.0, 0.5, RED))?;
        draw_vertices(device, pass, &p, &quad(0.5, -1.0, 1.0, -0.5, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    let out = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let s = nearest_sampler(device)?;
    let image = draw_fullscreen(device, DECODE_WGSL, &out, &[("tex", &rendered, &s)], |_| {})?;
    for y in 0..8 {
        for x in 0..8 {
            let want = if x < 4 && y < 4 {
                [255, 0, 0, 255]
            } else if x >= 6 && y >= 6 {
                [0, 255, 0, 255]
            } else {
                [0, 0, 0, 255]
            };
            let got = image.rgba8(x, y);
            ensure!(
                got == want,
                "pixel ({x}, {y}) of the sampled copy is {got:?}, pass 1 drew {want:?} there"
            );
        }
    }
    Ok(())
}

const COMPARE_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var depth_tex: texture_depth_2d;
@group(0) @binding(1) var depth_tex_sampler: sampler_comparison;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var refs = array<f32, 8>(0.1, 0.2, 0.3, 0.5, 0.5, 0.9, 0.99, 1.0);
    let row = u32(p.y);
    let u = select(0.75, 0.25, row == 0u);
    let r = refs[row * 4u + u32(p.x)];
    let passed = textureSampleCompareLevel(depth_tex, depth_tex_sampler, vec2<f32>(u, 0.5), r);
    return vec4<f32>(passed, 0.0, 0.0, 1.0);
}
"#
);

/// Pass 1 renders depth 0.25 over the left half of an 8×8 `Depth32Float` texture (usage
/// RENDER_ATTACHMENT | SAMPLED) cleared to 1; pass 2 compares references against it with
/// `textureSampleCompareLevel` through a `Less` comparison sampler (passes when
/// reference < stored). Left half: 0.1, 0.2 pass, 0.3, 0.5 fail; right half (1.0): 0.5, 0.9,
/// 0.99 pass, 1.0 fails. A device that compares the other way round, ignores the sampler's
/// function, or samples depth the first pass did not write fails.
fn depth_then_compare(device: &dyn GraphicsDevice) -> CheckResult {
    let format = TextureFormat::Depth32Float;
    let depth = device
        .create_texture(
            &TextureDescriptor::new_2d("depth", 8, 8, format)
                .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::SAMPLED),
        )
        .ctx("create depth texture")?;
    let colour = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Less, true));
    })?;
    render(device, &colour, Color::BLACK, Some((&depth, 1.0)), |pass| {
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 0.0, 1.0, 0.25, RED))?;
        Ok(vec![p.clone()])
    })?;
    let out = target(device, 4, 2, TextureFormat::Rgba8Unorm)?;
    let s = device
        .create_sampler(&SamplerDescriptor {
            compare: Some(CompareFunction::Less),
            ..SamplerDescriptor::nearest(AddressMode::ClampToEdge)
        })
        .ctx("create comparison sampler")?;
    let image = draw_fullscreen(device, COMPARE_WGSL, &out, &[("depth_tex", &depth, &s)], |_| {})?;
    let cases = [
        [(0.1, 0.25), (0.2, 0.25), (0.3, 0.25), (0.5, 0.25)],
        [(0.5, 1.0), (0.9, 1.0), (0.99, 1.0), (1.0, 1.0)],
    ];
    for (y, row) in cases.iter().enumerate() {
        for (x, (reference, stored)) in row.iter().enumerate() {
            let want = if reference < stored { 255 } else { 0 };
            let got = image.rgba8(x as u32, y as u32)[0];
            ensure!(
                got == want,
                "reference {reference} compared Less against stored depth {stored} gave {got}/255, \
                 expected {want}/255"
            );
        }
    }
    Ok(())
}

const ADD_WGSL: &str = fullscreen!(
    r#"
@fragment
fn fs() -> @location(0) vec4<f32> {
    return vec4<f32>(0.75, 0.25, 3.0, 0.5);
}
"#
);

/// Blending into `Rgba16Float` works on unclamped values: additive (One, One) blending of
/// (0.75, 0.25, 3, 0.5) onto a clear of (0.75, 0.5, 2, 1) stores (1.5, 0.75, 5, 1.5), and
/// premultiplied "over" of the same source onto (4, 2, 0, 1) stores
/// (0.75 + 0.5·4, 0.25 + 0.5·2, 3 + 0, 0.5 + 0.5·1) = (2.75, 1.25, 3, 1), all exact in half
/// floats. A device that clamps to 1 before or after blending, blends at 8 bits, or does not
/// blend this format fails.
fn rgba16float_blends(device: &dyn GraphicsDevice) -> CheckResult {
    let format = TextureFormat::Rgba16Float;
    let additive = BlendComponent {
        src_factor: BlendFactor::One,
        dst_factor: BlendFactor::One,
        operation: BlendOperation::Add,
    };
    let cases = [
        (
            "additive",
            BlendState { color: additive, alpha: additive },
            [0.75, 0.5, 2.0, 1.0],
            [1.5, 0.75, 5.0, 1.5],
        ),
        ("premultiplied over", BlendState::PREMULTIPLIED_ALPHA, [4.0, 2.0, 0.0, 1.0], [2.75, 1.25, 3.0, 1.0]),
    ];
    for (what, blend, clear, want) in cases {
        let t = target(device, 4, 4, format)?;
        let p = pipeline_from(device, ADD_WGSL, ("vs", "fs"), &[format], |d| {
            d.color_targets[0].blend = Some(blend)
        })?;
        let image = render(device, &t, Color::new(clear[0], clear[1], clear[2], clear[3]), None, |pass| {
            pass.set_pipeline(&p).ctx("set_pipeline")?;
            pass.draw(0..3, 0..1).ctx("draw")?;
            Ok(vec![p.clone()])
        })?;
        require_blendable(device, format)?;
        for y in 0..4 {
            for x in 0..4 {
                let got = channels(&image, x, y);
                ensure!(
                    got == want,
                    "{what} blending into Rgba16Float over {clear:?} stored {got:?} at ({x}, {y}), expected {want:?}"
                );
            }
        }
    }
    Ok(())
}

/// Declines unless the device blends `format` (an honest answer, not a failure).
fn require_blendable(device: &dyn GraphicsDevice, format: TextureFormat) -> CheckResult {
    if device.texture_format_support(format).blendable {
        Ok(())
    } else {
        crate::decline(device, format!("does not blend {format}, which this check needs"))
    }
}

const ENCODE_CHANNELS_WGSL: &str = fullscreen!(
    r#"
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var v = array<f32, 7>(0.0, 0.001, 0.0031308, 0.2, 0.5, 0.8, 1.0);
    let x = v[u32(p.x)];
    return vec4<f32>(x, 0.5 * x, 1.0 - x, x);
}
"#
);

/// The same shader writing (x, x/2, 1 − x, x) for the values of
/// [`srgb_encode_on_write`] into `Bgra8UnormSrgb` and `Rgba8UnormSrgb` targets stores the same
/// colours: both read back (in RGBA order) as the sRGB curve of each channel within ±1, with
/// linear alpha. A device that swaps red and blue, or forgets the sRGB encode for the BGRA
/// format, fails.
fn bgra8_srgb_like_rgba8_srgb(device: &dyn GraphicsDevice) -> CheckResult {
    let n = ENCODE_VALUES.len() as u32;
    for format in [TextureFormat::Rgba8UnormSrgb, TextureFormat::Bgra8UnormSrgb] {
        let t = target(device, n, 1, format)?;
        let image = draw_fullscreen(device, ENCODE_CHANNELS_WGSL, &t, &[], |_| {})?;
        for (x, v) in ENCODE_VALUES.iter().enumerate() {
            let v = f64::from(*v);
            let byte = |c: f64| (srgb_encode(c) * 255.0).round() as u8;
            let want = [byte(v), byte(0.5 * v), byte(1.0 - v), (v * 255.0).round() as u8];
            let got = image.rgba8(x as u32, 0);
            ensure!(
                super::near(got, want, 1),
                "(x, x/2, 1 - x, x) for x = {v} written to {format} read back as {got:?}, the sRGB \
                 curve gives {want:?} (±1)"
            );
        }
    }
    Ok(())
}

/// The colour of `level` of cube `face`: distinct for every pair.
fn cube_colour(level: u32, face: u32) -> [u8; 4] {
    [(40 * face + 20) as u8, (100 * level + 10) as u8, (60 * level + 20 * face + 10) as u8, 255]
}

const CUBE_LOD_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var cube: texture_cube<f32>;
@group(0) @binding(1) var cube_sampler: sampler;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var dirs = array<vec3<f32>, 6>(
        vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(-1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0),
        vec3<f32>(0.0, -1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0), vec3<f32>(0.0, 0.0, -1.0),
    );
    var lods = array<f32, 5>(0.0, 1.0, 2.0, 0.5, 1.5);
    return textureSampleLevel(cube, cube_sampler, dirs[u32(p.x)], lods[u32(p.y)]);
}
"#
);

/// A 4×4 cube with 3 levels, each level of each face a distinct colour: `textureSampleLevel`
/// towards each face centre at levels 0, 1 and 2 returns that face's level colour exactly,
/// and at 0.5 and 1.5 (nearest within a level, linear between levels) the average of the two
/// levels' colours (±2). A device that ignores the explicit level, mixes up faces or levels,
/// or filters between levels with nearest fails.
fn cube_mips(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor::new_cube("cube mips", 4, TextureFormat::Rgba8Unorm).with_mips(3);
    let cube = device.create_texture(&desc).ctx("create cube")?;
    for level in 0..3 {
        for face in 0..6 {
            fill(device, &cube, level, face, cube_colour(level, face))?;
        }
    }
    let s = device
        .create_sampler(&SamplerDescriptor {
            mipmap_filter: FilterMode::Linear,
            ..SamplerDescriptor::nearest(AddressMode::ClampToEdge)
        })
        .ctx("create_sampler")?;
    let out = target(device, 6, 5, TextureFormat::Rgba8Unorm)?;
    let image = draw_fullscreen(device, CUBE_LOD_WGSL, &out, &[("cube", &cube, &s)], |_| {})?;
    let average = |a: [u8; 4], b: [u8; 4]| -> [u8; 4] {
        [0, 1, 2, 3].map(|i| ((f64::from(a[i]) + f64::from(b[i])) / 2.0).round() as u8)
    };
    let names = ["+X", "-X", "+Y", "-Y", "+Z", "-Z"];
    for face in 0..6u32 {
        let rows = [
            ("0", cube_colour(0, face), 0),
            ("1", cube_colour(1, face), 0),
            ("2", cube_colour(2, face), 0),
            ("0.5", average(cube_colour(0, face), cube_colour(1, face)), 2),
            ("1.5", average(cube_colour(1, face), cube_colour(2, face)), 2),
        ];
        for (y, (lod, want, tolerance)) in rows.into_iter().enumerate() {
            let got = image.rgba8(face, y as u32);
            ensure!(
                super::near(got, want, tolerance),
                "face {} at level {lod} sampled {got:?}, expected {want:?} (±{tolerance})",
                names[face as usize]
            );
        }
    }
    Ok(())
}

const LAYER_COLOURS: [[u8; 4]; 4] =
    [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [200, 100, 50, 255]];

const ARRAY_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var layers: texture_2d_array<f32>;
@group(0) @binding(1) var layers_sampler: sampler;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureSampleLevel(layers, layers_sampler, vec2<f32>(0.5, 0.5), i32(p.x), 0.0);
}
"#
);

/// A 2×2 `D2Array` texture of 4 layers, each a distinct colour: sampling with array index
/// 0..3 returns each layer's colour. A device that always samples layer 0, or ignores the
/// index's value, fails.
fn array_layers(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor {
        array_layers: LAYER_COLOURS.len() as u32,
        dimension: TextureDimension::D2Array,
        ..TextureDescriptor::new_2d("layers", 2, 2, TextureFormat::Rgba8Unorm)
    };
    let layers = device.create_texture(&desc).ctx("create array")?;
    for (layer, colour) in LAYER_COLOURS.iter().enumerate() {
        fill(device, &layers, 0, layer as u32, *colour)?;
    }
    let out = target(device, LAYER_COLOURS.len() as u32, 1, TextureFormat::Rgba8Unorm)?;
    let s = nearest_sampler(device)?;
    let image = draw_fullscreen(device, ARRAY_WGSL, &out, &[("layers", &layers, &s)], |_| {})?;
    for (layer, want) in LAYER_COLOURS.iter().enumerate() {
        let got = image.rgba8(layer as u32, 0);
        ensure!(got == *want, "array index {layer} sampled {got:?}, that layer holds {want:?}");
    }
    Ok(())
}

/// Samples `tex` with implicit derivatives at uv = position / `size`: over a `size`-pixel
/// target the whole texture is covered once.
fn implicit_lod_wgsl(size: u32) -> String {
    let fs = format!(
        r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var tex_sampler: sampler;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {{
    return textureSample(tex, tex_sampler, p.xy / {size}.0);
}}
"#
    );
    fullscreen!("").to_string() + &fs
}

/// A 16×16 texture whose levels 0, 1, 2 are red, green, blue, sampled 1:1 (level of detail
/// 0) over 16×16 and 4:1 (level of detail 2) over 4×4: with `lod_min_clamp` 0 the 1:1 draw
/// reads level 0; with 1 it reads level 1 and with 2 level 2, while the 4:1 draw keeps
/// reading level 2 (a minimum never lowers a coarser level). A device that ignores the clamp,
/// or treats it as a fixed level, fails.
fn lod_min_clamp(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor::new_2d("mips", 16, 16, TextureFormat::Rgba8Unorm).with_mips(3);
    let tex = device.create_texture(&desc).ctx("create")?;
    let colours = [[255u8, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]];
    for (level, colour) in colours.iter().enumerate() {
        fill(device, &tex, level as u32, 0, *colour)?;
    }
    for (clamp, fine, coarse) in [(0.0, 0, 2), (1.0, 1, 2), (2.0, 2, 2)] {
        let s = device
            .create_sampler(&SamplerDescriptor { lod_min_clamp: clamp, ..SamplerDescriptor::default() })
            .ctx("create_sampler")?;
        for (size, level) in [(16u32, fine), (4, coarse)] {
            let out = target(device, size, size, TextureFormat::Rgba8Unorm)?;
            // One texel per pixel over 16 pixels (level of detail 0), four over 4 (2).
            let image =
                draw_fullscreen(device, &implicit_lod_wgsl(size), &out, &[("tex", &tex, &s)], |_| {})?;
            crate::support::expect_uniform(
                &image,
                colours[level],
                &format!("lod_min_clamp {clamp} sampling {size}x{size} pixels must read level {level}"),
            )?;
        }
    }
    Ok(())
}

/// Draws `value` (of WGSL type `ty`) over the left half of the target.
fn left_half_wgsl(ty: &str, value: &str) -> String {
    format!(
        r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {{
    var p = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(0.0, -1.0), vec2<f32>(-1.0, 1.0),
        vec2<f32>(-1.0, 1.0), vec2<f32>(0.0, -1.0), vec2<f32>(0.0, 1.0),
    );
    return vec4<f32>(p[i], 0.5, 1.0);
}}
@fragment
fn fs() -> @location(0) {ty} {{
    return {ty}{value};
}}
"#
    )
}

/// What the draws of [`render_into_format`] write and clear to, per sample kind.
const DRAWN_FLOAT: [f64; 4] = [0.25, 0.5, 0.75, 1.0];
const CLEAR_FLOAT: [f64; 4] = [1.0, 0.0, 0.5, 0.0];
const DRAWN_UINT: [f64; 4] = [7.0, 300000.0, 1.0, 42.0];
const CLEAR_UINT: [f64; 4] = [5.0, 6.0, 7.0, 8.0];
const DRAWN_SINT: [f64; 4] = [-7.0, 300000.0, -1.0, 42.0];
const CLEAR_SINT: [f64; 4] = [-5.0, 6.0, -7.0, 8.0];

/// Two texels of every format the sample part uploads: their bytes, and the values a shader
/// must read from them (first `components` channels), worked out by hand. `None` for formats
/// the check cannot upload by hand (depth: not uploadable as colour; compressed: their
/// decoded values need a block decoder, which would be a second implementation to trust).
fn sample_texels(format: TextureFormat) -> Option<(Vec<u8>, [[f64; 4]; 2])> {
    use TextureFormat as F;
    const A8: [u8; 4] = [51, 102, 153, 204];
    const B8: [u8; 4] = [255, 0, 204, 51];
    let unorm = |t: [u8; 4], srgb: bool| {
        let c = |i: usize| f64::from(t[i]) / 255.0;
        let d = |i: usize| if srgb { srgb_decode(c(i)) } else { c(i) };
        [d(0), d(1), d(2), c(3)]
    };
    let n = format.facts().components as usize;
    let eight = |srgb: bool, bgra: bool| {
        let order = |t: [u8; 4]| if bgra { vec![t[2], t[1], t[0], t[3]] } else { t[..n].to_vec() };
        let mut bytes = order(A8);
        bytes.extend(order(B8));
        (bytes, [unorm(A8, srgb), unorm(B8, srgb)])
    };
    // 0.25, -2, 1.5, 1 and 0.75, 4, 0.5, 0 as half floats, bits by hand.
    const A16: [(u16, f64); 4] = [(0x3400, 0.25), (0xc000, -2.0), (0x3e00, 1.5), (0x3c00, 1.0)];
    const B16: [(u16, f64); 4] = [(0x3a00, 0.75), (0x4400, 4.0), (0x3800, 0.5), (0x0000, 0.0)];
    const A32: [f32; 4] = [0.25, -2.0, 1.5, 1000.0];
    const B32: [f32; 4] = [0.75, 4.0, 0.5, 0.0];
    const AU: [u32; 4] = [7, 300000, 1, 42];
    const BU: [u32; 4] = [0, 16_777_215, 2, 9];
    const AI: [i32; 4] = [-7, 300000, -1, 42];
    const BI: [i32; 4] = [5, -16_777_215, 2, -9];
    Some(match format {
        F::R8Unorm | F::Rg8Unorm | F::Rgba8Unorm => eight(false, false),
        F::Rgba8UnormSrgb => eight(true, false),
        F::Bgra8Unorm => eight(false, true),
        F::Bgra8UnormSrgb => eight(true, true),
        F::Rgb10a2Unorm => {
            let pack = |t: [u32; 4]| (t[0] | t[1] << 10 | t[2] << 20 | t[3] << 30).to_le_bytes();
            let value = |t: [u32; 4]| {
                [
                    f64::from(t[0]) / 1023.0,
                    f64::from(t[1]) / 1023.0,
                    f64::from(t[2]) / 1023.0,
                    f64::from(t[3]) / 3.0,
                ]
            };
            let (a, b) = ([205, 410, 615, 1], [1023, 0, 820, 3]);
            (pack(a).into_iter().chain(pack(b)).collect(), [value(a), value(b)])
        }
        F::R16Float | F::Rg16Float | F::Rgba16Float => {
            let bytes = A16[..n].iter().chain(&B16[..n]).flat_map(|(h, _)| h.to_le_bytes()).collect();
            (bytes, [A16.map(|(_, v)| v), B16.map(|(_, v)| v)])
        }
        F::R32Float | F::Rg32Float | F::Rgba32Float => {
            let bytes = A32[..n].iter().chain(&B32[..n]).flat_map(|v| v.to_le_bytes()).collect();
            (bytes, [A32.map(f64::from), B32.map(f64::from)])
        }
        F::R32Uint | F::Rgba32Uint => {
            let bytes = AU[..n].iter().chain(&BU[..n]).flat_map(|v| v.to_le_bytes()).collect();
            (bytes, [AU.map(f64::from), BU.map(f64::from)])
        }
        F::R32Sint => {
            let bytes = AI[..n].iter().chain(&BI[..n]).flat_map(|v| v.to_le_bytes()).collect();
            (bytes, [AI.map(f64::from), BI.map(f64::from)])
        }
        _ => return None,
    })
}

/// Pixel 0 reads texel 0, pixel 2 texel 1, pixel 1 the point halfway between them.
const SAMPLE_FLOAT_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@group(0) @binding(1) var tex_sampler: sampler;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return textureSampleLevel(tex, tex_sampler, vec2<f32>((p.x - 0.5) * 0.25 + 0.25, 0.5), 0.0);
}
"#
);

const LOAD_UINT_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var tex: texture_2d<u32>;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(textureLoad(tex, vec2<i32>(i32(p.x) / 2, 0), 0));
}
"#
);

const LOAD_SINT_WGSL: &str = fullscreen!(
    r#"
@group(0) @binding(0) var tex: texture_2d<i32>;
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(textureLoad(tex, vec2<i32>(i32(p.x) / 2, 0), 0));
}
"#
);

/// For every format in `TextureFormat::ALL`:
///
/// * not claimed renderable: `create_texture` with RENDER_ATTACHMENT is refused;
/// * claimed renderable, colour: a clear and a draw over the left half read back as the
///   cleared and drawn values (8-bit formats ±1 with the sRGB curve for sRGB formats; floats
///   and integers exactly); depth: a depth test against it keeps the nearer of two draws;
/// * claimed sampled: two uploaded texels sample back as their hand-decoded values, and where
///   claimed filterable, a linear filter halfway between them gives their average.
///
/// A device that claims a format it cannot render to or sample, or renders a format it says
/// it cannot, fails.
fn every_claimed_format(device: &dyn GraphicsDevice) -> CheckResult {
    // Refusals first: they need no shader.
    for &format in TextureFormat::ALL {
        if device.texture_format_support(format).renderable {
            continue;
        }
        let desc = TextureDescriptor::new_2d("not renderable", 4, 4, format)
            .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_DST);
        ensure!(
            device.create_texture(&desc).is_err(),
            "{format} is not claimed renderable, yet a RENDER_ATTACHMENT texture of it was created"
        );
    }
    for &format in TextureFormat::ALL {
        if device.texture_format_support(format).renderable {
            if format.is_color() {
                render_into_format(device, format)?;
            } else {
                depth_test_with_format(device, format)?;
            }
        }
    }
    for &format in TextureFormat::ALL {
        let support = device.texture_format_support(format);
        if support.sampled {
            sample_format(device, format, support.filterable)?;
        }
    }
    Ok(())
}

/// Clears a 4×1 target of colour `format` and draws over its left half; both halves read
/// back as worked out by hand.
fn render_into_format(device: &dyn GraphicsDevice, format: TextureFormat) -> CheckResult {
    let facts = format.facts();
    let (wgsl, drawn, clear) = match facts.sample_kind {
        SampleKind::Uint => (left_half_wgsl("vec4<u32>", "(7u, 300000u, 1u, 42u)"), DRAWN_UINT, CLEAR_UINT),
        SampleKind::Sint => (left_half_wgsl("vec4<i32>", "(-7, 300000, -1, 42)"), DRAWN_SINT, CLEAR_SINT),
        _ => (left_half_wgsl("vec4<f32>", "(0.25, 0.5, 0.75, 1.0)"), DRAWN_FLOAT, CLEAR_FLOAT),
    };
    let t = target(device, 4, 1, format)?;
    let p = pipeline_from(device, &wgsl, ("vs", "fs"), &[format], |_| {})?;
    let image = render(device, &t, Color::new(clear[0], clear[1], clear[2], clear[3]), None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.draw(0..6, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    let eight_bit = matches!(image.format, TextureFormat::Rgba8Unorm | TextureFormat::Rgba8UnormSrgb);
    // 8-bit readbacks are judged as bytes; the channel a format lacks is not judged.
    let expected = |v: [f64; 4]| -> Vec<f64> {
        (0..facts.components as usize)
            .map(|i| {
                if !eight_bit {
                    v[i]
                } else if facts.srgb && i < 3 {
                    (srgb_encode(v[i]) * 255.0).round()
                } else {
                    (v[i] * 255.0).round()
                }
            })
            .collect()
    };
    let tolerance = if eight_bit { 1.0 } else { 0.0 };
    for (x, values, what) in
        [(0, drawn, "drawn"), (1, drawn, "drawn"), (2, clear, "cleared"), (3, clear, "cleared")]
    {
        let want = expected(values);
        let got = channels(&image, x, 0);
        ensure!(
            got.len() >= want.len() && got.iter().zip(&want).all(|(g, w)| (g - w).abs() <= tolerance),
            "{format}: the {what} pixel {x} read back as {got:?}, expected {want:?} (±{tolerance})"
        );
    }
    Ok(())
}

/// Draws red at depth 0.25 over the left half, then green at 0.5 over everything, with a
/// `Less` depth test against an attachment of depth `format` cleared to 1: the left half
/// stays red, the right turns green.
fn depth_test_with_format(device: &dyn GraphicsDevice, format: TextureFormat) -> CheckResult {
    let depth =
        device.create_texture(&TextureDescriptor::new_2d("depth", 4, 1, format)).ctx("create depth")?;
    let colour = target(device, 4, 1, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Less, true));
    })?;
    let image = render(device, &colour, Color::BLACK, Some((&depth, 1.0)), |pass| {
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 0.0, 1.0, 0.25, RED))?;
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    for x in 0..4 {
        let want = if x < 2 { [255, 0, 0, 255] } else { [0, 255, 0, 255] };
        let got = image.rgba8(x, 0);
        ensure!(
            got == want,
            "{format} as depth attachment: pixel {x} is {got:?}, the depth test gives {want:?}"
        );
    }
    Ok(())
}

/// Uploads two texels of `format`, samples them (and, when `filterable`, halfway between
/// them with a linear filter) into an `Rgba32Float` target, and compares with the values
/// worked out by hand.
fn sample_format(device: &dyn GraphicsDevice, format: TextureFormat, filterable: bool) -> CheckResult {
    let facts = format.facts();
    let Some((bytes, [a, b])) = sample_texels(format) else {
        // Depth and compressed formats (see `sample_texels`), and formats added after this
        // check, which need their texels written above.
        return Ok(());
    };
    let desc = TextureDescriptor::new_2d("sampled", 2, 1, format);
    let tex = device.create_texture(&desc).ctx("create")?;
    device.write_texture(&tex, TextureRegion::full(&desc), &bytes).ctx("upload")?;
    let linear = filterable && facts.sample_kind == SampleKind::Float;
    let sampler = if linear {
        SamplerDescriptor::linear(AddressMode::ClampToEdge)
    } else {
        SamplerDescriptor::nearest(AddressMode::ClampToEdge)
    };
    let s = device.create_sampler(&sampler).ctx("create_sampler")?;
    let wgsl = match facts.sample_kind {
        SampleKind::Uint => LOAD_UINT_WGSL,
        SampleKind::Sint => LOAD_SINT_WGSL,
        _ => SAMPLE_FLOAT_WGSL,
    };
    let out = target(device, 3, 1, TextureFormat::Rgba32Float)?;
    let image = draw_fullscreen(device, wgsl, &out, &[("tex", &tex, &s)], |_| {})?;
    let n = facts.components as usize;
    // Integers exactly; 8- and 10-bit formats within 0.01 (filtering at 8-bit weights);
    // floats within 0.1 % (relative past 1).
    let tolerance = match (facts.sample_kind, facts.block_bytes / facts.components) {
        (SampleKind::Uint | SampleKind::Sint, _) => 0.0,
        (_, 1) => 0.01,
        _ => 1e-3,
    };
    let mut cases = vec![(0, a, "texel 0"), (2, b, "texel 1")];
    if linear {
        cases.push((1, [0, 1, 2, 3].map(|i| (a[i] + b[i]) / 2.0), "halfway between the texels, filtered"));
    }
    for (x, want, what) in cases {
        let got = rgba32f(&image, x, 0)?;
        ensure!(
            got.iter().zip(want).take(n).all(|(g, w)| (g - w).abs() <= tolerance * w.abs().max(1.0)),
            "{format}: {what} sampled as {:?}, expected {:?} (±{tolerance})",
            &got[..n],
            &want[..n]
        );
    }
    Ok(())
}

// Keep the decoded-values helpers honest: they are the check's own arithmetic.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_and_halves_by_hand() {
        assert_eq!((srgb_encode(0.5) * 255.0).round(), 188.0);
        assert!((srgb_decode(srgb_encode(0.2)) - 0.2).abs() < 1e-12);
        assert_eq!(half_to_f32(0x3e00), 1.5);
        assert_eq!(half_to_f32(0xc000), -2.0);
        assert_eq!(half_to_f32(0x0400), 2f32.powi(-14));
    }
}
