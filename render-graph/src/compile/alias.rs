//! Stage 4: which transient textures share memory.
//!
//! Each used transient resolves to a [`PhysicalKey`] (its descriptor at this output size,
//! without usage). Transients are placed in first-use order (texture index breaking ties)
//! into *slots*: the lowest-numbered slot with the same key whose occupant's lifetime ended
//! before this one begins, or a new slot. A slot becomes one physical texture at execute
//! time, with the union of its occupants' usages. Imported textures are never aliased.
//!
//! The plan is computed without a device; [`TransientPool`](crate::TransientPool) maps slots
//! onto physical textures when the graph executes.

use f3d_hal::{TextureDescriptor, TextureDimension, TextureFormat, TextureUsages};

use crate::GraphError;
use crate::builder::{Origin, RenderGraph};
use crate::compile::lifetimes::Lifetimes;
use crate::compile::order::NONE;
use crate::resource::TextureSize;

/// What makes two transients interchangeable: everything in a texture descriptor but the
/// label and the usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PhysicalKey {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) format: TextureFormat,
    pub(crate) mip_level_count: u32,
    pub(crate) array_layers: u32,
    pub(crate) sample_count: u32,
    pub(crate) dimension: TextureDimension,
}

impl PhysicalKey {
    pub(crate) fn descriptor(&self, label: String, usage: TextureUsages) -> TextureDescriptor {
        TextureDescriptor {
            label,
            width: self.width,
            height: self.height,
            array_layers: self.array_layers,
            mip_level_count: self.mip_level_count,
            sample_count: self.sample_count,
            dimension: self.dimension,
            format: self.format,
            usage,
        }
    }

    pub(crate) fn of(desc: &TextureDescriptor) -> Self {
        Self {
            width: desc.width,
            height: desc.height,
            format: desc.format,
            mip_level_count: desc.mip_level_count,
            array_layers: desc.array_layers,
            sample_count: desc.sample_count,
            dimension: desc.dimension,
        }
    }

    /// Bytes the texture takes, all levels and layers.
    pub(crate) fn bytes(&self) -> u64 {
        self.descriptor(String::new(), TextureUsages::empty()).total_bytes()
    }
}

/// Every texture's physical shape at `output` size: transients resolved, imported ones read
/// from their handles.
pub(crate) fn resolve(graph: &RenderGraph, output: (u32, u32)) -> Result<Vec<PhysicalKey>, GraphError> {
    graph
        .resources
        .iter()
        .map(|r| match &r.origin {
            Origin::Imported { handle, .. } => Ok(PhysicalKey::of(handle.descriptor())),
            Origin::Transient(desc) => {
                let invalid =
                    |reason: String| GraphError::InvalidSize { resource: r.name.to_string(), reason };
                let (width, height) = match desc.size {
                    TextureSize::Absolute(w, h) => (w, h),
                    TextureSize::Relative { scale } => {
                        if !(scale.is_finite() && scale > 0.0) {
                            return Err(invalid(format!("relative scale {scale} is not a positive number")));
                        }
                        let axis = |extent: u32| (f64::from(extent) * f64::from(scale)).round();
                        let (w, h) = (axis(output.0), axis(output.1));
                        if w > f64::from(u32::MAX) || h > f64::from(u32::MAX) {
                            return Err(invalid(format!("{scale} × {}x{} overflows", output.0, output.1)));
                        }
                        ((w as u32).max(1), (h as u32).max(1))
                    }
                };
                if width == 0 || height == 0 {
                    return Err(invalid(format!("{width}x{height} has no texels")));
                }
                Ok(PhysicalKey {
                    width,
                    height,
                    format: desc.format,
                    mip_level_count: desc.mip_level_count,
                    array_layers: desc.array_layers,
                    sample_count: desc.sample_count,
                    dimension: desc.dimension,
                })
            }
        })
        .collect()
}

/// One physical texture of the plan.
pub(crate) struct Slot {
    pub(crate) key: PhysicalKey,
    pub(crate) usage: TextureUsages,
    /// The first texture placed in it (names the allocation).
    pub(crate) first_resource: u32,
    /// How many textures share it.
    pub(crate) occupants: u32,
    /// Last position of the current occupant.
    busy_until: u32,
}

pub(crate) struct AliasPlan {
    /// Per texture: its slot, or [`NONE`] (imported or unused).
    pub(crate) slot_of: Vec<u32>,
    pub(crate) slots: Vec<Slot>,
    /// Bytes the used transients would take, one texture each.
    pub(crate) bytes_requested: u64,
    /// Bytes the slots take.
    pub(crate) bytes_allocated: u64,
}

pub(crate) fn alias(graph: &RenderGraph, keys: &[PhysicalKey], lifetimes: &Lifetimes) -> AliasPlan {
    let mut transients: Vec<(u32, u32)> = graph
        .resources
        .iter()
        .enumerate()
        .filter(|&(r, resource)| !resource.is_imported() && lifetimes.is_used(r))
        .map(|(r, _)| (lifetimes.first[r], r as u32))
        .collect();
    transients.sort_unstable();

    let mut slot_of = vec![NONE; graph.resources.len()];
    let mut slots: Vec<Slot> = Vec::with_capacity(transients.len().min(16));
    let mut bytes_requested = 0;
    for (first, r) in transients {
        let key = keys[r as usize];
        let usage = lifetimes.usage[r as usize];
        let last = lifetimes.last[r as usize];
        bytes_requested += key.bytes();
        let free = slots.iter().position(|s| s.key == key && s.busy_until < first);
        let slot = match free {
            Some(i) => {
                let s = &mut slots[i];
                s.usage |= usage;
                s.occupants += 1;
                s.busy_until = last;
                i
            }
            None => {
                slots.push(Slot { key, usage, first_resource: r, occupants: 1, busy_until: last });
                slots.len() - 1
            }
        };
        slot_of[r as usize] = slot as u32;
    }
    let bytes_allocated = slots.iter().map(|s| s.key.bytes()).sum();
    AliasPlan { slot_of, slots, bytes_requested, bytes_allocated }
}
