//! The conformance suite on the null backend, one test per check: every tier but the shader
//! one, since the null backend runs no shaders (`f3d conformance --backend null` runs all of
//! them, and its shader checks decline as reviewed in `f3d_conformance::declines`).

use std::sync::Arc;

use f3d_backend_null::{NULL_BACKEND, NullDevice};
use f3d_conformance::Tier;
use f3d_conformance::declines::AllowedDecline;
use f3d_hal::GraphicsDevice;

/// The checks this backend may decline, each with when (words its decline must contain) and
/// why, reviewed like code: any other decline fails the run. Empty: every check of the tiers
/// run here is answered.
const DECLINES: &[AllowedDecline] = &[];

fn main() {
    f3d_conformance::run_libtest_main_tiers(
        NULL_BACKEND,
        &[Tier::Core, Tier::Capabilities, Tier::Lifecycle],
        DECLINES,
        || Ok(Arc::new(NullDevice::new("conformance")) as Arc<dyn GraphicsDevice>),
    )
}
