//! Sampling with WebGPU/Vulkan semantics, 64 lanes at a time.
//!
//! * Texel centres sit at half-integers: linear filtering reads texels `floor(u*w - 0.5)`
//!   and the next one, weighted by the fraction; nearest reads `floor(u*w)`.
//! * The level of detail comes from each 2x2 quad's coordinate differences (lanes `4q`,
//!   `4q+1`, `4q+2` are the quad's origin, right and lower neighbours), scaled to level 0:
//!   `λ = log2(max(|∂uv/∂x|, |∂uv/∂y|))`, plus bias, clamped to the sampler's range. `λ <= 0`
//!   magnifies (mag filter, level 0), otherwise the min filter applies on level
//!   `ceil(λ + 0.5) - 1` (nearest mip) or between `floor(λ)` and the next (linear mip).
//! * Address modes apply per axis; cube maps pick the face of the major axis (ties go to z,
//!   then y) and clamp at each face's edges (no filtering across faces).
//! * Depth comparison compares each texel with the reference first and filters the results
//!   (percentage-closer filtering), as Vulkan does.
//!
//! Lanes that need different mip levels are handled by one pass per level present in the
//! batch, each weighting its lanes (usually two passes: a tile rarely spans more).

use f3d_hal::{AddressMode, CompareFunction, TextureDimension};

use super::decode::{Decode, Raw, srgb_to_linear};
use super::{BoundSampler, BoundTexture};
use crate::ir::TexQuery;
use crate::ops::Lanes;
use crate::{LANES, fmath};

/// How a sample picks its level of detail, with its operands as lanes.
pub(crate) enum Lod<'x> {
    Auto,
    Zero,
    Exact(&'x Lanes),
    Bias(&'x Lanes),
    Grad([&'x Lanes; 3], [&'x Lanes; 3]),
}

/// The operands of one sample instruction, as lanes.
pub(crate) struct SampleIn<'x> {
    pub(crate) coord: [&'x Lanes; 3],
    pub(crate) layer: Option<&'x Lanes>,
    pub(crate) lod: Lod<'x>,
    pub(crate) depth_ref: Option<&'x Lanes>,
    pub(crate) gather: Option<u8>,
    pub(crate) clamp_to_edge: bool,
    pub(crate) offset: [i32; 2],
}

/// A depth comparison for every lane: 1 where `reference` passes `f` against the stored
/// value in `texel`, else 0 ([`CompareFunction::passes`]'s arithmetic). The function is matched
/// once, so each case is a branch-free loop (matched per lane, it was a jump per lane).
#[inline(always)]
fn compare_lanes(f: CompareFunction, reference: &Lanes, texel: &mut Lanes) {
    #[inline(always)]
    fn each(reference: &Lanes, texel: &mut Lanes, pass: impl Fn(f32, f32) -> bool) {
        for (t, &r) in texel.iter_mut().zip(reference) {
            *t = if pass(r, *t) { 1.0 } else { 0.0 };
        }
    }
    match f {
        CompareFunction::Never => *texel = [0.0; LANES],
        CompareFunction::Less => each(reference, texel, |r, s| r < s),
        CompareFunction::Equal => each(reference, texel, |r, s| r == s),
        CompareFunction::LessEqual => each(reference, texel, |r, s| r <= s),
        CompareFunction::Greater => each(reference, texel, |r, s| r > s),
        CompareFunction::NotEqual => each(reference, texel, |r, s| r != s),
        CompareFunction::GreaterEqual => each(reference, texel, |r, s| r >= s),
        CompareFunction::Always => *texel = [1.0; LANES],
    }
}

/// Cube face selection: (face, s, t) for a direction, Vulkan's table.
#[inline(always)]
fn cube_face(x: f32, y: f32, z: f32) -> (u32, f32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z >= 0.0 { (4, x, -y, az) } else { (5, -x, -y, az) }
    } else if ay >= ax {
        if y >= 0.0 { (2, x, z, ay) } else { (3, x, -z, ay) }
    } else if x >= 0.0 {
        (0, -z, -y, ax)
    } else {
        (1, z, -y, ax)
    };
    let inv = if ma > 0.0 { 0.5 / ma } else { 0.0 };
    (face, sc * inv + 0.5, tc * inv + 0.5, ma)
}

/// The derivative of a cube face's (s, t) along a direction change `d`, for the face the
/// direction `p` falls on.
#[inline(always)]
fn cube_face_derivative(p: [f32; 3], d: [f32; 3]) -> (f32, f32) {
    let (face, _, _, _) = cube_face(p[0], p[1], p[2]);
    // (s axis, s sign, t axis, t sign, major axis)
    let (sa, ss, ta, ts, ma) = match face {
        0 => (2, -1.0, 1, -1.0, 0),
        1 => (2, 1.0, 1, -1.0, 0),
        2 => (0, 1.0, 2, 1.0, 1),
        3 => (0, 1.0, 2, -1.0, 1),
        4 => (0, 1.0, 1, -1.0, 2),
        _ => (0, -1.0, 1, -1.0, 2),
    };
    let m = p[ma].abs();
    if m <= 0.0 {
        return (0.0, 0.0);
    }
    let dm = p[ma].signum() * d[ma];
    let (sc, tc) = (ss * p[sa], ts * p[ta]);
    let (dsc, dtc) = (ss * d[sa], ts * d[ta]);
    (0.5 * (dsc * m - sc * dm) / (m * m), 0.5 * (dtc * m - tc * dm) / (m * m))
}

/// The squared length of the larger screen-space footprint axis, in level-0 texels.
#[inline(always)]
fn rho2(dsdx: f32, dtdx: f32, dsdy: f32, dtdy: f32, w: f32, h: f32) -> f32 {
    let x = (dsdx * w) * (dsdx * w) + (dtdx * h) * (dtdx * h);
    let y = (dsdy * w) * (dsdy * w) + (dtdy * h) * (dtdy * h);
    if x > y { x } else { y }
}

/// A float's integer value (it is already whole) as `i32`, clamped to ±2^21 (far outside
/// any texture, so wrapping and clamping still land right) without `as`, which does not
/// vectorise.
#[inline(always)]
fn to_int(x: f32) -> i32 {
    let x = if x > 2_097_152.0 { 2_097_152.0 } else { x };
    let x = if x < -2_097_152.0 { -2_097_152.0 } else { x };
    // NaN compares false twice and comes out as garbage bits; wrap/clamp keep it in range.
    fmath::round_small(x).1
}

/// Which lanes filter linearly.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Filter {
    Linear,
    Nearest,
    /// Per lane, from `SampleScratch::linear` (magnification and minification differ).
    Mixed,
}

/// Integer texel coordinates of the two filter taps along one axis, and the weight of the
/// second, per lane.
struct Axis {
    i0: [i32; LANES],
    i1: [i32; LANES],
    frac: Lanes,
}

/// The big per-sample arrays, kept by the executor so a sample neither allocates nor zeroes.
pub(crate) struct SampleScratch {
    s: Lanes,
    t: Lanes,
    layer: [u32; LANES],
    lambda: Lanes,
    l0: [i32; LANES],
    frac: Lanes,
    linear: [bool; LANES],
    weight: Lanes,
    folded: Lanes,
    x: Axis,
    y: Axis,
    at: [[u32; LANES]; 4],
    w: [Lanes; 4],
    raw: Raw,
    texel: [Lanes; 4],
}

impl SampleScratch {
    pub(crate) fn new() -> Box<Self> {
        let axis = || Axis { i0: [0; LANES], i1: [0; LANES], frac: [0.0; LANES] };
        Box::new(Self {
            s: [0.0; LANES],
            t: [0.0; LANES],
            layer: [0; LANES],
            lambda: [0.0; LANES],
            l0: [0; LANES],
            frac: [0.0; LANES],
            linear: [false; LANES],
            weight: [0.0; LANES],
            folded: [0.0; LANES],
            x: axis(),
            y: axis(),
            at: [[0; LANES]; 4],
            w: [[0.0; LANES]; 4],
            raw: [[0; LANES]; 4],
            texel: [[0.0; LANES]; 4],
        })
    }
}

/// Samples `tex` with `samp` for every lane; writes `out[..channels]`.
#[inline(always)]
pub(crate) fn sample<const FMA: bool>(
    tex: &BoundTexture<'_>,
    samp: &BoundSampler,
    input: &SampleIn<'_>,
    scr: &mut SampleScratch,
    out: &mut [Lanes; 4],
    channels: usize,
) {
    let SampleScratch {
        s: s_buf,
        t: t_buf,
        layer,
        lambda,
        l0,
        frac,
        linear,
        weight,
        folded,
        x,
        y,
        at,
        w,
        raw,
        texel,
    } = scr;
    let cube = tex.dimension == TextureDimension::Cube;
    let [cx, cy, cz] = input.coord;
    let mut uniform_layer = true;
    let (s, t): (&Lanes, &Lanes) = if cube {
        for l in 0..LANES {
            let (face, fs, ft, _) = cube_face(cx[l], cy[l], cz[l]);
            layer[l] = face;
            s_buf[l] = fs;
            t_buf[l] = ft;
        }
        uniform_layer = layer.iter().all(|&f| f == layer[0]);
        (s_buf, t_buf)
    } else {
        match input.layer {
            Some(a) => {
                let top = tex.layers as i32 - 1;
                for l in 0..LANES {
                    layer[l] = (a[l].to_bits() as i32).clamp(0, top) as u32;
                }
                uniform_layer = layer.iter().all(|&f| f == layer[0]);
            }
            None => layer[0] = 0,
        }
        (cx, cy)
    };

    // Level of detail, per lane.
    let base = tex.levels[0];
    let (w0, h0) = (base.width as f32, base.height as f32);
    let lam: &Lanes = match input.lod {
        Lod::Zero => {
            *lambda = [0.0; LANES];
            lambda
        }
        Lod::Exact(v) => v,
        Lod::Auto | Lod::Bias(_) => {
            let mut quad = [0.0f32; LANES / 4];
            for (q, r) in quad.iter_mut().enumerate() {
                let i = 4 * q;
                *r = if cube {
                    let p = [cx[i], cy[i], cz[i]];
                    let dx = [cx[i + 1] - cx[i], cy[i + 1] - cy[i], cz[i + 1] - cz[i]];
                    let dy = [cx[i + 2] - cx[i], cy[i + 2] - cy[i], cz[i + 2] - cz[i]];
                    let (sx, tx) = cube_face_derivative(p, dx);
                    let (sy, ty) = cube_face_derivative(p, dy);
                    rho2(sx, tx, sy, ty, w0, w0)
                } else {
                    rho2(s[i + 1] - s[i], t[i + 1] - t[i], s[i + 2] - s[i], t[i + 2] - t[i], w0, h0)
                };
            }
            for r in quad.iter_mut() {
                *r = 0.5 * fmath::log2(*r);
            }
            for l in 0..LANES {
                lambda[l] = quad[l / 4];
            }
            if let Lod::Bias(b) = input.lod {
                for l in 0..LANES {
                    lambda[l] += b[l];
                }
            }
            lambda
        }
        Lod::Grad(gx, gy) => {
            for l in 0..LANES {
                let r2 = if cube {
                    let p = [cx[l], cy[l], cz[l]];
                    let (sx, tx) = cube_face_derivative(p, [gx[0][l], gx[1][l], gx[2][l]]);
                    let (sy, ty) = cube_face_derivative(p, [gy[0][l], gy[1][l], gy[2][l]]);
                    rho2(sx, tx, sy, ty, w0, w0)
                } else {
                    rho2(gx[0][l], gx[1][l], gy[0][l], gy[1][l], w0, h0)
                };
                lambda[l] = 0.5 * fmath::log2(r2);
            }
            lambda
        }
    };

    // Levels (and, when magnification and minification differ, filters) per lane.
    let q = tex.levels.len() as i32 - 1;
    let qf = q as f32;
    let (lod_min, lod_max) = (samp.lod_min, samp.lod_max);
    let clamp_lod = |x: f32| {
        // NaN fails both comparisons and becomes the minimum.
        let x = if x > lod_min { x } else { lod_min };
        if x < lod_max { x } else { lod_max }
    };
    if input.gather.is_some() {
        *l0 = [0; LANES];
        *frac = [0.0; LANES];
    } else if samp.mip_linear {
        for l in 0..LANES {
            let d = clamp_lod(lam[l]);
            let d = if d < qf { d } else { qf };
            let fl = d.floor();
            l0[l] = to_int(fl);
            // At the last level there is nothing above to blend with.
            frac[l] = if fl < qf { d - fl } else { 0.0 };
        }
    } else {
        for l in 0..LANES {
            let d = clamp_lod(lam[l]);
            let d = if d < qf { d } else { qf };
            l0[l] = to_int((d + 0.5).ceil() - 1.0).max(0);
            frac[l] = 0.0;
        }
    }
    let filter = if input.gather.is_some() || (samp.mag_linear && samp.min_linear) {
        Filter::Linear
    } else if !samp.mag_linear && !samp.min_linear {
        Filter::Nearest
    } else {
        for l in 0..LANES {
            linear[l] = if clamp_lod(lam[l]) <= 0.0 { samp.mag_linear } else { samp.min_linear };
        }
        Filter::Mixed
    };

    for o in out.iter_mut() {
        *o = [0.0; LANES];
    }
    let mut lo = i32::MAX;
    let mut hi = i32::MIN;
    for l in 0..LANES {
        lo = lo.min(l0[l]);
        hi = hi.max(l0[l] + i32::from(frac[l] > 0.0));
    }
    for level in lo..=hi {
        // `frac` is 0 where the upper level does not exist, so the two terms never overlap.
        let mut any = 0u32;
        for l in 0..LANES {
            let (is_lower, is_upper) = (l0[l] == level, l0[l] + 1 == level);
            let lower = if is_lower { 1.0 - frac[l] } else { 0.0 };
            let upper = if is_upper { frac[l] } else { 0.0 };
            weight[l] = lower + upper;
            any |= u32::from(is_lower) | u32::from(is_upper & (frac[l] > 0.0));
        }
        if any == 0 {
            continue;
        }
        let level = level.clamp(0, q) as u32;
        let lv = tex.levels[level as usize];
        let (mu, mv) = if cube {
            (AddressMode::ClampToEdge, AddressMode::ClampToEdge)
        } else {
            (samp.address[0], samp.address[1])
        };
        let (eu, ev) = if input.clamp_to_edge { (Some(0.5 / w0), Some(0.5 / h0)) } else { (None, None) };
        axis(x, folded, s, lv.width, mu, filter, linear, input.offset[0], eu);
        axis(y, folded, t, lv.height, mv, filter, linear, input.offset[1], ev);

        // Byte offsets and weights of the (up to) four taps: (i0,j0) (i1,j0) (i0,j1) (i1,j1).
        let taps = if filter == Filter::Nearest { 1 } else { 4 };
        let bpp = tex.bytes_per_texel as i32;
        let width = lv.width as i32;
        let plane = tex.plane(level, layer[0]);
        // Offsets are in range by construction (the taps were wrapped or clamped into the
        // level); the clamp to the plane makes that visible to the compiler, so the reads
        // below need no checks, and a broken invariant reads an edge texel, not memory.
        let last = (plane.len().saturating_sub(tex.bytes_per_texel)).min(i32::MAX as usize) as i32;
        for l in 0..LANES {
            let (fx, fy) = (x.frac[l], y.frac[l]);
            let (r0, r1) = (y.i0[l] * width, y.i1[l] * width);
            at[0][l] = ((r0 + x.i0[l]) * bpp).max(0).min(last) as u32;
            at[1][l] = ((r0 + x.i1[l]) * bpp).max(0).min(last) as u32;
            at[2][l] = ((r1 + x.i0[l]) * bpp).max(0).min(last) as u32;
            at[3][l] = ((r1 + x.i1[l]) * bpp).max(0).min(last) as u32;
            let k = weight[l];
            w[0][l] = (1.0 - fx) * (1.0 - fy) * k;
            w[1][l] = fx * (1.0 - fy) * k;
            w[2][l] = (1.0 - fx) * fy * k;
            w[3][l] = fx * fy * k;
        }

        if let (Decode::Rgba8 { srgb, bgra }, true, None, None) =
            (tex.decode, uniform_layer, input.gather, input.depth_ref)
        {
            if taps == 1 {
                // One tap: its weight is the level weight.
                w[0] = *weight;
            }
            match (taps == 1, srgb, bgra) {
                (false, false, false) => rgba8_filter::<4, false, false, FMA>(plane, at, w, raw, out),
                (false, false, true) => rgba8_filter::<4, false, true, FMA>(plane, at, w, raw, out),
                (false, true, false) => rgba8_filter::<4, true, false, FMA>(plane, at, w, raw, out),
                (false, true, true) => rgba8_filter::<4, true, true, FMA>(plane, at, w, raw, out),
                (true, false, false) => rgba8_filter::<1, false, false, FMA>(plane, at, w, raw, out),
                (true, false, true) => rgba8_filter::<1, false, true, FMA>(plane, at, w, raw, out),
                (true, true, false) => rgba8_filter::<1, true, false, FMA>(plane, at, w, raw, out),
                (true, true, true) => rgba8_filter::<1, true, true, FMA>(plane, at, w, raw, out),
            }
            continue;
        }

        let fetch_channels = if input.depth_ref.is_some() {
            1
        } else if let Some(c) = input.gather {
            usize::from(c) + 1
        } else {
            channels
        };
        for k in 0..taps {
            if uniform_layer {
                tex.decode.read_plane(plane, &at[k], raw);
            } else {
                tex.decode.read(|l| tex.plane(level, layer[l]), &at[k], raw);
            }
            tex.decode.decode::<FMA>(raw, texel, fetch_channels);
            if let (Some(r), Some(f)) = (input.depth_ref, samp.compare) {
                compare_lanes(f, r, &mut texel[0]);
            }
            if let Some(c) = input.gather {
                // gather returns x = (i0,j1), y = (i1,j1), z = (i1,j0), w = (i0,j0).
                let dst = [3, 2, 0, 1][k];
                let src = if input.depth_ref.is_some() { 0 } else { usize::from(c).min(3) };
                out[dst] = texel[src];
                continue;
            }
            let wk = if taps == 1 { &*weight } else { &w[k] };
            for (o, tx) in out.iter_mut().zip(texel.iter()).take(channels) {
                for l in 0..LANES {
                    o[l] += wk[l] * tx[l];
                }
            }
        }
    }
}

/// Texel coordinates along one axis of size `n` (level size), with the address mode applied.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn axis(
    a: &mut Axis,
    folded: &mut Lanes,
    coord: &Lanes,
    n: u32,
    mode: AddressMode,
    filter: Filter,
    linear: &[bool; LANES],
    offset: i32,
    clamp_edge: Option<f32>,
) {
    let nf = n as f32;
    let ni = n as i32;
    match mode {
        AddressMode::ClampToEdge => *folded = *coord,
        AddressMode::Repeat => {
            for l in 0..LANES {
                folded[l] = coord[l] - coord[l].floor();
            }
        }
        AddressMode::MirrorRepeat => {
            for l in 0..LANES {
                let u = coord[l];
                let t = u - 2.0 * (u * 0.5).floor();
                folded[l] = if t > 1.0 { 2.0 - t } else { t };
            }
        }
    }
    if let Some(e) = clamp_edge {
        for f in folded.iter_mut() {
            *f = f.clamp(e, 1.0 - e);
        }
    }
    let off = offset as f32;
    match filter {
        Filter::Linear => {
            for l in 0..LANES {
                let x = folded[l] * nf - 0.5 + off;
                let x0 = x.floor();
                a.frac[l] = x - x0;
                a.i0[l] = to_int(x0);
                a.i1[l] = a.i0[l] + 1;
            }
        }
        Filter::Nearest => {
            for l in 0..LANES {
                a.i0[l] = to_int((folded[l] * nf + off).floor());
                a.i1[l] = a.i0[l];
                a.frac[l] = 0.0;
            }
        }
        Filter::Mixed => {
            for l in 0..LANES {
                let half = if linear[l] { 0.5 } else { 0.0 };
                let x = folded[l] * nf - half + off;
                let x0 = x.floor();
                a.frac[l] = if linear[l] { x - x0 } else { 0.0 };
                a.i0[l] = to_int(x0);
                a.i1[l] = a.i0[l] + i32::from(linear[l]);
            }
        }
    }
    let wrap = |v: &mut [i32; LANES]| match mode {
        AddressMode::Repeat if offset == 0 => {
            // Folding left every tap within one texture width of the range: add or subtract
            // the width once, without branches.
            for x in v.iter_mut() {
                let y = *x + (ni & (*x >> 31));
                *x = y - (ni & !((y - ni) >> 31));
            }
        }
        AddressMode::Repeat => {
            for x in v.iter_mut() {
                *x = x.rem_euclid(ni.max(1));
            }
        }
        AddressMode::ClampToEdge | AddressMode::MirrorRepeat => {
            for x in v.iter_mut() {
                *x = (*x).max(0).min(ni - 1);
            }
        }
    };
    wrap(&mut a.i0);
    wrap(&mut a.i1);
}

/// The hot path: filtered RGBA8 texels from one plane, decoded (sRGB through
/// [`srgb_to_linear`]) and weighted, all four channels in one loop the compiler vectorises
/// across lanes. `TAPS` is 4 (bilinear) or 1 (nearest).
#[inline(always)]
fn rgba8_filter<const TAPS: usize, const SRGB: bool, const BGRA: bool, const FMA: bool>(
    plane: &[u8],
    at: &[[u32; LANES]; 4],
    w: &[Lanes; 4],
    raw: &mut Raw,
    out: &mut [Lanes; 4],
) {
    if plane.len() < 4 {
        return;
    }
    let last = (plane.len() - 4).min(u32::MAX as usize) as u32;
    for k in 0..TAPS {
        let mut index = [0u32; LANES];
        for l in 0..LANES {
            index[l] = at[k][l].min(last);
        }
        for l in 0..LANES {
            let a = index[l] as usize;
            // SAFETY: `a <= last <= plane.len() - 4` (clamped just above), so the four bytes
            // `a..a + 4` lie inside `plane`.
            let b = unsafe { plane.get_unchecked(a..a + 4) };
            raw[k][l] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    let byte = |r: u32, c: usize| ((r >> (8 * c)) & 0xff) as f32;
    for l in 0..LANES {
        let mut acc = [0.0f32; 4];
        for k in 0..TAPS {
            let (r, wk) = (raw[k][l], w[k][l]);
            for (c, a) in acc.iter_mut().enumerate() {
                // Memory order R G B A, or B G R A.
                let src = if BGRA && c < 3 { 2 - c } else { c };
                let v = byte(r, src) * (1.0 / 255.0);
                *a += wk * if SRGB && c < 3 { srgb_to_linear::<FMA>(v) } else { v };
            }
        }
        for c in 0..4 {
            out[c][l] += acc[c];
        }
    }
}

/// `textureLoad`: texel `(x, y)` of `level` and `layer` per lane (integer bit patterns);
/// out-of-range reads give zeros.
#[inline(always)]
pub(crate) fn load<const FMA: bool>(
    tex: &BoundTexture<'_>,
    coord: [&Lanes; 2],
    layer: Option<&Lanes>,
    level: Option<&Lanes>,
    out: &mut [Lanes; 4],
    channels: usize,
) {
    let mut at = [0u32; LANES];
    let mut plane_of = [(0u32, 0u32); LANES];
    let mut valid = [false; LANES];
    for l in 0..LANES {
        let x = coord[0][l].to_bits() as i32;
        let y = coord[1][l].to_bits() as i32;
        let lv = level.map_or(0, |v| v[l].to_bits() as i32);
        let ly = layer.map_or(0, |v| v[l].to_bits() as i32);
        let ok_level = lv >= 0 && (lv as usize) < tex.levels.len();
        let size = tex.levels[if ok_level { lv as usize } else { 0 }];
        valid[l] = ok_level
            && ly >= 0
            && (ly as u32) < tex.layers
            && x >= 0
            && y >= 0
            && (x as u32) < size.width
            && (y as u32) < size.height;
        if valid[l] {
            plane_of[l] = (lv as u32, ly as u32);
            at[l] = ((y as u32) * size.width + x as u32) * tex.bytes_per_texel as u32;
        }
    }
    let mut raw: Raw = [[0; LANES]; 4];
    tex.decode.read(|l| tex.plane(plane_of[l].0, plane_of[l].1), &at, &mut raw);
    tex.decode.decode::<FMA>(&raw, out, channels);
    for o in out.iter_mut().take(channels) {
        for l in 0..LANES {
            if !valid[l] {
                o[l] = 0.0;
            }
        }
    }
}

/// `textureDimensions` (per level, clamped to the texture's levels), `textureNumLevels`,
/// `textureNumLayers`, as `u32`.
pub(crate) fn query(tex: &BoundTexture<'_>, q: TexQuery, level: u32) -> u32 {
    let lv = tex.levels[(level as usize).min(tex.levels.len() - 1)];
    match q {
        TexQuery::Width => lv.width,
        TexQuery::Height => lv.height,
        TexQuery::Levels => tex.levels.len() as u32,
        TexQuery::Layers => tex.layers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_lanes_is_passes_for_every_function() {
        let values = [0.0, 0.25, 0.5, 1.0, f32::NAN];
        let reference: Lanes = std::array::from_fn(|l| values[l % 5]);
        let stored: Lanes = std::array::from_fn(|l| values[(l / 5) % 5]);
        for f in CompareFunction::ALL {
            let mut texel = stored;
            compare_lanes(f, &reference, &mut texel);
            for l in 0..LANES {
                let want = if f.passes(reference[l], stored[l]) { 1.0 } else { 0.0 };
                assert_eq!(texel[l], want, "{f:?}: {} against {}", reference[l], stored[l]);
            }
        }
    }
}
