//! Texture functions on small known textures: filters, address modes, mips and LOD, cube
//! faces, arrays, depth comparison, loads, queries, gathers, and binding checks.
// Assertions index inputs and outputs by lane, as the shaders do.
#![allow(clippy::needless_range_loop)]

mod exec_support;

use exec_support::*;
use f3d_hal::{AddressMode, CompareFunction, FilterMode, SamplerDescriptor, TextureDimension, TextureFormat};
use f3d_soft_exec::{ExecError, Lanes, Resource, TextureView};

/// Owned planes, level-major.
struct Tex {
    format: TextureFormat,
    dimension: TextureDimension,
    width: u32,
    height: u32,
    levels: u32,
    layers: u32,
    planes: Vec<Vec<u8>>,
}

impl Tex {
    /// A texture whose texel `(level, layer, x, y)` has the bytes `texel(...)`.
    fn new(
        format: TextureFormat,
        dimension: TextureDimension,
        (width, height, levels, layers): (u32, u32, u32, u32),
        texel: impl Fn(u32, u32, u32, u32) -> Vec<u8>,
    ) -> Self {
        let mut planes = Vec::new();
        for level in 0..levels {
            let (w, h) = ((width >> level).max(1), (height >> level).max(1));
            for layer in 0..layers {
                let mut p = Vec::new();
                for y in 0..h {
                    for x in 0..w {
                        p.extend(texel(level, layer, x, y));
                    }
                }
                planes.push(p);
            }
        }
        Self { format, dimension, width, height, levels, layers, planes }
    }

    fn view<'a>(&'a self, refs: &'a [&'a [u8]]) -> TextureView<'a> {
        TextureView {
            format: self.format,
            dimension: self.dimension,
            width: self.width,
            height: self.height,
            mip_levels: self.levels,
            layers: self.layers,
            planes: refs,
        }
    }

    fn refs(&self) -> Vec<&[u8]> {
        self.planes.iter().map(|p| p.as_slice()).collect()
    }
}

fn sampler(filter: FilterMode, address: AddressMode) -> SamplerDescriptor {
    SamplerDescriptor {
        address_mode: [address; 3],
        mag_filter: filter,
        min_filter: filter,
        mipmap_filter: filter,
        ..SamplerDescriptor::default()
    }
}

const SAMPLE_2D: &str = "
    @group(0) @binding(0) var t: texture_2d<f32>;
    @group(0) @binding(1) var s: sampler;
    @fragment fn fs(@location(0) uv: vec2<f32>, @location(1) lod: f32) -> @location(0) vec4<f32> {
        return textureSampleLevel(t, s, uv, lod);
    }";

/// A 4x4 RGBA8 texture whose red channel is 60 * x and green 60 * y.
fn ramp() -> Tex {
    Tex::new(TextureFormat::Rgba8Unorm, TextureDimension::D2, (4, 4, 1, 1), |_, _, x, y| {
        vec![(60 * x) as u8, (60 * y) as u8, 7, 255]
    })
}

/// Reference bilinear/nearest sample of the ramp's red and green channels.
fn ramp_reference(u: f32, v: f32, linear: bool, mode: AddressMode) -> [f32; 2] {
    let wrap = |i: i32| match mode {
        AddressMode::ClampToEdge => i.clamp(0, 3),
        AddressMode::Repeat => i.rem_euclid(4),
        AddressMode::MirrorRepeat => {
            let m = i.rem_euclid(8);
            if m >= 4 { 7 - m } else { m }
        }
    };
    let texel = |x: i32, y: i32| [60.0 * wrap(x) as f32 / 255.0, 60.0 * wrap(y) as f32 / 255.0];
    if !linear {
        return texel((u * 4.0).floor() as i32, (v * 4.0).floor() as i32);
    }
    let (x, y) = (u * 4.0 - 0.5, v * 4.0 - 0.5);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let (x0, y0) = (x0 as i32, y0 as i32);
    let mut out = [0.0; 2];
    for (dx, dy, w) in
        [(0, 0, (1.0 - fx) * (1.0 - fy)), (1, 0, fx * (1.0 - fy)), (0, 1, (1.0 - fx) * fy), (1, 1, fx * fy)]
    {
        let t = texel(x0 + dx, y0 + dy);
        out[0] += w * t[0];
        out[1] += w * t[1];
    }
    out
}

#[test]
fn filters_and_address_modes_match_the_reference() {
    let p = fragment(SAMPLE_2D);
    let tex = ramp();
    let refs = tex.refs();
    let u = lanes(|l| (l % 8) as f32 * 0.23 - 0.6);
    let v = lanes(|l| (l / 8) as f32 * 0.19 - 0.45);
    for mode in [AddressMode::ClampToEdge, AddressMode::Repeat, AddressMode::MirrorRepeat] {
        for filter in [FilterMode::Nearest, FilterMode::Linear] {
            let samp = sampler(filter, mode);
            let ex = run(
                &p,
                &[vec![u, v], vec![lanes(|_| 0.0)]],
                &[Resource::Texture(tex.view(&refs)), Resource::Sampler(&samp)],
            );
            for l in 0..64 {
                let want = ramp_reference(u[l], v[l], filter == FilterMode::Linear, mode);
                close(
                    out(&ex, 0, 0)[l],
                    want[0],
                    1e-5,
                    &format!("{mode:?} {filter:?} red at ({}, {})", u[l], v[l]),
                );
                close(
                    out(&ex, 0, 1)[l],
                    want[1],
                    1e-5,
                    &format!("{mode:?} {filter:?} green at ({}, {})", u[l], v[l]),
                );
                close(out(&ex, 0, 2)[l], 7.0 / 255.0, 1e-6, "blue");
            }
        }
    }
}

/// A 16x16 texture with 5 levels, each a solid colour: red = level / 4.
fn levels() -> Tex {
    Tex::new(TextureFormat::Rgba8Unorm, TextureDimension::D2, (16, 16, 5, 1), |level, _, _, _| {
        vec![(level * 255 / 4) as u8, 0, 0, 255]
    })
}

fn level_red(level: f32) -> f32 {
    (level as u32 * 255 / 4) as f32 / 255.0
}

#[test]
fn explicit_levels_nearest_and_trilinear() {
    let p = fragment(SAMPLE_2D);
    let tex = levels();
    let refs = tex.refs();
    let lod = lanes(|l| l as f32 * 0.1 - 0.5);
    let uv = vec![lanes(|_| 0.3), lanes(|_| 0.6)];
    let nearest = sampler(FilterMode::Nearest, AddressMode::Repeat);
    let ex =
        run(&p, &[uv.clone(), vec![lod]], &[Resource::Texture(tex.view(&refs)), Resource::Sampler(&nearest)]);
    for l in 0..64 {
        let d = lod[l].clamp(0.0, 4.0);
        let level = ((d + 0.5).ceil() - 1.0).max(0.0);
        close(out(&ex, 0, 0)[l], level_red(level), 1e-6, &format!("nearest mip at lod {}", lod[l]));
    }
    let linear = sampler(FilterMode::Linear, AddressMode::Repeat);
    let ex = run(&p, &[uv, vec![lod]], &[Resource::Texture(tex.view(&refs)), Resource::Sampler(&linear)]);
    for l in 0..64 {
        let d = lod[l].clamp(0.0, 4.0);
        let lo = d.floor();
        let want = level_red(lo) * (1.0 - (d - lo)) + level_red((lo + 1.0).min(4.0)) * (d - lo);
        close(out(&ex, 0, 0)[l], want, 1e-5, &format!("trilinear at lod {}", lod[l]));
    }
}

/// Quad-ordered pixel coordinates of an 8x8 tile.
fn pixel(l: usize) -> (f32, f32) {
    ((2 * ((l / 4) % 4) + (l % 2)) as f32 + 0.5, (2 * ((l / 4) / 4) + (l % 4) / 2) as f32 + 0.5)
}

#[test]
fn implicit_lod_from_quad_derivatives_bias_grad_and_clamps() {
    let p = fragment(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var s: sampler;
        struct Out { @location(0) a: vec4<f32>, @location(1) b: vec4<f32>, @location(2) c: vec4<f32> }
        @fragment fn fs(@builtin(position) pos: vec4<f32>, @location(0) scale: f32) -> Out {
            let uv = pos.xy * scale / 16.0;
            var o: Out;
            o.a = textureSample(t, s, uv);
            o.b = textureSampleBias(t, s, uv, 1.0);
            o.c = textureSampleGrad(t, s, uv, vec2<f32>(scale / 16.0, 0.0), vec2<f32>(0.0, scale * 2.0 / 16.0));
            return o;
        }",
    );
    let tex = levels();
    let refs = tex.refs();
    // Quad q gets scale 2^(q % 4) texels per pixel: LOD 0, 1, 2, 3.
    let scale = lanes(|l| (1 << ((l / 4) % 4)) as f32);
    let pos = vec![lanes(|l| pixel(l).0), lanes(|l| pixel(l).1), lanes(|_| 0.5), lanes(|_| 1.0)];
    let mut samp = sampler(FilterMode::Nearest, AddressMode::Repeat);
    let ex =
        run(&p, &[pos.clone(), vec![scale]], &[Resource::Texture(tex.view(&refs)), Resource::Sampler(&samp)]);
    for l in 0..64 {
        let lod = ((l / 4) % 4) as f32;
        close(out(&ex, 0, 0)[l], level_red(lod), 1e-6, &format!("implicit lod, lane {l}"));
        close(out(&ex, 1, 0)[l], level_red(lod + 1.0), 1e-6, &format!("biased lod, lane {l}"));
        close(out(&ex, 2, 0)[l], level_red(lod + 1.0), 1e-6, &format!("gradient lod, lane {l}"));
    }
    samp.lod_min_clamp = 2.0;
    samp.lod_max_clamp = 2.0;
    let ex = run(&p, &[pos, vec![scale]], &[Resource::Texture(tex.view(&refs)), Resource::Sampler(&samp)]);
    for l in 0..64 {
        close(out(&ex, 0, 0)[l], level_red(2.0), 1e-6, &format!("clamped lod, lane {l}"));
    }
}

#[test]
fn formats_decode_like_the_gpu() {
    let p = fragment(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @fragment fn fs(@location(0) @interpolate(flat) xy: vec2<i32>) -> @location(0) vec4<f32> {
            return textureLoad(t, xy, 0);
        }",
    );
    let h = |v: f32| f3d_hal::f32_to_f16(v).to_le_bytes();
    let cases: Vec<(TextureFormat, Vec<u8>, [f32; 4])> = vec![
        (TextureFormat::Rgba8Unorm, vec![255, 128, 0, 51], [1.0, 128.0 / 255.0, 0.0, 0.2]),
        (
            TextureFormat::Rgba8UnormSrgb,
            vec![255, 128, 10, 51],
            [
                1.0,
                f3d_hal::srgb_to_linear(128.0 / 255.0) as f32,
                f3d_hal::srgb_to_linear(10.0 / 255.0) as f32,
                0.2,
            ],
        ),
        (TextureFormat::Bgra8Unorm, vec![255, 128, 0, 51], [0.0, 128.0 / 255.0, 1.0, 0.2]),
        (TextureFormat::Bgra8UnormSrgb, vec![0, 0, 255, 255], [1.0, 0.0, 0.0, 1.0]),
        (TextureFormat::R8Unorm, vec![51], [0.2, 0.0, 0.0, 1.0]),
        (TextureFormat::Rg8Unorm, vec![51, 102], [0.2, 0.4, 0.0, 1.0]),
        (
            TextureFormat::Rgb10a2Unorm,
            (1023u32 | (341 << 20) | (3 << 30)).to_le_bytes().to_vec(),
            [1.0, 0.0, 341.0 / 1023.0, 1.0],
        ),
        (TextureFormat::R16Float, h(1.5).to_vec(), [1.5, 0.0, 0.0, 1.0]),
        (TextureFormat::Rg16Float, [h(-2.0), h(0.25)].concat(), [-2.0, 0.25, 0.0, 1.0]),
        (TextureFormat::Rgba16Float, [h(1.0), h(2.0), h(3.0), h(4.0)].concat(), [1.0, 2.0, 3.0, 4.0]),
        (TextureFormat::R32Float, 3.25f32.to_le_bytes().to_vec(), [3.25, 0.0, 0.0, 1.0]),
        (
            TextureFormat::Rg32Float,
            [1.5f32.to_le_bytes(), (-7.0f32).to_le_bytes()].concat(),
            [1.5, -7.0, 0.0, 1.0],
        ),
        (
            TextureFormat::Rgba32Float,
            [1f32, 2.0, 3.0, 4.0].iter().flat_map(|v| v.to_le_bytes()).collect(),
            [1.0, 2.0, 3.0, 4.0],
        ),
    ];
    for (format, texel, want) in cases {
        let tex = Tex::new(format, TextureDimension::D2, (2, 2, 1, 1), |_, _, x, y| {
            if (x, y) == (1, 0) { texel.clone() } else { vec![0; texel.len()] }
        });
        let refs = tex.refs();
        let xy = vec![ilanes(|l| (l % 3) as i32), ilanes(|l| (l / 3 % 3) as i32 - 1)];
        let ex = run(&p, std::slice::from_ref(&xy), &[Resource::Texture(tex.view(&refs))]);
        for l in 0..64 {
            let (x, y) = (xy[0][l].to_bits() as i32, xy[1][l].to_bits() as i32);
            let inside = (0..2).contains(&x) && (0..2).contains(&y);
            for c in 0..4 {
                let expect = if (x, y) == (1, 0) {
                    want[c]
                } else if inside {
                    // Zero bytes: missing channels still read 0, alpha of formats without one 1.
                    match format {
                        TextureFormat::R8Unorm | TextureFormat::R16Float | TextureFormat::R32Float
                            if c == 3 =>
                        {
                            1.0
                        }
                        TextureFormat::Rg8Unorm | TextureFormat::Rg16Float | TextureFormat::Rg32Float
                            if c == 3 =>
                        {
                            1.0
                        }
                        _ => 0.0,
                    }
                } else {
                    0.0
                };
                // sRGB decodes through a polynomial within 1e-5 of the exact curve.
                let tol = if format.facts().srgb { 1e-5 } else { 1e-6 };
                close(out(&ex, 0, c)[l], expect, tol, &format!("{format} at ({x}, {y}) channel {c}"));
            }
        }
    }
}

#[test]
fn integer_textures_load_bits() {
    let p = fragment(
        "@group(0) @binding(0) var t: texture_2d<u32>;
        @group(0) @binding(1) var ti: texture_2d<i32>;
        struct Out { @location(0) a: vec4<u32>, @location(1) b: vec4<i32> }
        @fragment fn fs(@location(0) @interpolate(flat) x: i32) -> Out {
            return Out(textureLoad(t, vec2<i32>(x, 0), 0), textureLoad(ti, vec2<i32>(x, 0), 0));
        }",
    );
    let tu = Tex::new(TextureFormat::R32Uint, TextureDimension::D2, (4, 1, 1, 1), |_, _, x, _| {
        (0xdead_0000u32 + x).to_le_bytes().to_vec()
    });
    let ti = Tex::new(TextureFormat::R32Sint, TextureDimension::D2, (4, 1, 1, 1), |_, _, x, _| {
        (-(x as i32) - 5).to_le_bytes().to_vec()
    });
    let (ru, ri) = (tu.refs(), ti.refs());
    let ex = run(
        &p,
        &[vec![ilanes(|l| l as i32 % 5)]],
        &[Resource::Texture(tu.view(&ru)), Resource::Texture(ti.view(&ri))],
    );
    for l in 0..64 {
        let x = (l % 5) as u32;
        let (wu, wi) = if x < 4 { (0xdead_0000 + x, -(x as i32) - 5) } else { (0, 0) };
        let alpha = if x < 4 { 1 } else { 0 };
        assert_eq!([out_u(&ex, 0, 0)[l], out_u(&ex, 0, 1)[l], out_u(&ex, 0, 3)[l]], [wu, 0, alpha]);
        assert_eq!(out_i(&ex, 1, 0)[l], wi);
    }
}

#[test]
fn cube_faces_and_array_layers() {
    let p = fragment(
        "@group(0) @binding(0) var c: texture_cube<f32>;
        @group(0) @binding(1) var a: texture_2d_array<f32>;
        @group(0) @binding(2) var s: sampler;
        struct Out { @location(0) face: vec4<f32>, @location(1) layer: vec4<f32> }
        @fragment fn fs(@location(0) dir: vec3<f32>, @location(1) @interpolate(flat) layer: i32) -> Out {
            return Out(textureSampleLevel(c, s, dir, 0.0), textureSampleLevel(a, s, vec2<f32>(0.5), layer, 0.0));
        }",
    );
    // Each face is solid: red = face / 8; inside a face, green = the texel's s, blue its t.
    let cube = Tex::new(TextureFormat::Rgba8Unorm, TextureDimension::Cube, (4, 4, 1, 6), |_, face, x, y| {
        vec![(face * 32) as u8, (x * 80) as u8, (y * 80) as u8, 255]
    });
    let arr = Tex::new(TextureFormat::R8Unorm, TextureDimension::D2Array, (2, 2, 1, 3), |_, layer, _, _| {
        vec![(layer * 100) as u8]
    });
    let (rc, ra) = (cube.refs(), arr.refs());
    let dirs: [([f32; 3], u32, [u32; 2]); 7] = [
        ([1.0, 0.3, -0.2], 0, [0, 0]),
        ([-1.0, 0.0, 0.0], 1, [0, 0]),
        ([0.2, 1.0, 0.1], 2, [0, 0]),
        ([0.0, -1.0, 0.0], 3, [0, 0]),
        ([0.0, 0.0, 1.0], 4, [0, 0]),
        ([0.1, 0.2, -1.0], 5, [0, 0]),
        ([0.9, 0.9, 0.2], 2, [0, 0]),
    ];
    let dir = (0..3).map(|c| lanes(|l| dirs[l % 7].0[c])).collect::<Vec<Lanes>>();
    let layer = ilanes(|l| l as i32 % 5 - 1);
    let samp = sampler(FilterMode::Nearest, AddressMode::ClampToEdge);
    let ex = run(
        &p,
        &[dir, vec![layer]],
        &[Resource::Texture(cube.view(&rc)), Resource::Texture(arr.view(&ra)), Resource::Sampler(&samp)],
    );
    for l in 0..64 {
        let (d, face, _) = dirs[l % 7];
        close(out(&ex, 0, 0)[l], (face * 32) as f32 / 255.0, 1e-6, &format!("face of {d:?}"));
        // Vulkan's face table: the texel the direction lands on.
        let (sc, tc, ma) = match face {
            0 => (-d[2], -d[1], d[0]),
            1 => (d[2], -d[1], -d[0]),
            2 => (d[0], d[2], d[1]),
            3 => (d[0], -d[2], -d[1]),
            4 => (d[0], -d[1], d[2]),
            _ => (-d[0], -d[1], -d[2]),
        };
        let (s, t) = (0.5 * sc / ma + 0.5, 0.5 * tc / ma + 0.5);
        let (x, y) = (((s * 4.0).floor() as u32).min(3), ((t * 4.0).floor() as u32).min(3));
        close(out(&ex, 0, 1)[l], (x * 80) as f32 / 255.0, 1e-6, &format!("s on face {face} for {d:?}"));
        close(out(&ex, 0, 2)[l], (y * 80) as f32 / 255.0, 1e-6, &format!("t on face {face} for {d:?}"));
        let layer = (l as i32 % 5 - 1).clamp(0, 2);
        close(out(&ex, 1, 0)[l], (layer * 100) as f32 / 255.0, 1e-6, "array layer (clamped)");
    }
}

#[test]
fn depth_textures_compare_and_sample() {
    let p = fragment(
        "@group(0) @binding(0) var d: texture_depth_2d;
        @group(0) @binding(1) var sc: sampler_comparison;
        @group(0) @binding(2) var s: sampler;
        struct Out { @location(0) v: vec4<f32> }
        @fragment fn fs(@location(0) uv: vec2<f32>, @location(1) r: f32) -> Out {
            let g = textureGatherCompare(d, sc, uv, r);
            return Out(vec4<f32>(textureSampleCompareLevel(d, sc, uv, r), textureSampleLevel(d, s, uv, 0),
                                 textureLoad(d, vec2<i32>(1, 1), 0), g.x + g.y * 2.0 + g.z * 4.0 + g.w * 8.0));
        }",
    );
    // 2x2 depths: 0.1 0.3 / 0.5 0.7 (row 0 on top).
    let depths = [0.1f32, 0.3, 0.5, 0.7];
    let tex = Tex::new(TextureFormat::Depth32Float, TextureDimension::D2, (2, 2, 1, 1), |_, _, x, y| {
        depths[(y * 2 + x) as usize].to_le_bytes().to_vec()
    });
    let refs = tex.refs();
    let cmp = SamplerDescriptor {
        compare: Some(CompareFunction::Less),
        ..sampler(FilterMode::Linear, AddressMode::ClampToEdge)
    };
    let near = sampler(FilterMode::Nearest, AddressMode::ClampToEdge);
    let uv = vec![lanes(|l| 0.25 + (l % 4) as f32 * 0.125), lanes(|_| 0.25)];
    let r = lanes(|l| (l / 4) as f32 * 0.05);
    let ex = run(
        &p,
        &[uv.clone(), vec![r]],
        &[Resource::Texture(tex.view(&refs)), Resource::Sampler(&cmp), Resource::Sampler(&near)],
    );
    for l in 0..64 {
        let (u, r) = (uv[0][l], r[l]);
        // Linear PCF across the top row at v = 0.25 (texel row 0 only).
        let x = u * 2.0 - 0.5;
        let fx = x - x.floor();
        let x0 = (x.floor() as i32).clamp(0, 1) as usize;
        let x1 = (x.floor() as i32 + 1).clamp(0, 1) as usize;
        let pass = |i: usize| if r < depths[i] { 1.0 } else { 0.0 };
        let want = pass(x0) * (1.0 - fx) + pass(x1) * fx;
        close(out(&ex, 0, 0)[l], want, 1e-6, &format!("PCF at u {u}, ref {r}"));
        let nearest = depths[((u * 2.0).floor() as usize).min(1)];
        close(out(&ex, 0, 1)[l], nearest, 0.0, "depth sample");
        close(out(&ex, 0, 2)[l], 0.7, 0.0, "depth load");
        // Gather footprint at v = 0.25: rows j0 = 0 and j1 = 1, columns x0 and x1.
        let g = [pass(2 + x0), pass(2 + x1), pass(x1), pass(x0)];
        close(out(&ex, 0, 3)[l], g[0] + g[1] * 2.0 + g[2] * 4.0 + g[3] * 8.0, 0.0, "gather compare");
    }
}

#[test]
fn loads_queries_and_gather() {
    let p = fragment(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var a: texture_2d_array<f32>;
        @group(0) @binding(2) var s: sampler;
        struct Out { @location(0) load: vec4<f32>, @location(1) @interpolate(flat) q: vec4<u32>, @location(2) g: vec4<f32> }
        @fragment fn fs(@location(0) @interpolate(flat) xyl: vec3<i32>) -> Out {
            var o: Out;
            o.load = textureLoad(t, xyl.xy, xyl.z);
            let d = textureDimensions(t, u32(max(xyl.z, 0)));
            o.q = vec4<u32>(d, textureNumLevels(t), textureNumLayers(a) * 100u + textureDimensions(a).x);
            o.g = textureGather(1, t, s, vec2<f32>(0.5, 0.5));
            return o;
        }",
    );
    // 4x2 base level, 3 levels; red = level, green = 10 x + y.
    let tex = Tex::new(TextureFormat::Rgba8Unorm, TextureDimension::D2, (4, 2, 3, 1), |level, _, x, y| {
        vec![level as u8, (10 * x + y) as u8, 0, 255]
    });
    let arr = Tex::new(TextureFormat::R8Unorm, TextureDimension::D2Array, (8, 8, 1, 5), |_, _, _, _| vec![0]);
    let (rt, ra) = (tex.refs(), arr.refs());
    let samp = sampler(FilterMode::Linear, AddressMode::ClampToEdge);
    let xyl =
        vec![ilanes(|l| (l % 5) as i32 - 1), ilanes(|l| (l / 5 % 3) as i32), ilanes(|l| (l / 15) as i32 - 1)];
    let ex = run(
        &p,
        std::slice::from_ref(&xyl),
        &[Resource::Texture(tex.view(&rt)), Resource::Texture(arr.view(&ra)), Resource::Sampler(&samp)],
    );
    for l in 0..64 {
        let (x, y, level) =
            (xyl[0][l].to_bits() as i32, xyl[1][l].to_bits() as i32, xyl[2][l].to_bits() as i32);
        let size = |lv: i32| ((4 >> lv).max(1), (2 >> lv).max(1));
        let valid = (0..3).contains(&level)
            && x >= 0
            && y >= 0
            && x < size(level.clamp(0, 2)).0
            && y < size(level.clamp(0, 2)).1;
        let want =
            if valid { [level as f32 / 255.0, (10 * x + y) as f32 / 255.0, 0.0, 1.0] } else { [0.0; 4] };
        for c in 0..4 {
            close(out(&ex, 0, c)[l], want[c], 1e-6, &format!("load ({x}, {y}) level {level}"));
        }
        let (w, h) = size(level.clamp(0, 2));
        assert_eq!(
            [out_u(&ex, 1, 0)[l], out_u(&ex, 1, 1)[l], out_u(&ex, 1, 2)[l], out_u(&ex, 1, 3)[l]],
            [w as u32, h as u32, 3, 508],
            "queries, level {level}"
        );
        // Gather of green at the centre: texels (1,0) (2,0) (1,1) (2,1) in x y z w order
        // (i0,j1) (i1,j1) (i1,j0) (i0,j0).
        let g = |x: u32, y: u32| (10 * x + y) as f32 / 255.0;
        let want = [g(1, 1), g(2, 1), g(2, 0), g(1, 0)];
        for c in 0..4 {
            close(out(&ex, 2, c)[l], want[c], 1e-6, "gather");
        }
    }
}

#[test]
fn bindings_are_checked_against_the_interface() {
    let p = fragment(
        "struct U { m: mat4x4<f32> }
        @group(0) @binding(0) var<uniform> u: U;
        @group(1) @binding(0) var t: texture_2d<f32>;
        @group(1) @binding(1) var s: sampler;
        @fragment fn fs(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
            return u.m * textureSample(t, s, uv);
        }",
    );
    let itf = p.interface();
    assert_eq!(itf.resources.len(), 3);
    assert_eq!((itf.resources[1].group, itf.resources[1].binding), (1, 0));
    let tex = ramp();
    let refs = tex.refs();
    let samp = sampler(FilterMode::Linear, AddressMode::Repeat);
    let bytes = vec![0u8; 64];
    assert!(
        p.bind(&[
            Resource::UniformBlock(&bytes),
            Resource::Texture(tex.view(&refs)),
            Resource::Sampler(&samp)
        ])
        .is_ok()
    );
    let short = vec![0u8; 60];
    let err = p
        .bind(&[Resource::UniformBlock(&short), Resource::Texture(tex.view(&refs)), Resource::Sampler(&samp)])
        .unwrap_err();
    assert!(matches!(err, ExecError::Binding { group: 0, binding: 0, .. }), "{err}");
    let err = p
        .bind(&[Resource::UniformBlock(&bytes), Resource::Sampler(&samp), Resource::Sampler(&samp)])
        .unwrap_err();
    assert!(err.to_string().contains("got a sampler"), "{err}");
    let err = p.bind(&[Resource::UniformBlock(&bytes)]).unwrap_err();
    assert!(matches!(err, ExecError::BindingCount { expected: 3, given: 1, .. }), "{err}");
    let few = &refs[..0];
    let err = p
        .bind(&[Resource::UniformBlock(&bytes), Resource::Texture(tex.view(few)), Resource::Sampler(&samp)])
        .unwrap_err();
    assert!(err.to_string().contains("planes"), "{err}");
    let truncated: Vec<&[u8]> = vec![&refs[0][..10]];
    let err = p
        .bind(&[
            Resource::UniformBlock(&bytes),
            Resource::Texture(tex.view(&truncated)),
            Resource::Sampler(&samp),
        ])
        .unwrap_err();
    assert!(err.to_string().contains("holds 10 bytes"), "{err}");
    let cmp = SamplerDescriptor { compare: Some(CompareFunction::Less), ..samp.clone() };
    let err = p
        .bind(&[Resource::UniformBlock(&bytes), Resource::Texture(tex.view(&refs)), Resource::Sampler(&cmp)])
        .unwrap_err();
    assert!(err.to_string().contains("compare"), "{err}");
    let mut cube_view = tex.view(&refs);
    cube_view.dimension = TextureDimension::Cube;
    let err = p
        .bind(&[Resource::UniformBlock(&bytes), Resource::Texture(cube_view), Resource::Sampler(&samp)])
        .unwrap_err();
    assert!(err.to_string().contains("Cube"), "{err}");
}

#[test]
fn fast_and_general_filter_paths_agree() {
    // A 2D texture takes the RGBA8 fast path; a 2D array whose lanes alternate between two
    // identical layers takes the general one. Both must filter alike, for every RGBA8 format
    // and every filter combination.
    let p = fragment(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var a: texture_2d_array<f32>;
        @group(0) @binding(2) var s: sampler;
        struct Out { @location(0) fast: vec4<f32>, @location(1) general: vec4<f32> }
        @fragment fn fs(@location(0) uv: vec2<f32>, @location(1) lod: f32, @location(2) @interpolate(flat) layer: i32) -> Out {
            return Out(textureSampleLevel(t, s, uv, lod), textureSampleLevel(a, s, uv, layer, lod));
        }",
    );
    let texel = |_: u32, _: u32, x: u32, y: u32| {
        let h = (x * 73 + y * 151) ^ (x * y * 29);
        vec![(h * 7) as u8, (h * 13 + 40) as u8, (h * 3) as u8, 255u32.wrapping_sub(h * 5) as u8]
    };
    let uv = vec![lanes(|l| (l % 8) as f32 * 0.171 - 0.2), lanes(|l| (l / 8) as f32 * 0.137 + 0.05)];
    let lod = lanes(|l| (l % 5) as f32 * 0.6 - 1.0);
    let layer = ilanes(|l| (l % 2) as i32);
    for format in [
        TextureFormat::Rgba8Unorm,
        TextureFormat::Rgba8UnormSrgb,
        TextureFormat::Bgra8Unorm,
        TextureFormat::Bgra8UnormSrgb,
    ] {
        let flat = Tex::new(format, TextureDimension::D2, (8, 8, 4, 1), texel);
        let arr = Tex::new(format, TextureDimension::D2Array, (8, 8, 4, 2), texel);
        let (rf, ra) = (flat.refs(), arr.refs());
        for (mag, min, mip) in [
            (FilterMode::Linear, FilterMode::Linear, FilterMode::Linear),
            (FilterMode::Nearest, FilterMode::Nearest, FilterMode::Nearest),
            (FilterMode::Linear, FilterMode::Nearest, FilterMode::Linear),
            (FilterMode::Nearest, FilterMode::Linear, FilterMode::Nearest),
        ] {
            let samp = SamplerDescriptor {
                address_mode: [AddressMode::Repeat, AddressMode::MirrorRepeat, AddressMode::ClampToEdge],
                mag_filter: mag,
                min_filter: min,
                mipmap_filter: mip,
                ..SamplerDescriptor::default()
            };
            let ex = run(
                &p,
                &[uv.clone(), vec![lod], vec![layer]],
                &[
                    Resource::Texture(flat.view(&rf)),
                    Resource::Texture(arr.view(&ra)),
                    Resource::Sampler(&samp),
                ],
            );
            for l in 0..64 {
                for c in 0..4 {
                    close(
                        out(&ex, 0, c)[l],
                        out(&ex, 1, c)[l],
                        1e-6,
                        &format!("{format} {mag:?}/{min:?}/{mip:?} lane {l} channel {c}"),
                    );
                }
            }
            // And the fast path matches a direct decode of the right texel where nothing blends.
            if (mag, min, mip) == (FilterMode::Nearest, FilterMode::Nearest, FilterMode::Nearest) {
                let l = 10; // uv (0.142, 0.187), lod -1: level 0, texel (1, 1)
                let bytes = texel(0, 0, 1, 1);
                let order = if format.name().starts_with("Bgra") { [2, 1, 0, 3] } else { [0, 1, 2, 3] };
                for c in 0..4 {
                    let v = bytes[order[c]] as f64 / 255.0;
                    let want =
                        if format.facts().srgb && c < 3 { f3d_hal::srgb_to_linear(v) } else { v } as f32;
                    close(out(&ex, 0, c)[l], want, 1e-5, &format!("{format} texel channel {c}"));
                }
            }
        }
    }
}
