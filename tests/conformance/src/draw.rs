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
