//! The null backend as an app reaches it: registered into a registry, opened by name, with
//! its material compiler for the same backend.

use f3d_backend_null::{NULL_BACKEND, NullCompiler, register_null_backend};
use f3d_hal::{DeviceRegistry, DeviceRequest};
use f3d_materials::MaterialCompiler;

#[test]
fn registers_and_opens_by_name() {
    let mut registry = DeviceRegistry::new();
    let registration = register_null_backend(&mut registry);
    assert_eq!(registry.backends(), [NULL_BACKEND]);

    let request = DeviceRequest { backend: Some(NULL_BACKEND), ..DeviceRequest::new(64, 64) };
    let device = registry.open(&request).expect("the null backend opens");
    assert_eq!(device.backend_id(), NULL_BACKEND);
    assert_eq!(NullCompiler.backend(), NULL_BACKEND);

    assert!(registry.remove(registration));
    assert!(registry.open(&request).is_err(), "removed, it no longer opens");
}
