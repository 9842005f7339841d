//! Readback: the rules every backend shares, in one place.
//!
//! * Rows come back from the top, on every backend ([`ReadbackImage::data`] row 0 is the
//!   top row of the region), whatever [`FramebufferOrigin`](crate::FramebufferOrigin) says.
//! * [`check_readback`] decides which requests are refused: multisampled textures, depth and
//!   stencil formats, compressed formats, regions past the edge, textures without `COPY_SRC`.
//! * [`readback_format`] decides what format the pixels come back in, and
//!   [`convert_for_readback`] converts raw texels to it: 8-bit normalised colour formats come
//!   back as four-channel RGBA8 (BGRA swizzled, missing channels filled with 0 and alpha
//!   255, 10-bit channels rounded to 8); every other colour format comes back raw.
//! * A readback sees what passes submitted before the call left in the texture, and nothing
//!   submitted after, even if it is waited for later.

use std::fmt;

use crate::{BackendId, DeviceError, TextureDescriptor, TextureFormat, TextureRegion, TextureUsages};

/// Pixels read back from a texture: tightly packed rows, top row first.
#[derive(Clone, PartialEq, Eq)]
pub struct ReadbackImage {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// The format of `data` ([`readback_format`] of the texture's format).
    pub format: TextureFormat,
    /// `height` rows of `width` texels, row 0 at the top.
    pub data: Vec<u8>,
}

impl ReadbackImage {
    /// The bytes of texel (`x`, `y`), `y` counted from the top.
    pub fn texel(&self, x: u32, y: u32) -> &[u8] {
        let size = self.format.facts().block_bytes as usize;
        let start = (y as usize * self.width as usize + x as usize) * size;
        &self.data[start..start + size]
    }

    /// Texel (`x`, `y`) of an RGBA8 image.
    pub fn rgba8(&self, x: u32, y: u32) -> [u8; 4] {
        let t = self.texel(x, y);
        [t[0], t[1], t[2], t[3]]
    }

    /// Texel (`x`, `y`) of an `R32Uint` image.
    pub fn r32uint(&self, x: u32, y: u32) -> u32 {
        let t = self.texel(x, y);
        u32::from_le_bytes([t[0], t[1], t[2], t[3]])
    }

    /// Texel (`x`, `y`) as floats, for float formats (`Rgba16Float`, `R32Float`, ...) and the
    /// normalised RGBA8 formats; missing channels read 0 (alpha 1).
    pub fn texel_f32(&self, x: u32, y: u32) -> [f32; 4] {
        decode_texel(self.format, self.texel(x, y))
    }

    /// The image as RGBA8 rows, for looking at: RGBA8 images as they are, other colour
    /// formats decoded to floats and clamped to `[0, 1]` (values as stored, no tone mapping
    /// or sRGB encoding), formats [`decode_texel`] does not read as black.
    pub fn to_rgba8(&self) -> Vec<u8> {
        if matches!(self.format, TextureFormat::Rgba8Unorm | TextureFormat::Rgba8UnormSrgb) {
            return self.data.clone();
        }
        let size = (self.format.facts().block_bytes as usize).max(1);
        self.data
            .chunks_exact(size)
            .flat_map(|t| decode_texel(self.format, t).map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect()
    }
}

impl fmt::Debug for ReadbackImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ReadbackImage({}x{} {}, {} bytes)", self.width, self.height, self.format, self.data.len())
    }
}

type Waiter = Box<dyn FnOnce() -> Result<ReadbackImage, DeviceError> + Send>;

/// A readback that was asked for and may not have finished. It holds what the texture
/// contained when it was asked for; [`wait`](Self::wait) blocks until the pixels are there.
#[must_use = "a readback does nothing until it is waited for"]
pub struct PendingReadback(Waiter);

impl PendingReadback {
    /// A readback whose pixels are already known.
    pub fn ready(result: Result<ReadbackImage, DeviceError>) -> Self {
        Self(Box::new(move || result))
    }

    /// A readback finished by `wait` (polling a fence, mapping a buffer, ...).
    pub fn deferred(wait: impl FnOnce() -> Result<ReadbackImage, DeviceError> + Send + 'static) -> Self {
        Self(Box::new(wait))
    }

    /// Blocks until the pixels are there.
    pub fn wait(self) -> Result<ReadbackImage, DeviceError> {
        (self.0)()
    }
}

impl fmt::Debug for PendingReadback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PendingReadback")
    }
}

/// Whether `region` of a texture described by `desc` may be read back, by the rules every
/// backend shares. Backends call this first in `readback`.
pub fn check_readback(
    desc: &TextureDescriptor,
    region: &TextureRegion,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    const OP: &str = "readback";
    let _ = backend;
    if desc.sample_count > 1 {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!(
                "{} is multisampled ({} samples); resolve it first",
                desc.label, desc.sample_count
            ),
        });
    }
    if !desc.format.is_color() {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!(
                "{} has depth/stencil format {}, which cannot be read back",
                desc.label, desc.format
            ),
        });
    }
    if desc.format.is_compressed() {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!(
                "{} has compressed format {}, which cannot be read back",
                desc.label, desc.format
            ),
        });
    }
    if !desc.usage.contains(TextureUsages::COPY_SRC) {
        return Err(DeviceError::MissingUsage {
            operation: OP,
            label: desc.label.clone(),
            usage: "COPY_SRC",
        });
    }
    check_region(OP, desc, region)
}

/// Whether `region` lies inside `desc` and is not empty; the error says where it sticks out.
pub fn check_region(
    operation: &'static str,
    desc: &TextureDescriptor,
    region: &TextureRegion,
) -> Result<(), DeviceError> {
    if region.width == 0 || region.height == 0 {
        return Err(DeviceError::OutOfBounds {
            operation,
            what: format!("the region {}x{} of {} is empty", region.width, region.height, desc.label),
        });
    }
    if region.mip_level >= desc.mip_level_count {
        return Err(DeviceError::OutOfBounds {
            operation,
            what: format!(
                "mip level {} of {}, which has {}",
                region.mip_level, desc.label, desc.mip_level_count
            ),
        });
    }
    if region.layer >= desc.array_layers {
        return Err(DeviceError::OutOfBounds {
            operation,
            what: format!("layer {} of {}, which has {}", region.layer, desc.label, desc.array_layers),
        });
    }
    if !region.fits(desc) {
        let (w, h) = desc.level_size(region.mip_level);
        return Err(DeviceError::OutOfBounds {
            operation,
            what: format!(
                "the region at ({}, {}) of size {}x{} lies past the edge of {} level {} ({w}x{h})",
                region.x, region.y, region.width, region.height, desc.label, region.mip_level
            ),
        });
    }
    Ok(())
}

/// The format pixels of `format` come back in: `Rgba8Unorm` (or `Rgba8UnormSrgb`, bytes as
/// stored) for 8-bit-or-narrower normalised colour formats, the format itself otherwise.
pub fn readback_format(format: TextureFormat) -> TextureFormat {
    use TextureFormat as F;
    match format {
        F::R8Unorm | F::Rg8Unorm | F::Rgba8Unorm | F::Bgra8Unorm | F::Rgb10a2Unorm => F::Rgba8Unorm,
        F::Rgba8UnormSrgb | F::Bgra8UnormSrgb => F::Rgba8UnormSrgb,
        other => other,
    }
}

/// Whether `format` is converted on readback (its [`readback_format`] differs from it).
pub fn readback_converts(format: TextureFormat) -> bool {
    readback_format(format) != format
}

/// Converts tightly packed raw texels of `format` to [`readback_format`]`(format)`. The bytes
/// are taken by value and handed back as they are where the format needs no conversion (the
/// common RGBA8 frame), so a readback copies its pixels once, out of the staging memory.
pub fn convert_for_readback(format: TextureFormat, raw: Vec<u8>) -> Vec<u8> {
    use TextureFormat as F;
    match format {
        F::R8Unorm => raw.iter().flat_map(|&r| [r, 0, 0, 255]).collect(),
        F::Rg8Unorm => raw.chunks_exact(2).flat_map(|t| [t[0], t[1], 0, 255]).collect(),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => {
            raw.chunks_exact(4).flat_map(|t| [t[2], t[1], t[0], t[3]]).collect()
        }
        F::Rgb10a2Unorm => raw
            .chunks_exact(4)
            .flat_map(|t| {
                let v = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                let c = |shift: u32| (((v >> shift) & 0x3ff) as f32 / 1023.0 * 255.0).round() as u8;
                [c(0), c(10), c(20), (((v >> 30) & 3) as f32 / 3.0 * 255.0).round() as u8]
            })
            .collect(),
        _ => raw,
    }
}

/// Decodes one texel of a colour format to floats (integers converted, not normalised; sRGB
/// bytes returned as stored, not linearised). Missing channels read 0, missing alpha 1.
pub fn decode_texel(format: TextureFormat, t: &[u8]) -> [f32; 4] {
    use TextureFormat as F;
    let f32_at = |i: usize| f32::from_le_bytes([t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]]);
    let f16_at = |i: usize| f16_to_f32(u16::from_le_bytes([t[2 * i], t[2 * i + 1]]));
    let u32_at = |i: usize| u32::from_le_bytes([t[4 * i], t[4 * i + 1], t[4 * i + 2], t[4 * i + 3]]);
    let unorm = |b: u8| f32::from(b) / 255.0;
    match format {
        F::R8Unorm => [unorm(t[0]), 0.0, 0.0, 1.0],
        F::Rg8Unorm => [unorm(t[0]), unorm(t[1]), 0.0, 1.0],
        F::Rgba8Unorm | F::Rgba8UnormSrgb => [unorm(t[0]), unorm(t[1]), unorm(t[2]), unorm(t[3])],
        F::Bgra8Unorm | F::Bgra8UnormSrgb => [unorm(t[2]), unorm(t[1]), unorm(t[0]), unorm(t[3])],
        F::Rgb10a2Unorm => {
            let v = u32_at(0);
            let c = |s: u32| ((v >> s) & 0x3ff) as f32 / 1023.0;
            [c(0), c(10), c(20), ((v >> 30) & 3) as f32 / 3.0]
        }
        F::R16Float => [f16_at(0), 0.0, 0.0, 1.0],
        F::Rg16Float => [f16_at(0), f16_at(1), 0.0, 1.0],
        F::Rgba16Float => [f16_at(0), f16_at(1), f16_at(2), f16_at(3)],
        F::R32Float => [f32_at(0), 0.0, 0.0, 1.0],
        F::Rg32Float => [f32_at(0), f32_at(1), 0.0, 1.0],
        F::Rgba32Float => [f32_at(0), f32_at(1), f32_at(2), f32_at(3)],
        F::R32Uint => [u32_at(0) as f32, 0.0, 0.0, 1.0],
        F::R32Sint => [u32_at(0) as i32 as f32, 0.0, 0.0, 1.0],
        F::Rgba32Uint => [u32_at(0) as f32, u32_at(1) as f32, u32_at(2) as f32, u32_at(3) as f32],
        _ => [0.0, 0.0, 0.0, 1.0],
    }
}

/// The bytes of one texel of colour format `format` holding `color` (linear floats; encoded to
/// sRGB for sRGB formats, rounded for normalised formats, truncated towards zero for integer
/// formats): what a clear to `color` stores. Compressed and depth formats give no bytes.
pub fn encode_clear_color(format: TextureFormat, color: [f64; 4]) -> Vec<u8> {
    use TextureFormat as F;
    let srgb = format.facts().srgb;
    let unorm8 = |v: f64, encode: bool| {
        let v = v.clamp(0.0, 1.0);
        let v = if encode { linear_to_srgb(v) } else { v };
        (v * 255.0).round() as u8
    };
    let [r, g, b, a] = color;
    let rgba8 =
        |c: [f64; 4]| vec![unorm8(c[0], srgb), unorm8(c[1], srgb), unorm8(c[2], srgb), unorm8(c[3], false)];
    let f16s = |n: usize| color[..n].iter().flat_map(|&v| f32_to_f16(v as f32).to_le_bytes()).collect();
    let f32s = |n: usize| color[..n].iter().flat_map(|&v| (v as f32).to_le_bytes()).collect();
    match format {
        F::R8Unorm => vec![unorm8(r, false)],
        F::Rg8Unorm => vec![unorm8(r, false), unorm8(g, false)],
        F::Rgba8Unorm | F::Rgba8UnormSrgb => rgba8(color),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => rgba8([b, g, r, a]),
        F::Rgb10a2Unorm => {
            let c = |v: f64, max: f64| (v.clamp(0.0, 1.0) * max).round() as u32;
            (c(r, 1023.0) | c(g, 1023.0) << 10 | c(b, 1023.0) << 20 | c(a, 3.0) << 30).to_le_bytes().to_vec()
        }
        F::R16Float => f16s(1),
        F::Rg16Float => f16s(2),
        F::Rgba16Float => f16s(4),
        F::R32Float => f32s(1),
        F::Rg32Float => f32s(2),
        F::Rgba32Float => f32s(4),
        F::R32Uint => (r.clamp(0.0, u32::MAX as f64) as u32).to_le_bytes().to_vec(),
        F::R32Sint => (r.clamp(i32::MIN as f64, i32::MAX as f64) as i32).to_le_bytes().to_vec(),
        F::Rgba32Uint => {
            color.iter().flat_map(|&v| (v.clamp(0.0, u32::MAX as f64) as u32).to_le_bytes()).collect()
        }
        _ => Vec::new(),
    }
}

/// The clear value a GPU backend should hand its API so that the stored texels are exactly
/// [`encode_clear_color`]'s, whatever the driver's rounding: each normalised channel moved
/// to the exact value of the code the HAL's rule picks (for sRGB formats, the linear value
/// whose encoding is that code), far from any rounding tie. Other formats are unchanged.
/// (NVIDIA's driver clears 0.5 to 127 in RGBA8; the HAL's rule stores 128.)
pub fn exact_clear_color(format: TextureFormat, color: [f64; 4]) -> [f64; 4] {
    use TextureFormat as F;
    let bytes = encode_clear_color(format, color);
    let srgb = format.facts().srgb;
    let code = |b: u8, encoded: bool| {
        let v = f64::from(b) / 255.0;
        if encoded { srgb_to_linear(v) } else { v }
    };
    let rgba8 = |order: [usize; 4]| {
        let mut out = color;
        for (channel, &i) in order.iter().enumerate() {
            out[channel] = code(bytes[i], srgb && channel < 3);
        }
        out
    };
    match format {
        F::R8Unorm => [code(bytes[0], false), color[1], color[2], color[3]],
        F::Rg8Unorm => [code(bytes[0], false), code(bytes[1], false), color[2], color[3]],
        F::Rgba8Unorm | F::Rgba8UnormSrgb => rgba8([0, 1, 2, 3]),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => rgba8([2, 1, 0, 3]),
        F::Rgb10a2Unorm => {
            let v = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let c = |s: u32, max: u32| f64::from((v >> s) & max) / f64::from(max);
            [c(0, 1023), c(10, 1023), c(20, 1023), c(30, 3)]
        }
        _ => color,
    }
}

/// The sRGB transfer function, linear to encoded, for one channel in `[0, 1]`.
pub fn linear_to_srgb(v: f64) -> f64 {
    if v <= 0.003_130_8 { v * 12.92 } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 }
}

/// The sRGB transfer function, encoded to linear, for one channel in `[0, 1]`.
pub fn srgb_to_linear(v: f64) -> f64 {
    if v <= 0.040_45 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

/// IEEE half to single precision.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let mant = u32::from(h & 0x3ff);
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: renormalise.
            let shift = m.leading_zeros() - 21;
            sign | ((127 - 15 + 1 - shift) << 23) | ((m << shift) & 0x3ff) << 13
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// Single to IEEE half precision, rounding to nearest even.
pub fn f32_to_f16(f: f32) -> u16 {
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rounded = m >> shift;
        let rest = m & ((1 << shift) - 1);
        let r = if rest > half || (rest == half && rounded & 1 == 1) { rounded + 1 } else { rounded };
        return sign | r as u16;
    }
    let rounded = mant >> 13;
    let rest = mant & 0x1fff;
    let mut h = ((e as u32) << 10) | rounded;
    if rest > 0x1000 || (rest == 0x1000 && rounded & 1 == 1) {
        h += 1;
    }
    sign | h as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trips() {
        for v in [0.0f32, 1.0, -2.5, 0.333_251_95, 65504.0, 6.1035156e-5, 5.9604645e-8] {
            assert_eq!(f16_to_f32(f32_to_f16(v)), v, "{v}");
        }
        assert!(f16_to_f32(f32_to_f16(f32::INFINITY)).is_infinite());
    }

    #[test]
    fn exact_clears_sit_on_the_hal_codes() {
        let c = exact_clear_color(TextureFormat::Rgba8Unorm, [1.0, 0.0, 0.5, 0.25]);
        assert_eq!(c, [1.0, 0.0, 128.0 / 255.0, 64.0 / 255.0]);
        let s = exact_clear_color(TextureFormat::Bgra8UnormSrgb, [0.5, 0.2, 0.1, 1.0]);
        let bytes = encode_clear_color(TextureFormat::Rgba8UnormSrgb, [0.5, 0.2, 0.1, 1.0]);
        for ch in 0..3 {
            assert_eq!((linear_to_srgb(s[ch]) * 255.0).round() as u8, bytes[ch]);
        }
        assert_eq!(exact_clear_color(TextureFormat::Rgba16Float, [0.5; 4]), [0.5; 4]);
    }

    #[test]
    fn eight_bit_formats_come_back_as_rgba8() {
        assert_eq!(readback_format(TextureFormat::Bgra8Unorm), TextureFormat::Rgba8Unorm);
        assert_eq!(convert_for_readback(TextureFormat::Bgra8Unorm, vec![1, 2, 3, 4]), vec![3, 2, 1, 4]);
        assert_eq!(convert_for_readback(TextureFormat::R8Unorm, vec![9]), vec![9, 0, 0, 255]);
        assert!(!readback_converts(TextureFormat::Rgba16Float));
    }
}
