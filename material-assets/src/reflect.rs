//! Reflection: what resources a shader stage declares, read from the validated naga module.
//!
//! Backends build their binding tables from this, so bind-by-name means the same thing on
//! every backend, and nothing about a binding is ever hand-written twice.

use f3d_hal::naga;
use f3d_hal::{BindingInfo, BindingKind, BindingLayout, ShaderStage, TextureDimension, ValidatedModule};

/// Why a stage's bindings could not be reflected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReflectError {
    /// The module has no entry point of that stage and name.
    #[error("the module has no {stage} entry point named {entry_point}")]
    NoEntryPoint {
        /// The stage asked for.
        stage: ShaderStage,
        /// The name asked for.
        entry_point: String,
    },
    /// A resource of a kind f3d does not bind.
    #[error("{name} (group {group}, binding {binding}) is a {what}, which f3d cannot bind")]
    UnsupportedResource {
        /// The variable's name.
        name: String,
        /// Its group.
        group: u32,
        /// Its binding.
        binding: u32,
        /// What it is.
        what: String,
    },
    /// Two stages declare the same group and binding differently.
    #[error("group {group} binding {binding} is {first} in one stage and {second} in another")]
    Conflict {
        /// The group.
        group: u32,
        /// The binding.
        binding: u32,
        /// The first declaration's name.
        first: String,
        /// The second declaration's name.
        second: String,
    },
}

/// The resources the entry point `entry_point` of `stage` uses (not merely declares).
pub fn stage_bindings(
    module: &ValidatedModule,
    stage: ShaderStage,
    entry_point: &str,
) -> Result<Vec<BindingInfo>, ReflectError> {
    let index = module
        .entry_point_index(stage, entry_point)
        .ok_or_else(|| ReflectError::NoEntryPoint { stage, entry_point: entry_point.to_owned() })?;
    let m = module.module();
    let uses = module.info().get_entry_point(index);
    let mut out = Vec::new();
    for (handle, var) in m.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        if uses[handle].is_empty() {
            continue;
        }
        let name = var.name.clone().unwrap_or_else(|| format!("binding_{}_{}", rb.group, rb.binding));
        let unsupported = |what: &str| ReflectError::UnsupportedResource {
            name: name.clone(),
            group: rb.group,
            binding: rb.binding,
            what: what.to_owned(),
        };
        let ty = &m.types[var.ty];
        let kind = match (&var.space, &ty.inner) {
            (naga::AddressSpace::Uniform, inner) => {
                BindingKind::UniformBlock { size: inner.size(m.to_ctx()) }
            }
            (naga::AddressSpace::Storage { access }, _) => {
                BindingKind::StorageBuffer { read_only: !access.contains(naga::StorageAccess::STORE) }
            }
            (naga::AddressSpace::Handle, naga::TypeInner::Sampler { comparison }) => {
                BindingKind::Sampler { comparison: *comparison }
            }
            (naga::AddressSpace::Handle, naga::TypeInner::Image { dim, arrayed, class }) => {
                let dimension = match (dim, arrayed) {
                    (naga::ImageDimension::D2, false) => TextureDimension::D2,
                    (naga::ImageDimension::D2, true) => TextureDimension::D2Array,
                    (naga::ImageDimension::Cube, false) => TextureDimension::Cube,
                    _ => return Err(unsupported(&format!("{dim:?} image (arrayed: {arrayed})"))),
                };
                let (depth, integer) = match class {
                    naga::ImageClass::Sampled { kind, multi: false } => {
                        (false, matches!(kind, naga::ScalarKind::Sint | naga::ScalarKind::Uint))
                    }
                    naga::ImageClass::Depth { multi: false } => (true, false),
                    other => return Err(unsupported(&format!("{other:?} image"))),
                };
                BindingKind::Texture { dimension, depth, integer }
            }
            (space, _) => return Err(unsupported(&format!("{space:?} resource"))),
        };
        let type_name = match var.space {
            naga::AddressSpace::Uniform => ty.name.clone(),
            _ => None,
        };
        out.push(BindingInfo {
            name,
            type_name,
            group: rb.group,
            binding: rb.binding,
            kind,
            vertex: stage == ShaderStage::Vertex,
            fragment: stage == ShaderStage::Fragment,
        });
    }
    Ok(out)
}

/// The binding table of a pipeline made of these stages: each stage's bindings, merged by
/// group and binding. Two stages may share a binding only if they declare the same kind.
pub fn pipeline_bindings(
    stages: &[(&ValidatedModule, ShaderStage, &str)],
) -> Result<BindingLayout, ReflectError> {
    let mut merged: Vec<BindingInfo> = Vec::new();
    for (module, stage, entry) in stages {
        for b in stage_bindings(module, *stage, entry)? {
            match merged.iter_mut().find(|m| (m.group, m.binding) == (b.group, b.binding)) {
                Some(m) if m.kind == b.kind => {
                    m.vertex |= b.vertex;
                    m.fragment |= b.fragment;
                }
                Some(m) => {
                    return Err(ReflectError::Conflict {
                        group: b.group,
                        binding: b.binding,
                        first: m.name.clone(),
                        second: b.name,
                    });
                }
                None => merged.push(b),
            }
        }
    }
    Ok(BindingLayout::new(merged))
}
