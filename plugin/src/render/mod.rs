//! The render world: a bevy_app [`SubApp`] with its own schedules.
//!
//! ```text
//!  main world ──extract (bevy_extract's ExtractSchedule, main world lent as MainWorld)──▶ render world
//!
//!  RenderFrame schedule (once a frame):
//!     RenderFrameSystems::ApplyExtractCommands   commands queued during extraction
//!     RenderFrameSystems::Prepare                meshes and images uploaded, the environment
//!     RenderFrameSystems::Views                  for each active camera, in `order`:
//!         Render schedule (once per camera; ExtractedCamera is that camera):
//!             RenderSystems::Prepare   pack uniforms, resolve pipelines, sort, begin the graph
//!             RenderSystems::Graph     the standard passes and app passes add to FrameGraph
//!             RenderSystems::Execute   compile the graph and execute it
//!             RenderSystems::Cleanup   after the view
//!     RenderFrameSystems::Finish                 screenshots read back, reports to the main world
//! ```
//!
//! Every active camera draws, in ascending `order`, into its own target: the main target
//! (the window, or the headless offscreen image screenshots read) or an image
//! (`RenderTarget::Image` of an image made with `Image::new_target_texture`), which the
//! materials of later cameras sample in the same frame. Screenshots read the last camera that
//! draws to the window (or, with none, the last camera). Cameras on the same window each
//! draw the whole target; the last one's picture is what shows.
//!
//! The sub-app and its schedules exist from [`F3dRenderPlugin`](crate::plugin::F3dRenderPlugin)'s
//! `build`, so a plugin added after it adds its own systems there in its `build`:
//!
//! ```ignore
//! app.sub_app_mut(RenderApp)
//!     .add_systems(RenderStartup, make_my_pipeline) // once the device is open
//!     .add_systems(Render, add_my_pass.in_set(RenderSystems::Graph)); // per camera
//! ```
//!
//! That works inline, pipelined and windowed alike (pipelined, the sub-app moves to its
//! thread only after every plugin's `finish`). Extraction is bevy_extract's: `Extract<…>`
//! system parameters in [`ExtractSchedule`], `ExtractComponentPlugin::<C, RenderApp>` and
//! `ExtractResourcePlugin::<R, RenderApp>` work as with Bevy's own renderer.
//!
//! Inline, the render world updates right after the main world in `App::update`. Pipelined
//! (`pipelined`), it runs on its own thread one frame behind; the main world's data is
//! copied during extraction, so both modes draw the same pixels for the same frame.

pub mod extract;
pub mod graph;
pub(crate) mod instances;
pub(crate) mod pipelined;
pub mod prepare;
pub mod recovery;

use bevy_app::{App, AppLabel, SubApp};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{Schedule, ScheduleLabel, SystemSet};
pub use bevy_extract::{Extract, ExtractPlugin, ExtractSchedule, MainWorld};

/// The render sub-app's label.
#[derive(AppLabel, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RenderApp;

/// Runs once in the render world when a device opened (and again after a lost device was
/// replaced): one-time GPU setup of passes that plugins add, e.g. a pipeline inserted as a
/// resource. `RenderDevice` is there when it runs.
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderStartup;

/// The render world's frame schedule: runs [`Render`] once per camera.
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderFrame;

/// The stages of [`RenderFrame`], in order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderFrameSystems {
    /// Commands queued by [`ExtractSchedule`] systems (bevy_extract's
    /// `ExtractComponentPlugin`, an `Extract<…>` system's `Commands`) are applied.
    ApplyExtractCommands,
    /// Meshes and images uploaded, the environment prepared: once for every view.
    Prepare,
    /// [`Render`] runs for each camera.
    Views,
    /// Screenshots are read back and the frame is reported to the main world.
    Finish,
}

/// The schedule of one view: runs once per active camera each frame (once with no camera),
/// with [`ExtractedCamera`](extract::ExtractedCamera) set to that camera.
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Render;

/// The stages of a view's [`Render`] schedule, in order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderSystems {
    /// Pack uniforms, resolve pipelines, sort; begins the view's graph.
    Prepare,
    /// Systems add passes to [`FrameGraph`](graph::FrameGraph). Standard passes are in
    /// [`PassSystems`](crate::passes::PassSystems) sets inside this one.
    Graph,
    /// Compile and execute the graph.
    Execute,
    /// After the view is drawn.
    Cleanup,
}

/// Which of the frame's views [`Render`] is drawing.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CurrentView {
    /// Its place in drawing order.
    pub index: usize,
    /// How many views the frame has.
    pub count: usize,
    /// Whether screenshots read what it draws (the last camera on the window, or the last).
    pub main: bool,
    /// Whether it presents what it draws on its window (the last camera on that window).
    pub presents: bool,
}

/// Runs [`Render`] for every active camera in order (see the module docs).
pub(crate) fn render_views(world: &mut World) {
    let views = world.get_resource::<extract::ExtractedCameras>().map(|c| c.0.clone()).unwrap_or_default();
    if views.is_empty() {
        world.insert_resource(extract::ExtractedCamera(None));
        world.insert_resource(CurrentView { index: 0, count: 1, main: true, presents: false });
        world.run_schedule(Render);
        return;
    }
    let main = views.iter().rposition(|v| v.to_window).unwrap_or(views.len() - 1);
    for (index, view) in views.iter().enumerate() {
        if let Some(mut lights) = world.get_resource_mut::<extract::ExtractedLights>() {
            lights.reexpose(view.exposure);
        }
        world.insert_resource(extract::ExtractedCamera(Some(view.clone())));
        // The last camera on a window presents there.
        let presents =
            view.window.is_some_and(|w| !views[index + 1..].iter().any(|later| later.window == Some(w)));
        world.insert_resource(CurrentView { index, count: views.len(), main: index == main, presents });
        world.run_schedule(Render);
    }
}

/// Adds the render sub-app through bevy_extract's [`ExtractPlugin`] (so [`ExtractSchedule`],
/// [`Extract`], [`MainWorld`], `ExtractComponentPlugin::<C, RenderApp>` and
/// `ExtractResourcePlugin::<R, RenderApp>` work as they do for Bevy's renderer) and gives it
/// f3d's schedules and sets.
pub(crate) fn add_render_app(app: &mut App) -> &mut SubApp {
    app.add_plugins(ExtractPlugin::<RenderApp>::new(
        |_, _| {},
        || Schedule::new(RenderFrame),
        RenderFrame.intern(),
        RenderFrameSystems::ApplyExtractCommands.intern(),
        RenderFrameSystems::Finish.intern(),
    ));
    let render = app.sub_app_mut(RenderApp);
    render.init_schedule(RenderStartup);
    render.init_schedule(Render);
    render.update_schedule = Some(RenderFrame.intern());
    render.init_resource::<CurrentView>().init_resource::<extract::ExtractedCameras>();
    render.configure_sets(
        RenderFrame,
        (
            RenderFrameSystems::ApplyExtractCommands,
            RenderFrameSystems::Prepare,
            RenderFrameSystems::Views,
            RenderFrameSystems::Finish,
        )
            .chain(),
    );
    render.add_systems(RenderFrame, render_views.in_set(RenderFrameSystems::Views));
    render.configure_sets(
        Render,
        (RenderSystems::Prepare, RenderSystems::Graph, RenderSystems::Execute, RenderSystems::Cleanup)
            .chain(),
    );
    render
}
