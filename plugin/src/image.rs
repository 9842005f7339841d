//! Images are bevy_image's [`Image`](bevy_image::Image) (loaded by the `AssetServer` from PNG,
//! JPEG, HDR or KTX2, or built by hand). The render world takes each one as an [`ImageData`]:
//! RGBA8, sRGB or linear as the image's format says, its first level (f3d makes its own mips)
//! and its first layer — or all six, when it is a cube image (six square layers that Bevy views
//! as a cube: `texture_view_descriptor` with `TextureViewDimension::Cube`, as bevy_image's KTX2
//! loader and `reinterpret_stacked_2d_as_array(6)` plus that view make), which feeds
//! `TextureCube` material parameters. Formats that are not RGBA8 are converted: `R8`/`Rg8` expand to grey,
//! `Bgra8` is swizzled, half and full floats are clamped to 0–1 (linear). Block-compressed
//! formats and images without data in the main world are refused with an error naming the
//! format.

use wgpu_types::TextureFormat;

/// How an image's bytes are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// RGBA8 holding sRGB-encoded colour (base colour, emissive): decoded to linear on sampling.
    Rgba8Srgb,
    /// RGBA8 holding linear data (normal maps, metallic-roughness, masks).
    Rgba8Linear,
}

/// An RGBA8 image as the render world uploads it, rows from the top. Mipmaps are generated at
/// upload.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageData {
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// How the bytes are read.
    pub format: ImageFormat,
    /// `width * height * 4` bytes.
    pub data: Vec<u8>,
    /// A camera may draw into it (Bevy's `RENDER_ATTACHMENT` usage, as
    /// `Image::new_target_texture` sets): uploaded as one level a pass can write, with no
    /// mip chain.
    pub render_target: bool,
    /// A cube image: `data` holds six square faces one after another, in the order +X, −X,
    /// +Y, −Y, +Z, −Z (the layer order of wgpu and Vulkan cube textures).
    pub cube: bool,
}

/// The largest side f3d uploads (texels): what every backend's 2D textures take.
pub const MAX_IMAGE_SIDE: u32 = 8192;

impl ImageData {
    /// The image as f3d uploads it (see the module docs), or why it cannot be.
    pub fn from_bevy(image: &bevy_image::Image) -> Result<Self, String> {
        let desc = &image.texture_descriptor;
        let (width, height) = (desc.size.width, desc.size.height);
        if width == 0 || height == 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
            return Err(format!("{width}x{height} texels (1 to {MAX_IMAGE_SIDE} a side)"));
        }
        let data = image.data.as_deref().ok_or("the image has no data in the main world")?;
        let cube_view = image
            .texture_view_descriptor
            .as_ref()
            .and_then(|v| v.dimension)
            .is_some_and(|d| d == wgpu_types::TextureViewDimension::Cube);
        let cube = cube_view && desc.size.depth_or_array_layers == 6;
        if cube_view && (!cube || width != height) {
            return Err(format!(
                "a cube view of {width}x{height}x{} texels (a cube image is 6 square layers)",
                desc.size.depth_or_array_layers
            ));
        }
        let texels = (width * height) as usize * if cube { 6 } else { 1 };
        let format = desc.format;
        let need = |bytes_per_texel: usize| -> Result<&[u8], String> {
            data.get(..texels * bytes_per_texel)
                .ok_or_else(|| format!("{} bytes for {width}x{height} texels of {format:?}", data.len()))
        };
        let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
        let (out_format, bytes): (ImageFormat, Vec<u8>) = match format {
            TextureFormat::Rgba8UnormSrgb => (ImageFormat::Rgba8Srgb, need(4)?.to_vec()),
            TextureFormat::Rgba8Unorm => (ImageFormat::Rgba8Linear, need(4)?.to_vec()),
            TextureFormat::Bgra8UnormSrgb | TextureFormat::Bgra8Unorm => {
                let swizzled = need(4)?.chunks_exact(4).flat_map(|c| [c[2], c[1], c[0], c[3]]).collect();
                let f = if format.is_srgb() { ImageFormat::Rgba8Srgb } else { ImageFormat::Rgba8Linear };
                (f, swizzled)
            }
            TextureFormat::R8Unorm => {
                (ImageFormat::Rgba8Linear, need(1)?.iter().flat_map(|&v| [v, v, v, 255]).collect())
            }
            TextureFormat::Rg8Unorm => (
                ImageFormat::Rgba8Linear,
                need(2)?.chunks_exact(2).flat_map(|c| [c[0], c[0], c[0], c[1]]).collect(),
            ),
            TextureFormat::Rgba16Float => (
                ImageFormat::Rgba8Linear,
                need(8)?
                    .chunks_exact(2)
                    .map(|c| unorm(half::f16::from_le_bytes([c[0], c[1]]).to_f32()))
                    .collect(),
            ),
            TextureFormat::Rgba32Float => (
                ImageFormat::Rgba8Linear,
                need(16)?
                    .chunks_exact(4)
                    .map(|c| unorm(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                    .collect(),
            ),
            other => return Err(format!("the texture format {other:?} is not one f3d samples")),
        };
        let render_target = desc.usage.contains(wgpu_types::TextureUsages::RENDER_ATTACHMENT);
        Ok(Self { width, height, format: out_format, data: bytes, render_target, cube })
    }

    /// An image of one colour.
    pub fn solid(width: u32, height: u32, rgba: [u8; 4], format: ImageFormat) -> Self {
        Self {
            width,
            height,
            format,
            data: rgba.repeat((width * height) as usize),
            render_target: false,
            cube: false,
        }
    }

    /// A cube image of `size`×`size` faces, each of one colour (in the order +X, −X, +Y, −Y,
    /// +Z, −Z); `.into()` makes it a bevy `Image` viewed as a cube.
    pub fn cube_faces(size: u32, faces: [[u8; 4]; 6], format: ImageFormat) -> Self {
        let data = faces.iter().flat_map(|f| f.repeat((size * size) as usize)).collect();
        Self { width: size, height: size, format, data, render_target: false, cube: true }
    }

    /// A checkerboard of `cells`×`cells` squares of two colours (sRGB); `.into()` makes it a
    /// bevy `Image`.
    pub fn checker(size: u32, cells: u32, a: [u8; 4], b: [u8; 4]) -> Self {
        let cell = (size / cells.max(1)).max(1);
        let mut data = Vec::with_capacity((size * size * 4) as usize);
        for y in 0..size {
            for x in 0..size {
                data.extend_from_slice(if ((x / cell) + (y / cell)).is_multiple_of(2) { &a } else { &b });
            }
        }
        Self {
            width: size,
            height: size,
            format: ImageFormat::Rgba8Srgb,
            data,
            render_target: false,
            cube: false,
        }
    }

    /// Layers: 6 for a cube image, else 1.
    pub fn layers(&self) -> u32 {
        if self.cube { 6 } else { 1 }
    }

    /// Whether the data has the size the dimensions say (and a cube's faces are square).
    pub fn is_valid(&self) -> bool {
        self.width > 0
            && self.height > 0
            && (!self.cube || self.width == self.height)
            && self.data.len() as u64
                == u64::from(self.width) * u64::from(self.height) * 4 * u64::from(self.layers())
    }

    /// The first layer and its mip chain (box-filtered; sRGB images filtered in linear light).
    pub fn mip_chain(&self) -> Vec<(u32, u32, Vec<u8>)> {
        self.layer_mip_chain(0)
    }

    /// Layer `layer` (a cube's face) and its mip chain, as [`mip_chain`](Self::mip_chain).
    pub fn layer_mip_chain(&self, layer: u32) -> Vec<(u32, u32, Vec<u8>)> {
        let face = (self.width * self.height * 4) as usize;
        let start = face * layer as usize;
        let first = self.data.get(start..start + face).map_or_else(Vec::new, <[u8]>::to_vec);
        let mut levels = vec![(self.width, self.height, first)];
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

impl From<ImageData> for bevy_image::Image {
    /// A bevy image of the same texels (`Rgba8UnormSrgb` or `Rgba8Unorm`).
    fn from(image: ImageData) -> Self {
        let format = match image.format {
            ImageFormat::Rgba8Srgb => TextureFormat::Rgba8UnormSrgb,
            ImageFormat::Rgba8Linear => TextureFormat::Rgba8Unorm,
        };
        let cube = image.cube;
        let mut out = bevy_image::Image::new(
            wgpu_types::Extent3d {
                width: image.width,
                height: image.height,
                depth_or_array_layers: image.layers(),
            },
            wgpu_types::TextureDimension::D2,
            image.data,
            format,
            bevy_asset::RenderAssetUsages::default(),
        );
        if cube {
            out.texture_view_descriptor = Some(wgpu_types::TextureViewDescriptor {
                dimension: Some(wgpu_types::TextureViewDimension::Cube),
                ..Default::default()
            });
        }
        out
    }
}
