//! `F3dDefaultPlugins` where no display can be reached (no `DISPLAY`, no `WAYLAND_DISPLAY`;
//! then a `DISPLAY` naming a server that is not there): bevy_winit would panic building its
//! event loop, so the group leaves it out and the app ends on its first frame with
//! `AppExit::error()` and a logged reason, not a panic. Its own process (the environment is
//! changed before any thread starts).

use f3d::prelude::*;

fn run_without_display(display: Option<&str>) -> AppExit {
    // SAFETY: called from `main` before this process starts any thread (each app below is
    // dropped, its threads joined, before the next change).
    unsafe {
        std::env::remove_var("WAYLAND_DISPLAY");
        match display {
            Some(d) => std::env::set_var("DISPLAY", d),
            None => std::env::remove_var("DISPLAY"),
        }
    }
    App::new()
        .add_plugins(F3dDefaultPlugins.set(F3dRenderPlugin {
            backend: BackendChoice::Named(f3d::f3d_hal::BackendId::SOFT),
            exit_after_frames: Some(3),
            ..default()
        }))
        .run()
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("no_display_exits_with_an_error: test");
        return;
    }
    for display in [None, Some(":97531")] {
        let exit = run_without_display(display);
        if exit == AppExit::Success {
            eprintln!(
                "test no_display_exits_with_an_error ... FAILED: DISPLAY={display:?} ran as if a window had opened"
            );
            std::process::exit(1);
        }
        println!("DISPLAY={display:?}: {exit:?}");
    }
    println!("test no_display_exits_with_an_error ... ok\n\ntest result: ok. 1 passed; 0 failed");
}
