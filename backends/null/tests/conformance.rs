//! The conformance suite on the null backend, one test per check: every tier but the shader
//! one, since the null backend runs no shaders (`f3d conformance --backend null` runs all of
//! them, and its shader checks decline as reviewed in `f3d_conformance::declines`).

use std::sync::Arc;

use f3d_backend_null::{NULL_BACKEND, NullDevice};
use f3d_conformance::Tier;
use f3d_hal::GraphicsDevice;

fn main() {
    f3d_conformance::run_libtest_main_tiers(
        NULL_BACKEND,
        &[Tier::Core, Tier::Capabilities, Tier::Lifecycle],
        || Ok(Arc::new(NullDevice::new("conformance")) as Arc<dyn GraphicsDevice>),
    )
}
