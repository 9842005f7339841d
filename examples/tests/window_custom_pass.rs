//! The custom pass (`f3d_examples::vignette`, a plugin adding a `RenderStartup` and a
//! `Render` system in its `build`) in a bevy_winit window under Xvfb: the window shows the
//! showcase with the vignette, the frame f3d drew (see `window_common`).

mod window_common;

fn main() {
    window_common::main_with(
        "custom_pass_presents_under_xvfb",
        "window_custom_pass",
        f3d::f3d_hal::BackendId::WGPU,
        false,
        true,
    );
}
