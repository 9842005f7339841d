//! The render world: a bevy_app [`SubApp`] with its own schedules.
//!
//! ```text
//!  main world ──extract (ExtractSchedule, main world lent as MainWorld)──▶ render world
//!                                                                         │ Render schedule:
//!     RenderSystems::Prepare   upload geometry, pack uniforms, resolve pipelines, sort
//!     RenderSystems::Graph     the standard passes and app passes add to FrameGraph
//!     RenderSystems::Execute   compile the graph, execute it, read back screenshots
//!     RenderSystems::Cleanup   report to the main world
//! ```
//!
//! The sub-app and its schedules exist from [`F3dRenderPlugin`](crate::plugin::F3dRenderPlugin)'s
//! `build`, so a plugin added after it adds its own systems there in its `build`:
//!
//! ```ignore
//! app.sub_app_mut(RenderApp)
//!     .add_systems(RenderStartup, make_my_pipeline) // once the device is open
//!     .add_systems(Render, add_my_pass.in_set(RenderSystems::Graph));
//! ```
//!
//! That works inline, pipelined and windowed alike (pipelined, the sub-app moves to its
//! thread only after every plugin's `finish`).
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

use bevy_app::{AppLabel, SubApp};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::{ScheduleLabel, SystemSet};

/// The render sub-app's label.
#[derive(AppLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderApp;

/// The schedule that copies what changed from the main world (lent as [`MainWorld`]).
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtractSchedule;

/// Runs once in the render world when a device opened (and again after a lost device was
/// replaced): one-time GPU setup of passes that plugins add, e.g. a pipeline inserted as a
/// resource. `RenderDevice` is there when it runs.
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderStartup;

/// The render world's frame schedule.
#[derive(ScheduleLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Render;

/// The stages of the render world's frame, in order.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderSystems {
    /// Upload, pack, resolve pipelines, sort; begins the frame's graph.
    Prepare,
    /// Systems add passes to [`FrameGraph`](graph::FrameGraph). Standard passes are in
    /// [`PassSystems`](crate::passes::PassSystems) sets inside this one.
    Graph,
    /// Compile and execute the graph; screenshots are read back.
    Execute,
    /// Reports go to the main world.
    Cleanup,
}

/// The main world, lent to the render world while [`ExtractSchedule`] runs. Extraction
/// systems read (and, for the few things they take, write) it through this resource.
#[derive(Resource)]
pub struct MainWorld(pub World);

impl std::ops::Deref for MainWorld {
    type Target = World;
    fn deref(&self) -> &World {
        &self.0
    }
}

impl std::ops::DerefMut for MainWorld {
    fn deref_mut(&mut self) -> &mut World {
        &mut self.0
    }
}

/// An empty world kept to swap in for the main world during extraction, so extraction does
/// not allocate a world every frame.
#[derive(Resource)]
struct ScratchWorld(World);

/// Runs [`ExtractSchedule`] with `main` lent to `render` as [`MainWorld`].
pub(crate) fn extract(main: &mut World, render: &mut World) {
    let scratch = render.remove_resource::<ScratchWorld>().map_or_else(World::new, |s| s.0);
    let lent = std::mem::replace(main, scratch);
    render.insert_resource(MainWorld(lent));
    render.run_schedule(ExtractSchedule);
    // The resource was inserted just above and nothing removes it.
    let MainWorld(lent) =
        render.remove_resource::<MainWorld>().expect("MainWorld is inserted for extraction");
    let scratch = std::mem::replace(main, lent);
    render.insert_resource(ScratchWorld(scratch));
}

/// A new render sub-app with its schedules and sets, extracting through [`extract`].
pub(crate) fn new_render_app() -> SubApp {
    let mut app = SubApp::new();
    app.init_schedule(ExtractSchedule);
    app.init_schedule(RenderStartup);
    app.init_schedule(Render);
    app.update_schedule = Some(Render.intern());
    app.configure_sets(
        Render,
        (RenderSystems::Prepare, RenderSystems::Graph, RenderSystems::Execute, RenderSystems::Cleanup)
            .chain(),
    );
    app.set_extract(extract);
    app
}
