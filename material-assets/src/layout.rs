//! Uniform block layouts, read from naga: member offsets from the struct naga built and sizes
//! from `naga::proc::Layouter`. Nothing here computes an offset by hand, so the bytes the app
//! packs are the bytes every backend's shader reads.

use f3d_hal::naga;

use crate::format::{MaterialDesc, ParamType};
use crate::{MaterialError, source::Location};

/// The material block's type name and variable name (DESIGN §5).
pub const MATERIAL_BLOCK_TYPE: &str = "MaterialParams";
/// The variable user code reads the block through: `material_params.<name>`.
pub const MATERIAL_BLOCK_VAR: &str = "material_params";
/// The material group.
pub const MATERIAL_GROUP: u32 = 1;
/// The uniform array of material blocks (one element per material slot) that a material
/// compiled with [`CompileOptions::material_array_bytes`](crate::CompileOptions) declares at
/// binding 0 of the material group, instead of the single `material_params` block.
pub const MATERIAL_ARRAY_VAR: &str = "f3d_materials";
/// The number of slots of a material compiled with
/// [`CompileOptions::material_storage`](crate::CompileOptions::material_storage): its array
/// is a runtime-sized `var<storage, read>` array, so one table holds any number of materials.
pub const STORAGE_SLOTS: u32 = u32::MAX;

/// One member of a uniform block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLayout {
    /// The member's name.
    pub name: String,
    /// Its byte offset in the block.
    pub offset: u32,
    /// Its size in bytes.
    pub size: u32,
    /// Its WGSL type, as naga prints it (`vec3<f32>`).
    pub ty: String,
}

/// A uniform block as a shader declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    /// The variable's name (`material_params`).
    pub name: String,
    /// The block type's name (`MaterialParams`).
    pub type_name: String,
    /// Its group.
    pub group: u32,
    /// Its binding.
    pub binding: u32,
    /// Its size in bytes, padding included.
    pub size: u32,
    /// Its members, in declaration order.
    pub members: Vec<MemberLayout>,
}

impl BlockLayout {
    /// The member called `name`.
    pub fn member(&self, name: &str) -> Option<&MemberLayout> {
        self.members.iter().find(|m| m.name == name)
    }

    /// A text dump (`name @ offset (size) type` per line), for snapshots and `--emit reflection`.
    pub fn dump(&self) -> String {
        let mut s = format!(
            "{} {} (group {}, binding {}): {} bytes\n",
            self.type_name, self.name, self.group, self.binding, self.size
        );
        for m in &self.members {
            s += &format!("  {:<24} @ {:>5} ({:>3}) {}\n", m.name, m.offset, m.size, m.ty);
        }
        s
    }
}

/// Every uniform block the module declares, with naga's layout.
pub fn uniform_blocks(module: &naga::Module) -> Vec<BlockLayout> {
    let mut layouter = naga::proc::Layouter::default();
    if layouter.update(module.to_ctx()).is_err() {
        return Vec::new();
    }
    module
        .global_variables
        .iter()
        .filter(|(_, v)| v.space == naga::AddressSpace::Uniform)
        .filter_map(|(_, v)| {
            let binding = v.binding.as_ref()?;
            let ty = &module.types[v.ty];
            let members = match &ty.inner {
                naga::TypeInner::Struct { members, .. } => members
                    .iter()
                    .map(|m| MemberLayout {
                        name: m.name.clone().unwrap_or_default(),
                        offset: m.offset,
                        size: layouter[m.ty].size,
                        ty: type_name_of(module, m.ty),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Some(BlockLayout {
                name: v.name.clone().unwrap_or_default(),
                type_name: ty.name.clone().unwrap_or_default(),
                group: binding.group,
                binding: binding.binding,
                size: layouter[v.ty].size,
                members,
            })
        })
        .collect()
}

pub(crate) fn type_name_of(module: &naga::Module, ty: naga::Handle<naga::Type>) -> String {
    let t = &module.types[ty];
    if let Some(name) = &t.name {
        return name.clone();
    }
    let scalar = |s: &naga::Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Float, 4) => "f32",
        (naga::ScalarKind::Sint, 4) => "i32",
        (naga::ScalarKind::Uint, 4) => "u32",
        (naga::ScalarKind::Bool, _) => "bool",
        _ => "?",
    };
    match &t.inner {
        naga::TypeInner::Scalar(s) => scalar(s).to_owned(),
        naga::TypeInner::Vector { size, scalar: s } => format!("vec{}<{}>", *size as u8, scalar(s)),
        naga::TypeInner::Matrix { columns, rows, scalar: s } => {
            format!("mat{}x{}<{}>", *columns as u8, *rows as u8, scalar(s))
        }
        naga::TypeInner::Array { base, size: naga::ArraySize::Constant(n), .. } => {
            format!("array<{}, {}>", type_name_of(module, *base), n)
        }
        other => format!("{other:?}"),
    }
}

/// The WGSL declaration of the material block for these parameters (in order, textures
/// skipped), with member names from `name_of`; `None` when no parameter lives in the block.
pub(crate) fn block_wgsl(desc: &MaterialDesc, name_of: impl Fn(usize, &str) -> String) -> Option<String> {
    let members: Vec<String> = desc
        .parameters
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.ty.is_texture())
        .map(|(i, p)| format!("    {}: {},\n", name_of(i, &p.name), p.ty.wgsl()))
        .collect();
    (!members.is_empty()).then(|| format!("struct {MATERIAL_BLOCK_TYPE} {{\n{}}}\n", members.concat()))
}

/// Lays the block out with naga alone (member names replaced, so that a bad name cannot hide
/// a size problem) and refuses a block larger than the smallest limit any device promises,
/// pointing at the first parameter past it.
pub(crate) fn check_block_size(
    desc: &MaterialDesc,
    location_of: impl Fn(usize) -> Location,
) -> Option<MaterialError> {
    let limit = f3d_hal::DeviceLimits::GUARANTEED.max_uniform_block_size;
    let wgsl = block_wgsl(desc, |i, _| format!("p{i}"))?;
    let module = naga::front::wgsl::parse_str(&format!(
        "{wgsl}@group(1) @binding(0) var<uniform> {MATERIAL_BLOCK_VAR}: {MATERIAL_BLOCK_TYPE};"
    ))
    .ok()?;
    let block = uniform_blocks(&module).into_iter().next()?;
    if block.size <= limit {
        return None;
    }
    let past = block.members.iter().find(|m| m.offset + m.size > limit).or(block.members.last())?;
    let index: usize = past.name.trim_start_matches('p').parse().ok()?;
    let p = desc.parameters.get(index)?;
    Some(MaterialError::BlockTooLarge {
        at: location_of(index),
        parameter: p.name.clone(),
        declared: p.ty,
        size: block.size,
        limit,
    })
}

/// Where one parameter lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamSlot {
    /// A member of the `MaterialParams` block.
    Block {
        /// Byte offset (from naga).
        offset: u32,
        /// Byte size (from naga).
        size: u32,
    },
    /// A texture binding and its sampler's binding, in group 1.
    Texture {
        /// The texture's binding.
        binding: u32,
        /// The sampler's binding (`<name>_sampler`).
        sampler_binding: u32,
    },
}

/// The material's parameter layout: the block (from naga) and the texture bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaterialLayout {
    /// The block, if any parameter is a number.
    pub block: Option<BlockLayout>,
    /// Each parameter's name, type and slot, in declaration order.
    pub slots: Vec<(String, ParamType, ParamSlot)>,
}

impl MaterialLayout {
    /// Lays out a checked material's parameters through naga.
    pub fn new(desc: &MaterialDesc) -> Result<Self, String> {
        let block = match block_wgsl(desc, |_, n| n.to_owned()) {
            None => None,
            Some(wgsl) => {
                let src = format!(
                    "{wgsl}@group({MATERIAL_GROUP}) @binding(0) var<uniform> {MATERIAL_BLOCK_VAR}: {MATERIAL_BLOCK_TYPE};"
                );
                let module = naga::front::wgsl::parse_str(&src).map_err(|e| e.message().to_owned())?;
                uniform_blocks(&module).into_iter().next()
            }
        };
        let mut next_binding = 1;
        let mut slots = Vec::with_capacity(desc.parameters.len());
        for p in &desc.parameters {
            let slot = if p.ty.is_texture() {
                let s = ParamSlot::Texture { binding: next_binding, sampler_binding: next_binding + 1 };
                next_binding += 2;
                s
            } else {
                let m = block
                    .as_ref()
                    .and_then(|b| b.member(&p.name))
                    .ok_or_else(|| format!("naga laid out no member `{}`", p.name))?;
                ParamSlot::Block { offset: m.offset, size: m.size }
            };
            slots.push((p.name.clone(), p.ty, slot));
        }
        Ok(Self { block, slots })
    }

    /// Bytes from one material's block to the next in a material array: the block's size
    /// rounded up to 16 (uniform arrays step in multiples of 16); `None` without a block.
    pub fn slot_stride(&self) -> Option<u32> {
        self.block.as_ref().map(|b| b.size.max(1).div_ceil(16) * 16)
    }

    /// How many materials' blocks a material array of at most `budget` bytes holds: at least
    /// one when there is a block and a budget, 0 when either is missing (the material is then
    /// compiled with the single `material_params` block).
    pub fn array_len(&self, budget: u32) -> u32 {
        match self.slot_stride() {
            Some(stride) if budget > 0 => (budget / stride).max(1),
            _ => 0,
        }
    }

    /// The WGSL declarations of the material group: the block and each texture with its sampler.
    ///
    /// With `slots > 0` the group holds an array of `slots` blocks instead
    /// ([`MATERIAL_ARRAY_VAR`]): a uniform array, or with `slots` [`STORAGE_SLOTS`] a
    /// runtime-sized read-only storage array. `material_params` is then a private copy of one
    /// element, chosen per instance by `f3d_select_material(slot)` before any user code runs,
    /// so user code reads `material_params.<name>` the same way in every form.
    pub fn declarations(&self, desc: &MaterialDesc, slots: u32) -> String {
        let mut s = String::new();
        if let Some(wgsl) = block_wgsl(desc, |_, n| n.to_owned()) {
            s += &wgsl;
            match self.slot_stride().filter(|_| slots > 0) {
                None => {
                    s += &format!(
                        "@group({MATERIAL_GROUP}) @binding(0) var<uniform> {MATERIAL_BLOCK_VAR}: {MATERIAL_BLOCK_TYPE};\n"
                    );
                }
                Some(stride) if slots == STORAGE_SLOTS => {
                    // Storage arrays are read robustly by every backend: a slot past the end
                    // reads zeros or another slot, never outside the buffer.
                    s += &format!(
                        "struct F3D_MaterialSlot {{\n    @align(16) @size({stride}) params: {MATERIAL_BLOCK_TYPE},\n}}\n\
                         @group({MATERIAL_GROUP}) @binding(0) var<storage, read> {MATERIAL_ARRAY_VAR}: array<F3D_MaterialSlot>;\n\
                         var<private> {MATERIAL_BLOCK_VAR}: {MATERIAL_BLOCK_TYPE};\n\
                         var<private> f3d_material_slot: u32;\n\
                         fn f3d_select_material(slot: u32) {{\n\
                         \x20   f3d_material_slot = slot;\n\
                         \x20   {MATERIAL_BLOCK_VAR} = {MATERIAL_ARRAY_VAR}[f3d_material_slot].params;\n}}\n"
                    );
                }
                Some(stride) => {
                    s += &format!(
                        "struct F3D_MaterialSlot {{\n    @align(16) @size({stride}) params: {MATERIAL_BLOCK_TYPE},\n}}\n\
                         @group({MATERIAL_GROUP}) @binding(0) var<uniform> {MATERIAL_ARRAY_VAR}: array<F3D_MaterialSlot, {slots}>;\n\
                         var<private> {MATERIAL_BLOCK_VAR}: {MATERIAL_BLOCK_TYPE};\n\
                         var<private> f3d_material_slot: u32;\n\
                         fn f3d_select_material(slot: u32) {{\n\
                         \x20   f3d_material_slot = min(slot, {last}u);\n\
                         \x20   {MATERIAL_BLOCK_VAR} = {MATERIAL_ARRAY_VAR}[f3d_material_slot].params;\n}}\n",
                        last = slots - 1
                    );
                }
            }
        }
        for (name, ty, slot) in &self.slots {
            if let ParamSlot::Texture { binding, sampler_binding } = slot {
                s += &format!("@group({MATERIAL_GROUP}) @binding({binding}) var {name}: {};\n", ty.wgsl());
                s += &format!(
                    "@group({MATERIAL_GROUP}) @binding({sampler_binding}) var {name}_sampler: sampler;\n"
                );
            }
        }
        s
    }
}
