//! What the vulkan backend's tests share: a quiet Mesa, devices opened with the validation
//! layers on (every message collected), and turns so that only one such device is alive at a
//! time.

#![allow(dead_code)]

use std::sync::{Arc, Mutex, MutexGuard};

use f3d_backend_vulkan::{ValidationLog, VulkanDevice, VulkanOptions};
use f3d_hal::{BackendId, DeviceRequest, GraphicsDevice, OpenError};

pub use f3d_conformance::quiet_mesa;

/// This test's turn: one test at a time in a test binary holds it, for its whole body. The
/// Khronos validation layer Debian 12 ships (1.3.239) keeps per-device state in an
/// unsynchronised map and crashes when a device is created or destroyed while another is in
/// use on another thread, and every device these tests open has the layer on.
pub fn turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    // A test that panicked while holding the turn left nothing behind that the next needs.
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Options for test devices: validation into `log`, the pipeline cache in a scratch folder.
pub fn options(log: &ValidationLog) -> VulkanOptions {
    VulkanOptions::new()
        .with_validation_log(log.clone())
        .with_pipeline_cache_dir(std::env::temp_dir().join("f3d-vulkan-test-cache"))
}

/// Opens a validated device of `size`, writing validation messages into `log`.
pub fn open(log: &ValidationLog, size: u32) -> Result<VulkanDevice, OpenError> {
    quiet_mesa();
    let mut request = DeviceRequest::new(size, size);
    request.label = "test".into();
    VulkanDevice::open_with(&request, options(log))
}

/// A validated device, or `None` (with a note) when this machine has no Vulkan device and
/// `F3D_REQUIRE_BACKENDS` does not name vulkan.
pub fn device(log: &ValidationLog) -> Option<VulkanDevice> {
    match open(log, 64) {
        Ok(d) => Some(d),
        Err(e) if f3d_conformance::backend_required(&BackendId::VULKAN) => {
            panic!("F3D_REQUIRE_BACKENDS names vulkan, but it did not open: {e}")
        }
        Err(e) => {
            eprintln!("skipped: the vulkan device did not open: {e}");
            None
        }
    }
}

/// The factory the conformance suite calls for every check.
pub fn factory(
    log: ValidationLog,
) -> impl Fn() -> Result<Arc<dyn GraphicsDevice>, OpenError> + Send + Sync + 'static {
    move || {
        let mut request = DeviceRequest::new(256, 256);
        request.label = "conformance".into();
        VulkanDevice::open_with(&request, options(&log)).map(|d| Arc::new(d) as Arc<dyn GraphicsDevice>)
    }
}
