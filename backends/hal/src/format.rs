//! Texture formats and the one table of facts about them.
//!
//! Every fact about a format (its block size, its sRGB twin, which aspects it has, whether it
//! can be rendered to, filtered or blended) comes from [`TextureFormat::facts`], and nowhere
//! else. What a *device* can do with a format is a separate question, answered by
//! [`GraphicsDevice::texture_format_support`](crate::GraphicsDevice::texture_format_support).

use std::fmt;

/// What a texel of a format holds, as a shader sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleKind {
    /// Floating point (float, unorm, snorm): filterable in principle.
    Float,
    /// Unsigned integers, never filtered.
    Uint,
    /// Signed integers, never filtered.
    Sint,
    /// Depth values, sampled as floats or compared.
    Depth,
}

/// Which parts of a texel a format has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormatAspects {
    /// Colour channels only.
    Color,
    /// Depth only.
    Depth,
    /// Depth and stencil.
    DepthStencil,
}

/// Facts about a format that hold on every device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatFacts {
    /// Bytes per block (per texel for uncompressed formats). For packed depth formats this is
    /// the size a readback or upload would use.
    pub block_bytes: u32,
    /// Width and height of a block in texels (1×1 unless compressed).
    pub block_size: (u32, u32),
    /// Number of channels a shader reads.
    pub components: u32,
    /// How a shader reads it.
    pub sample_kind: SampleKind,
    /// Colour, depth or depth-stencil.
    pub aspects: FormatAspects,
    /// The format with the same bits and the other transfer function, if any.
    pub srgb_twin: Option<TextureFormat>,
    /// Whether the format stores sRGB-encoded colour (decoded on sampling, encoded on write).
    pub srgb: bool,
    /// Whether it can be a render attachment in principle.
    pub renderable: bool,
    /// Whether linear filtering is allowed in principle (32-bit floats need
    /// [`FLOAT32_FILTERABLE`](crate::DeviceFeature::FLOAT32_FILTERABLE)).
    pub filterable: bool,
    /// Whether blending is allowed in principle.
    pub blendable: bool,
    /// Whether it is block-compressed (needs
    /// [`TEXTURE_COMPRESSION_BC`](crate::DeviceFeature::TEXTURE_COMPRESSION_BC)).
    pub compressed: bool,
}

macro_rules! formats {
    ($($(#[$doc:meta])* $name:ident => $facts:expr,)*) => {
        /// The texture formats f3d knows. Facts about each: [`TextureFormat::facts`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum TextureFormat {
            $($(#[$doc])* $name,)*
        }

        impl TextureFormat {
            /// Every format, in declaration order.
            pub const ALL: &'static [TextureFormat] = &[$(TextureFormat::$name,)*];

            /// The one table of facts about this format.
            pub const fn facts(self) -> FormatFacts {
                match self {
                    $(TextureFormat::$name => $facts,)*
                }
            }

            /// The format's name as written in code.
            pub const fn name(self) -> &'static str {
                match self {
                    $(TextureFormat::$name => stringify!($name),)*
                }
            }
        }
    };
}

const fn color(
    block_bytes: u32,
    components: u32,
    sample_kind: SampleKind,
    srgb_twin: Option<TextureFormat>,
    srgb: bool,
) -> FormatFacts {
    let float = matches!(sample_kind, SampleKind::Float);
    FormatFacts {
        block_bytes,
        block_size: (1, 1),
        components,
        sample_kind,
        aspects: FormatAspects::Color,
        srgb_twin,
        srgb,
        renderable: true,
        // 32-bit float channels are filterable only with FLOAT32_FILTERABLE; the table marks
        // them unfilterable and the feature lifts it.
        filterable: float && block_bytes / components < 4,
        blendable: float && block_bytes / components < 4,
        compressed: false,
    }
}

const fn float32(block_bytes: u32, components: u32) -> FormatFacts {
    let mut f = color(block_bytes, components, SampleKind::Float, None, false);
    f.blendable = false;
    f.filterable = false;
    f
}

const fn depth(block_bytes: u32, stencil: bool) -> FormatFacts {
    FormatFacts {
        block_bytes,
        block_size: (1, 1),
        components: 1,
        sample_kind: SampleKind::Depth,
        aspects: if stencil { FormatAspects::DepthStencil } else { FormatAspects::Depth },
        srgb_twin: None,
        srgb: false,
        renderable: true,
        filterable: false,
        blendable: false,
        compressed: false,
    }
}

const fn bc(block_bytes: u32, components: u32, srgb_twin: Option<TextureFormat>, srgb: bool) -> FormatFacts {
    FormatFacts {
        block_bytes,
        block_size: (4, 4),
        components,
        sample_kind: SampleKind::Float,
        aspects: FormatAspects::Color,
        srgb_twin,
        srgb,
        renderable: false,
        filterable: true,
        blendable: false,
        compressed: true,
    }
}

use SampleKind::{Float, Sint, Uint};
use TextureFormat as F;

formats! {
    /// One 8-bit unsigned normalised channel.
    R8Unorm => color(1, 1, Float, None, false),
    /// Two 8-bit unsigned normalised channels.
    Rg8Unorm => color(2, 2, Float, None, false),
    /// Four 8-bit unsigned normalised channels, linear.
    Rgba8Unorm => color(4, 4, Float, Some(F::Rgba8UnormSrgb), false),
    /// Four 8-bit channels, sRGB-encoded colour and linear alpha.
    Rgba8UnormSrgb => color(4, 4, Float, Some(F::Rgba8Unorm), true),
    /// Four 8-bit channels stored blue first, linear.
    Bgra8Unorm => color(4, 4, Float, Some(F::Bgra8UnormSrgb), false),
    /// Four 8-bit channels stored blue first, sRGB-encoded.
    Bgra8UnormSrgb => color(4, 4, Float, Some(F::Bgra8Unorm), true),
    /// 10-bit RGB and 2-bit alpha, unsigned normalised.
    Rgb10a2Unorm => color(4, 4, Float, None, false),
    /// One 16-bit float channel.
    R16Float => color(2, 1, Float, None, false),
    /// Two 16-bit float channels.
    Rg16Float => color(4, 2, Float, None, false),
    /// Four 16-bit float channels: f3d's HDR scene colour.
    Rgba16Float => color(8, 4, Float, None, false),
    /// One 32-bit float channel.
    R32Float => float32(4, 1),
    /// Two 32-bit float channels.
    Rg32Float => float32(8, 2),
    /// Four 32-bit float channels.
    Rgba32Float => float32(16, 4),
    /// One 32-bit unsigned integer channel (object ids).
    R32Uint => color(4, 1, Uint, None, false),
    /// One 32-bit signed integer channel.
    R32Sint => color(4, 1, Sint, None, false),
    /// Four 32-bit unsigned integer channels.
    Rgba32Uint => color(16, 4, Uint, None, false),
    /// 16-bit unsigned normalised depth.
    Depth16Unorm => depth(2, false),
    /// At least 24 bits of depth; stored and read as 32-bit float by f3d's backends.
    Depth24Plus => depth(4, false),
    /// At least 24 bits of depth and 8 of stencil.
    Depth24PlusStencil8 => depth(4, true),
    /// 32-bit float depth.
    Depth32Float => depth(4, false),
    /// 32-bit float depth and 8-bit stencil.
    Depth32FloatStencil8 => depth(8, true),
    /// BC1 (DXT1): 4×4 blocks of 8 bytes, RGB with 1-bit alpha, linear.
    Bc1RgbaUnorm => bc(8, 4, Some(F::Bc1RgbaUnormSrgb), false),
    /// BC1, sRGB-encoded.
    Bc1RgbaUnormSrgb => bc(8, 4, Some(F::Bc1RgbaUnorm), true),
    /// BC3 (DXT5): 4×4 blocks of 16 bytes, RGBA, linear.
    Bc3RgbaUnorm => bc(16, 4, Some(F::Bc3RgbaUnormSrgb), false),
    /// BC3, sRGB-encoded.
    Bc3RgbaUnormSrgb => bc(16, 4, Some(F::Bc3RgbaUnorm), true),
    /// BC5: two channels (normal maps), 4×4 blocks of 16 bytes.
    Bc5RgUnorm => bc(16, 2, None, false),
    /// BC7: 4×4 blocks of 16 bytes, high-quality RGBA, linear.
    Bc7RgbaUnorm => bc(16, 4, Some(F::Bc7RgbaUnormSrgb), false),
    /// BC7, sRGB-encoded.
    Bc7RgbaUnormSrgb => bc(16, 4, Some(F::Bc7RgbaUnorm), true),
}

impl TextureFormat {
    /// Whether the format has a depth aspect.
    pub const fn has_depth(self) -> bool {
        !matches!(self.facts().aspects, FormatAspects::Color)
    }

    /// Whether the format has a stencil aspect.
    pub const fn has_stencil(self) -> bool {
        matches!(self.facts().aspects, FormatAspects::DepthStencil)
    }

    /// Whether the format is a colour format.
    pub const fn is_color(self) -> bool {
        matches!(self.facts().aspects, FormatAspects::Color)
    }

    /// Whether the format is block-compressed.
    pub const fn is_compressed(self) -> bool {
        self.facts().compressed
    }

    /// Bytes one row of `width` texels takes (whole blocks for compressed formats).
    pub const fn row_bytes(self, width: u32) -> u64 {
        let f = self.facts();
        let blocks = width.div_ceil(f.block_size.0);
        blocks as u64 * f.block_bytes as u64
    }

    /// Bytes a `width`×`height` image takes, tightly packed.
    pub const fn image_bytes(self, width: u32, height: u32) -> u64 {
        let rows = height.div_ceil(self.facts().block_size.1);
        self.row_bytes(width) * rows as u64
    }
}

impl fmt::Display for TextureFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one device can do with one format. Answered by
/// [`GraphicsDevice::texture_format_support`](crate::GraphicsDevice::texture_format_support)
/// for every format, never with an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FormatSupport {
    /// Textures of this format can be created, uploaded and read back where readback allows.
    pub create: bool,
    /// Shaders can sample it.
    pub sampled: bool,
    /// Linear filtering works on it.
    pub filterable: bool,
    /// It can be a render attachment.
    pub renderable: bool,
    /// Blending works when it is an attachment.
    pub blendable: bool,
    /// Multisampled textures of it can be created.
    pub multisample: bool,
}

impl FormatSupport {
    /// Nothing at all: the format cannot even be created.
    pub const NONE: Self = Self {
        create: false,
        sampled: false,
        filterable: false,
        renderable: false,
        blendable: false,
        multisample: false,
    };

    /// What the format allows in principle, given the device's features: the answer a
    /// backend that implements everything the table allows gives.
    pub fn from_facts(format: TextureFormat, features: &crate::DeviceFeatures) -> Self {
        use crate::DeviceFeature as D;
        let f = format.facts();
        if f.compressed && !features.has(D::TEXTURE_COMPRESSION_BC) {
            return Self::NONE;
        }
        if format.has_stencil() && !features.has(D::STENCIL) {
            return Self::NONE;
        }
        let float32 = crate::backend::is_float32(format);
        Self {
            create: true,
            sampled: true,
            filterable: f.filterable || (float32 && features.has(D::FLOAT32_FILTERABLE)),
            renderable: f.renderable,
            blendable: f.blendable,
            multisample: f.renderable
                && !float32
                && features.has(D::MSAA)
                && f.sample_kind != SampleKind::Uint
                && f.sample_kind != SampleKind::Sint,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_twins_point_at_each_other() {
        for &format in TextureFormat::ALL {
            if let Some(twin) = format.facts().srgb_twin {
                assert_eq!(twin.facts().srgb_twin, Some(format), "{format}");
                assert_ne!(twin.facts().srgb, format.facts().srgb, "{format}");
                assert_eq!(twin.facts().block_bytes, format.facts().block_bytes, "{format}");
            }
        }
    }

    #[test]
    fn sizes_count_whole_blocks() {
        assert_eq!(TextureFormat::Rgba8Unorm.image_bytes(3, 2), 24);
        assert_eq!(TextureFormat::Bc1RgbaUnorm.image_bytes(5, 4), 16);
        assert_eq!(TextureFormat::Bc7RgbaUnorm.row_bytes(4), 16);
    }
}
