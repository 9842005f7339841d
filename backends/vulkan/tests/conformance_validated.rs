//! The conformance suite on the vulkan backend (with the Khronos layers) seen through f3d's
//! validation layer: every check must answer as it does without it
//! (`f3d_conformance::through_validation`).

use f3d_backend_vulkan::ValidationLog;
use f3d_hal::BackendId;

mod common;

fn main() {
    common::quiet_mesa();
    f3d_conformance::run_libtest_main_serial(
        BackendId::VULKAN,
        f3d_conformance::through_validation(common::factory(ValidationLog::new())),
    )
}
