//! Shaders as validated naga modules, and the binding tables pipelines are bound through.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex};

/// A pipeline stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderStage {
    /// The vertex stage.
    Vertex,
    /// The fragment stage.
    Fragment,
    /// A compute stage.
    Compute,
}

impl ShaderStage {
    /// naga's name for the stage.
    pub fn to_naga(self) -> naga::ShaderStage {
        match self {
            Self::Vertex => naga::ShaderStage::Vertex,
            Self::Fragment => naga::ShaderStage::Fragment,
            Self::Compute => naga::ShaderStage::Compute,
        }
    }

    /// The stage of a naga entry point; `None` for stages f3d does not run (mesh, task).
    pub fn from_naga(stage: naga::ShaderStage) -> Option<Self> {
        match stage {
            naga::ShaderStage::Vertex => Some(Self::Vertex),
            naga::ShaderStage::Fragment => Some(Self::Fragment),
            naga::ShaderStage::Compute => Some(Self::Compute),
            _ => None,
        }
    }
}

impl fmt::Display for ShaderStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Vertex => "vertex",
            Self::Fragment => "fragment",
            Self::Compute => "compute",
        })
    }
}

/// A naga module that passed naga's validator, with the analysis the validator produced.
///
/// naga IR is f3d's shader currency: every frontend (WGSL, GLSL) produces it once and every
/// backend turns it into its own form. The only way to make one is [`ValidatedModule::new`],
/// so a device never sees an unvalidated module.
///
/// The module is also the one place its backend forms are kept ([`compiled`](Self::compiled)):
/// a backend that turns an entry point into its own code (vulkan's SPIR-V) does so once per
/// module, whether the material check or `create_shader` asks first, and the forms go when the
/// module goes.
pub struct ValidatedModule {
    module: naga::Module,
    info: naga::valid::ModuleInfo,
    compiled: Mutex<Vec<(String, Arc<dyn Any + Send + Sync>)>>,
    source_hash: Option<[u8; 32]>,
}

impl fmt::Debug for ValidatedModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidatedModule")
            .field("entry_points", &self.module.entry_points.iter().map(|ep| &ep.name).collect::<Vec<_>>())
            .field("compiled", &self.compiled_count())
            .finish_non_exhaustive()
    }
}

impl ValidatedModule {
    /// Validates `module` with every capability f3d's shaders may use.
    pub fn new(module: naga::Module) -> Result<Self, Box<naga::WithSpan<naga::valid::ValidationError>>> {
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        );
        let info = validator.validate(&module).map_err(Box::new)?;
        Ok(Self { module, info, compiled: Mutex::new(Vec::new()), source_hash: None })
    }

    /// This module, marked as parsed from `source` (the composed text, variant defines
    /// included): its compiled forms may then be kept in the shader cache on disk
    /// ([`compiled_cached`](Self::compiled_cached)), keyed by a hash of that text.
    pub fn with_source(mut self, source: &str) -> Self {
        self.source_hash = Some(*blake3::hash(source.as_bytes()).as_bytes());
        self
    }

    /// The IR.
    pub fn module(&self) -> &naga::Module {
        &self.module
    }

    /// The validator's analysis (uniformity, expression types, global uses).
    pub fn info(&self) -> &naga::valid::ModuleInfo {
        &self.info
    }

    /// The index of the entry point named `name` for `stage`, if the module has one.
    pub fn entry_point_index(&self, stage: ShaderStage, name: &str) -> Option<usize> {
        self.module.entry_points.iter().position(|ep| ep.stage == stage.to_naga() && ep.name == name)
    }

    /// The backend form of this module stored under `key`, made by `make` the first time it is
    /// asked for. `key` names everything the form depends on besides the module (the backend,
    /// the device's shader capabilities, the stage and entry point), so two devices that would
    /// compile differently never share a form. A refusal is not kept: it is answered again by
    /// `make`. The lock is not held while `make` runs; two threads that race compile twice and
    /// keep the first form.
    pub fn compiled<T: Any + Send + Sync>(
        &self,
        key: &str,
        make: impl FnOnce() -> Result<T, String>,
    ) -> Result<Arc<T>, String> {
        let find = |forms: &[(String, Arc<dyn Any + Send + Sync>)]| {
            forms.iter().find(|(k, _)| k == key).and_then(|(_, form)| Arc::clone(form).downcast::<T>().ok())
        };
        if let Some(form) = find(&self.forms()) {
            return Ok(form);
        }
        let made = Arc::new(make()?);
        let mut forms = self.forms();
        if let Some(first) = find(&forms) {
            return Ok(first);
        }
        forms.push((key.to_owned(), made.clone()));
        Ok(made)
    }

    /// [`compiled`](Self::compiled), also kept on disk in `cache` when the module has its
    /// source ([`with_source`](Self::with_source)): a form another run wrote under the same
    /// key (source, `key`, naga and f3d versions) is read back with `decode` instead of made;
    /// a new one is written with `encode` (`None`: a form that cannot be stored is kept in
    /// memory only). An entry `decode` refuses counts as corrupt, is removed and made again.
    pub fn compiled_cached<T: Any + Send + Sync>(
        &self,
        key: &str,
        cache: &crate::shader_cache::ShaderCache,
        encode: impl FnOnce(&T) -> Option<Vec<u8>>,
        decode: impl FnOnce(&[u8]) -> Option<T>,
        make: impl FnOnce() -> Result<T, String>,
    ) -> Result<Arc<T>, String> {
        let Some(source) = self.source_hash.filter(|_| cache.dir().is_some()) else {
            return self.compiled(key, make);
        };
        self.compiled(key, || {
            let disk_key = crate::shader_cache::CacheKey::of(&[&source, key.as_bytes()]);
            if let Some(form) = cache.load(&disk_key, decode) {
                return Ok(form);
            }
            let form = make()?;
            cache.note_compile();
            if let Some(bytes) = encode(&form) {
                cache.put(&disk_key, &bytes);
            }
            Ok(form)
        })
    }

    /// How many backend forms [`compiled`](Self::compiled) has made of this module.
    pub fn compiled_count(&self) -> usize {
        self.forms().len()
    }

    fn forms(&self) -> std::sync::MutexGuard<'_, Vec<(String, Arc<dyn Any + Send + Sync>)>> {
        self.compiled.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How to create a shader: one entry point of a validated module.
#[derive(Clone, Debug)]
pub struct ShaderDescriptor {
    /// A name for logs and errors.
    pub label: String,
    /// The module holding the entry point (shared: one module often has several stages).
    pub module: Arc<ValidatedModule>,
    /// The stage.
    pub stage: ShaderStage,
    /// The entry point's name.
    pub entry_point: String,
}

/// What kind of resource a binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    /// A uniform block of `size` bytes.
    UniformBlock {
        /// The block's size from naga's layouter.
        size: u32,
    },
    /// A sampled texture.
    Texture {
        /// 2D, 2D array or cube.
        dimension: crate::TextureDimension,
        /// Whether it is a depth texture (sampled with comparison or as depth).
        depth: bool,
        /// Whether the shader reads it as integers.
        integer: bool,
    },
    /// A storage buffer ([`STORAGE_BUFFERS`](crate::DeviceFeature::STORAGE_BUFFERS)): read-only in
    /// vertex and fragment stages, read-write in compute.
    StorageBuffer {
        /// Whether the shader only reads it.
        read_only: bool,
    },
    /// A sampler.
    Sampler {
        /// Whether it is a comparison sampler.
        comparison: bool,
    },
}

/// One resource a pipeline's stages declare, found by reflection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BindingInfo {
    /// The global variable's name in the shader (`material_params`).
    pub name: String,
    /// For uniform blocks, the block type's name (`MaterialParams`), accepted as a second name.
    pub type_name: Option<String>,
    /// The shader's `@group`.
    pub group: u32,
    /// The shader's `@binding`.
    pub binding: u32,
    /// What it is.
    pub kind: BindingKind,
    /// Whether the vertex stage uses it.
    pub vertex: bool,
    /// Whether the fragment stage uses it.
    pub fragment: bool,
}

impl BindingInfo {
    /// Whether a texture described by `desc` can be bound here: a texture binding of the same
    /// dimension, depth formats only to depth bindings (and colour formats only to colour
    /// ones), integer formats only to integer bindings, single-sampled only.
    pub fn accepts_texture(&self, desc: &crate::TextureDescriptor) -> bool {
        let BindingKind::Texture { dimension, depth, integer } = self.kind else { return false };
        let kind = desc.format.facts().sample_kind;
        let is_int = matches!(kind, crate::SampleKind::Uint | crate::SampleKind::Sint);
        dimension == desc.dimension
            && depth == desc.format.has_depth()
            && integer == is_int
            && desc.sample_count == 1
            && desc.usage.contains(crate::TextureUsages::SAMPLED)
    }

    /// Whether `bytes` can be bound here: a uniform block no larger than `bytes`.
    pub fn accepts_uniform_bytes(&self, bytes: &[u8]) -> bool {
        matches!(self.kind, BindingKind::UniformBlock { size } if bytes.len() >= size as usize)
    }
}

/// A resolved binding: an index into a pipeline's [`BindingLayout`]. Resolve a name once per
/// pipeline with [`PipelineHandle::slot`](crate::PipelineHandle::slot) and bind by slot on hot
/// paths, so no string is hashed per draw. A slot is only meaningful for the pipeline (and so
/// the layout) it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BindingSlot(pub u32);

/// Every resource a pipeline's stages declare, in a fixed order (by group, then binding).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BindingLayout {
    entries: Vec<BindingInfo>,
    /// Each texture's slot with its sampler's slot ([`sampler_for`](Self::sampler_for)),
    /// found once: every `set_pipeline` of a recorder reads them.
    texture_samplers: Vec<(usize, usize)>,
}

impl BindingLayout {
    /// A layout of these bindings; sorted by group and binding.
    pub fn new(mut entries: Vec<BindingInfo>) -> Self {
        entries.sort_by_key(|b| (b.group, b.binding));
        let texture_samplers = entries
            .iter()
            .enumerate()
            .filter(|(_, b)| matches!(b.kind, BindingKind::Texture { .. }))
            .filter_map(|(i, b)| Some((i, sampler_of(&entries, &b.name)?.0 as usize)))
            .collect();
        Self { entries, texture_samplers }
    }

    /// Each texture's slot with its sampler's slot, as [`sampler_for`](Self::sampler_for)
    /// pairs them (textures without a sampler left out), in slot order.
    pub fn texture_samplers(&self) -> &[(usize, usize)] {
        &self.texture_samplers
    }

    /// Every binding, by slot.
    pub fn entries(&self) -> &[BindingInfo] {
        &self.entries
    }

    /// The binding at `slot`.
    pub fn get(&self, slot: BindingSlot) -> Option<&BindingInfo> {
        self.entries.get(slot.0 as usize)
    }

    /// The slot of the binding called `name` (its variable name, or a uniform block's type name).
    pub fn slot(&self, name: &str) -> Option<BindingSlot> {
        self.entries
            .iter()
            .position(|b| b.name == name)
            .or_else(|| self.entries.iter().position(|b| b.type_name.as_deref() == Some(name)))
            .map(|i| BindingSlot(i as u32))
    }

    /// The slot of the sampler that goes with texture `texture_name`: `<name>_sampler` when
    /// declared (the material convention), otherwise the only sampler of the layout.
    pub fn sampler_for(&self, texture_name: &str) -> Option<BindingSlot> {
        sampler_of(&self.entries, texture_name)
    }
}

/// [`BindingLayout::sampler_for`] over `entries`, without building the conventional name.
fn sampler_of(entries: &[BindingInfo], texture_name: &str) -> Option<BindingSlot> {
    let is_sampler = |b: &&BindingInfo| matches!(b.kind, BindingKind::Sampler { .. });
    let slot = |i: usize| BindingSlot(i as u32);
    // The lookup `BindingLayout::slot` makes of `<name>_sampler`: by name, then type name.
    let named = |name: Option<&str>| name.and_then(|n| n.strip_suffix("_sampler")) == Some(texture_name);
    let conventional = entries
        .iter()
        .position(|b| named(Some(&b.name)))
        .or_else(|| entries.iter().position(|b| named(b.type_name.as_deref())));
    if let Some(i) = conventional {
        return Some(slot(i));
    }
    let mut samplers = entries.iter().enumerate().filter(|(_, b)| is_sampler(b));
    match (samplers.next(), samplers.next()) {
        (Some((i, _)), None) => Some(slot(i)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(name: &str, binding: u32, kind: BindingKind) -> BindingInfo {
        BindingInfo {
            name: name.into(),
            type_name: None,
            group: 0,
            binding,
            kind,
            vertex: false,
            fragment: true,
        }
    }

    fn texture(name: &str, at: u32) -> BindingInfo {
        let kind =
            BindingKind::Texture { dimension: crate::TextureDimension::D2, depth: false, integer: false };
        binding(name, at, kind)
    }

    fn sampler(name: &str, at: u32) -> BindingInfo {
        binding(name, at, BindingKind::Sampler { comparison: false })
    }

    /// Textures pair with `<name>_sampler`, else with the layout's only sampler, and the
    /// pairs found once at construction are the ones `sampler_for` answers by name.
    #[test]
    fn textures_pair_with_their_conventional_or_only_sampler() {
        let two = BindingLayout::new(vec![
            texture("albedo", 0),
            sampler("albedo_sampler", 1),
            texture("normal", 2),
            sampler("normal_sampler", 3),
            texture("unpaired", 4),
        ]);
        assert_eq!(two.sampler_for("albedo"), Some(BindingSlot(1)));
        assert_eq!(two.sampler_for("normal"), Some(BindingSlot(3)));
        assert_eq!(two.sampler_for("unpaired"), None, "two samplers, neither its own");
        assert_eq!(two.sampler_for("albedo_sampler"), None);
        assert_eq!(two.texture_samplers(), &[(0, 1), (2, 3)]);

        let one = BindingLayout::new(vec![sampler("s", 5), texture("t", 4), texture("u", 6)]);
        assert_eq!(one.sampler_for("t"), Some(BindingSlot(1)), "the only sampler, sorted to slot 1");
        assert_eq!(one.texture_samplers(), &[(0, 1), (2, 1)]);

        let by_type = BindingLayout::new(vec![
            texture("t", 0),
            BindingInfo { type_name: Some("t_sampler".into()), ..sampler("renamed", 1) },
            sampler("other", 2),
        ]);
        assert_eq!(by_type.sampler_for("t"), Some(BindingSlot(1)), "the type name counts, as in `slot`");
        assert_eq!(BindingLayout::default().texture_samplers(), &[]);
    }
}
