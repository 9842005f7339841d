//! The no-progress watchdog GPU backends use while they wait for the GPU: when nothing moves
//! for the request's `gpu_timeout`, the device counts as lost rather than hanging the app.
//!
//! "Nothing moves" means neither the device's progress counter (a timeline value, a fence
//! count) nor, on a CPU adapter (lavapipe, SwiftShader), the process's CPU time advanced. A
//! software driver grinding through one enormous submission makes no timeline progress for a
//! long time but burns CPU the whole while: that is a slow frame, not a lost device. A GPU
//! driver whose GPU hangs resets it within seconds and reports the loss itself
//! (`VK_ERROR_DEVICE_LOST`); the watchdog is for drivers that never do.

use std::time::{Duration, Instant};

/// The default no-progress limit: 30 s. Drivers reset a hung GPU themselves within a few
/// seconds (Windows' TDR after 2 s, Linux kernel drivers after about 10 s) and report the
/// loss, so 30 s of no progress at all — no value reached, no CPU time spent by a software
/// driver — is a driver that will not report; waiting longer only hangs the app.
pub const DEFAULT_GPU_TIMEOUT: Duration = Duration::from_secs(30);

/// Watches one wait for progress.
#[derive(Debug)]
pub struct Watchdog {
    limit: Option<Duration>,
    value: u64,
    cpu: Option<Duration>,
    watch_cpu: bool,
    since: Instant,
}

impl Watchdog {
    /// Starts watching at progress `value`; `watch_cpu` counts the process's CPU time as
    /// progress too (for CPU adapters). `limit` `None` never fires.
    pub fn new(limit: Option<Duration>, value: u64, watch_cpu: bool) -> Self {
        let cpu = if watch_cpu { process_cpu_time() } else { None };
        Self { limit, value, cpu, watch_cpu, since: Instant::now() }
    }

    /// Notes the progress counter now; `Err(stalled)` once nothing moved for the limit.
    pub fn check(&mut self, value: u64) -> Result<(), Duration> {
        let cpu = if self.watch_cpu { process_cpu_time() } else { None };
        let moved =
            value != self.value || cpu.is_some_and(|c| self.cpu.is_none_or(|was| c > was + CPU_GRAIN));
        if moved {
            self.value = value;
            self.cpu = cpu;
            self.since = Instant::now();
            return Ok(());
        }
        let stalled = self.since.elapsed();
        match self.limit {
            Some(limit) if stalled > limit => Err(stalled),
            _ => Ok(()),
        }
    }
}

/// CPU time below this between two checks is not progress (the waiting thread's own polling
/// and clock granularity).
const CPU_GRAIN: Duration = Duration::from_millis(20);

/// The CPU time every thread of this process has used, where the platform tells (Linux:
/// `/proc/self/stat`, in clock ticks of 10 ms); `None` elsewhere.
fn process_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces, so split after its ')').
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on every Linux target Rust supports.
    Some(Duration::from_millis(ticks * 10))
}

/// Reads `F3D_GPU_TIMEOUT_S` as `DeviceRequest::gpu_timeout` takes it: seconds (fractions
/// allowed), `0` for never; `Err` names what is wrong with any other text.
pub fn parse_gpu_timeout(text: &str) -> Result<Option<Duration>, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("F3D_GPU_TIMEOUT_S={text:?}: expected seconds (0 for never)"))?;
    if !seconds.is_finite() || !(0.0..=86_400.0).contains(&seconds) {
        return Err(format!("F3D_GPU_TIMEOUT_S={text:?}: expected seconds from 0 (never) to 86400"));
    }
    Ok((seconds > 0.0).then(|| Duration::from_secs_f64(seconds)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_resets_the_clock_and_a_stall_fires() {
        let mut w = Watchdog::new(Some(Duration::from_millis(30)), 1, false);
        assert!(w.check(1).is_ok());
        std::thread::sleep(Duration::from_millis(40));
        assert!(w.check(2).is_ok(), "the counter moved");
        std::thread::sleep(Duration::from_millis(40));
        assert!(w.check(2).is_err(), "nothing moved for longer than the limit");
        let mut never = Watchdog::new(None, 1, false);
        std::thread::sleep(Duration::from_millis(5));
        assert!(never.check(1).is_ok());
    }

    #[test]
    fn cpu_time_counts_on_cpu_adapters() {
        if process_cpu_time().is_none() {
            return; // Not Linux: only the counter is watched (the other test covers it).
        }
        let mut w = Watchdog::new(Some(Duration::from_millis(100)), 1, true);
        // Burn CPU (a software driver at work) past the limit: never a stall.
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(300) {
            for i in 0..100_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
            }
            assert!(w.check(1).is_ok(), "CPU time advanced: not a stall");
        }
        assert_ne!(x, 1);
        // Then idle past the limit: a stall.
        std::thread::sleep(Duration::from_millis(150));
        assert!(w.check(1).is_err());
    }

    #[test]
    fn timeouts_parse() {
        assert_eq!(parse_gpu_timeout("2.5"), Ok(Some(Duration::from_millis(2500))));
        assert_eq!(parse_gpu_timeout(" 0 "), Ok(None));
        assert!(parse_gpu_timeout("-1").unwrap_err().contains("F3D_GPU_TIMEOUT_S"));
        assert!(parse_gpu_timeout("soon").is_err());
        assert!(parse_gpu_timeout("inf").is_err());
    }
}
