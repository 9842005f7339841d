//! The soft backend keeps its compiled programs in the shader cache on disk: a second device
//! (a later run, with a fresh module from the same source) reads them instead of compiling,
//! a corrupted entry is replaced, and every run draws the same picture.

use std::path::Path;
use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_hal::shader_cache::{CacheStats, ShaderCache};
use f3d_hal::{
    Color, ColorAttachment, ColorTargetState, GraphicsDevice, PipelineDescriptor, PrimitiveState,
    RenderPassDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat, TextureRegion,
};

const WGSL: &str = r#"
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = array<vec2<f32>, 3>(vec2(-0.8, -0.9), vec2(0.9, -0.3), vec2(-0.2, 0.95))[i];
    return vec4<f32>(p, 0.5, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(fract(p.x / 7.0), fract(p.y / 5.0), 0.5, 1.0);
}
"#;

/// One run: a device on `dir`, a module parsed afresh, a triangle drawn and read back.
fn run(dir: &Path) -> (Vec<u8>, CacheStats) {
    let device = SoftDevice::new("cache").with_shader_cache(ShaderCache::at(dir, 1 << 20));
    let module = Arc::new(f3d_materials::compile_wgsl("cache.wgsl", WGSL).expect("compiles"));
    let shader = |stage, entry: &str| {
        let desc = ShaderDescriptor {
            label: entry.into(),
            module: module.clone(),
            stage,
            entry_point: entry.into(),
        };
        device.create_shader(&desc).expect("shader")
    };
    let pipeline = device
        .create_pipeline(&PipelineDescriptor {
            label: "cached".into(),
            vertex: shader(ShaderStage::Vertex, "vs"),
            fragment: Some(shader(ShaderStage::Fragment, "fs")),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8Unorm)],
            sample_count: 1,
            multiview: None,
        })
        .expect("pipeline");
    let target = device
        .create_texture(&TextureDescriptor::new_2d("t", 24, 16, TextureFormat::Rgba8Unorm))
        .expect("target");
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&target, Color::BLACK)))
        .expect("pass");
    pass.set_pipeline(&pipeline).expect("pipeline");
    pass.draw(0..3, 0..1).expect("draw");
    pass.submit().expect("submit");
    let image = device
        .readback(&target, TextureRegion::full(target.descriptor()))
        .expect("readback")
        .wait()
        .expect("wait");
    let stats = device.shader_cache().expect("soft keeps a cache").stats();
    (image.to_rgba8(), stats)
}

#[test]
fn a_later_run_reads_its_programs_and_draws_the_same() {
    let dir = std::env::temp_dir().join(format!("f3d-soft-shader-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (cold, stats) = run(&dir);
    assert_eq!((stats.hits, stats.compiles), (0, 2), "{stats:?}");
    assert!(cold.chunks(4).filter(|p| p[..3] != [0, 0, 0]).count() > 50, "the triangle was drawn");

    let (warm, stats) = run(&dir);
    assert_eq!((stats.hits, stats.compiles), (2, 0), "{stats:?}");
    assert!(warm == cold, "the programs read back draw the same picture");

    for entry in std::fs::read_dir(&dir).expect("entries").flatten() {
        let mut bytes = std::fs::read(entry.path()).expect("entry");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x5a;
        std::fs::write(entry.path(), bytes).expect("corrupted");
    }
    let (rebuilt, stats) = run(&dir);
    assert_eq!((stats.hits, stats.corrupt, stats.compiles), (0, 2, 2), "{stats:?}");
    assert!(rebuilt == cold);
    let _ = std::fs::remove_dir_all(&dir);
}
