//! The pipeline cache: one pipeline per material source × variant × vertex layout × render
//! state, made on first use; binding names resolved to slots once per pipeline.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bevy_ecs::prelude::*;
use f3d_hal::{
    BindingSlot, BlendState, ColorTargetState, ColorWrites, CompareFunction, CullMode, DepthStencilState,
    GraphicsDevice, PipelineDescriptor, PipelineHandle, PrimitiveState, ShaderDescriptor, ShaderStage,
    TextureFormat, ValidatedModule, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};
use f3d_materials::Variant;
use f3d_materials::library::{INSTANCE_LOCATIONS, INSTANCE_MATERIAL_LOCATION};
use rayon::prelude::*;

use super::assets::custom_format;
use super::materials::MaterialShader;
use crate::mesh::ENGINE_VERTEX_STRIDE;
use crate::render::instances::{INSTANCE_STRIDE, SLOT_STRIDE};

/// Binding slots of one pipeline, by what the renderer binds.
#[derive(Clone, Debug, Default)]
pub struct PipelineSlots {
    /// `view`.
    pub view: Option<BindingSlot>,
    /// `lights`.
    pub lights: Option<BindingSlot>,
    /// `shadow_map` and its sampler.
    pub shadow_map: Option<(BindingSlot, Option<BindingSlot>)>,
    /// `environment_radiance` and its sampler.
    pub environment: Option<(BindingSlot, Option<BindingSlot>)>,
    /// `brdf_lut` and its sampler.
    pub brdf_lut: Option<(BindingSlot, Option<BindingSlot>)>,
    /// `scene_color_texture` and its sampler.
    pub scene_color: Option<(BindingSlot, Option<BindingSlot>)>,
    /// `scene_depth_texture`.
    pub scene_depth: Option<BindingSlot>,
    /// The material array (`f3d_materials`), or a single `material_params` block.
    pub material_params: Option<BindingSlot>,
    /// Each material texture: (parameter name, texture slot, sampler slot).
    pub textures: Vec<(String, BindingSlot, Option<BindingSlot>)>,
    /// A shader material's uniform blocks: (variable name, slot).
    pub blocks: Vec<(String, BindingSlot)>,
}

impl PipelineSlots {
    /// Resolves the names the renderer binds on `pipeline`.
    pub fn resolve(pipeline: &PipelineHandle, texture_params: &[String]) -> Self {
        let layout = pipeline.bindings();
        let pair = |name: &str| layout.slot(name).map(|s| (s, layout.slot(&format!("{name}_sampler"))));
        Self {
            view: layout.slot("view"),
            lights: layout.slot("lights"),
            shadow_map: pair("shadow_map"),
            environment: pair("environment_radiance"),
            brdf_lut: pair("brdf_lut"),
            scene_color: pair("scene_color_texture"),
            scene_depth: layout.slot("scene_depth_texture"),
            material_params: layout
                .slot(f3d_materials::layout::MATERIAL_ARRAY_VAR)
                .or_else(|| layout.slot(f3d_materials::layout::MATERIAL_BLOCK_VAR)),
            textures: texture_params
                .iter()
                .filter_map(|n| layout.slot(n).map(|s| (n.clone(), s, layout.slot(&format!("{n}_sampler")))))
                .collect(),
            blocks: Vec::new(),
        }
    }
}

/// A pipeline and its slots.
pub struct GpuPipeline {
    /// The pipeline.
    pub handle: PipelineHandle,
    /// Its binding slots.
    pub slots: PipelineSlots,
    /// Whether it reads each instance's material slot (vertex buffer 2) and the material array.
    pub material_array: bool,
}

/// The fixed-function state of a material pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RenderState {
    /// The colour target and its blending, or none (depth-only passes).
    pub color: Option<(TextureFormat, Option<BlendState>)>,
    /// Depth format, write, compare.
    pub depth: Option<(TextureFormat, bool, CompareFunction)>,
    /// Culling.
    pub cull: CullMode,
    /// Samples per pixel of the pass's attachments (1, or 4 with MSAA).
    pub samples: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct MaterialPipelineKey {
    shader: u64,
    variant: Variant,
    custom: Vec<VertexFormat>,
    state: RenderState,
}

/// (fragment entry point, colour format, depth format, samples).
type LibraryKey = (&'static str, TextureFormat, Option<TextureFormat>, u32);

/// Pipelines made so far.
#[derive(Resource, Default)]
pub struct PipelineCache {
    material: HashMap<MaterialPipelineKey, Option<Arc<GpuPipeline>>>,
    /// The (shader, variant) pairs of `material`'s keys.
    variants: HashSet<(u64, Variant)>,
    library: HashMap<LibraryKey, Option<Arc<GpuPipeline>>>,
}

impl PipelineCache {
    /// How many pipelines were made (or refused).
    pub fn len(&self) -> usize {
        self.material.len() + self.library.len()
    }

    /// Whether none was made.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every pipeline of the material shader `shader` (a version a hot reload
    /// replaced); pipelines of other materials stay.
    pub fn forget_shader(&mut self, shader: u64) {
        self.material.retain(|k, _| k.shader != shader);
        self.variants.retain(|(s, _)| *s != shader);
    }

    /// How many material pipelines (made or refused) the shader `shader` has.
    pub fn pipelines_of(&self, shader: u64) -> usize {
        self.material.keys().filter(|k| k.shader == shader).count()
    }

    /// Whether `shader`'s `variant` has a pipeline (made or refused) for some state.
    pub fn has_variant(&self, shader: u64, variant: Variant) -> bool {
        self.variants.contains(&(shader, variant))
    }

    /// Prepares ([`GraphicsDevice::prepare_shader`]), side by side on rayon's threads, the
    /// shader stages of every `(shader, variant)` in `wanted` that has no pipeline yet, so the
    /// [`material`](Self::material) calls that follow find them compiled (the module keeps
    /// them) and a new or reloaded material waits for its longest stage rather than the sum of
    /// all of them. On a backend that keeps no compiled form this does nothing.
    /// A variant that does not compose is reported once, by [`MaterialShader::variant`]; a
    /// stage the device refuses is compiled again, and reported, by `material`.
    pub fn precompile(&self, device: &dyn GraphicsDevice, wanted: &[(&MaterialShader, Variant)]) {
        let mut listed = HashSet::new();
        let jobs: Vec<(&MaterialShader, Variant)> = wanted
            .iter()
            .filter(|(s, v)| !self.has_variant(s.id, *v) && listed.insert((s.id, *v)))
            .copied()
            .collect();
        if jobs.is_empty() {
            return;
        }
        let stage = |module: Arc<ValidatedModule>, stage, entry: &str| {
            let _ = device.prepare_shader(&ShaderDescriptor {
                label: entry.into(),
                module,
                stage,
                entry_point: entry.into(),
            });
        };
        jobs.par_iter().for_each(|(shader, variant)| {
            let Some(compiled) = shader.variant(*variant) else { return };
            let raw = shader.raw.as_ref().filter(|_| *variant == Variant::Color);
            rayon::join(
                || stage(compiled.module.clone(), ShaderStage::Vertex, compiled.vertex_entry),
                || match raw {
                    Some(raw) => stage(raw.module().clone(), ShaderStage::Fragment, raw.entry_point()),
                    None => stage(compiled.module.clone(), ShaderStage::Fragment, compiled.fragment_entry),
                },
            );
        });
    }

    /// The pipeline of `shader`'s `variant` with this state; `None` when the material does
    /// not compile or the device refuses (reported once).
    pub fn material(
        &mut self,
        device: &dyn GraphicsDevice,
        shader: &MaterialShader,
        variant: Variant,
        state: RenderState,
    ) -> Option<Arc<GpuPipeline>> {
        let attributes = shader.attributes();
        let custom: Vec<VertexFormat> = attributes.iter().map(|(_, t)| custom_format(*t)).collect();
        let key = MaterialPipelineKey { shader: shader.id, variant, custom, state };
        if let Some(p) = self.material.get(&key) {
            return p.clone();
        }
        let made = make_material_pipeline(device, shader, &key).map_err(|e| {
            bevy_log::error!(
                "no pipeline for material `{}` ({} variant): {e}",
                shader.loaded.desc.name,
                variant.name()
            );
        });
        let p = made.ok().map(Arc::new);
        self.variants.insert((key.shader, key.variant));
        self.material.insert(key, p.clone());
        p
    }

    /// A full-screen library pipeline (`skybox.wgsl`, `tonemap.wgsl`) drawing into `color`
    /// (and testing `depth`) with `samples` per pixel.
    pub fn library(
        &mut self,
        device: &dyn GraphicsDevice,
        module: &Arc<ValidatedModule>,
        entry: (&'static str, &'static str),
        color: TextureFormat,
        depth: Option<TextureFormat>,
        samples: u32,
    ) -> Option<Arc<GpuPipeline>> {
        let key = (entry.1, color, depth, samples);
        if let Some(p) = self.library.get(&key) {
            return p.clone();
        }
        let made = (|| -> Result<GpuPipeline, String> {
            let shader = |stage, name: &str| {
                device
                    .create_shader(&ShaderDescriptor {
                        label: name.into(),
                        module: module.clone(),
                        stage,
                        entry_point: name.into(),
                    })
                    .map_err(|e| e.to_string())
            };
            let handle = device
                .create_pipeline(&PipelineDescriptor {
                    label: format!("f3d {}", entry.1),
                    vertex: shader(ShaderStage::Vertex, entry.0)?,
                    fragment: Some(shader(ShaderStage::Fragment, entry.1)?),
                    vertex_buffers: Vec::new(),
                    primitive: PrimitiveState::default(),
                    depth_stencil: depth
                        .map(|f| DepthStencilState::depth(f, CompareFunction::LessEqual, false)),
                    color_targets: vec![ColorTargetState::replace(color)],
                    sample_count: samples,
                    multiview: None,
                })
                .map_err(|e| e.to_string())?;
            let slots = PipelineSlots::resolve(&handle, &[]);
            Ok(GpuPipeline { handle, slots, material_array: false })
        })();
        let p = made.map_err(|e| bevy_log::error!("no {} pipeline: {e}", entry.1)).ok().map(Arc::new);
        self.library.insert(key, p.clone());
        p
    }
}

/// The vertex buffers of a material pipeline: slot 0 the engine attributes, slot 1 the
/// instance transforms, then the instances' material slots (when the material reads a
/// material array), then the material's custom attributes (when it has any).
pub fn vertex_layouts(custom: &[VertexFormat], material_array: bool) -> Vec<VertexBufferLayout> {
    let f = |location, format, offset| VertexAttribute { location, format, offset };
    let mut layouts = vec![
        VertexBufferLayout {
            stride: ENGINE_VERTEX_STRIDE,
            step_mode: VertexStepMode::Vertex,
            attributes: vec![
                f(0, VertexFormat::Float32x3, 0),
                f(1, VertexFormat::Float32x3, 12),
                f(2, VertexFormat::Float32x2, 24),
                f(3, VertexFormat::Float32x4, 32),
                f(4, VertexFormat::Float32x4, 48),
            ],
        },
        VertexBufferLayout {
            stride: INSTANCE_STRIDE,
            step_mode: VertexStepMode::Instance,
            attributes: INSTANCE_LOCATIONS
                .iter()
                .enumerate()
                .map(|(i, &l)| f(l, VertexFormat::Float32x4, i as u32 * 16))
                .collect(),
        },
    ];
    if material_array {
        layouts.push(VertexBufferLayout {
            stride: SLOT_STRIDE,
            step_mode: VertexStepMode::Instance,
            attributes: vec![f(INSTANCE_MATERIAL_LOCATION, VertexFormat::Uint32, 0)],
        });
    }
    if !custom.is_empty() {
        let mut offset = 0;
        let mut attributes = Vec::new();
        for (i, format) in custom.iter().enumerate() {
            attributes.push(f(f3d_materials::library::FIRST_CUSTOM_LOCATION + i as u32, *format, offset));
            offset += format.size();
        }
        layouts.push(VertexBufferLayout { stride: offset, step_mode: VertexStepMode::Vertex, attributes });
    }
    layouts
}

fn make_material_pipeline(
    device: &dyn GraphicsDevice,
    shader: &MaterialShader,
    key: &MaterialPipelineKey,
) -> Result<GpuPipeline, String> {
    let compiled = shader.variant(key.variant).ok_or("the material does not compile")?;
    let make = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: format!("{} {entry}", shader.loaded.desc.name),
                module: compiled.module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .map_err(|e| e.to_string())
    };
    let material_array = compiled.material_slots > 0;
    let vertex = make(ShaderStage::Vertex, compiled.vertex_entry)?;
    // A shader material's colour pass runs its own fragment shader after the carrier's
    // vertex stage; its depth and shadow variants are the carrier's.
    let raw = shader.raw.as_ref().filter(|_| key.variant == Variant::Color);
    let fragment = match raw {
        Some(raw) => device
            .create_shader(&ShaderDescriptor {
                label: raw.label().to_owned(),
                module: raw.module().clone(),
                stage: ShaderStage::Fragment,
                entry_point: raw.entry_point().into(),
            })
            .map_err(|e| e.to_string())?,
        None => make(ShaderStage::Fragment, compiled.fragment_entry)?,
    };
    let handle = device
        .create_pipeline(&PipelineDescriptor {
            label: format!("{} ({})", shader.loaded.desc.name, key.variant.name()),
            vertex,
            fragment: Some(fragment),
            vertex_buffers: vertex_layouts(&key.custom, material_array),
            primitive: PrimitiveState { cull_mode: key.state.cull, ..PrimitiveState::default() },
            depth_stencil: key
                .state
                .depth
                .map(|(format, write, compare)| DepthStencilState::depth(format, compare, write)),
            color_targets: key
                .state
                .color
                .map(|(format, blend)| ColorTargetState { format, blend, write_mask: ColorWrites::all() })
                .into_iter()
                .collect(),
            sample_count: key.state.samples,
            multiview: None,
        })
        .map_err(|e| e.to_string())?;
    let mut texture_params: Vec<String> =
        shader.loaded.desc.parameters.iter().filter(|p| p.ty.is_texture()).map(|p| p.name.clone()).collect();
    let mut blocks = Vec::new();
    if let Some(raw) = raw {
        // Every texture by name (the environment too: a material that switches it off binds
        // black over the view's), and every uniform block.
        texture_params.extend(raw.textures().iter().map(|(name, _)| name.clone()));
        if raw.reads_environment() {
            texture_params.push(f3d_materials::SHADER_MATERIAL_ENGINE_BINDINGS[0].to_owned());
        }
        blocks.extend(
            raw.uniform_blocks().iter().filter_map(|b| handle.slot(&b.name).map(|s| (b.name.clone(), s))),
        );
    }
    let mut slots = PipelineSlots::resolve(&handle, &texture_params);
    slots.blocks = blocks;
    Ok(GpuPipeline { handle, slots, material_array })
}
