//! `f3d render` and `f3d graph`: draw an example scene with the plugin.

use std::path::PathBuf;

use f3d::f3d_hal::BackendId;
use f3d::plugin::RenderRegistry;
use f3d::prelude::*;
use f3d::render::graph::{KeepGraphDump, LastGraph};

/// What to draw and how.
pub struct RenderJob {
    /// A scene of `f3d_examples::SCENES`.
    pub scene: String,
    /// Target size.
    pub size: (u32, u32),
    /// A backend name, or the registry's order.
    pub backend: Option<String>,
    /// Frames to run (the last one is captured).
    pub frames: u32,
    /// Where the PNG goes (none: no screenshot).
    pub out: Option<PathBuf>,
    /// Every camera's MSAA, over the scene's (none: as the scene sets it).
    pub msaa: Option<Msaa>,
}

/// What a run produced.
pub struct RenderResult {
    /// The backend and adapter.
    pub device: String,
    /// The last frame's render-side CPU time.
    pub frame_time: std::time::Duration,
    /// The last compiled graph.
    pub graph: LastGraph,
    /// The screenshot, if one was written.
    pub written: Option<PathBuf>,
}

#[derive(Resource, Default)]
struct Written(Option<Result<PathBuf, String>>);

/// Runs the job on the backends of `registry`.
pub fn run_with(job: &RenderJob, registry: f3d::f3d_hal::DeviceRegistry) -> Result<RenderResult, String> {
    let scene = f3d_examples::scene(&job.scene).ok_or_else(|| {
        let names: Vec<&str> = f3d_examples::SCENES.iter().map(|(n, _)| *n).collect();
        format!("unknown scene {} (scenes: {})", job.scene, names.join(", "))
    })?;
    let mut app = App::new();
    app.insert_resource(RenderRegistry(registry))
        .add_plugins(F3dRenderPlugin {
            backend: job
                .backend
                .as_deref()
                .map_or(BackendChoice::Auto, |b| BackendChoice::Named(BackendId::from_name(b))),
            size: job.size,
            fixed_time_step: Some(1.0 / 60.0),
            ..Default::default()
        })
        .init_resource::<Written>()
        .add_systems(Startup, scene);
    if let Some(msaa) = job.msaa {
        f3d_examples::cli::add_msaa_override(&mut app, msaa);
    }
    let frames = job.frames.max(1);
    let out = job.out.clone();
    app.add_systems(Update, move |mut commands: Commands, mut n: Local<u32>| {
        *n += 1;
        if *n == frames
            && let Some(out) = &out
        {
            commands.spawn(Screenshot::to_file(out.clone()));
        }
    });
    app.add_systems(Update, |mut shots: MessageReader<ScreenshotCaptured>, mut written: ResMut<Written>| {
        for s in shots.read() {
            written.0 = Some(match (&s.error, &s.path) {
                (Some(e), _) => Err(e.clone()),
                (None, Some(p)) => Ok(p.clone()),
                (None, None) => Err("no file was written".into()),
            });
        }
    });
    app.finish();
    app.cleanup();
    let device = RenderDevice::describe_opened(app.world())?;
    app.sub_app_mut(f3d::render::RenderApp).insert_resource(KeepGraphDump(true));
    for _ in 0..frames + 2 {
        app.update();
        let done = app.world().resource::<RenderStats>().frames_rendered >= u64::from(frames);
        let shot_done = job.out.is_none() || app.world().resource::<Written>().0.is_some();
        if done && shot_done {
            break;
        }
    }
    let written = match app.world_mut().resource_mut::<Written>().0.take() {
        Some(Ok(p)) => Some(p),
        Some(Err(e)) => return Err(format!("screenshot: {e}")),
        None if job.out.is_some() => return Err("the screenshot never arrived".into()),
        None => None,
    };
    let graph = app.sub_app(f3d::render::RenderApp).world().resource::<LastGraph>().clone();
    let frame_time = app.world().resource::<RenderStats>().last_frame_time;
    Ok(RenderResult { device, frame_time, graph, written })
}
