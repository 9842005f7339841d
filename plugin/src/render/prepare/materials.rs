//! Materials in the render world: one [`MaterialShader`] per material source (each `.ron`
//! file, each standard-material variant), compiled per variant on first use and cached;
//! one [`GpuMaterial`] per material asset with its packed parameters.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bevy_ecs::prelude::*;
use f3d_materials::format::{Blending, EngineInput};
use f3d_materials::{
    CompileOptions, CompiledMaterial, LoadedMaterial, MaterialLayout, MaterialParameters, MaterialStore,
    MaterialVersion, ParamType, Variant, compile_material,
};

use crate::material::standard::{self, StandardKey};
use crate::material::{Material, RenderMaterialStore, StandardMaterial};
use crate::render::extract::ExtractedAssets;

/// One material source, compiled per variant on demand.
pub struct MaterialShader {
    /// Unique within the render world (pipeline keys use it).
    pub id: u64,
    /// The material as loaded.
    pub loaded: Arc<LoadedMaterial>,
    compiled: [Mutex<Option<Option<Arc<CompiledMaterial>>>>; 3],
}

fn variant_index(v: Variant) -> usize {
    match v {
        Variant::Color => 0,
        Variant::DepthOnly => 1,
        Variant::Shadow => 2,
    }
}

impl MaterialShader {
    fn new(id: u64, loaded: Arc<LoadedMaterial>) -> Self {
        Self { id, loaded, compiled: Default::default() }
    }

    /// A shader whose variants the material store has already compiled (for the same
    /// options: instanced), so a hot reload compiles each variant once.
    fn precompiled(id: u64, version: &MaterialVersion) -> Self {
        let slot = |v| Mutex::new(Some(Some(version.variant(v).clone())));
        Self {
            id,
            loaded: version.loaded.clone(),
            compiled: [slot(Variant::Color), slot(Variant::DepthOnly), slot(Variant::Shadow)],
        }
    }

    /// The compiled variant (instanced), or `None` when it does not compile (reported once).
    pub fn variant(&self, variant: Variant) -> Option<Arc<CompiledMaterial>> {
        let mut slot = self.compiled[variant_index(variant)].lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| {
            let options = CompileOptions { instanced: true, ..CompileOptions::default() };
            match compile_material(&self.loaded, variant, &options) {
                Ok(c) => Some(Arc::new(c)),
                Err(e) => {
                    eprintln!(
                        "f3d: material `{}` ({} variant) does not compile:\n{}",
                        self.loaded.desc.name,
                        variant.name(),
                        e.diagnostic()
                    );
                    None
                }
            }
        })
        .clone()
    }

    /// Custom attributes the material reads (name, type), in location order.
    pub fn attributes(&self) -> Vec<(String, ParamType)> {
        self.loaded.desc.attributes.iter().map(|a| (a.name.clone(), a.ty)).collect()
    }
}

/// Where one texture parameter's texture comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum TextureSource {
    /// An image asset slot.
    Image(u32),
    /// A 1×1 texture of this texel (the parameter's default hint).
    Texel([u8; 4]),
}

/// A material asset, ready to bind.
pub struct GpuMaterial {
    /// Its shader.
    pub shader: Arc<MaterialShader>,
    /// The packed `material_params` block.
    pub block: Vec<u8>,
    /// Each texture parameter and where its texture comes from.
    pub textures: Vec<(String, TextureSource)>,
    /// Blending.
    pub blending: Blending,
    /// Whether it reads the opaque scene's colour.
    pub needs_scene_color: bool,
    /// Whether it reads the opaque scene's depth.
    pub needs_scene_depth: bool,
}

impl GpuMaterial {
    /// Whether it draws in the translucent pass.
    pub fn is_translucent(&self) -> bool {
        self.blending.is_translucent()
    }
}

/// Material shaders and prepared materials.
#[derive(Resource, Default)]
pub struct RenderMaterials {
    slots: Vec<Option<Arc<GpuMaterial>>>,
    standard: HashMap<StandardKey, Arc<MaterialShader>>,
    custom: HashMap<usize, (Arc<LoadedMaterial>, Arc<MaterialShader>)>,
    next_id: u64,
}

impl RenderMaterials {
    /// The material in asset slot `index`.
    pub fn get(&self, index: u32) -> Option<&Arc<GpuMaterial>> {
        self.slots.get(index as usize).and_then(Option::as_ref)
    }

    fn shader_for_standard(&mut self, key: StandardKey) -> Option<Arc<MaterialShader>> {
        if let Some(s) = self.standard.get(&key) {
            return Some(s.clone());
        }
        let loaded = match standard::load(key) {
            Ok(l) => Arc::new(l),
            Err(e) => {
                eprintln!("f3d: the standard material template does not parse ({key:?}): {e:?}");
                return None;
            }
        };
        self.next_id += 1;
        let shader = Arc::new(MaterialShader::new(self.next_id, loaded));
        self.standard.insert(key, shader.clone());
        Some(shader)
    }

    fn shader_for_custom(
        &mut self,
        loaded: &Arc<LoadedMaterial>,
        store: Option<&MaterialStore>,
    ) -> Arc<MaterialShader> {
        let key = Arc::as_ptr(loaded) as usize;
        if let Some((_, s)) = self.custom.get(&key) {
            return s.clone();
        }
        self.next_id += 1;
        let shader = match store.and_then(|s| s.version_of(loaded)) {
            Some(version) => Arc::new(MaterialShader::precompiled(self.next_id, version)),
            None => Arc::new(MaterialShader::new(self.next_id, loaded.clone())),
        };
        // The LoadedMaterial is kept alive with the entry, so its address stays unique.
        self.custom.insert(key, (loaded.clone(), shader.clone()));
        shader
    }

    /// Forgets the shader made for `loaded` (a version a hot reload replaced) and answers its
    /// id, so the pipeline cache can drop that shader's pipelines and no other.
    pub fn forget_custom(&mut self, loaded: &Arc<LoadedMaterial>) -> Option<u64> {
        self.custom.remove(&(Arc::as_ptr(loaded) as usize)).map(|(_, s)| s.id)
    }

    fn prepare(&mut self, material: &Material, store: Option<&MaterialStore>) -> Option<GpuMaterial> {
        match material {
            Material::Standard(m) => self.prepare_standard(m),
            Material::Custom(m) => {
                let shader = self.shader_for_custom(m.loaded()?, store);
                let desc = &shader.loaded.desc;
                let textures = m
                    .parameters()
                    .textures()
                    .map(|(name, _, fallback)| {
                        let source = m
                            .images()
                            .iter()
                            .find(|(n, _)| n == name)
                            .map_or(TextureSource::Texel(fallback), |(_, h)| TextureSource::Image(h.index()));
                        (name.to_owned(), source)
                    })
                    .collect();
                Some(GpuMaterial {
                    block: m.parameters().block().to_vec(),
                    textures,
                    blending: desc.blending,
                    needs_scene_color: desc.engine_inputs.contains(&EngineInput::SceneColor),
                    needs_scene_depth: desc.engine_inputs.contains(&EngineInput::SceneDepth),
                    shader,
                })
            }
        }
    }

    fn prepare_standard(&mut self, m: &StandardMaterial) -> Option<GpuMaterial> {
        let shader = self.shader_for_standard(StandardKey::of(m))?;
        let desc = &shader.loaded.desc;
        let layout = MaterialLayout::new(desc).ok()?;
        let mut params = MaterialParameters::new(desc, &layout);
        standard::write_parameters(m, &mut params);
        let images = standard::images(m);
        let textures = params
            .textures()
            .map(|(name, _, fallback)| {
                let source = images
                    .iter()
                    .find(|(n, _)| *n == name)
                    .and_then(|(_, h)| *h)
                    .map_or(TextureSource::Texel(fallback), |h| TextureSource::Image(h.index()));
                (name.to_owned(), source)
            })
            .collect();
        Some(GpuMaterial {
            block: params.block().to_vec(),
            textures,
            blending: desc.blending,
            needs_scene_color: false,
            needs_scene_depth: false,
            shader,
        })
    }
}

/// Prepares materials that changed.
pub fn prepare_materials(
    mut assets: ResMut<ExtractedAssets>,
    mut materials: ResMut<RenderMaterials>,
    store: Option<Res<RenderMaterialStore>>,
) {
    let store = store.as_deref().map(|s| &s.store);
    let removed: Vec<u32> = assets.removed_materials.drain(..).collect();
    for index in removed {
        if let Some(slot) = materials.slots.get_mut(index as usize) {
            *slot = None;
        }
    }
    let changed: Vec<(u32, u32, Material)> = assets.materials.drain(..).collect();
    for (index, _generation, material) in changed {
        let prepared = materials.prepare(&material, store).map(Arc::new);
        let i = index as usize;
        if materials.slots.len() <= i {
            materials.slots.resize_with(i + 1, || None);
        }
        materials.slots[i] = prepared;
    }
}
