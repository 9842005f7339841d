//! The showcase in a bevy_winit window under Xvfb, presented by the vulkan backend (see
//! `window_common`).

mod window_common;

fn main() {
    window_common::main_with(
        "showcase_presents_on_vulkan_under_xvfb",
        "window_vulkan",
        f3d::f3d_hal::BackendId::VULKAN,
        false,
        false,
    );
}
