//! Radiance HDR (`.hdr`, RGBE) files: the format equirectangular environments come in.

use std::path::Path;

use super::EquirectImage;

/// Why an HDR file could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HdrError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not a Radiance HDR file f3d can read.
    #[error("not a Radiance HDR image: {0}")]
    Format(String),
}

/// Reads a Radiance HDR file (`#?RADIANCE`, 32-bit RGBE, flat or RLE scanlines, `-Y h +X w`).
pub fn read_hdr(path: impl AsRef<Path>) -> Result<EquirectImage, HdrError> {
    let path = path.as_ref();
    let bytes =
        std::fs::read(path).map_err(|source| HdrError::Io { path: path.display().to_string(), source })?;
    parse_hdr(&bytes)
}

/// Parses the bytes of a Radiance HDR file.
pub fn parse_hdr(bytes: &[u8]) -> Result<EquirectImage, HdrError> {
    let bad = |m: &str| HdrError::Format(m.to_owned());
    let mut pos = 0;
    let mut line = || -> Option<&[u8]> {
        let start = pos;
        let end = start + bytes.get(start..)?.iter().position(|&b| b == b'\n')?;
        pos = end + 1;
        Some(&bytes[start..end])
    };
    let first = line().ok_or_else(|| bad("empty file"))?;
    if !first.starts_with(b"#?") {
        return Err(bad("missing #? signature"));
    }
    loop {
        let l = line().ok_or_else(|| bad("header never ends"))?;
        if l.is_empty() {
            break;
        }
        if l.starts_with(b"FORMAT=") && l != b"FORMAT=32-bit_rle_rgbe" {
            return Err(bad("only 32-bit_rle_rgbe is supported"));
        }
    }
    let size = line().ok_or_else(|| bad("missing resolution line"))?;
    let size = std::str::from_utf8(size).map_err(|_| bad("resolution line is not text"))?;
    let parts: Vec<&str> = size.split_whitespace().collect();
    let (height, width) = match parts.as_slice() {
        ["-Y", h, "+X", w] => (h.parse::<u32>().ok(), w.parse::<u32>().ok()),
        _ => return Err(bad("only -Y h +X w orientation is supported")),
    };
    let (Some(height), Some(width)) = (height, width) else { return Err(bad("bad resolution")) };
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > 64 << 20 {
        return Err(bad("resolution out of range"));
    }
    let mut texels = Vec::with_capacity((width * height) as usize);
    let mut scan = vec![[0u8; 4]; width as usize];
    for _ in 0..height {
        let rest = bytes.get(pos..).ok_or_else(|| bad("truncated"))?;
        let rle = (8..32768).contains(&width)
            && rest.len() >= 4
            && rest[0] == 2
            && rest[1] == 2
            && rest[2] & 0x80 == 0;
        if rle {
            pos += 4;
            for c in 0..4 {
                let mut x = 0usize;
                while x < width as usize {
                    let count = *bytes.get(pos).ok_or_else(|| bad("truncated run"))? as usize;
                    pos += 1;
                    if count > 128 {
                        let n = count - 128;
                        let v = *bytes.get(pos).ok_or_else(|| bad("truncated run"))?;
                        pos += 1;
                        for t in scan.get_mut(x..x + n).ok_or_else(|| bad("run past the scanline"))? {
                            t[c] = v;
                        }
                        x += n;
                    } else {
                        if count == 0 {
                            return Err(bad("empty run"));
                        }
                        let src = bytes.get(pos..pos + count).ok_or_else(|| bad("truncated run"))?;
                        for (t, &v) in scan
                            .get_mut(x..x + count)
                            .ok_or_else(|| bad("run past the scanline"))?
                            .iter_mut()
                            .zip(src)
                        {
                            t[c] = v;
                        }
                        pos += count;
                        x += count;
                    }
                }
            }
        } else {
            for t in scan.iter_mut() {
                let src = bytes.get(pos..pos + 4).ok_or_else(|| bad("truncated pixels"))?;
                t.copy_from_slice(src);
                pos += 4;
            }
        }
        texels.extend(scan.iter().map(|&[r, g, b, e]| {
            if e == 0 {
                [0.0; 3]
            } else {
                let f = 2f32.powi(i32::from(e) - 136);
                [f32::from(r) * f, f32::from(g) * f, f32::from(b) * f]
            }
        }));
    }
    Ok(EquirectImage { width, height, texels })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_pixels_decode() {
        let mut file = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 2\n".to_vec();
        file.extend([128, 64, 0, 129, 0, 0, 0, 0]);
        let img = parse_hdr(&file).unwrap();
        assert_eq!((img.width, img.height), (2, 1));
        assert_eq!(img.texels[0], [1.0, 0.5, 0.0]);
        assert_eq!(img.texels[1], [0.0; 3]);
    }

    #[test]
    fn garbage_is_an_error() {
        assert!(parse_hdr(b"").is_err());
        assert!(parse_hdr(b"#?RADIANCE\n\n-Y 99999 +X 99999\n").is_err());
        assert!(parse_hdr(b"#?RADIANCE\n\n-Y 2 +X 2\n\x01").is_err());
    }
}
