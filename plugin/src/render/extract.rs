//! Extraction: copies what changed in the main world into the render world.
//!
//! * Mesh instances: hooks on [`Mesh3d`], [`MeshMaterial3d`] and [`NotShadowCaster`] list
//!   an entity in [`InstanceChanges`] when one is inserted, replaced or removed; a `Mesh3d`
//!   edited in place, or a `ViewVisibility` that bevy_camera's culling flipped, is found by
//!   a scan of that component's change ticks; only those entities are looked at again. Moved transforms are found by scanning the change ticks of
//!   `GlobalTransform`'s column in the tables holding mesh entities, 64 to a vectorised step
//!   (what `Changed<GlobalTransform>` finds, at a small fraction of its cost per unchanged
//!   entity), and each one found is a 48-byte store into `RenderInstances`. A static scene
//!   extracts no instance data at all.
//! * Assets: the `AssetEvent`s of meshes, images and materials say what was added, edited or
//!   removed; only those are converted across, into slots of [`RenderAssetIds`].
//! * Cameras, lights, the environment and screenshot requests are few and copied each frame
//!   (the environment only when it changed).

use std::collections::HashMap;

use bevy_asset::{Asset, AssetEvent, AssetId, Assets, UntypedAssetId};
use bevy_camera::visibility::ViewVisibility;
use bevy_camera::{Camera, Camera3d, ClearColor, ClearColorConfig, Exposure, Projection, RenderTarget};
use bevy_color::{ColorToComponents, LinearRgba};
use bevy_ecs::change_detection::{MAX_CHANGE_AGE, Tick};
use bevy_ecs::component::ComponentId;
use bevy_ecs::lifecycle::HookContext;
use bevy_ecs::message::{MessageCursor, Messages};
use bevy_ecs::prelude::*;
use bevy_ecs::query::QueryFilter;
use bevy_ecs::storage::TableId;
use bevy_ecs::world::DeferredWorld;
use bevy_image::Image;
use bevy_light::{
    DirectionalLight, DirectionalLightShadowMap, GlobalAmbientLight, NotShadowCaster, PointLight, SpotLight,
};
use bevy_math::{Mat4, Vec3};
use bevy_mesh::{Mesh, Mesh3d};
use bevy_transform::components::GlobalTransform;

use super::MainWorld;
use rayon::prelude::*;

use super::instances::{BatchKey, DirtyRanges, RenderInstances, instance_rows};
use crate::camera::{Msaa, Tonemapping, clip_from_view, exposure_multiplier, target_size};
use crate::environment::Environment;
use crate::image::ImageData;
use crate::light::{ShadowBox, ShadowSettings};
use crate::material::{
    CustomMaterial, Material, MaterialSource, MeshMaterial3d, ShaderMaterial, StandardMaterial,
};
use crate::mesh::MeshData;
use crate::render::prepare::RenderMaterials;
use crate::resources::{FrameClock, RenderSettings};
use crate::screenshot::{Screenshot, ScreenshotRequest};
use crate::window::WindowTargets;

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
    /// Clip from view (depth 0 near, 1 far; [`clip_from_view`]).
    pub clip_from_view: Mat4,
    /// The multiplier of the camera's `Exposure`: lights and the environment are pre-exposed
    /// with it during extraction.
    pub exposure: f32,
    /// Tone curve.
    pub tonemapping: Tonemapping,
    /// Multisampling asked for.
    pub msaa: Msaa,
    /// Linear clear colour.
    pub clear_color: [f32; 4],
    /// The size of what it draws into (pixels).
    pub size: (u32, u32),
    /// Whether it draws to a window, or headless to the main target: `RenderTarget::Window`.
    pub to_window: bool,
    /// The window entity it presents on (`None` headless and for image targets).
    pub window: Option<Entity>,
    /// The camera's `order`: cameras draw in ascending order.
    pub order: isize,
    /// The render-world slot of the image it draws into (`RenderTarget::Image`), which
    /// materials of later cameras may sample.
    pub target_image: Option<u32>,
}

/// The view being drawn: while the render world's [`Render`](crate::render::Render)
/// schedule runs for a camera, that camera (`None` when no camera is active).
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedCamera(pub Option<ExtractedCameraView>);

/// Every active 3D camera of the frame, in the order they draw (ascending `order`, ties in
/// spawn order).
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedCameras(pub Vec<ExtractedCameraView>);

/// The directional light.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExtractedDirectional {
    /// The direction light travels (unit).
    pub direction: Vec3,
    /// Linear colour times illuminance times the camera's exposure.
    pub radiance: [f32; 3],
    /// Shadow settings.
    pub shadows: Option<ShadowSettings>,
}

/// A point light, or a spot light (a point light with a cone).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExtractedPoint {
    /// World position.
    pub position: Vec3,
    /// Linear colour times intensity in candela (lumens / 4π) times the camera's exposure.
    pub radiance: [f32; 3],
    /// Fade-out distance.
    pub range: f32,
    /// Radius.
    pub radius: f32,
    /// A spot light's axis (unit); zero for a point light.
    pub spot_direction: Vec3,
    /// Cone falloff scale: 1 / (cos inner − cos outer); 0 for a point light.
    pub spot_scale: f32,
    /// Cone falloff offset: −cos outer × scale; 1 for a point light.
    pub spot_offset: f32,
}

/// The lights of this frame, pre-exposed.
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedLights {
    /// The first directional light.
    pub directional: Option<ExtractedDirectional>,
    /// Up to 8 point and spot lights (points first).
    pub points: Vec<ExtractedPoint>,
    /// Ambient radiance where no environment lights the scene (Bevy's `GlobalAmbientLight`),
    /// exposed.
    pub ambient: [f32; 3],
    /// The camera's exposure multiplier (the environment's intensity is scaled by it).
    pub exposure: f32,
}

impl ExtractedLights {
    /// Scales the pre-exposed radiances from the current exposure to `exposure` (another
    /// camera's).
    pub fn reexpose(&mut self, exposure: f32) {
        if self.exposure == exposure || self.exposure == 0.0 {
            self.exposure = exposure;
            return;
        }
        let k = exposure / self.exposure;
        let scale = |rgb: &mut [f32; 3]| rgb.iter_mut().for_each(|c| *c *= k);
        if let Some(d) = &mut self.directional {
            scale(&mut d.radiance);
        }
        self.points.iter_mut().for_each(|p| scale(&mut p.radiance));
        scale(&mut self.ambient);
        self.exposure = exposure;
    }
}

/// The environment, and whether it changed this frame.
#[derive(Resource, Clone, Debug, Default)]
pub struct ExtractedEnvironment {
    /// The first environment found.
    pub environment: Option<Environment>,
    /// True on the frames it was added, edited or removed.
    pub changed: bool,
}

/// Asset changes waiting for prepare. Assets are named by their dense render-world slot
/// ([`RenderAssetIds`]).
#[derive(Resource, Default)]
pub struct ExtractedAssets {
    /// Meshes added or edited (slot, what the render world draws or why it cannot).
    pub meshes: Vec<(u32, Result<MeshData, String>)>,
    /// Mesh slots emptied.
    pub removed_meshes: Vec<u32>,
    /// Images added or edited.
    pub images: Vec<(u32, Result<ImageData, String>)>,
    /// Image slots emptied.
    pub removed_images: Vec<u32>,
    /// Materials added or edited.
    pub materials: Vec<(u32, MaterialSource)>,
    /// Material slots emptied.
    pub removed_materials: Vec<u32>,
}

/// Dense `u32` slots for asset ids, handed out on first sight and reused once the asset is
/// removed: render-world tables are indexed by them.
#[derive(Default, Debug)]
pub struct AssetSlots {
    map: HashMap<UntypedAssetId, u32>,
    free: Vec<u32>,
    next: u32,
}

impl AssetSlots {
    /// The slot of `id`, handed out now if it has none.
    pub fn slot(&mut self, id: impl Into<UntypedAssetId>) -> u32 {
        let id = id.into();
        if let Some(&slot) = self.map.get(&id) {
            return slot;
        }
        let slot = self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        });
        self.map.insert(id, slot);
        slot
    }

    /// The slot of `id`, if it has one.
    pub fn get(&self, id: impl Into<UntypedAssetId>) -> Option<u32> {
        self.map.get(&id.into()).copied()
    }

    /// Frees the slot of `id` (the asset was removed).
    pub fn release(&mut self, id: impl Into<UntypedAssetId>) -> Option<u32> {
        let slot = self.map.remove(&id.into())?;
        self.free.push(slot);
        Some(slot)
    }

    /// How many ids hold a slot.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no id holds a slot.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The render world's slots for the main world's asset ids.
#[derive(Resource, Default, Debug)]
pub struct RenderAssetIds {
    /// `Mesh` ids.
    pub meshes: AssetSlots,
    /// `Image` ids.
    pub images: AssetSlots,
    /// Material ids (`StandardMaterial`, `CustomMaterial` and `ShaderMaterial` share one space).
    pub materials: AssetSlots,
}

/// Set in the render world to take every asset of the main world again at the next
/// extraction (after a device loss), instead of only those with events.
#[derive(Resource, Default, Debug)]
pub struct ExtractEveryAsset(pub bool);

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

type CameraData = (
    &'static Camera,
    &'static GlobalTransform,
    Option<&'static Projection>,
    Option<&'static RenderTarget>,
    Option<&'static Exposure>,
    Option<&'static Tonemapping>,
    Option<&'static Msaa>,
);

/// Copies every active 3D camera, in drawing order; the first is the current view while
/// the rest of extraction runs (lights are exposed with its exposure and re-exposed per view).
pub fn extract_camera(
    mut main: ResMut<MainWorld>,
    mut state: Local<Option<QueryState<CameraData, With<Camera3d>>>>,
    mut ids: ResMut<RenderAssetIds>,
    mut out: ResMut<ExtractedCamera>,
    mut all: ResMut<ExtractedCameras>,
) {
    let state = query_state(&mut *state, &mut main);
    let main_size = main.get_resource::<RenderSettings>().map_or((1, 1), |s| s.size);
    let no_windows = WindowTargets::default();
    let windows = main.get_resource::<WindowTargets>().unwrap_or(&no_windows);
    let default_clear = main.get_resource::<ClearColor>().map_or(ClearColor::default().0, |c| c.0);
    all.0.clear();
    let Some(images) = main.get_resource::<Assets<Image>>() else {
        out.0 = None;
        return;
    };
    for (camera, transform, projection, target, exposure, tonemapping, msaa) in state.query(&main).iter() {
        if !camera.is_active {
            continue;
        }
        let Some(size) = target_size(target, main_size, windows, images) else { continue };
        let clear = match camera.clear_color {
            ClearColorConfig::Custom(c) => c,
            ClearColorConfig::Default | ClearColorConfig::None => default_clear,
        };
        let target_image = match target {
            Some(RenderTarget::Image(t)) => Some(ids.images.slot(t.handle.id())),
            _ => None,
        };
        all.0.push(ExtractedCameraView {
            world_from_view: transform.to_matrix(),
            clip_from_view: clip_from_view(&projection.cloned().unwrap_or_default()),
            exposure: exposure_multiplier(exposure),
            tonemapping: tonemapping.copied().unwrap_or_default(),
            msaa: msaa.copied().unwrap_or_default(),
            clear_color: LinearRgba::from(clear).to_f32_array(),
            size: (size.x, size.y),
            to_window: matches!(target, None | Some(RenderTarget::Window(_))),
            window: windows.window_of(target),
            order: camera.order,
            target_image,
        });
    }
    // Stable: cameras of the same order keep the query's (spawn) order.
    all.0.sort_by_key(|c| c.order);
    out.0 = all.0.first().cloned();
}

/// 1 / 4π: lumens of an isotropic point light to candela.
const LUMENS_TO_CANDELA: f32 = 1.0 / (4.0 * std::f32::consts::PI);

/// Copies the first directional light and up to eight point and spot lights, exposed with
/// the camera's exposure (extracted just before).
#[allow(clippy::type_complexity)]
pub fn extract_lights(
    mut main: ResMut<MainWorld>,
    mut suns: Local<Option<QueryState<(&DirectionalLight, &GlobalTransform, Option<&ShadowBox>)>>>,
    mut points: Local<Option<QueryState<(&PointLight, &GlobalTransform)>>>,
    mut spots: Local<Option<QueryState<(&SpotLight, &GlobalTransform)>>>,
    camera: Res<ExtractedCamera>,
    mut out: ResMut<ExtractedLights>,
) {
    let exposure = camera.0.as_ref().map_or_else(|| exposure_multiplier(None), |c| c.exposure);
    let rgb = |c: LinearRgba, scale: f32| [c.red * scale, c.green * scale, c.blue * scale];
    let map_size = main.get_resource::<DirectionalLightShadowMap>().map_or(2048, |m| m.size as u32);
    let (eye, forward) = camera.0.as_ref().map_or((Vec3::ZERO, Vec3::NEG_Z), |c| {
        (c.world_from_view.w_axis.truncate(), -c.world_from_view.z_axis.truncate().normalize_or_zero())
    });
    let suns = query_state(&mut *suns, &mut main);
    out.directional = suns.query(&main).iter().next().map(|(l, t, shadow_box)| {
        let fitted = ShadowBox {
            half_extent: ShadowBox::DEFAULT_DISTANCE * 0.5,
            center: eye + forward * ShadowBox::DEFAULT_DISTANCE * 0.5,
        };
        let b = shadow_box.copied().unwrap_or(fitted);
        ExtractedDirectional {
            direction: t.forward().as_vec3(),
            radiance: rgb(l.color.into(), l.illuminance * exposure),
            shadows: l.shadow_maps_enabled.then(|| ShadowSettings {
                map_size,
                half_extent: b.half_extent,
                center: b.center,
                // Bevy's bias is in world units; the box's depth runs over 4 half extents.
                depth_bias: l.shadow_depth_bias / (4.0 * b.half_extent.max(1e-3)),
                normal_bias: l.shadow_normal_bias,
            }),
        }
    });
    let points = query_state(&mut *points, &mut main);
    out.points.clear();
    out.points.extend(points.query(&main).iter().take(8).map(|(l, t)| ExtractedPoint {
        position: t.translation(),
        radiance: rgb(l.color.into(), l.intensity * LUMENS_TO_CANDELA * exposure),
        range: l.range,
        radius: l.radius,
        spot_direction: Vec3::ZERO,
        spot_scale: 0.0,
        spot_offset: 1.0,
    }));
    let room = 8usize.saturating_sub(out.points.len());
    let spots = query_state(&mut *spots, &mut main);
    out.points.extend(spots.query(&main).iter().take(room).map(|(l, t)| {
        let (cos_outer, cos_inner) = (l.outer_angle.cos(), l.inner_angle.min(l.outer_angle).cos());
        let spot_scale = 1.0 / (cos_inner - cos_outer).max(1e-4);
        ExtractedPoint {
            position: t.translation(),
            // Bevy's spot intensity is that of a point light of the same lumens.
            radiance: rgb(l.color.into(), l.intensity * LUMENS_TO_CANDELA * exposure),
            range: l.range,
            radius: l.radius,
            spot_direction: t.forward().as_vec3(),
            spot_scale,
            spot_offset: -cos_outer * spot_scale,
        }
    }));
    let ambient = main.get_resource::<GlobalAmbientLight>().cloned().unwrap_or_default();
    out.ambient = rgb(ambient.color.into(), ambient.brightness * exposure);
    out.exposure = exposure;
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

/// Where each asset type's event reader stands.
#[derive(Default)]
pub struct AssetCursors {
    meshes: MessageCursor<AssetEvent<Mesh>>,
    images: MessageCursor<AssetEvent<Image>>,
    standard: MessageCursor<AssetEvent<StandardMaterial>>,
    custom: MessageCursor<AssetEvent<CustomMaterial>>,
    shader: MessageCursor<AssetEvent<ShaderMaterial>>,
}

/// The ids of `A` added or edited since the last look (or every asset after a device loss),
/// and those removed, in the order their events came.
fn asset_changes<A: Asset>(
    main: &World,
    cursor: &mut MessageCursor<AssetEvent<A>>,
    every: bool,
) -> (Vec<AssetId<A>>, Vec<AssetId<A>>) {
    let (mut changed, mut removed) = (Vec::new(), Vec::new());
    if let Some(messages) = main.get_resource::<Messages<AssetEvent<A>>>() {
        for event in cursor.read(messages) {
            match *event {
                AssetEvent::Added { id } | AssetEvent::Modified { id } => {
                    removed.retain(|r| *r != id);
                    changed.push(id);
                }
                AssetEvent::Removed { id } => {
                    changed.retain(|c| *c != id);
                    removed.push(id);
                }
                _ => {}
            }
        }
    }
    if every && let Some(assets) = main.get_resource::<Assets<A>>() {
        changed = assets.ids().collect();
    }
    changed.sort_unstable();
    changed.dedup();
    (changed, removed)
}

/// Takes the meshes, images and materials added, edited or removed since the last frame
/// (from their `AssetEvent`s), converted for the render world.
pub fn extract_assets(
    main: Res<MainWorld>,
    mut cursors: Local<AssetCursors>,
    mut every: ResMut<ExtractEveryAsset>,
    mut ids: ResMut<RenderAssetIds>,
    mut out: ResMut<ExtractedAssets>,
) {
    let (out, ids, cursors) = (&mut *out, &mut *ids, &mut *cursors);
    let every = std::mem::take(&mut every.0);
    let (changed, removed) = asset_changes(&main, &mut cursors.meshes, every);
    out.removed_meshes.extend(removed.into_iter().filter_map(|id| ids.meshes.release(id)));
    if let Some(assets) = main.get_resource::<Assets<Mesh>>() {
        for id in changed {
            if let Some(mesh) = assets.get(id) {
                let slot = ids.meshes.slot(id);
                out.meshes.push((slot, MeshData::from_bevy(mesh).map_err(|e| e.to_string())));
            }
        }
    }
    let (changed, removed) = asset_changes(&main, &mut cursors.images, every);
    out.removed_images.extend(removed.into_iter().filter_map(|id| ids.images.release(id)));
    if let Some(assets) = main.get_resource::<Assets<Image>>() {
        for id in changed {
            if let Some(image) = assets.get(id) {
                let slot = ids.images.slot(id);
                out.images.push((slot, ImageData::from_bevy(image)));
            }
        }
    }
    materials_of::<StandardMaterial>(&main, &mut cursors.standard, every, ids, out);
    materials_of::<CustomMaterial>(&main, &mut cursors.custom, every, ids, out);
    materials_of::<ShaderMaterial>(&main, &mut cursors.shader, every, ids, out);
}

fn materials_of<M: Material>(
    main: &World,
    cursor: &mut MessageCursor<AssetEvent<M>>,
    every: bool,
    ids: &mut RenderAssetIds,
    out: &mut ExtractedAssets,
) {
    let (changed, removed) = asset_changes(main, cursor, every);
    out.removed_materials.extend(removed.into_iter().filter_map(|id| ids.materials.release(id)));
    if let Some(assets) = main.get_resource::<Assets<M>>() {
        for id in changed {
            if let Some(material) = assets.get(id) {
                out.materials.push((ids.materials.slot(id), material.source()));
            }
        }
    }
}

type InstanceData = (
    &'static Mesh3d,
    Option<&'static MeshMaterial3d<StandardMaterial>>,
    Option<&'static MeshMaterial3d<CustomMaterial>>,
    Option<&'static MeshMaterial3d<ShaderMaterial>>,
    &'static GlobalTransform,
    Option<&'static ViewVisibility>,
    Has<NotShadowCaster>,
);

/// Updates `RenderInstances`: entities listed by the hooks, and those whose `Mesh3d` or
/// `ViewVisibility` changed (found by a scan of their change ticks, as transforms are), are
/// re-read; changed transforms are copied (see the module docs). Only what bevy_camera's
/// culling left visible (`ViewVisibility`) is drawn.
pub fn extract_instances(
    mut main: ResMut<MainWorld>,
    mut touched_state: Local<Option<QueryState<InstanceData>>>,
    mut touched: Local<Vec<Entity>>,
    mut instances: ResMut<RenderInstances>,
    mut ids: ResMut<RenderAssetIds>,
    materials: Res<RenderMaterials>,
) {
    if let Some(mut changes) = main.get_resource_mut::<InstanceChanges>() {
        std::mem::swap(&mut *touched, &mut changes.bypass_change_detection().touched);
    }
    // The tables holding mesh entities, found once for the three column scans below.
    let mesh_id = main.component_id::<Mesh3d>();
    let tables = mesh_id.map(|mesh| mesh_tables(&main, mesh)).unwrap_or_default();
    for component in [mesh_id, main.component_id::<ViewVisibility>()].into_iter().flatten() {
        changed_mesh_entities(&main, &tables, component, &mut touched);
    }
    let instances = &mut *instances;
    if !touched.is_empty() {
        let ids = &mut *ids;
        let touched_state = query_state(&mut *touched_state, &mut main);
        let query = touched_state.query(&main);
        for &entity in touched.iter() {
            match query.get(entity) {
                Ok((mesh, standard, custom, shader, transform, visibility, no_shadow))
                    if visibility.is_none_or(|v| v.get()) =>
                {
                    let material = match (standard, custom, shader) {
                        (Some(m), _, _) => m.0.id().untyped(),
                        (None, Some(m), _) => m.0.id().untyped(),
                        (None, None, Some(m)) => m.0.id().untyped(),
                        (None, None, None) => {
                            instances.remove(entity);
                            continue;
                        }
                    };
                    let material = ids.materials.slot(material);
                    let (table, slot) = materials.tables.place_of(material);
                    let key =
                        BatchKey { mesh: ids.meshes.slot(mesh.0.id()), table, casts_shadows: !no_shadow };
                    instances.insert(entity, key, material, slot, instance_rows(&transform.affine()));
                }
                _ => instances.remove(entity),
            }
        }
        touched.clear();
    }
    copy_moved_transforms(&main, &tables, instances);
}

/// Lists in `out` every mesh entity whose `component` changed since the main world's last
/// `clear_trackers` (the tick scan of [`copy_moved_transforms`], without the copy).
fn changed_mesh_entities(main: &World, tables: &[TableId], component: ComponentId, out: &mut Vec<Entity>) {
    let changed = change_test(main);
    let mut steps = Vec::new();
    for &id in tables {
        let Some(table) = main.storages().tables.get(id) else { continue };
        let Some(ticks) = table.get_changed_ticks_slice_for(component) else { continue };
        // SAFETY: `UnsafeCell<Tick>` has `Tick`'s layout, and nothing writes the column while
        // the main world is lent to extraction.
        let ticks = unsafe { &*(std::ptr::from_ref(ticks) as *const [Tick]) };
        let entities = table.entities();
        changed_steps(ticks, changed, &mut steps);
        for &step in &steps {
            let start = step * SCAN_CHUNK;
            let chunk = &ticks[start..ticks.len().min(start + SCAN_CHUNK)];
            out.extend(
                chunk.iter().enumerate().filter(|(_, t)| changed(**t)).map(|(row, _)| entities[start + row]),
            );
        }
    }
}

/// The steps of [`SCAN_CHUNK`] ticks in `ticks` that hold a change, into `steps`: the ticks
/// alone, 64 to a branch-free step that compiles to packed compares (looking at the
/// entities of a step is left to the caller). Static frames are mostly this scan, once per
/// watched column (`GlobalTransform`, `Mesh3d`, `ViewVisibility`), and it is bound by
/// memory traffic (4 bytes per entity per column): an AVX2 build of it was no faster.
fn changed_steps(ticks: &[Tick], changed: impl Fn(Tick) -> bool + Copy, steps: &mut Vec<usize>) {
    steps.clear();
    // Whole steps have a constant trip count, so the loop unrolls into packed compares.
    let mut whole = ticks.chunks_exact(SCAN_CHUNK);
    for (step, chunk) in whole.by_ref().enumerate() {
        let mut hit = false;
        for &t in chunk {
            hit |= changed(t);
        }
        if hit {
            steps.push(step);
        }
    }
    if whole.remainder().iter().any(|&t| changed(t)) {
        steps.push(ticks.len() / SCAN_CHUNK);
    }
}

/// `Tick::is_newer_than` against the main world's last `clear_trackers`, in a form that
/// vectorises (inlined into [`changed_steps`]): it clamps both ages to `MAX_CHANGE_AGE`, and since `since_last_run` is clamped,
/// an age clamped to it is never below it, so comparing the unclamped age answers the same.
fn change_test(main: &World) -> impl Fn(Tick) -> bool + Copy + use<> {
    let last_run = main.last_change_tick().get();
    let this_run = main.read_change_tick().get();
    let since_last_run = this_run.wrapping_sub(last_run).min(MAX_CHANGE_AGE);
    move |tick: Tick| this_run.wrapping_sub(tick.get()) < since_last_run
}

/// The tables holding mesh entities, each once (a table without a scanned column answers
/// `None` for its ticks and is skipped by the scan).
fn mesh_tables(main: &World, mesh_id: ComponentId) -> Vec<TableId> {
    let mut tables: Vec<_> = main
        .archetypes()
        .iter()
        .filter(|a| !a.is_empty() && a.contains(mesh_id))
        .map(|a| a.table_id())
        .collect();
    tables.sort_unstable_by_key(|t| t.as_usize());
    tables.dedup();
    tables
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
fn copy_moved_transforms(main: &World, tables: &[TableId], instances: &mut RenderInstances) {
    let Some(transform_id) = main.component_id::<GlobalTransform>() else { return };
    let changed = change_test(main);
    let writer = instances.transform_writer();
    let mut dirty = writer.dirty_ranges();
    let mut moved_steps = Vec::new();
    for &id in tables {
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
        // First the ticks alone (4 bytes per entity): which steps hold a change.
        changed_steps(ticks, changed, &mut moved_steps);
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

    /// `count` mesh entities in one table, each with an instance in one batch, trackers
    /// cleared (so nothing counts as moved yet).
    fn world_with_instances(count: usize) -> (World, Vec<Entity>, RenderInstances) {
        let mut world = World::new();
        let mesh = bevy_asset::Handle::<Mesh>::default();
        let entities: Vec<Entity> = (0..count)
            .map(|i| world.spawn((Mesh3d(mesh.clone()), GlobalTransform::from_xyz(i as f32, 0.0, 0.0))).id())
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

    /// The scan of moved transforms over every mesh table, as `extract_instances` runs it.
    fn copy_moved(world: &World, instances: &mut RenderInstances) {
        let tables = mesh_tables(world, world.component_id::<Mesh3d>().expect("mesh entities"));
        copy_moved_transforms(world, &tables, instances);
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
            copy_moved(&world, &mut instances);
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
            copy_moved(&world, &mut instances);
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
