//! Render graph compile time for 10, 100 and 1,000 passes of a realistic frame shape
//! (DESIGN §6, §8: 100 passes must compile in ≤ 100 µs, growing linearly).
//!
//! The frame: shadow → depth prepass → opaque → skybox → scene-colour snapshot → translucent,
//! then post effects in blocks of five (bright pass at half resolution, horizontal and
//! vertical blur, composite into a fresh full-resolution scene colour, and a debug view that
//! nobody reads and that compile culls), then tonemap into the imported target. Every pass
//! writes a new transient, so aliasing has real work: most transients share a few slots.
//!
//! `compile` measures `RenderGraph::compile` alone (the graph is built outside the timed
//! part); `build_and_compile` adds declaring the passes, closures included.
//!
//! Run: `cargo bench -p f3d_benches --bench graph_compile`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use f3d_hal::backend::wrap_texture;
use f3d_hal::{
    BackendId, Color, DeviceOwner, LoadOp, ResourceState, TextureDescriptor, TextureFormat, TextureHandle,
};
use f3d_render_graph::{PassContext, PassResult, RenderGraph, TextureDesc};

const OUTPUT: (u32, u32) = (1920, 1080);

fn record(_: &mut PassContext<'_>) -> PassResult {
    Ok(())
}

/// A stand-in for the swapchain image: compile reads only its descriptor.
fn target() -> TextureHandle {
    let owner = DeviceOwner::new(BackendId::new("bench"), "graph_compile");
    wrap_texture(
        &owner,
        TextureDescriptor::new_2d("target", OUTPUT.0, OUTPUT.1, TextureFormat::Rgba8UnormSrgb),
        (),
    )
}

/// The frame described in the module docs, with exactly `passes` passes (at least 8).
fn frame(passes: usize, target: &TextureHandle) -> RenderGraph {
    let mut g = RenderGraph::with_capacity(passes, passes + 8);
    let hdr = TextureDesc::relative(1.0, TextureFormat::Rgba16Float);
    let half = TextureDesc::relative(0.5, TextureFormat::Rgba16Float);
    let out = g.import_texture("target", target.clone(), ResourceState::Present);
    let shadow_map = g.create_texture("shadow_map", TextureDesc::depth(2048, 2048));
    let depth = g.create_texture("depth", TextureDesc::relative(1.0, TextureFormat::Depth32Float));
    let scene0 = g.create_texture("scene_color", hdr);
    let snapshot = g.create_texture("scene_snapshot", hdr);

    let mut shadow = shadow_map;
    g.add_pass("shadow", |p| {
        shadow = p.write_depth(shadow_map, LoadOp::Clear(1.0));
        record
    });
    let mut d = depth;
    g.add_pass("depth_prepass", |p| {
        d = p.write_depth(depth, LoadOp::Clear(1.0));
        record
    });
    let mut scene = scene0;
    g.add_pass("opaque", |p| {
        p.read_texture(shadow);
        d = p.write_depth(d, LoadOp::Load);
        scene = p.write_color(scene0, LoadOp::Clear(Color::BLACK));
        record
    });
    g.add_pass("skybox", |p| {
        p.read_depth(d);
        scene = p.write_color(scene, LoadOp::Load);
        record
    });
    let snap = g.add_copy_pass("scene_color_snapshot", scene, snapshot);
    g.add_pass("translucent", |p| {
        p.read_texture(snap);
        p.read_depth(d);
        scene = p.write_color(scene, LoadOp::Load);
        record
    });

    let mut blur = scene;
    for i in 0..passes.saturating_sub(7) {
        match i % 5 {
            0 => {
                let t = g.create_texture("bright", half);
                g.add_pass("bright", |p| {
                    p.read_texture(scene);
                    blur = p.write_color(t, LoadOp::Clear(Color::BLACK));
                    record
                });
            }
            1 | 2 => {
                let t = g.create_texture("blur", half);
                let name = if i % 5 == 1 { "blur_h" } else { "blur_v" };
                g.add_pass(name, |p| {
                    p.read_texture(blur);
                    blur = p.write_color(t, LoadOp::Clear(Color::BLACK));
                    record
                });
            }
            3 => {
                let t = g.create_texture("scene_color", hdr);
                g.add_pass("composite", |p| {
                    p.read_texture(scene);
                    p.read_texture(blur);
                    scene = p.write_color(t, LoadOp::Clear(Color::BLACK));
                    record
                });
            }
            _ => {
                let t = g.create_texture("debug", half);
                g.add_pass("debug_view", |p| {
                    p.read_texture(blur);
                    p.write_color(t, LoadOp::Clear(Color::BLACK));
                    record
                });
            }
        }
    }
    g.add_pass("tonemap", |p| {
        p.read_texture(scene);
        p.write_color(out, LoadOp::Clear(Color::BLACK));
        record
    });
    g
}

fn graph_compile(c: &mut Criterion) {
    let target = target();
    let mut group = c.benchmark_group("graph_compile");
    group.sample_size(50).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    for passes in [10usize, 100, 1000] {
        assert_eq!(frame(passes, &target).pass_count(), passes);
        let plan = frame(passes, &target).compile(OUTPUT).expect("the bench frame compiles");
        eprintln!(
            "graph_compile: {passes} passes: {} run, {} culled, {} physical transients, {} MiB saved by aliasing",
            plan.order().count(),
            plan.culled().count(),
            plan.physical_textures(),
            plan.bytes_saved() >> 20
        );
        group.throughput(Throughput::Elements(passes as u64));
        group.bench_with_input(BenchmarkId::new("compile", passes), &passes, |b, &n| {
            b.iter_batched(
                || frame(n, &target),
                |g| black_box(g.compile(OUTPUT).expect("the bench frame compiles")),
                BatchSize::SmallInput,
            );
        });
        group.bench_with_input(BenchmarkId::new("build_and_compile", passes), &passes, |b, &n| {
            b.iter(|| black_box(frame(n, &target).compile(OUTPUT).expect("the bench frame compiles")));
        });
    }
    group.finish();
}

criterion_group!(benches, graph_compile);
criterion_main!(benches);
