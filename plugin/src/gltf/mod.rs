//! glTF 2.0 scenes (`.gltf` and `.glb`) through Bevy's `AssetServer`:
//!
//! ```ignore
//! let gltf = asset_server.load::<Gltf>("helmet.glb");
//! commands.spawn(GltfSceneRoot::new(gltf));
//! ```
//!
//! bevy_gltf does not build on the toolchain f3d supports (DESIGN §9), so f3d reads glTF with
//! the `gltf` crate in its own [`GltfLoader`] and yields Bevy's types: [`Mesh`]
//! and [`Image`] sub-assets, `Camera3d` + `Projection`, and bevy_light's lights, with f3d's
//! [`StandardMaterial`]. The names follow bevy_gltf (a [`Gltf`] asset with `scenes`, `meshes`,
//! `materials` and their `named_*` maps; sub-assets labeled as [`GltfAssetLabel`] writes them:
//! `Scene0`, `Mesh0`, `Mesh0/Primitive0`, `Material0`, `DefaultMaterial`, `Texture0`), so an app
//! can move to bevy_gltf by changing imports once that crate builds here.
//!
//! * **Buffers**: the GLB binary chunk, `data:` URIs (base64), or files next to the glTF read
//!   through the load context, so they are the asset's dependencies.
//! * **Images**: PNG and JPEG (and KTX2) decoded by bevy_image. Base colour and emissive
//!   textures are sRGB (`Rgba8UnormSrgb`), metallic-roughness, normal and occlusion textures
//!   linear; a texture used both ways is decoded twice (`Texture0` sRGB, `Texture0/Linear`).
//!   Samplers become [`ImageSampler`](bevy_image::ImageSampler) descriptors on the image
//!   (today f3d samples every material texture trilinear with repeat; the descriptor is there
//!   for when it honours them).
//! * **Meshes**: `POSITION`, `NORMAL` (flat normals are computed when absent, as the glTF
//!   spec asks), `TEXCOORD_0`, `TEXCOORD_1` (as `Mesh::ATTRIBUTE_UV_1`), `COLOR_0` (linear
//!   vertex colours, multiplied into the base colour), `TANGENT`, and `u8`/`u16`/`u32`
//!   indices. Triangle lists draw; strips and fans are turned into lists; points and lines
//!   are skipped.
//! * **Scenes** spawn through [`GltfSceneRoot`]: each node an entity (its `Transform`, `Name`)
//!   under the root, each primitive a child entity with `Mesh3d` +
//!   [`MeshMaterial3d<StandardMaterial>`](crate::material::MeshMaterial3d); cameras as
//!   `Camera3d` + `Projection` (perspective `yfov`/`znear`/`zfar`, orthographic `xmag`/`ymag`;
//!   an infinite `zfar` becomes 1000 m); `KHR_lights_punctual` lights in Bevy's units:
//!   directional lux as is, point and spot candela × 4π = lumens, spot cone angles as
//!   `SpotLight::inner_angle`/`outer_angle`, an infinite range as 10 km.
//! * **Cameras**: a scene's first camera is spawned active and its other cameras inactive
//!   (`Camera::is_active = false`), as bevy_gltf does, all with Bevy's default order 0. An
//!   app that shows a file's camera spawns no camera of its own (`load_gltf` frames the
//!   scene with one only when the file has none, see [`GltfScene::has_camera`]).
//! * **What f3d cannot draw** (skins, morph targets, animations, points and lines, extensions
//!   it does not know, textures on the second UV set, normal scale and occlusion strength) is
//!   left out and named in one warning per file (and in [`Gltf::skipped`]); the static meshes
//!   still draw.
//! * **Bad files** (JSON that does not parse, a bad GLB header, an accessor past its buffer,
//!   a missing buffer or image file, an index out of range, an image over 16384 texels a
//!   side) fail the load with a [`GltfLoadError`] naming the file and the reason, in the
//!   asset's `LoadState::Failed`. Nothing in a file panics the loader.
//!
//! A scene is spawned once, when its asset has loaded; a reload of the file does not respawn
//! it.

mod loader;
mod material;
mod mesh;
mod scene;

pub use loader::{GltfLoadError, GltfLoader, MAX_GLTF_IMAGE_SIDE};
pub use scene::{GltfSceneRoot, GltfSceneStatus, spawn_gltf_scenes};

use std::collections::HashMap;
use std::fmt;

use bevy_asset::{Asset, AssetPath, Handle};
use bevy_camera::Projection;
use bevy_image::Image;
use bevy_light::{DirectionalLight, PointLight, SpotLight};
use bevy_math::Vec3;
use bevy_mesh::Mesh;
use bevy_reflect::TypePath;
use bevy_transform::components::Transform;

use crate::material::StandardMaterial;

/// A loaded glTF file: its scenes, meshes and materials (bevy_gltf's `Gltf`, less nodes,
/// skins and animations, which f3d does not draw).
#[derive(Asset, TypePath, Clone, Debug, Default)]
pub struct Gltf {
    /// The scenes, in file order (`Scene0`, `Scene1`, ...).
    pub scenes: Vec<Handle<GltfScene>>,
    /// The scenes that have names.
    pub named_scenes: HashMap<Box<str>, Handle<GltfScene>>,
    /// The file's default scene (its `scene`, else the first).
    pub default_scene: Option<Handle<GltfScene>>,
    /// The meshes, in file order (`Mesh0`, ...).
    pub meshes: Vec<Handle<GltfMesh>>,
    /// The meshes that have names.
    pub named_meshes: HashMap<Box<str>, Handle<GltfMesh>>,
    /// The materials, in file order (`Material0`, ...).
    pub materials: Vec<Handle<StandardMaterial>>,
    /// The materials that have names.
    pub named_materials: HashMap<Box<str>, Handle<StandardMaterial>>,
    /// The textures, in file order (`Texture0`, ...), sRGB or linear as their first use says.
    pub textures: Vec<Handle<Image>>,
    /// What the file has that f3d does not draw (also logged once as a warning), e.g.
    /// `"skins"`, `"morph targets"`, `"extension KHR_materials_clearcoat"`.
    pub skipped: Vec<String>,
}

/// One glTF scene as f3d spawns it: its nodes, parents before children.
#[derive(Asset, TypePath, Clone, Debug, Default)]
pub struct GltfScene {
    /// Its index in the file.
    pub index: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Every node of the scene, depth first (a parent comes before its children).
    pub nodes: Vec<GltfSceneNode>,
    /// The bounds of its meshes in the scene's space (node transforms applied), if it has any.
    pub bounds: Option<GltfBounds>,
}

impl GltfScene {
    /// Whether the scene has a camera.
    pub fn has_camera(&self) -> bool {
        self.nodes.iter().any(|n| n.camera.is_some())
    }

    /// Whether the scene has a light.
    pub fn has_light(&self) -> bool {
        self.nodes.iter().any(|n| n.light.is_some())
    }
}

/// A node of a [`GltfScene`].
#[derive(Clone, Debug)]
pub struct GltfSceneNode {
    /// The node's index in the file.
    pub node: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Its parent: an index into [`GltfScene::nodes`] (`None` for a root node of the scene).
    pub parent: Option<usize>,
    /// Its transform relative to its parent.
    pub transform: Transform,
    /// Its mesh.
    pub mesh: Option<Handle<GltfMesh>>,
    /// Its camera.
    pub camera: Option<GltfCamera>,
    /// Its `KHR_lights_punctual` light.
    pub light: Option<GltfLight>,
}

/// A glTF camera as bevy_camera's projection.
#[derive(Clone, Debug)]
pub struct GltfCamera {
    /// Its index in the file.
    pub index: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// Perspective or orthographic (Bevy fits the aspect ratio to the target).
    pub projection: Projection,
}

/// A `KHR_lights_punctual` light in Bevy's units (see the module docs).
#[derive(Clone, Debug)]
pub enum GltfLight {
    /// `directional`: illuminance in lux.
    Directional(DirectionalLight),
    /// `point`: intensity in lumens (candela × 4π).
    Point(PointLight),
    /// `spot`: intensity in lumens (candela × 4π), cone angles in radians.
    Spot(SpotLight),
}

/// A glTF mesh: its primitives (bevy_gltf's `GltfMesh`).
#[derive(Asset, TypePath, Clone, Debug, Default)]
pub struct GltfMesh {
    /// Its index in the file.
    pub index: usize,
    /// Its name, if it has one.
    pub name: Option<String>,
    /// The primitives f3d draws (points and lines are left out).
    pub primitives: Vec<GltfPrimitive>,
}

/// One primitive of a [`GltfMesh`]: a mesh and its material.
#[derive(Clone, Debug)]
pub struct GltfPrimitive {
    /// Its index in the glTF mesh.
    pub index: usize,
    /// The mesh (`MeshN/PrimitiveM`).
    pub mesh: Handle<Mesh>,
    /// Its material (`MaterialN`, or `DefaultMaterial` when it names none).
    pub material: Handle<StandardMaterial>,
    /// The bounds of its positions.
    pub bounds: GltfBounds,
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GltfBounds {
    /// The smallest corner.
    pub min: Vec3,
    /// The largest corner.
    pub max: Vec3,
}

impl GltfBounds {
    /// The box holding both.
    pub fn union(self, other: Self) -> Self {
        Self { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// Its centre.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
}

/// The labels of a glTF file's sub-assets, as bevy_gltf's `GltfAssetLabel` writes them:
/// `asset_server.load(GltfAssetLabel::Mesh(0).from_asset("scene.gltf"))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GltfAssetLabel {
    /// `Scene{n}`: a [`GltfScene`].
    Scene(usize),
    /// `Mesh{n}`: a [`GltfMesh`].
    Mesh(usize),
    /// `Mesh{mesh}/Primitive{primitive}`: a bevy [`Mesh`].
    Primitive {
        /// The glTF mesh.
        mesh: usize,
        /// The primitive in it.
        primitive: usize,
    },
    /// `Material{n}`: a [`StandardMaterial`].
    Material(usize),
    /// `DefaultMaterial`: the material of primitives that name none.
    DefaultMaterial,
    /// `Texture{n}`: an [`Image`].
    Texture(usize),
}

impl fmt::Display for GltfAssetLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Scene(n) => write!(f, "Scene{n}"),
            Self::Mesh(n) => write!(f, "Mesh{n}"),
            Self::Primitive { mesh, primitive } => write!(f, "Mesh{mesh}/Primitive{primitive}"),
            Self::Material(n) => write!(f, "Material{n}"),
            Self::DefaultMaterial => f.write_str("DefaultMaterial"),
            Self::Texture(n) => write!(f, "Texture{n}"),
        }
    }
}

impl GltfAssetLabel {
    /// The path of this sub-asset of the file at `path`.
    pub fn from_asset(&self, path: impl Into<AssetPath<'static>>) -> AssetPath<'static> {
        path.into().with_label(self.to_string())
    }
}

/// Registers the [`Gltf`] assets, the [`GltfLoader`] and [`spawn_gltf_scenes`] (in `Update`).
/// [`F3dRenderPlugin`](crate::plugin::F3dRenderPlugin) adds it; it needs bevy_asset's
/// `AssetPlugin` and the `StandardMaterial`, `Mesh` and `Image` assets.
#[derive(Clone, Copy, Debug, Default)]
pub struct GltfPlugin;

impl bevy_app::Plugin for GltfPlugin {
    fn build(&self, app: &mut bevy_app::App) {
        use bevy_asset::AssetApp;
        app.init_asset::<Gltf>()
            .init_asset::<GltfScene>()
            .init_asset::<GltfMesh>()
            .register_asset_loader(GltfLoader)
            .add_systems(bevy_app::Update, spawn_gltf_scenes);
    }
}
