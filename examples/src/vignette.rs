//! A custom post pass through public API only, as a plugin: a vignette between the
//! translucent pass and tonemapping (the `custom_pass` example and its test in every mode).
//!
//! The plugin adds, in its own `build`, a `RenderStartup` system that compiles its WGSL and
//! makes a pipeline on the [`RenderDevice`], and a `Render` system in the `Graph` set that
//! reads the scene colour and writes a new one, which the tonemap pass then picks up. Add it
//! after [`F3dRenderPlugin`], which makes the render world.

use std::sync::Arc;

use f3d::f3d_hal::{
    Color, ColorTargetState, LoadOp, PipelineDescriptor, PipelineHandle, PrimitiveState, ShaderDescriptor,
    ShaderStage, TextureFormat,
};
use f3d::f3d_render_graph::{PassContext, TextureDesc};
use f3d::passes::PassSystems;
use f3d::prelude::*;

/// The vignette pass.
pub struct VignettePlugin;

impl Plugin for VignettePlugin {
    fn build(&self, app: &mut App) {
        app.sub_app_mut(RenderApp).add_systems(RenderStartup, make_pipeline).add_systems(
            Render,
            add_vignette_pass.after(PassSystems::Translucent).before(PassSystems::Tonemap),
        );
    }
}

const VIGNETTE: &str = r#"
struct Vignette { strength: f32, radius: f32 }
@group(0) @binding(0) var<uniform> vignette: Vignette;
@group(0) @binding(1) var scene: texture_2d<f32>;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let size = vec2<f32>(textureDimensions(scene));
    let c = textureLoad(scene, vec2<i32>(p.xy), 0);
    let d = length((p.xy / size - vec2<f32>(0.5)) * vec2<f32>(size.x / size.y, 1.0));
    let v = 1.0 - vignette.strength * smoothstep(vignette.radius, vignette.radius + 0.5, d);
    return vec4<f32>(c.rgb * v, c.a);
}
"#;

/// The vignette's pipeline, made in the render world once the device is open.
#[derive(Resource)]
struct VignettePipeline(PipelineHandle, TextureFormat);

/// `RenderStartup`: makes the pipeline on the device (again after a lost device was
/// replaced); a shader that does not compile is reported and the pass is left out.
fn make_pipeline(mut commands: Commands, device: Res<RenderDevice>) {
    match pipeline(&device) {
        Ok(p) => {
            commands.insert_resource(p);
        }
        Err(e) => f3d::bevy_log::error!("the vignette does not compile: {e}"),
    }
}

fn pipeline(device: &RenderDevice) -> Result<VignettePipeline, String> {
    let module = Arc::new(f3d::f3d_materials::compile_wgsl("vignette.wgsl", VIGNETTE)?);
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .map_err(|e| e.to_string())
    };
    let format = device.hdr_color_format();
    let pipeline = device
        .create_pipeline(&PipelineDescriptor {
            label: "vignette".into(),
            vertex: shader(ShaderStage::Vertex, "vs")?,
            fragment: Some(shader(ShaderStage::Fragment, "fs")?),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(format)],
            sample_count: 1,
            multiview: None,
        })
        .map_err(|e| e.to_string())?;
    Ok(VignettePipeline(pipeline, format))
}

/// The render-world system: one pass reading the scene colour and writing a darkened copy.
fn add_vignette_pass(mut frame_graph: ResMut<FrameGraph>, pipeline: Option<Res<VignettePipeline>>) {
    let Some(pipeline) = pipeline else { return };
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    if !view.hdr_written {
        return;
    }
    // The scene colour to sample: resolved first when the camera has MSAA.
    let input = view.resolved_hdr(graph);
    let output = graph.create_texture("vignetted", TextureDesc::relative(1.0, pipeline.1));
    let handle = pipeline.0.clone();
    let mut written = output;
    graph.add_pass("vignette", |pass| {
        pass.read_texture(input);
        written = pass.write_color(output, LoadOp::Clear(Color::BLACK));
        move |ctx: &mut PassContext<'_>| {
            let scene = ctx.texture(input)?.clone();
            ctx.encoder.set_pipeline(&handle)?;
            let block: Vec<u8> = [0.85f32, 0.35].iter().flat_map(|f| f.to_le_bytes()).collect();
            ctx.encoder.bind_uniform_block("vignette", &block);
            if let Some(slot) = handle.slot("scene") {
                ctx.encoder.bind_texture_at(slot, &scene);
            }
            ctx.encoder.draw(0..3, 0..1)?;
            Ok(())
        }
    });
    // The scene colour is this single-sampled texture from here on.
    view.hdr = written;
    view.samples = 1;
}
