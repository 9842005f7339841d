//! The conformance suite on the soft backend: one test per check.

use std::sync::Arc;

use f3d_backend_soft::SoftDevice;
use f3d_hal::{BackendId, GraphicsDevice};

fn main() {
    f3d_conformance::run_libtest_main(BackendId::SOFT, || {
        Ok(Arc::new(SoftDevice::new("conformance")) as Arc<dyn GraphicsDevice>)
    })
}
