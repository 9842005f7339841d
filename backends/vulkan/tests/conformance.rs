//! The conformance suite on the vulkan backend: one test per check, every device opened with
//! the Khronos validation layer, one check at a time (the layer Debian 12 ships crashes when
//! devices come and go on several threads at once). A layer message fails the call (and so
//! the check) during which it arrived; `tests/validation.rs` runs the whole suite again and
//! asserts no message arrived at all, teardown included. Without a Vulkan device every
//! check declines (and fails when `F3D_REQUIRE_BACKENDS` names `vulkan`).

use f3d_backend_vulkan::ValidationLog;
use f3d_hal::BackendId;

mod common;

fn main() {
    common::quiet_mesa();
    f3d_conformance::run_libtest_main_serial(BackendId::VULKAN, common::factory(ValidationLog::new()))
}
