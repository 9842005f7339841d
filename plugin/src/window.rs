//! Windows the Bevy way: f3d presents into bevy_window's `Window` entities.
//!
//! ```text
//!  main world: bevy_winit (feature `window`) makes a winit window for each `Window` entity and
//!              gives it a RawHandleWrapper; track_windows keeps WindowTargets (sizes, the
//!              primary) and RenderSettings::size = the primary window's physical size
//!    ──extract_windows──▶ ExtractedWindows (handles, physical size, present mode)
//!  render world: prepare_surfaces   a surface per window (GraphicsDevice::create_surface),
//!                                   configured when the size or mode changes, dropped when
//!                                   the window goes, made again on a new device
//!                per camera (Render): …Execute, then present_view (Cleanup): the last
//!                                   camera on a window presents its output there
//! ```
//!
//! Decisions, and why:
//!
//! * **bevy_winit drives the loop**, as in any Bevy app: f3d has no runner of its own. With
//!   [`F3dDefaultPlugins`](crate::F3dDefaultPlugins) (feature `window`) an app gets the
//!   window, input and winit plugins; headless apps leave them out and a camera's
//!   `RenderTarget::Window` draws into the offscreen main target (the size
//!   [`F3dRenderPlugin::size`](crate::plugin::F3dRenderPlugin) asks for) that screenshots read.
//! * **The device opens before any window exists** (in `Plugin::finish`, as headless), and
//!   each window gets a surface on that device when bevy_winit has made it. Every backend
//!   that reports [`DeviceFeature::PRESENT`](f3d_hal::DeviceFeature::PRESENT) presents:
//!   wgpu (its surface), vulkan (a swapchain) and soft (a CPU framebuffer through
//!   softbuffer), so a machine with no GPU still shows the window.
//! * **A window that cannot be presented to ends the app cleanly**: the device's refusal
//!   (naming the backend and the window) is logged and `AppExit::error()` sent; nothing
//!   panics. A frame the window cannot take (outdated, hidden) is skipped.
//! * **Sizes are the window's physical pixels**: a camera on a window draws at its size and
//!   its projection follows it; a minimised window (zero size) draws nothing until it is
//!   restored. The window's `present_mode` is honoured where the surface offers it (the
//!   fallback is FIFO, which every surface has).
//! * Several cameras on one window each draw the whole window; the last in `order` is what
//!   is presented (and what screenshots read for the primary window).
//! * Presentation happens in the render world, so inline and pipelined rendering present
//!   alike; a surface keeps its window alive (bevy_window's `RawHandleWrapper`) until the
//!   render world drops it, so a frame still in flight when the window closes is harmless.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use bevy_camera::RenderTarget;
use bevy_ecs::prelude::*;
use bevy_extract::MainWorld;
use bevy_math::UVec2;
use bevy_window::{PrimaryWindow, RawHandleWrapper, Window, WindowRef};
use f3d_hal::{PresentMode, PresentSurface, Presented, SurfaceConfig, SurfaceTarget};

use crate::render::CurrentView;
use crate::render::extract::ExtractedCamera;
use crate::render::graph::{ReportedErrors, ViewOutput};
use crate::resources::{RenderDevice, RenderSettings};
use crate::screenshot::{RenderReport, RenderReports};

/// The windows cameras can target (main world), kept from bevy_window's `Window` entities
/// each frame (in `First`).
#[derive(Resource, Default, Clone, Debug)]
pub struct WindowTargets {
    /// The entity with bevy_window's `PrimaryWindow`, if there is one.
    pub primary: Option<Entity>,
    /// Every window's physical size.
    pub sizes: HashMap<Entity, UVec2>,
}

impl WindowTargets {
    /// The window entity `window` names, if that window exists.
    pub fn resolve(&self, window: &WindowRef) -> Option<Entity> {
        match window {
            WindowRef::Primary => self.primary,
            WindowRef::Entity(e) => self.sizes.contains_key(e).then_some(*e),
        }
    }

    /// The size of what `target` draws into when it is a window that exists; `None` for
    /// other targets and for a window target with no such window (headless: the main target).
    pub fn window_size(&self, target: Option<&RenderTarget>) -> Option<UVec2> {
        match target {
            None => self.primary.and_then(|p| self.sizes.get(&p).copied()),
            Some(RenderTarget::Window(w)) => self.resolve(w).and_then(|e| self.sizes.get(&e).copied()),
            Some(_) => None,
        }
    }

    /// The window entity a camera with `target` draws into (`None` headless or off-window).
    pub fn window_of(&self, target: Option<&RenderTarget>) -> Option<Entity> {
        match target {
            None => self.primary,
            Some(RenderTarget::Window(w)) => self.resolve(w),
            Some(_) => None,
        }
    }
}

/// Keeps [`WindowTargets`] and the main target's size (the primary window's physical size,
/// while it has one) in step with the `Window` entities.
pub(crate) fn track_windows(
    windows: Query<(Entity, &Window, Has<PrimaryWindow>)>,
    mut targets: ResMut<WindowTargets>,
    mut settings: ResMut<RenderSettings>,
) {
    let targets = &mut *targets;
    targets.sizes.clear();
    targets.primary = None;
    for (entity, window, primary) in &windows {
        let size = UVec2::new(window.resolution.physical_width(), window.resolution.physical_height());
        targets.sizes.insert(entity, size);
        if primary {
            targets.primary = Some(entity);
            if size.x > 0 && size.y > 0 && settings.size != (size.x, size.y) {
                settings.size = (size.x, size.y);
            }
        }
    }
}

/// A window the render world presents into.
#[derive(Clone, Debug)]
pub struct ExtractedWindow {
    /// The window entity.
    pub entity: Entity,
    /// Its handles (and what keeps the winit window alive).
    pub handles: RawHandleWrapper,
    /// Physical size.
    pub size: (u32, u32),
    /// Frame pacing.
    pub present_mode: PresentMode,
    /// `window <entity> "<title>"`, for errors.
    pub label: String,
}

/// The windows of this frame that have handles (render world).
#[derive(Resource, Default, Clone, Debug)]
pub struct ExtractedWindows(pub Vec<ExtractedWindow>);

fn present_mode(mode: bevy_window::PresentMode) -> PresentMode {
    use bevy_window::PresentMode as B;
    match mode {
        B::AutoVsync => PresentMode::AutoVsync,
        B::AutoNoVsync => PresentMode::AutoNoVsync,
        B::Fifo => PresentMode::Fifo,
        B::FifoRelaxed => PresentMode::FifoRelaxed,
        B::Immediate => PresentMode::Immediate,
        B::Mailbox => PresentMode::Mailbox,
    }
}

type WindowData = (Entity, &'static Window, &'static RawHandleWrapper);

/// Copies the windows that bevy_winit has made (those with handles).
pub(crate) fn extract_windows(
    mut main: ResMut<MainWorld>,
    mut state: Local<Option<QueryState<WindowData>>>,
    mut out: ResMut<ExtractedWindows>,
) {
    let state = state.get_or_insert_with(|| main.query());
    out.0.clear();
    for (entity, window, handles) in state.iter(&main) {
        out.0.push(ExtractedWindow {
            entity,
            handles: handles.clone(),
            size: (window.resolution.physical_width(), window.resolution.physical_height()),
            present_mode: present_mode(window.present_mode),
            label: format!("window {entity} \"{}\"", window.title),
        });
    }
}

/// Each window's surface on the render device (render world).
#[derive(Resource, Default)]
pub struct RenderSurfaces {
    // A mutex only to make the resource `Sync`: surfaces are used through `&mut` alone.
    surfaces: HashMap<Entity, Mutex<Box<dyn PresentSurface>>>,
    /// The device the surfaces were made on (identity): a replaced device gets new ones.
    device: Option<usize>,
    /// Windows the device refused (reported once; not asked again on this device).
    refused: HashSet<Entity>,
    /// Frames shown and skipped, for tests and diagnostics.
    pub stats: PresentStats,
}

/// What presentation did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PresentStats {
    /// Frames shown.
    pub shown: u64,
    /// Frames a window could not take (outdated, hidden, minimised).
    pub skipped: u64,
}

impl RenderSurfaces {
    /// How many windows have a surface.
    pub fn len(&self) -> usize {
        self.surfaces.len()
    }

    /// Whether no window has a surface.
    pub fn is_empty(&self) -> bool {
        self.surfaces.is_empty()
    }
}

/// Makes, follows and drops window surfaces (see the module docs).
pub(crate) fn prepare_surfaces(
    device: Res<RenderDevice>,
    windows: Res<ExtractedWindows>,
    mut surfaces: ResMut<RenderSurfaces>,
    mut errors: ResMut<ReportedErrors>,
    reports: Option<Res<RenderReports>>,
) {
    let identity = Arc::as_ptr(&device.0).cast::<()>() as usize;
    let surfaces = &mut *surfaces;
    if surfaces.device != Some(identity) {
        surfaces.surfaces.clear();
        surfaces.refused.clear();
        surfaces.device = Some(identity);
    }
    surfaces.surfaces.retain(|entity, _| windows.0.iter().any(|w| w.entity == *entity));
    for window in &windows.0 {
        if surfaces.refused.contains(&window.entity) {
            continue;
        }
        let config =
            SurfaceConfig { width: window.size.0, height: window.size.1, present_mode: window.present_mode };
        if let Some(surface) = surfaces.surfaces.get_mut(&window.entity) {
            let surface = surface.get_mut().unwrap_or_else(|e| e.into_inner());
            if surface.config() != config
                && let Err(e) = surface.configure(&config)
            {
                errors.report(format!("{}: the surface did not follow the window: {e}", window.label));
            }
            continue;
        }
        let handles = window.handles.clone();
        // SAFETY: bevy_window's handles stay valid while the winit window lives, and the
        // `RawHandleWrapper` kept in the target holds that window; f3d presents only on
        // platforms whose window handles work from any thread (X11, Wayland, Windows).
        let target = unsafe {
            SurfaceTarget::new(
                handles.get_window_handle(),
                handles.get_display_handle(),
                window.label.clone(),
                Arc::new(handles),
            )
        };
        match device.create_surface(&target, &config) {
            Ok(surface) => {
                bevy_log::info!("presenting to {} on {}", window.label, device.describe());
                surfaces.surfaces.insert(window.entity, Mutex::new(surface));
            }
            Err(e) => {
                surfaces.refused.insert(window.entity);
                let message =
                    format!("cannot present to {} on the {} backend: {e}", window.label, device.backend_id());
                errors.report(message.clone());
                if let Some(reports) = &reports {
                    let _ = reports.sender.send(RenderReport::Exit(message));
                }
            }
        }
    }
}

/// Presents the view's output on its window when it is the last camera drawing there.
pub(crate) fn present_view(
    camera: Res<ExtractedCamera>,
    current: Res<CurrentView>,
    output: Res<ViewOutput>,
    mut surfaces: ResMut<RenderSurfaces>,
    mut errors: ResMut<ReportedErrors>,
) {
    let (Some(view), Some(texture)) = (&camera.0, &output.0) else { return };
    let Some(window) = view.window.filter(|_| current.presents) else { return };
    let surfaces = &mut *surfaces;
    let Some(surface) = surfaces.surfaces.get_mut(&window) else { return };
    let surface = surface.get_mut().unwrap_or_else(|e| e.into_inner());
    match surface.present(texture) {
        Ok(Presented::Shown) => surfaces.stats.shown += 1,
        Ok(Presented::Skipped(why)) => {
            surfaces.stats.skipped += 1;
            bevy_log::debug!("{}: frame skipped: {why}", surface.label());
        }
        Err(e) => errors.report(format!("{}: present: {e}", surface.label())),
    }
}
