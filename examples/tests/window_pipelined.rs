//! The showcase in a bevy_winit window under Xvfb with the render world on its own thread
//! (pipelined), presented by the wgpu backend (see `window_common`).

mod window_common;

fn main() {
    window_common::main_with(
        "pipelined_showcase_presents_under_xvfb",
        "window_pipelined",
        f3d::f3d_hal::BackendId::WGPU,
        true,
        false,
    );
}
