//! `f3d create backend`: the template is the null crate itself, file for file; a backend
//! generated under another name builds outside the workspace against the f3d crates by path
//! and passes its own tests (registration, the conformance suite, and the same suite through
//! its `cdylib` loaded at run time).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use f3d_cli::create::{self, Dependencies};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the checkout")
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.strip_prefix(dir).expect("under dir").to_path_buf());
            }
        }
    }
    out
}

#[test]
fn name_null_in_the_workspace_is_the_null_crate_file_for_file() {
    let null = repo().join("backends/null");
    let files = create::generate("null", &Dependencies::Workspace).expect("generates");
    let generated: BTreeSet<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(generated, files_under(&null), "the template lists exactly the null crate's files");
    for (path, text) in &files {
        let on_disk = std::fs::read_to_string(null.join(path)).expect("readable");
        assert!(*text == on_disk, "{} differs from backends/null", path.display());
    }
}

#[test]
fn bad_names_and_occupied_directories_are_refused() {
    for name in ["", "Wobble", "9lives", "my-gpu", "gpu_", "my__gpu", "gpu!"] {
        let err = create::generate(name, &Dependencies::Workspace).expect_err(name);
        assert!(err.starts_with(&format!("--name {name:?}")), "{err}");
    }
    let dir = std::env::temp_dir().join(format!("f3d-create-occupied-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("keep.txt"), "mine").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_f3d"))
        .args(["create", "backend", "--name", "wobble", "--path"])
        .arg(&dir)
        .output()
        .expect("f3d runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists and is not empty"));
    assert_eq!(std::fs::read_to_string(dir.join("keep.txt")).expect("kept"), "mine");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn by_version_names_each_f3d_crate_by_version() {
    let files = create::generate("my_gpu", &Dependencies::Version("0.1.0".into())).expect("generates");
    let manifest = &files.iter().find(|(p, _)| p == Path::new("Cargo.toml")).expect("a manifest").1;
    assert!(manifest.contains("name = \"f3d_backend_my_gpu\""), "{manifest}");
    for krate in ["f3d_hal", "f3d_materials", "f3d_conformance"] {
        assert!(manifest.contains(&format!("{krate} = \"0.1.0\"")), "{manifest}");
    }
    assert!(!manifest.contains("workspace"), "{manifest}");
    let lib = &files.iter().find(|(p, _)| p == Path::new("src/lib.rs")).expect("lib.rs").1;
    assert!(lib.contains("pub use device::MyGpuDevice;"), "{lib}");
    assert!(lib.contains("pub const MY_GPU_BACKEND: BackendId = BackendId::new(\"my_gpu\");"), "{lib}");
    assert!(lib.contains("pub fn register_my_gpu_backend("), "{lib}");
}

/// Generates `wobble` with the f3d binary into a directory outside the workspace, then builds
/// it and runs its tests with cargo, offline, on this checkout's lockfile.
#[test]
fn a_generated_backend_builds_and_passes_its_own_tests() {
    let work = std::env::temp_dir().join(format!("f3d-create-backend-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let dir = work.join("f3d_backend_wobble");
    let out = Command::new(env!("CARGO_BIN_EXE_f3d"))
        .args(["create", "backend", "--name", "wobble", "--path"])
        .arg(&dir)
        .arg("--f3d-path")
        .arg(repo())
        .output()
        .expect("f3d runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("created f3d_backend_wobble in "));
    for (path, text) in
        files_under(&dir).iter().map(|p| (p, std::fs::read_to_string(dir.join(p)).expect("text")))
    {
        assert!(!text.to_lowercase().contains("null"), "{} still says null", path.display());
    }

    // The workspace's lockfile, so the same versions resolve offline; a target directory of
    // its own (the one running this test is locked by the cargo running it), kept between
    // runs next to it.
    std::fs::copy(repo().join("Cargo.lock"), dir.join("Cargo.lock")).expect("lockfile");
    let exe = std::env::current_exe().expect("test binary");
    let target = exe.ancestors().nth(3).expect("target dir").join("generated-backend");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["test", "--offline", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        // Build time: no debug info (nothing here is stepped through).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo test failed:\n{stdout}\n{stderr}");
    for test in [
        "registers_and_opens_by_name",
        "the_loaded_library_passes_the_suite",
        "a_library_built_otherwise_is_refused_naming_both_abis",
    ] {
        assert!(stdout.contains(&format!("test {test} ... ok")), "{test}:\n{stdout}");
    }
    let summary = stdout.lines().find(|l| l.starts_with("conformance wobble: ")).unwrap_or_default();
    assert!(summary.contains(" 0 failed") && !summary.contains(" 0 passed"), "{stdout}");
    assert!(!stdout.contains("shader::"), "the template's suite leaves the shader tier out:\n{stdout}");
    let _ = std::fs::remove_dir_all(&work);
}
