//! Pipelined rendering: the render world runs on its own thread, one frame behind.
//!
//! ```text
//!  main thread:   [main N] [extract N ▸ send] [main N+1] [wait N ◂ extract N+1 ▸ send] ...
//!  render thread:                    [render N ........]            [render N+1 ........]
//! ```
//!
//! The render sub-app is moved into a small extract-only sub-app's extract function. Each
//! frame that function waits for the render thread to hand the render app back (frame N−1
//! done), extracts frame N into it, and sends it to the render thread. Dropping the app waits
//! for the frame in flight, so nothing that was extracted is lost (a screenshot requested on
//! the last frame is still written).

use std::thread::JoinHandle;

use bevy_app::{App, AppLabel, SubApp};
use crossbeam_channel::{Receiver, Sender};

use super::RenderApp;

/// The label of the extract-only sub-app that drives the render thread.
#[derive(AppLabel, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenderExtractApp;

struct RenderThread {
    /// The render app while no frame is in flight (before the first frame).
    idle: Option<SubApp>,
    to_render: Option<Sender<SubApp>>,
    from_render: Receiver<SubApp>,
    in_flight: bool,
    thread: Option<JoinHandle<()>>,
}

impl RenderThread {
    fn take_app(&mut self) -> Option<SubApp> {
        if self.in_flight {
            self.in_flight = false;
            // An Err means the render thread panicked; the panic is reported when joined.
            self.from_render.recv().ok()
        } else {
            self.idle.take()
        }
    }

    fn frame(&mut self, main: &mut bevy_ecs::world::World) {
        let Some(mut app) = self.take_app() else { return };
        app.extract(main);
        match &self.to_render {
            Some(tx) => match tx.send(app) {
                Ok(()) => self.in_flight = true,
                Err(returned) => self.idle = Some(returned.0),
            },
            None => self.idle = Some(app),
        }
    }
}

impl Drop for RenderThread {
    fn drop(&mut self) {
        // Let the frame in flight finish, then stop the thread.
        let last = self.take_app();
        self.to_render = None;
        drop(last);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Moves the render sub-app onto its own thread (called from the plugin's `finish`).
pub(crate) fn enable(app: &mut App) {
    let Some(render_app) = app.remove_sub_app(RenderApp) else { return };
    let (to_render, render_rx) = crossbeam_channel::bounded::<SubApp>(1);
    let (render_tx, from_render) = crossbeam_channel::bounded::<SubApp>(1);
    let thread = std::thread::Builder::new()
        .name("f3d render".into())
        .spawn(move || {
            while let Ok(mut app) = render_rx.recv() {
                app.update();
                if render_tx.send(app).is_err() {
                    break;
                }
            }
        })
        .ok();
    let mut state = RenderThread {
        idle: Some(render_app),
        to_render: thread.as_ref().map(|_| to_render),
        from_render,
        in_flight: false,
        thread,
    };
    if state.thread.is_none() {
        // No thread could be started: render inline instead of not at all.
        if let Some(app_back) = state.idle.take() {
            app.insert_sub_app(RenderApp, app_back);
        }
        return;
    }
    let mut driver = SubApp::new();
    driver.set_extract(move |main, _driver_world| state.frame(main));
    app.insert_sub_app(RenderExtractApp, driver);
}
