//! The plugin's windowed mode under Xvfb, the render world inline (see `window_common`).

mod window_common;

fn main() {
    window_common::main_with("plugin_presents_showcase_under_xvfb", "window", false, false);
}
