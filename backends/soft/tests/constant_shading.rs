//! A fragment stage that reads no input is shaded once per draw (`draw.rs`), and a covered
//! block of an 8-bit target becomes a fill of the encoded texel. Its pixels must be the ones the
//! same colour gives when it arrives through a varying and is shaded per block: on the fill
//! path (8-bit RGBA/BGRA, linear and sRGB), on the general write path (RGBA16F, blending), and at
//! the partial blocks along the edges of a target whose size is no multiple of 8.

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_hal::{
    BlendState, Color, ColorAttachment, ColorTargetState, GraphicsDevice, PipelineDescriptor, PrimitiveState,
    RenderPassDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat, TextureRegion,
    VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};

const WGSL: &str = r#"
struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec4<f32> }
@vertex fn vs(@location(0) p: vec4<f32>) -> Out { return Out(p, vec4<f32>(0.3, 0.55, 0.8, 0.6)); }
@fragment fn fs_constant() -> @location(0) vec4<f32> { return vec4<f32>(0.3, 0.55, 0.8, 0.6); }
@fragment fn fs_varying(i: Out) -> @location(0) vec4<f32> { return i.c; }
"#;

const WIDTH: u32 = 37;
const HEIGHT: u32 = 23;

fn render(device: &SoftDevice, fs: &str, format: TextureFormat, blend: Option<BlendState>) -> Vec<u8> {
    let module = Arc::new(f3d_materials::compile_wgsl("c.wgsl", WGSL).unwrap());
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
            label: fs.into(),
            vertex: shader(ShaderStage::Vertex, "vs"),
            fragment: Some(shader(ShaderStage::Fragment, fs)),
            vertex_buffers: vec![VertexBufferLayout {
                stride: 16,
                step_mode: VertexStepMode::Vertex,
                attributes: vec![VertexAttribute { location: 0, format: VertexFormat::Float32x4, offset: 0 }],
            }],
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState { blend, ..ColorTargetState::replace(format) }],
            sample_count: 1,
            multiview: None,
        })
        .unwrap();
    // A large triangle clipped by the right and bottom edges and a small one inside: full,
    // partial and edge blocks.
    let corners = [[-0.9f32, -0.95], [1.4, -0.2], [-0.3, 1.3], [0.1, 0.1], [0.25, 0.12], [0.12, 0.3]];
    let bytes: Vec<u8> =
        corners.iter().flat_map(|p| [p[0], p[1], 0.5, 1.0]).flat_map(f32::to_le_bytes).collect();
    let vb = device
        .create_geometry(&f3d_hal::GeometryDescriptor::new("vb", bytes.len() as u64), Some(&bytes))
        .unwrap();
    let target = device.create_texture(&TextureDescriptor::new_2d("t", WIDTH, HEIGHT, format)).unwrap();
    let clear = Color { r: 0.1, g: 0.2, b: 0.3, a: 0.4 };
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&target, clear)))
        .unwrap();
    pass.set_pipeline(&pipeline).unwrap();
    pass.set_vertex_buffer(0, &vb, 0).unwrap();
    pass.draw(0..6, 0..1).unwrap();
    pass.submit().unwrap();
    assert!(device.pipeline_refusals().is_empty(), "{:?}", device.pipeline_refusals());
    device.readback(&target, TextureRegion::full(target.descriptor())).unwrap().wait().unwrap().data
}

#[test]
fn a_draw_shaded_once_matches_one_shaded_per_block() {
    let device = SoftDevice::new("constant");
    let formats = [
        TextureFormat::Rgba8UnormSrgb,
        TextureFormat::Rgba8Unorm,
        TextureFormat::Bgra8UnormSrgb,
        TextureFormat::Rgba16Float,
    ];
    for format in formats {
        for blend in [None, Some(BlendState::PREMULTIPLIED_ALPHA)] {
            let once = render(&device, "fs_constant", format, blend);
            let per_block = render(&device, "fs_varying", format, blend);
            assert_eq!(once, per_block, "{format:?} with blend {blend:?}");
            let texel = once.len() / (WIDTH * HEIGHT) as usize;
            let cleared = &once[..texel];
            let drawn = once.chunks(texel).filter(|t| *t != cleared).count();
            assert!(drawn > 200 && drawn < (WIDTH * HEIGHT) as usize, "{format:?}: {drawn} pixels drawn");
        }
    }
}
