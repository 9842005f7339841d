//! Output merging: depth and stencil tests, blending and writes, on one 8×8 block at a
//! time. Targets are views over a band of rows of an attachment's plane, in the format's own
//! bytes (depth planes hold one f32 per texel, stencil planes one byte).

use f3d_hal::{
    BlendFactor, BlendOperation, BlendState, ColorWrites, DepthStencilState, StencilFaceState,
    StencilOperation, TextureFormat, f16_to_f32, f32_to_f16,
};

use super::block::{self, LANE_OF, block_span, to_rows};
use super::srgb::{SRGB_TO_LINEAR, SrgbEncoder};
use super::triangle::{LANE_X, LANE_Y};

/// Rows of a colour attachment that one band owns.
pub(crate) struct ColorRows<'a> {
    /// The band's bytes: `rows` rows of `pitch` bytes.
    pub(crate) bytes: &'a mut [u8],
    /// Bytes per row.
    pub(crate) pitch: usize,
    /// The attachment's format.
    pub(crate) format: TextureFormat,
    /// The first row of the band, in attachment rows.
    pub(crate) y0: u32,
}

/// Rows of a depth(-stencil) attachment that one band owns.
pub(crate) struct DepthRows<'a> {
    /// One little-endian f32 per texel.
    pub(crate) depth: &'a mut [u8],
    /// One byte per texel, when the format has stencil.
    pub(crate) stencil: Option<&'a mut [u8]>,
    /// Texels per row.
    pub(crate) pitch: usize,
    /// The first row of the band.
    pub(crate) y0: u32,
}

#[inline]
fn lane_index(bx: u32, by: u32, y0: u32, pitch: usize, lane: usize) -> usize {
    (by + LANE_Y[lane] - y0) as usize * pitch + (bx + LANE_X[lane]) as usize
}

fn stencil_op(op: StencilOperation, stored: u8, reference: u8, write_mask: u8) -> u8 {
    let new = op.apply(stored, reference);
    (stored & !write_mask) | (new & write_mask)
}

/// Depth and stencil state for one draw, resolved.
pub(crate) struct DepthStencilOps {
    pub(crate) state: DepthStencilState,
    pub(crate) reference: u8,
}

impl DepthStencilOps {
    /// Runs the stencil and depth tests on the `mask` lanes of block (`bx`, `by`) with
    /// fragment depths `z`, applies the stencil ops and (on passing lanes) the depth write;
    /// returns the lanes that passed both.
    pub(crate) fn test_and_write(
        &self,
        target: &mut DepthRows<'_>,
        bx: u32,
        by: u32,
        mask: u64,
        z: &[f32; 64],
        front_facing: bool,
    ) -> u64 {
        let s = &self.state;
        let face: &StencilFaceState = if front_facing { &s.stencil.front } else { &s.stencil.back };
        let stencil_on = s.stencil.is_enabled() && target.stencil.is_some();
        if !stencil_on {
            return self.depth_only(target, bx, by, mask, z);
        }
        let (read_mask, write_mask) = (s.stencil.read_mask, s.stencil.write_mask);
        let mut passed = 0u64;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let i = lane_index(bx, by, target.y0, target.pitch, lane);
            let stored_depth = f32::from_le_bytes([
                target.depth[4 * i],
                target.depth[4 * i + 1],
                target.depth[4 * i + 2],
                target.depth[4 * i + 3],
            ]);
            let depth_pass = s.depth_compare.passes(z[lane], stored_depth);
            if stencil_on && let Some(stencil) = target.stencil.as_deref_mut() {
                let stored = stencil[i];
                let stencil_pass = face.compare.passes(self.reference & read_mask, stored & read_mask);
                let op = match (stencil_pass, depth_pass) {
                    (false, _) => face.fail_op,
                    (true, false) => face.depth_fail_op,
                    (true, true) => face.pass_op,
                };
                stencil[i] = stencil_op(op, stored, self.reference, write_mask);
                if !stencil_pass {
                    continue;
                }
            }
            if depth_pass {
                if s.depth_write_enabled {
                    target.depth[4 * i..4 * i + 4].copy_from_slice(&z[lane].to_le_bytes());
                }
                passed |= 1 << lane;
            }
        }
        passed
    }
}

impl DepthStencilOps {
    /// The depth test and write without stencil, a block at a time: gather the block's 64
    /// stored depths by rows, compare all lanes in one loop per compare function, write the
    /// passing lanes back by rows.
    fn depth_only(&self, target: &mut DepthRows<'_>, bx: u32, by: u32, mask: u64, z: &[f32; 64]) -> u64 {
        use f3d_hal::CompareFunction as C;
        let mut stored = [0.0f32; 64];
        let rows = |row: u32| (by + row - target.y0) as usize * target.pitch + bx as usize;
        let width = target.pitch.saturating_sub(bx as usize).min(8);
        for row in 0..8u32 {
            let start = rows(row) * 4;
            let Some(bytes) = target.depth.get(start..start + width * 4) else { continue };
            for (x, d) in bytes.chunks_exact(4).enumerate() {
                stored[LANE_OF[row as usize * 8 + x]] = f32::from_le_bytes([d[0], d[1], d[2], d[3]]);
            }
        }
        fn lanes(z: &[f32; 64], stored: &[f32; 64], f: impl Fn(f32, f32) -> bool) -> u64 {
            let mut m = 0u64;
            for l in 0..64 {
                m |= u64::from(f(z[l], stored[l])) << l;
            }
            m
        }
        let passed = mask
            & match self.state.depth_compare {
                C::Never => 0,
                C::Always => u64::MAX,
                C::Less => lanes(z, &stored, |a, b| a < b),
                C::LessEqual => lanes(z, &stored, |a, b| a <= b),
                C::Equal => lanes(z, &stored, |a, b| a == b),
                C::Greater => lanes(z, &stored, |a, b| a > b),
                C::GreaterEqual => lanes(z, &stored, |a, b| a >= b),
                C::NotEqual => lanes(z, &stored, |a, b| a != b),
            };
        if self.state.depth_write_enabled && passed != 0 {
            for row in 0..8u32 {
                let start = rows(row) * 4;
                let Some(bytes) = target.depth.get_mut(start..start + width * 4) else { continue };
                for (x, d) in bytes.chunks_exact_mut(4).enumerate() {
                    let lane = LANE_OF[row as usize * 8 + x];
                    if passed >> lane & 1 == 1 {
                        d.copy_from_slice(&z[lane].to_le_bytes());
                    }
                }
            }
        }
        passed
    }
}

/// Decodes the texel at `bytes` to linear floats (integers as their values' bit patterns).
#[inline]
pub(crate) fn read_texel(format: TextureFormat, t: &[u8]) -> [f32; 4] {
    use TextureFormat as F;
    let unorm = |b: u8| f32::from(b) * (1.0 / 255.0);
    let srgb = |b: u8| SRGB_TO_LINEAR[b as usize];
    let f16 = |i: usize| f16_to_f32(u16::from_le_bytes([t[2 * i], t[2 * i + 1]]));
    let f32 = |i: usize| f32::from_le_bytes([t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]]);
    let bits =
        |i: usize| f32::from_bits(u32::from_le_bytes([t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]]));
    match format {
        F::R8Unorm => [unorm(t[0]), 0.0, 0.0, 1.0],
        F::Rg8Unorm => [unorm(t[0]), unorm(t[1]), 0.0, 1.0],
        F::Rgba8Unorm => [unorm(t[0]), unorm(t[1]), unorm(t[2]), unorm(t[3])],
        F::Rgba8UnormSrgb => [srgb(t[0]), srgb(t[1]), srgb(t[2]), unorm(t[3])],
        F::Bgra8Unorm => [unorm(t[2]), unorm(t[1]), unorm(t[0]), unorm(t[3])],
        F::Bgra8UnormSrgb => [srgb(t[2]), srgb(t[1]), srgb(t[0]), unorm(t[3])],
        F::Rgb10a2Unorm => {
            let v = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
            let c = |s: u32| ((v >> s) & 0x3ff) as f32 / 1023.0;
            [c(0), c(10), c(20), ((v >> 30) & 3) as f32 / 3.0]
        }
        F::R16Float => [f16(0), 0.0, 0.0, 1.0],
        F::Rg16Float => [f16(0), f16(1), 0.0, 1.0],
        F::Rgba16Float => [f16(0), f16(1), f16(2), f16(3)],
        F::R32Float => [f32(0), 0.0, 0.0, 1.0],
        F::Rg32Float => [f32(0), f32(1), 0.0, 1.0],
        F::Rgba32Float => [f32(0), f32(1), f32(2), f32(3)],
        F::R32Uint | F::R32Sint => [bits(0), 0.0, 0.0, f32::from_bits(1)],
        F::Rgba32Uint => [bits(0), bits(1), bits(2), bits(3)],
        _ => [0.0; 4],
    }
}

/// Encodes linear floats (integers as bit patterns) into the texel at `t`, writing only the
/// channels in `mask`.
#[inline]
pub(crate) fn write_texel(
    format: TextureFormat,
    t: &mut [u8],
    c: [f32; 4],
    mask: ColorWrites,
    encoder: &SrgbEncoder,
) {
    use TextureFormat as F;
    let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
    let srgb = |v: f32| encoder.encode(v);
    let ch = |i: usize| mask.bits() & (1 << i) != 0;
    let put8 = |t: &mut [u8], bytes: [u8; 4], order: [usize; 4]| {
        for (k, &src) in order.iter().enumerate() {
            if k < t.len() && ch(src) {
                t[k] = bytes[src];
            }
        }
    };
    match format {
        F::R8Unorm => put8(t, [unorm(c[0]), 0, 0, 0], [0, 1, 2, 3]),
        F::Rg8Unorm => put8(t, [unorm(c[0]), unorm(c[1]), 0, 0], [0, 1, 2, 3]),
        F::Rgba8Unorm => put8(t, [unorm(c[0]), unorm(c[1]), unorm(c[2]), unorm(c[3])], [0, 1, 2, 3]),
        F::Rgba8UnormSrgb => put8(t, [srgb(c[0]), srgb(c[1]), srgb(c[2]), unorm(c[3])], [0, 1, 2, 3]),
        F::Bgra8Unorm => put8(t, [unorm(c[0]), unorm(c[1]), unorm(c[2]), unorm(c[3])], [2, 1, 0, 3]),
        F::Bgra8UnormSrgb => put8(t, [srgb(c[0]), srgb(c[1]), srgb(c[2]), unorm(c[3])], [2, 1, 0, 3]),
        F::Rgb10a2Unorm => {
            let old = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
            let q = |v: f32, max: f32| (v.clamp(0.0, 1.0) * max + 0.5) as u32;
            let fields = [
                (q(c[0], 1023.0), 0, 0x3ff),
                (q(c[1], 1023.0), 10, 0x3ff),
                (q(c[2], 1023.0), 20, 0x3ff),
                (q(c[3], 3.0), 30, 3),
            ];
            let mut v = old;
            for (i, (val, shift, m)) in fields.into_iter().enumerate() {
                if ch(i) {
                    v = (v & !(m << shift)) | (val << shift);
                }
            }
            t[..4].copy_from_slice(&v.to_le_bytes());
        }
        F::R16Float | F::Rg16Float | F::Rgba16Float => {
            for (i, chunk) in t.chunks_exact_mut(2).enumerate() {
                if ch(i) {
                    chunk.copy_from_slice(&f32_to_f16(c[i]).to_le_bytes());
                }
            }
        }
        F::R32Float | F::Rg32Float | F::Rgba32Float | F::R32Uint | F::R32Sint | F::Rgba32Uint => {
            for (i, chunk) in t.chunks_exact_mut(4).enumerate() {
                if ch(i) {
                    chunk.copy_from_slice(&c[i].to_bits().to_le_bytes());
                }
            }
        }
        _ => {}
    }
}

/// Resolves a multisampled plane into `dst`: `src` holds `samples` images of `dst`'s size
/// one after another (`pitch` bytes per row each), and each texel of `dst` becomes the
/// average of its samples in linear values (an sRGB format is decoded, averaged and encoded
/// again, as GPUs resolve). Rows are resolved in parallel.
pub(crate) fn resolve(
    format: TextureFormat,
    src: &[u8],
    samples: usize,
    dst: &mut [u8],
    pitch: usize,
    encoder: &SrgbEncoder,
) {
    use rayon::prelude::*;
    let texel = format.facts().block_bytes as usize;
    let image = dst.len();
    if texel == 0 || pitch == 0 || src.len() < image * samples {
        return;
    }
    let scale = 1.0 / samples as f32;
    dst.par_chunks_mut(pitch).enumerate().for_each(|(row, out)| {
        for (x, t) in out.chunks_exact_mut(texel).enumerate() {
            let at = row * pitch + x * texel;
            let mut sum = [0.0f32; 4];
            for s in 0..samples {
                let v = read_texel(format, &src[s * image + at..s * image + at + texel]);
                for c in 0..4 {
                    sum[c] += v[c];
                }
            }
            write_texel(format, t, sum.map(|v| v * scale), ColorWrites::all(), encoder);
        }
    });
}

fn factor(f: BlendFactor, src: &[f32; 4], dst: &[f32; 4], k: &[f32; 4], i: usize) -> f32 {
    f.value(*src, *dst, *k, i)
}

#[inline]
fn blend(state: &BlendState, src: [f32; 4], dst: [f32; 4], k: &[f32; 4]) -> [f32; 4] {
    let mut out = [0.0; 4];
    for (i, o) in out.iter_mut().enumerate() {
        let comp = if i == 3 { &state.alpha } else { &state.color };
        let (s, d) = (src[i], dst[i]);
        *o = match comp.operation {
            BlendOperation::Min => s.min(d),
            BlendOperation::Max => s.max(d),
            op => {
                let sf = s * factor(comp.src_factor, &src, &dst, k, i);
                let df = d * factor(comp.dst_factor, &src, &dst, k, i);
                match op {
                    BlendOperation::Add => sf + df,
                    BlendOperation::Subtract => sf - df,
                    _ => df - sf,
                }
            }
        };
    }
    out
}

/// How one colour target is written by one draw.
pub(crate) struct ColorOps<'a> {
    pub(crate) blend: Option<BlendState>,
    pub(crate) write_mask: ColorWrites,
    pub(crate) constant: [f32; 4],
    pub(crate) srgb: &'a SrgbEncoder,
}

/// A colour target format the block kernels pack directly: 8-bit RGBA or BGRA, linear or sRGB.
/// `(srgb, bgra)`, or `None` for other formats.
pub(crate) fn rgba8_layout(format: TextureFormat) -> Option<(bool, bool)> {
    use TextureFormat as F;
    match format {
        F::Rgba8Unorm => Some((false, false)),
        F::Rgba8UnormSrgb => Some((true, false)),
        F::Bgra8Unorm => Some((false, true)),
        F::Bgra8UnormSrgb => Some((true, true)),
        _ => None,
    }
}

impl ColorOps<'_> {
    /// Whether this draw replaces whole texels (no blending, every channel written).
    #[inline(always)]
    pub(crate) fn replaces(&self) -> bool {
        self.blend.is_none() && self.write_mask == ColorWrites::all()
    }

    /// Writes `color` (four channels × 64 lanes) to the `mask` lanes of block (`bx`, `by`).
    #[inline(always)]
    pub(crate) fn write(
        &self,
        target: &mut ColorRows<'_>,
        bx: u32,
        by: u32,
        mask: u64,
        color: [&[f32; 64]; 4],
    ) {
        if self.replaces()
            && let Some((srgb, bgra)) = rgba8_layout(target.format)
            && let Some(start) = block_span(target.bytes.len(), target.pitch, 4, bx, by - target.y0)
        {
            block::write_rgba8(
                target.bytes,
                start,
                target.pitch,
                to_rows(mask),
                color,
                srgb.then_some(self.srgb),
                bgra,
            );
            return;
        }
        self.write_lanes(target, bx, by, mask, color);
    }

    /// [`write`](Self::write) for every format and blend state, lane by lane.
    #[inline(never)]
    fn write_lanes(&self, target: &mut ColorRows<'_>, bx: u32, by: u32, mask: u64, color: [&[f32; 64]; 4]) {
        let size = target.format.facts().block_bytes as usize;
        let format = target.format;
        if self.replaces() && format == TextureFormat::Rgba16Float {
            // The block's texels inside the target on each row: 8, or fewer in the last block
            // of a target whose width is not a multiple of 8.
            let texels = (target.pitch / 8).saturating_sub(bx as usize).min(8);
            for row in 0..8u32 {
                let start = (by + row - target.y0) as usize * target.pitch + bx as usize * 8;
                let Some(px) = target.bytes.get_mut(start..start + texels * 8) else { continue };
                for (x, texel) in px.chunks_exact_mut(8).enumerate() {
                    let lane = LANE_OF[row as usize * 8 + x];
                    if mask >> lane & 1 == 1 {
                        for (c, h) in texel.chunks_exact_mut(2).enumerate() {
                            h.copy_from_slice(&f32_to_f16(color[c][lane]).to_le_bytes());
                        }
                    }
                }
            }
            return;
        }
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            let start =
                (by + LANE_Y[lane] - target.y0) as usize * target.pitch + (bx + LANE_X[lane]) as usize * size;
            let Some(t) = target.bytes.get_mut(start..start + size) else { continue };
            let src = [color[0][lane], color[1][lane], color[2][lane], color[3][lane]];
            let value = match &self.blend {
                None => src,
                Some(state) => blend(state, src, read_texel(format, t), &self.constant),
            };
            write_texel(format, t, value, self.write_mask, self.srgb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texels_round_trip_through_every_colour_format() {
        for &format in TextureFormat::ALL {
            if !format.is_color() || format.is_compressed() {
                continue;
            }
            let mut t = vec![0u8; format.facts().block_bytes as usize];
            let v = [0.25, 0.5, 0.75, 1.0];
            write_texel(format, &mut t, v, ColorWrites::all(), &SrgbEncoder::new());
            let back = read_texel(format, &t);
            let n = format.facts().components as usize;
            let int =
                matches!(format, TextureFormat::R32Uint | TextureFormat::R32Sint | TextureFormat::Rgba32Uint);
            for i in 0..n {
                if int {
                    assert_eq!(back[i].to_bits(), v[i].to_bits(), "{format}");
                } else {
                    assert!((back[i] - v[i]).abs() < 0.02, "{format} channel {i}: {} vs {}", back[i], v[i]);
                }
            }
        }
    }

    #[test]
    fn write_masks_keep_channels() {
        let mut t = [10u8, 20, 30, 40];
        write_texel(
            TextureFormat::Rgba8Unorm,
            &mut t,
            [1.0; 4],
            ColorWrites::GREEN | ColorWrites::ALPHA,
            &SrgbEncoder::new(),
        );
        assert_eq!(t, [10, 255, 30, 255]);
    }

    #[test]
    fn blending_matches_the_hal_reference() {
        let k = [0.5, 0.25, 0.125, 1.0];
        for sf in BlendFactor::ALL {
            for df in BlendFactor::ALL {
                let comp = f3d_hal::BlendComponent {
                    src_factor: sf,
                    dst_factor: df,
                    operation: BlendOperation::Add,
                };
                let state = BlendState { color: comp, alpha: comp };
                let (src, dst) = ([0.2, 0.4, 0.6, 0.8], [0.9, 0.7, 0.5, 0.3]);
                assert_eq!(blend(&state, src, dst, &k), state.apply(src, dst, k), "{sf:?} {df:?}");
            }
        }
    }
}
