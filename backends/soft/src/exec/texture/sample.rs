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

use super::decode::Raw;
use super::{BoundSampler, BoundTexture};
use crate::exec::LANES;
use crate::exec::ir::TexQuery;
use crate::exec::ops::Lanes;

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

#[inline(always)]
fn floor(x: f32) -> f32 {
    x.floor()
}

/// Folds a coordinate into `[0, 1]` for repeat and mirror; clamp is applied to texels.
#[inline(always)]
fn fold(u: f32, mode: AddressMode) -> f32 {
    match mode {
        AddressMode::ClampToEdge => u,
        AddressMode::Repeat => u - floor(u),
        AddressMode::MirrorRepeat => {
            let t = u - 2.0 * floor(u * 0.5);
            if t > 1.0 { 2.0 - t } else { t }
        }
    }
}

/// A texel index brought inside `0..n` by the address mode.
#[inline(always)]
fn wrap(i: i32, n: i32, mode: AddressMode) -> i32 {
    match mode {
        AddressMode::Repeat => {
            if i >= 0 && i < n {
                i
            } else {
                i.rem_euclid(n.max(1))
            }
        }
        AddressMode::ClampToEdge | AddressMode::MirrorRepeat => i.clamp(0, n - 1),
    }
}

#[inline(always)]
fn compare(f: CompareFunction, reference: f32, stored: f32) -> f32 {
    if f.passes(reference, stored) { 1.0 } else { 0.0 }
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

/// Samples `tex` with `samp` for every lane; writes `out[..channels]`.
pub(crate) fn sample(tex: &BoundTexture<'_>, samp: &BoundSampler, input: &SampleIn<'_>, out: &mut [Lanes; 4], channels: usize) {
    let cube = tex.dimension == TextureDimension::Cube;
    let mut s = [0.0f32; LANES];
    let mut t = [0.0f32; LANES];
    let mut layer = [0u32; LANES];
    let [cx, cy, cz] = input.coord;
    if cube {
        for l in 0..LANES {
            let (face, fs, ft, _) = cube_face(cx[l], cy[l], cz[l]);
            layer[l] = face;
            s[l] = fs;
            t[l] = ft;
        }
    } else {
        s = *cx;
        t = *cy;
        if let Some(a) = input.layer {
            let top = tex.layers as i32 - 1;
            for l in 0..LANES {
                layer[l] = (a[l].to_bits() as i32).clamp(0, top) as u32;
            }
        }
    }
    let uniform_layer = layer.iter().all(|&x| x == layer[0]);

    // Level of detail.
    let base = tex.levels[0];
    let (w0, h0) = (base.width as f32, base.height as f32);
    let mut lambda = [0.0f32; LANES];
    match input.lod {
        Lod::Zero => {}
        Lod::Exact(v) => lambda = *v,
        Lod::Auto | Lod::Bias(_) => {
            for q in 0..LANES / 4 {
                let i = 4 * q;
                let r2 = if cube {
                    let p = [cx[i], cy[i], cz[i]];
                    let dx = [cx[i + 1] - cx[i], cy[i + 1] - cy[i], cz[i + 1] - cz[i]];
                    let dy = [cx[i + 2] - cx[i], cy[i + 2] - cy[i], cz[i + 2] - cz[i]];
                    let (sx, tx) = cube_face_derivative(p, dx);
                    let (sy, ty) = cube_face_derivative(p, dy);
                    rho2(sx, tx, sy, ty, w0, w0)
                } else {
                    rho2(s[i + 1] - s[i], t[i + 1] - t[i], s[i + 2] - s[i], t[i + 2] - t[i], w0, h0)
                };
                let lod = 0.5 * crate::exec::fmath::log2(r2);
                lambda[i..i + 4].copy_from_slice(&[lod; 4]);
            }
            if let Lod::Bias(b) = input.lod {
                for l in 0..LANES {
                    lambda[l] += b[l];
                }
            }
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
                lambda[l] = 0.5 * crate::exec::fmath::log2(r2);
            }
        }
    }

    // Filters and levels per lane.
    let q = tex.levels.len() as u32 - 1;
    let qf = q as f32;
    let mut linear = [false; LANES];
    let mut l0 = [0u32; LANES];
    let mut frac = [0.0f32; LANES];
    for l in 0..LANES {
        // NaN fails every comparison and becomes the minimum.
        let lam = if lambda[l] > samp.lod_min { lambda[l] } else { samp.lod_min };
        let lam = if lam < samp.lod_max { lam } else { samp.lod_max };
        linear[l] = if lam <= 0.0 { samp.mag_linear } else { samp.min_linear };
        let d = if lam < qf { lam } else { qf };
        if samp.mip_linear {
            let fl = floor(d);
            l0[l] = fl as u32;
            frac[l] = d - fl;
        } else {
            l0[l] = ((d + 0.5).ceil() - 1.0).max(0.0) as u32;
        }
    }
    if input.gather.is_some() {
        linear = [true; LANES];
        l0 = [0; LANES];
        frac = [0.0; LANES];
    }
    let any_linear = linear.iter().any(|&x| x);

    for o in out.iter_mut().take(channels) {
        *o = [0.0; LANES];
    }
    let lo = l0.iter().copied().min().unwrap_or(0);
    let hi = (0..LANES).map(|l| if frac[l] > 0.0 { (l0[l] + 1).min(q) } else { l0[l] }).max().unwrap_or(0);
    for level in lo..=hi {
        let mut weight = [0.0f32; LANES];
        let mut any = false;
        for l in 0..LANES {
            let upper = (l0[l] + 1).min(q);
            let mut w = 0.0;
            if l0[l] == level {
                w += if upper == l0[l] { 1.0 } else { 1.0 - frac[l] };
            }
            if upper == level && upper != l0[l] {
                w += frac[l];
            }
            weight[l] = w;
            any |= w > 0.0;
        }
        if any {
            let pass = Pass { tex, samp, level, s: &s, t: &t, layer: &layer, uniform_layer, linear: &linear, any_linear, cube };
            pass.run(input, &weight, out, channels);
        }
    }
}

/// One mip level's contribution to a sample.
struct Pass<'a, 'b> {
    tex: &'a BoundTexture<'b>,
    samp: &'a BoundSampler,
    level: u32,
    s: &'a Lanes,
    t: &'a Lanes,
    layer: &'a [u32; LANES],
    uniform_layer: bool,
    linear: &'a [bool; LANES],
    any_linear: bool,
    cube: bool,
}

impl Pass<'_, '_> {
    fn run(&self, input: &SampleIn<'_>, weight: &Lanes, out: &mut [Lanes; 4], channels: usize) {
        let lv = self.tex.levels[self.level as usize];
        let (w, h) = (lv.width as i32, lv.height as i32);
        let (wf, hf) = (lv.width as f32, lv.height as f32);
        let (mu, mv) = if self.cube {
            (AddressMode::ClampToEdge, AddressMode::ClampToEdge)
        } else {
            (self.samp.address[0], self.samp.address[1])
        };
        let base0 = self.tex.levels[0];
        let mut ix = [[0i32; LANES]; 2];
        let mut iy = [[0i32; LANES]; 2];
        let mut fx = [0.0f32; LANES];
        let mut fy = [0.0f32; LANES];
        let (ox, oy) = (input.offset[0] as f32, input.offset[1] as f32);
        for l in 0..LANES {
            let (mut u, mut v) = (fold(self.s[l], mu), fold(self.t[l], mv));
            if input.clamp_to_edge {
                let (eu, ev) = (0.5 / base0.width as f32, 0.5 / base0.height as f32);
                u = u.clamp(eu, 1.0 - eu);
                v = v.clamp(ev, 1.0 - ev);
            }
            let (x, y) = if self.linear[l] { (u * wf - 0.5 + ox, v * hf - 0.5 + oy) } else { (u * wf + ox, v * hf + oy) };
            let (x0, y0) = (floor(x), floor(y));
            if self.linear[l] {
                fx[l] = x - x0;
                fy[l] = y - y0;
            }
            // Saturating casts keep huge or NaN coordinates finite; wrap brings them in.
            let (xi, yi) = (x0 as i32, y0 as i32);
            ix[0][l] = wrap(xi, w, mu);
            ix[1][l] = wrap(xi.saturating_add(1), w, mu);
            iy[0][l] = wrap(yi, h, mv);
            iy[1][l] = wrap(yi.saturating_add(1), h, mv);
        }
        let corners: &[(usize, usize)] = if self.any_linear { &[(0, 0), (1, 0), (0, 1), (1, 1)] } else { &[(0, 0)] };
        let bpp = self.tex.bytes_per_texel as u32;
        let mut at = [0u32; LANES];
        let mut raw: Raw = [[0; LANES]; 4];
        let mut texel = [[0.0f32; LANES]; 4];
        let fetch_channels = if input.depth_ref.is_some() { 1 } else if let Some(c) = input.gather { usize::from(c) + 1 } else { channels };
        for &(cx, cy) in corners {
            for l in 0..LANES {
                at[l] = ((iy[cy][l] as u32).wrapping_mul(lv.width).wrapping_add(ix[cx][l] as u32)).wrapping_mul(bpp);
            }
            if self.uniform_layer {
                let plane = self.tex.plane(self.level, self.layer[0]);
                self.tex.decode.read(|_| plane, &at, &mut raw);
            } else {
                self.tex.decode.read(|l| self.tex.plane(self.level, self.layer[l]), &at, &mut raw);
            }
            self.tex.decode.decode(&raw, &mut texel, fetch_channels);
            if let (Some(r), Some(f)) = (input.depth_ref, self.samp.compare) {
                for l in 0..LANES {
                    texel[0][l] = compare(f, r[l], texel[0][l]);
                }
            }
            if let Some(c) = input.gather {
                // x = (i0, j1), y = (i1, j1), z = (i1, j0), w = (i0, j0)
                let dst = match (cx, cy) {
                    (0, 1) => 0,
                    (1, 1) => 1,
                    (1, 0) => 2,
                    _ => 3,
                };
                let src = if input.depth_ref.is_some() { 0 } else { usize::from(c).min(3) };
                out[dst] = texel[src];
                continue;
            }
            for l in 0..LANES {
                let wx = if cx == 1 { fx[l] } else { 1.0 - fx[l] };
                let wy = if cy == 1 { fy[l] } else { 1.0 - fy[l] };
                let k = if self.any_linear { wx * wy * weight[l] } else { weight[l] };
                for c in 0..channels {
                    out[c][l] += k * texel[c][l];
                }
            }
        }
    }
}

/// `textureLoad`: texel `(x, y)` of `level` and `layer` per lane (integer bit patterns);
/// out-of-range reads give zeros.
pub(crate) fn load(
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
    tex.decode.decode(&raw, out, channels);
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
