//! What the wgpu backend's tests share.

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;

/// Gives Mesa a private runtime directory when the environment has none (it prints harmless
/// errors otherwise). Call first thing in `main`, before any thread exists.
pub fn quiet_mesa() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_some() {
        return;
    }
    let dir = std::env::temp_dir().join("f3d-wgpu-xdg");
    if std::fs::create_dir_all(&dir).is_ok()
        && std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).is_ok()
    {
        // SAFETY: called at the start of `main`, before this process starts any thread, so no
        // other thread can be reading the environment.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}
