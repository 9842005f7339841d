//! f3d in bevy_winit's windows on a real X server, shared by the window tests, each its own
//! process (winit allows one event loop per process): starts Xvfb, runs the showcase with
//! `F3dDefaultPlugins` on one backend (soft, wgpu or vulkan), and compares what the X server
//! shows in the window (a screenshot read with x11rb) with the engine's own frame (a
//! `Screenshot` readback), before and after the window is resized through bevy_window's
//! `Window`. It checks the window is the size asked for, the picture is the scene (sky blue at
//! the top, not one colour) and is the frame f3d drew; that a key pressed on the X server
//! (XTEST) reaches an app system through bevy_input's `ButtonInput<KeyCode>`; then closes the
//! window as a window manager would (`WM_DELETE_WINDOW`) and checks that this ends the app
//! within a few frames.
//!
//! Skipped with the reason where Xvfb or the backend is missing, unless
//! `F3D_REQUIRE_BACKENDS` names the backend (CI), where that is a failure. The screenshots are
//! left in the target folder's tmp (`<test>_first.png`, `<test>_second.png`). Their own
//! harness: winit wants its event loop on the main thread.
//!
//! Run: `cargo test -p f3d_examples --features window --test 'window*'`.

use std::error::Error;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use f3d::bevy_window::{PrimaryWindow, RawHandleWrapper};
use f3d::f3d_hal::raw_window_handle::RawWindowHandle;
use f3d::f3d_hal::{BackendId, DeviceRequest};
use f3d::plugin::{FrameClock, RenderDevice};
use f3d::prelude::*;
use f3d::screenshot::write_png;
use f3d::window::RenderSurfaces;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    ClientMessageEvent, ConnectionExt, EventMask, ImageFormat, InputFocus, KEY_PRESS_EVENT, KEY_RELEASE_EVENT,
};
use x11rb::protocol::xtest::ConnectionExt as _;

type Failure = Box<dyn Error>;

const FIRST: (u32, u32) = (200, 150);
const SECOND: (u32, u32) = (280, 180);
/// The frame bound: the test fails if both checks are not done by then.
const MAX_FRAMES: u32 = 120;
/// Frames drawn before the first check (the first frames build pipelines).
const SETTLE: u64 = 4;

/// An RGBA8 picture, rows from the top.
struct Picture {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
}

impl Picture {
    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }
}

/// The X keycode of the A key (evdev code 30 + 8, Xvfb's default keymap).
const KEY_A: u8 = 38;

/// The window's X11 id.
fn x_window(window: &RawHandleWrapper) -> Result<u32, Failure> {
    Ok(match window.get_window_handle() {
        RawWindowHandle::Xlib(h) => h.window as u32,
        RawWindowHandle::Xcb(h) => h.window.get(),
        other => return Err(format!("not an X11 window: {other:?}").into()),
    })
}

/// The window's pixels, read from the X server.
fn x_screenshot(display: &str, window: &RawHandleWrapper) -> Result<Picture, Failure> {
    let id = x_window(window)?;
    let (conn, _) = x11rb::connect(Some(display))?;
    let geometry = conn.get_geometry(id)?.reply()?;
    let (width, height) = (u32::from(geometry.width), u32::from(geometry.height));
    let image =
        conn.get_image(ImageFormat::Z_PIXMAP, id, 0, 0, geometry.width, geometry.height, !0)?.reply()?;
    if image.depth != 24 || image.data.len() < (width * height * 4) as usize {
        return Err(format!(
            "a {}-bit image of {} bytes for {width}x{height}",
            image.depth,
            image.data.len()
        )
        .into());
    }
    // 24-bit TrueColor in 32-bit little-endian pixels: blue, green, red, unused.
    let rgba = image
        .data
        .chunks_exact(4)
        .take((width * height) as usize)
        .flat_map(|p| [p[2], p[1], p[0], 255])
        .collect();
    Ok(Picture { width, height, rgba })
}

/// The window shows the engine's frame at `size`, and the frame is the showcase.
fn check(
    window: &Picture,
    engine: &Picture,
    size: (u32, u32),
    name: &str,
    vignette: bool,
) -> Result<(), Failure> {
    let dir = option_env!("CARGO_TARGET_TMPDIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let path = dir.join(format!("{name}.png"));
    write_png(&path, window.width, window.height, &window.rgba)?;
    println!("window screenshot: {}", path.display());
    if (window.width, window.height) != size || (engine.width, engine.height) != size {
        return Err(format!(
            "{name}: the window is {}x{} and the frame {}x{}, expected both {}x{}",
            window.width, window.height, engine.width, engine.height, size.0, size.1
        )
        .into());
    }
    // The sky at the top: blue over red, and bright enough not to be the clear colour.
    let (w, h) = size;
    let top: Vec<[u8; 3]> = (0..w).map(|x| window.at(x, 2)).collect();
    let mean = |c: usize| top.iter().map(|p| f64::from(p[c])).sum::<f64>() / top.len() as f64;
    let (r, b) = if vignette {
        // The vignette darkens the corners: the middle of the top row is the sky.
        let middle = window.at(w / 2, 2);
        (f64::from(middle[0]), f64::from(middle[2]))
    } else {
        (mean(0), mean(2))
    };
    if !(b > r + 20.0 && b > 100.0) {
        return Err(format!("{name}: the top row is not sky blue (mean red {r:.0}, blue {b:.0})").into());
    }
    if vignette {
        let luma = |p: [u8; 3]| p.iter().map(|&c| f64::from(c)).sum::<f64>();
        let (corner, middle) = (luma(window.at(1, 1)), luma(window.at(w / 2, 2)));
        if corner * 2.0 > middle {
            return Err(format!(
                "{name}: the vignette pass did not darken the corner (corner {corner:.0}, top middle {middle:.0})"
            )
            .into());
        }
    }
    // Not one colour: the scene spreads over a range of brightness.
    let luma: Vec<f64> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| window.at(x, y).iter().map(|&c| f64::from(c)).sum::<f64>() / 3.0)
        .collect();
    let avg = luma.iter().sum::<f64>() / luma.len() as f64;
    let deviation = (luma.iter().map(|l| (l - avg).powi(2)).sum::<f64>() / luma.len() as f64).sqrt();
    if deviation < 15.0 {
        return Err(
            format!("{name}: the window is nearly uniform (brightness deviation {deviation:.1})").into()
        );
    }
    // What the window shows is the frame f3d drew (within the blit's rounding; the frame
    // presented may be one later than the one read back, and the water moves).
    let mut far = 0usize;
    let mut total = 0u64;
    for y in 0..h {
        for x in 0..w {
            let (a, b) = (window.at(x, y), engine.at(x, y));
            let d = a.iter().zip(b).map(|(p, q)| p.abs_diff(q)).max().unwrap_or(0);
            total += u64::from(d);
            far += usize::from(d > 24);
        }
    }
    let pixels = (w * h) as usize;
    let mean_diff = total as f64 / pixels as f64;
    println!(
        "{name}: {w}x{h}, top row blue {b:.0} red {r:.0}, brightness deviation {deviation:.1}, \
         mean difference from f3d's frame {mean_diff:.2}, {far} pixels off by more than 24"
    );
    if mean_diff > 4.0 || far * 50 > pixels {
        return Err(format!(
            "{name}: the window differs from f3d's frame (mean {mean_diff:.2}, {far} of {pixels} pixels off by more than 24)"
        )
        .into());
    }
    Ok(())
}

/// What the probe system found, shared with `main` (the app is consumed by `run`).
#[derive(Default)]
struct Outcome {
    checked: Vec<(u32, u32)>,
    error: Option<String>,
    /// The frame on which the window manager's close was sent.
    closed_on: Option<u64>,
    /// The last frame the probe ran on.
    last_frame: u64,
    /// The frame on which the A key was pressed on the X server, and whether
    /// `ButtonInput<KeyCode>` saw it.
    pressed_on: Option<u64>,
    key_seen: bool,
    /// Frames the window's surface showed (from the render world, when inline).
    presented: u64,
    /// The backend the app drew with.
    backend: Option<String>,
}

#[derive(Resource)]
struct Probe {
    test: &'static str,
    display: String,
    outcome: Arc<Mutex<Outcome>>,
    resized_at: Option<u64>,
    /// The app adds `f3d_examples::vignette::VignettePlugin` (the custom-pass test).
    vignette: bool,
}

/// Notes when the A key, pressed on the X server, reaches the app (bevy_input).
fn watch_keys(keys: Res<ButtonInput<KeyCode>>, probe: Res<Probe>) {
    if keys.just_pressed(KeyCode::KeyA)
        && let Ok(mut outcome) = probe.outcome.lock()
    {
        outcome.key_seen = true;
    }
}

/// Each frame: asks for the frame's pixels; when a frame arrives at the size being checked,
/// compares it with the window and moves on (key press and resize, then done).
#[allow(clippy::too_many_arguments)]
fn probe(
    mut commands: Commands,
    mut probe: ResMut<Probe>,
    mut shots: MessageReader<ScreenshotCaptured>,
    mut windows: Query<(&mut Window, Option<&RawHandleWrapper>), With<PrimaryWindow>>,
    device: Option<Res<RenderDevice>>,
    mut exit: MessageWriter<AppExit>,
    clock: Res<FrameClock>,
) {
    if let Ok(mut outcome) = probe.outcome.lock() {
        outcome.last_frame = clock.frame;
        if outcome.backend.is_none() {
            outcome.backend = device.map(|d| d.describe());
        }
    }
    let Ok((mut window, Some(handles))) = windows.single_mut() else { return };
    commands.spawn(Screenshot::pixels());
    let Some(shot) = shots.read().last() else { return };
    let stage = probe.outcome.lock().map(|o| o.checked.len()).unwrap_or(2);
    let (size, name) = if stage == 0 {
        (FIRST, format!("{}_first", probe.test))
    } else {
        (SECOND, format!("{}_second", probe.test))
    };
    let ready = match probe.resized_at {
        None => shot.frame >= SETTLE,
        // Two frames at the new size, so the surface has followed too.
        Some(at) => shot.frame >= at + 2 && (shot.width, shot.height) == SECOND,
    };
    if stage >= 2 || !ready || shot.error.is_some() {
        if let Some(e) = &shot.error {
            record(&probe, Err(format!("f3d's screenshot failed: {e}")));
            exit.write(AppExit::error());
        }
        return;
    }
    let engine = Picture { width: shot.width, height: shot.height, rgba: shot.pixels.to_vec() };
    let result = x_screenshot(&probe.display, handles)
        .and_then(|shown| check(&shown, &engine, size, &name, probe.vignette))
        .map(|()| size)
        .map_err(|e| e.to_string());
    let failed = result.is_err();
    record(&probe, result);
    if failed {
        exit.write(AppExit::error());
    } else if stage == 1 {
        // Done: close the window as a window manager would; the app must end by itself.
        let closed = close_window(&probe.display, handles).map_err(|e| format!("closing the window: {e}"));
        if let Ok(mut outcome) = probe.outcome.lock() {
            outcome.closed_on = Some(clock.frame);
            if let Err(e) = closed {
                outcome.error.get_or_insert(e);
            }
        }
    } else {
        // A key on the X server, then the window resized through bevy_window.
        let pressed = press_a(&probe.display, handles).map_err(|e| format!("pressing A: {e}"));
        if let Ok(mut outcome) = probe.outcome.lock() {
            outcome.pressed_on = Some(clock.frame);
            if let Err(e) = pressed {
                outcome.error.get_or_insert(e);
            }
        }
        probe.resized_at = Some(shot.frame);
        window.resolution.set_physical_resolution(SECOND.0, SECOND.1);
    }
}

/// The outcome, in the render world.
#[derive(Resource)]
struct RenderProbe(Arc<Mutex<Outcome>>);

/// Counts the frames the window's surface showed (render world).
fn count_presented(surfaces: Res<RenderSurfaces>, probe: Res<RenderProbe>) {
    if let Ok(mut outcome) = probe.0.lock() {
        outcome.presented = surfaces.stats.shown;
    }
}

/// Focuses the window and presses and releases A on the X server (XTEST), as a user would.
fn press_a(display: &str, window: &RawHandleWrapper) -> Result<(), Failure> {
    let id = x_window(window)?;
    let (conn, screen) = x11rb::connect(Some(display))?;
    let root = conn.setup().roots[screen].root;
    conn.set_input_focus(InputFocus::PARENT, id, x11rb::CURRENT_TIME)?.check()?;
    conn.xtest_fake_input(KEY_PRESS_EVENT, KEY_A, x11rb::CURRENT_TIME, root, 0, 0, 0)?.check()?;
    conn.xtest_fake_input(KEY_RELEASE_EVENT, KEY_A, x11rb::CURRENT_TIME, root, 0, 0, 0)?.check()?;
    Ok(())
}

/// Sends the window `WM_DELETE_WINDOW`, what a window manager's close button does.
fn close_window(display: &str, window: &RawHandleWrapper) -> Result<(), Failure> {
    let id = x_window(window)?;
    let (conn, _) = x11rb::connect(Some(display))?;
    let protocols = conn.intern_atom(false, b"WM_PROTOCOLS")?.reply()?.atom;
    let delete = conn.intern_atom(false, b"WM_DELETE_WINDOW")?.reply()?.atom;
    let event = ClientMessageEvent::new(32, id, protocols, [delete, x11rb::CURRENT_TIME, 0, 0, 0]);
    // Checked: the round trip also makes sure the message left before the connection
    // closes (unchecked, it was lost).
    conn.send_event(false, id, EventMask::NO_EVENT, event)?.check()?;
    Ok(())
}

fn record(probe: &Probe, result: Result<(u32, u32), String>) {
    if let Ok(mut outcome) = probe.outcome.lock() {
        match result {
            Ok(size) => outcome.checked.push(size),
            Err(e) => {
                outcome.error.get_or_insert(e);
            }
        }
    }
}

/// `Ok(Some(reason))`: skipped (the backend does not open here).
fn run(
    test: &'static str,
    backend: &BackendId,
    pipelined: bool,
    vignette: bool,
) -> Result<Option<String>, Failure> {
    let (_server, display) = f3d_testing::xvfb::start(640, 480)?;
    // SAFETY: `main` calls this before any thread of this process exists (the event loop,
    // wgpu and Mesa start theirs later), so nothing reads the environment concurrently.
    unsafe {
        std::env::set_var("DISPLAY", &display);
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    if let Err(e) = f3d::plugin::default_registry()
        .open(&DeviceRequest { backend: Some(backend.clone()), ..DeviceRequest::new(FIRST.0, FIRST.1) })
    {
        return Ok(Some(format!("no {backend} device ({e})")));
    }
    let outcome = Arc::new(Mutex::new(Outcome::default()));
    let mut app = App::new();
    app.add_plugins(
        F3dDefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: "f3d window test".into(),
                    resolution: bevy_window_resolution(FIRST),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .set(F3dRenderPlugin {
                backend: BackendChoice::Named(backend.clone()),
                exit_after_frames: Some(MAX_FRAMES),
                pipelined,
                fixed_time_step: Some(1.0 / 60.0),
                ..Default::default()
            }),
    );
    if vignette {
        app.add_plugins(f3d_examples::vignette::VignettePlugin);
    }
    if !pipelined {
        app.sub_app_mut(f3d::render::RenderApp)
            .insert_resource(RenderProbe(outcome.clone()))
            .add_systems(f3d::render::ExtractSchedule, count_presented);
    }
    let exit = app
        .insert_resource(Probe {
            test,
            display: display.clone(),
            outcome: outcome.clone(),
            resized_at: None,
            vignette,
        })
        .add_systems(Startup, f3d_examples::showcase)
        .add_systems(Update, (watch_keys, probe))
        .run();
    let outcome = outcome.lock().map_err(|_| "the probe panicked")?;
    println!("{test}: drawn with {}", outcome.backend.as_deref().unwrap_or("no device"));
    if let Some(e) = &outcome.error {
        return Err(e.clone().into());
    }
    if outcome.checked != [FIRST, SECOND] {
        return Err(format!(
            "the app ended ({exit:?}) after checking {:?} of {:?} (within {MAX_FRAMES} frames)",
            outcome.checked,
            [FIRST, SECOND]
        )
        .into());
    }
    if exit != AppExit::Success {
        return Err(format!("the app exited with {exit:?}").into());
    }
    if !outcome.key_seen {
        return Err(format!(
            "the A key pressed on the X server (frame {:?}) never reached ButtonInput<KeyCode>",
            outcome.pressed_on
        )
        .into());
    }
    if !pipelined && outcome.presented < 4 {
        return Err(format!("the window's surface showed only {} frames", outcome.presented).into());
    }
    // Closing the window ended the app within a few frames (not the frame bound).
    match outcome.closed_on {
        Some(closed) if outcome.last_frame <= closed + 10 && outcome.last_frame < u64::from(MAX_FRAMES) => {
            println!(
                "key seen; {} frames shown; closed on frame {closed}; the app ended after frame {}",
                outcome.presented, outcome.last_frame
            );
        }
        closed => {
            return Err(format!(
                "closing the window (on frame {closed:?}) did not end the app: it ran to frame {}",
                outcome.last_frame
            )
            .into());
        }
    }
    Ok(None)
}

/// A window resolution of `size` physical pixels at scale 1 (Xvfb has no scale factor).
fn bevy_window_resolution(size: (u32, u32)) -> f3d::bevy_window::WindowResolution {
    f3d::bevy_window::WindowResolution::new(size.0, size.1).with_scale_factor_override(1.0)
}

/// Gives Mesa a private runtime directory when the environment has none.
fn quiet_mesa() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("f3d-window-xdg");
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok()
    {
        // SAFETY: called at the start of `main`, before this process starts any thread.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

/// The test binary's `main`: runs `run` as the test `name` (libtest's output lines, `--list`,
/// filters), skipping or failing as the module docs say.
/// With `vignette` the app adds the custom-pass plugin and the check looks for it.
pub fn main_with(
    name: &'static str,
    test: &'static str,
    backend: BackendId,
    pipelined: bool,
    vignette: bool,
) {
    quiet_mesa();
    if std::env::args().any(|a| a == "--list") {
        println!("{name}: test");
        return;
    }
    if std::env::args().skip(1).any(|a| !a.starts_with('-') && !name.contains(a.as_str())) {
        println!("running 0 tests");
        return;
    }
    let required = std::env::var("F3D_REQUIRE_BACKENDS")
        .is_ok_and(|v| v.split(',').any(|b| b.trim().eq_ignore_ascii_case(backend.as_str())));
    let has_xvfb = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("Xvfb").is_file()));
    if !has_xvfb {
        if required {
            eprintln!(
                "test {name} ... FAILED: F3D_REQUIRE_BACKENDS names {backend} and Xvfb is not installed"
            );
            std::process::exit(1);
        }
        println!("test {name} ... skipped: Xvfb is not installed (apt-get install xvfb)");
        return;
    }
    match run(test, &backend, pipelined, vignette) {
        Ok(None) => println!("test {name} ... ok\n\ntest result: ok. 1 passed; 0 failed"),
        Ok(Some(reason)) if !required => println!("test {name} ... skipped: {reason}"),
        Ok(Some(reason)) => {
            eprintln!("test {name} ... FAILED: F3D_REQUIRE_BACKENDS names {backend}: {reason}");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("test {name} ... FAILED: {e}");
            std::process::exit(1);
        }
    }
}
