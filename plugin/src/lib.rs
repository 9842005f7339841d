//! # f3d: the render plugin
//!
//! The one crate an app depends on besides Bevy's scene crates. Add
//! [`F3dRenderPlugin`](plugin::F3dRenderPlugin), spawn a `Camera3d`, meshes (`Mesh3d` +
//! [`MeshMaterial3d`](material::MeshMaterial3d)), lights and an
//! [`Environment`](environment::Environment) as ordinary entities, and f3d draws them through the HAL on whichever backend the
//! [`DeviceRegistry`](f3d_hal::DeviceRegistry) opens (a GPU backend when one is compiled in and
//! available, else the soft rasteriser):
//!
//! ```no_run
//! use f3d::prelude::*;
//!
//! fn setup(
//!     mut commands: Commands,
//!     mut meshes: ResMut<Assets<Mesh>>,
//!     mut materials: ResMut<Assets<StandardMaterial>>,
//! ) {
//!     commands.spawn((
//!         Mesh3d(meshes.add(Cuboid::new(1.0, 1.0, 1.0))),
//!         MeshMaterial3d(materials.add(Color::srgb(0.8, 0.1, 0.1))),
//!     ));
//!     commands.spawn((
//!         DirectionalLight { illuminance: 3000.0, shadow_maps_enabled: true, ..default() },
//!         Transform::from_xyz(3.0, 5.0, 2.0).looking_at(Vec3::ZERO, Vec3::Y),
//!     ));
//!     commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 1.5, 4.0).looking_at(Vec3::ZERO, Vec3::Y)));
//!     commands.spawn(Environment::default());
//!     commands.spawn(Screenshot::to_file("cube.png"));
//! }
//!
//! App::new()
//!     .add_plugins(F3dRenderPlugin { exit_after_frames: Some(1), ..Default::default() })
//!     .add_systems(Startup, setup)
//!     .run();
//! ```
//!
//! The scene is Bevy's own: `Assets`, `Handle` and the `AssetServer` from bevy_asset, `Mesh`
//! and `Mesh3d` from bevy_mesh (meshes of bevy's primitives: `Cuboid`, `Sphere`, `Plane3d`,
//! `Torus`, `Cylinder`), `Image` from bevy_image, `Camera3d`, `Projection`, `Exposure` and the
//! visibility components from bevy_camera (whose frustum culling decides what is drawn), lights
//! from bevy_light, colours from bevy_color. The plugin adds the Bevy plugins those need when
//! the app has not ([`plugin`] lists them). What is f3d's own: the render world and its passes,
//! the materials ([`StandardMaterial`](material::StandardMaterial), `.ron`
//! [`CustomMaterial`](material::CustomMaterial)s), the [`Environment`](environment::Environment),
//! [`Tonemapping`](camera::Tonemapping), screenshots and the HAL underneath.
//!
//! ### Units
//!
//! Lights are in Bevy's photometric units (lux for directional lights, lumens for point and
//! spot lights) and the camera's [`Exposure`](bevy_camera::Exposure) (EV100, Bevy's default
//! 9.7) scales them before shading: the render world holds pre-exposed radiance, so a bright
//! sun never overflows the half-float scene target. The environment's
//! [`intensity`](environment::Environment::intensity) is in cd/m² and exposed the same way;
//! emissive colours are not exposed (they are what the screen shows, as authored).

//! ## The frame (DESIGN §2)
//!
//! ```text
//!  main world ──extract──▶ render world (SubApp: ExtractSchedule, then Render)
//!   Camera3d, Mesh3d,        Extracted*: dense instance batches, lights, camera, assets
//!   MeshMaterial, lights,        │ RenderSystems::Prepare: upload, pack, pipelines, sort
//!   Environment, Transform       │ RenderSystems::Graph:   passes added to FrameGraph
//!                                │ RenderSystems::Execute: compile, execute, read back
//!                                ▼
//!                   ScreenshotCaptured / RenderStats back in the main world
//! ```
//!
//! * **Extraction copies only what changed.** Instance components are immutable and hooked,
//!   moved transforms are found from the change ticks of `GlobalTransform`'s column (a
//!   vectorised scan, no per-entity query), assets report their own edits;
//!   instances live in dense per-batch arrays whose bytes are the instance buffer, so a batch
//!   of a million cubes is one draw and a static frame uploads nothing.
//! * **Inline or pipelined** ([`F3dRenderPlugin::pipelined`](plugin::F3dRenderPlugin)): the
//!   render world runs after the main world, or on its own thread one frame behind; both
//!   draw the same pixels (a test holds it).
//! * **Passes** are systems that add to the frame's [`RenderGraph`](f3d_render_graph::RenderGraph)
//!   ([`passes`]); apps add their own the same way ([`render::graph::FrameGraph`]).
//! * **Materials** are `.ron` files ([`material::CustomMaterial`]) or the built-in
//!   [`StandardMaterial`](material::StandardMaterial), compiled through naga for the device.
//!   Materials from files hot-reload ([`material::reload`]): an edit to the `.ron`, its
//!   `fragment_file` or an include is swapped in at the next frame boundary, values the app
//!   set survive, and a broken save keeps the last good version drawing and arrives once as
//!   a [`MaterialEvent::Failed`](material::MaterialEvent).
//! * **Materials share tables**: the parameters of every material with the same shader and
//!   textures sit side by side in a uniform array, each instance carrying its slot, so
//!   instances of many materials draw in one call ([`render::prepare::materials`]).
//! * **A lost device is replaced** ([`render::recovery`]): a new one is opened through the
//!   registry, the render world rebuilt from the main world, and `DeviceLost` /
//!   `DeviceRecovered` messages sent; with none to open, the app exits with the reason.
//! * Devices are resources ([`RenderDevice`](plugin::RenderDevice)), never globals. Errors in
//!   user data (a mesh with bad indices, a material that does not compile) are reported once
//!   on stderr and that thing draws nothing; they never panic the engine.
//!
//! * **Headless or windowed**: headless (no window plugins) draws into an offscreen image
//!   that screenshots read; with [`F3dDefaultPlugins`] (feature `window`) bevy_winit drives
//!   the loop, input reaches the app through bevy_input, and f3d presents into bevy_window's
//!   windows on every backend — wgpu, vulkan, and soft through a CPU framebuffer
//!   ([`window`] says how and why).
//!
//! * **Every active camera draws**, in ascending `order`, into its own target (the window
//!   or headless image, or an image asset made with `Image::new_target_texture`, which
//!   materials of later cameras sample in the same frame); [`render`] says how.

pub mod camera;
pub mod default_plugins;
pub mod environment;
pub mod gltf;
pub mod image;
pub mod light;
pub mod material;
pub mod mesh;
pub mod passes;
pub mod plugin;
pub mod render;
pub mod resources;
pub mod screenshot;
pub mod stderr_log;
pub mod window;

pub use default_plugins::F3dDefaultPlugins;
pub use stderr_log::init_stderr_log;

/// Re-exported so apps and backends name the same crates.
pub use {
    bevy_app, bevy_asset, bevy_camera, bevy_color, bevy_diagnostic, bevy_ecs, bevy_extract, bevy_image,
    bevy_input, bevy_light, bevy_log, bevy_math, bevy_mesh, bevy_shape, bevy_time, bevy_transform,
    bevy_window, f3d_hal, f3d_materials, f3d_render_graph, wgpu_types,
};

/// What most apps use.
pub mod prelude {
    pub use bevy_app::prelude::*;
    pub use bevy_asset::prelude::*;
    pub use bevy_camera::prelude::*;
    pub use bevy_camera::visibility::NoFrustumCulling;
    pub use bevy_camera::{Exposure, RenderTarget, Viewport};
    pub use bevy_color::prelude::*;
    pub use bevy_ecs::prelude::*;
    pub use bevy_image::Image;
    pub use bevy_input::prelude::*;
    pub use bevy_light::prelude::*;
    pub use bevy_light::{DirectionalLightShadowMap, NotShadowCaster};
    pub use bevy_math::prelude::*;
    pub use bevy_mesh::prelude::*;
    pub use bevy_shape::prelude::*;
    pub use bevy_time::prelude::*;
    pub use bevy_transform::prelude::*;
    pub use bevy_window::prelude::*;
    pub use bevy_window::{PrimaryWindow, WindowResolution};

    pub use crate::F3dDefaultPlugins;
    pub use crate::camera::{Msaa, Tonemapping};
    pub use crate::environment::{Environment, EnvironmentSource, EquirectImage, Sky};
    pub use crate::gltf::{Gltf, GltfAssetLabel, GltfMesh, GltfScene, GltfSceneRoot, GltfSceneStatus};
    pub use crate::light::ShadowBox;
    pub use crate::material::{
        AlphaMode, CustomMaterial, HotReload, MaterialEvent, MaterialWatch, MeshMaterial3d, ShaderMaterial,
        StandardMaterial, TypedMaterial,
    };
    pub use crate::plugin::F3dRenderPlugin;
    pub use crate::render::graph::{FrameGraph, ViewGraph};
    pub use crate::render::recovery::{DeviceLost, DeviceRecovered};
    pub use crate::render::{Extract, ExtractSchedule, Render, RenderApp, RenderStartup, RenderSystems};
    pub use crate::resources::{BackendChoice, DepthPrepass, RenderDevice, StandardPasses};
    pub use crate::screenshot::{RenderStats, Screenshot, ScreenshotCaptured};

    /// `T::default()`, as Bevy's prelude has it.
    pub fn default<T: Default>() -> T {
        T::default()
    }
}
