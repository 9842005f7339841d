//! Screenshots and frame reports: the render world reads the output back and reports to the
//! main world through a channel (so it works the same inline and pipelined).
//!
//! ```text
//!  commands.spawn(Screenshot::to_file("shot.png"))      main world, frame N
//!       └─extract─▶ render world: readback after the graph ran ─▶ PNG written
//!                                                            └─channel─▶ ScreenshotCaptured
//! ```

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use bevy_app::AppExit;
use bevy_ecs::prelude::*;
use crossbeam_channel::{Receiver, Sender};
use f3d_hal::ReadbackImage;

use crate::resources::RenderSettings;

/// A request for the next frame's pixels: spawn it as an entity. It is taken (despawned) at
/// the next extraction; the pixels arrive as a [`ScreenshotCaptured`] message, and are
/// written as a PNG when a path is given.
#[derive(Component, Clone, Debug, Default, PartialEq, Eq)]
pub struct Screenshot {
    /// Where to write the PNG, if anywhere.
    pub path: Option<PathBuf>,
}

impl Screenshot {
    /// Captures the frame and writes it to `path` as PNG.
    pub fn to_file(path: impl Into<PathBuf>) -> Self {
        Self { path: Some(path.into()) }
    }

    /// Captures the frame; the pixels arrive only as a message.
    pub fn pixels() -> Self {
        Self { path: None }
    }
}

/// A screenshot request as the render world holds it.
#[derive(Clone, Debug)]
pub struct ScreenshotRequest {
    /// The request.
    pub shot: Screenshot,
    /// The frame it was taken on.
    pub frame: u64,
}

/// A captured frame (a main-world message).
#[derive(Message, Clone, Debug)]
pub struct ScreenshotCaptured {
    /// The frame the pixels are of.
    pub frame: u64,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGBA8, sRGB-encoded, rows from the top (empty on error).
    pub pixels: Arc<Vec<u8>>,
    /// The file written, if one was asked for and written.
    pub path: Option<PathBuf>,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

impl ScreenshotCaptured {
    pub(crate) fn from_readback(request: ScreenshotRequest, result: Result<ReadbackImage, String>) -> Self {
        let mut out = Self {
            frame: request.frame,
            width: 0,
            height: 0,
            pixels: Arc::new(Vec::new()),
            path: None,
            error: None,
        };
        match result {
            Ok(image) => {
                out.width = image.width;
                out.height = image.height;
                if let Some(path) = &request.shot.path {
                    match write_png(path, image.width, image.height, &image.data) {
                        Ok(()) => out.path = Some(path.clone()),
                        Err(e) => out.error = Some(format!("{}: {e}", path.display())),
                    }
                }
                out.pixels = Arc::new(image.data);
            }
            Err(e) => out.error = Some(e),
        }
        out
    }
}

/// Writes RGBA8 pixels (rows from the top) as a PNG.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgba).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

/// What the render world tells the main world.
#[derive(Debug)]
pub enum RenderReport {
    /// A screenshot was read back.
    Screenshot(ScreenshotCaptured),
    /// A frame finished on the render side.
    FrameDone {
        /// The frame.
        frame: u64,
        /// CPU time of the render world's frame (extract to readback).
        execute_time: Duration,
        /// The device's memory after the frame.
        memory: f3d_hal::MemoryReport,
    },
    /// The render world cannot go on (a window it cannot present to): the app exits with an
    /// error after this is logged.
    Exit(String),
}

/// The render world's end of the report channel.
#[derive(Resource)]
pub struct RenderReports {
    pub(crate) sender: Sender<RenderReport>,
}

/// The main world's end of the report channel.
#[derive(Resource)]
pub struct RenderReportReceiver {
    pub(crate) receiver: Receiver<RenderReport>,
}

/// Frames the render world finished, and what they cost.
#[derive(Resource, Clone, Debug, Default)]
pub struct RenderStats {
    /// Frames finished.
    pub frames_rendered: u64,
    /// The last finished frame's number.
    pub last_frame: Option<u64>,
    /// CPU time of the last frame on the render side (extract, prepare, graph, execute,
    /// readback).
    pub last_frame_time: Duration,
    /// The sum over all frames.
    pub total_frame_time: Duration,
    /// Screenshots requested and not yet reported.
    pub pending_screenshots: u32,
    /// The device's memory by kind after the last finished frame.
    pub memory: f3d_hal::MemoryReport,
    /// The largest total of [`memory`](Self::memory) seen so far.
    pub peak_memory: u64,
}

/// Counts screenshot requests so a headless app does not exit before they are written.
pub(crate) fn count_screenshot_requests(added: Query<(), Added<Screenshot>>, mut stats: ResMut<RenderStats>) {
    stats.pending_screenshots += added.iter().count() as u32;
}

/// Delivers render reports as messages and stats; exits after the requested frame count.
pub(crate) fn receive_render_reports(
    // Absent when the render world did not start (no device; the app is exiting then).
    receiver: Option<Res<RenderReportReceiver>>,
    settings: Res<RenderSettings>,
    mut stats: ResMut<RenderStats>,
    mut shots: MessageWriter<ScreenshotCaptured>,
    mut exit: MessageWriter<AppExit>,
) {
    for report in receiver.iter().flat_map(|r| r.receiver.try_iter()) {
        match report {
            RenderReport::Screenshot(shot) => {
                if let Some(e) = &shot.error {
                    bevy_log::error!("screenshot of frame {} failed: {e}", shot.frame);
                }
                stats.pending_screenshots = stats.pending_screenshots.saturating_sub(1);
                shots.write(shot);
            }
            RenderReport::FrameDone { frame, execute_time, memory } => {
                stats.frames_rendered += 1;
                stats.peak_memory = stats.peak_memory.max(memory.total());
                stats.memory = memory;
                stats.last_frame = Some(frame);
                stats.last_frame_time = execute_time;
                stats.total_frame_time += execute_time;
            }
            RenderReport::Exit(why) => {
                bevy_log::error!("{why}; exiting");
                exit.write(AppExit::error());
            }
        }
    }
    if let Some(n) = settings.exit_after_frames
        && stats.frames_rendered >= u64::from(n)
        && stats.pending_screenshots == 0
    {
        exit.write(AppExit::Success);
    }
}
