//! Capabilities: the open set of [`DeviceFeature`]s and the numeric [`DeviceLimits`].

use std::collections::BTreeSet;
use std::fmt;

/// One optional capability of a device, named.
///
/// An open newtype rather than an enum: a backend or a later version of the HAL may name
/// features this list does not know, and every backend keeps compiling. Compare features by
/// name; the constants below are the ones the HAL itself gates.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceFeature(&'static str);

impl DeviceFeature {
    /// Compute pipelines and dispatches.
    pub const COMPUTE: Self = Self("compute");
    /// Geometry buffers made with [`STORAGE`](crate::GeometryUsages::STORAGE): read by
    /// vertex and fragment stages (`var<storage, read>`, bound with
    /// [`bind_storage_buffer_at`](crate::PassEncoder::bind_storage_buffer_at)), read and
    /// written by compute (with [`COMPUTE`](Self::COMPUTE)), and read back with
    /// `read_geometry`.
    pub const STORAGE_BUFFERS: Self = Self("storage-buffers");
    /// GPU timestamps written into a query set.
    pub const TIMESTAMP_QUERY: Self = Self("timestamp-query");
    /// Occlusion queries counting the samples that passed depth and stencil.
    pub const OCCLUSION_QUERY: Self = Self("occlusion-query");
    /// Draws whose arguments come from a geometry buffer.
    pub const INDIRECT_DRAW: Self = Self("indirect-draw");
    /// Several indirect draws in one call.
    pub const MULTI_DRAW_INDIRECT: Self = Self("multi-draw-indirect");
    /// Multisampled render targets (sample count above one).
    pub const MSAA: Self = Self("msaa");
    /// Polygon mode line or point (wireframe).
    pub const WIREFRAME: Self = Self("wireframe");
    /// A blend constant set per pass (`BlendFactor::Constant`).
    pub const BLEND_CONSTANT: Self = Self("blend-constant");
    /// Rendering several views (array layers) in one pass.
    pub const MULTIVIEW: Self = Self("multiview");
    /// Turning off depth clipping (depth clamp instead of clip).
    pub const DEPTH_CLIP_CONTROL: Self = Self("depth-clip-control");
    /// BC1–BC7 block-compressed textures.
    pub const TEXTURE_COMPRESSION_BC: Self = Self("texture-compression-bc");
    /// Linear filtering of 32-bit float textures.
    pub const FLOAT32_FILTERABLE: Self = Self("float32-filterable");
    /// Texture-to-texture copies.
    pub const COPY_TEXTURE: Self = Self("copy-texture");
    /// Draws with more than one instance.
    pub const INSTANCING: Self = Self("instancing");
    /// Stencil aspects in depth-stencil formats and the stencil test.
    pub const STENCIL: Self = Self("stencil");
    /// Showing frames in a window ([`GraphicsDevice::create_surface`](crate::GraphicsDevice::create_surface)).
    pub const PRESENT: Self = Self("present");

    /// Every feature the HAL itself gates, in a fixed order (the capability tier probes each).
    pub const ALL: &'static [Self] = &[
        Self::COMPUTE,
        Self::STORAGE_BUFFERS,
        Self::TIMESTAMP_QUERY,
        Self::OCCLUSION_QUERY,
        Self::INDIRECT_DRAW,
        Self::MULTI_DRAW_INDIRECT,
        Self::MSAA,
        Self::WIREFRAME,
        Self::BLEND_CONSTANT,
        Self::MULTIVIEW,
        Self::DEPTH_CLIP_CONTROL,
        Self::TEXTURE_COMPRESSION_BC,
        Self::FLOAT32_FILTERABLE,
        Self::COPY_TEXTURE,
        Self::INSTANCING,
        Self::STENCIL,
        Self::PRESENT,
    ];

    /// A feature with a name of its own, for backends and extensions beyond the HAL's list.
    /// Names are lower-case words joined by `-`, like the constants.
    pub const fn new(name: &'static str) -> Self {
        Self(name)
    }

    /// The feature's name, as errors print it.
    pub const fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Debug for DeviceFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceFeature({})", self.0)
    }
}

impl fmt::Display for DeviceFeature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The set of features a device reports (and honours).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct DeviceFeatures(BTreeSet<DeviceFeature>);

impl DeviceFeatures {
    /// No features.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Whether `feature` is in the set.
    pub fn has(&self, feature: DeviceFeature) -> bool {
        self.0.contains(&feature)
    }

    /// Adds `feature`.
    pub fn insert(&mut self, feature: DeviceFeature) {
        self.0.insert(feature);
    }

    /// The set with `feature` added, for building sets in one expression.
    pub fn with(mut self, feature: DeviceFeature) -> Self {
        self.insert(feature);
        self
    }

    /// Removes `feature`.
    pub fn remove(&mut self, feature: DeviceFeature) {
        self.0.remove(&feature);
    }

    /// Every feature in the set, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = DeviceFeature> + '_ {
        self.0.iter().copied()
    }

    /// The features of `self` that `other` lacks.
    pub fn missing_from<'a>(&'a self, other: &'a DeviceFeatures) -> impl Iterator<Item = DeviceFeature> + 'a {
        self.0.iter().copied().filter(|f| !other.has(*f))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<DeviceFeature> for DeviceFeatures {
    fn from_iter<I: IntoIterator<Item = DeviceFeature>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

impl fmt::Debug for DeviceFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.iter().map(|x| x.0)).finish()
    }
}

/// Numeric limits of a device. Every limit is "at most"; [`DeviceLimits::GUARANTEED`] is
/// what every f3d device promises, so code that stays inside it runs anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Largest width or height of a 2D texture (and of a cube face).
    pub max_texture_dimension_2d: u32,
    /// Most array layers in a texture (a cube counts six).
    pub max_texture_array_layers: u32,
    /// Largest uniform block a shader may declare, in bytes.
    pub max_uniform_block_size: u32,
    /// Most uniform blocks one pipeline may bind, its stages together (the GPU backends bind
    /// uniform blocks with dynamic offsets, which Vulkan and wgpu count per pipeline layout).
    pub max_uniform_blocks_per_stage: u32,
    /// Most sampled textures one shader stage may bind.
    pub max_sampled_textures_per_stage: u32,
    /// Most samplers one shader stage may bind.
    pub max_samplers_per_stage: u32,
    /// Most vertex attributes a pipeline may read.
    pub max_vertex_attributes: u32,
    /// Most vertex buffers a pipeline may read.
    pub max_vertex_buffers: u32,
    /// Largest vertex stride, in bytes.
    pub max_vertex_stride: u32,
    /// Most colour attachments in one pass.
    pub max_color_attachments: u32,
    /// Largest sampler anisotropy; larger requests are clamped to it, never refused.
    pub max_sampler_anisotropy: u16,
    /// Largest geometry buffer, in bytes.
    pub max_geometry_buffer_size: u64,
}

impl DeviceLimits {
    /// What every f3d device offers at least (close to WebGPU's and GLES 3's minimums).
    pub const GUARANTEED: Self = Self {
        max_texture_dimension_2d: 4096,
        max_texture_array_layers: 256,
        max_uniform_block_size: 16384,
        max_uniform_blocks_per_stage: 8,
        max_sampled_textures_per_stage: 16,
        max_samplers_per_stage: 16,
        max_vertex_attributes: 16,
        max_vertex_buffers: 8,
        max_vertex_stride: 2048,
        max_color_attachments: 4,
        max_sampler_anisotropy: 1,
        max_geometry_buffer_size: 256 << 20,
    };

    /// The most bindings of one kind (uniform blocks, sampled textures, samplers) per stage that
    /// a device reports: hardware that allows more (NVIDIA's Vulkan driver reports a million
    /// sampled images per stage) is reported at this, and held to it, so every reported
    /// binding limit is one the conformance suite draws at and one past.
    pub const MAX_BINDINGS_PER_STAGE: u32 = 64;

    /// The largest uniform block a device reports (64 KiB, what desktop drivers allow).
    pub const MAX_UNIFORM_BLOCK_SIZE: u32 = 65536;

    /// These limits with the binding limits held to [`Self::MAX_BINDINGS_PER_STAGE`] and
    /// [`Self::MAX_UNIFORM_BLOCK_SIZE`]; GPU backends report their API's limits through this.
    #[must_use]
    pub fn within_reported_caps(self) -> Self {
        let per_stage = Self::MAX_BINDINGS_PER_STAGE;
        Self {
            max_uniform_block_size: self.max_uniform_block_size.min(Self::MAX_UNIFORM_BLOCK_SIZE),
            max_uniform_blocks_per_stage: self.max_uniform_blocks_per_stage.min(per_stage),
            max_sampled_textures_per_stage: self.max_sampled_textures_per_stage.min(per_stage),
            max_samplers_per_stage: self.max_samplers_per_stage.min(per_stage),
            ..self
        }
    }

    /// The first limit of `self` that `device` does not reach, as `(name, wanted, offered)`.
    pub fn first_unmet_by(&self, device: &DeviceLimits) -> Option<(&'static str, u64, u64)> {
        let pairs: [(&'static str, u64, u64); 12] = [
            (
                "max_texture_dimension_2d",
                self.max_texture_dimension_2d.into(),
                device.max_texture_dimension_2d.into(),
            ),
            (
                "max_texture_array_layers",
                self.max_texture_array_layers.into(),
                device.max_texture_array_layers.into(),
            ),
            (
                "max_uniform_block_size",
                self.max_uniform_block_size.into(),
                device.max_uniform_block_size.into(),
            ),
            (
                "max_uniform_blocks_per_stage",
                self.max_uniform_blocks_per_stage.into(),
                device.max_uniform_blocks_per_stage.into(),
            ),
            (
                "max_sampled_textures_per_stage",
                self.max_sampled_textures_per_stage.into(),
                device.max_sampled_textures_per_stage.into(),
            ),
            (
                "max_samplers_per_stage",
                self.max_samplers_per_stage.into(),
                device.max_samplers_per_stage.into(),
            ),
            ("max_vertex_attributes", self.max_vertex_attributes.into(), device.max_vertex_attributes.into()),
            ("max_vertex_buffers", self.max_vertex_buffers.into(), device.max_vertex_buffers.into()),
            ("max_vertex_stride", self.max_vertex_stride.into(), device.max_vertex_stride.into()),
            ("max_color_attachments", self.max_color_attachments.into(), device.max_color_attachments.into()),
            (
                "max_sampler_anisotropy",
                self.max_sampler_anisotropy.into(),
                device.max_sampler_anisotropy.into(),
            ),
            ("max_geometry_buffer_size", self.max_geometry_buffer_size, device.max_geometry_buffer_size),
        ];
        pairs.into_iter().find(|(_, wanted, offered)| wanted > offered)
    }
}

impl Default for DeviceLimits {
    fn default() -> Self {
        Self::GUARANTEED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_names_are_unique() {
        let set: BTreeSet<_> = DeviceFeature::ALL.iter().map(|f| f.name()).collect();
        assert_eq!(set.len(), DeviceFeature::ALL.len());
    }

    #[test]
    fn limits_compare_field_by_field() {
        let mut wanted = DeviceLimits::GUARANTEED;
        assert_eq!(wanted.first_unmet_by(&DeviceLimits::GUARANTEED), None);
        wanted.max_color_attachments = 9;
        assert_eq!(wanted.first_unmet_by(&DeviceLimits::GUARANTEED), Some(("max_color_attachments", 9, 4)));
    }
}
