//! Texel formats: reading a texel's bytes and turning them into the four values a shader
//! sees. Reads go through one lane loop per format; the conversion to floats is a second,
//! branch-free loop the compiler vectorises.

use f3d_hal::TextureFormat as F;

use crate::LANES;
use crate::ops::Lanes;

/// How a format's texels decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decode {
    /// Four bytes, R G B A (`srgb`: colour channels sRGB-encoded; `bgra`: stored B G R A).
    Rgba8 { srgb: bool, bgra: bool },
    /// One unorm byte.
    R8,
    /// Two unorm bytes.
    Rg8,
    /// 10-10-10-2 unorm.
    Rgb10a2,
    /// `n` f16 channels.
    Half(u8),
    /// `n` f32 channels.
    Float(u8),
    /// One `u32`.
    R32Uint,
    /// One `i32`.
    R32Sint,
    /// Four `u32`.
    Rgba32Uint,
    /// Depth as one f32 per texel (every depth format).
    Depth,
}

/// An sRGB-encoded channel (`x` in [0, 1]) to linear light: the exact linear segment below
/// 0.04045 and, above it, a degree-6 polynomial (Chebyshev fit of `((x + 0.055) / 1.055)^2.4`)
/// within 1e-5 of the exact curve for every 8-bit input (a test holds it). Arithmetic rather
/// than a 256-entry table because table lookups do not vectorise and this sits on the
/// texture-sampling hot path. `FMA`: evaluate with fused multiply-adds (the AVX2 path, where
/// they are single instructions); results differ from the unfused ones by at most an ULP.
#[inline(always)]
pub(crate) fn srgb_to_linear<const FMA: bool>(x: f32) -> f32 {
    const C: [f32; 7] =
        [0.000_936_791_5, 0.032_525_49, 0.516_548_5, 0.698_807_6, -0.403_150_14, 0.200_813_86, -0.046_484_82];
    let mut p = C[6];
    for &c in C[..6].iter().rev() {
        p = if FMA { p.mul_add(x, c) } else { p * x + c };
    }
    if x <= 0.040_45 { x * (1.0 / 12.92) } else { p }
}

/// Up to four 32-bit words of one texel, per lane.
pub(crate) type Raw = [[u32; LANES]; 4];

#[inline(always)]
fn word(plane: &[u8], at: usize) -> u32 {
    match plane.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

#[inline(always)]
fn half(plane: &[u8], at: usize) -> u32 {
    match plane.get(at..at + 2) {
        Some(b) => u32::from(u16::from_le_bytes([b[0], b[1]])),
        None => 0,
    }
}

impl Decode {
    /// The decoder for `format`, or `None` when the executor cannot sample it.
    pub(crate) fn of(format: F) -> Option<Decode> {
        Some(match format {
            F::Rgba8Unorm => Decode::Rgba8 { srgb: false, bgra: false },
            F::Rgba8UnormSrgb => Decode::Rgba8 { srgb: true, bgra: false },
            F::Bgra8Unorm => Decode::Rgba8 { srgb: false, bgra: true },
            F::Bgra8UnormSrgb => Decode::Rgba8 { srgb: true, bgra: true },
            F::R8Unorm => Decode::R8,
            F::Rg8Unorm => Decode::Rg8,
            F::Rgb10a2Unorm => Decode::Rgb10a2,
            F::R16Float => Decode::Half(1),
            F::Rg16Float => Decode::Half(2),
            F::Rgba16Float => Decode::Half(4),
            F::R32Float => Decode::Float(1),
            F::Rg32Float => Decode::Float(2),
            F::Rgba32Float => Decode::Float(4),
            F::R32Uint => Decode::R32Uint,
            F::R32Sint => Decode::R32Sint,
            F::Rgba32Uint => Decode::Rgba32Uint,
            F::Depth16Unorm
            | F::Depth24Plus
            | F::Depth24PlusStencil8
            | F::Depth32Float
            | F::Depth32FloatStencil8 => Decode::Depth,
            _ => return None,
        })
    }

    /// Bytes one texel takes in a plane.
    pub(crate) fn bytes_per_texel(self) -> usize {
        match self {
            Decode::Rgba8 { .. } | Decode::Rgb10a2 | Decode::R32Uint | Decode::R32Sint | Decode::Depth => 4,
            Decode::R8 => 1,
            Decode::Rg8 => 2,
            Decode::Half(n) => 2 * usize::from(n),
            Decode::Float(n) => 4 * usize::from(n),
            Decode::Rgba32Uint => 16,
        }
    }

    /// Reads the texel at byte `at[l]` of `plane(l)` for every lane.
    #[inline(always)]
    pub(crate) fn read<'p>(self, plane: impl Fn(usize) -> &'p [u8], at: &[u32; LANES], raw: &mut Raw) {
        let words = self.bytes_per_texel().div_ceil(4).min(4);
        match self {
            Decode::R8 => {
                for l in 0..LANES {
                    raw[0][l] = plane(l).get(at[l] as usize).copied().map_or(0, u32::from);
                }
            }
            Decode::Rg8 | Decode::Half(1) => {
                for l in 0..LANES {
                    raw[0][l] = half(plane(l), at[l] as usize);
                }
            }
            _ => {
                for w in 0..words {
                    for l in 0..LANES {
                        raw[w][l] = word(plane(l), at[l] as usize + 4 * w);
                    }
                }
            }
        }
    }

    /// [`read`](Self::read) with every lane's texel in the one `plane`. When all of them lie
    /// inside it (the usual case: coordinates are wrapped or clamped to the level before), the
    /// words are loaded with one bounds check for all lanes instead of one per lane and word;
    /// otherwise lanes outside read 0, as in `read`.
    #[inline(always)]
    pub(crate) fn read_plane(self, plane: &[u8], at: &[u32; LANES], raw: &mut Raw) {
        let bytes = self.bytes_per_texel();
        let words = bytes.div_ceil(4).min(4);
        let last = at.iter().fold(0, |m, &a| m.max(a)) as usize;
        if bytes < 4 || last + 4 * words > plane.len() {
            return self.read(|_| plane, at, raw);
        }
        let base = plane.as_ptr();
        for w in 0..words {
            for l in 0..LANES {
                // SAFETY: `at[l] + 4 * w + 4 <= last + 4 * words <= plane.len()`, so the four
                // bytes lie inside `plane`; the read is unaligned.
                let word = unsafe { base.add(at[l] as usize + 4 * w).cast::<u32>().read_unaligned() };
                raw[w][l] = u32::from_le(word);
            }
        }
    }

    /// Turns raw texels into the four channels a shader reads (missing channels 0, alpha 1;
    /// integer formats as bit patterns). `channels` limits the work to the first few.
    #[inline(always)]
    pub(crate) fn decode<const FMA: bool>(self, raw: &Raw, out: &mut [Lanes; 4], channels: usize) {
        let unorm8 = |x: u32| (x & 0xff) as f32 * (1.0 / 255.0);
        let fill = |o: &mut Lanes, v: f32| *o = [v; LANES];
        let r = &raw[0];
        match self {
            Decode::Rgba8 { srgb, bgra } => {
                for c in 0..channels.min(4) {
                    let shift = if bgra && c < 3 { 8 * (2 - c as u32) } else { 8 * c as u32 };
                    let o = &mut out[c];
                    if srgb && c < 3 {
                        for l in 0..LANES {
                            o[l] = srgb_to_linear::<FMA>(unorm8(r[l] >> shift));
                        }
                    } else {
                        for l in 0..LANES {
                            o[l] = unorm8(r[l] >> shift);
                        }
                    }
                }
            }
            Decode::R8 | Decode::Rg8 => {
                let n = if self == Decode::R8 { 1 } else { 2 };
                for c in 0..channels.min(4) {
                    if c < n {
                        for l in 0..LANES {
                            out[c][l] = unorm8(r[l] >> (8 * c as u32));
                        }
                    } else {
                        fill(&mut out[c], if c == 3 { 1.0 } else { 0.0 });
                    }
                }
            }
            Decode::Rgb10a2 => {
                for c in 0..channels.min(4) {
                    for l in 0..LANES {
                        out[c][l] = if c < 3 {
                            ((r[l] >> (10 * c as u32)) & 0x3ff) as f32 / 1023.0
                        } else {
                            (r[l] >> 30) as f32 / 3.0
                        };
                    }
                }
            }
            Decode::Half(n) => {
                for c in 0..channels.min(4) {
                    if c < usize::from(n) {
                        let w = &raw[c / 2];
                        for l in 0..LANES {
                            out[c][l] = f3d_hal::f16_to_f32((w[l] >> (16 * (c as u32 & 1))) as u16);
                        }
                    } else {
                        fill(&mut out[c], if c == 3 { 1.0 } else { 0.0 });
                    }
                }
            }
            Decode::Float(n) => {
                for c in 0..channels.min(4) {
                    if c < usize::from(n) {
                        for l in 0..LANES {
                            out[c][l] = f32::from_bits(raw[c][l]);
                        }
                    } else {
                        fill(&mut out[c], if c == 3 { 1.0 } else { 0.0 });
                    }
                }
            }
            Decode::R32Uint | Decode::R32Sint => {
                for c in 0..channels.min(4) {
                    match c {
                        0 => {
                            for l in 0..LANES {
                                out[0][l] = f32::from_bits(r[l]);
                            }
                        }
                        3 => fill(&mut out[3], f32::from_bits(1)),
                        _ => fill(&mut out[c], 0.0),
                    }
                }
            }
            Decode::Rgba32Uint => {
                for c in 0..channels.min(4) {
                    for l in 0..LANES {
                        out[c][l] = f32::from_bits(raw[c][l]);
                    }
                }
            }
            Decode::Depth => {
                for c in 0..channels.min(4) {
                    if c == 0 {
                        for l in 0..LANES {
                            out[0][l] = f32::from_bits(r[l]);
                        }
                    } else {
                        fill(&mut out[c], if c == 3 { 1.0 } else { 0.0 });
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_plane_reads_what_read_reads_in_and_past_the_plane() {
        let plane: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        for decode in [
            Decode::Rgba8 { srgb: false, bgra: false },
            Decode::Half(4),
            Decode::Rgba32Uint,
            Decode::R8,
            Decode::Rg8,
        ] {
            let step = decode.bytes_per_texel() as u32;
            let inside: [u32; LANES] = std::array::from_fn(|l| (l as u32 * 7 % 40) * step);
            // The last lane's texel runs past the end: it reads 0, the others their bytes.
            let mut past = inside;
            past[LANES - 1] = 1000 - step / 2;
            for at in [inside, past] {
                let (mut want, mut got) = ([[7; LANES]; 4], [[7; LANES]; 4]);
                decode.read(|_| &plane[..], &at, &mut want);
                decode.read_plane(&plane, &at, &mut got);
                assert_eq!(got, want, "{decode:?} at {:?}", &at[LANES - 2..]);
            }
        }
    }

    #[test]
    fn srgb_decode_is_within_1e5_of_the_hal_transfer_function() {
        for i in 0..=255u32 {
            let x = i as f32 * (1.0 / 255.0);
            let want = f3d_hal::srgb_to_linear(f64::from(i) / 255.0);
            let got = f64::from(srgb_to_linear::<false>(x));
            let fused = f64::from(srgb_to_linear::<true>(x));
            assert!((fused - want).abs() < 1e-5, "byte {i} (fused): {fused} vs {want}");
            assert!((got - want).abs() < 1e-5, "byte {i}: {got} vs {want}");
        }
        assert_eq!(srgb_to_linear::<false>(0.0), 0.0);
        assert!((srgb_to_linear::<false>(1.0) - 1.0).abs() < 1e-5);
    }
}
