//! The X server going away under a running app (under its own Xvfb, killed once the window
//! has shown a few frames): the app must end — Xlib's connection-loss handler exits the
//! process with a message, and f3d logs the failed present naming the window — not hang,
//! not panic, not abort. The app runs in a child process (this test's own executable with
//! `F3D_DISPLAY_LOST_CHILD` set), since the process ends with the display. Skipped without
//! Xvfb unless `F3D_REQUIRE_BACKENDS` is set.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use f3d::f3d_hal::BackendId;
use f3d::prelude::*;

const NAME: &str = "display_lost_ends_the_app";
const CHILD: &str = "F3D_DISPLAY_LOST_CHILD";

/// The app: a window on soft, saying `ready` on its standard output once it drew 3 frames.
fn child() {
    App::new()
        .add_plugins(
            F3dDefaultPlugins
                .set(F3dRenderPlugin { backend: BackendChoice::Named(BackendId::SOFT), ..default() }),
        )
        .add_systems(Startup, |mut commands: Commands| {
            commands.spawn(Camera3d::default());
        })
        .add_systems(Last, |stats: Res<RenderStats>, mut said: Local<bool>| {
            if stats.frames_rendered >= 3 && !*said {
                *said = true;
                println!("ready");
            }
        })
        .run();
    println!("the app returned");
}

fn fail(why: &str) -> ! {
    eprintln!("test {NAME} ... FAILED: {why}");
    std::process::exit(1);
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        println!("{NAME}: test");
        return;
    }
    if std::env::var_os(CHILD).is_some() {
        child();
        return;
    }
    let (server, display) = match f3d_testing::xvfb::start(320, 240) {
        Ok(x) => x,
        Err(e) if std::env::var_os("F3D_REQUIRE_BACKENDS").is_none() => {
            println!("test {NAME} ... skipped: no Xvfb ({e})");
            return;
        }
        Err(e) => fail(&format!("no Xvfb ({e})")),
    };
    let exe = std::env::current_exe().unwrap_or_else(|e| fail(&format!("this test's path: {e}")));
    let mut app = Command::new(exe)
        .env(CHILD, "1")
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("starting the app: {e}")));
    // The app's log, read on threads so neither pipe fills.
    let stderr = app.stderr.take().expect("piped");
    let log = std::thread::spawn(move || {
        std::io::BufReader::new(stderr).lines().map_while(Result::ok).collect::<Vec<_>>().join("\n")
    });
    let stdout = app.stdout.take().expect("piped");
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let out = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if line == "ready" {
                let _ = ready_tx.send(());
            }
            lines.push(line);
        }
        lines.join("\n")
    });
    if ready.recv_timeout(Duration::from_secs(120)).is_err() {
        let _ = app.kill();
        fail(&format!(
            "the app did not draw 3 frames in its window; its log:\n{}",
            log.join().unwrap_or_default()
        ));
    }
    // The display goes away.
    drop(server);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        match app.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            _ => {
                let _ = app.kill();
                fail("the app still ran 60 s after its display went away");
            }
        }
    };
    let log = log.join().unwrap_or_default();
    let out = out.join().unwrap_or_default();
    if log.contains("panicked") || out.contains("panicked") {
        fail(&format!("the app panicked when its display went away:\n{log}"));
    }
    // A signal (an abort) leaves no exit code; 101 is a panic's.
    match status.code() {
        None | Some(101) => fail(&format!("the app ended by {status} when its display went away:\n{log}")),
        Some(_) => {}
    }
    println!("app: {status}\ntest {NAME} ... ok\n\ntest result: ok. 1 passed; 0 failed");
}
