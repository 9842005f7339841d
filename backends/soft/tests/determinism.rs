//! The same pixels whatever the number of threads: overlapping, alpha-blended (so
//! order-dependent) triangles drawn in parallel and on one thread must agree bit for bit —
//! one draw of 300 triangles, one of 500 (its vertices shaded on every thread), and 400
//! instances of one triangle (their geometry on every thread).

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_hal::{
    BlendState, Color, ColorAttachment, ColorTargetState, GeometryBuffer, GraphicsDevice, PipelineDescriptor,
    PrimitiveState, RenderPassDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat,
    TextureRegion, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};

const WGSL: &str = r#"
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) c: vec4<f32>) -> Out { return Out(p, c); }
@fragment fn fs(i: Out) -> @location(0) vec4<f32> { return vec4<f32>(i.c.rgb * i.c.a, i.c.a); }
"#;

const INSTANCED: &str = r#"
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>, @location(1) offset: vec4<f32>, @location(2) c: vec4<f32>) -> Out {
    return Out(vec4<f32>(p.xy * offset.z + offset.xy, 0.5, 1.0), c);
}
@fragment fn fs(i: Out) -> @location(0) vec4<f32> { return vec4<f32>(i.c.rgb * i.c.a, i.c.a); }
"#;

/// Numbers in [0, 1) from a xorshift of `seed`.
fn numbers(mut seed: u64) -> impl FnMut() -> f32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn attribute(location: u32, offset: u32) -> VertexAttribute {
    VertexAttribute { location, format: VertexFormat::Float32x4, offset }
}

fn buffer(device: &SoftDevice, name: &str, floats: &[f32]) -> GeometryBuffer {
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    device.create_geometry(&f3d_hal::GeometryDescriptor::new(name, bytes.len() as u64), Some(&bytes)).unwrap()
}

/// Draws `wgsl` (entry points `vs` and `fs`) with premultiplied blending into a cleared
/// 200x150 target, with `buffers` bound in order, and reads it back.
fn draw_blended(
    device: &SoftDevice,
    wgsl: &str,
    layouts: Vec<VertexBufferLayout>,
    buffers: &[&GeometryBuffer],
    vertices: std::ops::Range<u32>,
    instances: std::ops::Range<u32>,
) -> Vec<u8> {
    let module = Arc::new(f3d_materials::compile_wgsl("d.wgsl", wgsl).unwrap());
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .unwrap()
    };
    let pipeline = device
        .create_pipeline(&PipelineDescriptor {
            label: "blend".into(),
            vertex: shader(ShaderStage::Vertex, "vs"),
            fragment: Some(shader(ShaderStage::Fragment, "fs")),
            vertex_buffers: layouts,
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState {
                blend: Some(BlendState::PREMULTIPLIED_ALPHA),
                ..ColorTargetState::replace(TextureFormat::Rgba8UnormSrgb)
            }],
            sample_count: 1,
            multiview: None,
        })
        .unwrap();
    let target = device
        .create_texture(&TextureDescriptor::new_2d("t", 200, 150, TextureFormat::Rgba8UnormSrgb))
        .unwrap();
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&target, Color::BLACK)))
        .unwrap();
    pass.set_pipeline(&pipeline).unwrap();
    for (slot, b) in buffers.iter().enumerate() {
        pass.set_vertex_buffer(slot as u32, b, 0).unwrap();
    }
    pass.draw(vertices, instances).unwrap();
    pass.submit().unwrap();
    device.readback(&target, TextureRegion::full(target.descriptor())).unwrap().wait().unwrap().data
}

/// `triangles` random blended triangles in one draw.
fn render(device: &SoftDevice, triangles: usize) -> Vec<u8> {
    let mut next = numbers(12345);
    let mut floats = Vec::new();
    for _ in 0..triangles * 3 {
        floats.extend([
            next() * 2.4 - 1.2,
            next() * 2.4 - 1.2,
            0.5,
            1.0,
            next(),
            next(),
            next(),
            0.3 + 0.5 * next(),
        ]);
    }
    let vb = buffer(device, "vb", &floats);
    let layout = VertexBufferLayout {
        stride: 32,
        step_mode: VertexStepMode::Vertex,
        attributes: vec![attribute(0, 0), attribute(1, 16)],
    };
    draw_blended(device, WGSL, vec![layout], &[&vb], 0..triangles as u32 * 3, 0..1)
}

/// 400 blended triangles as one instanced draw: the geometry of a draw of many instances is
/// shaded and set up on every thread, and the primitives must come out in instance order.
fn render_instanced(device: &SoftDevice) -> Vec<u8> {
    let mut next = numbers(987_654);
    let corners: Vec<f32> =
        [[-1.0f32, -1.0], [1.0, -0.6], [-0.2, 1.0]].iter().flat_map(|c| [c[0], c[1], 0.0, 1.0]).collect();
    let mut instances = Vec::new();
    for _ in 0..400 {
        instances.extend([next() * 1.6 - 0.8, next() * 1.6 - 0.8, 0.1 + 0.3 * next(), 0.0]);
        instances.extend([next(), next(), next(), 0.3 + 0.5 * next()]);
    }
    let (vb, ib) = (buffer(device, "corners", &corners), buffer(device, "instances", &instances));
    let layouts = vec![
        VertexBufferLayout {
            stride: 16,
            step_mode: VertexStepMode::Vertex,
            attributes: vec![attribute(0, 0)],
        },
        VertexBufferLayout {
            stride: 32,
            step_mode: VertexStepMode::Instance,
            attributes: vec![attribute(1, 0), attribute(2, 16)],
        },
    ];
    draw_blended(device, INSTANCED, layouts, &[&vb, &ib], 0..3, 0..400)
}

fn assert_same(parallel: &[u8], single: &[u8]) {
    let differing = parallel.chunks(4).zip(single.chunks(4)).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "{differing} pixels differ between parallel and single-threaded rendering");
    assert!(parallel.chunks(4).filter(|p| p[..3] != [0, 0, 0]).count() > 10_000, "the scene drew little");
}

#[test]
fn pixels_do_not_depend_on_the_thread_count() {
    assert_same(
        &render(&SoftDevice::new("parallel"), 300),
        &render(&SoftDevice::single_threaded("single"), 300),
    );
}

/// 500 triangles, 1,500 vertices in one draw of one instance: the vertices are shaded on
/// every thread and must come back in order.
#[test]
fn a_large_draw_shaded_on_every_thread_draws_the_same() {
    assert_same(
        &render(&SoftDevice::with_threads("parallel", 2), 500),
        &render(&SoftDevice::single_threaded("single"), 500),
    );
}

#[test]
fn instanced_geometry_does_not_depend_on_the_thread_count() {
    assert_same(
        &render_instanced(&SoftDevice::with_threads("parallel", 2)),
        &render_instanced(&SoftDevice::single_threaded("single")),
    );
}
