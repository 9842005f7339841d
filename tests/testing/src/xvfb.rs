//! A private X server for window tests: [`start`] runs Xvfb on a display it picks itself and
//! waits until it accepts connections; dropping the [`Xvfb`] stops it.

use std::error::Error;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running Xvfb; dropped, it is terminated (SIGTERM, so it removes its lock file).
pub struct Xvfb(Child);

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM lets the server remove its lock file; SIGKILL would leave it behind.
        let terminated = Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status();
        if !terminated.is_ok_and(|s| s.success()) {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// Starts Xvfb with one screen of `width`x`height` (24-bit) on a display it picks itself
/// (`-displayfd`) and waits (at most 20 s) until it accepts connections. Returns the server and
/// its display name (`:N`). An error when Xvfb is not installed or does not come up.
pub fn start(width: u32, height: u32) -> Result<(Xvfb, String), Box<dyn Error>> {
    let screen = format!("{width}x{height}x24");
    let mut child = Command::new("Xvfb")
        // -noreset: the server would otherwise reset (and refuse connections for a moment)
        // each time its last client leaves, as the readiness probe below does.
        .args(["-displayfd", "1", "-noreset", "-screen", "0", &screen, "-nolisten", "tcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let stdout = child.stdout.take().ok_or("Xvfb's standard output was not piped")?;
    let server = Xvfb(child);
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)?;
    let number: u32 =
        line.trim().parse().map_err(|_| format!("Xvfb did not say which display it took ({line:?})"))?;
    let display = format!(":{number}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if x11rb::connect(Some(&display)).is_ok() {
            return Ok((server, display));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("Xvfb on {display} did not accept connections within 20 s").into())
}
