//! `f3d backends` as a user runs it: every registered backend on a line, with its adapter or
//! the reason it cannot open (here forced by pointing the Vulkan loader at no driver).

use std::process::Command;

#[test]
fn backends_lists_each_backend_with_its_adapter_or_why_not() {
    let out = Command::new(env!("CARGO_BIN_EXE_f3d")).arg("backends").output().expect("f3d runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |id: &str| text.lines().find(|l| l.starts_with(&format!("{id}: "))).map(str::to_owned);
    for id in ["vulkan", "wgpu", "soft", "null"] {
        assert!(line(id).is_some(), "no line for {id}:\n{text}");
    }
    assert!(line("soft").unwrap().contains("f3d soft"), "{text}");
    assert!(line("null").unwrap().contains("f3d null"), "{text}");

    let out = Command::new(env!("CARGO_BIN_EXE_f3d"))
        .arg("backends")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .output()
        .expect("f3d runs");
    assert!(out.status.success(), "a backend that cannot open is listed, not an error");
    let text = String::from_utf8_lossy(&out.stdout);
    let vulkan = text.lines().find(|l| l.starts_with("vulkan: ")).unwrap_or_default();
    assert!(vulkan.contains("not available") && vulkan.contains("driver"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("soft: f3d soft")), "{text}");
}
