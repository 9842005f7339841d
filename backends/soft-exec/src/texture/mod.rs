//! Textures and samplers as the executor sees them: views over the device's texel bytes,
//! checked once per draw ([`Program::bind`](super::Program::bind)) and then sampled with
//! WebGPU/Vulkan semantics (`sample.rs`), decoding each format's bytes (`decode.rs`).

mod decode;
mod sample;

use f3d_hal::{AddressMode, CompareFunction, FilterMode, SamplerDescriptor, TextureDimension, TextureFormat};

pub(crate) use decode::Decode;
pub(crate) use sample::{Lod, SampleIn, SampleScratch, load, query, sample};

/// A texture's texels, as the device stores them.
///
/// Plane `(level, layer)` is `planes[level * layers + layer]`: the tightly packed rows of that
/// mip level, top row first, in the format's own byte layout — except depth formats, whose
/// planes always hold one little-endian `f32` per texel. Cube faces are layers 0..6 in the
/// order +X, −X, +Y, −Y, +Z, −Z.
#[derive(Clone, Copy, Debug)]
pub struct TextureView<'a> {
    /// The texture's format.
    pub format: TextureFormat,
    /// 2D, 2D array or cube.
    pub dimension: TextureDimension,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Mip levels (at least 1).
    pub mip_levels: u32,
    /// Array layers (1 for 2D, 6 for a cube).
    pub layers: u32,
    /// The planes, level-major.
    pub planes: &'a [&'a [u8]],
}

/// A resource given to [`Program::bind`](super::Program::bind), in the order of
/// [`Interface::resources`](super::Interface::resources).
#[derive(Clone, Copy, Debug)]
pub enum Resource<'a> {
    /// A uniform block's bytes, laid out as naga's layouter lays out the block's type (at
    /// least the block's size).
    UniformBlock(&'a [u8]),
    /// A read-only storage buffer's bytes, laid out as naga's layouter lays out the buffer's
    /// type (WGSL's storage layout), at least
    /// [`ResourceKind::StorageBuffer`](super::ResourceKind::StorageBuffer)'s `min_size`. A
    /// runtime-sized array at its end has as many elements as fit in the bytes past its
    /// offset (what `arrayLength` returns).
    StorageBuffer(&'a [u8]),
    /// A sampled texture.
    Texture(TextureView<'a>),
    /// A sampler.
    Sampler(&'a SamplerDescriptor),
}

/// One mip level's size, ready for sampling.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Level {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// A texture checked against its view's promises.
#[derive(Clone, Debug)]
pub(crate) struct BoundTexture<'a> {
    pub(crate) decode: Decode,
    pub(crate) bytes_per_texel: usize,
    pub(crate) dimension: TextureDimension,
    pub(crate) layers: u32,
    pub(crate) levels: Vec<Level>,
    pub(crate) planes: &'a [&'a [u8]],
}

impl<'a> BoundTexture<'a> {
    /// Checks `view` and prepares it; the error says what is wrong.
    pub(crate) fn new(view: &TextureView<'a>) -> Result<Self, String> {
        let decode = Decode::of(view.format)
            .ok_or_else(|| format!("the soft executor cannot sample {} textures", view.format))?;
        if view.width == 0 || view.height == 0 || view.mip_levels == 0 || view.layers == 0 {
            return Err("a texture with no texels".into());
        }
        if view.mip_levels > 32 {
            return Err(format!("{} mip levels (at most 32)", view.mip_levels));
        }
        if u64::from(view.width) * u64::from(view.height) * 16 >= 1 << 31 {
            return Err(format!(
                "{}x{} texels (the soft executor addresses at most 2 GiB per plane)",
                view.width, view.height
            ));
        }
        let expect_layers_ok = match view.dimension {
            TextureDimension::D2 => view.layers == 1,
            TextureDimension::Cube => view.layers == 6,
            TextureDimension::D2Array => true,
        };
        if !expect_layers_ok {
            return Err(format!("a {:?} texture with {} layers", view.dimension, view.layers));
        }
        let planes = u64::from(view.mip_levels) * u64::from(view.layers);
        if view.planes.len() as u64 != planes {
            return Err(format!(
                "{} planes given, {} levels x {} layers need {planes}",
                view.planes.len(),
                view.mip_levels,
                view.layers
            ));
        }
        let bytes_per_texel = decode.bytes_per_texel();
        let mut levels = Vec::with_capacity(view.mip_levels as usize);
        for level in 0..view.mip_levels {
            let (w, h) = ((view.width >> level).max(1), (view.height >> level).max(1));
            let need = u64::from(w) * u64::from(h) * bytes_per_texel as u64;
            for layer in 0..view.layers {
                let plane = view.planes[(level * view.layers + layer) as usize];
                if (plane.len() as u64) < need {
                    return Err(format!(
                        "plane of level {level}, layer {layer} holds {} bytes, {w}x{h} texels need {need}",
                        plane.len()
                    ));
                }
            }
            levels.push(Level { width: w, height: h });
        }
        Ok(Self {
            decode,
            bytes_per_texel,
            dimension: view.dimension,
            layers: view.layers,
            levels,
            planes: view.planes,
        })
    }

    /// The plane of `level` and `layer` (both in range).
    #[inline(always)]
    pub(crate) fn plane(&self, level: u32, layer: u32) -> &'a [u8] {
        self.planes.get((level * self.layers + layer) as usize).copied().unwrap_or(&[])
    }
}

/// A sampler, copied out of its descriptor.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundSampler {
    pub(crate) address: [AddressMode; 3],
    pub(crate) mag_linear: bool,
    pub(crate) min_linear: bool,
    pub(crate) mip_linear: bool,
    pub(crate) lod_min: f32,
    pub(crate) lod_max: f32,
    pub(crate) compare: Option<CompareFunction>,
}

impl BoundSampler {
    pub(crate) fn new(desc: &SamplerDescriptor) -> Self {
        Self {
            address: desc.address_mode,
            mag_linear: desc.mag_filter == FilterMode::Linear,
            min_linear: desc.min_filter == FilterMode::Linear,
            mip_linear: desc.mipmap_filter == FilterMode::Linear,
            lod_min: desc.lod_min_clamp.max(0.0),
            lod_max: desc.lod_max_clamp.max(desc.lod_min_clamp.max(0.0)),
            compare: desc.compare,
        }
    }
}

/// A bound resource.
#[derive(Clone, Debug)]
pub(crate) enum Bound<'a> {
    /// A uniform block's or a read-only storage buffer's bytes (both are read the same way).
    Uniform(&'a [u8]),
    Texture(BoundTexture<'a>),
    Sampler(BoundSampler),
}

/// The resources of one draw, checked against a program's interface by
/// [`Program::bind`](super::Program::bind). Made once per draw (it allocates a little);
/// running batches with it allocates nothing.
#[derive(Clone, Debug)]
pub struct Bindings<'a> {
    pub(crate) slots: Vec<Bound<'a>>,
}

impl<'a> Bindings<'a> {
    /// The bytes of uniform block or storage buffer `res` (empty for anything else).
    pub(crate) fn uniform(&self, res: u16) -> &'a [u8] {
        match self.slots.get(usize::from(res)) {
            Some(Bound::Uniform(b)) => b,
            _ => &[],
        }
    }

    pub(crate) fn texture(&self, res: u16) -> Option<&BoundTexture<'a>> {
        match self.slots.get(usize::from(res)) {
            Some(Bound::Texture(t)) => Some(t),
            _ => None,
        }
    }

    pub(crate) fn sampler(&self, res: u16) -> Option<&BoundSampler> {
        match self.slots.get(usize::from(res)) {
            Some(Bound::Sampler(s)) => Some(s),
            _ => None,
        }
    }
}
