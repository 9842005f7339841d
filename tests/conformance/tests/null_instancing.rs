//! The null device made for CPU benchmarks ([`NullDevice::with_instancing`]) against the
//! suite: everything it answers passes, and the instancing check — which it cannot answer
//! with its pipelines refused — declines with that reason instead of passing. The plain
//! [`NullDevice::new`] (tests/conformance.rs) answers that check by refusing instanced draws.

use std::sync::Arc;

use f3d_backend_null::NullDevice;
use f3d_conformance::{Outcome, Tier, run_suite};
use f3d_hal::{BackendId, DeviceFeature, GraphicsDevice};

#[test]
fn with_instancing_declines_only_what_it_cannot_show() {
    let device = NullDevice::new("plain");
    assert!(!device.features().has(DeviceFeature::INSTANCING));
    let device = device.with_instancing();
    assert!(device.features().has(DeviceFeature::INSTANCING));

    let factory = || Ok(Arc::new(NullDevice::new("instancing").with_instancing()) as Arc<dyn GraphicsDevice>);
    let report = run_suite(BackendId::NULL, &factory, None);
    assert_eq!(report.failed(), 0, "{}", report.table());
    let declined: Vec<_> = report
        .checks
        .iter()
        .filter(|c| c.tier != Tier::Shader && matches!(c.outcome, Outcome::Declined(_)))
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(declined, ["capabilities::instancing"], "{}", report.table());
}
