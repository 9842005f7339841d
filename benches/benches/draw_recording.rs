//! The CPU cost of recording draws on each backend: one pass of 10,000 draws, each one
//! rebinding its uniform block (64 fresh bytes), its texture (one of four, in turn) and its
//! sampler, through the slots resolved once per pipeline (the HAL's hot path).
//!
//! * `record`: begin the pass, bind and draw 10,000 times, drop the pass unsubmitted — what a
//!   pass contributor's closure costs.
//! * `record_submit`: the same, submitted — the CPU time of recording and `submit` only. On
//!   vulkan `submit` replays the pass into a command buffer (barriers, descriptor sets from
//!   the cache, dynamic offsets, one memcpy of the uniforms) and calls `vkQueueSubmit2`; on
//!   wgpu it replays into a wgpu render pass and submits. After each timed pass, untimed, the
//!   bench waits for the GPU (a 1x1 readback) so queues never pile up and the GPU's own work
//!   is never in the figure.
//!
//! vulkan and wgpu run on whatever adapter they open (lavapipe on CI and the dev VMs); a
//! backend that does not open here is skipped with a note. The null backend refuses its
//! pipeline at the first draw and so measures the shared checks and the recording alone.
//!
//! Run: `cargo bench -p f3d_benches --bench draw_recording`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use f3d_hal::{
    AddressMode, BindingSlot, Color, ColorAttachment, ColorTargetState, DeviceRequest, GraphicsDevice,
    PipelineDescriptor, PipelineHandle, PrimitiveState, RenderPassDescriptor, SamplerDescriptor,
    SamplerHandle, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat, TextureHandle,
    TextureRegion,
};

/// Draws per pass.
const DRAWS: u32 = 10_000;

const WGSL: &str = r#"
struct Params { offset: vec4<f32>, tint: vec4<f32>, pad: array<vec4<f32>, 2> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var tex_sampler: sampler;
struct Out { @builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32> }
@vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
    let c = array<vec2<f32>, 3>(vec2(0.0, 0.0), vec2(0.05, 0.0), vec2(0.0, 0.05))[i % 3u];
    return Out(vec4<f32>(params.offset.xy + c, 0.5, 1.0), c * 20.0);
}
@fragment fn fs(v: Out) -> @location(0) vec4<f32> {
    return textureSample(tex, tex_sampler, v.uv) * params.tint;
}
"#;

/// What one backend's pass draws with.
struct Scene {
    device: Arc<dyn GraphicsDevice>,
    target: TextureHandle,
    pipeline: PipelineHandle,
    textures: Vec<TextureHandle>,
    sampler: SamplerHandle,
    slots: (BindingSlot, BindingSlot, BindingSlot),
    uniforms: Vec<[u8; 64]>,
}

fn scene(device: Arc<dyn GraphicsDevice>) -> Scene {
    let module =
        Arc::new(f3d_materials::compile_wgsl("bench.wgsl", WGSL).expect("the bench shader compiles"));
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .expect("create_shader")
    };
    let pipeline = device
        .create_pipeline(&PipelineDescriptor {
            label: "draw recording".into(),
            vertex: shader(ShaderStage::Vertex, "vs"),
            fragment: Some(shader(ShaderStage::Fragment, "fs")),
            vertex_buffers: Vec::new(),
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba8Unorm)],
            sample_count: 1,
            multiview: None,
        })
        .expect("create_pipeline");
    let textures = (0..4u8)
        .map(|i| {
            let t = device
                .create_texture(&TextureDescriptor::new_2d("tex", 2, 2, TextureFormat::Rgba8Unorm))
                .expect("texture");
            device.write_texture(&t, TextureRegion::full(t.descriptor()), &[60 * i; 16]).expect("upload");
            t
        })
        .collect();
    let sampler = device.create_sampler(&SamplerDescriptor::linear(AddressMode::Repeat)).expect("sampler");
    let target = device
        .create_texture(&TextureDescriptor::new_2d("target", 8, 8, TextureFormat::Rgba8Unorm))
        .expect("target");
    let slot = |name: &str| pipeline.slot(name).expect("the pipeline declares it");
    let slots = (slot("params"), slot("tex"), slot("tex_sampler"));
    let uniforms = (0..DRAWS)
        .map(|i| {
            let mut block = [0u8; 64];
            let x = (i % 100) as f32 / 50.0 - 1.0;
            let y = (i / 100 % 100) as f32 / 50.0 - 1.0;
            for (k, v) in [x, y, 0.0, 1.0, 1.0, 0.5, 0.25, 1.0].iter().enumerate() {
                block[k * 4..k * 4 + 4].copy_from_slice(&v.to_le_bytes());
            }
            block
        })
        .collect();
    Scene { device, target, pipeline, textures, sampler, slots, uniforms }
}

/// Records the pass: `DRAWS` draws, each rebinding uniform block, texture and sampler.
fn record(s: &Scene, submit: bool) {
    let mut pass = s
        .device
        .begin_render_pass(&RenderPassDescriptor::color(
            "draws",
            ColorAttachment::clear(&s.target, Color::BLACK),
        ))
        .expect("begin_render_pass");
    pass.set_pipeline(&s.pipeline).expect("set_pipeline");
    let (params, tex, sampler) = s.slots;
    for i in 0..DRAWS as usize {
        pass.bind_uniform_block_at(params, &s.uniforms[i]);
        pass.bind_texture_at(tex, &s.textures[i % 4]);
        pass.bind_sampler_at(sampler, &s.sampler);
        pass.draw(0..3, 0..1).expect("draw");
    }
    if submit {
        pass.submit().expect("submit");
    } else {
        black_box(pass);
    }
}

/// Waits until the GPU finished everything submitted (a readback of one texel).
fn finish(s: &Scene) {
    s.device.readback(&s.target, TextureRegion::rect(0, 0, 1, 1)).expect("readback").wait().expect("wait");
    s.device.begin_frame().expect("begin_frame");
}

fn devices() -> Vec<(&'static str, Arc<dyn GraphicsDevice>)> {
    let request = DeviceRequest::new(8, 8);
    let mut out: Vec<(&'static str, Arc<dyn GraphicsDevice>)> =
        vec![("null", Arc::new(f3d_backend_null::NullDevice::new("bench")))];
    match f3d_backend_wgpu::WgpuDevice::open(&request) {
        Ok(d) => out.push(("wgpu", Arc::new(d))),
        Err(e) => eprintln!("draw_recording: wgpu skipped: {e}"),
    }
    match f3d_backend_vulkan::VulkanDevice::open(&request) {
        Ok(d) => out.push(("vulkan", Arc::new(d))),
        Err(e) => eprintln!("draw_recording: vulkan skipped: {e}"),
    }
    for (name, d) in &out {
        eprintln!("draw_recording: {name} on {}", d.adapter_info().name);
    }
    out
}

fn bench(c: &mut Criterion) {
    let scenes: Vec<(&str, Scene)> = devices().into_iter().map(|(n, d)| (n, scene(d))).collect();
    for (name, s) in &scenes {
        // One submitted pass first: pipelines built, descriptor sets cached, rings grown.
        record(s, true);
        finish(s);
        assert!(
            *name == "null" || s.device.pipeline_refusals().is_empty(),
            "{name} refused the bench pipeline: {:?}",
            s.device.pipeline_refusals()
        );
    }
    let mut group = c.benchmark_group("draw_recording");
    group.throughput(Throughput::Elements(u64::from(DRAWS)));
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(6));
    for (name, s) in &scenes {
        group.bench_with_input(BenchmarkId::new("record", name), s, |b, s| b.iter(|| record(s, false)));
        group.bench_with_input(BenchmarkId::new("record_submit", name), s, |b, s| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    let start = Instant::now();
                    record(s, true);
                    timed += start.elapsed();
                    finish(s);
                }
                timed
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
