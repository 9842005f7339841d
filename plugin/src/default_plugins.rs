//! [`F3dDefaultPlugins`]: what Bevy's `DefaultPlugins` gives a 3D app, with f3d as the
//! renderer.
//!
//! Porting a Bevy 3D example is one line: `DefaultPlugins` becomes `F3dDefaultPlugins`. The
//! group holds, in this order: `LogPlugin`, `TaskPoolPlugin`, `FrameCountPlugin`,
//! `TimePlugin`, `TransformPlugin`, `DiagnosticsPlugin`, `InputPlugin`, `WindowPlugin`,
//! `TerminalCtrlCHandlerPlugin`, `AssetPlugin`, then (feature `window`, where a display is
//! reachable) `AccessibilityPlugin` and `WinitPlugin`, and last
//! [`F3dRenderPlugin`], which adds the scene plugins it draws
//! from (`ImagePlugin` with its loaders, `MeshPlugin`, `CameraPlugin`, `LightPlugin`, f3d's
//! glTF loader). Each can be configured or disabled as in any plugin group:
//!
//! ```no_run
//! use f3d::prelude::*;
//!
//! App::new()
//!     .add_plugins(F3dDefaultPlugins.set(WindowPlugin {
//!         primary_window: Some(Window { title: "my app".into(), ..default() }),
//!         ..default()
//!     }))
//!     .run();
//! ```
//!
//! **No display.** bevy_winit cannot start without a window system (it would panic). Where
//! neither `DISPLAY` nor `WAYLAND_DISPLAY` leads to a reachable server, or f3d was built
//! without its `window` feature, the group leaves winit out, logs why, and the app exits with
//! `AppExit::error()` on its first frame instead of running without the window it asked for.
//! An app that wants no window at all leaves the group aside and adds
//! [`F3dRenderPlugin`] alone (headless: cameras draw into an
//! offscreen image that screenshots read), or disables `WindowPlugin`'s primary window.

use bevy_app::TerminalCtrlCHandlerPlugin;
use bevy_app::{App, AppExit, Plugin, PluginGroup, PluginGroupBuilder, Startup, TaskPoolPlugin};
use bevy_asset::AssetPlugin;
use bevy_diagnostic::{DiagnosticsPlugin, FrameCountPlugin};
use bevy_ecs::prelude::*;
use bevy_input::InputPlugin;
use bevy_log::LogPlugin;
use bevy_time::TimePlugin;
use bevy_transform::TransformPlugin;
use bevy_window::WindowPlugin;

use crate::plugin::F3dRenderPlugin;

/// Bevy's `DefaultPlugins` without Bevy's renderer, with f3d's (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default)]
pub struct F3dDefaultPlugins;

impl PluginGroup for F3dDefaultPlugins {
    fn build(self) -> PluginGroupBuilder {
        let group = PluginGroupBuilder::start::<Self>()
            .add(LogPlugin::default())
            .add(TaskPoolPlugin::default())
            .add(FrameCountPlugin)
            .add(TimePlugin)
            .add(TransformPlugin)
            .add(DiagnosticsPlugin)
            .add(InputPlugin)
            .add(WindowPlugin::default())
            .add(TerminalCtrlCHandlerPlugin)
            .add(AssetPlugin::default());
        let group = match display() {
            Ok(()) => add_winit(group),
            Err(why) => group.add(NoDisplayPlugin { why }),
        };
        group.add(F3dRenderPlugin::default())
    }
}

#[cfg(feature = "window")]
fn add_winit(group: PluginGroupBuilder) -> PluginGroupBuilder {
    group.add(bevy_a11y::AccessibilityPlugin).add(bevy_winit::WinitPlugin::default())
}

#[cfg(not(feature = "window"))]
fn add_winit(group: PluginGroupBuilder) -> PluginGroupBuilder {
    group
}

/// `Ok` where winit can reach a window system; else why not.
fn display() -> Result<(), String> {
    if !cfg!(feature = "window") {
        return Err("f3d was built without its `window` feature, so it has no window system".into());
    }
    display_reachable()
}

#[cfg(all(feature = "window", unix, not(target_vendor = "apple")))]
fn display_reachable() -> Result<(), String> {
    let wayland = std::env::var_os("WAYLAND_DISPLAY").filter(|d| !d.is_empty());
    if let Some(name) = &wayland {
        let path = std::path::Path::new(name);
        let socket = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::var_os("XDG_RUNTIME_DIR").map(std::path::PathBuf::from).unwrap_or_default().join(path)
        };
        if socket.exists() {
            return Ok(());
        }
    }
    match std::env::var("DISPLAY") {
        Ok(d) if !d.is_empty() => x11rb::connect(Some(&d))
            .map(drop)
            .map_err(|e| format!("the X display {d:?} cannot be reached: {e}")),
        _ if wayland.is_some() => Err("the Wayland display (WAYLAND_DISPLAY) has no socket".into()),
        _ => Err("no display: neither DISPLAY nor WAYLAND_DISPLAY is set".into()),
    }
}

#[cfg(all(feature = "window", not(all(unix, not(target_vendor = "apple")))))]
fn display_reachable() -> Result<(), String> {
    Ok(())
}

#[cfg(not(feature = "window"))]
fn display_reachable() -> Result<(), String> {
    Err("no window system".into())
}

/// Stands in for winit where no display can be reached: says why, and ends the app on its
/// first frame with an error.
struct NoDisplayPlugin {
    why: String,
}

impl Plugin for NoDisplayPlugin {
    fn build(&self, app: &mut App) {
        let why = self.why.clone();
        app.add_systems(Startup, move |mut exit: MessageWriter<AppExit>| {
            bevy_log::error!("F3dDefaultPlugins cannot open a window: {why}; exiting");
            exit.write(AppExit::error());
        });
    }
}
