//! Prepare: everything the passes need, made ready once per frame.
//!
//! * [`assets`]: meshes and images uploaded when they changed.
//! * [`materials`]: `.ron` and standard materials composed and compiled per variant (cached
//!   per material source), parameter blocks packed.
//! * [`pipelines`]: the pipeline cache, keyed by material source × variant × vertex layout ×
//!   render state; binding slots resolved once per pipeline.
//! * [`view`]: the view and lights uniform blocks, the shadow projection, the environment's
//!   textures (computed on the CPU once per environment).
//! * [`draws`]: instance buffers uploaded for batches that changed, and the per-pass draw
//!   lists (opaque front to back by batch, translucent back to front by instance).
//!
//! The result is one [`PreparedFrame`], shared (`Arc`) with every pass closure.

pub mod assets;
pub mod draws;
pub mod materials;
pub mod pipelines;
pub mod uniforms;
pub mod view;

use std::ops::Range;
use std::sync::Arc;

use f3d_hal::{GeometryBuffer, SamplerHandle, TextureHandle};

pub use assets::{GpuMesh, RenderImages, RenderMeshes};
pub use materials::{GpuMaterial, RenderMaterials};
pub use pipelines::{GpuPipeline, PipelineCache, PipelineSlots};
pub use view::{ViewResources, ViewUniforms};

/// One draw: a batch (or one instance of it) with the pipeline of one pass.
#[derive(Clone)]
pub struct DrawItem {
    /// The pipeline.
    pub pipeline: Arc<GpuPipeline>,
    /// The mesh.
    pub mesh: Arc<GpuMesh>,
    /// The material's parameter block and textures.
    pub material: Arc<BoundMaterial>,
    /// The batch's instance buffer.
    pub instances: GeometryBuffer,
    /// The instances drawn.
    pub instance_range: Range<u32>,
    /// The batch's material slots (one `u32` per instance), when the pipeline reads a material
    /// array.
    pub slots: Option<GeometryBuffer>,
    /// Custom attributes for the material, when it declares any.
    pub custom: Option<GeometryBuffer>,
}

/// How a material table's array is bound.
pub enum BoundArray {
    /// A uniform array's bytes, bound with the pass (empty when the material has no block).
    Uniform(Arc<Vec<u8>>),
    /// A storage table's buffer on the device.
    Storage(GeometryBuffer),
}

/// A material table's values as bound: its material array and one texture per texture
/// parameter.
pub struct BoundMaterial {
    /// The material array as bound (`f3d_materials`).
    pub array: BoundArray,
    /// (parameter name, texture).
    pub textures: Vec<(Arc<str>, TextureHandle)>,
    /// A shader material's uniform blocks: (variable name, bytes).
    pub blocks: Vec<(String, Arc<Vec<u8>>)>,
}

/// What the view binds in every pass: textures and samplers of group 0.
#[derive(Clone)]
pub struct ViewBindings {
    /// The radiance cube (a 1×1 black cube when there is no environment).
    pub environment: TextureHandle,
    /// Its sampler.
    pub environment_sampler: SamplerHandle,
    /// The BRDF LUT.
    pub brdf_lut: TextureHandle,
    /// Its sampler.
    pub brdf_lut_sampler: SamplerHandle,
    /// The shadow comparison sampler.
    pub shadow_sampler: SamplerHandle,
    /// A 1×1 depth texture at the far plane (1.0), bound when there is no shadow map, and as
    /// `scene_depth` when the frame has no scene depth (so it reads as the far plane).
    pub no_shadow_map: TextureHandle,
    /// A 1×1 black texture bound as `scene_color` when the frame has no scene colour (the
    /// snapshot pass is switched off), so `scene_color()` reads black.
    pub no_scene_color: TextureHandle,
    /// The material texture sampler (trilinear, repeat).
    pub material_sampler: SamplerHandle,
    /// The scene colour sampler (linear, clamp).
    pub scene_sampler: SamplerHandle,
}

/// Everything the standard passes draw this frame.
pub struct PreparedFrame {
    /// The target size.
    pub size: (u32, u32),
    /// The scene colour's format (the device's HDR format).
    pub hdr_format: f3d_hal::TextureFormat,
    /// Samples per pixel of the scene colour and depth (1, or 4 with [`Msaa`](crate::camera::Msaa)).
    pub samples: u32,
    /// The `view` block.
    pub view_block: Vec<u8>,
    /// The `lights` block.
    pub lights_block: Vec<u8>,
    /// Group 0 textures and samplers.
    pub bindings: ViewBindings,
    /// Shadow casters (shadow variant), when the directional light casts shadows.
    pub shadow: Vec<DrawItem>,
    /// The shadow map's size, when there is one.
    pub shadow_map_size: Option<u32>,
    /// Opaque draws for the depth prepass.
    pub depth_prepass: Vec<DrawItem>,
    /// Opaque draws, front to back by batch.
    pub opaque: Vec<DrawItem>,
    /// Translucent draws, back to front by instance.
    pub translucent: Vec<DrawItem>,
    /// The skybox pipeline, when there is an environment with a skybox.
    pub skybox: Option<Arc<GpuPipeline>>,
    /// The tonemap pipeline and its block.
    pub tonemap: Option<(Arc<GpuPipeline>, Vec<u8>)>,
    /// Whether a visible material reads the scene colour.
    pub needs_scene_color: bool,
    /// Whether a visible material reads the scene depth.
    pub needs_scene_depth: bool,
    /// The camera's clear colour.
    pub clear_color: [f32; 4],
    /// The depth copy pipeline (scene depth snapshot).
    pub depth_copy: Option<f3d_hal::PipelineHandle>,
}
