//! The conformance suite on the wgpu backend seen through the validation layer: every check
//! must answer as it does without it (`f3d_conformance::through_validation`).

use std::sync::Arc;

use f3d_backend_wgpu::WgpuDevice;
use f3d_hal::{BackendId, DeviceRequest, GraphicsDevice};

mod common;

fn main() {
    common::quiet_mesa();
    f3d_conformance::run_libtest_main(
        BackendId::WGPU,
        f3d_conformance::through_validation(|| {
            let mut request = DeviceRequest::new(256, 256);
            request.label = "conformance".into();
            WgpuDevice::open(&request).map(|d| Arc::new(d) as Arc<dyn GraphicsDevice>)
        }),
    )
}
