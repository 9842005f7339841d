//! Life after a device loss: the render world reopens a device through the registry, rebuilds
//! its GPU resources from the main world, and frames continue.
//!
//! ```text
//!  frame N:   a device call fails: the device is lost (driver reset, watchdog, simulate_loss)
//!             passes draw nothing; screenshots of frame N are answered with the error
//!  frame N+1: ExtractSchedule, first system: take_loss_report() ─► DeviceLost (main world)
//!               registry.open(the plugin's request) ─► RenderDevice replaced in both worlds
//!               render-world GPU state dropped: meshes, images, material tables, pipelines,
//!               instance buffers, transients, the view's textures
//!               every asset queued again, every mesh entity re-read, the environment redone
//!             ─► DeviceRecovered (main world); extraction and the frame go on as usual
//!  no device opens ─► the error is logged and the app exits with AppExit::error
//! ```
//!
//! Decisions:
//!
//! * **Detected at the next frame's start**, from [`GraphicsDevice::take_loss_report`], the one
//!   place the HAL reports a loss (once). The frame that hit the loss has already failed; it
//!   is not retried (its screenshots carry the error, so nothing waits for them forever).
//! * **The same request reopens**, so the registry's order applies again: the backend that was
//!   lost if it opens, the next one (soft last) if not.
//! * **Rebuilt from the main world**, which holds every asset and entity: the render world
//!   keeps nothing the new device would need. What a material compiled on the CPU (naga
//!   modules) is compiled again; that costs one frame's worth of compiles, once.
//! * **Windows recover too**: their surfaces belonged to the lost device, and are made again
//!   on the new one at the next frame ([`crate::window`]). An app that would rather exit with
//!   the loss as the reason inserts [`NoDeviceRecovery`] in the render world.
//! * Resources a plugin keeps for its own passes are its own: their handles of the lost device
//!   answer errors (never panics); [`DeviceRecovered`] tells it to make them again.

use bevy_app::AppExit;
use bevy_ecs::prelude::*;
use f3d_hal::{BackendId, DeviceRequest, GraphicsDevice};

use super::MainWorld;
use super::extract::{ExtractEveryAsset, ExtractedAssets, ExtractedEnvironment, InstanceChanges};
use super::graph::{FrameGraph, RenderTransients};
use super::instances::RenderInstances;
use super::prepare::materials::material_array_budget;
use super::prepare::{PipelineCache, RenderImages, RenderMaterials, RenderMeshes, ViewResources};
use bevy_mesh::Mesh3d;

use crate::environment::Environment;
use crate::resources::{FrameClock, RenderDevice, RenderRegistry};

/// The device was lost (a main-world message, once per loss).
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct DeviceLost {
    /// The backend of the lost device.
    pub backend: BackendId,
    /// Why, as the device reported it.
    pub reason: String,
    /// The main world's frame at which the loss was taken up.
    pub frame: u64,
}

/// A new device replaced a lost one and the render world was rebuilt on it (a main-world
/// message). Plugins holding GPU resources of their own make them again on the new device.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct DeviceRecovered {
    /// The new device's backend.
    pub backend: BackendId,
    /// The new device's adapter.
    pub adapter: String,
    /// The main world's frame from which it draws.
    pub frame: u64,
}

/// The request the plugin opened its device with (main world); a lost device is replaced by
/// what the registry opens for it.
#[derive(Resource, Clone, Debug)]
pub struct RenderDeviceRequest(pub DeviceRequest);

/// In the render world: a lost device is not replaced; the app exits with the loss as its
/// error.
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct NoDeviceRecovery;

/// Takes up a device loss at the start of a frame (the first extraction system): reports it,
/// opens a new device and rebuilds the render world on it, or exits when none opens.
pub(crate) fn recover_lost_device(world: &mut World) {
    let Some(lost) = world.get_resource::<RenderDevice>().map(|d| d.0.clone()) else { return };
    let Some(reason) = lost.take_loss_report() else { return };
    let backend = lost.backend_id();
    let Some(mut main) = world.remove_resource::<MainWorld>() else { return };
    let frame = main.get_resource::<FrameClock>().map_or(0, |c| c.frame);
    bevy_log::error!("the {backend} device was lost (taken up at frame {frame}): {reason}");
    main.write_message(DeviceLost { backend: backend.clone(), reason: reason.to_string(), frame });
    let outcome = if world.contains_resource::<NoDeviceRecovery>() {
        Err("device recovery is turned off (NoDeviceRecovery)".to_owned())
    } else {
        reopen(world, &mut main)
    };
    match outcome {
        Ok(device) => {
            // Plugins make their own GPU resources again on the new device.
            let _ = world.try_run_schedule(super::RenderStartup);
            let info = device.adapter_info();
            bevy_log::info!("drawing again on {} ({}) from frame {frame}", device.backend_id(), info.name);
            main.write_message(DeviceRecovered { backend: device.backend_id(), adapter: info.name, frame });
        }
        Err(why) => {
            bevy_log::error!(
                "the {backend} device was lost ({reason}) and cannot be replaced: {why}; exiting"
            );
            main.write_message(AppExit::error());
        }
    }
    world.insert_resource(main);
}

/// Opens a device for the plugin's request and rebuilds the render world on it.
fn reopen(world: &mut World, main: &mut MainWorld) -> Result<std::sync::Arc<dyn GraphicsDevice>, String> {
    let request = main
        .get_resource::<RenderDeviceRequest>()
        .ok_or("the plugin's device request is not in the main world")?
        .0
        .clone();
    let device = main
        .get_resource::<RenderRegistry>()
        .ok_or("the device registry is not in the main world")?
        .0
        .open(&request)
        .map_err(|e| e.to_string())?;
    let view =
        ViewResources::new(device.as_ref()).map_err(|e| format!("the render world cannot start: {e}"))?;

    // The render world forgets everything made on the lost device.
    let budget = material_array_budget(device.as_ref());
    if let Some(loader) = main.get_resource::<crate::material::loader::MaterialLoaderBudget>() {
        loader.set(budget);
    }
    world.insert_resource(RenderDevice(device.clone()));
    if let Some(mut store) = world.get_resource_mut::<crate::material::RenderMaterialStore>() {
        store.use_device(device.clone());
    }
    world.insert_resource(view);
    world.insert_resource(RenderMaterials::new(budget));
    world.insert_resource(RenderMeshes::default());
    world.insert_resource(RenderImages::default());
    world.insert_resource(RenderInstances::default());
    world.insert_resource(PipelineCache::default());
    world.insert_resource(RenderTransients::default());
    world.insert_resource(FrameGraph::default());
    world.insert_resource(ExtractedAssets::default());
    world.insert_resource(ExtractedEnvironment::default());
    world.insert_resource(ExtractEveryAsset(true));

    // ...and takes it all again from the main world this very frame.
    main.insert_resource(RenderDevice(device.clone()));
    let meshes: Vec<Entity> = main.query_filtered::<Entity, With<Mesh3d>>().iter(main).collect();
    if let Some(mut changes) = main.get_resource_mut::<InstanceChanges>() {
        changes.bypass_change_detection().touch_all(meshes);
    }
    let mut environments = main.query::<&mut Environment>();
    for mut environment in environments.iter_mut(main) {
        environment.set_changed();
    }
    Ok(device)
}
