//! What is particular to the wgpu backend, beyond the conformance suite: the uniform ring,
//! word-granular buffer writes, pipelines wgpu itself refuses, misuse that must never reach
//! wgpu's (panicking) uncaptured-error handler, and loss while a readback is pending.
//!
//! Without an adapter each test says so and returns; CI installs lavapipe and sets
//! `F3D_REQUIRE_BACKENDS=...,wgpu`, under which a missing adapter fails instead.

use std::sync::Arc;

use f3d_backend_wgpu::{WgpuDevice, register_wgpu_backend};
use f3d_hal::{
    BackendId, Color, ColorAttachment, ColorTargetState, DeviceError, DeviceFeature, DeviceRegistry,
    DeviceRequest, GeometryDescriptor, GeometryUsages, GraphicsDevice, LossReason, PipelineDescriptor,
    PipelineHandle, PrimitiveState, RenderPassDescriptor, ShaderDescriptor, ShaderHandle, ShaderStage,
    TextureDescriptor, TextureFormat, TextureRegion, ValidatedModule,
};

mod common;

fn device() -> Option<WgpuDevice> {
    common::quiet_mesa();
    match WgpuDevice::open(&DeviceRequest::new(64, 64)) {
        Ok(d) => Some(d),
        Err(e) if f3d_conformance::backend_required(&BackendId::WGPU) => {
            panic!("F3D_REQUIRE_BACKENDS names wgpu, but it did not open: {e}")
        }
        Err(e) => {
            eprintln!("skipped: the wgpu device did not open: {e}");
            None
        }
    }
}

/// Draws `params.rect` (NDC x0, y0, x1, y1) in `params.color`. The block is padded to 128
/// bytes so that a few thousand draws outgrow the uniform ring's first buffer.
const RECT_WGSL: &str = r#"
struct Params { color: vec4<f32>, rect: vec4<f32>, pad: array<vec4<f32>, 6> }
@group(0) @binding(0) var<uniform> params: Params;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let c = array<vec2<f32>, 6>(vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
                                vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0))[i % 6u];
    return vec4<f32>(mix(params.rect.xy, params.rect.zw, c), 0.5, 1.0);
}

@fragment
fn fs() -> @location(0) vec4<f32> {
    return params.color;
}
"#;

fn module(source: &str) -> Arc<ValidatedModule> {
    Arc::new(f3d_materials::compile_wgsl("test.wgsl", source).expect("the test shader compiles"))
}

fn shader(
    device: &WgpuDevice,
    module: &Arc<ValidatedModule>,
    stage: ShaderStage,
    entry: &str,
) -> ShaderHandle {
    device
        .create_shader(&ShaderDescriptor {
            label: format!("test {entry}"),
            module: module.clone(),
            stage,
            entry_point: entry.into(),
        })
        .expect("create_shader")
}

fn pipeline(
    device: &WgpuDevice,
    vertex: ShaderHandle,
    fragment: ShaderHandle,
    label: &str,
) -> PipelineHandle {
    device
        .create_pipeline(&PipelineDescriptor {
            label: label.into(),
            vertex,
            fragment: Some(fragment),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8Unorm)],
            sample_count: 1,
            multiview: None,
        })
        .expect("create_pipeline")
}

fn rect_pipeline(device: &WgpuDevice) -> PipelineHandle {
    let m = module(RECT_WGSL);
    pipeline(
        device,
        shader(device, &m, ShaderStage::Vertex, "vs"),
        shader(device, &m, ShaderStage::Fragment, "fs"),
        "rect",
    )
}

fn params(color: [f32; 4], rect: [f32; 4]) -> Vec<u8> {
    let mut bytes: Vec<u8> = color.iter().chain(&rect).flat_map(|v| v.to_le_bytes()).collect();
    bytes.resize(128, 0);
    bytes
}

fn target(device: &WgpuDevice, w: u32, h: u32) -> f3d_hal::TextureHandle {
    device
        .create_texture(&TextureDescriptor::new_2d("target", w, h, TextureFormat::Rgba8Unorm))
        .expect("target")
}

fn read(device: &WgpuDevice, t: &f3d_hal::TextureHandle) -> f3d_hal::ReadbackImage {
    device.readback(t, TextureRegion::full(t.descriptor())).expect("readback").wait().expect("wait")
}

#[test]
fn every_draw_keeps_its_own_uniforms_past_the_ring_capacity() {
    let Some(device) = device() else { return };
    // One-pixel rectangles, each with its own colour, 128 bytes of ring per draw. The first
    // frame (64x64 draws, 512 KiB) outgrows the ring's first buffer; the later ones (32x32,
    // 128 KiB) wrap to its start and then sit at offsets past it.
    const N: u32 = 64;
    let t = target(&device, N, N);
    let p = rect_pipeline(&device);
    let slot = p.slot("params").expect("params is declared");
    let px = 2.0 / N as f32;
    for (frame, n) in [64u32, 32, 32, 32, 32].into_iter().enumerate() {
        let frame = frame as u32;
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color(
                "many draws",
                ColorAttachment::clear(&t, Color::BLACK),
            ))
            .expect("begin_render_pass");
        pass.set_pipeline(&p).expect("set_pipeline");
        for y in 0..n {
            for x in 0..n {
                let color = [x as f32 / 255.0, y as f32 / 255.0, frame as f32 / 255.0, 1.0];
                let (x0, y0) = (-1.0 + x as f32 * px, 1.0 - (y + 1) as f32 * px);
                assert!(pass.bind_uniform_block_at(slot, &params(color, [x0, y0, x0 + px, y0 + px])));
                pass.draw(0..6, 0..1).expect("draw");
            }
        }
        pass.submit().expect("submit");
        let image = read(&device, &t);
        for y in 0..N {
            for x in 0..N {
                let drawn = x < n && y < n;
                let expected = if drawn { [x as u8, y as u8, frame as u8, 255] } else { [0, 0, 0, 255] };
                assert_eq!(image.rgba8(x, y), expected, "frame {frame}, pixel ({x}, {y})");
            }
        }
    }
    assert!(device.wgpu_take_uncaptured_errors().is_empty());
}

#[test]
fn writes_of_partial_words_keep_their_neighbours() {
    let Some(device) = device() else { return };
    if !device.features().has(DeviceFeature::STORAGE_BUFFERS) {
        eprintln!("skipped: {} cannot read buffers back", device.adapter_info().name);
        return;
    }
    let initial: Vec<u8> = (1..=10).collect();
    let desc = GeometryDescriptor { label: "odd".into(), size: 10, usage: GeometryUsages::STORAGE };
    let g = device.create_geometry(&desc, Some(&initial)).expect("create_geometry");
    device.write_geometry(&g, 1, &[0xa1, 0xa2, 0xa3]).expect("3 bytes at 1");
    device.write_geometry(&g, 9, &[0xb9]).expect("the last byte");
    device.write_geometry(&g, 4, &[0xc4, 0xc5, 0xc6, 0xc7]).expect("a whole word");
    device.write_geometry(&g, 6, &[]).expect("nothing");
    let expected = [1, 0xa1, 0xa2, 0xa3, 0xc4, 0xc5, 0xc6, 0xc7, 9, 0xb9];
    assert_eq!(device.read_geometry(&g).expect("read_geometry"), expected);
}

#[test]
fn a_pipeline_wgpu_refuses_draws_nothing_and_is_reported_once() {
    let Some(device) = device() else { return };
    // Each module is valid on its own; together their interfaces disagree (the fragment stage
    // reads a location the vertex stage never writes), which only wgpu checks.
    let vs = module(
        "@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
            return vec4<f32>(f32(i & 1u) * 4.0 - 1.0, f32(i & 2u) * 2.0 - 1.0, 0.5, 1.0);
        }",
    );
    let fs = module("@fragment fn fs(@location(3) v: vec4<f32>) -> @location(0) vec4<f32> { return v; }");
    let bad = pipeline(
        &device,
        shader(&device, &vs, ShaderStage::Vertex, "vs"),
        shader(&device, &fs, ShaderStage::Fragment, "fs"),
        "mismatched stages",
    );
    let good = rect_pipeline(&device);
    let t = target(&device, 8, 8);
    for _ in 0..2 {
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color(
                "refusal",
                ColorAttachment::clear(&t, Color::BLUE),
            ))
            .expect("begin_render_pass");
        pass.set_pipeline(&bad).expect("set_pipeline of a refused pipeline");
        pass.draw(0..3, 0..1).expect("a refused pipeline's draw is not an error");
        pass.set_pipeline(&good).expect("set_pipeline");
        assert!(pass.bind_uniform_block("params", &params([1.0, 0.0, 0.0, 1.0], [-1.0, -1.0, 0.0, 1.0])));
        pass.draw(0..6, 0..1).expect("draw");
        pass.submit().expect("submit");
    }
    let refusals = device.pipeline_refusals();
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert_eq!(refusals[0].pipeline, "mismatched stages");
    assert!(!refusals[0].reason.is_empty());
    let image = read(&device, &t);
    assert_eq!(image.rgba8(1, 4), [255, 0, 0, 255], "the good pipeline drew the left half");
    assert_eq!(image.rgba8(6, 4), [0, 0, 255, 255], "the refused one drew nothing");
    assert!(device.wgpu_take_uncaptured_errors().is_empty());
}

#[test]
fn misuse_is_refused_by_the_call_at_fault_and_never_reaches_wgpu() {
    let Some(device) = device() else { return };
    let t = target(&device, 8, 8);
    let p = rect_pipeline(&device);
    let desc = RenderPassDescriptor::color("misuse", ColorAttachment::clear(&t, Color::BLACK));
    let mut pass = device.begin_render_pass(&desc).expect("begin_render_pass");
    pass.set_pipeline(&p).expect("set_pipeline");
    // Unbound uniform block.
    assert!(matches!(pass.draw(0..6, 0..1), Err(DeviceError::Refused { operation: "draw", .. })));
    assert!(pass.bind_uniform_block("params", &params([0.0, 1.0, 0.0, 1.0], [-1.0, -1.0, 1.0, 1.0])));
    // Too few bytes, an unknown name, backwards ranges, a viewport outside [0, 1] depth.
    assert!(!pass.bind_uniform_block("params", &[0; 8]));
    assert!(!pass.bind_uniform_block("nope", &[0; 64]));
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = pass.draw(6..0, 0..1);
    assert!(matches!(backwards, Err(DeviceError::OutOfBounds { .. })));
    let viewport = f3d_hal::Viewport { min_depth: 0.5, max_depth: 2.0, ..f3d_hal::Viewport::full(8, 8) };
    assert!(pass.set_viewport(viewport).is_err());
    // A pipeline for another attachment format.
    let m = module(RECT_WGSL);
    let other = device
        .create_pipeline(&PipelineDescriptor {
            label: "float target".into(),
            vertex: shader(&device, &m, ShaderStage::Vertex, "vs"),
            fragment: Some(shader(&device, &m, ShaderStage::Fragment, "fs")),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba16Float)],
            sample_count: 1,
            multiview: None,
        })
        .expect("create_pipeline");
    assert!(matches!(pass.set_pipeline(&other), Err(DeviceError::Refused { operation: "set_pipeline", .. })));
    // What was recorded before still draws.
    pass.draw(0..6, 0..1).expect("draw");
    pass.submit().expect("submit");
    assert_eq!(read(&device, &t).rgba8(4, 4), [0, 255, 0, 255]);
    // Wrong sizes and regions outside the texture.
    assert!(device.write_texture(&t, TextureRegion::full(t.descriptor()), &[0; 7]).is_err());
    assert!(device.readback(&t, TextureRegion::rect(7, 7, 2, 2)).is_err());
    assert!(device.wgpu_take_uncaptured_errors().is_empty());
}

#[test]
fn loss_while_a_readback_is_pending_is_reported_by_the_wait() {
    let Some(device) = device() else { return };
    let t = target(&device, 4, 4);
    let pending = device.readback(&t, TextureRegion::full(t.descriptor())).expect("readback");
    device.simulate_loss("test");
    match pending.wait() {
        Err(DeviceError::Lost { operation: "readback", reason: LossReason::Simulated(why), .. }) => {
            assert_eq!(why, "test")
        }
        other => panic!("a readback waited for after the loss gave {other:?}"),
    }
    assert!(matches!(device.begin_frame(), Err(DeviceError::Lost { .. })));
}

#[test]
fn regions_of_levels_and_layers_come_back_unpadded() {
    let Some(device) = device() else { return };
    // Level 1 of a 14x10 array is 7x5: rows of 28 bytes, padded to 256 in the staging buffer.
    let desc = TextureDescriptor {
        dimension: f3d_hal::TextureDimension::D2Array,
        array_layers: 3,
        ..TextureDescriptor::new_2d("array", 14, 10, TextureFormat::Rgba8Unorm).with_mips(2)
    };
    let t = device.create_texture(&desc).expect("create");
    let level = TextureRegion::level(&desc, 1, 2);
    let data: Vec<u8> = (0..7 * 5 * 4).map(|i| i as u8).collect();
    device.write_texture(&t, level, &data).expect("upload");
    let part = device
        .readback(&t, TextureRegion::rect(2, 1, 3, 2).on(1, 2))
        .expect("readback")
        .wait()
        .expect("wait");
    for y in 0..2 {
        for x in 0..3 {
            let i = (((y + 1) * 7 + x + 2) * 4) as u8;
            assert_eq!(part.rgba8(x, y), [i, i + 1, i + 2, i + 3], "({x}, {y})");
        }
    }
    let other_layer =
        device.readback(&t, TextureRegion::level(&desc, 1, 1)).expect("readback").wait().expect("wait");
    assert!(other_layer.data.iter().all(|&b| b == 0), "layer 1 changed");
}

#[test]
fn the_registry_opens_wgpu_and_its_accessors_agree() {
    common::quiet_mesa();
    let mut registry = DeviceRegistry::new();
    let _ = register_wgpu_backend(&mut registry);
    let Some(direct) = device() else {
        assert!(registry.open(&DeviceRequest::new(8, 8)).is_err());
        return;
    };
    let opened = registry.open(&DeviceRequest::new(8, 8)).expect("the registry opens wgpu");
    assert_eq!(opened.backend_id(), BackendId::WGPU);
    assert_eq!(direct.wgpu_device().features(), direct.wgpu_features());
    let t = target(&direct, 2, 2);
    assert_eq!(direct.wgpu_texture(&t).expect("own texture").width(), 2);
    let foreign = target(&WgpuDevice::open(&DeviceRequest::new(8, 8)).expect("a second device"), 2, 2);
    assert!(matches!(direct.wgpu_texture(&foreign), Err(DeviceError::WrongDevice { .. })));
}

#[test]
fn lavapipe_grants_every_feature_it_has() {
    let Some(device) = device() else { return };
    let info = device.adapter_info();
    if !info.name.starts_with("llvmpipe") || !info.driver.starts_with("Vulkan") {
        eprintln!("skipped: this is {} ({}), not lavapipe", info.name, info.driver);
        return;
    }
    // lavapipe (Mesa 22.3, DESIGN §9) has every capability the HAL names, so a device on it
    // that leaves one out is dishonest in the direction the capability probes cannot see.
    for &f in DeviceFeature::ALL {
        assert!(device.features().has(f), "lavapipe offers {f}, but the device does not report it");
    }
}

#[test]
fn a_copy_within_one_level_keeps_the_rest() {
    let Some(device) = device() else { return };
    let desc = TextureDescriptor::new_2d("self copy", 4, 2, TextureFormat::Rgba8Unorm);
    let t = device.create_texture(&desc).expect("create");
    let data: Vec<u8> = (0..32).collect();
    device.write_texture(&t, TextureRegion::full(&desc), &data).expect("upload");
    device
        .copy_texture(&t, TextureRegion::rect(0, 0, 2, 2), &t, TextureRegion::rect(2, 0, 2, 2))
        .expect("a copy between the two halves of one level");
    let image = read(&device, &t);
    for y in 0..2 {
        for x in 0..4 {
            let i = ((y * 4 + x % 2) * 4) as u8;
            assert_eq!(image.rgba8(x, y), [i, i + 1, i + 2, i + 3], "({x}, {y})");
        }
    }
    assert!(device.wgpu_take_uncaptured_errors().is_empty());
}

#[test]
fn a_pass_does_not_sample_its_own_attachment() {
    let Some(device) = device() else { return };
    let m = module(
        "@group(0) @binding(0) var tex: texture_2d<f32>;
        @group(0) @binding(1) var tex_sampler: sampler;
        @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
            return vec4<f32>(f32(i & 1u) * 4.0 - 1.0, f32(i & 2u) * 2.0 - 1.0, 0.5, 1.0);
        }
        @fragment fn fs() -> @location(0) vec4<f32> { return textureSample(tex, tex_sampler, vec2<f32>(0.5)); }",
    );
    let p = pipeline(
        &device,
        shader(&device, &m, ShaderStage::Vertex, "vs"),
        shader(&device, &m, ShaderStage::Fragment, "fs"),
        "sampling",
    );
    let sampler = device.create_sampler(&f3d_hal::SamplerDescriptor::default()).expect("sampler");
    let (t, other) = (target(&device, 4, 4), target(&device, 4, 4));
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("feedback", ColorAttachment::clear(&t, Color::BLACK)))
        .expect("begin_render_pass");
    pass.set_pipeline(&p).expect("set_pipeline");
    assert!(!pass.bind_texture("tex", &t, &sampler), "the pass's own attachment was bound for sampling");
    assert!(pass.bind_texture("tex", &other, &sampler), "another texture was refused");
    pass.draw(0..3, 0..1).expect("draw");
    pass.submit().expect("submit");
    assert!(device.wgpu_take_uncaptured_errors().is_empty());
}

/// On Vulkan, the driver's pipeline cache is kept in the shader cache on disk: written when
/// the device drops, read by the next device of the same adapter, and replaced when corrupt
/// (the pipeline is built all the same).
#[test]
fn the_pipeline_cache_is_kept_on_disk() {
    use f3d_hal::shader_cache::ShaderCache;
    common::quiet_mesa();
    let dir = std::env::temp_dir().join(format!("f3d-wgpu-pipeline-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let open =
        || WgpuDevice::open_with_shader_cache(&DeviceRequest::new(8, 8), ShaderCache::at(&dir, 1 << 30));
    let device = match open() {
        Ok(d) => d,
        Err(e) => {
            assert!(!f3d_conformance::backend_required(&BackendId::WGPU), "{e}");
            return;
        }
    };
    let vulkan = device.wgpu_adapter().get_info().backend == wgpu::Backend::Vulkan;
    let Some(cache) = device.shader_cache() else {
        assert!(!vulkan, "wgpu keeps a pipeline cache on Vulkan");
        return;
    };
    assert_eq!((cache.stats().hits, cache.stats().compiles), (0, 1), "a cold cache");
    drop(rect_pipeline(&device));
    drop(device);
    let entries = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default()
    };
    assert_eq!(entries().len(), 1, "the driver's cache was written when the device dropped");

    let device = open().expect("reopen");
    let stats = device.shader_cache().expect("a cache").stats();
    assert_eq!((stats.hits, stats.compiles), (1, 0), "read back");
    drop(rect_pipeline(&device));
    drop(device);

    for path in entries() {
        let mut bytes = std::fs::read(&path).expect("entry");
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&path, bytes).expect("truncated");
    }
    let device = open().expect("reopen");
    let stats = device.shader_cache().expect("a cache").stats();
    assert_eq!((stats.hits, stats.corrupt, stats.compiles), (0, 1, 1), "{stats:?}");
    let t = target(&device, 8, 8);
    let p = rect_pipeline(&device);
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("rebuilt", ColorAttachment::clear(&t, Color::BLACK)))
        .expect("begin_render_pass");
    pass.set_pipeline(&p).expect("set_pipeline");
    let slot = p.slot("params").expect("params is declared");
    assert!(pass.bind_uniform_block_at(slot, &params([0.0, 1.0, 0.0, 1.0], [-1.0, -1.0, 1.0, 1.0])));
    pass.draw(0..6, 0..1).expect("draw");
    pass.submit().expect("submit");
    assert_eq!(read(&device, &t).rgba8(4, 4), [0, 255, 0, 255], "drawn with the rebuilt cache");
    drop(device);
    let _ = std::fs::remove_dir_all(&dir);
}
