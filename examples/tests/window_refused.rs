//! A window the device cannot present to: the null backend reports no presentation, so the
//! bevy_winit window it is given is refused. The app must end by itself with
//! `AppExit::error()` and a message naming the backend and the window, not panic and not run
//! on without a picture. Under its own Xvfb; skipped without Xvfb unless
//! `F3D_REQUIRE_BACKENDS` is set.

use f3d::f3d_hal::BackendId;
use f3d::prelude::*;

const FRAMES: u32 = 200;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("refused_window_exits_with_an_error: test");
        return;
    }
    let (_server, display) = match f3d_testing::xvfb::start(320, 240) {
        Ok(x) => x,
        Err(e) if std::env::var_os("F3D_REQUIRE_BACKENDS").is_none() => {
            println!("test refused_window_exits_with_an_error ... skipped: no Xvfb ({e})");
            return;
        }
        Err(e) => {
            eprintln!("test refused_window_exits_with_an_error ... FAILED: no Xvfb ({e})");
            std::process::exit(1);
        }
    };
    // SAFETY: before this process starts any other thread.
    unsafe {
        std::env::set_var("DISPLAY", &display);
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    let exit = App::new()
        .add_plugins(F3dDefaultPlugins.set(F3dRenderPlugin {
            backend: BackendChoice::Named(BackendId::NULL),
            exit_after_frames: Some(FRAMES),
            ..default()
        }))
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera3d::default());
        })
        .run();
    if exit == AppExit::Success {
        eprintln!(
            "test refused_window_exits_with_an_error ... FAILED: the app ran to its {FRAMES} frames as if the window showed them"
        );
        std::process::exit(1);
    }
    println!(
        "{exit:?}\ntest refused_window_exits_with_an_error ... ok\n\ntest result: ok. 1 passed; 0 failed"
    );
}
