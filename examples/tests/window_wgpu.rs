//! The showcase in a bevy_winit window under Xvfb, presented by the wgpu backend (see
//! `window_common`).

mod window_common;

fn main() {
    window_common::main_with(
        "showcase_presents_on_wgpu_under_xvfb",
        "window_wgpu",
        f3d::f3d_hal::BackendId::WGPU,
        false,
        false,
    );
}
