//! The frame's render graph: begun by prepare, filled by the systems of
//! [`RenderSystems::Graph`](super::RenderSystems::Graph), compiled and executed here.
//!
//! A pass system takes `ResMut<FrameGraph>`, reads the view's current texture versions from
//! [`ViewGraph`], adds its pass with `graph.add_pass`, and stores the versions it wrote back.
//! That is the whole custom-pass API (see `examples/custom_pass`).

use std::collections::HashSet;
use std::sync::Arc;

use bevy_ecs::prelude::*;
use f3d_hal::{Color, LoadOp, TextureHandle, TextureRegion};
use f3d_render_graph::{CompiledGraph, RenderGraph, TextureDesc, TextureId, TransientPool};

use super::prepare::PreparedFrame;
use crate::render::CurrentView;
use crate::render::extract::{ExtractedFrame, ExtractedScreenshots};
use crate::resources::RenderDevice;
use crate::screenshot::{RenderReport, RenderReports, ScreenshotCaptured};

/// The view's textures in this frame's graph, at their current versions.
pub struct ViewGraph {
    /// The target size.
    pub size: (u32, u32),
    /// What prepare made ready.
    pub frame: Arc<PreparedFrame>,
    /// Samples per pixel of `hdr` and `depth`: 1, or 4 with [`Msaa`](crate::camera::Msaa).
    /// A pass drawing into them uses pipelines of this many samples; a pass sampling the
    /// scene colour reads [`resolved_hdr`](Self::resolved_hdr). A post-processing pass that
    /// replaces `hdr` with a single-sampled texture of its own sets this to 1 (passes after
    /// it then sample `hdr` as it is; none of them may draw into `depth`).
    pub samples: u32,
    /// Linear HDR scene colour (current version; multisampled when `samples` > 1).
    pub hdr: TextureId,
    /// Whether a pass has written `hdr` yet (the first writer clears it).
    pub hdr_written: bool,
    /// The last resolve of a multisampled `hdr`: (the version resolved, the resolved texture).
    pub hdr_resolved: Option<(TextureId, TextureId)>,
    /// Scene depth (current version).
    pub depth: TextureId,
    /// Whether a pass has written `depth` yet.
    pub depth_written: bool,
    /// The directional light's shadow map, when it casts shadows.
    pub shadow_map: Option<TextureId>,
    /// Whether the shadow pass wrote it.
    pub shadow_map_written: bool,
    /// The opaque scene's colour snapshot, when a material reads it.
    pub scene_color: Option<TextureId>,
    /// The opaque scene's depth snapshot, when a material reads it (a copy, so the
    /// translucent pass can test against `depth` and sample this).
    pub scene_depth: Option<TextureId>,
    /// The output target (imported; sRGB RGBA8).
    pub output: TextureId,
    /// The output's texture (read back by screenshots).
    pub output_texture: TextureHandle,
}

impl ViewGraph {
    /// The scene colour's current version as a single-sampled texture to sample: `hdr`
    /// itself, or when multisampled a resolve of it (a `resolve_scene_color` pass, added once
    /// per version of `hdr`).
    pub fn resolved_hdr(&mut self, graph: &mut RenderGraph) -> TextureId {
        if self.samples <= 1 {
            return self.hdr;
        }
        if let Some((version, resolved)) = self.hdr_resolved
            && version == self.hdr
        {
            return resolved;
        }
        let target =
            graph.create_texture("scene_color_resolved", TextureDesc::relative(1.0, self.frame.hdr_format));
        let hdr = self.hdr;
        let (mut kept, mut resolved) = (hdr, target);
        graph.add_pass("resolve_scene_color", |pass| {
            (kept, resolved) = pass.write_color_resolved(hdr, LoadOp::Load, target);
            |_: &mut f3d_render_graph::PassContext<'_>| Ok(())
        });
        self.hdr = kept;
        self.hdr_resolved = Some((kept, resolved));
        resolved
    }

    /// How a pass writing `hdr` starts: cleared to the camera's colour by the first writer,
    /// loaded after that. Marks it written.
    pub fn hdr_load(&mut self) -> LoadOp<Color> {
        let c = self.frame.clear_color;
        let load = if self.hdr_written {
            LoadOp::Load
        } else {
            LoadOp::Clear(Color::new(f64::from(c[0]), f64::from(c[1]), f64::from(c[2]), f64::from(c[3])))
        };
        self.hdr_written = true;
        load
    }

    /// How a pass writing `depth` starts (cleared to 1 by the first writer).
    pub fn depth_load(&mut self) -> LoadOp<f32> {
        let load = if self.depth_written { LoadOp::Load } else { LoadOp::Clear(1.0) };
        self.depth_written = true;
        load
    }
}

/// The graph being built this frame and the view's place in it.
#[derive(Resource, Default)]
pub struct FrameGraph {
    /// The graph.
    pub graph: RenderGraph,
    /// The view, when a camera draws this frame.
    pub view: Option<ViewGraph>,
}

/// Transient textures kept across frames.
#[derive(Resource, Default)]
pub struct RenderTransients(pub TransientPool);

/// The last compiled graph's text dump and dot graph (for `f3d graph` and debugging).
#[derive(Resource, Default, Clone, Debug)]
pub struct LastGraph {
    /// [`CompiledGraph::dump`].
    pub dump: String,
    /// [`CompiledGraph::to_dot`].
    pub dot: String,
}

/// Errors already reported (each once).
#[derive(Resource, Default)]
pub struct ReportedErrors(HashSet<String>);

impl ReportedErrors {
    /// Prints `message` the first time it is seen.
    pub fn report(&mut self, message: String) {
        if self.0.insert(message.clone()) {
            bevy_log::error!("{message}");
        }
    }
}

/// The texture the current view drew into, set once its graph executed (`None` when it drew
/// nothing): what the window's presenter shows.
#[derive(Resource, Default, Clone)]
pub struct ViewOutput(pub Option<TextureHandle>);

/// Whether to keep the compiled graph's dump (set by tools).
#[derive(Resource, Default, Clone, Copy)]
pub struct KeepGraphDump(pub bool);

/// The texture each frame's main view drew into ([`CurrentView::main`]), kept for
/// [`finish_frame`] (`None` when no camera drew).
#[derive(Resource, Default, Clone)]
pub struct MainViewOutput(pub Option<TextureHandle>);

/// Compiles and executes the view's graph (once per camera).
#[allow(clippy::too_many_arguments)]
pub fn execute_frame_graph(
    device: Res<RenderDevice>,
    current: Res<CurrentView>,
    mut graph: ResMut<FrameGraph>,
    mut pool: ResMut<RenderTransients>,
    mut errors: ResMut<ReportedErrors>,
    keep: Res<KeepGraphDump>,
    mut last: ResMut<LastGraph>,
    mut main_output: ResMut<MainViewOutput>,
    mut view_output: ResMut<ViewOutput>,
    frame: Res<ExtractedFrame>,
    mut begun: Local<Option<u64>>,
) {
    let FrameGraph { graph, view } = std::mem::take(&mut *graph);
    let device = device.0.as_ref();
    if current.main {
        main_output.0 = None;
    }
    view_output.0 = None;
    let Some(view) = view else { return };
    let compiled: Option<CompiledGraph> = match graph.compile(view.size) {
        Ok(c) => Some(c),
        Err(e) => {
            errors.report(format!("the frame graph does not compile: {e}"));
            None
        }
    };
    if let Some(compiled) = compiled {
        if keep.0 && current.main {
            *last = LastGraph { dump: compiled.dump(), dot: compiled.to_dot() };
        }
        // One frame of the device per frame of the app, begun by its first view that draws.
        let first = *begun != Some(frame.frame);
        *begun = Some(frame.frame);
        if first && let Err(e) = device.begin_frame() {
            errors.report(format!("begin_frame: {e}"));
        } else if let Err(e) = compiled.execute(device, &mut pool.0) {
            errors.report(format!("frame: {e}"));
        }
    }
    view_output.0 = Some(view.output_texture.clone());
    if current.main {
        main_output.0 = Some(view.output_texture);
    }
}

/// Reads back the frame's screenshots from the main view and reports the frame (once per
/// frame, after every view drew).
pub fn finish_frame(
    device: Res<RenderDevice>,
    frame: Res<ExtractedFrame>,
    mut main_output: ResMut<MainViewOutput>,
    mut screenshots: ResMut<ExtractedScreenshots>,
    reports: Option<Res<RenderReports>>,
) {
    let started = frame.started.unwrap_or_else(std::time::Instant::now);
    let device = device.0.as_ref();
    let output = main_output.0.take();
    let requests = std::mem::take(&mut screenshots.0);
    let mut captured = Vec::new();
    for request in requests {
        let result = match &output {
            Some(texture) => device
                .readback(texture, TextureRegion::full(texture.descriptor()))
                .and_then(|p| p.wait())
                .map_err(|e| e.to_string()),
            None => Err("no camera drew this frame".to_owned()),
        };
        captured.push(ScreenshotCaptured::from_readback(request, result));
    }
    let cpu_time = started.elapsed();
    if let Some(reports) = reports {
        for shot in captured {
            let _ = reports.sender.send(RenderReport::Screenshot(shot));
        }
        let _ = reports.sender.send(RenderReport::FrameDone {
            frame: frame.frame,
            execute_time: cpu_time,
            memory: device.memory_report(),
        });
    }
}
