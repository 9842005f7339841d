//! A device's life under the plugin, on every backend (null, soft, wgpu, vulkan; a backend
//! that does not open here is skipped with a note unless `F3D_REQUIRE_BACKENDS` names it):
//!
//! * **Recovery**: a loss simulated mid-run; the plugin reports `DeviceLost`, opens a new
//!   device through the registry, rebuilds the render world from the main world and reports
//!   `DeviceRecovered`; a frame drawn after the loss equals one drawn before (the golden
//!   tolerance), inline and pipelined.
//!
//! The leak test is `tests/leak.rs`, a process of its own, so its memory is its own.

use std::sync::{Arc, Mutex};

use f3d::f3d_hal::{BackendId, GraphicsDevice};
use f3d::prelude::*;
use f3d::render::recovery::{DeviceLost, DeviceRecovered};
use f3d_testing::{Frame, Tolerance, compare};

const BACKENDS: [&str; 4] = ["null", "soft", "wgpu", "vulkan"];

fn app(backend: &str, size: (u32, u32), pipelined: bool) -> App {
    let mut app = App::new();
    app.add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(BackendId::from_name(backend)),
        size,
        pipelined,
        fixed_time_step: Some(1.0 / 60.0),
        ..Default::default()
    });
    app
}

/// A screenshot: the frame it was taken on and its pixels (or why there are none).
type Shot = (u64, Result<Frame, String>);

#[derive(Resource, Clone, Default)]
struct Seen {
    shots: Arc<Mutex<Vec<Shot>>>,
    lost: Arc<Mutex<Vec<DeviceLost>>>,
    recovered: Arc<Mutex<Vec<DeviceRecovered>>>,
}

/// Frame at which the first picture is taken, the loss is simulated (pipelined one frame
/// later: frame 2 is still being drawn on the render thread while the main world runs frame
/// 3, and a loss then would fail that screenshot, answered with the error), the second picture
/// is taken.
const BEFORE: u32 = 2;
const LOSE: u32 = 3;
const AFTER: u32 = 6;

fn recovery(backend: &str, pipelined: bool) {
    if !f3d_testing::backend_opens(backend) {
        return;
    }
    let seen = Seen::default();
    let lose = if pipelined { LOSE + 1 } else { LOSE };
    let mut app = app(backend, (160, 90), pipelined);
    app.insert_resource(seen.clone())
        .add_systems(Startup, f3d_examples::scenes::shadows)
        .add_systems(Update, move |world: &mut World| {
            let frame = {
                let mut n = world.resource_mut::<FrameCount>();
                n.0 += 1;
                n.0
            };
            if frame == BEFORE || frame == AFTER {
                world.spawn(Screenshot::pixels());
            }
            if frame == lose {
                world.resource::<RenderDevice>().simulate_loss("the device-life test");
            }
        })
        .add_systems(
            Update,
            |mut shots: MessageReader<ScreenshotCaptured>,
             mut lost: MessageReader<DeviceLost>,
             mut recovered: MessageReader<DeviceRecovered>,
             seen: Res<Seen>| {
                for s in shots.read() {
                    let frame = match &s.error {
                        Some(e) => Err(e.clone()),
                        None => Ok(Frame { width: s.width, height: s.height, pixels: s.pixels.to_vec() }),
                    };
                    seen.shots.lock().unwrap().push((s.frame, frame));
                }
                seen.lost.lock().unwrap().extend(lost.read().cloned());
                seen.recovered.lock().unwrap().extend(recovered.read().cloned());
            },
        )
        .init_resource::<FrameCount>();
    app.finish();
    app.cleanup();
    let first = app.world().resource::<RenderDevice>().0.clone();
    for _ in 0..AFTER + 4 {
        app.update();
    }
    let mode = if pipelined { "pipelined" } else { "inline" };
    let shots = seen.shots.lock().unwrap().clone();
    assert_eq!(shots.len(), 2, "{backend} {mode}: both screenshots answered: {shots:?}");
    let before = shots[0].1.clone().unwrap_or_else(|e| panic!("{backend} {mode}: before the loss: {e}"));
    let after = shots[1].1.clone().unwrap_or_else(|e| panic!("{backend} {mode}: after the loss: {e}"));
    let lost = seen.lost.lock().unwrap().clone();
    assert_eq!(lost.len(), 1, "{backend} {mode}: one DeviceLost: {lost:?}");
    assert!(lost[0].reason.contains("device-life test"), "{backend} {mode}: {lost:?}");
    let recovered = seen.recovered.lock().unwrap().clone();
    assert_eq!(recovered.len(), 1, "{backend} {mode}: one DeviceRecovered: {recovered:?}");
    assert_eq!(recovered[0].backend, BackendId::from_name(backend));
    let now = app.world().resource::<RenderDevice>().0.clone();
    assert!(!Arc::ptr_eq(&first, &now), "{backend} {mode}: the main world still holds the lost device");
    let stats = app.world().resource::<RenderStats>();
    assert!(stats.frames_rendered >= u64::from(AFTER), "{backend} {mode}: frames stopped: {stats:?}");
    // The same scene on the same clock: equal within the goldens' tolerance.
    let cmp = compare(&after, &before, Tolerance::default()).unwrap();
    if let Err(e) = cmp.within(Tolerance::default()) {
        panic!("{backend} {mode}: after recovery, {e}");
    }
    // And the picture is a picture (the shadows scene is not one flat colour), except on null,
    // which draws nothing.
    if backend != "null" {
        let distinct: std::collections::HashSet<&[u8]> = after.pixels.chunks(4).collect();
        assert!(distinct.len() > 50, "{backend} {mode}: the frame after recovery is nearly flat");
    }
}

#[derive(Resource, Default)]
struct FrameCount(u32);

#[test]
fn recovers_from_a_loss_on_every_backend() {
    for backend in BACKENDS {
        recovery(backend, false);
    }
}

#[test]
fn recovers_from_a_loss_pipelined() {
    for backend in ["soft", "vulkan"] {
        recovery(backend, true);
    }
}

/// When no device can replace the lost one, the app exits with an error instead of skipping
/// frames: the registry here opens the first device and refuses every later one.
#[test]
fn exits_when_no_device_replaces_a_lost_one() {
    let opened = Arc::new(Mutex::new(0));
    let mut registry = f3d::f3d_hal::DeviceRegistry::new();
    let count = opened.clone();
    let _ = registry.add_backend(BackendId::SOFT, move |_| {
        let mut n = count.lock().unwrap();
        *n += 1;
        if *n == 1 {
            Ok(Arc::new(f3d::f3d_hal::ValidatingDevice::new(Arc::new(f3d_backend_soft::SoftDevice::new(
                "first",
            )))) as Arc<dyn GraphicsDevice>)
        } else {
            Err(f3d::f3d_hal::OpenError::DeviceUnavailable {
                backend: BackendId::SOFT,
                reason: "the test allows one device".into(),
            })
        }
    });
    let mut app = App::new();
    app.insert_resource(f3d::plugin::RenderRegistry(registry)).add_plugins(F3dRenderPlugin {
        backend: BackendChoice::Named(BackendId::SOFT),
        size: (64, 64),
        ..Default::default()
    });
    app.add_systems(Update, |world: &mut World, mut frame: Local<u32>| {
        *frame += 1;
        if *frame == 2 {
            world.resource::<RenderDevice>().simulate_loss("for good");
        }
    });
    app.finish();
    app.cleanup();
    let mut exit = None;
    for _ in 0..10 {
        app.update();
        if let Some(e) = app.should_exit() {
            exit = Some(e);
            break;
        }
    }
    assert_eq!(*opened.lock().unwrap(), 2, "the plugin tried to reopen once");
    assert!(matches!(exit, Some(AppExit::Error(_))), "the app should exit with an error, got {exit:?}");
}
