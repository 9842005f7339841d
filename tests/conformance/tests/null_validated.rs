//! The conformance suite on the null backend seen through the validation layer: every check
//! must answer as it does without it (`f3d_conformance::through_validation`).

use std::sync::Arc;

use f3d_backend_null::NullDevice;
use f3d_hal::{BackendId, GraphicsDevice};

fn main() {
    f3d_conformance::run_libtest_main(
        BackendId::NULL,
        f3d_conformance::through_validation(|| {
            Ok(Arc::new(NullDevice::new("conformance")) as Arc<dyn GraphicsDevice>)
        }),
    )
}
