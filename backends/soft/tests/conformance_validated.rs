//! The conformance suite on the soft backend seen through the validation layer: every check
//! must answer as it does without it (`f3d_conformance::through_validation`).

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_hal::{BackendId, GraphicsDevice};

fn main() {
    f3d_conformance::run_libtest_main(
        BackendId::SOFT,
        f3d_conformance::through_validation(|| {
            Ok(Arc::new(SoftDevice::new("conformance")) as Arc<dyn GraphicsDevice>)
        }),
    )
}
