//! `f3d watch`: a material preview redrawn on every save.
//!
//! One line per event on stdout, and nothing else there (scripts read it):
//!
//! ```text
//! reloaded <Name> in <N> ms          the material loaded (the first load too) and the PNG was
//!                                    written; N: from the store learning of the change
//!                                    (after the watcher's debounce) to the PNG written;
//!                                    the first line's N runs from the first load, so it
//!                                    includes the scene's first frame (sky lighting)
//! error: <path>:<line>:<col>: <msg>  the material or a file it includes did not load; the
//!                                    last good version stays in the PNG
//! ```
//!
//! The device line and the full diagnostics go to stderr.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use f3d::f3d_hal::{BackendId, DeviceRegistry};
use f3d::prelude::BackendChoice;
use f3d_examples::{Preview, PreviewEvent, PreviewSettings};

/// What to watch and how.
pub struct WatchJob {
    /// The `.ron` material.
    pub material: PathBuf,
    /// A backend name, or the registry's order.
    pub backend: Option<String>,
    /// The PNG to write.
    pub out: PathBuf,
    /// The `WxH` argument, unparsed.
    pub size: String,
    /// Exit after this many events.
    pub events: Option<u64>,
}

/// Runs `f3d watch`: exit 0 after `--events` events (never, without it), 2 for bad
/// arguments, 1 when the device does not open or a picture cannot be written.
pub fn run(job: WatchJob, registry: DeviceRegistry) -> u8 {
    let Some(size) = f3d_examples::parse_size(&job.size) else {
        eprintln!("error: --size {}: expected WxH, each from 1 to 8192", job.size);
        return 2;
    };
    if !job.material.is_file() {
        eprintln!("error: {}: no such material file", job.material.display());
        return 2;
    }
    if job.events == Some(0) {
        eprintln!("error: --events 0: expected at least 1");
        return 2;
    }
    let backend = match &job.backend {
        None => BackendChoice::Auto,
        Some(name) => {
            let id = BackendId::from_name(name);
            if !registry.backends().contains(&id) {
                let known: Vec<_> = registry.backends().iter().map(|b| b.to_string()).collect();
                eprintln!("error: --backend {name}: unknown backend (known: {})", known.join(", "));
                return 2;
            }
            BackendChoice::Named(id)
        }
    };
    // Absolute, so the store's messages and the watcher agree on the path.
    let material = std::path::absolute(&job.material).unwrap_or(job.material);
    let settings =
        PreviewSettings { size, backend, registry: Some(registry), ..PreviewSettings::new(material.clone()) };
    let mut preview = match Preview::start(settings, Some(job.out.clone())) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    eprintln!("watching {} on {}, writing {}", material.display(), preview.device(), job.out.display());
    let mut seen = 0u64;
    let mut stdout = std::io::stdout().lock();
    loop {
        let line = match preview.next_event(Duration::from_secs(3600)) {
            Ok(None) => continue,
            Ok(Some(PreviewEvent::Reloaded { name, latency, .. })) => {
                format!("reloaded {name} in {} ms", latency.as_millis())
            }
            Ok(Some(PreviewEvent::Failed { message })) => format!("error: {message}"),
            Err(e) => {
                eprintln!("error: {e}");
                return 1;
            }
        };
        // A closed stdout (the reader went away) ends the watch.
        if writeln!(stdout, "{line}").and_then(|()| stdout.flush()).is_err() {
            return 0;
        }
        seen += 1;
        if job.events.is_some_and(|n| seen >= n) {
            return 0;
        }
    }
}
