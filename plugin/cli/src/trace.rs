//! `f3d trace record` and `f3d trace replay`: one backend's device calls for a scene, captured
//! to a `.f3dtrace` file and replayed on another backend (format: `f3d::f3d_hal::trace`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use f3d::f3d_hal::trace::{Trace, TraceLog, TracingDevice};
use f3d::f3d_hal::{BackendId, DeviceRegistry, DeviceRequest, GraphicsDevice};
use f3d_testing::{Frame, Tolerance};

use crate::render::{self, RenderJob};

/// Renders `job` (its backend named) through a [`TracingDevice`] and writes the trace to
/// `out`. Returns a one-line summary.
pub fn record(job: &RenderJob, out: &Path, registry: &DeviceRegistry) -> Result<String, String> {
    let backend = job.backend.clone().ok_or("trace record needs --backend")?;
    let log: Arc<Mutex<Option<Arc<TraceLog>>>> = Arc::default();
    let opened = log.clone();
    let inner = registry.clone();
    let mut registry = DeviceRegistry::new();
    let _ = registry.add_backend(BackendId::from_name(&backend), move |request| {
        let device = inner.open(request)?;
        let tracing = TracingDevice::new(device);
        *opened.lock().unwrap_or_else(|e| e.into_inner()) = Some(tracing.log());
        Ok(Arc::new(tracing) as Arc<dyn GraphicsDevice>)
    });
    let result = render::run_with(job, registry)?;
    let log = log.lock().unwrap_or_else(|e| e.into_inner()).take().ok_or("the device never opened")?;
    let trace = log.finish().map_err(|e| e.to_string())?;
    let bytes = trace.to_bytes();
    std::fs::write(out, &bytes).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(format!(
        "recorded {} calls over {} frames on {} into {} ({} bytes)",
        trace.calls.len(),
        trace.frames(),
        result.device,
        out.display(),
        bytes.len()
    ))
}

/// Reads the trace at `file`; errors name the file and, for a damaged one, the offset.
pub fn read(file: &Path) -> Result<Trace, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    Trace::from_bytes(&bytes).map_err(|e| format!("{}: {e}", file.display()))
}

/// What a replay produced.
pub struct ReplayReport {
    /// One line per readback.
    pub lines: Vec<String>,
    /// Whether every compared readback was within tolerance.
    pub matched: bool,
}

/// Reads the trace at `file`, replays it on `backend`, writes each readback under `out` as
/// `readback-<record>.png` (and what was recorded as `readback-<record>.recorded.png`) and,
/// with `compare`, bounds each against the recorded one: the golden tolerance on the same
/// backend, the GPU-against-soft tolerance across backends.
pub fn replay(
    file: &Path,
    backend: &str,
    out: Option<&Path>,
    compare: bool,
    registry: &DeviceRegistry,
) -> Result<ReplayReport, String> {
    let trace = read(file)?;
    let request = DeviceRequest {
        backend: Some(BackendId::from_name(backend)),
        label: "trace replay".into(),
        ..DeviceRequest::new(64, 64)
    };
    let device = registry.open(&request).map_err(|e| e.to_string())?;
    let replayed = trace.replay(device.as_ref()).map_err(|e| format!("{}: {e}", file.display()))?;
    let tolerance: Tolerance =
        if trace.backend == backend { Tolerance::default() } else { f3d_testing::gpu::AGAINST_SOFT };
    let mut report = ReplayReport { lines: Vec::new(), matched: true };
    for r in &replayed {
        let frame = |image: &f3d::f3d_hal::ReadbackImage| Frame {
            width: image.width,
            height: image.height,
            pixels: image.to_rgba8(),
        };
        let now = frame(&r.replayed);
        let mut line =
            format!("record {} readback of {} ({}x{})", r.record, r.texture, now.width, now.height);
        if let Some(dir) = out {
            let path = dir.join(format!("readback-{}.png", r.record));
            now.write_png(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            line += &format!(": wrote {}", path.display());
            if let Some(recorded) = &r.recorded {
                let path: PathBuf = dir.join(format!("readback-{}.recorded.png", r.record));
                frame(recorded).write_png(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        if compare {
            match &r.recorded {
                None => line += "; nothing recorded to compare with",
                Some(recorded) => {
                    let verdict = f3d_testing::compare(&now, &frame(recorded), tolerance).and_then(|cmp| {
                        cmp.within(tolerance)?;
                        Ok(cmp)
                    });
                    match verdict {
                        Ok(cmp) => {
                            line += &format!(
                                "; matches the recording on {}: {} pixels past {}, largest difference {}",
                                trace.backend, cmp.mismatched, tolerance.channel, cmp.max_difference
                            )
                        }
                        Err(e) => {
                            report.matched = false;
                            line += &format!("; differs from the recording on {}: {e}", trace.backend);
                        }
                    }
                }
            }
        }
        report.lines.push(line);
    }
    Ok(report)
}
