//! Compute: pipelines from reflected layouts, dispatches with uniforms in the ring and storage
//! buffers bound by name, and reading buffers back.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use ash::vk;
use f3d_hal::backend;
use f3d_hal::{
    BackendId, BindingKind, ComputePipelineDescriptor, DeviceError, DeviceFeature, GeometryBuffer,
    GeometryUsages, GraphicsDevice, PipelineHandle, PipelineInfo, ShaderStage,
};
use f3d_materials::reflect;

use crate::descriptor::{SetEntry, build_layouts, check_binding_limits, descriptor_set};
use crate::device::VulkanDevice;
use crate::pipeline::{VkPipeline, VkShader, entry_name};
use crate::readback::read_buffer;
use crate::ring::push_block;
use crate::sync::Resource;
use crate::texture::VkGeometry;

pub(crate) fn create_compute_pipeline(
    dev: &VulkanDevice,
    desc: &ComputePipelineDescriptor,
) -> Result<PipelineHandle, DeviceError> {
    const OP: &str = "create_compute_pipeline";
    dev.alive(OP)?;
    let shader = backend::shader_payload::<VkShader>(dev.owner(), &desc.shader, OP)?;
    let sd = desc.shader.descriptor();
    if sd.stage != ShaderStage::Compute {
        return Err(DeviceError::InvalidDescriptor {
            operation: OP,
            label: desc.label.clone(),
            reason: format!("{} is a {} shader, not a compute shader", sd.label, sd.stage),
        });
    }
    let stages = [(&*sd.module, ShaderStage::Compute, sd.entry_point.as_str())];
    let bindings = reflect::pipeline_bindings(&stages)
        .map_err(|e| DeviceError::Shader { label: desc.label.clone(), message: e.to_string() })?;
    check_binding_limits(&bindings, &dev.shared.caps.limits, dev.limits(), OP)?;
    let shared = &dev.shared;
    let (id, pipeline, layout, groups, pool_sizes) = dev.checked(OP, || {
        let (groups, set_layouts, layout, pool_sizes) = build_layouts(&shared.device, &bindings, true);
        let layout = match layout {
            Ok(l) => l,
            Err(e) => {
                for l in set_layouts {
                    // SAFETY: the set layouts were just made and are unused.
                    unsafe { shared.device.destroy_descriptor_set_layout(l, None) };
                }
                return Err(shared.vk_error(OP, e));
            }
        };
        let name = entry_name(&sd.entry_point);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader.module)
            .name(&name);
        let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout);
        let made = {
            let _turn = crate::pipeline::driver_compile_turn();
            // SAFETY: the module holds the entry point; the layout came from its reflection.
            unsafe { shared.device.create_compute_pipelines(shared.pipeline_cache, &[info], None) }
        };
        let (pipeline, failure) = match made {
            Ok(p) => (p.first().copied().unwrap_or_default(), None),
            Err((_, e)) => (vk::Pipeline::null(), Some(e)),
        };
        let mut core = shared.core();
        let id = core.register(Resource::Pipeline { pipeline, layout, set_layouts });
        if let Some(e) = failure {
            core.release_now(id);
            return Err(DeviceError::Shader {
                label: desc.label.clone(),
                message: format!("the driver did not build it: {e}"),
            });
        }
        Ok((id, pipeline, layout, groups, pool_sizes))
    })?;
    let payload = VkPipeline {
        shared: Arc::downgrade(&dev.shared),
        id,
        pipeline,
        layout,
        groups,
        binding_numbers: bindings.entries().iter().map(|b| b.binding).collect(),
        pool_sizes,
        render: false,
        writes_depth_stencil: false,
        refusal: None,
        refusal_reported: AtomicBool::new(false),
        _live: dev.live_token(),
    };
    let info = PipelineInfo { label: desc.label.clone(), bindings, render: None };
    Ok(backend::wrap_pipeline(dev.owner(), info, payload))
}

pub(crate) fn dispatch(
    dev: &VulkanDevice,
    pipeline: &PipelineHandle,
    uniforms: &[(&str, &[u8])],
    storage: &[(&str, &GeometryBuffer)],
    groups: [u32; 3],
) -> Result<(), DeviceError> {
    const OP: &str = "dispatch";
    dev.alive(OP)?;
    let p = backend::pipeline_payload::<VkPipeline>(dev.owner(), pipeline, OP)?;
    let refused = |reason: String| DeviceError::Refused { operation: OP, reason };
    if p.render {
        return Err(refused(format!("{} is not a compute pipeline", pipeline.label())));
    }
    let max = dev.shared.caps.limits.max_compute_work_group_count;
    for (n, m) in groups.iter().zip(max) {
        if *n > m {
            return Err(DeviceError::LimitExceeded {
                operation: OP,
                limit: "maxComputeWorkGroupCount",
                requested: (*n).into(),
                max: m.into(),
            });
        }
    }
    let layout = pipeline.bindings();
    for (name, _) in uniforms {
        if layout.slot(name).is_none() {
            return Err(refused(format!("{} declares no uniform block {name}", pipeline.label())));
        }
    }
    for (name, _) in storage {
        if layout.slot(name).is_none() {
            return Err(refused(format!("{} declares no storage buffer {name}", pipeline.label())));
        }
    }
    let shared = &dev.shared;
    let align = shared.core().ring.align();
    let mut staging = Vec::new();
    let mut entries: HashMap<usize, (SetEntry, Option<u32>)> = HashMap::new();
    for (i, b) in layout.entries().iter().enumerate() {
        let named = |n: &str| n == b.name || b.type_name.as_deref() == Some(n);
        match b.kind {
            BindingKind::UniformBlock { size } => {
                let Some((_, bytes)) = uniforms.iter().find(|(n, _)| named(n)) else {
                    return Err(refused(format!(
                        "uniform block {} of {} is not given",
                        b.name,
                        pipeline.label()
                    )));
                };
                if !b.accepts_uniform_bytes(bytes) {
                    return Err(refused(format!(
                        "{} bytes are too few for uniform block {}",
                        bytes.len(),
                        b.name
                    )));
                }
                let offset = push_block(&mut staging, align, &bytes[..size as usize]);
                entries.insert(i, (SetEntry::Uniform { size }, Some(offset)));
            }
            BindingKind::StorageBuffer { .. } => {
                let Some((_, buffer)) = storage.iter().find(|(n, _)| named(n)) else {
                    return Err(refused(format!(
                        "storage buffer {} of {} is not given",
                        b.name,
                        pipeline.label()
                    )));
                };
                if !buffer.descriptor().usage.contains(GeometryUsages::STORAGE) {
                    return Err(DeviceError::MissingUsage {
                        operation: OP,
                        label: buffer.label(),
                        usage: "STORAGE",
                    });
                }
                let g = dev.geometry(buffer, OP)?;
                entries.insert(
                    i,
                    (SetEntry::Storage { id: g.id, buffer: g.buffer, range: buffer.descriptor().size }, None),
                );
            }
            _ => {
                return Err(refused(format!("{} binds {}, which dispatch cannot", pipeline.label(), b.name)));
            }
        }
    }
    dev.checked(OP, || {
        let mut core = shared.core();
        let cmd = core.cmd(shared, OP)?;
        let base = crate::ring::upload(&mut core, shared, &staging, OP)?;
        // Orders the shader's writes after every earlier access of any buffer, and later reads
        // after the shader's writes.
        core.buffer_write(shared, cmd);
        // SAFETY: recording outside a render pass; the pipeline is a compute pipeline.
        unsafe { shared.device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, p.pipeline) };
        for group in &p.groups {
            let mut set_entries = Vec::new();
            let mut offsets = Vec::new();
            for slot in &group.slots {
                let Some((entry, offset)) = entries.get(&(slot.0 as usize)) else {
                    return Err(refused("a binding was not given".into()));
                };
                if let Some(o) = offset {
                    offsets.push((base + u64::from(*o)) as u32);
                }
                set_entries.push(*entry);
            }
            let set = descriptor_set(&mut core, shared, p, group, &set_entries, OP)?;
            // SAFETY: the set matches the group's layout; the offsets lie inside the ring.
            unsafe {
                shared.device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    p.layout,
                    group.index,
                    &[set],
                    &offsets,
                )
            };
        }
        // SAFETY: the pipeline and every set it uses are bound.
        unsafe { shared.device.cmd_dispatch(cmd, groups[0], groups[1], groups[2]) };
        core.mark_buffers_written();
        Ok(())
    })
}

pub(crate) fn read_geometry(dev: &VulkanDevice, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
    const OP: &str = "read_geometry";
    if !dev.features().has(DeviceFeature::STORAGE_BUFFERS) {
        return Err(DeviceError::Unsupported {
            feature: DeviceFeature::STORAGE_BUFFERS,
            backend: BackendId::VULKAN,
        });
    }
    let g: &VkGeometry = dev.geometry(buffer, OP)?;
    let size = buffer.descriptor().size;
    dev.checked(OP, || read_buffer(&dev.shared, g.buffer, 0, size, OP))
}
