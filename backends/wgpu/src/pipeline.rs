//! Shaders, pipelines and query sets: layouts built from reflection, bind groups cached.
//!
//! A pipeline's bind group layouts come from its reflected [`BindingLayout`] (one layout per
//! `@group`, uniform blocks with dynamic offsets into the uniform ring). A pipeline wgpu
//! refuses is still handed out and refused at its first draw, once (the HAL's refusal rule);
//! the refusal carries wgpu's message.

use std::collections::HashMap;
use std::num::{NonZeroU32, NonZeroU64};
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use f3d_hal::naga;
use f3d_hal::{
    BindingInfo, BindingKind, BindingLayout, BindingSlot, PipelineDescriptor, ShaderStage, ValidatedModule,
};

use crate::ring::UniformRing;
use crate::texture::{WgpuGeometry, WgpuSampler, WgpuTexture};
use f3d_hal::backend::LiveToken;

/// A shader: one wgpu module per handle, made from the validated naga module.
pub(crate) struct WgpuShader {
    pub(crate) module: wgpu::ShaderModule,
    pub(crate) _live: LiveToken,
}

/// A query set.
pub(crate) struct WgpuQuerySet {
    pub(crate) set: wgpu::QuerySet,
    pub(crate) _live: LiveToken,
}

/// One `@group` of a pipeline.
pub(crate) struct Group {
    /// The group index.
    pub(crate) index: u32,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// The group's bindings as slots of the pipeline's layout, by binding number: the order
    /// of its dynamic offsets.
    pub(crate) slots: Vec<BindingSlot>,
}

/// What the device made of a pipeline.
pub(crate) enum Compiled {
    Render(wgpu::RenderPipeline),
    Compute(wgpu::ComputePipeline),
    /// wgpu refused it; the reason is reported at the first draw.
    Refused(String),
}

#[derive(Default)]
struct BindGroupCache {
    generation: u64,
    groups: HashMap<(u32, Vec<u64>), wgpu::BindGroup>,
}

/// Bind groups kept per pipeline, keyed by group, ring generation and resource ids. Bounded,
/// since every combination of textures makes one.
const MAX_CACHED_BIND_GROUPS: usize = 256;

/// A pipeline.
pub(crate) struct WgpuPipeline {
    pub(crate) compiled: Compiled,
    pub(crate) groups: Vec<Group>,
    pub(crate) refusal_reported: AtomicBool,
    bind_groups: Mutex<BindGroupCache>,
    pub(crate) _live: LiveToken,
}

/// A resource bound to one slot, at the time a bind group is made.
pub(crate) enum Resource<'a> {
    /// A uniform block: the ring, at a dynamic offset.
    Uniform,
    Texture(&'a WgpuTexture),
    Sampler(&'a WgpuSampler),
    Storage(&'a WgpuGeometry),
}

impl Resource<'_> {
    pub(crate) fn id(&self) -> u64 {
        match self {
            Resource::Uniform => 0,
            Resource::Texture(t) => t.id,
            Resource::Sampler(s) => s.id,
            Resource::Storage(g) => g.id,
        }
    }
}

impl WgpuPipeline {
    pub(crate) fn new(compiled: Compiled, groups: Vec<Group>, live: LiveToken) -> Self {
        Self {
            compiled,
            groups,
            refusal_reported: AtomicBool::new(false),
            bind_groups: Mutex::new(BindGroupCache::default()),
            _live: live,
        }
    }

    /// The bind group of `group` holding `resources` (one per slot of the group, in order),
    /// made once per combination and ring generation.
    pub(crate) fn bind_group(
        &self,
        device: &wgpu::Device,
        layout: &BindingLayout,
        group: &Group,
        ring: &UniformRing,
        resources: &[Resource<'_>],
    ) -> wgpu::BindGroup {
        let key = (group.index, resources.iter().map(Resource::id).collect::<Vec<_>>());
        let mut cache = self.bind_groups.lock().unwrap_or_else(|e| e.into_inner());
        if cache.generation != ring.generation() || cache.groups.len() >= MAX_CACHED_BIND_GROUPS {
            cache.groups.clear();
            cache.generation = ring.generation();
        }
        cache
            .groups
            .entry(key)
            .or_insert_with(|| {
                let entries: Vec<wgpu::BindGroupEntry<'_>> = group
                    .slots
                    .iter()
                    .zip(resources)
                    .filter_map(|(slot, resource)| {
                        let info = layout.get(*slot)?;
                        let resource = match (resource, info.kind) {
                            (Resource::Uniform, BindingKind::UniformBlock { size }) => {
                                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                    buffer: ring.buffer(),
                                    offset: 0,
                                    size: NonZeroU64::new(u64::from(size)),
                                })
                            }
                            (Resource::Texture(t), _) => {
                                wgpu::BindingResource::TextureView(t.sampled_view.as_ref()?)
                            }
                            (Resource::Sampler(s), _) => wgpu::BindingResource::Sampler(&s.sampler),
                            (Resource::Storage(g), _) => g.buffer.as_entire_binding(),
                            (Resource::Uniform, _) => return None,
                        };
                        Some(wgpu::BindGroupEntry { binding: info.binding, resource })
                    })
                    .collect();
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("f3d bind group"),
                    layout: &group.layout,
                    entries: &entries,
                })
            })
            .clone()
    }
}

/// The sample type of an integer texture binding: signedness is not in the HAL's reflection,
/// so it is read from the module that declares the binding.
fn integer_sample_type(
    stages: &[(&ValidatedModule, ShaderStage, &str)],
    group: u32,
    binding: u32,
) -> wgpu::TextureSampleType {
    for (module, _, _) in stages {
        let m = module.module();
        for (_, var) in m.global_variables.iter() {
            let Some(rb) = &var.binding else { continue };
            if (rb.group, rb.binding) != (group, binding) {
                continue;
            }
            if let naga::TypeInner::Image { class: naga::ImageClass::Sampled { kind, .. }, .. } =
                m.types[var.ty].inner
            {
                return match kind {
                    naga::ScalarKind::Sint => wgpu::TextureSampleType::Sint,
                    _ => wgpu::TextureSampleType::Uint,
                };
            }
        }
    }
    wgpu::TextureSampleType::Uint
}

fn layout_entry(
    info: &BindingInfo,
    stages: &[(&ValidatedModule, ShaderStage, &str)],
    compute: bool,
) -> wgpu::BindGroupLayoutEntry {
    let mut visibility = wgpu::ShaderStages::empty();
    if compute {
        visibility |= wgpu::ShaderStages::COMPUTE;
    }
    if info.vertex {
        visibility |= wgpu::ShaderStages::VERTEX;
    }
    if info.fragment {
        visibility |= wgpu::ShaderStages::FRAGMENT;
    }
    let ty = match info.kind {
        BindingKind::UniformBlock { size } => wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: NonZeroU64::new(u64::from(size)),
        },
        BindingKind::StorageBuffer { read_only } => wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        BindingKind::Texture { dimension, depth, integer } => wgpu::BindingType::Texture {
            sample_type: if depth {
                wgpu::TextureSampleType::Depth
            } else if integer {
                integer_sample_type(stages, info.group, info.binding)
            } else {
                wgpu::TextureSampleType::Float { filterable: true }
            },
            view_dimension: crate::conv::view_dimension(dimension),
            multisampled: false,
        },
        BindingKind::Sampler { comparison } => wgpu::BindingType::Sampler(if comparison {
            wgpu::SamplerBindingType::Comparison
        } else {
            wgpu::SamplerBindingType::Filtering
        }),
    };
    wgpu::BindGroupLayoutEntry { binding: info.binding, visibility, ty, count: None }
}

/// One bind group layout per group the reflected `layout` uses, and the pipeline layout over
/// them (groups no binding uses are left empty).
pub(crate) fn build_layouts(
    device: &wgpu::Device,
    label: &str,
    layout: &BindingLayout,
    stages: &[(&ValidatedModule, ShaderStage, &str)],
    compute: bool,
) -> (Vec<Group>, wgpu::PipelineLayout) {
    let mut groups: Vec<Group> = Vec::new();
    let mut start = 0;
    let entries = layout.entries();
    while start < entries.len() {
        let index = entries[start].group;
        let end = start + entries[start..].iter().take_while(|b| b.group == index).count();
        let wgpu_entries: Vec<_> =
            entries[start..end].iter().map(|b| layout_entry(b, stages, compute)).collect();
        groups.push(Group {
            index,
            layout: device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &wgpu_entries,
            }),
            slots: (start..end).map(|i| BindingSlot(i as u32)).collect(),
        });
        start = end;
    }
    let count = groups.last().map_or(0, |g| g.index as usize + 1);
    let mut layouts: Vec<Option<&wgpu::BindGroupLayout>> = vec![None; count];
    for g in &groups {
        layouts[g.index as usize] = Some(&g.layout);
    }
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &layouts,
        immediate_size: 0,
    });
    (groups, pipeline_layout)
}

/// `create_pipeline`: the shared checks, this adapter's format support, then wgpu. A pipeline
/// wgpu refuses is handed out anyway and refused at its first draw.
pub(crate) fn create_render_pipeline(
    dev: &crate::WgpuDevice,
    desc: &PipelineDescriptor,
) -> Result<f3d_hal::PipelineHandle, f3d_hal::DeviceError> {
    use f3d_hal::backend;
    use f3d_hal::{BackendId, DeviceError, GraphicsDevice};
    const OP: &str = "create_pipeline";
    dev.alive(OP)?;
    backend::check_pipeline_descriptor(desc, dev.features(), dev.limits(), &BackendId::WGPU)?;
    dev.check_formats_for_pipeline(desc)?;
    let invalid =
        |reason: String| DeviceError::InvalidDescriptor { operation: OP, label: desc.label.clone(), reason };
    let vertex = backend::shader_payload::<WgpuShader>(dev.owner(), &desc.vertex, OP)?;
    let fragment = match &desc.fragment {
        Some(f) => Some(backend::shader_payload::<WgpuShader>(dev.owner(), f, OP)?),
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
    let bindings = f3d_materials::reflect::pipeline_bindings(&stages)
        .map_err(|e| DeviceError::Shader { label: desc.label.clone(), message: e.to_string() })?;
    backend::check_binding_limits(&bindings, dev.limits())?;
    backend::check_render_storage(&desc.label, &bindings, dev.features(), &dev.backend_id())?;
    let mut attributes = Vec::new();
    for layout in &desc.vertex_buffers {
        let mut list = Vec::new();
        for a in &layout.attributes {
            let format = crate::conv::vertex_format(a.format)
                .ok_or_else(|| invalid(format!("vertex format {:?} is not supported by wgpu", a.format)))?;
            list.push(wgpu::VertexAttribute {
                format,
                offset: u64::from(a.offset),
                shader_location: a.location,
            });
        }
        attributes.push(list);
    }
    let buffers: Vec<Option<wgpu::VertexBufferLayout<'_>>> = desc
        .vertex_buffers
        .iter()
        .zip(&attributes)
        .map(|(l, attrs)| {
            Some(wgpu::VertexBufferLayout {
                array_stride: u64::from(l.stride),
                step_mode: crate::conv::step_mode(l.step_mode),
                attributes: attrs,
            })
        })
        .collect();
    let targets: Vec<Option<wgpu::ColorTargetState>> = desc
        .color_targets
        .iter()
        .map(|t| {
            crate::conv::format(t.format).map(|format| wgpu::ColorTargetState {
                format,
                blend: t.blend.as_ref().map(crate::conv::blend),
                write_mask: crate::conv::color_writes(t.write_mask),
            })
        })
        .collect();
    let depth_stencil = match &desc.depth_stencil {
        Some(ds) => Some(wgpu::DepthStencilState {
            format: crate::conv::format(ds.format)
                .ok_or_else(|| invalid(format!("{} is not supported by wgpu", ds.format)))?,
            depth_write_enabled: Some(ds.depth_write_enabled),
            depth_compare: Some(crate::conv::compare(ds.depth_compare)),
            stencil: crate::conv::stencil(&ds.stencil),
            bias: crate::conv::depth_bias(&ds.bias),
        }),
        None => None,
    };
    let vertex_entry = desc.vertex.descriptor().entry_point.clone();
    let fragment_entry = desc.fragment.as_ref().map(|f| f.descriptor().entry_point.clone());
    let built = dev.scoped(OP, 0, || {
        let (groups, layout) = build_layouts(&dev.device, &desc.label, &bindings, &stages, false);
        let pipeline = dev.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&desc.label),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &vertex.module,
                entry_point: Some(&vertex_entry),
                compilation_options: Default::default(),
                buffers: &buffers,
            },
            primitive: crate::conv::primitive(&desc.primitive),
            depth_stencil: depth_stencil.clone(),
            multisample: wgpu::MultisampleState {
                count: desc.sample_count,
                mask: !0,
                alpha_to_coverage_enabled: false,
            },
            fragment: fragment.zip(fragment_entry.as_deref()).map(|(f, entry)| wgpu::FragmentState {
                module: &f.module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                targets: &targets,
            }),
            multiview_mask: desc.multiview.and_then(|n| NonZeroU32::new((1u32 << n.get().min(31)) - 1)),
            cache: dev.pipeline_cache.as_ref(),
        });
        (groups, pipeline)
    });
    let (compiled, groups) = match built {
        Ok((groups, pipeline)) => (Compiled::Render(pipeline), groups),
        Err(e) => (Compiled::Refused(e.to_string()), Vec::new()),
    };
    let payload = WgpuPipeline::new(compiled, groups, dev.live_token());
    let info = f3d_hal::PipelineInfo { label: desc.label.clone(), bindings, render: Some(desc.clone()) };
    Ok(backend::wrap_pipeline(dev.owner(), info, payload))
}
