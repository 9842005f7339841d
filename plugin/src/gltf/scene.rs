//! glTF scenes: the node tree flattened at load ([`build_scene`]) and spawned under a
//! [`GltfSceneRoot`] once its file has loaded ([`spawn_gltf_scenes`]).

use std::collections::HashSet;

use bevy_asset::{AssetServer, Assets, Handle, LoadState};
use bevy_camera::visibility::Visibility;
use bevy_camera::{Camera, Camera3d, OrthographicProjection, PerspectiveProjection, Projection, ScalingMode};
use bevy_color::Color;
use bevy_ecs::hierarchy::ChildOf;
use bevy_ecs::name::Name;
use bevy_ecs::prelude::*;
use bevy_light::{DirectionalLight, PointLight, SpotLight};
use bevy_math::{Mat4, Quat, Vec3, Vec4};
use bevy_mesh::Mesh3d;
use bevy_transform::components::Transform;

use super::loader::{GltfLoadError, Source};
use super::{Gltf, GltfBounds, GltfCamera, GltfLight, GltfMesh, GltfScene, GltfSceneNode};
use crate::material::MeshMaterial3d;

/// The far plane of a perspective camera whose `zfar` is infinite (metres).
const INFINITE_ZFAR: f32 = 1000.0;
/// The range of a light whose `range` is infinite (metres).
const INFINITE_RANGE: f32 = 10_000.0;

/// Spawns a glTF scene as children of this entity once the [`Gltf`] has loaded: the file's
/// default scene, or scene `scene`. [`spawn_gltf_scenes`] adds a [`GltfSceneStatus`] when it
/// is done (spawned, or failed).
#[derive(Component, Clone, Debug, Default)]
#[require(Transform, Visibility)]
pub struct GltfSceneRoot {
    /// The file.
    pub gltf: Handle<Gltf>,
    /// Which scene (its index in the file); `None` for the file's default scene.
    pub scene: Option<usize>,
}

impl GltfSceneRoot {
    /// The default scene of `gltf`.
    pub fn new(gltf: Handle<Gltf>) -> Self {
        Self { gltf, scene: None }
    }

    /// Scene `index` of the file instead of its default scene.
    pub fn with_scene(mut self, index: usize) -> Self {
        self.scene = Some(index);
        self
    }
}

/// What became of a [`GltfSceneRoot`] (added once, when the file has loaded or failed).
#[derive(Component, Clone, Debug)]
pub enum GltfSceneStatus {
    /// The scene's nodes are spawned as children of the root.
    Spawned {
        /// The scene spawned.
        scene: Handle<GltfScene>,
        /// How many entities were spawned (nodes and primitives).
        entities: usize,
    },
    /// Nothing was spawned.
    Failed {
        /// Why: the load error, or a scene index the file does not have.
        reason: String,
    },
}

/// The scene's nodes, depth first, with the bounds of their meshes in scene space.
pub(crate) fn build_scene(
    source: &Source<'_>,
    scene: &gltf::Scene<'_>,
    meshes: &[Handle<GltfMesh>],
    mesh_bounds: &[Option<GltfBounds>],
) -> Result<GltfScene, GltfLoadError> {
    let mut out =
        GltfScene { index: scene.index(), name: scene.name().map(str::to_owned), ..GltfScene::default() };
    let mut seen = HashSet::new();
    // (node, parent slot in `out.nodes`, parent's scene-space matrix); reversed so the
    // file's order comes out.
    let mut stack: Vec<(gltf::Node<'_>, Option<usize>, Mat4)> =
        scene.nodes().map(|n| (n, None, Mat4::IDENTITY)).collect();
    stack.reverse();
    while let Some((node, parent, parent_matrix)) = stack.pop() {
        if !seen.insert(node.index()) {
            return Err(GltfLoadError::Scene {
                path: source.path.to_owned(),
                scene: scene.index(),
                reason: format!("node {} is reached twice (a cycle or a shared child)", node.index()),
            });
        }
        let transform = node_transform(&node);
        let matrix = parent_matrix * transform.to_matrix();
        let mesh = node.mesh().map(|m| m.index());
        if let Some(b) = mesh.and_then(|m| mesh_bounds.get(m).copied().flatten()) {
            let corners = (0..8).map(|i| {
                let pick = |bit: usize, lo: f32, hi: f32| if i & bit == 0 { lo } else { hi };
                matrix.transform_point3(Vec3::new(
                    pick(1, b.min.x, b.max.x),
                    pick(2, b.min.y, b.max.y),
                    pick(4, b.min.z, b.max.z),
                ))
            });
            let world =
                corners.fold(GltfBounds { min: Vec3::INFINITY, max: Vec3::NEG_INFINITY }, |acc, c| {
                    GltfBounds { min: acc.min.min(c), max: acc.max.max(c) }
                });
            out.bounds = Some(out.bounds.map_or(world, |b| b.union(world)));
        }
        let slot = out.nodes.len();
        out.nodes.push(GltfSceneNode {
            node: node.index(),
            name: node.name().map(str::to_owned),
            parent,
            transform,
            mesh: mesh.and_then(|m| meshes.get(m).cloned()),
            camera: node.camera().map(|c| camera(&c)),
            light: node.light().map(|l| light(&l)),
        });
        let children: Vec<_> = node.children().collect();
        stack.extend(children.into_iter().rev().map(|c| (c, Some(slot), matrix)));
    }
    Ok(out)
}

fn node_transform(node: &gltf::Node<'_>) -> Transform {
    match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            Transform::from_matrix(Mat4::from_cols_array_2d(&matrix))
        }
        gltf::scene::Transform::Decomposed { translation, rotation, scale } => Transform {
            translation: Vec3::from(translation),
            rotation: Quat::from_array(rotation).normalize(),
            scale: Vec3::from(scale),
        },
    }
}

fn camera(c: &gltf::Camera<'_>) -> GltfCamera {
    let projection = match c.projection() {
        gltf::camera::Projection::Perspective(p) => Projection::Perspective(PerspectiveProjection {
            fov: p.yfov(),
            aspect_ratio: p.aspect_ratio().unwrap_or(1.0),
            near: p.znear(),
            far: p.zfar().unwrap_or(INFINITE_ZFAR),
            near_clip_plane: Vec4::new(0.0, 0.0, -1.0, -p.znear()),
        }),
        gltf::camera::Projection::Orthographic(o) => Projection::Orthographic(OrthographicProjection {
            near: o.znear(),
            far: o.zfar(),
            scaling_mode: ScalingMode::Fixed { width: 2.0 * o.xmag(), height: 2.0 * o.ymag() },
            ..OrthographicProjection::default_3d()
        }),
    };
    GltfCamera { index: c.index(), name: c.name().map(str::to_owned), projection }
}

fn light(l: &gltf::khr_lights_punctual::Light<'_>) -> GltfLight {
    use gltf::khr_lights_punctual::Kind;
    let [r, g, b] = l.color();
    let color = Color::linear_rgb(r, g, b);
    // glTF point and spot intensities are candela; Bevy's are lumens.
    let lumens = l.intensity() * 4.0 * std::f32::consts::PI;
    let range = l.range().unwrap_or(INFINITE_RANGE);
    match l.kind() {
        Kind::Directional => GltfLight::Directional(DirectionalLight {
            color,
            illuminance: l.intensity(),
            ..Default::default()
        }),
        Kind::Point => GltfLight::Point(PointLight { color, intensity: lumens, range, ..Default::default() }),
        Kind::Spot { inner_cone_angle, outer_cone_angle } => GltfLight::Spot(SpotLight {
            color,
            intensity: lumens,
            range,
            inner_angle: inner_cone_angle,
            outer_angle: outer_cone_angle,
            ..Default::default()
        }),
    }
}

/// Spawns the scene of each new [`GltfSceneRoot`] whose file has loaded, and marks those
/// whose file failed (see [`GltfSceneStatus`]). Runs in `Update`.
pub fn spawn_gltf_scenes(
    mut commands: Commands,
    roots: Query<(Entity, &GltfSceneRoot), Without<GltfSceneStatus>>,
    server: Res<AssetServer>,
    gltfs: Res<Assets<Gltf>>,
    scenes: Res<Assets<GltfScene>>,
    meshes: Res<Assets<GltfMesh>>,
) {
    for (root, spec) in &roots {
        let Some(gltf) = gltfs.get(&spec.gltf) else {
            if let Some(LoadState::Failed(e)) = server.get_load_state(&spec.gltf) {
                // The first line: the error itself, without a backtrace Bevy's error may carry.
                let reason = e.to_string().lines().next().unwrap_or_default().to_owned();
                commands.entity(root).insert(GltfSceneStatus::Failed { reason });
            }
            continue;
        };
        let handle = match spec.scene {
            Some(i) => gltf.scenes.get(i),
            None => gltf.default_scene.as_ref(),
        };
        let Some(handle) = handle else {
            let reason = match spec.scene {
                Some(i) => format!("the file has no scene {i} (it has {})", gltf.scenes.len()),
                None => "the file has no scene".to_owned(),
            };
            bevy_log::warn!("GltfSceneRoot on {root}: {reason}");
            commands.entity(root).insert(GltfSceneStatus::Failed { reason });
            continue;
        };
        // Sub-assets arrive with the file; wait a frame if they have not.
        let Some(scene) = scenes.get(handle) else { continue };
        let entities = spawn_scene(&mut commands, root, scene, &meshes);
        commands.entity(root).insert(GltfSceneStatus::Spawned { scene: handle.clone(), entities });
    }
}

fn spawn_scene(commands: &mut Commands, root: Entity, scene: &GltfScene, meshes: &Assets<GltfMesh>) -> usize {
    let mut spawned: Vec<Entity> = Vec::with_capacity(scene.nodes.len());
    let mut count = 0;
    let mut first_camera = true;
    for node in &scene.nodes {
        let parent = node.parent.and_then(|p| spawned.get(p).copied()).unwrap_or(root);
        let mut e = commands.spawn((node.transform, Visibility::default(), ChildOf(parent)));
        if let Some(name) = &node.name {
            e.insert(Name::new(name.clone()));
        }
        if let Some(c) = &node.camera {
            // Only the file's first camera is active (as in bevy_gltf); see the module docs.
            let camera = Camera { is_active: first_camera, ..Default::default() };
            first_camera = false;
            e.insert((Camera3d::default(), camera, c.projection.clone()));
        }
        match &node.light {
            Some(GltfLight::Directional(l)) => {
                e.insert(*l);
            }
            Some(GltfLight::Point(l)) => {
                e.insert(*l);
            }
            Some(GltfLight::Spot(l)) => {
                e.insert(*l);
            }
            None => {}
        }
        let node_entity = e.id();
        count += 1;
        if let Some(mesh) = node.mesh.as_ref().and_then(|m| meshes.get(m)) {
            for p in &mesh.primitives {
                commands.spawn((
                    Mesh3d(p.mesh.clone()),
                    MeshMaterial3d(p.material.clone()),
                    Transform::IDENTITY,
                    Visibility::default(),
                    ChildOf(node_entity),
                ));
                count += 1;
            }
        }
        spawned.push(node_entity);
    }
    count
}
