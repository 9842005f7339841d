//! Compute: pipelines from reflected layouts, dispatches with uniforms in the ring and storage
//! buffers bound by name, and reading buffers back.

use std::collections::HashMap;

use f3d_hal::backend;
use f3d_hal::{
    BackendId, BindingKind, ComputePipelineDescriptor, DeviceError, DeviceFeature, GeometryBuffer,
    GeometryUsages, GraphicsDevice, PipelineHandle, ShaderStage,
};
use f3d_materials::reflect;

use crate::device::WgpuDevice;
use crate::pipeline::{Compiled, Resource, WgpuPipeline, WgpuShader, build_layouts};
use crate::readback::read_buffer;
use crate::ring::push_block;
use crate::texture::align4;

pub(crate) fn create_compute_pipeline(
    dev: &WgpuDevice,
    desc: &ComputePipelineDescriptor,
) -> Result<PipelineHandle, DeviceError> {
    const OP: &str = "create_compute_pipeline";
    dev.alive(OP)?;
    let shader = backend::shader_payload::<WgpuShader>(dev.owner(), &desc.shader, OP)?;
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
    backend::check_binding_limits(&bindings, dev.limits())?;
    let (groups, pipeline) = dev
        .scoped(OP, 0, || {
            let (groups, layout) = build_layouts(&dev.device, &desc.label, &bindings, &stages, true);
            let pipeline = dev.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&desc.label),
                layout: Some(&layout),
                module: &shader.module,
                entry_point: Some(&sd.entry_point),
                compilation_options: Default::default(),
                cache: dev.pipeline_cache.as_ref(),
            });
            (groups, pipeline)
        })
        .map_err(|e| DeviceError::Shader { label: desc.label.clone(), message: e.to_string() })?;
    let payload = WgpuPipeline::new(Compiled::Compute(pipeline), groups, dev.live_token());
    let info = f3d_hal::PipelineInfo { label: desc.label.clone(), bindings, render: None };
    Ok(backend::wrap_pipeline(dev.owner(), info, payload))
}

pub(crate) fn dispatch(
    dev: &WgpuDevice,
    pipeline: &PipelineHandle,
    uniforms: &[(&str, &[u8])],
    storage: &[(&str, &GeometryBuffer)],
    groups: [u32; 3],
) -> Result<(), DeviceError> {
    const OP: &str = "dispatch";
    dev.alive(OP)?;
    let p = backend::pipeline_payload::<WgpuPipeline>(dev.owner(), pipeline, OP)?;
    let Compiled::Compute(compute) = &p.compiled else {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!("{} is not a compute pipeline", pipeline.label()),
        });
    };
    let max = dev.grant.limits.max_compute_workgroups_per_dimension;
    if let Some(&n) = groups.iter().find(|&&n| n > max) {
        return Err(DeviceError::LimitExceeded {
            operation: OP,
            limit: "max_compute_workgroups_per_dimension",
            requested: n.into(),
            max: max.into(),
        });
    }
    let layout = pipeline.bindings();
    let refused = |reason: String| DeviceError::Refused { operation: OP, reason };
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
    let ring_align = dev.ring.lock().unwrap_or_else(|e| e.into_inner()).align();
    let mut staging = Vec::new();
    let mut uniform_offsets = HashMap::new();
    let mut buffers = HashMap::new();
    for (i, b) in layout.entries().iter().enumerate() {
        let named = |n: &str| n == b.name || b.type_name.as_deref() == Some(n);
        match b.kind {
            BindingKind::UniformBlock { .. } => {
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
                let BindingKind::UniformBlock { size } = b.kind else { continue };
                uniform_offsets.insert(i, push_block(&mut staging, ring_align, &bytes[..size as usize]));
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
                buffers.insert(i, dev.geometry(buffer, OP)?);
            }
            _ => {
                return Err(refused(format!("{} binds {}, which dispatch cannot", pipeline.label(), b.name)));
            }
        }
    }
    let mut ring = dev.ring.lock().unwrap_or_else(|e| e.into_inner());
    let base = ring
        .reserve(&dev.device, staging.len() as u64, dev.grant.limits.max_buffer_size)
        .ok_or(DeviceError::OutOfMemory { operation: OP, bytes: staging.len() as u64 })?;
    dev.scoped(OP, 0, || {
        if !staging.is_empty() {
            dev.queue.write_buffer(ring.buffer(), base, &staging);
        }
        let mut encoder =
            dev.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(OP) });
        {
            let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(&pipeline.label()),
                timestamp_writes: None,
            });
            cpass.set_pipeline(compute);
            for group in &p.groups {
                let resources: Vec<Resource<'_>> = group
                    .slots
                    .iter()
                    .map(|s| match buffers.get(&(s.0 as usize)) {
                        Some(g) => Resource::Storage(g),
                        None => Resource::Uniform,
                    })
                    .collect();
                let offsets: Vec<u32> = group
                    .slots
                    .iter()
                    .filter_map(|s| uniform_offsets.get(&(s.0 as usize)))
                    .map(|o| (base + u64::from(*o)) as u32)
                    .collect();
                let bg = p.bind_group(&dev.device, layout, group, &ring, &resources);
                cpass.set_bind_group(group.index, &bg, &offsets);
            }
            cpass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        dev.queue.submit([encoder.finish()]);
    })
}

pub(crate) fn read_geometry(dev: &WgpuDevice, buffer: &GeometryBuffer) -> Result<Vec<u8>, DeviceError> {
    const OP: &str = "read_geometry";
    if !dev.features().has(DeviceFeature::STORAGE_BUFFERS) {
        return Err(DeviceError::Unsupported {
            feature: DeviceFeature::STORAGE_BUFFERS,
            backend: BackendId::WGPU,
        });
    }
    let g = dev.geometry(buffer, OP)?;
    let size = buffer.descriptor().size;
    let mut bytes = read_buffer(&dev.device, &dev.queue, &dev.loss, OP, &[(&g.buffer, 0, align4(size))])?;
    bytes.truncate(size as usize);
    Ok(bytes)
}
