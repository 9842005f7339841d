//! The plugin's windowed mode under Xvfb, the render world pipelined on its own thread (see
//! `window_common`).

mod window_common;

fn main() {
    window_common::main_with(
        "plugin_presents_showcase_pipelined_under_xvfb",
        "window_pipelined",
        true,
        false,
    );
}
