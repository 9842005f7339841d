//! The default registry's choice with no backend named: a real GPU when there is one, else
//! the soft rasteriser — never a GPU API running on a CPU adapter (lavapipe), which CI has
//! installed and which would otherwise be tried before soft.

use f3d::f3d_hal::{BackendId, DeviceRequest};
use f3d::plugin::default_registry;

#[test]
fn unnamed_open_prefers_a_gpu_then_soft_over_a_software_gpu_api() {
    let registry = default_registry();
    let device = registry.open(&DeviceRequest::new(64, 64)).expect("soft always opens");
    let info = device.adapter_info();
    assert!(
        !info.cpu || device.backend_id() == BackendId::SOFT,
        "{} on the CPU adapter {:?} was chosen over soft",
        device.backend_id(),
        info.name
    );
}

#[test]
fn a_named_backend_on_a_cpu_adapter_still_opens() {
    let registry = default_registry();
    for backend in [BackendId::VULKAN, BackendId::WGPU] {
        let mut request = DeviceRequest::new(64, 64);
        request.backend = Some(backend.clone());
        // Where it opens at all (no Vulkan driver: it declines), naming it gets it; a backend
        // CI requires (`F3D_REQUIRE_BACKENDS`) must open.
        match registry.open(&request) {
            Ok(device) => assert_eq!(device.backend_id(), backend),
            Err(e) => assert!(
                !f3d_conformance::backend_required(&backend),
                "F3D_REQUIRE_BACKENDS names {backend}, but naming it did not open it: {e}"
            ),
        }
    }
}
