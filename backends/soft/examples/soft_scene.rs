//! Draws a small depth-tested, textured, perspective scene on the soft device and writes it
//! to a PNG: `cargo run -p f3d_backend_soft --example soft_scene -- out.png`.

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_hal::{
    AddressMode, Color, ColorAttachment, ColorTargetState, CompareFunction, DepthStencilAttachment,
    DepthStencilState, GraphicsDevice, PipelineDescriptor, PrimitiveState, RenderPassDescriptor,
    SamplerDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat, TextureRegion,
    VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};

const WGSL: &str = r#"
struct View { proj: mat4x4<f32>, time: f32 }
@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var checker: texture_2d<f32>;
@group(0) @binding(2) var checker_sampler: sampler;
struct Out { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32>, @location(1) shade: f32 }
@vertex fn vs(@location(0) p: vec3<f32>, @location(1) uv: vec2<f32>) -> Out {
    var o: Out;
    o.pos = view.proj * vec4<f32>(p, 1.0);
    o.uv = uv;
    o.shade = 0.4 + 0.6 * clamp(-p.z / 8.0, 0.0, 1.0);
    return o;
}
@fragment fn fs(i: Out) -> @location(0) vec4<f32> {
    let c = textureSample(checker, checker_sampler, i.uv).rgb;
    return vec4<f32>(c * i.shade, 1.0);
}
"#;

fn perspective(fovy: f32, aspect: f32, near: f32, far: f32) -> [f32; 16] {
    let f = 1.0 / (fovy / 2.0).tan();
    // Column-major, right-handed, depth 0..1.
    [
        f / aspect,
        0.0,
        0.0,
        0.0,
        0.0,
        f,
        0.0,
        0.0,
        0.0,
        0.0,
        far / (near - far),
        -1.0,
        0.0,
        0.0,
        near * far / (near - far),
        0.0,
    ]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "soft_scene.png".into());
    let device = SoftDevice::new("example");
    let (w, h) = (320u32, 200u32);
    let target =
        device.create_texture(&TextureDescriptor::new_2d("target", w, h, TextureFormat::Rgba8UnormSrgb))?;
    let depth =
        device.create_texture(&TextureDescriptor::new_2d("depth", w, h, TextureFormat::Depth32Float))?;
    let tex_desc = TextureDescriptor::new_2d("checker", 64, 64, TextureFormat::Rgba8UnormSrgb).with_mips(7);
    let checker = device.create_texture(&tex_desc)?;
    for level in 0..7 {
        let region = TextureRegion::level(&tex_desc, level, 0);
        let cell = (8 >> level).max(1);
        let mut data = Vec::new();
        for y in 0..region.height {
            for x in 0..region.width {
                let on = ((x / cell) + (y / cell)) % 2 == 0 || level >= 3;
                let v = if level >= 3 {
                    160
                } else if on {
                    240
                } else {
                    40
                };
                data.extend_from_slice(&[v, if on { 120 } else { 60 }, 60, 255]);
            }
        }
        device.write_texture(&checker, region, &data)?;
    }
    let module = Arc::new(f3d_materials::compile_wgsl("scene.wgsl", WGSL)?);
    let shader = |stage, entry: &str| {
        device.create_shader(&ShaderDescriptor {
            label: entry.into(),
            module: module.clone(),
            stage,
            entry_point: entry.into(),
        })
    };
    let pipeline = device.create_pipeline(&PipelineDescriptor {
        label: "scene".into(),
        vertex: shader(ShaderStage::Vertex, "vs")?,
        fragment: Some(shader(ShaderStage::Fragment, "fs")?),
        vertex_buffers: vec![VertexBufferLayout {
            stride: 20,
            step_mode: VertexStepMode::Vertex,
            attributes: vec![
                VertexAttribute { location: 0, format: VertexFormat::Float32x3, offset: 0 },
                VertexAttribute { location: 1, format: VertexFormat::Float32x2, offset: 12 },
            ],
        }],
        primitive: PrimitiveState::default(),
        depth_stencil: Some(DepthStencilState::depth(
            TextureFormat::Depth32Float,
            CompareFunction::Less,
            true,
        )),
        color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8UnormSrgb)],
        sample_count: 1,
        multiview: None,
    })?;
    // A floor receding into the distance and a wall crossing it.
    let quad = |a: [f32; 3], b: [f32; 3], c: [f32; 3], d: [f32; 3], uv: f32| -> Vec<f32> {
        let v = |p: [f32; 3], u: f32, t: f32| [p[0], p[1], p[2], u, t];
        [v(a, 0.0, 0.0), v(b, uv, 0.0), v(d, 0.0, uv), v(d, 0.0, uv), v(b, uv, 0.0), v(c, uv, uv)].concat()
    };
    let mut vertices =
        quad([-4.0, -1.0, -1.0], [4.0, -1.0, -1.0], [4.0, -1.0, -12.0], [-4.0, -1.0, -12.0], 8.0);
    vertices.extend(quad([-3.0, -1.5, -6.0], [1.0, -1.5, -4.0], [1.0, 1.5, -4.0], [-3.0, 1.5, -6.0], 2.0));
    let bytes: Vec<u8> = vertices.iter().flat_map(|f| f.to_le_bytes()).collect();
    let vb =
        device.create_geometry(&f3d_hal::GeometryDescriptor::new("vb", bytes.len() as u64), Some(&bytes))?;
    let mut view: Vec<u8> =
        perspective(1.0, w as f32 / h as f32, 0.1, 50.0).iter().flat_map(|f| f.to_le_bytes()).collect();
    view.extend([0u8; 16]);
    let sampler = device.create_sampler(&SamplerDescriptor::linear(AddressMode::Repeat))?;
    let mut pass = device.begin_render_pass(&RenderPassDescriptor {
        depth_stencil_attachment: Some(DepthStencilAttachment::clear(&depth, 1.0)),
        ..RenderPassDescriptor::color(
            "scene",
            ColorAttachment::clear(&target, Color::new(0.1, 0.2, 0.4, 1.0)),
        )
    })?;
    pass.set_pipeline(&pipeline)?;
    assert!(pass.bind_uniform_block("view", &view));
    assert!(pass.bind_texture("checker", &checker, &sampler));
    pass.set_vertex_buffer(0, &vb, 0)?;
    pass.draw(0..12, 0..1)?;
    pass.submit()?;
    let image = device.readback(&target, TextureRegion::full(target.descriptor()))?.wait()?;
    let file = std::io::BufWriter::new(std::fs::File::create(&out)?);
    let mut encoder = png::Encoder::new(file, w, h);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.write_header()?.write_image_data(&image.data)?;
    println!("wrote {out} ({} refusals)", device.pipeline_refusals().len());
    Ok(())
}
