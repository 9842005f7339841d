//! The conformance suite on the null backend: one test per check.

use std::sync::Arc;

use f3d_backend_null::NullDevice;
use f3d_hal::{BackendId, GraphicsDevice};

fn main() {
    f3d_conformance::run_libtest_main(BackendId::NULL, || {
        Ok(Arc::new(NullDevice::new("conformance")) as Arc<dyn GraphicsDevice>)
    })
}
