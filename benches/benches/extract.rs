//! CPU cost per entity of f3d's render world (DESIGN §8): extract + prepare + graph + encode
//! on the null backend (which records passes and draws nothing), for 10k, 100k and 1.6M
//! cubes of one mesh and one material, static and all moving.
//!
//! Timed: the render sub-app's frame only (`extract` from the main world, then its `Render`
//! schedule: prepare, the standard pass systems, graph compile and execute, i.e. encode).
//! Not timed: the main world's own schedule and, in the moving case, writing new transforms
//! into every entity's `GlobalTransform` (what transform propagation would have done).
//! Criterion's throughput is per entity, so "time per element" is the per-entity cost.
//!
//! Run: `cargo bench -p f3d_benches --bench extract`

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use f3d::f3d_hal::BackendId;
use f3d::prelude::*;
use f3d::render::RenderApp;

fn app_with_cubes(count: usize) -> (App, f3d::bevy_app::SubApp) {
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(BackendId::NULL),
        size: (1280, 720),
        fixed_time_step: Some(0.0),
        ..Default::default()
    });
    app.finish();
    app.cleanup();
    let world = app.world_mut();
    let cube = world.resource_mut::<Assets<Mesh>>().add(shapes::cube(0.5));
    let material = world.resource_mut::<Assets<Material>>().add(StandardMaterial::default().into());
    let side = (count as f64).sqrt().ceil() as usize;
    world.spawn_batch((0..count).map(move |i| {
        let (x, z) = ((i % side) as f32, (i / side) as f32);
        (Mesh3d(cube), MeshMaterial(material), Transform::from_xyz(x, 0.0, -z))
    }));
    world.spawn((Camera3d::default(), Transform::from_xyz(0.0, 10.0, 10.0).looking_at(Vec3::ZERO, Vec3::Y)));
    let render = app.remove_sub_app(RenderApp).expect("the plugin made a render app");
    (app, render)
}

/// One timed render-world frame after an untimed main-world frame.
fn frame(app: &mut App, render: &mut f3d::bevy_app::SubApp, moving: bool, tick: &mut f32) -> Duration {
    app.update();
    if moving {
        *tick += 1.0;
        let t = *tick;
        let mut q = app.world_mut().query_filtered::<&mut GlobalTransform, With<Mesh3d>>();
        for mut g in q.iter_mut(app.world_mut()) {
            let moved = Transform::from_translation(g.translation() + Vec3::new(0.0, t.sin() * 1e-3, 0.0));
            *g = GlobalTransform::from(moved);
        }
    }
    let start = Instant::now();
    render.extract(app.world_mut());
    render.update();
    let elapsed = start.elapsed();
    app.world_mut().clear_trackers();
    elapsed
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("render_world_frame");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(4));
    for &count in &[10_000usize, 100_000, 1_600_000] {
        let (mut app, mut render) = app_with_cubes(count);
        let mut tick = 0.0;
        // The first frame uploads everything: not part of either case.
        frame(&mut app, &mut render, false, &mut tick);
        group.throughput(Throughput::Elements(count as u64));
        for moving in [false, true] {
            let name = if moving { "moving" } else { "static" };
            group.bench_with_input(BenchmarkId::new(name, count), &count, |b, _| {
                b.iter_custom(|iters| {
                    (0..iters).map(|_| frame(&mut app, &mut render, moving, &mut tick)).sum()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
