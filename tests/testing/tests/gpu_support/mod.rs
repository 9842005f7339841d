//! What the GPU backends' engine tests here share: a quiet Mesa, validated vulkan devices (every
//! validation message collected) taken one at a time, and wgpu devices. These tests live here,
//! not in the backends, so that no backend's tests depend on the plugin; the backends' own
//! tests (conformance, device, validation) keep the few lines of the same set-up they need.

#![allow(dead_code)]

use std::sync::{Mutex, MutexGuard};

use f3d::f3d_hal::{BackendId, DeviceRequest};
use f3d_backend_vulkan::{ValidationLog, VulkanDevice, VulkanOptions};
use f3d_backend_wgpu::WgpuDevice;
use f3d_conformance::backend_required;

pub use f3d_conformance::quiet_mesa;

/// This test's turn with a validated vulkan device: the Khronos validation layer Debian 12
/// ships (1.3.239) crashes when a device is created or destroyed while another is in use on
/// another thread, so one test of a binary at a time holds it.
pub fn turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether `F3D_REQUIRE_BACKENDS` names `backend`.
fn required(backend: &BackendId) -> bool {
    std::env::var("F3D_REQUIRE_BACKENDS")
        .is_ok_and(|list| list.split(',').any(|b| b.trim() == backend.as_str()))
}

/// A vulkan device with the validation layers on, writing into `log`; `None` (with a note)
/// when this machine has none and `F3D_REQUIRE_BACKENDS` does not name vulkan.
pub fn device(log: &ValidationLog) -> Option<VulkanDevice> {
    quiet_mesa();
    let mut request = DeviceRequest::new(64, 64);
    request.label = "test".into();
    let options = VulkanOptions::new()
        .with_validation_log(log.clone())
        .with_pipeline_cache_dir(std::env::temp_dir().join("f3d-vulkan-test-cache"));
    match VulkanDevice::open_with(&request, options) {
        Ok(d) => Some(d),
        Err(e) if backend_required(&BackendId::VULKAN) => {
            panic!("F3D_REQUIRE_BACKENDS names vulkan, but it did not open: {e}")
        }
        Err(e) => {
            eprintln!("skipped: the vulkan device did not open: {e}");
            None
        }
    }
}

/// A wgpu device of `size`, or `None` (with a note) as for [`device`].
pub fn wgpu_device(size: (u32, u32)) -> Option<WgpuDevice> {
    quiet_mesa();
    match WgpuDevice::open(&DeviceRequest::new(size.0, size.1)) {
        Ok(d) => Some(d),
        Err(e) if backend_required(&BackendId::WGPU) => {
            panic!("F3D_REQUIRE_BACKENDS names wgpu, but it did not open: {e}")
        }
        Err(e) => {
            eprintln!("skipped: the wgpu device did not open: {e}");
            None
        }
    }
}

/// Whether `F3D_REQUIRE_BACKENDS` names vulkan (for tests that skip on other grounds).
pub fn vulkan_required() -> bool {
    backend_required(&BackendId::VULKAN)
}
