//! Descriptor set layouts from reflection, and descriptor sets cached per pipeline.
//!
//! A pipeline's reflected [`BindingLayout`] becomes one set layout per `@group`: uniform blocks
//! as `UNIFORM_BUFFER_DYNAMIC` into the uniform ring, textures as `SAMPLED_IMAGE`, samplers as
//! `SAMPLER`, storage buffers as `STORAGE_BUFFER`. Sets are cached per pipeline by what they
//! hold (resource ids, the image layout, the ring's generation), so a draw that only changes
//! uniform bytes rebinds the same set with new dynamic offsets. A set is written once and
//! never updated after; a full cache (or a new ring generation) retires its pools to the
//! deferred queue, since the GPU may still read them, and starts over.

use std::collections::HashMap;

use ash::vk;
use f3d_hal::{BindingKind, BindingLayout, BindingSlot, DeviceError, backend};

use crate::pipeline::{Group, VkPipeline};
use crate::sync::{Core, Resource, SetCache, Shared};

/// Sets one pool holds.
const SETS_PER_POOL: u32 = 64;
/// Sets one pipeline keeps cached before its cache starts over.
const MAX_CACHED_SETS: usize = 1024;

fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::UniformBlock { .. } => vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
        BindingKind::Texture { .. } => vk::DescriptorType::SAMPLED_IMAGE,
        BindingKind::Sampler { .. } => vk::DescriptorType::SAMPLER,
        BindingKind::StorageBuffer { .. } => vk::DescriptorType::STORAGE_BUFFER,
    }
}

/// Checks the binding table: first the HAL's per-stage rule against the limits the device
/// reports ([`backend::check_binding_limits`]), then the Vulkan limits that rule does not
/// cover — descriptor sets, dynamic uniform buffers across all stages of the layout, storage
/// buffers.
pub(crate) fn check_binding_limits(
    layout: &BindingLayout,
    limits: &vk::PhysicalDeviceLimits,
    reported: &f3d_hal::DeviceLimits,
    operation: &'static str,
) -> Result<(), DeviceError> {
    backend::check_binding_limits(layout, reported)?;
    let over = |limit: &'static str, requested: u64, max: u64| {
        if requested > max {
            Err(DeviceError::LimitExceeded { operation, limit, requested, max })
        } else {
            Ok(())
        }
    };
    let count =
        |f: &dyn Fn(BindingKind) -> bool| layout.entries().iter().filter(|b| f(b.kind)).count() as u64;
    for b in layout.entries() {
        over("maxBoundDescriptorSets", u64::from(b.group) + 1, limits.max_bound_descriptor_sets.into())?;
    }
    over(
        "maxDescriptorSetUniformBuffersDynamic",
        count(&|k| matches!(k, BindingKind::UniformBlock { .. })),
        limits.max_descriptor_set_uniform_buffers_dynamic.into(),
    )?;
    over(
        "maxPerStageDescriptorStorageBuffers",
        count(&|k| matches!(k, BindingKind::StorageBuffer { .. })),
        limits.max_per_stage_descriptor_storage_buffers.into(),
    )?;
    Ok(())
}

/// One set layout per group the reflected `layout` uses, the pipeline layout over them (groups
/// no binding uses get an empty set layout), and the pool sizes a pool of cached sets needs.
/// Everything made is returned even on failure, for the caller to register and destroy.
pub(crate) fn build_layouts(
    device: &ash::Device,
    layout: &BindingLayout,
    compute: bool,
) -> (
    Vec<Group>,
    Vec<vk::DescriptorSetLayout>,
    Result<vk::PipelineLayout, vk::Result>,
    Vec<vk::DescriptorPoolSize>,
) {
    let entries = layout.entries();
    let groups_used = entries.last().map_or(0, |b| b.group + 1);
    let mut groups = Vec::new();
    let mut set_layouts = Vec::new();
    let mut max_per_type: HashMap<vk::DescriptorType, u32> = HashMap::new();
    for index in 0..groups_used {
        let slots: Vec<BindingSlot> = (0..entries.len())
            .filter(|&i| entries[i].group == index)
            .map(|i| BindingSlot(i as u32))
            .collect();
        let mut per_type: HashMap<vk::DescriptorType, u32> = HashMap::new();
        let bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = slots
            .iter()
            .map(|s| {
                let b = &entries[s.0 as usize];
                let mut stages = vk::ShaderStageFlags::empty();
                if compute {
                    stages |= vk::ShaderStageFlags::COMPUTE;
                }
                if b.vertex {
                    stages |= vk::ShaderStageFlags::VERTEX;
                }
                if b.fragment {
                    stages |= vk::ShaderStageFlags::FRAGMENT;
                }
                let ty = descriptor_type(b.kind);
                *per_type.entry(ty).or_default() += 1;
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(stages)
            })
            .collect();
        for (ty, n) in per_type {
            let m = max_per_type.entry(ty).or_default();
            *m = (*m).max(n);
        }
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: binding numbers are unique within a group (naga validated the module and
        // reflection merged stages by group and binding).
        match unsafe { device.create_descriptor_set_layout(&info, None) } {
            Ok(l) => {
                set_layouts.push(l);
                if !slots.is_empty() {
                    groups.push(Group { index, layout: l, slots });
                }
            }
            Err(e) => return (groups, set_layouts, Err(e), Vec::new()),
        }
    }
    let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
    // SAFETY: every set layout was made above on this device.
    let pipeline_layout = unsafe { device.create_pipeline_layout(&info, None) };
    let pool_sizes = max_per_type
        .into_iter()
        .map(|(ty, n)| vk::DescriptorPoolSize { ty, descriptor_count: n * SETS_PER_POOL })
        .collect();
    (groups, set_layouts, pipeline_layout, pool_sizes)
}

/// What one slot of a descriptor set holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SetEntry {
    /// A uniform block in the ring: `size` bytes at a dynamic offset.
    Uniform {
        size: u32,
    },
    Texture {
        id: u64,
        view: vk::ImageView,
        layout: vk::ImageLayout,
    },
    Sampler {
        id: u64,
        sampler: vk::Sampler,
    },
    Storage {
        id: u64,
        buffer: vk::Buffer,
        range: u64,
    },
}

impl SetEntry {
    pub(crate) fn key(&self) -> u64 {
        match *self {
            SetEntry::Uniform { .. } => 0,
            SetEntry::Texture { id, layout, .. } => {
                (id << 2) | u64::from(layout == vk::ImageLayout::DEPTH_STENCIL_READ_ONLY_OPTIMAL)
            }
            SetEntry::Sampler { id, .. } | SetEntry::Storage { id, .. } => id << 2,
        }
    }
}

/// The descriptor set of `group` of `pipeline` holding `entries` (one per slot of the group,
/// in order): from the cache, or allocated and written once.
pub(crate) fn descriptor_set(
    core: &mut Core,
    shared: &Shared,
    pipeline: &VkPipeline,
    group: &Group,
    entries: &[SetEntry],
    operation: &'static str,
) -> Result<vk::DescriptorSet, DeviceError> {
    let generation = core.ring.generation();
    let ring = core.ring.buffer();
    let key = (group.index, entries.iter().map(SetEntry::key).collect::<Vec<_>>());
    let stale = core
        .sets
        .get(&pipeline.id)
        .is_some_and(|c| c.ring_generation != generation || c.sets.len() >= MAX_CACHED_SETS);
    if stale && let Some(old) = core.sets.remove(&pipeline.id) {
        core.retire_now(Resource::Pools(old.pools));
    }
    if let Some(set) = core.sets.get(&pipeline.id).and_then(|c| c.sets.get(&key)) {
        return Ok(*set);
    }
    let set = allocate(core, shared, pipeline, group, operation)?;
    let mut buffers = Vec::with_capacity(entries.len());
    let mut images = Vec::with_capacity(entries.len());
    for e in entries {
        match *e {
            SetEntry::Uniform { size } => buffers.push(vk::DescriptorBufferInfo {
                buffer: ring.unwrap_or_default(),
                offset: 0,
                range: u64::from(size),
            }),
            SetEntry::Storage { buffer, range, .. } => {
                buffers.push(vk::DescriptorBufferInfo { buffer, offset: 0, range })
            }
            SetEntry::Texture { view, layout, .. } => images.push(vk::DescriptorImageInfo {
                sampler: vk::Sampler::null(),
                image_view: view,
                image_layout: layout,
            }),
            SetEntry::Sampler { sampler, .. } => images.push(vk::DescriptorImageInfo {
                sampler,
                image_view: vk::ImageView::null(),
                image_layout: vk::ImageLayout::UNDEFINED,
            }),
        }
    }
    let mut writes = Vec::with_capacity(entries.len());
    let (mut bi, mut ii) = (0, 0);
    let bindings = binding_numbers(pipeline, group);
    for (e, binding) in entries.iter().zip(bindings) {
        let w = vk::WriteDescriptorSet::default().dst_set(set).dst_binding(binding);
        let w = match e {
            SetEntry::Uniform { .. } => {
                bi += 1;
                w.descriptor_type(vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC)
                    .buffer_info(std::slice::from_ref(&buffers[bi - 1]))
            }
            SetEntry::Storage { .. } => {
                bi += 1;
                w.descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(std::slice::from_ref(&buffers[bi - 1]))
            }
            SetEntry::Texture { .. } => {
                ii += 1;
                w.descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                    .image_info(std::slice::from_ref(&images[ii - 1]))
            }
            SetEntry::Sampler { .. } => {
                ii += 1;
                w.descriptor_type(vk::DescriptorType::SAMPLER)
                    .image_info(std::slice::from_ref(&images[ii - 1]))
            }
        };
        writes.push(w);
    }
    // SAFETY: the set is fresh (never bound), every handle written is alive, and each write
    // matches the type its layout binding declares.
    unsafe { shared.device.update_descriptor_sets(&writes, &[]) };
    if let Some(cache) = core.sets.get_mut(&pipeline.id) {
        cache.sets.insert(key, set);
    }
    Ok(set)
}

/// The binding numbers of `group`'s slots, in order. The binding table lives in the pipeline
/// handle; the payload keeps the numbers it needs for writes.
fn binding_numbers<'a>(pipeline: &'a VkPipeline, group: &'a Group) -> impl Iterator<Item = u32> + 'a {
    group.slots.iter().map(move |s| pipeline.binding_numbers.get(s.0 as usize).copied().unwrap_or_default())
}

fn allocate(
    core: &mut Core,
    shared: &Shared,
    pipeline: &VkPipeline,
    group: &Group,
    operation: &'static str,
) -> Result<vk::DescriptorSet, DeviceError> {
    let generation = core.ring.generation();
    let layouts = [group.layout];
    let try_pool = |pool: vk::DescriptorPool| {
        let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        // SAFETY: the pool and layout belong to this device; pools are used under the core lock.
        unsafe { shared.device.allocate_descriptor_sets(&info) }.ok().and_then(|v| v.first().copied())
    };
    let cache = core
        .sets
        .entry(pipeline.id)
        .or_insert_with(|| SetCache { ring_generation: generation, ..SetCache::default() });
    if let Some(set) = cache.pools.last().copied().and_then(try_pool) {
        return Ok(set);
    }
    let info =
        vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_POOL).pool_sizes(&pipeline.pool_sizes);
    // SAFETY: a plain creation on this device.
    let pool = unsafe { shared.device.create_descriptor_pool(&info, None) }
        .map_err(|e| shared.vk_error(operation, e))?;
    cache.pools.push(pool);
    core.created(1);
    try_pool(pool).ok_or_else(|| shared.vk_error(operation, vk::Result::ERROR_OUT_OF_POOL_MEMORY))
}
