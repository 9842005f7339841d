//! Logging for programs that run f3d without Bevy's `LogPlugin`: headless tools, the `f3d`
//! command and the examples that draw to a file. f3d's library code logs through `tracing`
//! (a material that does not compile, a glTF feature skipped, a backend refused), and
//! without a subscriber those lines go nowhere.
//!
//! [`init_stderr_log`] installs one, once per process, writing to standard error (standard
//! output stays the program's own). The filter is `RUST_LOG` when it is set (one that does
//! not parse is said, with why, and the default used), otherwise warnings and errors, with wgpu's internals at errors only, as Bevy's `LogPlugin` defaults
//! them. An app with [`F3dDefaultPlugins`](crate::F3dDefaultPlugins) has `LogPlugin` and must
//! not call it (the second subscriber would be refused, and `LogPlugin` says so).

use bevy_log::tracing_subscriber::{self, EnvFilter};

/// The filter used when `RUST_LOG` is not set.
pub const DEFAULT_FILTER: &str = "warn,wgpu=error,wgpu_core=error,wgpu_hal=error,naga=warn";

/// Installs a standard-error subscriber for f3d's log lines, unless the process has one
/// already (then it does nothing). See the [module docs](self).
pub fn init_stderr_log() {
    let (filter, refused) = match std::env::var("RUST_LOG") {
        Ok(spec) if !spec.trim().is_empty() => match EnvFilter::try_new(&spec) {
            Ok(filter) => (filter, None),
            Err(e) => (EnvFilter::new(DEFAULT_FILTER), Some((spec, e))),
        },
        _ => (EnvFilter::new(DEFAULT_FILTER), None),
    };
    // `try_init` refuses when a global subscriber exists: the program's own choice stands.
    // Colours only for a terminal: a log captured to a file or a pipe stays plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .try_init();
    if let (Ok(()), Some((spec, e))) = (installed, refused) {
        bevy_log::warn!("RUST_LOG={spec:?} is not a log filter ({e}); using {DEFAULT_FILTER:?}");
    }
}
