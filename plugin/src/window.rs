//! Windowed mode: the frame presented live in a winit window (feature `window`, wgpu only).
//!
//! ```text
//!  F3dRenderPlugin { window: Some(WindowSettings) }
//!    build:   installs the runner (App::set_runner)
//!    runner:  winit event loop ── resumed ──► window, WindowPresenter::open (wgpu device on an
//!             adapter that presents to it) ──► RenderDevice, render world (+ RenderWindow)
//!             RedrawRequested ──► app.update() ──► render world: … Execute: execute graph,
//!                                                  present FrameOutput on the window
//!             Resized ──► RenderSettings::size ──► next frame's attachments at that size
//!             CloseRequested / AppExit (exit_after_frames) ──► the event loop ends
//! ```
//!
//! Decisions, and why:
//!
//! * **One setting, [`F3dRenderPlugin::window`](crate::plugin::F3dRenderPlugin::window):
//!   `Option<WindowSettings>`**, `None` being headless. The window's initial size is the
//!   plugin's `size` (one size, not two that could disagree); from then on the render size
//!   follows the window's inner size in physical pixels.
//! * **The device opens in the runner, not in `Plugin::finish`.** winit 0.30 creates windows
//!   only inside its event loop, and the device must come from an adapter that can present
//!   to the window's surface. So windowed, `finish` leaves the device to the runner, which
//!   calls `App::finish`/`App::cleanup` itself and inserts
//!   [`RenderDevice`](crate::plugin::RenderDevice) before the first
//!   `App::update`: startup systems see it as they do headless.
//! * **Presentation happens in the render world** (a system after the graph executes), so it
//!   works inline and pipelined alike; a resize reaches the presenter through extraction
//!   (`ExtractedFrame::size`), in step with the frame drawn at that size.
//! * Only a camera whose target is `RenderTarget::Window` is shown; an `Image` target still
//!   renders (screenshots read it) but is not presented.
//! * The plugin's runner replaces any other (do not add `ScheduleRunnerPlugin`): frames are
//!   drawn continuously, one per `RedrawRequested`, paced by the surface (vsync).
//!
//! Errors (no display, another backend chosen, no adapter that presents to the window) are
//! printed and the app exits with [`AppExit::error`](bevy_app::AppExit::error); nothing panics.

/// How the plugin's window looks (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSettings {
    /// The window's title.
    pub title: String,
    /// Whether the user may resize it (the render size follows).
    pub resizable: bool,
}

impl Default for WindowSettings {
    fn default() -> Self {
        Self { title: "f3d".into(), resizable: true }
    }
}

#[cfg(feature = "window")]
pub use windowed::{PrimaryWindow, WindowError};

/// The winit the window comes from, so apps name the same crate ([`PrimaryWindow`]).
#[cfg(feature = "window")]
pub use f3d_backend_wgpu::winit;

#[cfg(feature = "window")]
pub(crate) use windowed::run_windowed;

#[cfg(feature = "window")]
mod windowed {
    use std::sync::Arc;

    use bevy_app::{App, AppExit, PluginsState, SubApp};
    use bevy_ecs::prelude::*;
    use f3d_backend_wgpu::winit::application::ApplicationHandler;
    use f3d_backend_wgpu::winit::dpi::PhysicalSize;
    use f3d_backend_wgpu::winit::event::WindowEvent;
    use f3d_backend_wgpu::winit::event_loop::{ActiveEventLoop, EventLoop};
    use f3d_backend_wgpu::winit::window::{Window, WindowId};
    use f3d_backend_wgpu::{WgpuDevice, WindowPresenter};
    use f3d_hal::{BackendId, DeviceRequest, GraphicsDevice, ValidatingDevice};

    use super::WindowSettings;
    use crate::plugin::{BackendChoice, F3dRenderPlugin, RenderSettings};
    use crate::render::extract::{ExtractedCameras, ExtractedFrame};
    use crate::render::graph::{FrameOutput, ReportedErrors, finish_frame};
    use crate::render::{RenderFrame, RenderFrameSystems};

    /// Why the window or its device could not be made.
    #[derive(Debug, thiserror::Error)]
    #[non_exhaustive]
    pub enum WindowError {
        /// Windows present through wgpu; another backend was asked for.
        #[error(
            "windowed mode presents through the wgpu backend, but the {backend} backend was asked \
             for (F3dRenderPlugin::backend or F3D_BACKEND)"
        )]
        NotWgpu {
            /// The backend asked for.
            backend: BackendId,
        },
        /// winit could not start (no display server: set `DISPLAY` or `WAYLAND_DISPLAY`).
        #[error("no event loop (is there a display? DISPLAY/WAYLAND_DISPLAY): {0}")]
        EventLoop(String),
        /// The window was refused.
        #[error("the window could not be created: {0}")]
        Window(String),
        /// No wgpu adapter presents to the window, or its surface could not be set up.
        #[error("no device can present to the window: {0}")]
        Device(#[from] f3d_hal::OpenError),
    }

    /// The plugin's window, a main-world resource once the window exists (from the first
    /// `App::update` on): apps may retitle it, ask for a size, read its id.
    #[derive(Resource, Clone)]
    pub struct PrimaryWindow(pub Arc<Window>);

    /// The window's surface and the wgpu device it presents with (render world).
    #[derive(Resource)]
    struct RenderWindow {
        device: Arc<WgpuDevice>,
        presenter: WindowPresenter,
    }

    /// Shows the frame's output in the window, following the window's size first.
    fn present_window(
        mut window: ResMut<RenderWindow>,
        frame: Res<ExtractedFrame>,
        cameras: Res<ExtractedCameras>,
        output: Res<FrameOutput>,
        mut errors: ResMut<ReportedErrors>,
    ) {
        let RenderWindow { device, presenter } = &mut *window;
        let Some(texture) = &output.0 else { return };
        // The main view is the last camera on the window, when one is.
        if !cameras.0.iter().any(|v| v.to_window) {
            return;
        }
        if let Err(e) = presenter.resize(device, frame.size.0, frame.size.1) {
            errors.report(format!("the window's surface did not follow its size: {e}"));
        }
        if let Err(e) = presenter.present(device, texture) {
            errors.report(format!("present: {e}"));
        }
    }

    /// The runner [`F3dRenderPlugin`] installs when windowed.
    pub(crate) fn run_windowed(app: App, plugin: F3dRenderPlugin, settings: WindowSettings) -> AppExit {
        let event_loop = match EventLoop::new() {
            Ok(l) => l,
            Err(e) => {
                bevy_log::error!("{}", WindowError::EventLoop(e.to_string()));
                return AppExit::error();
            }
        };
        let mut runner = Runner { app: Some(app), plugin, settings, window: None, exit: None };
        if let Err(e) = event_loop.run_app(&mut runner) {
            bevy_log::error!("the window's event loop failed: {e}");
            return AppExit::error();
        }
        // Dropped here at the latest (normally in `exiting`): a pipelined render thread
        // finishes its frame first.
        drop(runner.app.take());
        runner.exit.unwrap_or(AppExit::Success)
    }

    struct Runner {
        app: Option<App>,
        plugin: F3dRenderPlugin,
        settings: WindowSettings,
        window: Option<Arc<Window>>,
        exit: Option<AppExit>,
    }

    impl Runner {
        fn stop(&mut self, event_loop: &ActiveEventLoop, exit: AppExit) {
            self.exit.get_or_insert(exit);
            event_loop.exit();
        }

        /// Finishes the app's plugins, opens the window and its device, starts the render
        /// world.
        fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Arc<Window>, WindowError> {
            let Some(app) = self.app.as_mut() else {
                return Err(WindowError::Window("the app is gone".into()));
            };
            while app.plugins_state() == PluginsState::Adding {
                std::thread::yield_now();
            }
            if app.plugins_state() == PluginsState::Ready {
                app.finish();
            }
            if app.plugins_state() == PluginsState::Finished {
                app.cleanup();
            }
            let mut request = DeviceRequest::new(self.plugin.size.0.max(1), self.plugin.size.1.max(1));
            request.validation = self.plugin.validation;
            request.label = "f3d".into();
            if let BackendChoice::Named(b) = &self.plugin.backend {
                request.backend = Some(b.clone());
            }
            let request = request.with_process_env();
            if let Some(backend) = request.backend.clone().filter(|b| *b != BackendId::WGPU) {
                return Err(WindowError::NotWgpu { backend });
            }
            let attributes = Window::default_attributes()
                .with_title(self.settings.title.clone())
                .with_inner_size(PhysicalSize::new(request.width, request.height))
                .with_resizable(self.settings.resizable);
            let window = Arc::new(
                event_loop.create_window(attributes).map_err(|e| WindowError::Window(e.to_string()))?,
            );
            let (device, presenter) = WindowPresenter::open(window.clone(), &request)?;
            let device = Arc::new(device);
            let hal: Arc<dyn GraphicsDevice> = if request.validation {
                Arc::new(ValidatingDevice::new(device.clone()))
            } else {
                device.clone()
            };
            // The window may already have a size other than the one asked for (a tiling
            // window manager): render at the size it has.
            let size = window.inner_size();
            if size.width > 0
                && size.height > 0
                && let Some(mut settings) = app.world_mut().get_resource_mut::<RenderSettings>()
            {
                settings.size = (size.width, size.height);
            }
            app.insert_resource(PrimaryWindow(window.clone()));
            self.plugin.start_render_world(app, hal, |render: &mut SubApp| {
                render
                    .insert_resource(RenderWindow { device, presenter })
                    .insert_resource(crate::render::recovery::NoDeviceRecovery)
                    .init_resource::<FrameOutput>()
                    .add_systems(
                        RenderFrame,
                        present_window.after(finish_frame).in_set(RenderFrameSystems::Finish),
                    );
            });
            Ok(window)
        }
    }

    impl ApplicationHandler for Runner {
        fn resumed(&mut self, event_loop: &ActiveEventLoop) {
            if self.window.is_some() || self.exit.is_some() {
                return;
            }
            match self.start(event_loop) {
                Ok(window) => {
                    window.request_redraw();
                    self.window = Some(window);
                    if let Some(exit) = self.app.as_ref().and_then(App::should_exit) {
                        // The render world did not start (reported), or a plugin gave up.
                        self.stop(event_loop, exit);
                    }
                }
                Err(e) => {
                    bevy_log::error!("{e}");
                    self.stop(event_loop, AppExit::error());
                }
            }
        }

        fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
            let (Some(app), Some(window)) = (self.app.as_mut(), self.window.as_ref()) else { return };
            match event {
                WindowEvent::CloseRequested => self.stop(event_loop, AppExit::Success),
                WindowEvent::Resized(size) => {
                    // A minimised window has no size; keep drawing at the last one.
                    if size.width > 0
                        && size.height > 0
                        && let Some(mut settings) = app.world_mut().get_resource_mut::<RenderSettings>()
                    {
                        settings.size = (size.width, size.height);
                    }
                    window.request_redraw();
                }
                WindowEvent::RedrawRequested => {
                    app.update();
                    match app.should_exit() {
                        Some(exit) => self.stop(event_loop, exit),
                        None => window.request_redraw(),
                    }
                }
                _ => {}
            }
        }

        fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
            // The app (and the window it holds) goes while the event loop still exists.
            drop(self.app.take());
            self.window = None;
        }
    }
}

#[cfg(all(test, not(feature = "window")))]
mod tests {
    use bevy_app::{App, AppExit};

    use super::WindowSettings;
    use crate::plugin::F3dRenderPlugin;

    #[test]
    fn window_without_the_feature_exits_with_an_error() {
        let mut app = App::new();
        app.add_plugins(F3dRenderPlugin { window: Some(WindowSettings::default()), ..Default::default() });
        app.finish();
        app.cleanup();
        app.update();
        assert_eq!(app.should_exit(), Some(AppExit::error()));
    }
}
