//! Extraction: copies what changed in the main world into the render world.
//!
//! * Mesh instances: [`Mesh3d`], [`MeshMaterial`], [`Visibility`] and [`NotShadowCaster`]
//!   are immutable components whose hooks list the entity in [`InstanceChanges`]; only those
//!   entities are looked at again. Moved transforms are found by scanning the change ticks of
//!   `GlobalTransform`'s column in the tables holding mesh entities, 64 to a vectorised step
//!   (what `Changed<GlobalTransform>` finds, at a small fraction of its cost per unchanged
//!   entity), and each one found is a 48-byte store into `RenderInstances`. A static scene
//!   extracts no instance data at all.
//! * Assets: each `Assets<T>` lists what was added, edited or removed; only those are
//!   cloned across.
//! * Cameras, lights, the environment and screenshot requests are few and copied each frame
//!   (the environment only when it changed).

use bevy_ecs::change_detection::{MAX_CHANGE_AGE, Tick};
use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryFilter;
use bevy_ecs::world::DeferredWorld;
use bevy_math::{Mat4, Vec3};
use bevy_transform::components::GlobalTransform;

use super::MainWorld;
use rayon::prelude::*;

use super::instances::{BatchKey, DirtyRanges, RenderInstances, instance_rows};
use crate::assets::{AssetChange, Assets};
use crate::camera::{Camera3d, Projection, RenderTarget, Tonemapping};
use crate::environment::Environment;
use crate::image::Image;
use crate::light::{DirectionalLight, PointLight, ShadowSettings};
use crate::material::{Material, MeshMaterial, NotShadowCaster};
use crate::mesh::{Mesh, Mesh3d};
use crate::plugin::{FrameClock, RenderSettings};
use crate::render::prepare::RenderMaterials;
use crate::screenshot::{Screenshot, ScreenshotRequest};
use crate::visibility::Visibility;

/// Entities whose instance components were inserted, replaced or removed since the last
/// extraction (a main-world resource filled by component hooks).
#[derive(Resource, Default)]
pub struct InstanceChanges {
    touched: Vec<Entity>,
}

impl InstanceChanges {
    /// Lists `entities` for extraction (all of them read again, as after a device loss).
    pub(crate) fn touch_all(&mut self, entities: impl IntoIterator<Item = Entity>) {
        self.touched.extend(entities);
    }
}

/// The hook on every instance component: lists the entity for extraction.
pub(crate) fn touch_instance(mut world: DeferredWorld<'_>, ctx: HookContext) {
    if let Some(mut changes) = world.get_resource_mut::<InstanceChanges>() {
        changes.touched.push(ctx.entity);
    }
}

/// The frame being rendered.
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedFrame {
    /// Frames since the app started (the main world's count).
    pub frame: u64,
    /// Seconds since the app started (wall clock or the fixed step).
    pub time: f32,
    /// The main target's size.
    pub size: (u32, u32),
    /// When extraction of this frame began (the render side's frame time is measured from
    /// here to the end of readback).
    pub started: Option<std::time::Instant>,
}

/// The camera that draws this frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtractedCameraView {
    /// World from view.
    pub world_from_view: Mat4,
    /// The projection.
    pub projection: Projection,
    /// Exposure multiplier.
    pub exposure: f32,
    /// Tone curve.
    pub tonemapping: Tonemapping,
    /// Linear clear colour.
    pub clear_color: [f32; 4],
    /// Where it draws.
    pub target: RenderTarget,
}

/// The active camera with the lowest order, if any.
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedCamera(pub Option<ExtractedCameraView>);

/// The directional light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExtractedDirectional {
    /// The direction light travels (unit).
    pub direction: Vec3,
    /// Colour times illuminance.
    pub radiance: [f32; 3],
    /// Shadow settings.
    pub shadows: Option<ShadowSettings>,
}

/// A point light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExtractedPoint {
    /// World position.
    pub position: Vec3,
    /// Colour times intensity.
    pub radiance: [f32; 3],
    /// Fade-out distance.
    pub range: f32,
    /// Radius.
    pub radius: f32,
}

/// The lights of this frame.
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedLights {
    /// The first directional light.
    pub directional: Option<ExtractedDirectional>,
    /// Up to 8 point lights.
    pub points: Vec<ExtractedPoint>,
}

/// The environment, and whether it changed this frame.
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedEnvironment {
    /// The first environment found.
    pub environment: Option<Environment>,
    /// True on the frames it was added, edited or removed.
    pub changed: bool,
}

/// Asset changes waiting for prepare.
#[derive(Resource, Default)]
pub struct ExtractedAssets {
    /// Meshes added or edited (slot, generation, copy).
    pub meshes: Vec<(u32, u32, Mesh)>,
    /// Mesh slots emptied.
    pub removed_meshes: Vec<u32>,
    /// Images added or edited.
    pub images: Vec<(u32, u32, Image)>,
    /// Image slots emptied.
    pub removed_images: Vec<u32>,
    /// Materials added or edited.
    pub materials: Vec<(u32, u32, Material)>,
    /// Material slots emptied.
    pub removed_materials: Vec<u32>,
}

/// Screenshot requests taken from the main world this frame.
#[derive(Resource, Default)]
pub struct ExtractedScreenshots(pub Vec<ScreenshotRequest>);

fn query_state<'a, D: bevy_ecs::query::QueryData, F: QueryFilter>(
    local: &'a mut Option<QueryState<D, F>>,
    world: &mut World,
) -> &'a mut QueryState<D, F> {
    local.get_or_insert_with(|| QueryState::new(world))
}

/// Copies the frame counter, clock and target size.
pub fn extract_frame(main: Res<MainWorld>, mut frame: ResMut<ExtractedFrame>) {
    frame.started = Some(std::time::Instant::now());
    if let Some(clock) = main.get_resource::<FrameClock>() {
        frame.frame = clock.frame;
        frame.time = clock.time as f32;
    }
    if let Some(settings) = main.get_resource::<RenderSettings>() {
        frame.size = settings.size;
    }
}

/// Picks the active camera with the lowest order.
#[allow(clippy::type_complexity)]
pub fn extract_camera(
    mut main: ResMut<MainWorld>,
    mut state: Local<Option<QueryState<(&Camera3d, &GlobalTransform)>>>,
    mut out: ResMut<ExtractedCamera>,
) {
    let state = query_state(&mut *state, &mut main);
    out.0 = state.query(&main).iter().filter(|(c, _)| c.active).min_by_key(|(c, _)| c.order).map(|(c, t)| {
        ExtractedCameraView {
            world_from_view: t.to_matrix(),
            projection: c.projection,
            exposure: c.exposure,
            tonemapping: c.tonemapping,
            clear_color: c.clear_color,
            target: c.target,
        }
    });
}

/// Copies the first directional light and up to eight point lights.
#[allow(clippy::type_complexity)]
pub fn extract_lights(
    mut main: ResMut<MainWorld>,
    mut suns: Local<Option<QueryState<(&DirectionalLight, &GlobalTransform)>>>,
    mut points: Local<Option<QueryState<(&PointLight, &GlobalTransform)>>>,
    mut out: ResMut<ExtractedLights>,
) {
    let suns = query_state(&mut *suns, &mut main);
    out.directional = suns.query(&main).iter().next().map(|(l, t)| ExtractedDirectional {
        direction: t.forward().as_vec3(),
        radiance: l.color.map(|c| c * l.illuminance),
        shadows: l.shadows,
    });
    let points = query_state(&mut *points, &mut main);
    out.points.clear();
    out.points.extend(points.query(&main).iter().take(8).map(|(l, t)| ExtractedPoint {
        position: t.translation(),
        radiance: l.color.map(|c| c * l.intensity),
        range: l.range,
        radius: l.radius,
    }));
}

/// Copies the environment when it changed.
pub fn extract_environment(
    mut main: ResMut<MainWorld>,
    mut state: Local<Option<QueryState<Ref<Environment>>>>,
    mut out: ResMut<ExtractedEnvironment>,
) {
    let state = query_state(&mut *state, &mut main);
    let found = state.query(&main).iter().next().map(|e| (e.is_changed(), Environment::clone(&e)));
    out.changed = match found {
        Some((changed, env)) => {
            let differs = out.environment.as_ref() != Some(&env);
            if changed && differs {
                out.environment = Some(env);
            }
            changed && differs
        }
        None => out.environment.take().is_some(),
    };
}

fn drain<T: Clone + Send + Sync + 'static>(
    main: &mut World,
    changed: &mut Vec<(u32, u32, T)>,
    removed: &mut Vec<u32>,
) {
    if let Some(mut assets) = main.get_resource_mut::<Assets<T>>() {
        assets.bypass_change_detection().drain_changes(|c| match c {
            AssetChange::Changed(h, v) => changed.push((h.index(), h.generation(), v.clone())),
            AssetChange::Removed(i) => removed.push(i),
        });
    }
}

/// Takes the asset changes of meshes, images and materials.
pub fn extract_assets(mut main: ResMut<MainWorld>, mut out: ResMut<ExtractedAssets>) {
    let out = &mut *out;
    drain(&mut main, &mut out.meshes, &mut out.removed_meshes);
    drain(&mut main, &mut out.images, &mut out.removed_images);
    drain(&mut main, &mut out.materials, &mut out.removed_materials);
}

type InstanceData = (
    &'static Mesh3d,
    &'static MeshMaterial,
    &'static GlobalTransform,
    Option<&'static Visibility>,
    Has<NotShadowCaster>,
);

/// Updates `RenderInstances`: entities listed by the hooks are re-read; changed transforms
/// are copied (by a scan of the change-tick column; see the module docs).
pub fn extract_instances(
    mut main: ResMut<MainWorld>,
    mut touched_state: Local<Option<QueryState<InstanceData>>>,
    mut touched: Local<Vec<Entity>>,
    mut instances: ResMut<RenderInstances>,
    materials: Res<RenderMaterials>,
) {
    if let Some(mut changes) = main.get_resource_mut::<InstanceChanges>() {
        std::mem::swap(&mut *touched, &mut changes.bypass_change_detection().touched);
    }
    let instances = &mut *instances;
    if !touched.is_empty() {
        let touched_state = query_state(&mut *touched_state, &mut main);
        let query = touched_state.query(&main);
        for &entity in touched.iter() {
            match query.get(entity) {
                Ok((mesh, material, transform, visibility, no_shadow))
                    if visibility.is_none_or(|v| *v == Visibility::Visible) =>
                {
                    let material = material.0.index();
                    let (table, slot) = materials.tables.place_of(material);
                    let key = BatchKey { mesh: mesh.0.index(), table, casts_shadows: !no_shadow };
                    instances.insert(entity, key, material, slot, instance_rows(&transform.affine()));
                }
                _ => instances.remove(entity),
            }
        }
        touched.clear();
    }
    copy_moved_transforms(&main, instances);
}

/// Ticks compared per step of the changed-transform scan.
const SCAN_CHUNK: usize = 64;

/// Steps with a moved transform that one thread copies: more are split across rayon's
/// threads (a piece costs a few microseconds to hand out; 512 steps of moved transforms,
/// 32k entities, take ~0.3 ms).
const PARALLEL_STEPS: usize = 512;

/// Copies every `GlobalTransform` of a mesh entity that changed since the main world's last
/// `clear_trackers` into [`RenderInstances`] (what `Changed<GlobalTransform>` would find).
///
/// A query with `Changed<GlobalTransform>` reads each entity's tick one at a time (~8
/// instructions per entity even when nothing moved: 13 M for 1.6 M static cubes). This reads
/// the tick column of each table that holds mesh entities as a slice, 64 ticks to a
/// vectorised step, and looks at an entity only inside a step that found a change, so a
/// static frame costs about one instruction per 8 entities and a moved transform is one
/// location lookup and a 48-byte store. When more than [`PARALLEL_STEPS`] steps of a table
/// found a change, the copies are split across rayon's threads: they are bound by memory
/// traffic (~200 bytes per moved entity), which one core alone does not saturate.
fn copy_moved_transforms(main: &World, instances: &mut RenderInstances) {
    let (Some(transform_id), Some(mesh_id)) =
        (main.component_id::<GlobalTransform>(), main.component_id::<Mesh3d>())
    else {
        return;
    };
    let last_run = main.last_change_tick().get();
    let this_run = main.read_change_tick().get();
    // `Tick::is_newer_than` in a form that vectorises: it clamps both ages to
    // `MAX_CHANGE_AGE`, and since `since_last_run` is clamped, an age clamped to it is never
    // below it, so comparing the unclamped age answers the same.
    let since_last_run = this_run.wrapping_sub(last_run).min(MAX_CHANGE_AGE);
    let changed = |tick: Tick| this_run.wrapping_sub(tick.get()) < since_last_run;
    let mut tables: Vec<_> = main
        .archetypes()
        .iter()
        .filter(|a| !a.is_empty() && a.contains(mesh_id) && a.contains(transform_id))
        .map(|a| a.table_id())
        .collect();
    tables.sort_unstable_by_key(|t| t.as_usize());
    tables.dedup();
    let writer = instances.transform_writer();
    let mut dirty = writer.dirty_ranges();
    let mut moved_steps = Vec::new();
    for id in tables {
        let Some(table) = main.storages().tables.get(id) else { continue };
        let Some(ticks) = table.get_changed_ticks_slice_for(transform_id) else { continue };
        // SAFETY: `transform_id` is `GlobalTransform`'s id in this world, so the column holds
        // `GlobalTransform`s (and the slice is as long as the table).
        let Some(transforms) = (unsafe { table.get_data_slice_for::<GlobalTransform>(transform_id) }) else {
            continue;
        };
        // SAFETY: `UnsafeCell<T>` has `T`'s layout, and nothing writes these columns while
        // the main world is lent to extraction (this system holds it through `ResMut`, and
        // `main` borrows it for the whole scan), so shared references are sound.
        let (ticks, transforms) = unsafe {
            (
                &*(std::ptr::from_ref(ticks) as *const [Tick]),
                &*(std::ptr::from_ref(transforms) as *const [GlobalTransform]),
            )
        };
        let entities = table.entities();
        // First the ticks alone (4 bytes per entity, 64 to a vectorised step): which steps
        // hold a change.
        moved_steps.clear();
        for (step, ticks) in ticks.chunks(SCAN_CHUNK).enumerate() {
            if ticks.iter().fold(false, |any, &t| any | changed(t)) {
                moved_steps.push(step);
            }
        }
        // Then the entities of those steps.
        let copy = |steps: &[usize], dirty: &mut DirtyRanges| {
            for &step in steps {
                let start = step * SCAN_CHUNK;
                for (row, &tick) in ticks[start..ticks.len().min(start + SCAN_CHUNK)].iter().enumerate() {
                    if changed(tick) {
                        let row = start + row;
                        // SAFETY: every row of every table is a distinct entity, and each
                        // row is copied once, so no entity is written twice.
                        unsafe { writer.set(entities[row], instance_rows(&transforms[row].affine()), dirty) };
                    }
                }
            }
        };
        if moved_steps.len() <= PARALLEL_STEPS {
            copy(&moved_steps, &mut dirty);
        } else {
            let found = moved_steps
                .par_chunks(PARALLEL_STEPS)
                .map(|steps| {
                    let mut dirty = writer.dirty_ranges();
                    copy(steps, &mut dirty);
                    dirty
                })
                .reduce(|| writer.dirty_ranges(), DirtyRanges::merge);
            dirty = dirty.merge(found);
        }
    }
    instances.mark_dirty(dirty);
}

/// Takes screenshot requests (the request entities are despawned).
pub fn extract_screenshots(
    mut main: ResMut<MainWorld>,
    mut state: Local<Option<QueryState<(Entity, &Screenshot)>>>,
    mut out: ResMut<ExtractedScreenshots>,
) {
    let state = query_state(&mut *state, &mut main);
    let found: Vec<(Entity, Screenshot)> = state.query(&main).iter().map(|(e, s)| (e, s.clone())).collect();
    let frame = main.get_resource::<FrameClock>().map_or(0, |c| c.frame);
    for (entity, shot) in found {
        main.despawn(entity);
        out.0.push(ScreenshotRequest { shot, frame });
    }
}

#[cfg(test)]
mod tests {
    use bevy_math::Vec3;
    use bevy_transform::components::Transform;

    use super::*;
    use crate::assets::Assets;
    use crate::mesh::shapes;

    /// `count` mesh entities in one table, each with an instance in one batch, trackers
    /// cleared (so nothing counts as moved yet).
    fn world_with_instances(count: usize) -> (World, Vec<Entity>, RenderInstances) {
        let mut world = World::new();
        let mesh = Assets::<Mesh>::default().add(shapes::cube(0.5));
        let entities: Vec<Entity> = (0..count)
            .map(|i| world.spawn((Mesh3d(mesh), GlobalTransform::from_xyz(i as f32, 0.0, 0.0))).id())
            .collect();
        let mut instances = RenderInstances::default();
        let key = BatchKey { mesh: 0, table: 0, casts_shadows: true };
        for &e in &entities {
            let rows = instance_rows(&world.get::<GlobalTransform>(e).unwrap().affine());
            instances.insert(e, key, 0, 0, rows);
        }
        instances.batches[0].dirty = None;
        world.clear_trackers();
        (world, entities, instances)
    }

    fn moved(i: usize) -> GlobalTransform {
        GlobalTransform::from(Transform::from_xyz(i as f32, 5.0, -1.0).with_scale(Vec3::splat(2.0)))
    }

    /// The scan finds exactly the moved transforms, in one piece and split across threads.
    #[test]
    fn moved_transforms_are_copied_and_only_they() {
        // Below and well above the size at which a table is split across threads.
        for count in [1000, PARALLEL_STEPS * SCAN_CHUNK * 3 + 123] {
            let (mut world, entities, mut instances) = world_with_instances(count);
            // Untouched: nothing is copied and nothing becomes dirty.
            copy_moved_transforms(&world, &mut instances);
            assert_eq!(instances.batches[0].dirty, None, "{count}: a static scan marked instances dirty");

            // Every 97th entity moves, plus the first and last rows of a split piece.
            let chosen: Vec<usize> = (0..count)
                .filter(|i| {
                    i % 97 == 0 || *i == count - 1 || *i == (PARALLEL_STEPS * SCAN_CHUNK).min(count - 1)
                })
                .collect();
            for &i in &chosen {
                *world.get_mut::<GlobalTransform>(entities[i]).unwrap() = moved(i);
            }
            copy_moved_transforms(&world, &mut instances);
            let batch = &instances.batches[0];
            assert_eq!(batch.entities, entities, "{count}: instances are in spawn order");
            for (i, rows) in batch.transforms.iter().enumerate() {
                let expected = if chosen.contains(&i) {
                    moved(i)
                } else {
                    GlobalTransform::from_xyz(i as f32, 0.0, 0.0)
                };
                assert_eq!(*rows, instance_rows(&expected.affine()), "{count}: entity {i}");
            }
            let lowest = chosen.iter().copied().min().unwrap();
            let highest = chosen.iter().copied().max().unwrap();
            assert_eq!(
                batch.dirty,
                Some(lowest..highest + 1),
                "{count}: the dirty range spans the moved slots"
            );
        }
    }
}
