//! Shaders, pipelines and their descriptor sets; the pipeline cache on disk.
//!
//! * A shader is one entry point's SPIR-V (`compiler.rs`) in a `VkShaderModule`.
//! * A pipeline's descriptor set layouts come from its reflected [`BindingLayout`]: one set per
//!   `@group`, uniform blocks as `UNIFORM_BUFFER_DYNAMIC` into the uniform ring, textures as
//!   `SAMPLED_IMAGE`, samplers as `SAMPLER`, storage buffers as `STORAGE_BUFFER`.
//! * Before Vulkan sees a pipeline, what the validation layers would flag is refused here:
//!   stages that disagree on varyings, vertex attributes the shader reads that no buffer
//!   supplies (or of another numeric type), fragment outputs of another type than their
//!   target. Such a pipeline (and one the driver fails to build) is handed out anyway, draws
//!   nothing, and is reported once in `pipeline_refusals` — the HAL's refusal rule.
//! * Descriptor set layouts and the sets themselves: `descriptor.rs`.
//! * The `VkPipelineCache` is read at open and written back when the device drops, next to
//!   f3d's shader cache (`$F3D_CACHE_DIR`, else `$XDG_CACHE_HOME/f3d`, else `~/.cache/f3d`),
//!   in `vulkan/pipelines-<pipelineCacheUUID>.bin`; data whose header does not name this
//!   device is ignored.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Weak};

use ash::vk;
use f3d_hal::backend::{self, LiveToken};
use f3d_hal::naga;
use f3d_hal::{
    BackendId, BindingSlot, BlendOperation, DeviceError, GraphicsDevice, PipelineDescriptor, PipelineHandle,
    PipelineInfo, ShaderStage, StencilOperation, TextureFormat, ValidatedModule,
};
use f3d_materials::reflect;

use crate::VulkanDevice;
use crate::conv;
use crate::descriptor::{build_layouts, check_binding_limits};
use crate::instance::Caps;
use crate::sync::{Resource, Shared};

/// A shader module.
pub(crate) struct VkShader {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    pub(crate) module: vk::ShaderModule,
    pub(crate) _live: LiveToken,
}

impl Drop for VkShader {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

/// One `@group` of a pipeline.
pub(crate) struct Group {
    pub(crate) index: u32,
    pub(crate) layout: vk::DescriptorSetLayout,
    /// The group's bindings as slots of the pipeline's layout, by binding number: also the
    /// order of its dynamic offsets.
    pub(crate) slots: Vec<BindingSlot>,
}

/// A render or compute pipeline.
pub(crate) struct VkPipeline {
    pub(crate) shared: Weak<Shared>,
    pub(crate) id: u64,
    /// Null when refused.
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) groups: Vec<Group>,
    /// The `@binding` number of every slot of the binding table.
    pub(crate) binding_numbers: Vec<u32>,
    pub(crate) pool_sizes: Vec<vk::DescriptorPoolSize>,
    /// A render pipeline (not a compute one).
    pub(crate) render: bool,
    /// Whether it writes depth or stencil (refused in a pass that only reads its depth).
    pub(crate) writes_depth_stencil: bool,
    /// Why the device refused it, reported at its first draw.
    pub(crate) refusal: Option<String>,
    pub(crate) refusal_reported: AtomicBool,
    pub(crate) _live: LiveToken,
}

impl Drop for VkPipeline {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.release(self.id);
        }
    }
}

/// f3d's cache directory, from the environment (the shader cache's rule).
pub(crate) fn default_cache_dir() -> Option<PathBuf> {
    f3d_hal::shader_cache::cache_base_dir(|k| std::env::var(k).ok())
}

/// The cache file of a device with `caps` under `dir`.
pub(crate) fn cache_file(dir: &Path, caps: &Caps) -> PathBuf {
    let uuid: String = caps.pipeline_cache_uuid.iter().map(|b| format!("{b:02x}")).collect();
    dir.join("vulkan").join(format!("pipelines-{uuid}.bin"))
}

/// Whether `data` starts with a pipeline cache header naming this device (Vulkan's header:
/// length 32, version ONE, vendor, device, the cache UUID).
pub(crate) fn header_matches(data: &[u8], caps: &Caps) -> bool {
    header_names(data, caps.vendor_id, caps.device_id, &caps.pipeline_cache_uuid)
}

fn header_names(data: &[u8], vendor: u32, device: u32, uuid: &[u8; 16]) -> bool {
    let word = |i: usize| data.get(i..i + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    data.len() >= 32
        && word(0) == Some(32)
        && word(4) == Some(vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32)
        && word(8) == Some(vendor)
        && word(12) == Some(device)
        && data.get(16..32) == Some(&uuid[..])
}

/// The cache data saved for this device, when there is any and its header matches.
pub(crate) fn read_pipeline_cache(path: &Path, caps: &Caps) -> Option<Vec<u8>> {
    std::fs::read(path).ok().filter(|d| header_matches(d, caps))
}

/// Writes the device's pipeline cache back (atomically: a temporary file, then a rename, so
/// devices dropping at once never leave a torn file).
pub(crate) fn save_pipeline_cache(shared: &Shared) {
    let Some(path) = &shared.cache_file else { return };
    if shared.pipeline_cache == vk::PipelineCache::null() {
        return;
    }
    // SAFETY: the cache belongs to the device, which is idle.
    let Ok(data) = (unsafe { shared.device.get_pipeline_cache_data(shared.pipeline_cache) }) else { return };
    if !header_matches(&data, &shared.caps) {
        return;
    }
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!(".pipelines-{}-{:?}.tmp", std::process::id(), std::thread::current().id()));
    if std::fs::write(&tmp, &data).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// One pipeline compile in the driver at a time, across every device of the process.
///
/// NVIDIA's driver (580 on the H200) hangs when many devices of one process build pipelines
/// at once with its shader disk cache on: sixteen conformance checks at a time deadlocked
/// inside the driver in three runs out of three, and passed with `__GL_SHADER_DISK_CACHE=0`
/// or with four at a time. Building pipelines is a load-time cost and one device builds them
/// from one thread anyway, so taking turns costs a multi-device process little.
pub(crate) fn driver_compile_turn() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The scalar kind of a vertex input or fragment output type.
fn scalar_kind(inner: &naga::TypeInner) -> Option<naga::ScalarKind> {
    match inner {
        naga::TypeInner::Scalar(s) | naga::TypeInner::Vector { scalar: s, .. } => Some(s.kind),
        _ => None,
    }
}

/// `(location, scalar kind)` of every user-location argument (vertex inputs) or result
/// member (fragment outputs) of an entry point.
pub(crate) fn interface(
    module: &ValidatedModule,
    stage: ShaderStage,
    entry: &str,
    outputs: bool,
) -> Vec<(u32, naga::ScalarKind)> {
    let m = module.module();
    let Some(ep) = module.entry_point_index(stage, entry).and_then(|i| m.entry_points.get(i)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut visit = |binding: Option<&naga::Binding>, ty: naga::Handle<naga::Type>| {
        if let Some(naga::Binding::Location { location, .. }) = binding
            && let Some(kind) = scalar_kind(&m.types[ty].inner)
        {
            out.push((*location, kind));
        }
    };
    let mut items: Vec<(Option<&naga::Binding>, naga::Handle<naga::Type>)> = Vec::new();
    if outputs {
        if let Some(r) = &ep.function.result {
            items.push((r.binding.as_ref(), r.ty));
        }
    } else {
        items.extend(ep.function.arguments.iter().map(|a| (a.binding.as_ref(), a.ty)));
    }
    for (binding, ty) in items {
        match (&m.types[ty].inner, binding) {
            (naga::TypeInner::Struct { members, .. }, None) => {
                for member in members {
                    visit(member.binding.as_ref(), member.ty);
                }
            }
            _ => visit(binding, ty),
        }
    }
    out
}

/// The entry point name as Vulkan takes it.
pub(crate) fn entry_name(name: &str) -> CString {
    CString::new(name).unwrap_or_else(|_| c"main".to_owned())
}

/// Whether a pipeline writes depth or stencil.
fn writes_depth_stencil(desc: &PipelineDescriptor) -> bool {
    desc.depth_stencil.is_some_and(|ds| {
        let face = |f: &f3d_hal::StencilFaceState| {
            [f.fail_op, f.depth_fail_op, f.pass_op].iter().any(|op| *op != StencilOperation::Keep)
        };
        ds.depth_write_enabled
            || (ds.stencil.is_enabled()
                && ds.stencil.write_mask != 0
                && (face(&ds.stencil.front) || face(&ds.stencil.back)))
    })
}

/// The rules this device adds to the shared ones: what its formats can do, independent blend,
/// depth-bias clamps, attribute offsets and locations.
fn check_device_rules(dev: &VulkanDevice, desc: &PipelineDescriptor) -> Result<(), DeviceError> {
    let invalid = |reason: String| DeviceError::InvalidDescriptor {
        operation: "create_pipeline",
        label: desc.label.clone(),
        reason,
    };
    for t in &desc.color_targets {
        let s = dev.support(t.format);
        if !s.renderable {
            return Err(invalid(format!("{} is not renderable on this device", t.format)));
        }
        if t.blend.is_some() && !s.blendable {
            return Err(invalid(format!("{} cannot be blended on this device", t.format)));
        }
        if desc.sample_count > 1 && !s.multisample {
            return Err(invalid(format!("{} cannot be multisampled on this device", t.format)));
        }
    }
    if let Some(ds) = &desc.depth_stencil {
        let s = dev.support(ds.format);
        if !s.renderable || (desc.sample_count > 1 && !s.multisample) {
            return Err(invalid(format!("{} cannot be this pipeline's depth attachment here", ds.format)));
        }
        if ds.bias.clamp != 0.0 && !dev.shared.caps.enabled.depth_bias_clamp {
            return Err(invalid(
                "a depth bias clamp needs the depthBiasClamp feature, which this device lacks".into(),
            ));
        }
    }
    let caps = &dev.shared.caps;
    if !caps.enabled.independent_blend
        && desc
            .color_targets
            .windows(2)
            .any(|w| (w[0].blend, w[0].write_mask) != (w[1].blend, w[1].write_mask))
    {
        return Err(invalid(
            "colour targets blend differently, and this device lacks independentBlend".into(),
        ));
    }
    let mut locations = Vec::new();
    for layout in &desc.vertex_buffers {
        for a in &layout.attributes {
            if a.offset > caps.limits.max_vertex_input_attribute_offset {
                return Err(DeviceError::LimitExceeded {
                    operation: "create_pipeline",
                    limit: "maxVertexInputAttributeOffset",
                    requested: a.offset.into(),
                    max: caps.limits.max_vertex_input_attribute_offset.into(),
                });
            }
            if a.location >= dev.limits().max_vertex_attributes {
                return Err(invalid(format!(
                    "attribute location {} is past max_vertex_attributes",
                    a.location
                )));
            }
            if locations.contains(&a.location) {
                return Err(invalid(format!("two vertex attributes use location {}", a.location)));
            }
            locations.push(a.location);
        }
    }
    if desc.multiview.is_some_and(|n| n.get() > caps.max_multiview_views) {
        return Err(DeviceError::LimitExceeded {
            operation: "create_pipeline",
            limit: "maxMultiviewViewCount",
            requested: desc.multiview.map_or(0, |n| n.get()).into(),
            max: caps.max_multiview_views.into(),
        });
    }
    Ok(())
}

/// Why the validation layers would refuse to link these stages to these buffers and targets,
/// if they would: the pipeline is then refused at its first draw.
fn interface_refusal(desc: &PipelineDescriptor) -> Option<String> {
    let vs = desc.vertex.descriptor();
    if let Some(fs) = &desc.fragment {
        let fd = fs.descriptor();
        if let Err(e) =
            f3d_materials::check_stage_agreement((&vs.module, &vs.entry_point), (&fd.module, &fd.entry_point))
        {
            return Some(format!("the stages disagree: {e}"));
        }
        for (location, kind) in interface(&fd.module, ShaderStage::Fragment, &fd.entry_point, true) {
            if let Some(t) = desc.color_targets.get(location as usize)
                && kind != conv::output_kind(t.format)
            {
                return Some(format!(
                    "the fragment stage writes {kind:?} values to location {location}, a {} target",
                    t.format
                ));
            }
        }
    }
    for (location, kind) in interface(&vs.module, ShaderStage::Vertex, &vs.entry_point, false) {
        let attribute =
            desc.vertex_buffers.iter().flat_map(|b| &b.attributes).find(|a| a.location == location);
        match attribute.and_then(|a| conv::vertex_format(a.format).map(|f| (a.format, f.1))) {
            None => {
                return Some(format!(
                    "the vertex stage reads location {location}, which no vertex buffer supplies"
                ));
            }
            Some((format, supplied)) if supplied != kind => {
                return Some(format!(
                    "the vertex stage reads {kind:?} values at location {location}, but the buffer supplies {format:?}"
                ));
            }
            Some(_) => {}
        }
    }
    None
}

/// `create_pipeline`: the shared checks, this device's rules, the interface checks, then
/// Vulkan. A pipeline refused after the shared checks is handed out and refused at its first
/// draw.
pub(crate) fn create_render_pipeline(
    dev: &VulkanDevice,
    desc: &PipelineDescriptor,
) -> Result<PipelineHandle, DeviceError> {
    const OP: &str = "create_pipeline";
    dev.alive(OP)?;
    backend::check_pipeline_descriptor(desc, dev.features(), dev.limits(), &BackendId::VULKAN)?;
    check_device_rules(dev, desc)?;
    let invalid =
        |reason: String| DeviceError::InvalidDescriptor { operation: OP, label: desc.label.clone(), reason };
    let owner = dev.owner_ref();
    let vertex = backend::shader_payload::<VkShader>(owner, &desc.vertex, OP)?;
    let fragment = match &desc.fragment {
        Some(f) => Some(backend::shader_payload::<VkShader>(owner, f, OP)?),
        None => None,
    };
    let mut stages = Vec::new();
    for (shader, stage) in std::iter::once((&desc.vertex, ShaderStage::Vertex))
        .chain(desc.fragment.as_ref().map(|f| (f, ShaderStage::Fragment)))
    {
        let d = shader.descriptor();
        if d.stage != stage {
            return Err(invalid(format!("{} is a {} shader, used as the {stage} stage", d.label, d.stage)));
        }
        stages.push((&*d.module, d.stage, d.entry_point.as_str()));
    }
    let bindings = reflect::pipeline_bindings(&stages)
        .map_err(|e| DeviceError::Shader { label: desc.label.clone(), message: e.to_string() })?;
    let caps = &dev.shared.caps;
    check_binding_limits(&bindings, &caps.limits, dev.limits(), OP)?;
    backend::check_render_storage(&desc.label, &bindings, dev.features(), &dev.backend_id())?;
    let mut refusal = interface_refusal(desc);
    // Targets the fragment stage never writes keep their contents (Vulkan would write
    // undefined values and the layers warn about it).
    let written: Vec<u32> = desc.fragment.as_ref().map_or_else(Vec::new, |f| {
        let fd = f.descriptor();
        interface(&fd.module, ShaderStage::Fragment, &fd.entry_point, true)
            .into_iter()
            .map(|(l, _)| l)
            .collect()
    });
    let shared = &dev.shared;
    let formats = |f: TextureFormat| shared.formats.get(f).vk;
    let (id, pipeline, layout, groups, pool_sizes) = dev.checked(OP, || {
        let (groups, set_layouts, layout, pool_sizes) = build_layouts(&shared.device, &bindings, false);
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
        let mut pipeline = vk::Pipeline::null();
        if refusal.is_none() {
            let vs_name = entry_name(&desc.vertex.descriptor().entry_point);
            let fs_name = desc.fragment.as_ref().map(|f| entry_name(&f.descriptor().entry_point));
            let mut shader_stages = vec![
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(vertex.module)
                    .name(&vs_name),
            ];
            if let (Some(f), Some(name)) = (fragment, fs_name.as_ref()) {
                shader_stages.push(
                    vk::PipelineShaderStageCreateInfo::default()
                        .stage(vk::ShaderStageFlags::FRAGMENT)
                        .module(f.module)
                        .name(name),
                );
            }
            let vertex_bindings: Vec<vk::VertexInputBindingDescription> = desc
                .vertex_buffers
                .iter()
                .enumerate()
                .map(|(i, l)| vk::VertexInputBindingDescription {
                    binding: i as u32,
                    stride: l.stride,
                    input_rate: conv::step_rate(l.step_mode),
                })
                .collect();
            let attributes: Vec<vk::VertexInputAttributeDescription> = desc
                .vertex_buffers
                .iter()
                .enumerate()
                .flat_map(|(i, l)| {
                    l.attributes.iter().filter_map(move |a| {
                        conv::vertex_format(a.format).map(|(format, _)| vk::VertexInputAttributeDescription {
                            location: a.location,
                            binding: i as u32,
                            format,
                            offset: a.offset,
                        })
                    })
                })
                .collect();
            let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
                .vertex_binding_descriptions(&vertex_bindings)
                .vertex_attribute_descriptions(&attributes);
            let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
                .topology(conv::topology(desc.primitive.topology));
            let viewport = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
            let bias = desc.depth_stencil.map(|d| d.bias).unwrap_or_default();
            let raster = vk::PipelineRasterizationStateCreateInfo::default()
                .depth_clamp_enable(desc.primitive.unclipped_depth)
                .polygon_mode(conv::polygon_mode(desc.primitive.polygon_mode))
                .cull_mode(conv::cull_mode(desc.primitive.cull_mode))
                .front_face(conv::front_face(desc.primitive.front_face))
                .depth_bias_enable(
                    desc.depth_stencil.is_some() && (bias.constant != 0 || bias.slope_scale != 0.0),
                )
                .depth_bias_constant_factor(bias.constant as f32)
                .depth_bias_slope_factor(bias.slope_scale)
                .depth_bias_clamp(bias.clamp)
                .line_width(1.0);
            let multisample = vk::PipelineMultisampleStateCreateInfo::default()
                .rasterization_samples(conv::samples(desc.sample_count));
            let depth_stencil = desc.depth_stencil.map(|ds| {
                let face = |f: &f3d_hal::StencilFaceState| vk::StencilOpState {
                    fail_op: conv::stencil_op(f.fail_op),
                    pass_op: conv::stencil_op(f.pass_op),
                    depth_fail_op: conv::stencil_op(f.depth_fail_op),
                    compare_op: conv::compare_op(f.compare),
                    compare_mask: u32::from(ds.stencil.read_mask),
                    write_mask: u32::from(ds.stencil.write_mask),
                    reference: 0,
                };
                vk::PipelineDepthStencilStateCreateInfo::default()
                    .depth_test_enable(true)
                    .depth_write_enable(ds.depth_write_enabled)
                    .depth_compare_op(conv::compare_op(ds.depth_compare))
                    .stencil_test_enable(ds.stencil.is_enabled())
                    .front(face(&ds.stencil.front))
                    .back(face(&ds.stencil.back))
            });
            let blends: Vec<vk::PipelineColorBlendAttachmentState> = desc
                .color_targets
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let mask = if written.contains(&(i as u32)) {
                        conv::color_writes(t.write_mask)
                    } else {
                        vk::ColorComponentFlags::empty()
                    };
                    let state = vk::PipelineColorBlendAttachmentState::default().color_write_mask(mask);
                    match t.blend {
                        None => state,
                        Some(b) => {
                            let factor = |f, op| {
                                if matches!(op, BlendOperation::Min | BlendOperation::Max) {
                                    vk::BlendFactor::ONE
                                } else {
                                    conv::blend_factor(f)
                                }
                            };
                            state
                                .blend_enable(true)
                                .src_color_blend_factor(factor(b.color.src_factor, b.color.operation))
                                .dst_color_blend_factor(factor(b.color.dst_factor, b.color.operation))
                                .color_blend_op(conv::blend_op(b.color.operation))
                                .src_alpha_blend_factor(factor(b.alpha.src_factor, b.alpha.operation))
                                .dst_alpha_blend_factor(factor(b.alpha.dst_factor, b.alpha.operation))
                                .alpha_blend_op(conv::blend_op(b.alpha.operation))
                        }
                    }
                })
                .collect();
            let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blends);
            let dynamic_states = [
                vk::DynamicState::VIEWPORT,
                vk::DynamicState::SCISSOR,
                vk::DynamicState::STENCIL_REFERENCE,
                vk::DynamicState::BLEND_CONSTANTS,
            ];
            let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
            let color_formats: Vec<vk::Format> =
                desc.color_targets.iter().map(|t| formats(t.format)).collect();
            let depth_format = desc.depth_stencil.map(|d| d.format);
            let mut rendering = vk::PipelineRenderingCreateInfo::default()
                .color_attachment_formats(&color_formats)
                .depth_attachment_format(depth_format.map_or(vk::Format::UNDEFINED, formats))
                .stencil_attachment_format(
                    depth_format.filter(|f| f.has_stencil()).map_or(vk::Format::UNDEFINED, formats),
                )
                .view_mask(desc.multiview.map_or(0, |n| (1u32 << n.get().min(31)) - 1));
            let mut info = vk::GraphicsPipelineCreateInfo::default()
                .stages(&shader_stages)
                .vertex_input_state(&vertex_input)
                .input_assembly_state(&assembly)
                .viewport_state(&viewport)
                .rasterization_state(&raster)
                .multisample_state(&multisample)
                .color_blend_state(&blend)
                .dynamic_state(&dynamic)
                .layout(layout)
                .push_next(&mut rendering);
            if let Some(ds) = depth_stencil.as_ref() {
                info = info.depth_stencil_state(ds);
            }
            let _turn = driver_compile_turn();
            // SAFETY: every state was checked against the device's features and limits, the
            // shaders agree with each other, the buffers and the targets, and every pointer
            // refers to locals alive for the call.
            match unsafe { shared.device.create_graphics_pipelines(shared.pipeline_cache, &[info], None) } {
                Ok(p) => pipeline = p.first().copied().unwrap_or_default(),
                Err((_, e)) => refusal = Some(format!("the driver did not build it: {e}")),
            }
        }
        let mut core = shared.core();
        let id = core.register(Resource::Pipeline { pipeline, layout, set_layouts });
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
        render: true,
        writes_depth_stencil: writes_depth_stencil(desc),
        refusal,
        refusal_reported: AtomicBool::new(false),
        _live: dev.live_token(),
    };
    let info = PipelineInfo { label: desc.label.clone(), bindings, render: Some(desc.clone()) };
    Ok(backend::wrap_pipeline(owner, info, payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_must_name_the_device() {
        let uuid = [7u8; 16];
        let mut data = Vec::new();
        for w in [32u32, 1, 0x10de, 0x2335] {
            data.extend(w.to_le_bytes());
        }
        data.extend(uuid);
        data.extend([1, 2, 3]);
        assert!(header_names(&data, 0x10de, 0x2335, &uuid));
        assert!(!header_names(&data, 0x10de, 0x2336, &uuid), "another device");
        assert!(!header_names(&data, 0x10de, 0x2335, &[8; 16]), "another driver build");
        assert!(!header_names(&data[..31], 0x10de, 0x2335, &uuid), "a torn file");
    }

    #[test]
    fn interfaces_are_read_from_structs_and_plain_arguments() {
        let m = f3d_materials::compile_wgsl(
            "t.wgsl",
            r#"
            struct In { @location(0) p: vec2<f32>, @location(3) id: u32 }
            @vertex fn vs(v: In, @location(1) s: i32) -> @builtin(position) vec4<f32> { return vec4<f32>(v.p, f32(s) + f32(v.id), 1.0); }
            @fragment fn fs() -> @location(0) vec4<u32> { return vec4<u32>(1u); }
        "#,
        )
        .expect("compiles");
        let mut ins = interface(&m, ShaderStage::Vertex, "vs", false);
        ins.sort_by_key(|(l, _)| *l);
        assert_eq!(
            ins,
            vec![(0, naga::ScalarKind::Float), (1, naga::ScalarKind::Sint), (3, naga::ScalarKind::Uint)]
        );
        assert_eq!(interface(&m, ShaderStage::Fragment, "fs", true), vec![(0, naga::ScalarKind::Uint)]);
    }
}
