//! Extraction: copies what changed in the main world into the render world.
//!
//! * Mesh instances: [`Mesh3d`], [`MeshMaterial`], [`Visibility`] and [`NotShadowCaster`]
//!   are immutable components whose hooks list the entity in [`InstanceChanges`]; only those
//!   entities are looked at again. Transforms are found with `Changed<GlobalTransform>`, and
//!   each changed one is a 48-byte store into [`RenderInstances`]. A static scene extracts
//!   no instance data at all.
//! * Assets: each `Assets<T>` lists what was added, edited or removed; only those are
//!   cloned across.
//! * Cameras, lights, the environment and screenshot requests are few and copied each frame
//!   (the environment only when it changed).

use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryFilter;
use bevy_ecs::world::DeferredWorld;
use bevy_math::{Mat4, Vec3};
use bevy_transform::components::GlobalTransform;

use super::MainWorld;
use super::instances::{BatchKey, RenderInstances, instance_rows};
use crate::assets::{AssetChange, Assets};
use crate::camera::{Camera3d, Projection, RenderTarget, Tonemapping};
use crate::environment::Environment;
use crate::image::Image;
use crate::light::{DirectionalLight, PointLight, ShadowSettings};
use crate::material::{Material, MeshMaterial, NotShadowCaster};
use crate::mesh::{Mesh, Mesh3d};
use crate::plugin::{FrameClock, RenderSettings};
use crate::screenshot::{Screenshot, ScreenshotRequest};
use crate::visibility::Visibility;

/// Entities whose instance components were inserted, replaced or removed since the last
/// extraction (a main-world resource filled by component hooks).
#[derive(Resource, Default)]
pub struct InstanceChanges {
    touched: Vec<Entity>,
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

/// Updates [`RenderInstances`]: entities listed by the hooks are re-read; changed transforms
/// are copied.
#[allow(clippy::type_complexity)]
pub fn extract_instances(
    mut main: ResMut<MainWorld>,
    mut touched_state: Local<Option<QueryState<InstanceData>>>,
    mut moved_state: Local<
        Option<QueryState<(Entity, &GlobalTransform), (Changed<GlobalTransform>, With<Mesh3d>)>>,
    >,
    mut touched: Local<Vec<Entity>>,
    mut instances: ResMut<RenderInstances>,
) {
    if let Some(mut changes) = main.get_resource_mut::<InstanceChanges>() {
        std::mem::swap(&mut *touched, &mut changes.bypass_change_detection().touched);
    }
    let instances = &mut *instances;
    let touched_state = query_state(&mut *touched_state, &mut main);
    let query = touched_state.query(&main);
    for &entity in touched.iter() {
        match query.get(entity) {
            Ok((mesh, material, transform, visibility, no_shadow))
                if visibility.is_none_or(|v| *v == Visibility::Visible) =>
            {
                let key = BatchKey {
                    mesh: mesh.0.index(),
                    material: material.0.index(),
                    casts_shadows: !no_shadow,
                };
                instances.insert(entity, key, instance_rows(&transform.affine()));
            }
            _ => instances.remove(entity),
        }
    }
    touched.clear();
    let moved_state = query_state(&mut *moved_state, &mut main);
    for (entity, transform) in moved_state.query(&main).iter() {
        instances.set_transform(entity, instance_rows(&transform.affine()));
    }
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
