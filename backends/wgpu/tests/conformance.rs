//! The conformance suite on the wgpu backend: one test per check. On a machine without an
//! adapter every check declines (and fails when `F3D_REQUIRE_BACKENDS` names `wgpu`).

use std::sync::Arc;

use f3d_backend_wgpu::WgpuDevice;
use f3d_hal::{BackendId, DeviceRequest, GraphicsDevice};

mod common;

fn main() {
    common::quiet_mesa();
    f3d_conformance::run_libtest_main(BackendId::WGPU, || {
        let mut request = DeviceRequest::new(256, 256);
        request.label = "conformance".into();
        WgpuDevice::open(&request).map(|d| Arc::new(d) as Arc<dyn GraphicsDevice>)
    })
}
