//! The three-pass graph the soft backend's pixel test runs: render into a transient, sample
//! it into a second transient, tonemap that into the imported target.
//!
//! Given any device's pipelines, so the same graph runs on null (pipelines refused, clears
//! only) and on soft (shaders run, pixels checked). Each pass draws one full-screen triangle
//! (`draw(0..3, 0..1)`, no vertex buffers): the vertex shader makes the positions from the
//! vertex index.

use std::sync::Arc;

use f3d_hal::{
    ColorTargetState, GraphicsDevice, LoadOp, PipelineDescriptor, PipelineHandle, PrimitiveState,
    ResourceState, SamplerDescriptor, SamplerHandle, ShaderDescriptor, ShaderStage, TextureFormat,
    TextureHandle,
};
use f3d_render_graph::{PassContext, PassResult, RenderGraph, TextureDesc, TextureId};

/// WGSL for the three passes: `vs` (full-screen triangle), `fs_scene` (a constant HDR
/// colour), `fs_sample` and `fs_tonemap` (sample `source` with `source_sampler`; tonemap
/// applies `c / (1 + c)`).
pub const THREE_PASS_WGSL: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_scene() -> @location(0) vec4<f32> {
    return vec4<f32>(3.0, 1.0, 0.0, 1.0);
}

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var source_sampler: sampler;

@fragment
fn fs_sample(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let size = vec2<f32>(textureDimensions(source));
    return textureSample(source, source_sampler, p.xy / size);
}

@fragment
fn fs_tonemap(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let size = vec2<f32>(textureDimensions(source));
    let c = textureSample(source, source_sampler, p.xy / size).rgb;
    return vec4<f32>(c / (vec3<f32>(1.0) + c), 1.0);
}
"#;

/// What the three passes draw with.
#[derive(Clone)]
pub struct ThreePassPipelines {
    /// Draws the scene into the HDR transient.
    pub scene: PipelineHandle,
    /// Samples the HDR transient into the second transient.
    pub sample: PipelineHandle,
    /// Tonemaps the second transient into the target.
    pub tonemap: PipelineHandle,
    /// The sampler both sampling passes use.
    pub sampler: SamplerHandle,
}

impl ThreePassPipelines {
    /// Compiles [`THREE_PASS_WGSL`] on `device`; the target has `target_format`.
    pub fn new(device: &dyn GraphicsDevice, target_format: TextureFormat) -> Result<Self, String> {
        let module = Arc::new(f3d_materials::compile_wgsl("three_pass.wgsl", THREE_PASS_WGSL)?);
        let shader = |stage, entry: &str| {
            device
                .create_shader(&ShaderDescriptor {
                    label: entry.to_owned(),
                    module: module.clone(),
                    stage,
                    entry_point: entry.to_owned(),
                })
                .map_err(|e| e.to_string())
        };
        let vs = shader(ShaderStage::Vertex, "vs")?;
        let pipeline = |entry: &str, format| -> Result<PipelineHandle, String> {
            device
                .create_pipeline(&PipelineDescriptor {
                    label: entry.to_owned(),
                    vertex: vs.clone(),
                    fragment: Some(shader(ShaderStage::Fragment, entry)?),
                    vertex_buffers: Vec::new(),
                    primitive: PrimitiveState::default(),
                    depth_stencil: None,
                    color_targets: vec![ColorTargetState::replace(format)],
                    sample_count: 1,
                    multiview: None,
                })
                .map_err(|e| e.to_string())
        };
        Ok(Self {
            scene: pipeline("fs_scene", TextureFormat::Rgba16Float)?,
            sample: pipeline("fs_sample", TextureFormat::Rgba16Float)?,
            tonemap: pipeline("fs_tonemap", target_format)?,
            sampler: device.create_sampler(&SamplerDescriptor::default()).map_err(|e| e.to_string())?,
        })
    }
}

/// A full-screen draw with `pipeline`, sampling `source` if given.
fn full_screen(
    ctx: &mut PassContext<'_>,
    pipeline: &PipelineHandle,
    source: Option<(TextureId, &SamplerHandle)>,
) -> PassResult {
    ctx.encoder.set_pipeline(pipeline)?;
    if let Some((texture, sampler)) = source {
        let texture = ctx.texture(texture)?.clone();
        if !ctx.encoder.bind_texture("source", &texture, sampler) {
            return Err(format!("pipeline {} does not declare `source`", pipeline.label()).into());
        }
    }
    ctx.encoder.draw(0..3, 0..1)?;
    Ok(())
}

/// The graph: `scene` draws into `hdr` (transient, output size, Rgba16Float), `sample`
/// samples it into `sampled` (same shape), `tonemap` samples that into the imported target.
/// Returns the graph and the target's handle.
pub fn three_pass_graph(target: TextureHandle, pipelines: &ThreePassPipelines) -> (RenderGraph, TextureId) {
    let mut graph = RenderGraph::new();
    let desc = TextureDesc::relative(1.0, TextureFormat::Rgba16Float);
    let hdr = graph.create_texture("hdr", desc);
    let sampled = graph.create_texture("sampled", desc);
    let target = graph.import_texture("target", target, ResourceState::Undefined);

    let mut hdr_v = hdr;
    let p = pipelines.clone();
    graph.add_pass("scene", |pass| {
        hdr_v = pass.write_color(hdr, LoadOp::Clear(f3d_hal::Color::BLACK));
        move |ctx: &mut PassContext<'_>| full_screen(ctx, &p.scene, None)
    });
    let mut sampled_v = sampled;
    let p = pipelines.clone();
    graph.add_pass("sample", |pass| {
        let source = hdr_v;
        pass.read_texture(source);
        sampled_v = pass.write_color(sampled, LoadOp::Clear(f3d_hal::Color::BLACK));
        move |ctx: &mut PassContext<'_>| full_screen(ctx, &p.sample, Some((source, &p.sampler)))
    });
    let mut target_v = target;
    let p = pipelines.clone();
    graph.add_pass("tonemap", |pass| {
        let source = sampled_v;
        pass.read_texture(source);
        target_v = pass.write_color(target, LoadOp::Clear(f3d_hal::Color::BLACK));
        move |ctx: &mut PassContext<'_>| full_screen(ctx, &p.tonemap, Some((source, &p.sampler)))
    });
    (graph, target_v)
}
