//! [`F3dRenderPlugin`]: adds the Bevy scene plugins it draws from, opens the device and sets
//! up the render world.
//!
//! The Bevy plugins the scene needs are added when the app has not added them already (so an
//! app with Bevy's own plugin set keeps its configuration): `TaskPoolPlugin`, `AssetPlugin`,
//! `ImagePlugin` (with its loaders for PNG, JPEG, HDR and KTX2), `MeshPlugin`,
//! `TransformPlugin`, `CameraPlugin` (visibility and frustum culling) and `LightPlugin`. The
//! plugin registers `StandardMaterial`, `CustomMaterial` and `ShaderMaterial` as assets and fills in each
//! camera's target size and projection (see [`crate::camera`]).

use std::sync::Arc;
use std::time::Instant;

use bevy_app::{App, First, Last, Plugin, PostUpdate, SubApp, TaskPoolPlugin};
use bevy_asset::{AssetApp, AssetPlugin};
use bevy_camera::visibility::VisibilitySystems;
use bevy_camera::{CameraPlugin, CameraUpdateSystems};
use bevy_ecs::prelude::*;
use bevy_image::{CompressedImageFormats, ImageLoader, ImagePlugin};
use bevy_light::{LightPlugin, NotShadowCaster};
use bevy_mesh::{Mesh3d, MeshPlugin};
use bevy_transform::TransformPlugin;
use bevy_transform::TransformSystems;
use f3d_hal::{DeviceRegistry, DeviceRequest, GraphicsDevice};

use crate::material::loader::{
    CustomMaterialLoader, MaterialLoaderBudget, MaterialValuesSeen, carry_reloaded_values,
    remember_waiting_values,
};
use crate::material::{
    CustomMaterial, HotReload, MaterialEvent, MaterialWatch, RenderMaterialStore, ShaderMaterial,
    StandardMaterial,
};
use crate::passes;
use crate::render::extract::{
    self, ExtractEveryAsset, ExtractedAssets, ExtractedCamera, ExtractedEnvironment, ExtractedFrame,
    ExtractedLights, ExtractedScreenshots, InstanceChanges, RenderAssetIds,
};
use crate::render::graph::{
    FrameGraph, KeepGraphDump, LastGraph, MainViewOutput, RenderTransients, ReportedErrors, ViewOutput,
    execute_frame_graph, finish_frame,
};
use crate::render::instances::RenderInstances;
use crate::render::prepare::{
    self, PipelineCache, RenderImages, RenderMaterials, RenderMeshes, ViewResources,
};
use crate::render::recovery::{self, DeviceLost, DeviceRecovered, RenderDeviceRequest};
use crate::render::{
    ExtractSchedule, Render, RenderApp, RenderFrame, RenderFrameSystems, RenderSystems, add_render_app,
    pipelined,
};
use crate::screenshot::{self, RenderReportReceiver, RenderReports, RenderStats, ScreenshotCaptured};
use crate::window::{ExtractedWindows, RenderSurfaces, WindowTargets};

pub use crate::resources::{
    BackendChoice, DepthPrepass, DeviceOpenError, FrameClock, RenderDevice, RenderRegistry, RenderSettings,
    StandardPasses, default_registry,
};

/// The render plugin. `App::new().add_plugins(F3dRenderPlugin::default())` opens a device
/// (soft when there is no GPU) and draws the Bevy scene (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct F3dRenderPlugin {
    /// Which backend.
    pub backend: BackendChoice,
    /// The main target's size when there is no window (headless: the offscreen image that
    /// screenshots read). With a primary `Window`, the main target is that window at its
    /// physical size ([`crate::window`]).
    pub size: (u32, u32),
    /// Run the render world on its own thread, one frame behind.
    pub pipelined: bool,
    /// Wrap the device in the HAL's validation layer (also `F3D_VALIDATION=1`).
    pub validation: bool,
    /// Exit the app once this many frames were rendered (and their screenshots written).
    pub exit_after_frames: Option<u32>,
    /// Advance the shader clock by this many seconds per frame instead of the wall clock
    /// (reproducible pictures: tests, goldens, screenshots).
    pub fixed_time_step: Option<f64>,
    /// Which standard passes run.
    pub passes: StandardPasses,
    /// Material hot reload: watch material files, debounce.
    pub hot_reload: HotReload,
}

impl Default for F3dRenderPlugin {
    fn default() -> Self {
        Self {
            backend: BackendChoice::Auto,
            size: (1280, 720),
            pipelined: false,
            validation: false,
            exit_after_frames: None,
            fixed_time_step: None,
            passes: StandardPasses::default(),
            hot_reload: HotReload::default(),
        }
    }
}

fn tick_clock(mut clock: ResMut<FrameClock>) {
    clock.frame += 1;
    clock.time = match clock.step {
        Some(step) => (clock.frame - 1) as f64 * step,
        None => clock.started.elapsed().as_secs_f64(),
    };
}

/// Adds the Bevy plugins the scene needs that the app has not added (see the module docs).
fn add_scene_plugins(app: &mut App) {
    if !app.is_plugin_added::<TaskPoolPlugin>() {
        app.add_plugins(TaskPoolPlugin::default());
    }
    if !app.is_plugin_added::<AssetPlugin>() {
        app.add_plugins(AssetPlugin::default());
    }
    if !app.is_plugin_added::<ImagePlugin>() {
        app.add_plugins(ImagePlugin::default());
        // bevy_render registers the image loader (it knows the GPU's compressed formats);
        // f3d decodes on the CPU, so no compressed format is claimed.
        app.register_asset_loader(ImageLoader::new(CompressedImageFormats::NONE));
    }
    if !app.is_plugin_added::<MeshPlugin>() {
        app.add_plugins(MeshPlugin);
    }
    if !app.is_plugin_added::<TransformPlugin>() {
        app.add_plugins(TransformPlugin);
    }
    if !app.is_plugin_added::<CameraPlugin>() {
        app.add_plugins(CameraPlugin);
    }
    if !app.is_plugin_added::<LightPlugin>() {
        app.add_plugins(LightPlugin);
    }
}

/// The device request for `plugin`'s settings (`F3D_BACKEND`/`F3D_VALIDATION` applied).
pub fn device_request(plugin: &F3dRenderPlugin) -> DeviceRequest {
    let mut request = DeviceRequest::new(plugin.size.0, plugin.size.1);
    request.validation = plugin.validation;
    request.label = "f3d".into();
    if let BackendChoice::Named(b) = &plugin.backend {
        request.backend = Some(b.clone());
    }
    request.with_process_env()
}

/// Opens a device from `registry` for `plugin`'s settings (`F3D_BACKEND`/`F3D_VALIDATION`
/// apply).
pub fn open_device(
    registry: &DeviceRegistry,
    plugin: &F3dRenderPlugin,
) -> Result<Arc<dyn GraphicsDevice>, f3d_hal::OpenError> {
    registry.open(&device_request(plugin))
}

impl Plugin for F3dRenderPlugin {
    fn build(&self, app: &mut App) {
        add_scene_plugins(app);
        app.init_asset::<StandardMaterial>().init_asset::<CustomMaterial>().init_asset::<ShaderMaterial>();
        // glTF scenes (`Gltf` assets, the `.gltf`/`.glb` loader, `GltfSceneRoot` spawning).
        if !app.is_plugin_added::<crate::gltf::GltfPlugin>() {
            app.add_plugins(crate::gltf::GltfPlugin);
        }
        // `.ron` materials through the AssetServer, read from the asset folder on disk (their
        // includes are composed from files next to them).
        let asset_root = app
            .get_added_plugins::<AssetPlugin>()
            .first()
            .map_or_else(|| "assets".to_owned(), |p| p.file_path.clone());
        let loader_budget = MaterialLoaderBudget::default();
        app.insert_resource(loader_budget.clone());
        app.register_asset_loader(CustomMaterialLoader::new(
            bevy_asset::io::file::FileAssetReader::get_base_path().join(asset_root),
            loader_budget,
        ))
        .init_resource::<MaterialValuesSeen>()
        .add_systems(First, remember_waiting_values)
        .add_systems(Last, carry_reloaded_values);
        // Hooks list mesh entities for extraction when these are inserted, replaced or
        // removed (bevy_camera's visibility plugin owns `Mesh3d`'s add hook; these are free).
        let world = app.world_mut();
        let hooks = world.register_component_hooks::<Mesh3d>();
        let _ = hooks.try_on_insert(extract::touch_instance);
        let _ = hooks.try_on_discard(extract::touch_instance);
        let hooks = world.register_component_hooks::<NotShadowCaster>();
        let _ = hooks.try_on_insert(extract::touch_instance);
        let _ = hooks.try_on_discard(extract::touch_instance);
        app.add_systems(
            PostUpdate,
            crate::camera::update_cameras
                .in_set(CameraUpdateSystems)
                .after(TransformSystems::Propagate)
                .before(VisibilitySystems::UpdateFrusta),
        );
        // Cameras on bevy_window's windows draw at their size (and present there).
        app.init_resource::<WindowTargets>().add_systems(First, crate::window::track_windows);
        if !app.world().contains_resource::<RenderRegistry>() {
            app.insert_resource(RenderRegistry(default_registry()));
        }
        app.init_resource::<InstanceChanges>()
            .init_resource::<RenderStats>()
            .add_message::<ScreenshotCaptured>()
            .add_message::<DeviceLost>()
            .add_message::<DeviceRecovered>()
            .insert_resource(RenderDeviceRequest(self.logged_device_request()))
            .add_message::<MaterialEvent>()
            .insert_resource(RenderSettings {
                size: (self.size.0.max(1), self.size.1.max(1)),
                exit_after_frames: self.exit_after_frames,
                pipelined: self.pipelined,
            })
            .insert_resource(FrameClock {
                frame: 0,
                time: 0.0,
                step: self.fixed_time_step,
                started: Instant::now(),
            })
            .add_systems(First, (tick_clock, screenshot::receive_render_reports))
            .add_systems(Last, screenshot::count_screenshot_requests);
        // The render world exists from here on, so other plugins add their passes (and their
        // `RenderStartup` systems) in their own `build`; the device comes in `finish`.
        self.configure_render_app(add_render_app(app));
    }

    fn finish(&self, app: &mut App) {
        let opened = {
            let registry = &app.world().resource::<RenderRegistry>().0;
            open_device(registry, self)
        };
        let device = match opened {
            Ok(d) => d,
            Err(e) => {
                bevy_log::error!("no device: {e}");
                app.insert_resource(DeviceOpenError(e.to_string()));
                app.remove_sub_app(RenderApp);
                app.world_mut().write_message(bevy_app::AppExit::error());
                return;
            }
        };
        self.start_render_world(app, device, |_| {});
    }
}

impl F3dRenderPlugin {
    /// [`device_request`], with what was wrong in the environment said once.
    fn logged_device_request(&self) -> DeviceRequest {
        let request = device_request(self);
        for e in &request.env_errors {
            bevy_log::error!("{e}; the default stays");
        }
        request
    }

    /// Gives the render sub-app its resources and the standard systems, before any device is
    /// open (in `build`).
    fn configure_render_app(&self, render: &mut SubApp) {
        render
            .insert_resource(self.passes)
            .init_resource::<ExtractedFrame>()
            .init_resource::<ExtractedCamera>()
            .init_resource::<ExtractedLights>()
            .init_resource::<ExtractedEnvironment>()
            .init_resource::<ExtractedAssets>()
            .init_resource::<RenderAssetIds>()
            .init_resource::<ExtractEveryAsset>()
            .init_resource::<ExtractedScreenshots>()
            .init_resource::<RenderInstances>()
            .init_resource::<RenderMeshes>()
            .init_resource::<RenderImages>()
            .init_resource::<PipelineCache>()
            .init_resource::<FrameGraph>()
            .init_resource::<RenderTransients>()
            .init_resource::<ReportedErrors>()
            .init_resource::<LastGraph>()
            .init_resource::<MainViewOutput>()
            .init_resource::<ViewOutput>()
            .init_resource::<ExtractedWindows>()
            .init_resource::<RenderSurfaces>()
            .init_resource::<KeepGraphDump>();
        render.add_systems(
            ExtractSchedule,
            (
                recovery::recover_lost_device,
                extract::extract_frame,
                crate::window::extract_windows,
                extract::extract_camera,
                extract::extract_lights,
                extract::extract_environment,
                crate::material::reload::extract_material_files,
                extract::extract_assets,
                prepare::materials::prepare_materials,
                prepare::materials::move_material_instances,
                extract::extract_instances,
                extract::extract_screenshots,
            )
                .chain(),
        );
        render.add_systems(
            RenderFrame,
            (
                prepare::assets::prepare_assets,
                prepare::view::prepare_environment,
                crate::window::prepare_surfaces,
            )
                .chain()
                .in_set(RenderFrameSystems::Prepare),
        );
        render.add_systems(Render, prepare::draws::prepare_frame.in_set(RenderSystems::Prepare));
        passes::add_standard_passes(render);
        render.add_systems(Render, execute_frame_graph.in_set(RenderSystems::Execute));
        render.add_systems(Render, crate::window::present_view.in_set(RenderSystems::Cleanup));
        render.add_systems(RenderFrame, finish_frame.in_set(RenderFrameSystems::Finish));
    }

    /// Inserts `device` as [`RenderDevice`] in both worlds and what is made from it in the
    /// render world, runs [`RenderStartup`](crate::render::RenderStartup); `extend` adds to
    /// the render app before it is moved to its thread (when pipelined). Reports and
    /// requests exit when the render world cannot start.
    pub(crate) fn start_render_world(
        &self,
        app: &mut App,
        device: Arc<dyn GraphicsDevice>,
        extend: impl FnOnce(&mut SubApp),
    ) {
        let Some(mut render) = app.remove_sub_app(RenderApp) else {
            bevy_log::error!("the render world was removed before the device opened");
            app.world_mut().write_message(bevy_app::AppExit::error());
            return;
        };
        let (sender, receiver) = crossbeam_channel::unbounded();
        let budget = prepare::materials::material_array_budget(device.as_ref());
        let material_store = RenderMaterialStore::new(device.clone(), self.hot_reload, budget);
        let view = match ViewResources::new(device.as_ref()) {
            Ok(v) => v,
            Err(e) => {
                bevy_log::error!("the render world cannot start: {e}");
                app.world_mut().write_message(bevy_app::AppExit::error());
                return;
            }
        };
        if let Some(loader) = app.world().get_resource::<MaterialLoaderBudget>() {
            loader.set(budget);
        }
        app.insert_resource(MaterialWatch(material_store.store.change_signal()));
        app.insert_resource(RenderDevice(device.clone()));
        app.insert_resource(RenderReportReceiver { receiver });
        render
            .insert_resource(RenderDevice(device))
            .insert_resource(RenderReports { sender })
            .insert_resource(view)
            .insert_resource(material_store)
            .insert_resource(RenderMaterials::new(budget));
        extend(&mut render);
        render.world_mut().run_schedule(crate::render::RenderStartup);
        app.insert_sub_app(RenderApp, render);
        if self.pipelined {
            pipelined::enable(app);
        }
    }
}
