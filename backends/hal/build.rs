//! Computes this build's ABI string (`f3d_hal::dynamic::ABI`): the f3d version, the rustc
//! that compiled it, the target, and whether debug assertions are on. Two builds whose Rust
//! types may be laid out differently never share it.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| format!("{rustc} (version unknown)"));
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown-target".into());
    let assertions = if std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some() {
        "debug assertions"
    } else {
        "no debug assertions"
    };
    let pkg = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!("cargo:rustc-env=F3D_ABI=f3d {pkg}; {version}; {target}; {assertions}");
    println!("cargo:rerun-if-changed=build.rs");
}
