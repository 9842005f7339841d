//! The showcase in a bevy_winit window under Xvfb, presented by the soft backend (see
//! `window_common`).

mod window_common;

fn main() {
    window_common::main_with(
        "showcase_presents_on_soft_under_xvfb",
        "window_soft",
        f3d::f3d_hal::BackendId::SOFT,
        false,
        false,
    );
}
