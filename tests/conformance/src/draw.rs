//! Drawing for checks: one small WGSL module of probe shaders, pipelines made from it, and
//! a judge of whether the device really drew.

use std::sync::Arc;

use f3d_hal::{
    ColorTargetState, DeviceError, GraphicsDevice, PassEncoder, PipelineDescriptor, PipelineHandle,
    PrimitiveState, ShaderDescriptor, ShaderHandle, ShaderStage, TextureFormat, ValidatedModule,
};

use crate::{Context, Verdict};

/// The probe shaders. `vs_rect` draws instance `k` of the rectangle `params.rect` (NDC
/// x0, y0, x1, y1) shifted right by `k` rectangle widths, at depth `params.depth`, as two
/// triangles (vertices 0–5). `fs_color` writes `params.color`; `fs_texture` samples `tex`
/// at the rectangle's local coordinates.
pub(crate) const PROBE_WGSL: &str = r#"
struct Params {
    color: vec4<f32>,
    rect: vec4<f32>,
    depth: f32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var tex_sampler: sampler;

struct Varyings {
    @builtin(position) position: vec4<f32>,
    @location(0) local: vec2<f32>,
}

@vertex
fn vs_rect(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> Varyings {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(0.0, 1.0),
        vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
    );
    let c = corners[vertex % 6u];
    let width = params.rect.z - params.rect.x;
    let x = mix(params.rect.x, params.rect.z, c.x) + f32(instance) * width;
    let y = mix(params.rect.y, params.rect.w, c.y);
    var out: Varyings;
    out.position = vec4<f32>(x, y, params.depth, 1.0);
    out.local = vec2<f32>(c.x, 1.0 - c.y);
    return out;
}

@fragment
fn fs_color() -> @location(0) vec4<f32> {
    return params.color;
}

@fragment
fn fs_texture(in: Varyings) -> @location(0) vec4<f32> {
    return textureSample(tex, tex_sampler, in.local);
}
"#;

/// The probe module, compiled.
pub(crate) fn probe_module() -> Result<Arc<ValidatedModule>, Verdict> {
    f3d_materials::compile_wgsl("probe.wgsl", PROBE_WGSL)
        .map(Arc::new)
        .map_err(|e| Verdict::Failed(format!("the probe shaders do not compile: {e}")))
}

/// A shader from the probe module.
pub(crate) fn probe_shader(
    device: &dyn GraphicsDevice,
    module: &Arc<ValidatedModule>,
    stage: ShaderStage,
    entry_point: &str,
) -> Result<ShaderHandle, Verdict> {
    device
        .create_shader(&ShaderDescriptor {
            label: format!("probe {entry_point}"),
            module: module.clone(),
            stage,
            entry_point: entry_point.into(),
        })
        .ctx(&format!("create_shader {entry_point}"))
}

/// The descriptor of a probe pipeline: `vs_rect` and `fragment` into one `format` target.
pub(crate) fn probe_pipeline_desc(
    device: &dyn GraphicsDevice,
    fragment: &str,
    format: TextureFormat,
) -> Result<PipelineDescriptor, Verdict> {
    let module = probe_module()?;
    Ok(PipelineDescriptor {
        label: format!("probe {fragment}"),
        vertex: probe_shader(device, &module, ShaderStage::Vertex, "vs_rect")?,
        fragment: Some(probe_shader(device, &module, ShaderStage::Fragment, fragment)?),
        vertex_buffers: Vec::new(),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        color_targets: vec![ColorTargetState::replace(format)],
        sample_count: 1,
        multiview: None,
    })
}

/// The uniform bytes of the probe's `Params` block (std140: vec4, vec4, f32, padded to 48).
pub(crate) fn params(color: [f32; 4], rect: [f32; 4], depth: f32) -> Vec<u8> {
    let mut bytes: Vec<u8> = color
        .iter()
        .chain(rect.iter())
        .chain([depth, 0.0, 0.0, 0.0].iter())
        .flat_map(|v| v.to_le_bytes())
        .collect();
    bytes.truncate(48);
    bytes
}

/// Sets `pipeline` and binds `params`; fails when the pipeline does not declare the block.
pub(crate) fn use_pipeline(
    pass: &mut dyn PassEncoder,
    pipeline: &PipelineHandle,
    params: &[u8],
) -> Result<(), Verdict> {
    pass.set_pipeline(pipeline).ctx("set_pipeline")?;
    crate::ensure!(pass.bind_uniform_block("params", params), "binding the probe's params block was refused");
    Ok(())
}

/// Fails when the device refused `pipeline` at draw time (for devices that claim a feature
/// whose probe needs drawing).
pub(crate) fn drew(
    device: &dyn GraphicsDevice,
    pipeline: &PipelineHandle,
    what: &str,
) -> Result<(), Verdict> {
    if let Some(r) = device.pipeline_refusals().iter().find(|r| r.pipeline == pipeline.label()) {
        return Err(Verdict::Failed(format!("{what}: the device refused the probe pipeline: {}", r.reason)));
    }
    Ok(())
}

/// Creates a pipeline, turning an error into a failure saying what was being probed.
pub(crate) fn create_pipeline(
    device: &dyn GraphicsDevice,
    desc: &PipelineDescriptor,
    what: &str,
) -> Result<PipelineHandle, Verdict> {
    device
        .create_pipeline(desc)
        .map_err(|e: DeviceError| Verdict::Failed(format!("{what}: create_pipeline: {e}")))
}

/// The general-purpose scene shaders of the shader tier: vertices carry a clip-space
/// position and a colour; `fs` writes the colour.
pub(crate) const SCENE_WGSL: &str = r#"
struct VertexIn {
    @location(0) position: vec4<f32>,
    @location(1) color: vec4<f32>,
}
struct VertexOut {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}
@vertex
fn vs(v: VertexIn) -> VertexOut {
    var out: VertexOut;
    out.position = v.position;
    out.color = v.color;
    return out;
}
@fragment
fn fs(v: VertexOut) -> @location(0) vec4<f32> {
    return v.color;
}
"#;

/// One scene vertex: clip position and colour, 32 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct V {
    pub(crate) pos: [f32; 4],
    pub(crate) color: [f32; 4],
}

/// A vertex at (`x`, `y`, `z`) with w = 1.
pub(crate) fn v(x: f32, y: f32, z: f32, color: [f32; 4]) -> V {
    V { pos: [x, y, z, 1.0], color }
}

/// The vertex buffer layout of [`V`].
pub(crate) fn scene_layout() -> f3d_hal::VertexBufferLayout {
    use f3d_hal::{VertexAttribute, VertexFormat};
    f3d_hal::VertexBufferLayout {
        stride: 32,
        step_mode: f3d_hal::VertexStepMode::Vertex,
        attributes: vec![
            VertexAttribute { location: 0, format: VertexFormat::Float32x4, offset: 0 },
            VertexAttribute { location: 1, format: VertexFormat::Float32x4, offset: 16 },
        ],
    }
}

/// The bytes of `vertices`.
pub(crate) fn vertex_bytes(vertices: &[V]) -> Vec<u8> {
    vertices.iter().flat_map(|v| v.pos.iter().chain(v.color.iter())).flat_map(|f| f.to_le_bytes()).collect()
}

/// A geometry buffer holding `bytes`.
pub(crate) fn buffer(device: &dyn GraphicsDevice, bytes: &[u8]) -> Result<f3d_hal::GeometryBuffer, Verdict> {
    device
        .create_geometry(
            &f3d_hal::GeometryDescriptor::new("conformance geometry", bytes.len() as u64),
            Some(bytes),
        )
        .ctx("create_geometry")
}

/// A pipeline of `vs` and `fs` from `wgsl` into targets of `formats`, adjusted by `adjust`.
pub(crate) fn pipeline_from(
    device: &dyn GraphicsDevice,
    wgsl: &str,
    entry: (&str, &str),
    formats: &[TextureFormat],
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> Result<PipelineHandle, Verdict> {
    let desc = pipeline_desc_from(device, wgsl, entry, formats, adjust)?;
    create_pipeline(device, &desc, &desc.label.clone())
}

/// The descriptor [`pipeline_from`] creates (for checks that expect its creation to be
/// refused, and how).
pub(crate) fn pipeline_desc_from(
    device: &dyn GraphicsDevice,
    wgsl: &str,
    entry: (&str, &str),
    formats: &[TextureFormat],
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> Result<PipelineDescriptor, Verdict> {
    let module = f3d_materials::compile_wgsl("conformance.wgsl", wgsl)
        .map(Arc::new)
        .map_err(|e| Verdict::Failed(format!("a conformance shader does not compile: {e}")))?;
    let mut desc = PipelineDescriptor {
        label: format!("conformance {}+{}", entry.0, entry.1),
        vertex: probe_shader(device, &module, ShaderStage::Vertex, entry.0)?,
        fragment: Some(probe_shader(device, &module, ShaderStage::Fragment, entry.1)?),
        vertex_buffers: Vec::new(),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        color_targets: formats.iter().map(|f| ColorTargetState::replace(*f)).collect(),
        sample_count: 1,
        multiview: None,
    };
    adjust(&mut desc);
    Ok(desc)
}

/// The scene pipeline's descriptor ([`scene_pipeline`] without creating it).
pub(crate) fn scene_pipeline_desc(
    device: &dyn GraphicsDevice,
    format: TextureFormat,
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> Result<PipelineDescriptor, Verdict> {
    pipeline_desc_from(device, SCENE_WGSL, ("vs", "fs"), &[format], |d| {
        d.vertex_buffers = vec![scene_layout()];
        adjust(d);
    })
}

/// The scene pipeline (vertices of [`V`]) into one target of `format`.
pub(crate) fn scene_pipeline(
    device: &dyn GraphicsDevice,
    format: TextureFormat,
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> Result<PipelineHandle, Verdict> {
    pipeline_from(device, SCENE_WGSL, ("vs", "fs"), &[format], |d| {
        d.vertex_buffers = vec![scene_layout()];
        adjust(d);
    })
}

/// Declines when the device refused `pipeline` at draw time (the shader tier asks only of
/// devices that run shaders; the null backend refuses every pipeline).
pub(crate) fn drew_or_decline(device: &dyn GraphicsDevice, pipeline: &PipelineHandle) -> Result<(), Verdict> {
    match device.pipeline_refusals().iter().find(|r| r.pipeline == pipeline.label()) {
        Some(r) => {
            Err(Verdict::Declined(format!("{}: refused the pipeline: {}", device.backend_id(), r.reason)))
        }
        None => Ok(()),
    }
}

/// Declines unless the device can sample `format` (the check needs it; the device says it
/// cannot, which is an honest answer, not a failure).
pub(crate) fn require_sampled(device: &dyn GraphicsDevice, format: TextureFormat) -> Result<(), Verdict> {
    if device.texture_format_support(format).sampled {
        Ok(())
    } else {
        Err(Verdict::Declined(format!(
            "{}: does not sample {format}, which this check needs",
            device.backend_id()
        )))
    }
}

/// A `w`×`h` render target of `format`, usable for everything; declines when the device
/// does not render to `format`.
pub(crate) fn target(
    device: &dyn GraphicsDevice,
    w: u32,
    h: u32,
    format: TextureFormat,
) -> Result<f3d_hal::TextureHandle, Verdict> {
    if !device.texture_format_support(format).renderable {
        return Err(Verdict::Declined(format!(
            "{}: does not render to {format}, which this check needs",
            device.backend_id()
        )));
    }
    device
        .create_texture(&f3d_hal::TextureDescriptor::new_2d("conformance target", w, h, format))
        .ctx("create target")
}

/// Runs one pass over `target` cleared to `clear` (with a depth-stencil attachment cleared
/// to `depth` when given), recording with `record`, then reads `target` back. Declines when
/// the device refused a pipeline the pass used.
pub(crate) fn render(
    device: &dyn GraphicsDevice,
    target: &f3d_hal::TextureHandle,
    clear: f3d_hal::Color,
    depth: Option<(&f3d_hal::TextureHandle, f32)>,
    record: impl FnOnce(&mut dyn PassEncoder) -> Result<Vec<PipelineHandle>, Verdict>,
) -> Result<f3d_hal::ReadbackImage, Verdict> {
    let desc = f3d_hal::RenderPassDescriptor {
        depth_stencil_attachment: depth.map(|(t, d)| f3d_hal::DepthStencilAttachment::clear(t, d)),
        ..f3d_hal::RenderPassDescriptor::color("conformance", f3d_hal::ColorAttachment::clear(target, clear))
    };
    let mut pass = device.begin_render_pass(&desc).ctx("begin_render_pass")?;
    let used = record(&mut *pass)?;
    pass.submit().ctx("submit")?;
    for p in &used {
        drew_or_decline(device, p)?;
    }
    crate::support::read(device, target)
}

/// Draws `vertices` with `pipeline` (vertex buffer slot 0) into the current pass.
pub(crate) fn draw_vertices(
    device: &dyn GraphicsDevice,
    pass: &mut dyn PassEncoder,
    pipeline: &PipelineHandle,
    vertices: &[V],
) -> Result<(), Verdict> {
    let vb = buffer(device, &vertex_bytes(vertices))?;
    pass.set_pipeline(pipeline).ctx("set_pipeline")?;
    pass.set_vertex_buffer(0, &vb, 0).ctx("set_vertex_buffer")?;
    pass.draw(0..vertices.len() as u32, 0..1).ctx("draw")
}

/// Renders `vertices` with the scene pipeline (adjusted) into a fresh `w`×`h` RGBA8 target.
pub(crate) fn scene(
    device: &dyn GraphicsDevice,
    w: u32,
    h: u32,
    vertices: &[V],
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> Result<f3d_hal::ReadbackImage, Verdict> {
    let t = target(device, w, h, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, adjust)?;
    render(device, &t, f3d_hal::Color::BLACK, None, |pass| {
        draw_vertices(device, pass, &p, vertices)?;
        Ok(vec![p.clone()])
    })
}

/// Two triangles covering the rectangle x0..x1, y0..y1 (clip space) at depth `z`.
pub(crate) fn quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, color: [f32; 4]) -> [V; 6] {
    [
        v(x0, y0, z, color),
        v(x1, y0, z, color),
        v(x0, y1, z, color),
        v(x0, y1, z, color),
        v(x1, y0, z, color),
        v(x1, y1, z, color),
    ]
}
