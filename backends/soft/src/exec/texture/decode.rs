//! Texel formats: reading a texel's bytes and turning them into the four values a shader
//! sees. Reads go through one lane loop per format; the conversion to floats is a second,
//! branch-free loop the compiler vectorises.

use f3d_hal::TextureFormat as F;

use crate::exec::LANES;
use crate::exec::ops::Lanes;

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

/// sRGB-encoded byte to linear, as `f3d_hal::srgb_to_linear` rounds it to f32 (bit patterns).
const SRGB_TO_LINEAR: [u32; 256] = [
    0x00000000, 0x399f22b4, 0x3a1f22b4, 0x3a6eb40e, 0x3a9f22b4, 0x3ac6eb61, 0x3aeeb40e, 0x3b0b3e5d,
    0x3b1f22b4, 0x3b33070a, 0x3b46eb61, 0x3b5b518e, 0x3b70f18f, 0x3b83e1c6, 0x3b8fe616, 0x3b9c87fd,
    0x3ba9c9b6, 0x3bb7ad6f, 0x3bc6354a, 0x3bd56360, 0x3be539c1, 0x3bf5ba71, 0x3c0373b6, 0x3c0c6153,
    0x3c15a705, 0x3c1f45be, 0x3c293e6b, 0x3c3391f7, 0x3c3e4149, 0x3c494d44, 0x3c54b6c9, 0x3c607eb4,
    0x3c6ca5df, 0x3c792d22, 0x3c830aa9, 0x3c89af9f, 0x3c9085dc, 0x3c978dc6, 0x3c9ec7c2, 0x3ca63433,
    0x3cadd37d, 0x3cb5a602, 0x3cbdac21, 0x3cc5e63a, 0x3cce54ac, 0x3cd6f7d5, 0x3cdfd010, 0x3ce8ddba,
    0x3cf2212d, 0x3cfb9ac3, 0x3d02a56a, 0x3d0798dd, 0x3d0ca7e6, 0x3d11d2af, 0x3d171964, 0x3d1c7c30,
    0x3d21fb3c, 0x3d2796b2, 0x3d2d4ebb, 0x3d332381, 0x3d39152b, 0x3d3f23e4, 0x3d454fd2, 0x3d4b991d,
    0x3d51ffec, 0x3d588468, 0x3d5f26b6, 0x3d65e6fd, 0x3d6cc563, 0x3d73c20e, 0x3d7add24, 0x3d810b65,
    0x3d84b793, 0x3d88732e, 0x3d8c3e48, 0x3d9018f4, 0x3d940344, 0x3d97fd49, 0x3d9c0715, 0x3da020ba,
    0x3da44a4a, 0x3da883d6, 0x3daccd6f, 0x3db12727, 0x3db5910f, 0x3dba0b38, 0x3dbe95b3, 0x3dc33090,
    0x3dc7dbe0, 0x3dcc97b4, 0x3dd1641d, 0x3dd6412b, 0x3ddb2eee, 0x3de02d76, 0x3de53cd4, 0x3dea5d18,
    0x3def8e51, 0x3df4d090, 0x3dfa23e5, 0x3dff885e, 0x3e027f06, 0x3e05427f, 0x3e080ea2, 0x3e0ae377,
    0x3e0dc104, 0x3e10a753, 0x3e13966a, 0x3e168e51, 0x3e198f0f, 0x3e1c98ac, 0x3e1fab30, 0x3e22c6a1,
    0x3e25eb07, 0x3e29186a, 0x3e2c4ed0, 0x3e2f8e42, 0x3e32d6c5, 0x3e362862, 0x3e39831f, 0x3e3ce703,
    0x3e405417, 0x3e43ca60, 0x3e4749e6, 0x3e4ad2af, 0x3e4e64c3, 0x3e520029, 0x3e55a4e7, 0x3e595305,
    0x3e5d0a89, 0x3e60cb7a, 0x3e6495df, 0x3e6869be, 0x3e6c471f, 0x3e702e07, 0x3e741e7e, 0x3e78188b,
    0x3e7c1c33, 0x3e8014bf, 0x3e822039, 0x3e84308b, 0x3e8645b8, 0x3e885fc3, 0x3e8a7eb0, 0x3e8ca281,
    0x3e8ecb3b, 0x3e90f8df, 0x3e932b72, 0x3e9562f6, 0x3e979f6f, 0x3e99e0e0, 0x3e9c274c, 0x3e9e72b6,
    0x3ea0c321, 0x3ea31890, 0x3ea57307, 0x3ea7d288, 0x3eaa3716, 0x3eaca0b6, 0x3eaf0f68, 0x3eb18332,
    0x3eb3fc15, 0x3eb67a14, 0x3eb8fd34, 0x3ebb8576, 0x3ebe12de, 0x3ec0a56e, 0x3ec33d2a, 0x3ec5da14,
    0x3ec87c30, 0x3ecb2380, 0x3ecdd008, 0x3ed081ca, 0x3ed338c9, 0x3ed5f508, 0x3ed8b68a, 0x3edb7d52,
    0x3ede4963, 0x3ee11abf, 0x3ee3f169, 0x3ee6cd65, 0x3ee9aeb5, 0x3eec955b, 0x3eef815c, 0x3ef272b8,
    0x3ef56974, 0x3ef86593, 0x3efb6716, 0x3efe6e00, 0x3f00bd2b, 0x3f02460c, 0x3f03d1a5, 0x3f055ff7,
    0x3f06f104, 0x3f0884cd, 0x3f0a1b54, 0x3f0bb499, 0x3f0d509f, 0x3f0eef65, 0x3f1090ef, 0x3f12353d,
    0x3f13dc50, 0x3f15862a, 0x3f1732cc, 0x3f18e237, 0x3f1a946e, 0x3f1c4970, 0x3f1e0140, 0x3f1fbbde,
    0x3f21794d, 0x3f23398c, 0x3f24fc9f, 0x3f26c285, 0x3f288b41, 0x3f2a56d2, 0x3f2c253c, 0x3f2df67f,
    0x3f2fca9c, 0x3f31a194, 0x3f337b6a, 0x3f35581d, 0x3f3737b0, 0x3f391a24, 0x3f3aff7a, 0x3f3ce7b2,
    0x3f3ed2cf, 0x3f40c0d2, 0x3f42b1bc, 0x3f44a58e, 0x3f469c49, 0x3f4895ef, 0x3f4a9280, 0x3f4c91ff,
    0x3f4e946c, 0x3f5099c9, 0x3f52a216, 0x3f54ad56, 0x3f56bb88, 0x3f58ccaf, 0x3f5ae0cc, 0x3f5cf7df,
    0x3f5f11ea, 0x3f612eef, 0x3f634eee, 0x3f6571e9, 0x3f6797e0, 0x3f69c0d5, 0x3f6becca, 0x3f6e1bbf,
    0x3f704db5, 0x3f7282ae, 0x3f74baab, 0x3f76f5ae, 0x3f7933b6, 0x3f7b74c6, 0x3f7db8de, 0x3f800000,
];

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
            F::Depth16Unorm | F::Depth24Plus | F::Depth24PlusStencil8 | F::Depth32Float | F::Depth32FloatStencil8 => {
                Decode::Depth
            }
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

    /// Turns raw texels into the four channels a shader reads (missing channels 0, alpha 1;
    /// integer formats as bit patterns). `channels` limits the work to the first few.
    #[inline(always)]
    pub(crate) fn decode(self, raw: &Raw, out: &mut [Lanes; 4], channels: usize) {
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
                            o[l] = f32::from_bits(SRGB_TO_LINEAR[((r[l] >> shift) & 0xff) as usize]);
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
    fn srgb_table_matches_the_hal_transfer_function() {
        for (i, &bits) in SRGB_TO_LINEAR.iter().enumerate() {
            let want = f3d_hal::srgb_to_linear(i as f64 / 255.0) as f32;
            let got = f32::from_bits(bits);
            assert!((got.to_bits() as i64 - want.to_bits() as i64).abs() <= 1, "byte {i}: {got} vs {want}");
        }
    }
}
