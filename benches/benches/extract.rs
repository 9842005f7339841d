//! CPU cost per entity of f3d's render world (DESIGN §8): extract + prepare + graph + encode
//! on the null backend (which records passes and draws nothing), for 10k, 100k and 1.6M
//! cubes of one mesh and one material, static and all moving. The null device is made with
//! [`NullDevice::with_instancing`], so the engine records what it records for a GPU (one
//! instanced draw per batch) rather than one draw per cube.
//!
//! Timed: the render sub-app's frame only (`extract` from the main world, then its `Render`
//! schedule: prepare, the standard pass systems, graph compile and execute, i.e. encode).
//! Not timed: the main world's own schedule and, in the moving case, writing new transforms
//! into every entity's `GlobalTransform` (what transform propagation would have done).
//! Criterion's throughput is per entity, so "time per element" is the per-entity cost.
//!
//! `material_edits`: 1k and 10k cubes, each with its own `StandardMaterial`, every material
//! given a new colour each frame (untimed, in the main world); timed as above, so "time per
//! element" is what one edited material costs the render world (its `AssetEvent`, prepare,
//! and the rewrite of its table slot).
//!
//! Run: `cargo bench -p f3d_benches --bench extract`

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use f3d::f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice};
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;
use f3d::render::RenderApp;
use f3d_backend_null::NullDevice;

fn app_with_cubes(count: usize) -> (App, f3d::bevy_app::SubApp) {
    app_with(count, false)
}

/// `count` cubes, each with its own `StandardMaterial` when `own_materials`, else all sharing
/// one.
fn app_with(count: usize, own_materials: bool) -> (App, f3d::bevy_app::SubApp) {
    let mut app = App::new();
    let mut registry = DeviceRegistry::new();
    let _ = registry.add_backend(BackendId::NULL, |request| {
        Ok(std::sync::Arc::new(NullDevice::new(&request.label).with_instancing())
            as std::sync::Arc<dyn GraphicsDevice>)
    });
    app.insert_resource(RenderRegistry(registry));
    app.add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(BackendId::NULL),
        size: (1280, 720),
        fixed_time_step: Some(0.0),
        ..Default::default()
    });
    app.finish();
    app.cleanup();
    let world = app.world_mut();
    let cube = world.resource_mut::<Assets<Mesh>>().add(Cuboid::from_length(0.5));
    let shared = world.resource_mut::<Assets<StandardMaterial>>().add(StandardMaterial::default());
    let materials: Vec<_> = match own_materials {
        true => {
            let mut assets = world.resource_mut::<Assets<StandardMaterial>>();
            (0..count).map(|_| assets.add(StandardMaterial::default())).collect()
        }
        false => vec![shared; count],
    };
    let side = (count as f64).sqrt().ceil() as usize;
    world.spawn_batch(materials.into_iter().enumerate().map(move |(i, material)| {
        let (x, z) = ((i % side) as f32, (i / side) as f32);
        // Not culled: the bench measures extraction of every entity, as before culling existed.
        (Mesh3d(cube.clone()), MeshMaterial3d(material), NoFrustumCulling, Transform::from_xyz(x, 0.0, -z))
    }));
    world.spawn((Camera3d::default(), Transform::from_xyz(0.0, 10.0, 10.0).looking_at(Vec3::ZERO, Vec3::Y)));
    let render = app.remove_sub_app(RenderApp).expect("the plugin made a render app");
    (app, render)
}

/// The first frame, which uploads everything: part of neither case (and a symbol of its own,
/// so callgrind's `--toggle-collect=*render_frame*` leaves it out).
#[inline(never)]
fn first_frame(app: &mut App, render: &mut f3d::bevy_app::SubApp) {
    app.main_mut().run_default_schedule();
    render.extract(app.world_mut());
    render.update();
    app.world_mut().clear_trackers();
}

/// The timed part: extraction and the render world's schedule.
#[inline(never)]
fn render_frame(app: &mut App, render: &mut f3d::bevy_app::SubApp) {
    render.extract(app.world_mut());
    render.update();
}

/// One frame in `App::update`'s order (main schedule, extract, render schedule, then the main
/// world's trackers cleared), with the render sub-app's part timed.
fn frame(app: &mut App, render: &mut f3d::bevy_app::SubApp, moving: bool, tick: &mut f32) -> Duration {
    app.main_mut().run_default_schedule();
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
    render_frame(app, render);
    let elapsed = start.elapsed();
    app.world_mut().clear_trackers();
    elapsed
}

/// One frame of a scene where every cube has its own material and every material got a new
/// colour (untimed, in the main world, as an app animating its materials would), with the
/// render sub-app's part timed: the cost of a material edit from its `AssetEvent` to the
/// rewritten bytes of its table slot.
fn recolour_frame(app: &mut App, render: &mut f3d::bevy_app::SubApp, tick: &mut f32) -> Duration {
    app.main_mut().run_default_schedule();
    *tick += 1.0;
    let t = *tick;
    for (_, m) in app.world_mut().resource_mut::<Assets<StandardMaterial>>().iter_mut() {
        m.base_color = Color::linear_rgb(0.5 + 0.5 * t.sin(), 0.5, 0.5);
    }
    let start = Instant::now();
    render_frame(app, render);
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
        first_frame(&mut app, &mut render);
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
    let mut group = c.benchmark_group("material_edits");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(4));
    for &count in &[1_000usize, 10_000] {
        let (mut app, mut render) = app_with(count, true);
        let mut tick = 0.0;
        first_frame(&mut app, &mut render);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::new("every_material_recoloured", count), &count, |b, _| {
            b.iter_custom(|iters| (0..iters).map(|_| recolour_frame(&mut app, &mut render, &mut tick)).sum())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    // `F3D_EXTRACT_PROFILE=static|moving|recolour,1600000,2`: no criterion, just that many frames of one
    // case after the first, for callgrind (`--toggle-collect=*render_frame*`).
    if let Ok(spec) = std::env::var("F3D_EXTRACT_PROFILE") {
        let parts: Vec<&str> = spec.split(',').collect();
        let moving = parts.first() == Some(&"moving");
        let recolour = parts.first() == Some(&"recolour");
        let count = parts.get(1).and_then(|n| n.parse().ok()).unwrap_or(1_600_000);
        let frames = parts.get(2).and_then(|n| n.parse().ok()).unwrap_or(2);
        let (mut app, mut render) = app_with(count, recolour);
        let mut tick = 0.0;
        first_frame(&mut app, &mut render);
        let total: Duration = (0..frames)
            .map(|_| match recolour {
                true => recolour_frame(&mut app, &mut render, &mut tick),
                false => frame(&mut app, &mut render, moving, &mut tick),
            })
            .sum();
        println!("{} {count}: {:?} per frame", parts[0], total / frames);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
