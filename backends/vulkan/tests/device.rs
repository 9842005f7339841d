//! What is particular to the vulkan backend, beyond the conformance suite: teardown with
//! handles still alive, destruction deferred until the GPU is done, the uniform ring across
//! growth and wrap, the render graph's transitions (a read-only depth attachment sampled in
//! the same pass, a discarded transient), fresh textures reading zero, copies within one
//! subresource, frames in flight, the pipeline cache on disk, loss during a pending readback,
//! and the sentence a machine without Vulkan gets. Every device validates; every test ends
//! by asserting its log stayed empty.
//!
//! Without a Vulkan device each test says so and returns; CI installs lavapipe and sets
//! `F3D_REQUIRE_BACKENDS=...,vulkan`, under which a missing device fails instead.

use std::sync::Arc;

use f3d_backend_vulkan::{ValidationLog, VulkanDevice, VulkanOptions, register_vulkan_backend};
use f3d_hal::{
    AttachmentView, BackendId, Color, ColorAttachment, ColorTargetState, CompareFunction,
    DepthStencilAttachment, DepthStencilState, DeviceError, DeviceRegistry, DeviceRequest,
    GeometryDescriptor, GraphicsDevice, LoadOp, LossReason, PipelineDescriptor, PipelineHandle,
    PrimitiveState, RenderPassDescriptor, ResourceState, SamplerDescriptor, ShaderDescriptor, ShaderStage,
    StoreOp, TextureDescriptor, TextureFormat, TextureRegion, TextureTransition, ValidatedModule,
};

mod common;

fn module(source: &str) -> Arc<ValidatedModule> {
    Arc::new(f3d_materials::compile_wgsl("test.wgsl", source).expect("the test shader compiles"))
}

/// A pipeline of `vs` and `fs` from `source`, adjusted by `adjust`.
fn pipeline(
    device: &VulkanDevice,
    source: &str,
    label: &str,
    adjust: impl FnOnce(&mut PipelineDescriptor),
) -> PipelineHandle {
    let m = module(source);
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: format!("{label} {entry}"),
                module: m.clone(),
                stage,
                entry_point: entry.into(),
            })
            .expect("create_shader")
    };
    let mut desc = PipelineDescriptor {
        label: label.into(),
        vertex: shader(ShaderStage::Vertex, "vs"),
        fragment: Some(shader(ShaderStage::Fragment, "fs")),
        vertex_buffers: Vec::new(),
        primitive: PrimitiveState::default(),
        depth_stencil: None,
        color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8Unorm)],
        sample_count: 1,
        multiview: None,
    };
    adjust(&mut desc);
    device.create_pipeline(&desc).expect("create_pipeline")
}

fn read(device: &VulkanDevice, t: &f3d_hal::TextureHandle) -> f3d_hal::ReadbackImage {
    device.readback(t, TextureRegion::full(t.descriptor())).expect("readback").wait().expect("wait")
}

fn assert_clean(log: &ValidationLog) {
    assert!(log.is_empty(), "validation messages: {:#?}", log.messages());
}

/// Draws `params.rect` (NDC x0, y0, x1, y1) in `params.color`. The block is padded to 256
/// bytes so that a few thousand draws outgrow the uniform ring's first buffer.
const RECT_WGSL: &str = r#"
struct Params { color: vec4<f32>, rect: vec4<f32>, pad: array<vec4<f32>, 14> }
@group(0) @binding(0) var<uniform> params: Params;
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let c = array<vec2<f32>, 6>(vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
                                vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0))[i % 6u];
    return vec4<f32>(mix(params.rect.xy, params.rect.zw, c), 0.5, 1.0);
}
@fragment
fn fs() -> @location(0) vec4<f32> { return params.color; }
"#;

fn rect_params(color: [f32; 4], rect: [f32; 4]) -> Vec<u8> {
    let mut v: Vec<u8> = color.iter().chain(&rect).flat_map(|f| f.to_le_bytes()).collect();
    v.resize(256, 0);
    v
}

#[test]
fn dropping_the_device_destroys_everything_even_with_handles_alive() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let counter = device.vk_object_counter();
    let t = device
        .create_texture(&TextureDescriptor::new_2d("t", 8, 8, TextureFormat::Rgba8Unorm))
        .expect("texture");
    let g = device.create_geometry(&GeometryDescriptor::new("g", 64), None).expect("geometry");
    let s = device.create_sampler(&SamplerDescriptor::default()).expect("sampler");
    let p = pipeline(&device, RECT_WGSL, "kept", |_| {});
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&t, Color::RED)))
        .expect("pass");
    pass.set_pipeline(&p).expect("set_pipeline");
    assert!(pass.bind_uniform_block("params", &rect_params([0.0, 1.0, 0.0, 1.0], [-1.0, -1.0, 0.0, 1.0])));
    pass.draw(0..6, 0..1).expect("draw");
    pass.submit().expect("submit");
    let pending = device.readback(&t, TextureRegion::full(t.descriptor())).expect("readback");
    assert!(counter.count() > 0, "live objects are counted");
    assert_clean(&log);
    drop(device);
    assert_eq!(counter.count(), 0, "objects outlived their device");
    assert!(matches!(
        t.check_owner_alive("write_texture"),
        Err(DeviceError::Lost { reason: LossReason::Destroyed, .. })
    ));
    assert!(
        matches!(pending.wait(), Err(DeviceError::Lost { .. })),
        "a readback outliving its device is lost"
    );
    drop((t, g, s, p));
    assert_clean(&log);
}

#[test]
fn released_objects_are_destroyed_once_the_gpu_is_done() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let counter = device.vk_object_counter();
    let draw_and_drop = || {
        let t = device
            .create_texture(&TextureDescriptor::new_2d("t", 64, 64, TextureFormat::Rgba8Unorm))
            .expect("texture");
        let p = pipeline(&device, RECT_WGSL, "released", |_| {});
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&t, Color::RED)))
            .expect("pass");
        pass.set_pipeline(&p).expect("set_pipeline");
        assert!(
            pass.bind_uniform_block("params", &rect_params([0.0, 1.0, 0.0, 1.0], [-1.0, -1.0, 1.0, 1.0]))
        );
        pass.draw(0..6, 0..1).expect("draw");
        pass.submit().expect("submit");
        counter.count()
    };
    // The first draw makes the device's lasting objects (the uniform ring).
    draw_and_drop();
    let sync = || {
        let t = device
            .create_texture(&TextureDescriptor::new_2d("sync", 1, 1, TextureFormat::Rgba8Unorm))
            .expect("t");
        device.readback(&t, TextureRegion::rect(0, 0, 1, 1)).expect("readback").wait().expect("wait");
    };
    sync();
    device.begin_frame().expect("begin_frame");
    let before = (counter.count(), device.live_resources());
    let during = draw_and_drop();
    assert!(during > before.0, "the texture, shaders and pipeline are counted while alive");
    assert_eq!(device.live_resources(), before.1, "handles dropped: the HAL count is back at once");
    // The GPU may still be drawing: the objects go once it is done, which the next frame notices.
    for _ in 0..4 {
        device.begin_frame().expect("begin_frame");
    }
    let (submitted, completed) = device.vk_timeline();
    assert!(
        completed + 2 >= submitted,
        "frames in flight stay bounded: {submitted} submitted, {completed} done"
    );
    sync();
    device.begin_frame().expect("begin_frame");
    assert_eq!(counter.count(), before.0, "released objects were not destroyed after the GPU finished");
    assert_clean(&log);
}

#[test]
fn uniform_ring_across_growth_and_wrap() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let p = pipeline(&device, RECT_WGSL, "ring", |_| {});
    let t = device
        .create_texture(&TextureDescriptor::new_2d("t", 64, 16, TextureFormat::Rgba8Unorm))
        .expect("texture");
    // 4096 draws of 256 bytes: 1 MiB of uniforms in one pass, four times the first ring.
    // Column x of the target ends up in the colour of the last draw covering it.
    for round in 0..3u32 {
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color("ring", ColorAttachment::clear(&t, Color::BLACK)))
            .expect("pass");
        pass.set_pipeline(&p).expect("set_pipeline");
        let slot = p.slot("params").expect("params");
        for i in 0..4096u32 {
            let column = i % 64;
            let x0 = column as f32 / 32.0 - 1.0;
            let shade = ((i / 64 + round) % 4) as f32 / 4.0;
            assert!(pass.bind_uniform_block_at(
                slot,
                &rect_params([shade, 1.0 - shade, 0.5, 1.0], [x0, -1.0, x0 + 1.0 / 32.0, 1.0])
            ));
            pass.draw(0..6, 0..1).expect("draw");
        }
        pass.submit().expect("submit");
        let image = read(&device, &t);
        let last = ((4095 / 64 + round) % 4) as f32 / 4.0;
        let want = [(last * 255.0).round() as u8, ((1.0 - last) * 255.0).round() as u8, 128, 255];
        for x in 0..64 {
            let got = image.rgba8(x, 8);
            assert!(
                got.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 1),
                "round {round} column {x}: {got:?}, want {want:?}"
            );
        }
    }
    assert_clean(&log);
}

const DEPTH_SAMPLE_WGSL: &str = r#"
@group(0) @binding(0) var depth: texture_depth_2d;
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let d = textureLoad(depth, vec2<i32>(p.xy), 0);
    return vec4<f32>(d, 0.0, 0.0, 1.0);
}
"#;

const FILL_DEPTH_WGSL: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.25, 1.0);
}
@fragment
fn fs() -> @location(0) vec4<f32> { return vec4<f32>(0.0, 0.0, 1.0, 1.0); }
"#;

/// What the render graph hands a pass that reads its depth attachment and samples it: a
/// transition to `DepthStencilReadOnly`. The depth written by one pass is then read, as an
/// attachment and as a texture, in the next; a pipeline writing depth is refused there.
#[test]
fn graph_read_only_depth_is_sampled_in_the_same_pass() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let depth = device
        .create_texture(&TextureDescriptor::new_2d("depth", 8, 8, TextureFormat::Depth32Float))
        .expect("depth");
    let color = device
        .create_texture(&TextureDescriptor::new_2d("color", 8, 8, TextureFormat::Rgba8Unorm))
        .expect("color");
    let writer = pipeline(&device, FILL_DEPTH_WGSL, "write depth", |d| {
        d.depth_stencil =
            Some(DepthStencilState::depth(TextureFormat::Depth32Float, CompareFunction::Always, true));
    });
    // Pass 1: depth 0.25 everywhere (the graph: Undefined → DepthStencilAttachment).
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor {
            depth_stencil_attachment: Some(DepthStencilAttachment::clear(&depth, 1.0)),
            transitions: vec![
                TextureTransition {
                    texture: depth.clone(),
                    before: ResourceState::Undefined,
                    after: ResourceState::DepthStencilAttachment,
                },
                TextureTransition {
                    texture: color.clone(),
                    before: ResourceState::Undefined,
                    after: ResourceState::ColorAttachment,
                },
            ],
            ..RenderPassDescriptor::color("write", ColorAttachment::clear(&color, Color::BLACK))
        })
        .expect("pass 1");
    pass.set_pipeline(&writer).expect("set_pipeline");
    pass.draw(0..3, 0..1).expect("draw");
    pass.submit().expect("submit 1");
    // Pass 2: depth read-only (loaded, not cleared) and sampled.
    let sampler = pipeline(&device, DEPTH_SAMPLE_WGSL, "sample depth", |d| {
        d.depth_stencil =
            Some(DepthStencilState::depth(TextureFormat::Depth32Float, CompareFunction::LessEqual, false));
    });
    let read_only = DepthStencilAttachment {
        view: AttachmentView::new(&depth),
        depth_load: LoadOp::Load,
        depth_store: StoreOp::Store,
        stencil_load: LoadOp::Load,
        stencil_store: StoreOp::Store,
    };
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor {
            depth_stencil_attachment: Some(read_only),
            transitions: vec![
                TextureTransition {
                    texture: depth.clone(),
                    before: ResourceState::DepthStencilAttachment,
                    after: ResourceState::DepthStencilReadOnly,
                },
                TextureTransition {
                    texture: color.clone(),
                    before: ResourceState::ColorAttachment,
                    after: ResourceState::ColorAttachment,
                },
            ],
            ..RenderPassDescriptor::color("read", ColorAttachment::clear(&color, Color::BLACK))
        })
        .expect("pass 2");
    assert!(
        matches!(pass.set_pipeline(&writer), Err(DeviceError::Refused { operation: "set_pipeline", .. })),
        "a depth-writing pipeline in a read-only depth pass was not refused"
    );
    pass.set_pipeline(&sampler).expect("set_pipeline");
    let s = device.create_sampler(&SamplerDescriptor::default()).expect("sampler");
    assert!(pass.bind_texture("depth", &depth, &s), "the read-only depth attachment could not be sampled");
    pass.draw(0..3, 0..1).expect("draw");
    pass.submit().expect("submit 2");
    let image = read(&device, &color);
    // Depth 0.25 sampled into red (64 of 255); the draw at 0.5 fails LessEqual against 0.25
    // but wrote nothing else, so...
    let got = image.rgba8(3, 3);
    assert!(got == [0, 0, 0, 255], "a draw at 0.5 passed LessEqual against depth 0.25: {got:?}");
    // ...draw again at the same depth with Always to see what was sampled.
    let always = pipeline(&device, DEPTH_SAMPLE_WGSL, "sample depth always", |d| {
        d.depth_stencil =
            Some(DepthStencilState::depth(TextureFormat::Depth32Float, CompareFunction::Always, false));
    });
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor {
            depth_stencil_attachment: Some(read_only_again(&depth)),
            transitions: vec![TextureTransition {
                texture: depth.clone(),
                before: ResourceState::DepthStencilReadOnly,
                after: ResourceState::DepthStencilReadOnly,
            }],
            ..RenderPassDescriptor::color("read again", ColorAttachment::clear(&color, Color::BLACK))
        })
        .expect("pass 3");
    pass.set_pipeline(&always).expect("set_pipeline");
    assert!(pass.bind_texture("depth", &depth, &s));
    pass.draw(0..3, 0..1).expect("draw");
    pass.submit().expect("submit 3");
    let got = read(&device, &color).rgba8(3, 3);
    assert!(
        got[0].abs_diff(64) <= 1 && got[1..] == [0, 0, 255],
        "sampled depth came back as {got:?}, want 0.25"
    );
    assert_clean(&log);
}

fn read_only_again(depth: &f3d_hal::TextureHandle) -> DepthStencilAttachment {
    DepthStencilAttachment {
        view: AttachmentView::new(depth),
        depth_load: LoadOp::Load,
        depth_store: StoreOp::Store,
        stencil_load: LoadOp::Load,
        stencil_store: StoreOp::Store,
    }
}

#[test]
fn fresh_textures_read_zero() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    for format in [TextureFormat::Rgba8Unorm, TextureFormat::R32Float, TextureFormat::Rgba16Float] {
        // Memory is recycled: make and drop a few textures full of colour first.
        for _ in 0..3 {
            let junk =
                device.create_texture(&TextureDescriptor::new_2d("junk", 32, 32, format)).expect("junk");
            let pass = device
                .begin_render_pass(&RenderPassDescriptor::color(
                    "junk",
                    ColorAttachment::clear(&junk, Color::new(0.7, 0.3, 0.9, 1.0)),
                ))
                .expect("pass");
            pass.submit().expect("submit");
        }
        let t = device
            .create_texture(&TextureDescriptor::new_2d("fresh", 32, 32, format).with_mips(2))
            .expect("fresh");
        for level in 0..2 {
            let image = device
                .readback(&t, TextureRegion::level(t.descriptor(), level, 0))
                .expect("readback")
                .wait()
                .expect("wait");
            assert!(image.data.iter().all(|b| *b == 0), "{format} level {level} is not zero");
        }
    }
    assert_clean(&log);
}

#[test]
fn copies_within_one_subresource() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let t = device
        .create_texture(&TextureDescriptor::new_2d("t", 8, 4, TextureFormat::Rgba8Unorm))
        .expect("texture");
    let data: Vec<u8> = (0..32u8).flat_map(|i| [i, 100, 200, 255]).collect();
    device.write_texture(&t, TextureRegion::full(t.descriptor()), &data).expect("upload");
    device
        .copy_texture(&t, TextureRegion::rect(0, 0, 3, 2), &t, TextureRegion::rect(5, 2, 3, 2))
        .expect("copy");
    let image = read(&device, &t);
    for y in 0..4u32 {
        for x in 0..8u32 {
            let from = if x >= 5 && y >= 2 { (y - 2) * 8 + (x - 5) } else { y * 8 + x };
            assert_eq!(image.rgba8(x, y)[0], from as u8, "texel ({x}, {y})");
        }
    }
    assert_clean(&log);
}

#[test]
fn the_pipeline_cache_is_saved_and_read_back() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    common::quiet_mesa();
    let dir = std::env::temp_dir().join(format!("f3d-vulkan-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let open = || {
        VulkanDevice::open_with(
            &DeviceRequest::new(8, 8),
            common::options(&log).with_pipeline_cache_dir(&dir),
        )
    };
    let device = match open() {
        Ok(d) => d,
        Err(e) => {
            assert!(!f3d_conformance::backend_required(&BackendId::VULKAN), "{e}");
            return;
        }
    };
    let file = device.vk_pipeline_cache_file().expect("a cache file").to_owned();
    assert!(file.starts_with(&dir));
    drop(pipeline(&device, RECT_WGSL, "cached", |_| {}));
    let first = device.shader_cache().expect("a shader cache").stats();
    assert_eq!((first.hits, first.compiles), (0, 2), "{first:?}");
    drop(device);
    let saved = std::fs::read(&file).expect("the cache was written when the device dropped");
    // Vulkan's header: its own length (32), version ONE; the data after it is the driver's
    // (lavapipe keeps none, a GPU driver its compiled pipelines).
    assert!(
        saved.len() >= 32 && saved[..8] == [32, 0, 0, 0, 1, 0, 0, 0],
        "not a pipeline cache: {:?}",
        &saved[..saved.len().min(8)]
    );
    let stats = |d: &VulkanDevice| d.shader_cache().expect("a shader cache").stats();
    let device = open().expect("reopen");
    drop(pipeline(&device, RECT_WGSL, "cached again", |_| {}));
    // The SPIR-V of both stages came from the first device's run, off disk.
    assert_eq!((stats(&device).hits, stats(&device).compiles), (2, 0), "{:?}", stats(&device));
    drop(device);

    // Corrupted entries are found, replaced, and the pipeline is built all the same.
    let shaders = dir.join("shaders");
    let entries: Vec<_> =
        std::fs::read_dir(&shaders).expect("shader entries").flatten().map(|e| e.path()).collect();
    assert_eq!(entries.len(), 2, "one entry per stage: {entries:?}");
    for path in &entries {
        let mut bytes = std::fs::read(path).expect("entry");
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(path, bytes).expect("corrupted");
    }
    let device = open().expect("reopen");
    drop(pipeline(&device, RECT_WGSL, "rebuilt", |_| {}));
    let s = stats(&device);
    assert_eq!((s.hits, s.corrupt, s.compiles), (0, 2, 2), "{s:?}");
    drop(device);
    let device = open().expect("reopen");
    drop(pipeline(&device, RECT_WGSL, "rebuilt, read", |_| {}));
    assert_eq!((stats(&device).hits, stats(&device).compiles), (2, 0), "the rebuilt entries are read");
    drop(device);

    let none =
        VulkanDevice::open_with(&DeviceRequest::new(8, 8), VulkanOptions::new().without_pipeline_cache())
            .expect("open");
    assert!(none.vk_pipeline_cache_file().is_none());
    assert!(none.shader_cache().expect("the switch is the same").dir().is_none());
    let _ = std::fs::remove_dir_all(&dir);
    assert_clean(&log);
}

#[test]
fn loss_during_a_pending_readback() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let t = device
        .create_texture(&TextureDescriptor::new_2d("t", 4, 4, TextureFormat::Rgba8Unorm))
        .expect("texture");
    let pending = device.readback(&t, TextureRegion::full(t.descriptor())).expect("readback");
    device.simulate_loss("test");
    assert!(matches!(pending.wait(), Err(DeviceError::Lost { operation: "readback", .. })));
    assert!(matches!(device.begin_frame(), Err(DeviceError::Lost { operation: "begin_frame", .. })));
    assert!(matches!(device.take_loss_report(), Some(LossReason::Simulated(_))));
    assert!(device.take_loss_report().is_none(), "the loss was reported twice");
    drop(t);
    drop(device);
    assert_clean(&log);
}

#[test]
fn the_registry_opens_vulkan_and_validation_wraps_it() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    if common::device(&log).is_none() {
        return;
    }
    let mut registry = DeviceRegistry::new();
    let _r = register_vulkan_backend(&mut registry);
    let mut request = DeviceRequest::new(8, 8);
    request.backend = Some(BackendId::VULKAN);
    request.validation = true;
    let device = registry.open(&request).expect("open");
    assert_eq!(device.backend_id(), BackendId::VULKAN);
    let t = device
        .create_texture(&TextureDescriptor::new_2d("t", 4, 4, TextureFormat::Rgba8Unorm))
        .expect("texture");
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("v", ColorAttachment::clear(&t, Color::RED)))
        .expect("pass");
    assert!(
        matches!(pass.draw(0..3, 0..1), Err(DeviceError::Validation(_))),
        "F3D_VALIDATION wraps the device"
    );
    drop(pass);
    let info = device.adapter_info();
    assert!(!info.name.is_empty());
    println!("adapter: {} ({}), cpu: {}", info.name, info.driver, info.cpu);
}

/// Run as a child process with no driver: the sentence a registry keeps when Vulkan cannot
/// open here.
#[test]
fn without_a_driver_the_device_declines_with_a_sentence() {
    if std::env::var_os("F3D_VULKAN_NO_ICD_CHILD").is_some() {
        match VulkanDevice::open(&DeviceRequest::new(8, 8)) {
            Err(f3d_hal::OpenError::DeviceUnavailable { backend, reason }) => {
                assert_eq!(backend, BackendId::VULKAN);
                assert!(reason.contains("is mesa-vulkan-drivers installed?"), "{reason}");
                println!("declined: {reason}");
            }
            Err(other) => panic!("not a decline: {other}"),
            Ok(d) => panic!("opened {} without a driver", d.adapter_info().name),
        }
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args(["--exact", "without_a_driver_the_device_declines_with_a_sentence", "--nocapture"])
        .env("F3D_VULKAN_NO_ICD_CHILD", "1")
        .env("VK_ICD_FILENAMES", "/nonexistent/f3d-no-driver.json")
        .env("VK_DRIVER_FILES", "/nonexistent/f3d-no-driver.json")
        .output()
        .expect("the child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("declined: "), "{stdout}");
}

/// A CPU driver grinding through one long submission is a slow frame, not a lost device: with
/// the no-progress limit at 100 ms, a pass that keeps lavapipe busy for much longer (250
/// blended full-screen rectangles at 2048²) still completes. Before the watchdog counted
/// CPU time, the timeline alone saw no progress and the device was declared lost.
#[test]
fn a_busy_cpu_driver_is_not_a_lost_device() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(probe) = common::device(&log) else { return };
    let cpu = probe.adapter_info().cpu;
    drop(probe);
    let mut request = DeviceRequest::new(64, 64);
    request.gpu_timeout = Some(std::time::Duration::from_millis(100));
    let device = VulkanDevice::open_with(&request, common::options(&log)).expect("open");
    let size = 2048;
    let t = device
        .create_texture(&TextureDescriptor::new_2d("busy", size, size, TextureFormat::Rgba8Unorm))
        .expect("texture");
    let p = pipeline(&device, RECT_WGSL, "busy", |d| {
        let add = f3d_hal::BlendComponent {
            src_factor: f3d_hal::BlendFactor::One,
            dst_factor: f3d_hal::BlendFactor::One,
            operation: f3d_hal::BlendOperation::Add,
        };
        d.color_targets = vec![ColorTargetState {
            blend: Some(f3d_hal::BlendState { color: add, alpha: add }),
            ..ColorTargetState::replace(TextureFormat::Rgba8Unorm)
        }];
    });
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("busy", ColorAttachment::clear(&t, Color::BLACK)))
        .expect("pass");
    pass.set_pipeline(&p).expect("set_pipeline");
    // One 8-bit step per draw (blending happens in the target's precision).
    let step = 1.0 / 255.0;
    assert!(pass.bind_uniform_block("params", &rect_params([step, step, step, 1.0], [-1.0, -1.0, 1.0, 1.0])));
    for _ in 0..250 {
        pass.draw(0..6, 0..1).expect("draw");
    }
    pass.submit().expect("submit");
    let started = std::time::Instant::now();
    let image = read(&device, &t);
    let took = started.elapsed();
    let v = image.data[0];
    assert!((248..=252).contains(&v), "the pass ran: red {v} (250 expected)");
    if cpu {
        assert!(
            took > std::time::Duration::from_millis(100),
            "the pass took {took:?}: it did not exercise the limit"
        );
    }
    assert!(device.take_loss_report().is_none(), "a busy driver was taken for a lost device");
    assert_clean(&log);
}

#[test]
fn the_material_check_and_create_shader_compile_each_entry_point_once() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let m = module(RECT_WGSL);
    device.check_shader_module("rect", &m).expect("the device runs it");
    assert_eq!(m.compiled_count(), 2, "the check compiles vs and fs");
    let shader = |m: &Arc<ValidatedModule>, stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: m.clone(),
                stage,
                entry_point: entry.into(),
            })
            .expect("create_shader")
    };
    let (vs, fs) = (shader(&m, ShaderStage::Vertex, "vs"), shader(&m, ShaderStage::Fragment, "fs"));
    assert_eq!(m.compiled_count(), 2, "create_shader compiled what the check had compiled");
    // Another module, even of the same text, is compiled for itself.
    let again = module(RECT_WGSL);
    let again_vs = shader(&again, ShaderStage::Vertex, "vs");
    assert_eq!((m.compiled_count(), again.compiled_count()), (2, 1));
    drop((vs, fs, again_vs));
    drop(device);
    assert!(log.is_empty(), "validation messages: {:#?}", log.messages());
}
