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

/// The library cargo built for the null backend (a dependency of this crate, so in `deps/`
/// beside this test), copied into `dir` with its bytes passed through `edit`.
fn null_library_into(dir: &std::path::Path, edit: impl FnOnce(&mut Vec<u8>)) {
    let name = f3d::f3d_hal::dynamic::library_file_name("null");
    let exe = std::env::current_exe().expect("the test binary");
    let built = exe.parent().expect("deps").join(&name);
    let mut bytes = std::fs::read(&built).unwrap_or_else(|e| panic!("{}: {e}", built.display()));
    edit(&mut bytes);
    std::fs::create_dir_all(dir).expect("a temporary directory");
    std::fs::write(dir.join(name), bytes).expect("the copy");
}

#[test]
fn backends_loads_libraries_from_f3d_backend_path_and_says_what_it_refused() {
    use f3d::f3d_hal::dynamic::ABI;
    let root = std::env::temp_dir().join(format!("f3d-backend-path-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (good, bad) = (root.join("good"), root.join("bad"));
    null_library_into(&good, |_| {});
    let altered = ABI.replacen("f3d ", "f3x ", 1);
    null_library_into(&bad, |bytes| {
        let at = bytes.windows(ABI.len()).position(|w| w == ABI.as_bytes()).expect("the ABI string");
        bytes[at..at + ABI.len()].copy_from_slice(altered.as_bytes());
    });
    let list = std::env::join_paths([&bad, &good]).expect("a path list");
    let out = Command::new(env!("CARGO_BIN_EXE_f3d"))
        .arg("backends")
        .env("F3D_BACKEND_PATH", &list)
        .output()
        .expect("f3d runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("null: f3d null"), "the loaded backend is tried first:\n{text}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("null: ")).count(), 2, "{text}");
    let loaded = format!(
        "loaded backend null from {}",
        good.join(f3d::f3d_hal::dynamic::library_file_name("null")).display()
    );
    assert!(lines.contains(&loaded.as_str()), "{text}");
    let refused = lines.iter().find(|l| l.starts_with("refused ")).unwrap_or_else(|| panic!("{text}"));
    assert!(refused.contains(&altered) && refused.contains(ABI), "{refused}");
    // The library's own warning reaches standard error: `f3d` installs a log subscriber
    // (without one, `tracing` lines from the library go nowhere).
    let errors = String::from_utf8_lossy(&out.stderr);
    let warning = errors.lines().find(|l| l.contains("F3D_BACKEND_PATH: refused"));
    assert!(warning.is_some_and(|w| w.contains("WARN") && w.contains(&altered)), "stderr:\n{errors}");
    let _ = std::fs::remove_dir_all(&root);
}

/// A `RUST_LOG` that is not a filter is said, with why, and the default filter used (the
/// command still runs); the log is plain text when standard error is not a terminal.
#[test]
fn a_bad_rust_log_is_named_and_the_default_used() {
    let out = Command::new(env!("CARGO_BIN_EXE_f3d"))
        .arg("backends")
        .env("RUST_LOG", "f3d=[[")
        .output()
        .expect("f3d runs");
    assert!(out.status.success());
    let errors = String::from_utf8_lossy(&out.stderr);
    let line = errors.lines().find(|l| l.contains("RUST_LOG=\"f3d=[[\" is not a log filter"));
    assert!(line.is_some_and(|l| l.contains("WARN") && !l.contains('\u{1b}')), "stderr:\n{errors}");
}
