//! Texture and sampler descriptions, and the regions operations address.

use crate::TextureFormat;

bitflags::bitflags! {
    /// What a texture may be used for. An operation that needs a usage the texture was not
    /// created with is refused by the validation layer (and by backends whose API requires it).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct TextureUsages: u32 {
        /// Sampled by shaders.
        const SAMPLED = 1 << 0;
        /// A colour or depth-stencil attachment of a pass.
        const RENDER_ATTACHMENT = 1 << 1;
        /// The source of a copy or a readback.
        const COPY_SRC = 1 << 2;
        /// The destination of a copy or an upload.
        const COPY_DST = 1 << 3;
    }
}

/// The shape of a texture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureDimension {
    /// One 2D image (per mip level).
    D2,
    /// An array of 2D images.
    D2Array,
    /// Six square faces in the order +X, −X, +Y, −Y, +Z, −Z (array layers 0–5).
    Cube,
}

/// How to create a texture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextureDescriptor {
    /// A name for logs and errors.
    pub label: String,
    /// Width of mip level 0, in texels.
    pub width: u32,
    /// Height of mip level 0, in texels.
    pub height: u32,
    /// Array layers: 1 for [`TextureDimension::D2`], 6 for a cube.
    pub array_layers: u32,
    /// Mip levels, at least 1 and at most [`TextureDescriptor::max_mips`].
    pub mip_level_count: u32,
    /// Samples per texel: 1, or 4 with [`MSAA`](crate::DeviceFeature::MSAA).
    pub sample_count: u32,
    /// 2D, array or cube.
    pub dimension: TextureDimension,
    /// The texel format.
    pub format: TextureFormat,
    /// What the texture may be used for.
    pub usage: TextureUsages,
}

impl TextureDescriptor {
    /// A single-level 2D texture usable for everything but multisampling: the common case in
    /// tests and tools.
    pub fn new_2d(label: impl Into<String>, width: u32, height: u32, format: TextureFormat) -> Self {
        Self {
            label: label.into(),
            width,
            height,
            array_layers: 1,
            mip_level_count: 1,
            sample_count: 1,
            dimension: TextureDimension::D2,
            format,
            usage: TextureUsages::all(),
        }
    }

    /// A cube map with `size`×`size` faces.
    pub fn new_cube(label: impl Into<String>, size: u32, format: TextureFormat) -> Self {
        Self { array_layers: 6, dimension: TextureDimension::Cube, ..Self::new_2d(label, size, size, format) }
    }

    /// The same description with `mip_level_count` levels.
    pub fn with_mips(mut self, mip_level_count: u32) -> Self {
        self.mip_level_count = mip_level_count;
        self
    }

    /// The same description with these usages.
    pub fn with_usage(mut self, usage: TextureUsages) -> Self {
        self.usage = usage;
        self
    }

    /// The same description with `sample_count` samples.
    pub fn with_samples(mut self, sample_count: u32) -> Self {
        self.sample_count = sample_count;
        self
    }

    /// The most mip levels a texture of this size can have.
    pub fn max_mips(&self) -> u32 {
        32 - self.width.max(self.height).max(1).leading_zeros()
    }

    /// Width and height of mip `level` (never below 1).
    pub fn level_size(&self, level: u32) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// Bytes the whole texture takes, tightly packed, all levels and layers.
    pub fn total_bytes(&self) -> u64 {
        (0..self.mip_level_count)
            .map(|l| {
                let (w, h) = self.level_size(l);
                self.format.image_bytes(w, h)
            })
            .sum::<u64>()
            * u64::from(self.array_layers)
            * u64::from(self.sample_count)
    }
}

/// A rectangle of one mip level of one layer: what uploads, copies and readbacks address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TextureRegion {
    /// The mip level.
    pub mip_level: u32,
    /// The array layer (cube face).
    pub layer: u32,
    /// Left edge, in texels of that level.
    pub x: u32,
    /// Top edge, in texels of that level: row 0 is the top row, on every backend.
    pub y: u32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

impl TextureRegion {
    /// All of mip `level` of layer `layer`.
    pub fn level(desc: &TextureDescriptor, mip_level: u32, layer: u32) -> Self {
        let (width, height) = desc.level_size(mip_level);
        Self { mip_level, layer, x: 0, y: 0, width, height }
    }

    /// All of level 0, layer 0.
    pub fn full(desc: &TextureDescriptor) -> Self {
        Self::level(desc, 0, 0)
    }

    /// A rectangle of level 0, layer 0.
    pub fn rect(x: u32, y: u32, width: u32, height: u32) -> Self {
        Self { mip_level: 0, layer: 0, x, y, width, height }
    }

    /// The same rectangle on another level and layer.
    pub fn on(mut self, mip_level: u32, layer: u32) -> Self {
        self.mip_level = mip_level;
        self.layer = layer;
        self
    }

    /// Whether the region lies inside `desc` (level, layer and rectangle).
    pub fn fits(&self, desc: &TextureDescriptor) -> bool {
        if self.mip_level >= desc.mip_level_count || self.layer >= desc.array_layers {
            return false;
        }
        let (w, h) = desc.level_size(self.mip_level);
        u64::from(self.x) + u64::from(self.width) <= u64::from(w)
            && u64::from(self.y) + u64::from(self.height) <= u64::from(h)
    }
}

/// What happens to coordinates outside `[0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AddressMode {
    /// Clamp to the edge texel.
    #[default]
    ClampToEdge,
    /// Repeat the texture.
    Repeat,
    /// Repeat, mirrored every other time.
    MirrorRepeat,
}

/// Nearest or linear filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FilterMode {
    /// The nearest texel (or level).
    #[default]
    Nearest,
    /// A weighted blend of the nearest texels (or levels).
    Linear,
}

/// A comparison, used by depth tests, stencil tests and comparison samplers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareFunction {
    /// Never passes.
    Never,
    /// Passes when the new value is less.
    Less,
    /// Passes when equal.
    Equal,
    /// Passes when less or equal.
    LessEqual,
    /// Passes when greater.
    Greater,
    /// Passes when not equal.
    NotEqual,
    /// Passes when greater or equal.
    GreaterEqual,
    /// Always passes.
    Always,
}

impl CompareFunction {
    /// Every function, for checks that try them all.
    pub const ALL: [CompareFunction; 8] = [
        Self::Never,
        Self::Less,
        Self::Equal,
        Self::LessEqual,
        Self::Greater,
        Self::NotEqual,
        Self::GreaterEqual,
        Self::Always,
    ];

    /// Whether `new` passes against `stored`: the reference arithmetic every backend matches.
    pub fn passes<T: PartialOrd>(self, new: T, stored: T) -> bool {
        match self {
            Self::Never => false,
            Self::Less => new < stored,
            Self::Equal => new == stored,
            Self::LessEqual => new <= stored,
            Self::Greater => new > stored,
            Self::NotEqual => new != stored,
            Self::GreaterEqual => new >= stored,
            Self::Always => true,
        }
    }
}

/// How to create a sampler.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerDescriptor {
    /// A name for logs and errors.
    pub label: String,
    /// Addressing along u, v and w.
    pub address_mode: [AddressMode; 3],
    /// Filter when magnifying.
    pub mag_filter: FilterMode,
    /// Filter when minifying.
    pub min_filter: FilterMode,
    /// Filter between mip levels.
    pub mipmap_filter: FilterMode,
    /// Smallest level of detail used.
    pub lod_min_clamp: f32,
    /// Largest level of detail used.
    pub lod_max_clamp: f32,
    /// A comparison sampler for depth textures (`textureSampleCompare`).
    pub compare: Option<CompareFunction>,
    /// Anisotropy; clamped to the device's `max_sampler_anisotropy`, never refused.
    pub max_anisotropy: u16,
}

impl Default for SamplerDescriptor {
    fn default() -> Self {
        Self {
            label: String::new(),
            address_mode: [AddressMode::ClampToEdge; 3],
            mag_filter: FilterMode::Nearest,
            min_filter: FilterMode::Nearest,
            mipmap_filter: FilterMode::Nearest,
            lod_min_clamp: 0.0,
            lod_max_clamp: 32.0,
            compare: None,
            max_anisotropy: 1,
        }
    }
}

impl SamplerDescriptor {
    /// Trilinear filtering with the given addressing on every axis.
    pub fn linear(address: AddressMode) -> Self {
        Self {
            address_mode: [address; 3],
            mag_filter: FilterMode::Linear,
            min_filter: FilterMode::Linear,
            mipmap_filter: FilterMode::Linear,
            ..Self::default()
        }
    }

    /// Nearest filtering with the given addressing on every axis.
    pub fn nearest(address: AddressMode) -> Self {
        Self { address_mode: [address; 3], ..Self::default() }
    }
}
