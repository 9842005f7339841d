//! The validation layer is on and heard: the whole conformance suite runs on devices sharing
//! one [`ValidationLog`] and leaves it empty (teardown included), and a deliberate misuse
//! through the raw ash device does land in the log (so an empty log means something).

use f3d_backend_vulkan::{ValidationLog, ash};
use f3d_hal::{BackendId, GraphicsDevice};

mod common;

#[test]
fn the_whole_suite_leaves_no_validation_message() {
    let _turn = common::turn();
    common::quiet_mesa();
    let log = ValidationLog::new();
    if common::device(&log).is_none() {
        return;
    }
    let report = f3d_conformance::run_suite_serial(BackendId::VULKAN, &common::factory(log.clone()), None);
    println!("{}", report.table());
    assert_eq!(report.failed(), 0, "{}", report.summary_line());
    assert_eq!(report.declined(), 0, "{}", report.summary_line());
    assert!(log.is_empty(), "{} validation messages: {:#?}", log.len(), log.messages());
}

#[test]
fn a_misuse_reaches_the_log() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    assert!(device.vk_validation_log().is_some(), "a device opened with a log validates");
    assert!(log.is_empty(), "opening produced messages: {:?}", log.messages());
    // A buffer with no usage at all: VUID-VkBufferCreateInfo-usage-requiredbitmask.
    let info = ash::vk::BufferCreateInfo::default().size(16).usage(ash::vk::BufferUsageFlags::empty());
    // SAFETY: deliberately invalid usage flags, which the validation layer reports before the
    // driver sees the call; the buffer (if made) is destroyed at once and never used.
    unsafe {
        if let Ok(buffer) = device.vk_device().create_buffer(&info, None) {
            device.vk_device().destroy_buffer(buffer, None);
        }
    }
    let messages = log.messages();
    assert!(
        messages.iter().any(|m| m.contains("VUID-VkBufferCreateInfo-usage")),
        "the layer's report did not reach the log: {messages:?}"
    );
    assert_eq!(device.backend_id(), BackendId::VULKAN);
}
