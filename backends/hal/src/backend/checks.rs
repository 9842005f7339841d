//! The rules every backend shares: limits, features, usages, region bounds, draws.

use crate::readback::check_region;
use crate::{
    BackendId, BindingKind, DeviceError, DeviceFeature, DeviceFeatures, DeviceLimits, GeometryBuffer,
    GeometryDescriptor, GeometryUsages, PipelineDescriptor, PipelineHandle, PolygonMode,
    RenderPassDescriptor, SamplerDescriptor, TextureDescriptor, TextureDimension, TextureHandle,
    TextureRegion, TextureUsages,
};

fn unsupported(feature: DeviceFeature, backend: &BackendId) -> DeviceError {
    DeviceError::Unsupported { feature, backend: backend.clone() }
}

fn invalid(operation: &'static str, label: &str, reason: impl Into<String>) -> DeviceError {
    DeviceError::InvalidDescriptor { operation, label: label.to_owned(), reason: reason.into() }
}

fn over(operation: &'static str, limit: &'static str, requested: u64, max: u64) -> Result<(), DeviceError> {
    if requested > max {
        Err(DeviceError::LimitExceeded { operation, limit, requested, max })
    } else {
        Ok(())
    }
}

/// The rules for `create_texture`: sizes, layers, mips, samples, and the features formats and
/// sample counts need.
pub fn check_texture_descriptor(
    desc: &TextureDescriptor,
    features: &DeviceFeatures,
    limits: &DeviceLimits,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    const OP: &str = "create_texture";
    if desc.format.is_compressed() && !features.has(DeviceFeature::TEXTURE_COMPRESSION_BC) {
        return Err(unsupported(DeviceFeature::TEXTURE_COMPRESSION_BC, backend));
    }
    if desc.format.has_stencil() && !features.has(DeviceFeature::STENCIL) {
        return Err(unsupported(DeviceFeature::STENCIL, backend));
    }
    if desc.sample_count > 1 && !features.has(DeviceFeature::MSAA) {
        return Err(unsupported(DeviceFeature::MSAA, backend));
    }
    if desc.width == 0 || desc.height == 0 {
        return Err(invalid(OP, &desc.label, format!("size {}x{} is empty", desc.width, desc.height)));
    }
    over(
        OP,
        "max_texture_dimension_2d",
        desc.width.max(desc.height).into(),
        limits.max_texture_dimension_2d.into(),
    )?;
    over(OP, "max_texture_array_layers", desc.array_layers.into(), limits.max_texture_array_layers.into())?;
    match desc.dimension {
        TextureDimension::D2 if desc.array_layers != 1 => {
            return Err(invalid(
                OP,
                &desc.label,
                format!("a D2 texture has 1 layer, not {}", desc.array_layers),
            ));
        }
        TextureDimension::Cube if desc.array_layers != 6 || desc.width != desc.height => {
            return Err(invalid(
                OP,
                &desc.label,
                format!(
                    "a cube has 6 square faces, not {} of {}x{}",
                    desc.array_layers, desc.width, desc.height
                ),
            ));
        }
        _ if desc.array_layers == 0 => return Err(invalid(OP, &desc.label, "zero array layers")),
        _ => {}
    }
    if desc.mip_level_count == 0 || desc.mip_level_count > desc.max_mips() {
        return Err(invalid(
            OP,
            &desc.label,
            format!(
                "{} mip levels; a {}x{} texture has 1 to {}",
                desc.mip_level_count,
                desc.width,
                desc.height,
                desc.max_mips()
            ),
        ));
    }
    if !matches!(desc.sample_count, 1 | 4) {
        return Err(invalid(OP, &desc.label, format!("sample count {} (1 or 4)", desc.sample_count)));
    }
    if desc.sample_count > 1 && (desc.mip_level_count > 1 || desc.dimension != TextureDimension::D2) {
        return Err(invalid(OP, &desc.label, "a multisampled texture has one level and one layer"));
    }
    let f = desc.format.facts();
    if desc.usage.contains(TextureUsages::RENDER_ATTACHMENT) && !f.renderable {
        return Err(invalid(OP, &desc.label, format!("{} cannot be a render attachment", desc.format)));
    }
    if f.compressed
        && (!desc.width.is_multiple_of(f.block_size.0) || !desc.height.is_multiple_of(f.block_size.1))
    {
        return Err(invalid(
            OP,
            &desc.label,
            format!("{} needs a size in whole {}x{} blocks", desc.format, f.block_size.0, f.block_size.1),
        ));
    }
    if desc.usage.is_empty() {
        return Err(invalid(OP, &desc.label, "no usage"));
    }
    Ok(())
}

/// The rules for `write_texture`: usage, region bounds, whole blocks, and the exact length of
/// the data.
pub fn check_write_texture(
    desc: &TextureDescriptor,
    region: &TextureRegion,
    data_len: usize,
) -> Result<(), DeviceError> {
    const OP: &str = "write_texture";
    if !desc.usage.contains(TextureUsages::COPY_DST) {
        return Err(DeviceError::MissingUsage {
            operation: OP,
            label: desc.label.clone(),
            usage: "COPY_DST",
        });
    }
    if desc.sample_count > 1 {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!("{} is multisampled", desc.label),
        });
    }
    if !desc.format.is_color() {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!("{} has depth/stencil format {}; render to it instead", desc.label, desc.format),
        });
    }
    check_region(OP, desc, region)?;
    check_block_aligned(OP, desc, region)?;
    let expected = desc.format.image_bytes(region.width, region.height);
    if data_len as u64 != expected {
        return Err(DeviceError::DataSize { operation: OP, expected, given: data_len as u64 });
    }
    Ok(())
}

fn check_block_aligned(
    operation: &'static str,
    desc: &TextureDescriptor,
    region: &TextureRegion,
) -> Result<(), DeviceError> {
    let (bw, bh) = desc.format.facts().block_size;
    let (lw, lh) = desc.level_size(region.mip_level);
    let aligned = |v: u32, b: u32, edge: u32| v.is_multiple_of(b) || v == edge;
    let whole_blocks = aligned(region.x, bw, lw)
        && aligned(region.y, bh, lh)
        && aligned(region.x + region.width, bw, lw)
        && aligned(region.y + region.height, bh, lh);
    if !whole_blocks {
        return Err(DeviceError::OutOfBounds {
            operation,
            what: format!("the region of {} is not in whole {bw}x{bh} blocks of {}", desc.label, desc.format),
        });
    }
    Ok(())
}

/// The rules for `copy_texture`, after the feature check: usages, bounds, equal sizes, the
/// same format (or its sRGB twin), equal sample counts, and no overlap within one texture.
pub fn check_copy_texture(
    src: &TextureHandle,
    src_region: &TextureRegion,
    dst: &TextureHandle,
    dst_region: &TextureRegion,
) -> Result<(), DeviceError> {
    const OP: &str = "copy_texture";
    let (s, d) = (src.descriptor(), dst.descriptor());
    if !s.usage.contains(TextureUsages::COPY_SRC) {
        return Err(DeviceError::MissingUsage { operation: OP, label: s.label.clone(), usage: "COPY_SRC" });
    }
    if !d.usage.contains(TextureUsages::COPY_DST) {
        return Err(DeviceError::MissingUsage { operation: OP, label: d.label.clone(), usage: "COPY_DST" });
    }
    let twin = s.format.facts().srgb_twin == Some(d.format);
    if s.format != d.format && !twin {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!("{} is {} and {} is {}", s.label, s.format, d.label, d.format),
        });
    }
    if s.sample_count != d.sample_count || s.sample_count > 1 {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: "copies between multisampled textures are refused".into(),
        });
    }
    if !s.format.is_color() {
        return Err(DeviceError::Refused {
            operation: OP,
            reason: format!("{} is a depth/stencil format", s.format),
        });
    }
    check_region(OP, s, src_region)?;
    check_region(OP, d, dst_region)?;
    check_block_aligned(OP, s, src_region)?;
    check_block_aligned(OP, d, dst_region)?;
    if (src_region.width, src_region.height) != (dst_region.width, dst_region.height) {
        return Err(DeviceError::OutOfBounds {
            operation: OP,
            what: format!(
                "source {}x{} and destination {}x{} differ in size",
                src_region.width, src_region.height, dst_region.width, dst_region.height
            ),
        });
    }
    let same_sub =
        src.same(dst) && src_region.mip_level == dst_region.mip_level && src_region.layer == dst_region.layer;
    let overlap = src_region.x < dst_region.x + dst_region.width
        && dst_region.x < src_region.x + src_region.width
        && src_region.y < dst_region.y + dst_region.height
        && dst_region.y < src_region.y + src_region.height;
    if same_sub && overlap {
        return Err(DeviceError::Refused { operation: OP, reason: "source and destination overlap".into() });
    }
    Ok(())
}

/// The rules for `create_geometry` and `write_geometry` sizes.
pub fn check_geometry_descriptor(
    desc: &GeometryDescriptor,
    data: Option<&[u8]>,
    features: &DeviceFeatures,
    limits: &DeviceLimits,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    const OP: &str = "create_geometry";
    if desc.usage.contains(GeometryUsages::STORAGE) && !features.has(DeviceFeature::STORAGE_BUFFERS) {
        return Err(unsupported(DeviceFeature::STORAGE_BUFFERS, backend));
    }
    if desc.usage.contains(GeometryUsages::INDIRECT) && !features.has(DeviceFeature::INDIRECT_DRAW) {
        return Err(unsupported(DeviceFeature::INDIRECT_DRAW, backend));
    }
    if desc.size == 0 {
        return Err(invalid(OP, &desc.label, "size 0"));
    }
    over(OP, "max_geometry_buffer_size", desc.size, limits.max_geometry_buffer_size)?;
    if let Some(data) = data
        && data.len() as u64 != desc.size
    {
        return Err(DeviceError::DataSize { operation: OP, expected: desc.size, given: data.len() as u64 });
    }
    Ok(())
}

/// The rule for `write_geometry`: the write lies inside the buffer.
pub fn check_write_geometry(desc: &GeometryDescriptor, offset: u64, len: usize) -> Result<(), DeviceError> {
    let end = offset.checked_add(len as u64);
    if end.is_none_or(|end| end > desc.size) {
        return Err(DeviceError::OutOfBounds {
            operation: "write_geometry",
            what: format!(
                "{len} bytes at offset {offset} run past the end of {} ({} bytes)",
                desc.label, desc.size
            ),
        });
    }
    Ok(())
}

/// The sampler as the device will use it: anisotropy clamped to the limit (never refused),
/// LOD clamps ordered.
pub fn clamp_sampler(
    desc: &SamplerDescriptor,
    limits: &DeviceLimits,
) -> Result<SamplerDescriptor, DeviceError> {
    if !(desc.lod_min_clamp >= 0.0 && desc.lod_min_clamp <= desc.lod_max_clamp) {
        return Err(invalid(
            "create_sampler",
            &desc.label,
            format!(
                "lod clamps {}..{} are not an ordered non-negative range",
                desc.lod_min_clamp, desc.lod_max_clamp
            ),
        ));
    }
    let mut d = desc.clone();
    d.max_anisotropy = desc.max_anisotropy.clamp(1, limits.max_sampler_anisotropy.max(1));
    Ok(d)
}

/// The rules for `create_pipeline` that only need the descriptor and the device's
/// capabilities: features its state needs, attachment counts, vertex layout limits.
pub fn check_pipeline_descriptor(
    desc: &PipelineDescriptor,
    features: &DeviceFeatures,
    limits: &DeviceLimits,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    const OP: &str = "create_pipeline";
    if desc.primitive.polygon_mode == PolygonMode::Line && !features.has(DeviceFeature::WIREFRAME) {
        return Err(unsupported(DeviceFeature::WIREFRAME, backend));
    }
    if desc.primitive.unclipped_depth && !features.has(DeviceFeature::DEPTH_CLIP_CONTROL) {
        return Err(unsupported(DeviceFeature::DEPTH_CLIP_CONTROL, backend));
    }
    if desc.multiview.is_some() && !features.has(DeviceFeature::MULTIVIEW) {
        return Err(unsupported(DeviceFeature::MULTIVIEW, backend));
    }
    if desc.sample_count > 1 && !features.has(DeviceFeature::MSAA) {
        return Err(unsupported(DeviceFeature::MSAA, backend));
    }
    if desc.color_targets.iter().any(|t| t.blend.is_some_and(|b| b.uses_constant()))
        && !features.has(DeviceFeature::BLEND_CONSTANT)
    {
        return Err(unsupported(DeviceFeature::BLEND_CONSTANT, backend));
    }
    if let Some(ds) = &desc.depth_stencil {
        if ds.stencil.is_enabled() && !features.has(DeviceFeature::STENCIL) {
            return Err(unsupported(DeviceFeature::STENCIL, backend));
        }
        if !ds.format.has_depth() {
            return Err(invalid(OP, &desc.label, format!("depth-stencil format {} has no depth", ds.format)));
        }
    }
    over(OP, "max_color_attachments", desc.color_targets.len() as u64, limits.max_color_attachments.into())?;
    over(OP, "max_vertex_buffers", desc.vertex_buffers.len() as u64, limits.max_vertex_buffers.into())?;
    let attributes: usize = desc.vertex_buffers.iter().map(|b| b.attributes.len()).sum();
    over(OP, "max_vertex_attributes", attributes as u64, limits.max_vertex_attributes.into())?;
    for (slot, layout) in desc.vertex_buffers.iter().enumerate() {
        over(OP, "max_vertex_stride", layout.stride.into(), limits.max_vertex_stride.into())?;
        for a in &layout.attributes {
            if layout.stride != 0 && a.offset + a.format.size() > layout.stride {
                return Err(invalid(
                    OP,
                    &desc.label,
                    format!(
                        "attribute at location {} overruns the stride of vertex buffer {slot}",
                        a.location
                    ),
                ));
            }
        }
    }
    for t in &desc.color_targets {
        if !t.format.is_color() || !t.format.facts().renderable {
            return Err(invalid(OP, &desc.label, format!("{} cannot be a colour target", t.format)));
        }
        if t.blend.is_some() && !t.format.facts().blendable {
            return Err(invalid(OP, &desc.label, format!("{} cannot be blended", t.format)));
        }
    }
    if desc.fragment.is_none() && !desc.color_targets.is_empty() {
        return Err(invalid(OP, &desc.label, "colour targets without a fragment shader"));
    }
    Ok(())
}

/// The rules for `create_pipeline` that need the reflected binding table: no uniform block
/// larger than `max_uniform_block_size`; no more uniform blocks in the whole pipeline than
/// `max_uniform_blocks_per_stage` (the GPU backends bind them with dynamic offsets, which
/// Vulkan and wgpu count per pipeline layout, not per stage); and per stage (vertex,
/// fragment, or compute for a binding neither render stage uses) no more sampled textures
/// and samplers than `max_sampled_textures_per_stage` and `max_samplers_per_stage`. Refused
/// as `LimitExceeded` naming the limit. Every backend calls this after reflection, before it
/// asks its API for the pipeline.
pub fn check_binding_limits(
    bindings: &crate::BindingLayout,
    limits: &DeviceLimits,
) -> Result<(), DeviceError> {
    const OP: &str = "create_pipeline";
    let mut uniforms = 0u64;
    // Textures and samplers of the vertex, fragment and compute stages.
    let mut per_stage = [[0u64; 2]; 3];
    for b in bindings.entries() {
        let kind = match b.kind {
            BindingKind::UniformBlock { size } => {
                over(OP, "max_uniform_block_size", size.into(), limits.max_uniform_block_size.into())?;
                uniforms += 1;
                continue;
            }
            BindingKind::Texture { .. } => 0,
            BindingKind::Sampler { .. } => 1,
            BindingKind::StorageBuffer { .. } => continue,
        };
        let stages = [b.vertex, b.fragment, !b.vertex && !b.fragment];
        for (stage, used) in stages.into_iter().enumerate() {
            per_stage[stage][kind] += u64::from(used);
        }
    }
    over(OP, "max_uniform_blocks_per_stage", uniforms, limits.max_uniform_blocks_per_stage.into())?;
    for [textures, samplers] in per_stage {
        over(OP, "max_sampled_textures_per_stage", textures, limits.max_sampled_textures_per_stage.into())?;
        over(OP, "max_samplers_per_stage", samplers, limits.max_samplers_per_stage.into())?;
    }
    Ok(())
}

/// The rule for storage buffers in a render pipeline (vertex and fragment stages): they need
/// [`STORAGE_BUFFERS`](DeviceFeature::STORAGE_BUFFERS) and are read-only (`var<storage, read>`);
/// a render stage that writes one is refused naming it. Every backend calls this for render
/// pipelines, after reflection.
pub fn check_render_storage(
    label: &str,
    bindings: &crate::BindingLayout,
    features: &DeviceFeatures,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    for b in bindings.entries() {
        if let BindingKind::StorageBuffer { read_only } = b.kind {
            if !features.has(DeviceFeature::STORAGE_BUFFERS) {
                return Err(unsupported(DeviceFeature::STORAGE_BUFFERS, backend));
            }
            if !read_only {
                return Err(invalid(
                    "create_pipeline",
                    label,
                    format!(
                        "storage buffer `{}` is writable; vertex and fragment stages may only read \
                         storage buffers (declare it `var<storage, read>`)",
                        b.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The rules for `begin_render_pass`: attachment count, usage, format kinds, equal sizes,
/// levels and layers in range, and the features multiview and resolves need.
pub fn check_render_pass(
    desc: &RenderPassDescriptor,
    features: &DeviceFeatures,
    limits: &DeviceLimits,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    const OP: &str = "begin_render_pass";
    if desc.multiview.is_some() && !features.has(DeviceFeature::MULTIVIEW) {
        return Err(unsupported(DeviceFeature::MULTIVIEW, backend));
    }
    over(
        OP,
        "max_color_attachments",
        desc.color_attachments.len() as u64,
        limits.max_color_attachments.into(),
    )?;
    if desc.color_attachments.is_empty() && desc.depth_stencil_attachment.is_none() {
        return Err(invalid(OP, &desc.label, "a pass needs at least one attachment"));
    }
    let size = desc.size();
    let views = desc
        .color_attachments
        .iter()
        .map(|a| (&a.view, true))
        .chain(desc.color_attachments.iter().filter_map(|a| a.resolve_target.as_ref().map(|r| (r, true))))
        .chain(desc.depth_stencil_attachment.iter().map(|d| (&d.view, false)));
    for (view, color) in views {
        let t = view.texture.descriptor();
        if !t.usage.contains(TextureUsages::RENDER_ATTACHMENT) {
            return Err(DeviceError::MissingUsage {
                operation: OP,
                label: t.label.clone(),
                usage: "RENDER_ATTACHMENT",
            });
        }
        if color != t.format.is_color() {
            return Err(invalid(
                OP,
                &desc.label,
                format!(
                    "{} ({}) is attached as {}",
                    t.label,
                    t.format,
                    if color { "colour" } else { "depth" }
                ),
            ));
        }
        if view.mip_level >= t.mip_level_count || view.layer >= t.array_layers {
            return Err(DeviceError::OutOfBounds {
                operation: OP,
                what: format!("level {} layer {} of {}", view.mip_level, view.layer, t.label),
            });
        }
        if Some(view.size()) != size {
            return Err(invalid(
                OP,
                &desc.label,
                format!("attachments differ in size ({} is {:?})", t.label, view.size()),
            ));
        }
    }
    let mut samples_seen = desc
        .color_attachments
        .iter()
        .map(|a| a.view.texture.descriptor().sample_count)
        .chain(desc.depth_stencil_attachment.iter().map(|d| d.view.texture.descriptor().sample_count));
    if let Some(first) = samples_seen.next()
        && samples_seen.any(|s| s != first)
    {
        return Err(invalid(OP, &desc.label, "attachments differ in sample count"));
    }
    if let Some(views) = desc.multiview {
        let all = desc
            .color_attachments
            .iter()
            .map(|a| &a.view)
            .chain(desc.depth_stencil_attachment.iter().map(|d| &d.view));
        for view in all {
            if view.layer + views.get() > view.texture.descriptor().array_layers {
                return Err(DeviceError::OutOfBounds {
                    operation: OP,
                    what: format!("{} views from layer {} of {}", views, view.layer, view.texture.label()),
                });
            }
        }
    }
    for a in &desc.color_attachments {
        if let Some(r) = &a.resolve_target
            && r.texture.descriptor().format != a.view.texture.descriptor().format
        {
            return Err(invalid(OP, &desc.label, "a resolve target has another format than its attachment"));
        }
        let samples = a.view.texture.descriptor().sample_count;
        if let Some(r) = &a.resolve_target
            && (samples == 1 || r.texture.descriptor().sample_count != 1)
        {
            return Err(invalid(
                OP,
                &desc.label,
                "a resolve goes from a multisampled attachment to a single-sampled one",
            ));
        }
    }
    Ok(())
}

/// The rule for draws with several instances.
pub fn check_instances(
    instances: &std::ops::Range<u32>,
    features: &DeviceFeatures,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    if instances.len() > 1 && !features.has(DeviceFeature::INSTANCING) {
        return Err(unsupported(DeviceFeature::INSTANCING, backend));
    }
    Ok(())
}

/// Whether `format` is a 32-bit float format, which filters linearly only with
/// [`FLOAT32_FILTERABLE`](DeviceFeature::FLOAT32_FILTERABLE).
pub fn is_float32(format: crate::TextureFormat) -> bool {
    use crate::TextureFormat as F;
    matches!(format, F::R32Float | F::Rg32Float | F::Rgba32Float)
}

/// The rule for linear filtering of 32-bit float textures at draw time: a bound float32
/// texture whose sampler (found by [`BindingLayout::sampler_for`](crate::BindingLayout::sampler_for)) filters linearly needs
/// [`FLOAT32_FILTERABLE`](DeviceFeature::FLOAT32_FILTERABLE).
pub fn check_float32_filtering(
    layout: &crate::BindingLayout,
    textures: &[(crate::BindingSlot, &TextureDescriptor)],
    samplers: &[(crate::BindingSlot, &SamplerDescriptor)],
    features: &DeviceFeatures,
    backend: &BackendId,
) -> Result<(), DeviceError> {
    use crate::FilterMode;
    if features.has(DeviceFeature::FLOAT32_FILTERABLE) {
        return Ok(());
    }
    for (slot, desc) in textures {
        if !is_float32(desc.format) {
            continue;
        }
        let Some(name) = layout.get(*slot).map(|b| b.name.as_str()) else { continue };
        let Some(sampler_slot) = layout.sampler_for(name) else { continue };
        let linear = samplers.iter().filter(|(s, _)| *s == sampler_slot).any(|(_, d)| {
            d.compare.is_none()
                && (d.mag_filter == FilterMode::Linear
                    || d.min_filter == FilterMode::Linear
                    || d.mipmap_filter == FilterMode::Linear)
        });
        if linear {
            return Err(unsupported(DeviceFeature::FLOAT32_FILTERABLE, backend));
        }
    }
    Ok(())
}

/// The rule for `draw_indexed`: the index window lies inside the bound index buffer.
pub fn check_index_window(
    indices: &std::ops::Range<u32>,
    buffer_size: u64,
    offset: u64,
    format: crate::IndexFormat,
) -> Result<(), DeviceError> {
    let available = buffer_size.saturating_sub(offset) / u64::from(format.size());
    if u64::from(indices.end) > available || indices.start > indices.end {
        return Err(DeviceError::OutOfBounds {
            operation: "draw_indexed",
            what: format!(
                "indices {}..{} of an index buffer holding {available}",
                indices.start, indices.end
            ),
        });
    }
    Ok(())
}
/// The rule for every draw: each binding the pipeline's stages declare is bound. A draw with
/// a hole is refused naming the binding (set_pipeline forgets bindings, so this is also what
/// makes that rule observable).
pub fn check_bindings_complete(
    operation: &'static str,
    pipeline: &PipelineHandle,
    is_bound: impl Fn(crate::BindingSlot) -> bool,
) -> Result<(), DeviceError> {
    for (i, b) in pipeline.bindings().entries().iter().enumerate() {
        if !is_bound(crate::BindingSlot(i as u32)) {
            return Err(DeviceError::Refused {
                operation,
                reason: format!("{} of pipeline {} is not bound", b.name, pipeline.label()),
            });
        }
    }
    Ok(())
}

/// The rules for `set_viewport`: finite, a positive extent no larger than the largest
/// texture, an origin within twice that of the attachment, and depths with
/// `0 ≤ min_depth ≤ max_depth ≤ 1` (WebGPU's rules).
pub fn check_viewport(viewport: &crate::Viewport, limits: &DeviceLimits) -> Result<(), DeviceError> {
    let v = viewport;
    let max = limits.max_texture_dimension_2d as f32;
    let finite = [v.x, v.y, v.width, v.height, v.min_depth, v.max_depth].iter().all(|x| x.is_finite());
    let extent_ok = v.width > 0.0 && v.height > 0.0 && v.width <= max && v.height <= max;
    let origin_ok =
        v.x >= -2.0 * max && v.y >= -2.0 * max && v.x + v.width <= 2.0 * max && v.y + v.height <= 2.0 * max;
    let depth_ok = (0.0..=1.0).contains(&v.min_depth)
        && (0.0..=1.0).contains(&v.max_depth)
        && v.min_depth <= v.max_depth;
    if finite && extent_ok && origin_ok && depth_ok {
        Ok(())
    } else {
        Err(DeviceError::OutOfBounds {
            operation: "set_viewport",
            what: format!("{v:?} (extent must be in (0, {max}], depths 0 ≤ min ≤ max ≤ 1)"),
        })
    }
}

/// The rules for `set_vertex_buffer`: the slot exists, the offset is a multiple of 4 and lies
/// in the buffer, and the buffer has `VERTEX` usage.
pub fn check_vertex_buffer(
    slot: u32,
    buffer: &GeometryBuffer,
    offset: u64,
    limits: &DeviceLimits,
) -> Result<(), DeviceError> {
    const OP: &str = "set_vertex_buffer";
    let desc = buffer.descriptor();
    if !desc.usage.contains(GeometryUsages::VERTEX) {
        return Err(DeviceError::MissingUsage { operation: OP, label: desc.label.clone(), usage: "VERTEX" });
    }
    if slot >= limits.max_vertex_buffers || !offset.is_multiple_of(4) || offset > desc.size {
        return Err(DeviceError::OutOfBounds {
            operation: OP,
            what: format!(
                "slot {slot} (of {}) at offset {offset} of {} ({} bytes; offsets are multiples of 4)",
                limits.max_vertex_buffers, desc.label, desc.size
            ),
        });
    }
    Ok(())
}

/// The rule for a direct `draw`: every vertex buffer the pipeline reads holds the vertices
/// (per-vertex buffers) and instances (per-instance buffers) the draw asks for. `bound`
/// gives each slot's buffer size and offset.
pub fn check_vertex_ranges(
    pipeline: &PipelineHandle,
    bound: &[Option<(u64, u64)>],
    vertices: &std::ops::Range<u32>,
    instances: &std::ops::Range<u32>,
) -> Result<(), DeviceError> {
    let Some(desc) = &pipeline.descriptor().render else { return Ok(()) };
    for (slot, layout) in desc.vertex_buffers.iter().enumerate() {
        let Some(end) = layout.attributes.iter().map(|a| u64::from(a.offset + a.format.size())).max() else {
            continue;
        };
        let count = match layout.step_mode {
            crate::VertexStepMode::Vertex => u64::from(vertices.end),
            crate::VertexStepMode::Instance => u64::from(instances.end),
        };
        if count == 0 {
            continue;
        }
        let needed = (count - 1) * u64::from(layout.stride) + end;
        let available = bound.get(slot).copied().flatten().map(|(size, offset)| size.saturating_sub(offset));
        match available {
            Some(a) if a >= needed => {}
            Some(a) => {
                return Err(DeviceError::OutOfBounds {
                    operation: "draw",
                    what: format!(
                        "vertex buffer {slot} of {} holds {a} bytes, the draw reads {needed}",
                        pipeline.label()
                    ),
                });
            }
            None => {
                return Err(DeviceError::Refused {
                    operation: "draw",
                    reason: format!("vertex buffer {slot} of {} is not set", pipeline.label()),
                });
            }
        }
    }
    Ok(())
}

/// The rule for `set_pipeline`: the pipeline's targets are the pass's attachments — the same
/// colour formats in order, the same depth-stencil format (a pipeline without depth state
/// only in a pass without a depth attachment), the same sample count and view count.
pub fn check_pipeline_matches_pass(
    pipeline: &PipelineHandle,
    pass: &RenderPassDescriptor,
) -> Result<(), DeviceError> {
    let Some(desc) = &pipeline.descriptor().render else {
        return Err(DeviceError::Refused {
            operation: "set_pipeline",
            reason: format!("{} is not a render pipeline", pipeline.label()),
        });
    };
    let mismatch = |what: String| DeviceError::Refused {
        operation: "set_pipeline",
        reason: format!("pipeline {} does not match pass {}: {what}", pipeline.label(), pass.label),
    };
    let formats: Vec<_> = pass.color_attachments.iter().map(|a| a.view.texture.descriptor().format).collect();
    let targets: Vec<_> = desc.color_targets.iter().map(|t| t.format).collect();
    if formats != targets {
        return Err(mismatch(format!("it writes {targets:?}, the pass has {formats:?}")));
    }
    let depth = pass.depth_stencil_attachment.as_ref().map(|d| d.view.texture.descriptor().format);
    if desc.depth_stencil.map(|d| d.format) != depth {
        return Err(mismatch(format!(
            "its depth-stencil format is {:?}, the pass's {depth:?}",
            desc.depth_stencil.map(|d| d.format)
        )));
    }
    let samples = pass
        .color_attachments
        .first()
        .map(|a| &a.view)
        .or(pass.depth_stencil_attachment.as_ref().map(|d| &d.view))
        .map_or(1, |v| v.texture.descriptor().sample_count);
    if desc.sample_count != samples {
        return Err(mismatch(format!("it has {} samples, the pass {samples}", desc.sample_count)));
    }
    if desc.multiview != pass.multiview {
        return Err(mismatch(format!(
            "it renders {:?} views, the pass {:?}",
            desc.multiview, pass.multiview
        )));
    }
    Ok(())
}
