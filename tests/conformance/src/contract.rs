//! The contract's edges: limits exactly at the limit and one past it, buffers used as they
//! were declared, entry points that must resolve, bindings at slots a pipeline does not have.
//!
//! Every check here asks only for creation and refusal, never for pixels, so the null backend
//! (which makes pipelines but draws nothing) holds it like the others. The shaders are written
//! out here, sized from the device's own limits, so "at the limit" is exactly the limit.

use f3d_hal::{
    AddressMode, BindingSlot, Color, ColorAttachment, DeviceError, DeviceFeature, GeometryBuffer,
    GeometryDescriptor, GeometryUsages, GraphicsDevice, IndexFormat, RenderPassDescriptor, SamplerDescriptor,
    ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat, VertexAttribute, VertexBufferLayout,
    VertexFormat, VertexStepMode,
};

use crate::draw::{
    create_pipeline, params, pipeline_desc_from, probe_module, probe_pipeline_desc, scene_pipeline,
};
use crate::support::{expect_unsupported, rgba8};
use crate::{Check, CheckFn, CheckResult, Context, Tier, Verdict, ensure, fail};

pub(crate) fn checks() -> Vec<Check> {
    let c = |name, f| Check { tier: Tier::Core, name, run: CheckFn::Device(f) };
    vec![
        c("color_attachments_at_and_past_the_limit", color_attachments_at_and_past_the_limit),
        c("vertex_attributes_at_and_past_the_limit", vertex_attributes_at_and_past_the_limit),
        c("vertex_buffers_at_and_past_the_limit", vertex_buffers_at_and_past_the_limit),
        c("bindings_at_and_past_the_limit", bindings_at_and_past_the_limit),
        c("geometry_is_used_as_declared", geometry_is_used_as_declared),
        c("missing_entry_points_are_refused_by_name", missing_entry_points_are_refused_by_name),
        c("binding_past_the_layout_is_refused", binding_past_the_layout_is_refused),
        c("default_sampler_is_made", default_sampler_is_made),
    ]
}

/// Judges a refusal that must be `LimitExceeded` naming `limit`, reporting the `requested`
/// count the check asked for against the device's own `max`.
fn expect_limit<T>(
    result: Result<T, DeviceError>,
    limit: &str,
    requested: u64,
    max: u64,
    what: &str,
) -> CheckResult {
    match result {
        Ok(_) => fail(format!("{what} was accepted, one past {limit} ({max})")),
        Err(DeviceError::LimitExceeded { limit: named, requested: r, max: m, .. }) if named == limit => {
            ensure!(
                (r, m) == (requested, max),
                "{what}: refused naming {limit}, but as {r} of {m} rather than {requested} of {max}"
            );
            Ok(())
        }
        Err(e) => fail(format!("{what} must be refused as LimitExceeded naming {limit}; got: {e}")),
    }
}

/// Judges a refusal that must be `MissingUsage` naming `usage` and the buffer's label.
fn expect_missing_usage<T>(
    result: Result<T, DeviceError>,
    buffer: &GeometryBuffer,
    usage: &str,
    what: &str,
) -> CheckResult {
    match result {
        Ok(_) => fail(format!("{what} was accepted although the buffer lacks {usage}")),
        Err(DeviceError::MissingUsage { usage: named, label, .. }) if named == usage => {
            ensure!(
                label == buffer.descriptor().label,
                "{what}: refused for missing {usage}, but naming {label}, not {}",
                buffer.descriptor().label
            );
            Ok(())
        }
        Err(e) => fail(format!("{what} must be refused as MissingUsage naming {usage}; got: {e}")),
    }
}

/// A vertex shader `vs` reading `n` `vec4<f32>` inputs at locations `0..n` (all used), and a
/// fragment shader `fs` writing `outputs` colour targets at locations `0..outputs`.
fn interface_wgsl(n: u32, outputs: u32) -> String {
    let inputs: Vec<String> = (0..n).map(|i| format!("@location({i}) a{i}: vec4<f32>")).collect();
    let sum: String = (0..n).map(|i| format!(" + a{i}")).collect();
    let fields: String = (0..outputs).map(|i| format!("    @location({i}) c{i}: vec4<f32>,\n")).collect();
    let writes: String = (0..outputs).map(|i| format!("    out.c{i} = vec4<f32>(1.0);\n")).collect();
    format!(
        "@vertex\nfn vs({}) -> @builtin(position) vec4<f32> {{\n    return vec4<f32>(0.0, 0.0, 0.0, 1.0){sum};\n}}\n\
         struct Targets {{\n{fields}}}\n\
         @fragment\nfn fs() -> Targets {{\n    var out: Targets;\n{writes}    return out;\n}}\n",
        inputs.join(", ")
    )
}

/// A `Float32x4` attribute at `location`, offset `offset`.
fn attribute(location: u32, offset: u32) -> VertexAttribute {
    VertexAttribute { location, format: VertexFormat::Float32x4, offset }
}

/// A pass with exactly `max_color_attachments` colour attachments begins, and a pipeline with
/// that many colour targets is created; one more of either is refused as `LimitExceeded`
/// naming `max_color_attachments` (with the counts asked for and the device's limit). A device
/// that refuses its own limit, accepts one past it, or refuses it as something else fails.
fn color_attachments_at_and_past_the_limit(device: &dyn GraphicsDevice) -> CheckResult {
    const LIMIT: &str = "max_color_attachments";
    let max = device.limits().max_color_attachments;
    ensure!(max >= 1, "{LIMIT} is 0: every device renders to at least one colour target");
    // The smallest renderable format keeps `max` targets inside any per-sample byte budget.
    let format = [TextureFormat::R8Unorm, TextureFormat::Rgba8Unorm]
        .into_iter()
        .find(|f| device.texture_format_support(*f).renderable)
        .unwrap_or(TextureFormat::Rgba8Unorm);
    let targets = (0..=max)
        .map(|_| device.create_texture(&TextureDescriptor::new_2d("attachment", 4, 4, format)))
        .collect::<Result<Vec<_>, _>>()
        .ctx("create an attachment")?;
    let pass = |n: u32| RenderPassDescriptor {
        label: format!("{n} colour attachments"),
        color_attachments: targets[..n as usize]
            .iter()
            .map(|t| ColorAttachment::clear(t, Color::BLACK))
            .collect(),
        ..RenderPassDescriptor::default()
    };
    device
        .begin_render_pass(&pass(max))
        .ctx(&format!("a pass with {max} attachments ({LIMIT})"))?
        .submit()
        .ctx("submit")?;
    expect_limit(
        device.begin_render_pass(&pass(max + 1)),
        LIMIT,
        u64::from(max) + 1,
        max.into(),
        &format!("a pass with {} attachments", max + 1),
    )?;
    let pipeline = |n: u32| {
        pipeline_desc_from(device, &interface_wgsl(0, n), ("vs", "fs"), &vec![format; n as usize], |_| {})
    };
    create_pipeline(device, &pipeline(max)?, &format!("a pipeline with {max} colour targets ({LIMIT})"))?;
    expect_limit(
        device.create_pipeline(&pipeline(max + 1)?),
        LIMIT,
        u64::from(max) + 1,
        max.into(),
        &format!("a pipeline with {} colour targets", max + 1),
    )
}

/// A pipeline reading exactly `max_vertex_attributes` attributes (one buffer, shader inputs at
/// every location) is created; one more attribute is refused as `LimitExceeded` naming
/// `max_vertex_attributes`. A device that refuses its own limit, accepts one past it, or names
/// another limit fails.
fn vertex_attributes_at_and_past_the_limit(device: &dyn GraphicsDevice) -> CheckResult {
    const LIMIT: &str = "max_vertex_attributes";
    let max = device.limits().max_vertex_attributes;
    let pipeline = |n: u32| {
        pipeline_desc_from(device, &interface_wgsl(n, 1), ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |d| {
            d.vertex_buffers = vec![VertexBufferLayout {
                stride: 16 * n.max(1),
                step_mode: VertexStepMode::Vertex,
                attributes: (0..n).map(|i| attribute(i, 16 * i)).collect(),
            }];
        })
    };
    create_pipeline(device, &pipeline(max)?, &format!("a pipeline with {max} attributes ({LIMIT})"))?;
    expect_limit(
        device.create_pipeline(&pipeline(max + 1)?),
        LIMIT,
        u64::from(max) + 1,
        max.into(),
        &format!("a pipeline with {} attributes", max + 1),
    )
}

/// A pipeline reading exactly `max_vertex_buffers` buffers is created and one more buffer is
/// refused naming `max_vertex_buffers`; a buffer whose stride is exactly `max_vertex_stride`
/// is accepted and one byte more is refused naming `max_vertex_stride`. (Buffers past
/// `max_vertex_attributes` carry no attribute, so only the limit under test is passed.) A
/// device that refuses its limits, accepts one past them, or names another limit fails.
fn vertex_buffers_at_and_past_the_limit(device: &dyn GraphicsDevice) -> CheckResult {
    let limits = *device.limits();
    let buffers = |n: u32| {
        let attributes = n.min(limits.max_vertex_attributes);
        pipeline_desc_from(
            device,
            &interface_wgsl(attributes, 1),
            ("vs", "fs"),
            &[TextureFormat::Rgba8Unorm],
            |d| {
                d.vertex_buffers = (0..n)
                    .map(|i| VertexBufferLayout {
                        stride: 16,
                        step_mode: VertexStepMode::Vertex,
                        attributes: if i < attributes { vec![attribute(i, 0)] } else { Vec::new() },
                    })
                    .collect();
            },
        )
    };
    let max = limits.max_vertex_buffers;
    create_pipeline(
        device,
        &buffers(max)?,
        &format!("a pipeline with {max} vertex buffers (max_vertex_buffers)"),
    )?;
    expect_limit(
        device.create_pipeline(&buffers(max + 1)?),
        "max_vertex_buffers",
        u64::from(max) + 1,
        max.into(),
        &format!("a pipeline with {} vertex buffers", max + 1),
    )?;
    let stride = |stride: u32| {
        pipeline_desc_from(device, &interface_wgsl(1, 1), ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |d| {
            d.vertex_buffers = vec![VertexBufferLayout {
                stride,
                step_mode: VertexStepMode::Vertex,
                attributes: vec![attribute(0, 0)],
            }];
        })
    };
    let max = limits.max_vertex_stride;
    create_pipeline(device, &stride(max)?, &format!("a vertex stride of {max} bytes (max_vertex_stride)"))?;
    expect_limit(
        device.create_pipeline(&stride(max + 1)?),
        "max_vertex_stride",
        u64::from(max) + 1,
        max.into(),
        &format!("a vertex stride of {} bytes", max + 1),
    )
}

/// A shader pair whose fragment stage binds `n` resources of one kind at group 0, bindings
/// `0..n`, and reads every one (so reflection keeps them all).
fn bindings_wgsl(kind: BindingsOf, n: u32) -> String {
    let mut decls = String::new();
    let mut reads = String::new();
    match kind {
        BindingsOf::Textures => {
            for i in 0..n {
                decls += &format!("@group(0) @binding({i}) var t{i}: texture_2d<f32>;\n");
                reads += &format!("    c += textureLoad(t{i}, vec2<i32>(0), 0);\n");
            }
        }
        BindingsOf::Samplers => {
            decls += &format!("@group(0) @binding({n}) var t: texture_2d<f32>;\n");
            for i in 0..n {
                decls += &format!("@group(0) @binding({i}) var s{i}: sampler;\n");
                reads += &format!("    c += textureSampleLevel(t, s{i}, vec2<f32>(0.5), 0.0);\n");
            }
        }
        BindingsOf::UniformBlocks => {
            decls += "struct U { v: vec4<f32> }\n";
            for i in 0..n {
                decls += &format!("@group(0) @binding({i}) var<uniform> u{i}: U;\n");
                reads += &format!("    c += u{i}.v;\n");
            }
        }
        BindingsOf::BlockOfVec4s => {
            decls += &format!(
                "struct U {{ v: array<vec4<f32>, {n}> }}\n@group(0) @binding(0) var<uniform> u: U;\n"
            );
            reads += &format!("    c += u.v[{}];\n", n - 1);
        }
    }
    format!(
        "{decls}@vertex\nfn vs() -> @builtin(position) vec4<f32> {{\n    return vec4<f32>(0.0, 0.0, 0.0, 1.0);\n}}\n\
         @fragment\nfn fs() -> @location(0) vec4<f32> {{\n    var c = vec4<f32>(0.0);\n{reads}    return c;\n}}\n"
    )
}

/// What [`bindings_wgsl`] declares.
#[derive(Clone, Copy)]
enum BindingsOf {
    Textures,
    Samplers,
    UniformBlocks,
    /// One uniform block of that many `vec4<f32>`s.
    BlockOfVec4s,
}

/// Pipelines whose fragment stage binds exactly `max_sampled_textures_per_stage` textures,
/// `max_samplers_per_stage` samplers and `max_uniform_blocks_per_stage` uniform blocks, and
/// one uniform block of exactly `max_uniform_block_size` bytes, are created; one more of any
/// (16 bytes more for the block, a `vec4`) is refused as `LimitExceeded` naming that limit,
/// with the count asked for and the device's own limit. A device that refuses what it
/// reports, accepts one past it (letting its API fail later, or not at all), or names another
/// limit fails.
fn bindings_at_and_past_the_limit(device: &dyn GraphicsDevice) -> CheckResult {
    let limits = *device.limits();
    let cases = [
        (BindingsOf::Textures, "max_sampled_textures_per_stage", limits.max_sampled_textures_per_stage, 1),
        (BindingsOf::Samplers, "max_samplers_per_stage", limits.max_samplers_per_stage, 1),
        (BindingsOf::UniformBlocks, "max_uniform_blocks_per_stage", limits.max_uniform_blocks_per_stage, 1),
        (BindingsOf::BlockOfVec4s, "max_uniform_block_size", limits.max_uniform_block_size / 16, 16),
    ];
    for (kind, limit, max, unit) in cases {
        let desc = |n: u32| {
            pipeline_desc_from(
                device,
                &bindings_wgsl(kind, n),
                ("vs", "fs"),
                &[TextureFormat::Rgba8Unorm],
                |_| {},
            )
        };
        let reported = max * unit;
        ensure!(
            reported == limit_value(&limits, limit),
            "{limit} is {} bytes, not a whole number of vec4s",
            limit_value(&limits, limit)
        );
        create_pipeline(device, &desc(max)?, &format!("a pipeline at {limit} ({reported})"))?;
        expect_limit(
            device.create_pipeline(&desc(max + 1)?),
            limit,
            u64::from((max + 1) * unit),
            reported.into(),
            &format!("a pipeline at {limit} + {unit}"),
        )?;
    }
    Ok(())
}

/// The value of the binding limit called `name`.
fn limit_value(limits: &f3d_hal::DeviceLimits, name: &str) -> u32 {
    match name {
        "max_sampled_textures_per_stage" => limits.max_sampled_textures_per_stage,
        "max_samplers_per_stage" => limits.max_samplers_per_stage,
        "max_uniform_blocks_per_stage" => limits.max_uniform_blocks_per_stage,
        _ => limits.max_uniform_block_size,
    }
}

/// A geometry buffer is used only as its usage declares: a VERTEX-only buffer set as an index
/// buffer is refused as `MissingUsage` naming `INDEX` (and the buffer), and with
/// `INDIRECT_DRAW` a buffer without `INDIRECT` given to `draw_indirect` as `MissingUsage`
/// naming `INDIRECT`; buffers used as declared (VERTEX-only as vertices, INDEX-only as
/// indices, INDIRECT-only for `draw_indirect`) are accepted. Without `INDIRECT_DRAW`,
/// declaring `INDIRECT` is refused by the feature's name; an INDEX-only buffer set as a vertex
/// buffer is refused as `MissingUsage` naming `VERTEX`. A device that reads a buffer as what
/// it was not declared for, or refuses one used as declared, fails.
fn geometry_is_used_as_declared(device: &dyn GraphicsDevice) -> CheckResult {
    // Four u32s: vertex count, instance count, first vertex, first instance.
    let args: Vec<u8> = [3u32, 1, 0, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let only = |label: &str, usage: GeometryUsages| {
        device.create_geometry(
            &GeometryDescriptor { label: label.into(), size: args.len() as u64, usage },
            Some(&args),
        )
    };
    let vertex_only = only("vertex only", GeometryUsages::VERTEX).ctx("create a VERTEX-only buffer")?;
    let index_only = only("index only", GeometryUsages::INDEX).ctx("create an INDEX-only buffer")?;
    let target = rgba8(device, 4, 4)?;
    let scene = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "geometry usage",
            ColorAttachment::clear(&target, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    pass.set_pipeline(&scene).ctx("set_pipeline")?;
    expect_missing_usage(
        pass.set_index_buffer(&vertex_only, IndexFormat::Uint16, 0),
        &vertex_only,
        "INDEX",
        "a VERTEX-only buffer set as an index buffer",
    )?;
    expect_missing_usage(
        pass.set_vertex_buffer(0, &index_only, 0),
        &index_only,
        "VERTEX",
        "an INDEX-only buffer set as a vertex buffer",
    )?;
    pass.set_vertex_buffer(0, &vertex_only, 0).ctx("a VERTEX-only buffer set as a vertex buffer")?;
    pass.set_index_buffer(&index_only, IndexFormat::Uint16, 0)
        .ctx("an INDEX-only buffer set as an index buffer")?;
    if device.features().has(DeviceFeature::INDIRECT_DRAW) {
        // A pipeline with no inputs and no bindings, so nothing but the buffer can be at fault.
        let bare = pipeline_desc_from(
            device,
            &interface_wgsl(0, 1),
            ("vs", "fs"),
            &[TextureFormat::Rgba8Unorm],
            |_| {},
        )?;
        let bare = create_pipeline(device, &bare, "a pipeline without inputs")?;
        pass.set_pipeline(&bare).ctx("set_pipeline")?;
        let both = only("vertex and index", GeometryUsages::VERTEX | GeometryUsages::INDEX)
            .ctx("create a VERTEX | INDEX buffer")?;
        expect_missing_usage(
            pass.draw_indirect(&both, 0),
            &both,
            "INDIRECT",
            "a buffer without INDIRECT given to draw_indirect",
        )?;
        let indirect =
            only("indirect only", GeometryUsages::INDIRECT).ctx("create an INDIRECT-only buffer")?;
        pass.draw_indirect(&indirect, 0).ctx("an INDIRECT-only buffer given to draw_indirect")?;
    } else {
        expect_unsupported(
            device,
            only("indirect only", GeometryUsages::INDIRECT),
            DeviceFeature::INDIRECT_DRAW,
            "a buffer declared INDIRECT",
        )?;
    }
    pass.submit().ctx("submit")
}

/// `create_shader` resolves its entry point by name and stage: an entry point the module
/// lacks, a vertex entry point asked for as a fragment shader and a fragment one asked for as
/// a vertex shader are each refused as a `Shader` error whose text names the entry point (the
/// label does not, so the name must come from the refusal itself); the real ones are made.
/// A device that makes a shader from nothing, from the wrong stage, or refuses without
/// saying which entry point, fails.
fn missing_entry_points_are_refused_by_name(device: &dyn GraphicsDevice) -> CheckResult {
    let module = probe_module()?;
    let shader = |stage: ShaderStage, entry: &str| {
        device.create_shader(&ShaderDescriptor {
            label: "conformance shader".into(),
            module: module.clone(),
            stage,
            entry_point: entry.into(),
        })
    };
    shader(ShaderStage::Vertex, "vs_rect").ctx("the vertex entry point vs_rect")?;
    shader(ShaderStage::Fragment, "fs_color").ctx("the fragment entry point fs_color")?;
    let cases = [
        (ShaderStage::Vertex, "vs_nowhere", "a vertex entry point the module lacks"),
        (ShaderStage::Fragment, "fs_nowhere", "a fragment entry point the module lacks"),
        (ShaderStage::Fragment, "vs_rect", "the vertex entry point vs_rect asked for as a fragment shader"),
        (ShaderStage::Vertex, "fs_color", "the fragment entry point fs_color asked for as a vertex shader"),
    ];
    for (stage, entry, what) in cases {
        match shader(stage, entry) {
            Ok(_) => return fail(format!("{what} was made into a shader")),
            Err(e @ DeviceError::Shader { .. }) => {
                ensure!(
                    e.to_string().contains(entry),
                    "{what}: refused, but the error does not name {entry}: {e}"
                );
            }
            Err(e) => {
                return fail(format!("{what} must be refused as a shader error naming {entry}; got: {e}"));
            }
        }
    }
    Ok(())
}

/// In a pass, `bind_uniform_block_at`, `bind_texture_at` and `bind_sampler_at` answer false
/// for a slot past the pipeline's layout (just past it, and `u32::MAX`) and for a slot of
/// another kind, and `bind_uniform_block`/`bind_texture` answer false for names the pipeline
/// does not declare; the same calls at the pipeline's real slots and names answer true. The
/// probe pipeline declares exactly `params`, `tex` and `tex_sampler`, counted here from its
/// WGSL. A device that binds past the layout (or panics), binds across kinds, or refuses a
/// real slot fails.
fn binding_past_the_layout_is_refused(device: &dyn GraphicsDevice) -> CheckResult {
    let target = rgba8(device, 4, 4)?;
    let sampled = rgba8(device, 2, 2)?;
    let sampler = device.create_sampler(&SamplerDescriptor::default()).ctx("create_sampler")?;
    let desc = probe_pipeline_desc(device, "fs_texture", TextureFormat::Rgba8Unorm)?;
    let pipeline = create_pipeline(device, &desc, "the probe texture pipeline")?;
    let n = pipeline.bindings().entries().len() as u32;
    ensure!(
        n == 3,
        "the probe texture pipeline reflects {n} bindings; its shaders declare params, tex and tex_sampler"
    );
    let slot = |name: &str| {
        pipeline
            .slot(name)
            .ok_or_else(|| Verdict::Failed(format!("the probe pipeline has no slot for {name}")))
    };
    let (block, tex, tex_sampler) = (slot("params")?, slot("tex")?, slot("tex_sampler")?);
    let bytes = params([1.0; 4], [-1.0, -1.0, 1.0, 1.0], 0.5);
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "binding slots",
            ColorAttachment::clear(&target, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    pass.set_pipeline(&pipeline).ctx("set_pipeline")?;
    for past in [BindingSlot(n), BindingSlot(n + 1), BindingSlot(u32::MAX)] {
        ensure!(
            !pass.bind_uniform_block_at(past, &bytes),
            "bind_uniform_block_at({past:?}) answered true; the pipeline has {n} bindings"
        );
        ensure!(
            !pass.bind_texture_at(past, &sampled),
            "bind_texture_at({past:?}) answered true; the pipeline has {n} bindings"
        );
        ensure!(
            !pass.bind_sampler_at(past, &sampler),
            "bind_sampler_at({past:?}) answered true; the pipeline has {n} bindings"
        );
    }
    ensure!(!pass.bind_texture_at(block, &sampled), "a texture was bound at the uniform block's slot");
    ensure!(!pass.bind_sampler_at(tex, &sampler), "a sampler was bound at the texture's slot");
    ensure!(
        !pass.bind_uniform_block_at(tex_sampler, &bytes),
        "a uniform block was bound at the sampler's slot"
    );
    ensure!(
        !pass.bind_uniform_block("no_such_block", &bytes),
        "bind_uniform_block of an undeclared name answered true"
    );
    ensure!(
        !pass.bind_texture("no_such_texture", &sampled, &sampler),
        "bind_texture of an undeclared name answered true"
    );
    ensure!(
        pass.bind_uniform_block_at(block, &bytes),
        "bind_uniform_block_at the params slot answered false"
    );
    ensure!(pass.bind_texture_at(tex, &sampled), "bind_texture_at the tex slot answered false");
    ensure!(
        pass.bind_sampler_at(tex_sampler, &sampler),
        "bind_sampler_at the tex_sampler slot answered false"
    );
    ensure!(pass.bind_uniform_block("params", &bytes), "bind_uniform_block(\"params\") answered false");
    ensure!(
        pass.bind_uniform_block("Params", &bytes),
        "bind_uniform_block by the block's type name answered false"
    );
    ensure!(pass.bind_texture("tex", &sampled, &sampler), "bind_texture(\"tex\") answered false");
    pass.submit().ctx("submit")
}

/// `SamplerDescriptor::default()` is made, with anisotropy 1. Anisotropy above
/// `max_sampler_anisotropy` is clamped, never refused (as `create_sampler` and
/// `SamplerDescriptor::max_anisotropy` promise): with every filter linear the sampler is made
/// with exactly the limit; with nearest filters with something in `1..=limit` (a backend may
/// use 1, as APIs only filter anisotropically when every filter is linear). A device that
/// refuses a large anisotropy, or reports using more than its limit, fails.
fn default_sampler_is_made(device: &dyn GraphicsDevice) -> CheckResult {
    let s = device.create_sampler(&SamplerDescriptor::default()).ctx("the default sampler")?;
    ensure!(
        s.descriptor().max_anisotropy == 1,
        "the default sampler was made with anisotropy {}, not 1",
        s.descriptor().max_anisotropy
    );
    let max = device.limits().max_sampler_anisotropy;
    ensure!(max >= 1, "max_sampler_anisotropy is 0; 1 means no anisotropic filtering");
    for requested in [max.saturating_add(1), u16::MAX] {
        let linear =
            SamplerDescriptor { max_anisotropy: requested, ..SamplerDescriptor::linear(AddressMode::Repeat) };
        let s = device
            .create_sampler(&linear)
            .ctx(&format!("a linear sampler with anisotropy {requested} (must be clamped, never refused)"))?;
        ensure!(
            s.descriptor().max_anisotropy == max,
            "a linear sampler asking for anisotropy {requested} was made with {}, not clamped to max_sampler_anisotropy {max}",
            s.descriptor().max_anisotropy
        );
        let nearest = SamplerDescriptor { max_anisotropy: requested, ..SamplerDescriptor::default() };
        let s = device.create_sampler(&nearest).ctx(&format!(
            "a nearest sampler with anisotropy {requested} (must be clamped, never refused)"
        ))?;
        ensure!(
            (1..=max).contains(&s.descriptor().max_anisotropy),
            "a nearest sampler asking for anisotropy {requested} was made with {}, outside 1..={max}",
            s.descriptor().max_anisotropy
        );
    }
    Ok(())
}
