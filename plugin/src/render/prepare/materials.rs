//! Materials in the render world: one [`MaterialShader`] per material source (each `.ron`
//! file, each standard-material variant), compiled per variant on first use and cached;
//! one [`GpuMaterial`] per material asset with its packed parameters; and the
//! [`MaterialTables`] that put the parameters of materials sharing a shader and textures side
//! by side, so their instances draw in one call.
//!
//! ```text
//!  material asset i ──prepare──▶ GpuMaterial (shader, block, textures)
//!                                  │ class = (shader, the texture of each texture parameter)
//!                                  ▼
//!  MaterialTables: class ──▶ tables of up to N slots ──▶ [block 0 | block 1 | … | block N-1]
//!                  material i ──▶ (table, slot)            bound once as `f3d_materials`
//! ```
//!
//! Why: a distinct material used to be its own draw with its own binding. Besides the CPU cost
//! per draw, some drivers keep memory per binding change until the pass executes (Mesa 22.3's
//! lavapipe about 4 MB each, so a scene of 10,000 materials asked for 40 GB). With tables a
//! material costs its block's bytes in its table and one slot per instance; only materials
//! with other textures (or another shader) bind anew.
//!
//! On a device with [`STORAGE_BUFFERS`](f3d_hal::DeviceFeature::STORAGE_BUFFERS) a table is a
//! read-only storage buffer of any length (up to [`MATERIAL_STORAGE_BYTES`]), kept on the
//! device and rewritten only where materials changed: every material of a class is in one
//! table, so their instances are one draw however many there are. Elsewhere a table is a
//! uniform array of as many blocks as fit the device's uniform block limit (at most
//! [`MATERIAL_ARRAY_BYTES`]), its bytes bound with the pass.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bevy_ecs::prelude::*;
use f3d_hal::{GeometryBuffer, GeometryDescriptor, GeometryUsages};
use f3d_materials::format::{Blending, EngineInput};
use f3d_materials::{
    CompileOptions, CompiledMaterial, LoadedMaterial, MaterialLayout, MaterialParameters, MaterialStore,
    ParamType, Variant,
};

use crate::material::standard::{self, StandardKey};
use crate::material::{MaterialSource, RenderMaterialStore, StandardMaterial};
use crate::render::extract::{AssetSlots, ExtractedAssets, RenderAssetIds};
use crate::render::instances::{NO_TABLE, RenderInstances};

/// The most bytes one material table binds: 64 KiB, the uniform block limit of most desktop
/// drivers; devices with a smaller limit get smaller tables.
pub const MATERIAL_ARRAY_BYTES: u32 = 64 << 10;

/// The material-array budget that asks for storage-buffer tables
/// ([`CompileOptions::material_storage`]) instead of a uniform array of so many bytes.
pub const MATERIAL_STORAGE: u32 = u32::MAX;

/// The most bytes one storage-buffer table holds (16 MiB: 262,144 standard materials); a class
/// with more materials gets a second table. Well inside every backend's storage binding limit
/// (wgpu's default is 128 MiB).
pub const MATERIAL_STORAGE_BYTES: u32 = 16 << 20;

/// The compile options of every material the renderer draws: instanced, with a material
/// array of at most `budget` bytes, or in a storage buffer when `budget` is
/// [`MATERIAL_STORAGE`].
pub fn render_compile_options(budget: u32) -> CompileOptions {
    let storage = budget == MATERIAL_STORAGE;
    CompileOptions {
        instanced: true,
        material_array_bytes: if storage { 0 } else { budget },
        material_storage: storage,
        ..CompileOptions::default()
    }
}

/// The material-array budget for `device`: [`MATERIAL_STORAGE`] when it reads storage buffers
/// in vertex and fragment stages, else its uniform block limit, at most
/// [`MATERIAL_ARRAY_BYTES`].
pub fn material_array_budget(device: &dyn f3d_hal::GraphicsDevice) -> u32 {
    if device.features().has(f3d_hal::DeviceFeature::STORAGE_BUFFERS) {
        MATERIAL_STORAGE
    } else {
        device.limits().max_uniform_block_size.min(MATERIAL_ARRAY_BYTES)
    }
}

/// One material source, compiled per variant on demand.
pub struct MaterialShader {
    /// Unique within the render world (pipeline keys use it).
    pub id: u64,
    /// The material as loaded.
    pub loaded: Arc<LoadedMaterial>,
    /// How many materials one table of this shader holds (its material array's length;
    /// [`STORAGE_SLOTS`](f3d_materials::layout::STORAGE_SLOTS) for a storage-buffer table); 0
    /// when the material has no parameter block (its tables then hold any number, all at
    /// slot 0).
    pub slots: u32,
    /// Bytes from one slot's block to the next.
    pub stride: u32,
    /// For a [`ShaderMaterial`](crate::material::ShaderMaterial): its fragment shader, which
    /// replaces the colour variant's (`loaded` is then an unlit carrier with the material's
    /// render state, whose vertex stages, depth and shadow variants draw it).
    pub raw: Option<Arc<f3d_materials::ShaderMaterial>>,
    /// The parameters at their defaults, laid out once per shader (the layout goes through
    /// naga): each material of the shader starts from a copy and writes its own values.
    defaults: Option<MaterialParameters>,
    budget: u32,
    /// Which variants failed to compile and were reported (each once).
    reported: [AtomicBool; 3],
}

fn variant_index(v: Variant) -> usize {
    match v {
        Variant::Color => 0,
        Variant::DepthOnly => 1,
        Variant::Shadow => 2,
    }
}

impl MaterialShader {
    fn new(id: u64, loaded: Arc<LoadedMaterial>, budget: u32) -> Self {
        let layout = MaterialLayout::new(&loaded.desc).ok();
        let slots = match &layout {
            Some(l) if budget == MATERIAL_STORAGE => {
                l.slot_stride().map_or(0, |_| f3d_materials::layout::STORAGE_SLOTS)
            }
            Some(l) => l.array_len(budget),
            None => 0,
        };
        let stride = layout.as_ref().and_then(MaterialLayout::slot_stride).unwrap_or(0);
        let defaults = layout.as_ref().map(|l| MaterialParameters::new(&loaded.desc, l));
        Self { id, loaded, slots, stride, raw: None, defaults, budget, reported: Default::default() }
    }

    /// The compiled variant (instanced, with the material array), or `None` when it does not
    /// compile (reported once). Compiled variants live with the loaded material
    /// ([`LoadedMaterial::compiled`]): what the asset loader or the material store compiled
    /// for the same options is not compiled again.
    pub fn variant(&self, variant: Variant) -> Option<Arc<CompiledMaterial>> {
        match self.loaded.compiled(variant, &render_compile_options(self.budget)) {
            Ok(c) => Some(c),
            Err(e) => {
                if !self.reported[variant_index(variant)].swap(true, Ordering::Relaxed) {
                    bevy_log::error!(
                        "material `{}` ({} variant) does not compile:\n{}",
                        self.loaded.desc.name,
                        variant.name(),
                        e.diagnostic()
                    );
                }
                None
            }
        }
    }

    /// Custom attributes the material reads (name, type), in location order.
    pub fn attributes(&self) -> Vec<(String, ParamType)> {
        self.loaded.desc.attributes.iter().map(|a| (a.name.clone(), a.ty)).collect()
    }
}

/// Where one texture parameter's texture comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TextureSource {
    /// An image asset slot (a `Texture2d` parameter).
    Image(u32),
    /// A 1×1 texture of this texel (a `Texture2d` parameter's default hint).
    Texel([u8; 4]),
    /// A cube image's asset slot (a `TextureCube` parameter).
    CubeImage(u32),
    /// A cube of 1×1 faces of this texel (a `TextureCube` parameter's default hint).
    CubeTexel([u8; 4]),
}

impl TextureSource {
    /// The source of a parameter of type `ty`: the image in `slot` when one is bound, else its
    /// default texel.
    fn of(ty: ParamType, slot: Option<u32>, fallback: [u8; 4]) -> Self {
        match (ty == ParamType::TextureCube, slot) {
            (false, Some(i)) => Self::Image(i),
            (false, None) => Self::Texel(fallback),
            (true, Some(i)) => Self::CubeImage(i),
            (true, None) => Self::CubeTexel(fallback),
        }
    }
}

/// A material asset, ready to bind.
pub struct GpuMaterial {
    /// Its shader.
    pub shader: Arc<MaterialShader>,
    /// The packed `material_params` block.
    pub block: Vec<u8>,
    /// Each texture parameter (its name shared with the shader's parameters) and where its
    /// texture comes from.
    pub textures: Vec<(Arc<str>, TextureSource)>,
    /// Blending.
    pub blending: Blending,
    /// Whether it reads the opaque scene's colour.
    pub needs_scene_color: bool,
    /// Whether it reads the opaque scene's depth.
    pub needs_scene_depth: bool,
    /// A shader material's uniform blocks (variable name, bytes).
    pub blocks: Vec<(String, Arc<Vec<u8>>)>,
}

impl GpuMaterial {
    /// Whether it draws in the translucent pass.
    pub fn is_translucent(&self) -> bool {
        self.blending.is_translucent()
    }
}

/// Material shaders, prepared materials and their tables.
#[derive(Resource, Default)]
pub struct RenderMaterials {
    slots: Vec<Option<Arc<GpuMaterial>>>,
    standard: HashMap<StandardKey, Arc<MaterialShader>>,
    custom: HashMap<usize, (Arc<LoadedMaterial>, Arc<MaterialShader>)>,
    raw: HashMap<RawKey, (Arc<f3d_materials::ShaderMaterial>, Arc<MaterialShader>)>,
    next_id: u64,
    /// The material-array budget of the device ([`material_array_budget`]).
    budget: u32,
    /// Where each material's parameters live.
    pub tables: MaterialTables,
}

impl RenderMaterials {
    /// Materials for a device whose material arrays hold at most `budget` bytes.
    pub fn new(budget: u32) -> Self {
        Self { budget, ..Self::default() }
    }

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
                bevy_log::error!("the standard material template does not parse ({key:?}): {e:?}");
                return None;
            }
        };
        self.next_id += 1;
        let shader = Arc::new(MaterialShader::new(self.next_id, loaded, self.budget));
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
            Some(version) => Arc::new(MaterialShader::new(self.next_id, version.loaded.clone(), self.budget)),
            None => Arc::new(MaterialShader::new(self.next_id, loaded.clone(), self.budget)),
        };
        // The LoadedMaterial is kept alive with the entry, so its address stays unique.
        self.custom.insert(key, (loaded.clone(), shader.clone()));
        shader
    }

    /// The shader of a shader material: its fragment shader over an unlit carrier with its
    /// render state, one per (fragment shader, state).
    fn shader_for_raw(&mut self, m: &crate::material::ShaderMaterial) -> Option<Arc<MaterialShader>> {
        let key = RawKey {
            shader: Arc::as_ptr(m.shader()) as usize,
            blending: m.blending,
            culling: m.culling,
            depth: m.depth,
        };
        if let Some((_, s)) = self.raw.get(&key) {
            return Some(s.clone());
        }
        let carrier = raw_carrier(m).map_err(|e| bevy_log::error!("{e}")).ok()?;
        self.next_id += 1;
        let mut shader = MaterialShader::new(self.next_id, Arc::new(carrier), self.budget);
        shader.raw = Some(m.shader().clone());
        let shader = Arc::new(shader);
        // The fragment shader is kept alive with the entry, so its address stays unique.
        self.raw.insert(key, (m.shader().clone(), shader.clone()));
        Some(shader)
    }

    /// Forgets the shader made for `loaded` (a version a hot reload replaced) and answers its
    /// id, so the pipeline cache can drop that shader's pipelines and no other.
    pub fn forget_custom(&mut self, loaded: &Arc<LoadedMaterial>) -> Option<u64> {
        self.custom.remove(&(Arc::as_ptr(loaded) as usize)).map(|(_, s)| s.id)
    }

    fn prepare(
        &mut self,
        material: &MaterialSource,
        store: Option<&MaterialStore>,
        images: &mut AssetSlots,
    ) -> Option<GpuMaterial> {
        match material {
            MaterialSource::Standard(m) => self.prepare_standard(m, images),
            MaterialSource::Shader(m) => self.prepare_raw(m, images),
            MaterialSource::Custom(m) => {
                let shader = self.shader_for_custom(m.loaded()?, store);
                let desc = &shader.loaded.desc;
                let textures = m
                    .parameters()
                    .textures()
                    .map(|(name, _, fallback)| {
                        let ty = desc
                            .parameters
                            .iter()
                            .find(|p| *p.name == **name)
                            .map_or(ParamType::Texture2d, |p| p.ty);
                        let slot =
                            m.images().iter().find(|(n, _)| **n == **name).map(|(_, h)| images.slot(h.id()));
                        (name.clone(), TextureSource::of(ty, slot, fallback))
                    })
                    .collect();
                Some(GpuMaterial {
                    block: m.parameters().block().to_vec(),
                    textures,
                    blending: desc.blending,
                    needs_scene_color: desc.engine_inputs.contains(&EngineInput::SceneColor),
                    needs_scene_depth: desc.engine_inputs.contains(&EngineInput::SceneDepth),
                    blocks: Vec::new(),
                    shader,
                })
            }
        }
    }

    fn prepare_raw(
        &mut self,
        m: &crate::material::ShaderMaterial,
        images: &mut AssetSlots,
    ) -> Option<GpuMaterial> {
        let shader = self.shader_for_raw(m)?;
        let mut textures: Vec<(Arc<str>, TextureSource)> = m
            .textures()
            .map(|(name, cube)| {
                let ty = if cube { ParamType::TextureCube } else { ParamType::Texture2d };
                let slot = m.images().iter().find(|(n, _)| n == name).map(|(_, h)| images.slot(h.id()));
                (Arc::from(name), TextureSource::of(ty, slot, [255; 4]))
            })
            .collect();
        if !m.environment {
            // Bound after the view's own, so the shader sees black instead of the scene's.
            textures.push((Arc::from(ENVIRONMENT), TextureSource::CubeTexel([0, 0, 0, 255])));
        }
        Some(GpuMaterial {
            block: Vec::new(),
            textures,
            blending: m.blending,
            needs_scene_color: false,
            needs_scene_depth: false,
            blocks: m.blocks().iter().map(|(n, b)| (n.clone(), Arc::new(b.clone()))).collect(),
            shader,
        })
    }

    fn prepare_standard(&mut self, m: &StandardMaterial, images_ids: &mut AssetSlots) -> Option<GpuMaterial> {
        let shader = self.shader_for_standard(StandardKey::of(m))?;
        let desc = &shader.loaded.desc;
        let mut params = shader.defaults.clone()?;
        standard::write_parameters(m, &mut params);
        let images = standard::images(m);
        let textures = params
            .textures()
            .map(|(name, _, fallback)| {
                let source = images
                    .iter()
                    .find(|(n, _)| **n == **name)
                    .and_then(|(_, h)| *h)
                    .map_or(TextureSource::Texel(fallback), |h| {
                        TextureSource::Image(images_ids.slot(h.id()))
                    });
                (name.clone(), source)
            })
            .collect();
        Some(GpuMaterial {
            block: params.block().to_vec(),
            textures,
            blending: desc.blending,
            needs_scene_color: false,
            needs_scene_depth: false,
            blocks: Vec::new(),
            shader,
        })
    }
}

/// The engine texture a shader material samples as its environment.
const ENVIRONMENT: &str = "environment_radiance";

/// What one shader material's pipelines depend on besides its fragment shader's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct RawKey {
    shader: usize,
    blending: Blending,
    culling: f3d_materials::format::Culling,
    depth: Option<f3d_materials::format::DepthState>,
}

/// The unlit material whose vertex stages draw a shader material: no parameters, an empty
/// surface, the shader material's render state.
fn raw_carrier(m: &crate::material::ShaderMaterial) -> Result<LoadedMaterial, String> {
    let depth = m.depth.map_or_else(String::new, |d| {
        format!("    depth: (write: {}, compare: {:?}),\n", d.write, d.compare)
    });
    let text = format!(
        "Material(\n    name: {:?},\n    shading_model: Unlit,\n    blending: {:?},\n    culling: {:?},\n{depth}    fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\",\n)\n",
        m.shader().label(),
        m.blending,
        m.culling,
    );
    f3d_materials::parse_material(std::path::Path::new(m.shader().label()), text.as_bytes()).map_err(
        |errors| {
            let first = errors.first().map_or_else(String::new, |e| e.diagnostic());
            format!("shader material `{}`: its carrier does not parse: {first}", m.shader().label())
        },
    )
}

/// Prepares materials that changed and places them in their tables (runs in extraction, after
/// the assets were taken and before the instances, which are keyed by table).
pub fn prepare_materials(
    mut assets: ResMut<ExtractedAssets>,
    mut materials: ResMut<RenderMaterials>,
    mut ids: ResMut<RenderAssetIds>,
    store: Option<Res<RenderMaterialStore>>,
) {
    let store = store.as_deref().map(|s| &s.store);
    let materials = &mut *materials;
    let removed: Vec<u32> = assets.removed_materials.drain(..).collect();
    for index in removed {
        if let Some(slot) = materials.slots.get_mut(index as usize) {
            *slot = None;
        }
        materials.tables.release(index);
    }
    let changed: Vec<(u32, MaterialSource)> = assets.materials.drain(..).collect();
    for (index, material) in changed {
        let prepared = materials.prepare(&material, store, &mut ids.images).map(Arc::new);
        match &prepared {
            Some(m) => materials.tables.place(index, m),
            None => materials.tables.release(index),
        }
        let i = index as usize;
        if materials.slots.len() <= i {
            materials.slots.resize_with(i + 1, || None);
        }
        materials.slots[i] = prepared;
    }
}

/// Moves the instances of materials that changed table (runs in extraction, after
/// [`prepare_materials`]).
pub fn move_material_instances(
    mut materials: ResMut<RenderMaterials>,
    mut instances: ResMut<RenderInstances>,
) {
    let moved = materials.tables.take_moved();
    let tables = &materials.tables;
    instances.replace_materials(&moved, |m| tables.place_of(m));
}

/// What materials must share to draw in one call: the shader, and the texture of each texture
/// parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ClassKey {
    shader: u64,
    textures: Vec<(Arc<str>, TextureSource)>,
}

impl ClassKey {
    fn of(m: &GpuMaterial) -> Self {
        Self { shader: m.shader.id, textures: m.textures.clone() }
    }

    /// Whether `m` is of this class (what `ClassKey::of(m) == *self` says, without the copy).
    fn holds(&self, m: &GpuMaterial) -> bool {
        self.shader == m.shader.id && self.textures == m.textures
    }
}

/// Up to `capacity` materials of one class, their blocks side by side as the shader's material
/// array reads them.
pub struct MaterialTable {
    class: ClassKey,
    /// The latest material placed here: what all of the table's materials share (shader,
    /// textures, blending, engine inputs) is read from it.
    pub material: Arc<GpuMaterial>,
    /// The material array's bytes (`capacity × stride` for a uniform array, as many slots as
    /// were used so far for a storage table; empty without a block).
    pub block: Arc<Vec<u8>>,
    capacity: u32,
    stride: u32,
    used: u32,
    next: u32,
    free: Vec<u32>,
    /// A storage table's buffer on the device and the bytes it holds ([`Self::storage`]).
    gpu: Option<(GeometryBuffer, usize)>,
    /// The bytes of `block` written since the last upload (storage tables).
    dirty: Option<std::ops::Range<usize>>,
    storage: bool,
}

impl MaterialTable {
    fn new(class: ClassKey, material: &Arc<GpuMaterial>) -> Self {
        let shader = &material.shader;
        let storage = shader.slots == f3d_materials::layout::STORAGE_SLOTS;
        // Without a block every material of the class reads nothing per slot: one table holds
        // them all, each at slot 0.
        let capacity = match shader.slots {
            0 => u32::MAX,
            _ if storage => (MATERIAL_STORAGE_BYTES / shader.stride.max(1)).max(1),
            n => n,
        };
        let bytes = if storage { 0 } else { shader.slots as usize * shader.stride as usize };
        Self {
            class,
            material: material.clone(),
            block: Arc::new(vec![0; bytes]),
            capacity,
            stride: shader.stride,
            used: 0,
            next: 0,
            free: Vec::new(),
            gpu: None,
            dirty: None,
            storage,
        }
    }

    fn has_room(&self) -> bool {
        self.used < self.capacity
    }

    fn take_slot(&mut self) -> u32 {
        self.used += 1;
        if self.stride == 0 {
            return 0;
        }
        self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        })
    }

    fn free_slot(&mut self, slot: u32) {
        self.used = self.used.saturating_sub(1);
        if self.stride != 0 {
            self.free.push(slot);
        }
    }

    fn write(&mut self, slot: u32, material: &Arc<GpuMaterial>) {
        self.material = material.clone();
        if self.stride == 0 {
            return;
        }
        let start = slot as usize * self.stride as usize;
        let end = start + self.stride as usize;
        let block = Arc::make_mut(&mut self.block);
        if self.storage && block.len() < end {
            // Doubling keeps growth (and the buffer's re-creation) rare.
            block.resize(end.max(block.len() * 2), 0);
        }
        let len = material.block.len().min(self.stride as usize);
        if let Some(dst) = block.get_mut(start..start + len) {
            dst.copy_from_slice(&material.block[..len]);
        }
        let dirty = self.dirty.get_or_insert(start..end);
        *dirty = dirty.start.min(start)..dirty.end.max(end);
    }

    /// A storage table's buffer, when it has one (made by [`MaterialTables::upload`]); `None`
    /// for uniform-array tables, whose bytes are bound with the pass.
    pub fn storage(&self) -> Option<&GeometryBuffer> {
        self.gpu.as_ref().map(|(b, _)| b)
    }

    /// Whether this table is a storage buffer (and draws only once it has one).
    pub fn is_storage(&self) -> bool {
        self.storage && self.stride != 0
    }

    /// Brings a storage table's buffer up to date: a new buffer when the table outgrew it
    /// (the whole table uploaded), else only the bytes written since the last upload.
    fn upload(&mut self, device: &dyn f3d_hal::GraphicsDevice) {
        if !self.is_storage() {
            return;
        }
        let Some(dirty) = self.dirty.take() else { return };
        match &self.gpu {
            Some((buffer, size)) if *size >= self.block.len() => {
                if let Err(e) = device.write_geometry(buffer, dirty.start as u64, &self.block[dirty]) {
                    bevy_log::error!("material table upload failed: {e}");
                }
            }
            _ => {
                let desc = GeometryDescriptor {
                    label: format!("f3d material table ({})", self.material.shader.loaded.desc.name),
                    size: self.block.len() as u64,
                    usage: GeometryUsages::STORAGE,
                };
                self.gpu = match device.create_geometry(&desc, Some(&self.block)) {
                    Ok(b) => Some((b, self.block.len())),
                    Err(e) => {
                        bevy_log::error!("a material table of {} bytes was refused: {e}", self.block.len());
                        None
                    }
                };
            }
        }
    }
}

/// Where each material's parameters live: material asset slot → (table, slot).
#[derive(Default)]
pub struct MaterialTables {
    place: Vec<Option<(u32, u32)>>,
    tables: Vec<Option<MaterialTable>>,
    free_tables: Vec<u32>,
    by_class: HashMap<ClassKey, Vec<u32>>,
    moved: HashSet<u32>,
}

impl MaterialTables {
    /// The table `id`.
    pub fn get(&self, id: u32) -> Option<&MaterialTable> {
        self.tables.get(id as usize).and_then(Option::as_ref)
    }

    /// How many tables hold materials.
    pub fn len(&self) -> usize {
        self.tables.iter().flatten().count()
    }

    /// Whether no table holds a material.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The table and slot of the material asset `index` (table `u32::MAX` when it has none).
    pub fn place_of(&self, index: u32) -> (u32, u32) {
        self.place.get(index as usize).copied().flatten().unwrap_or((NO_TABLE, 0))
    }

    /// Writes `material` (asset slot `index`) into a table of its class, moving it when its
    /// class changed.
    fn place(&mut self, index: u32, material: &Arc<GpuMaterial>) {
        if let Some((table, slot)) = self.place.get(index as usize).copied().flatten()
            && let Some(t) = self.tables.get_mut(table as usize).and_then(Option::as_mut)
            && t.class.holds(material)
        {
            t.write(slot, material);
            return;
        }
        self.release(index);
        let class = ClassKey::of(material);
        let open = self.by_class.get(&class).and_then(|ids| {
            ids.iter().copied().find(|&id| self.get(id).is_some_and(MaterialTable::has_room))
        });
        let table = match open {
            Some(id) => id,
            None => {
                let t = MaterialTable::new(class.clone(), material);
                let id = match self.free_tables.pop() {
                    Some(id) => {
                        self.tables[id as usize] = Some(t);
                        id
                    }
                    None => {
                        self.tables.push(Some(t));
                        (self.tables.len() - 1) as u32
                    }
                };
                self.by_class.entry(class).or_default().push(id);
                id
            }
        };
        // The table was found or made just above.
        let Some(t) = self.tables[table as usize].as_mut() else { return };
        let slot = t.take_slot();
        t.write(slot, material);
        let i = index as usize;
        if self.place.len() <= i {
            self.place.resize(i + 1, None);
        }
        self.place[i] = Some((table, slot));
        self.moved.insert(index);
    }

    /// Takes the material asset `index` out of its table (a table left empty goes).
    fn release(&mut self, index: u32) {
        let Some(Some((table, slot))) = self.place.get_mut(index as usize).map(Option::take) else {
            return;
        };
        self.moved.insert(index);
        let Some(t) = self.tables.get_mut(table as usize).and_then(Option::as_mut) else { return };
        t.free_slot(slot);
        if t.used == 0 {
            let class = t.class.clone();
            self.tables[table as usize] = None;
            self.free_tables.push(table);
            if let Some(ids) = self.by_class.get_mut(&class) {
                ids.retain(|&id| id != table);
                if ids.is_empty() {
                    self.by_class.remove(&class);
                }
            }
        }
    }

    /// Brings every storage table's buffer up to date: a new buffer for a table that outgrew
    /// its own (the whole table uploaded), else only the bytes written since the last upload.
    /// Uniform-array tables have nothing to upload (their bytes are bound with the pass).
    pub fn upload(&mut self, device: &dyn f3d_hal::GraphicsDevice) {
        for t in self.tables.iter_mut().flatten() {
            t.upload(device);
        }
    }

    /// The materials that changed table since the last call.
    fn take_moved(&mut self) -> HashSet<u32> {
        std::mem::take(&mut self.moved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use f3d_hal::GraphicsDevice;

    /// `count` standard materials of one shader, material `i`'s first block byte `i % 251`.
    fn materials(budget: u32, count: u32) -> (RenderMaterials, Vec<Arc<GpuMaterial>>) {
        let mut render = RenderMaterials::new(budget);
        let mut images = AssetSlots::default();
        let made = (0..count)
            .map(|i| {
                let mut m = render.prepare_standard(&StandardMaterial::default(), &mut images).unwrap();
                m.block[0] = (i % 251) as u8;
                Arc::new(m)
            })
            .collect();
        (render, made)
    }

    /// The variants a frame draws compile ahead of their pipelines: after `precompile` each
    /// variant's module holds a compiled form per stage, and the pipeline made next compiles
    /// nothing more.
    #[test]
    fn precompiled_variants_leave_their_pipelines_nothing_to_compile() {
        use super::super::draws::DEPTH_FORMAT;
        use super::super::pipelines::{PipelineCache, RenderState};
        use f3d_hal::{CompareFunction, CullMode};
        let device = f3d_backend_soft::SoftDevice::new("precompile");
        let (_render, made) = materials(MATERIAL_STORAGE, 1);
        let shader = made[0].shader.clone();
        let mut cache = PipelineCache::default();
        let wanted = [Variant::Color, Variant::Shadow, Variant::Color].map(|v| (&*shader, v));
        cache.precompile(&device, &wanted);
        for variant in [Variant::Color, Variant::Shadow] {
            let module = shader.variant(variant).unwrap().module.clone();
            let forms = module.compiled_count();
            assert_eq!(forms, 2, "{variant:?}: one form per stage");
            let color = (variant == Variant::Color).then_some((device.hdr_color_format(), None));
            let depth = Some((DEPTH_FORMAT, true, CompareFunction::LessEqual));
            let state = RenderState { color, depth, cull: CullMode::None, samples: 1 };
            assert!(cache.material(&device, &shader, variant, state).is_some(), "{variant:?}");
            assert_eq!(module.compiled_count(), forms, "{variant:?}: its pipeline compiled again");
        }
    }

    /// With storage tables 10,000 materials of one shader are one table (so one draw per
    /// mesh); with 64 KiB uniform arrays they are eight.
    #[test]
    fn one_storage_table_holds_every_material_of_a_class() {
        for (budget, tables) in [(MATERIAL_STORAGE, 1), (MATERIAL_ARRAY_BYTES, 8)] {
            let (mut render, made) = materials(budget, 10_000);
            for (i, m) in made.iter().enumerate() {
                render.tables.place(i as u32, m);
            }
            assert_eq!(render.tables.len(), tables, "budget {budget}");
        }
    }

    /// A storage table reaches the device whole once, then only in the bytes that changed;
    /// what the device holds is the table.
    #[test]
    fn a_storage_table_uploads_only_what_changed() {
        let device = f3d_backend_soft::SoftDevice::new("tables");
        let (mut render, made) = materials(MATERIAL_STORAGE, 300);
        for (i, m) in made.iter().enumerate() {
            render.tables.place(i as u32, m);
        }
        let stride = made[0].shader.stride as usize;
        render.tables.upload(&device);
        let table = render.tables.get(0).unwrap();
        let buffer = table.storage().expect("the table has its buffer").clone();
        let bytes = device.read_geometry(&buffer).unwrap();
        assert!(bytes.len() >= 300 * stride);
        for (i, m) in made.iter().enumerate() {
            let (_, slot) = render.tables.place_of(i as u32);
            let at = slot as usize * stride;
            assert_eq!(&bytes[at..at + m.block.len()], &m.block[..], "material {i}");
        }

        // Rewriting one material marks its slot alone, and the same buffer takes it.
        let mut changed =
            render.prepare_standard(&StandardMaterial::default(), &mut AssetSlots::default()).unwrap();
        changed.block.clone_from(&made[7].block);
        changed.block[4] = 0xAB;
        render.tables.place(7, &Arc::new(changed));
        let (_, slot) = render.tables.place_of(7);
        let t = render.tables.get(0).unwrap();
        assert_eq!(t.dirty, Some(slot as usize * stride..(slot as usize + 1) * stride));
        render.tables.upload(&device);
        let t = render.tables.get(0).unwrap();
        assert!(t.storage().unwrap().same(&buffer), "a write that fits keeps the buffer");
        assert_eq!(device.read_geometry(&buffer).unwrap()[slot as usize * stride + 4], 0xAB);
    }
}
