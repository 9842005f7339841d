//! Images: texture data an app gives to materials.

/// How an image's bytes are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// RGBA8 holding sRGB-encoded colour (base colour, emissive): decoded to linear on sampling.
    Rgba8Srgb,
    /// RGBA8 holding linear data (normal maps, metallic-roughness, masks).
    Rgba8Linear,
}

/// An RGBA8 image, rows from the top. Mipmaps are generated at upload.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// How the bytes are read.
    pub format: ImageFormat,
    /// `width * height * 4` bytes.
    pub data: Vec<u8>,
}

impl Image {
    /// An image of one colour.
    pub fn solid(width: u32, height: u32, rgba: [u8; 4], format: ImageFormat) -> Self {
        Self { width, height, format, data: rgba.repeat((width * height) as usize) }
    }

    /// A checkerboard of `cells`×`cells` squares of two colours (sRGB).
    pub fn checker(size: u32, cells: u32, a: [u8; 4], b: [u8; 4]) -> Self {
        let cell = (size / cells.max(1)).max(1);
        let mut data = Vec::with_capacity((size * size * 4) as usize);
        for y in 0..size {
            for x in 0..size {
                data.extend_from_slice(if ((x / cell) + (y / cell)).is_multiple_of(2) { &a } else { &b });
            }
        }
        Self { width: size, height: size, format: ImageFormat::Rgba8Srgb, data }
    }

    /// Whether the data has the size the dimensions say.
    pub fn is_valid(&self) -> bool {
        self.width > 0
            && self.height > 0
            && self.data.len() as u64 == u64::from(self.width) * u64::from(self.height) * 4
    }

    /// The image and its mip chain (box-filtered; sRGB images filtered in linear light).
    pub fn mip_chain(&self) -> Vec<(u32, u32, Vec<u8>)> {
        let mut levels = vec![(self.width, self.height, self.data.clone())];
        let srgb = self.format == ImageFormat::Rgba8Srgb;
        let decode = |v: u8| -> f32 {
            let f = f32::from(v) / 255.0;
            if srgb { f3d_hal::srgb_to_linear(f64::from(f)) as f32 } else { f }
        };
        let encode = |v: f32| -> u8 {
            let e = if srgb { f3d_hal::linear_to_srgb(f64::from(v)) as f32 } else { v };
            (e.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
        };
        while let Some((w, h, data)) = levels.last() {
            if *w == 1 && *h == 1 {
                break;
            }
            let (nw, nh) = ((*w / 2).max(1), (*h / 2).max(1));
            let mut next = Vec::with_capacity((nw * nh * 4) as usize);
            for y in 0..nh {
                for x in 0..nw {
                    for c in 0..4 {
                        let mut sum = 0.0;
                        let mut n = 0.0;
                        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                            let (sx, sy) = ((x * 2 + dx).min(w - 1), (y * 2 + dy).min(h - 1));
                            let v = data[((sy * w + sx) * 4 + c) as usize];
                            sum += if c == 3 { f32::from(v) / 255.0 } else { decode(v) };
                            n += 1.0;
                        }
                        let avg = sum / n;
                        next.push(if c == 3 { (avg * 255.0 + 0.5) as u8 } else { encode(avg) });
                    }
                }
            }
            levels.push((nw, nh, next));
        }
        levels
    }
}
