//! The null backend as a library loaded at run time: the `cdylib` cargo built beside this test
//! is copied into a directory of its own, loaded through `DeviceRegistry::load_dir`, and
//! passes the conformance suite (every tier but the shader one) through the loaded code; a
//! copy whose ABI string was altered is refused, naming both strings; names are lower-cased,
//! sorted and loaded once.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use f3d_backend_null::NULL_BACKEND;
use f3d_conformance::{Tier, run_suite};
use f3d_hal::dynamic::{ABI, LoadError, library_file_name};
use f3d_hal::{DeviceRegistry, DeviceRequest};

/// The library cargo built for this crate (in `deps/` beside this test, or the profile
/// directory above it), copied into a fresh directory with its bytes passed through `edit`.
fn library_copy(label: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary");
    let built = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(library_file_name("null")))
        .find(|path| path.is_file())
        .expect("cargo built the cdylib beside the tests");
    let mut bytes = std::fs::read(&built).unwrap_or_else(|e| panic!("{}: {e}", built.display()));
    edit(&mut bytes);
    let dir = std::env::temp_dir().join(format!("f3d-null-dynamic-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(dir.join(library_file_name("null")), bytes).expect("the copy");
    dir
}

/// The built library under `file_name` in `dir` (made if missing).
fn place_copy(dir: &Path, file_name: &str) {
    let from = dir.join(library_file_name("null"));
    std::fs::copy(&from, dir.join(file_name)).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
}

fn load(dir: &Path) -> (DeviceRegistry, f3d_hal::LoadReport) {
    let mut registry = DeviceRegistry::new();
    // SAFETY: the library is this crate, built by the same cargo run as this test.
    let report = unsafe { registry.load_dir(dir) };
    (registry, report)
}

#[test]
fn the_loaded_library_passes_the_suite() {
    let dir = library_copy("ok", |_| {});
    let (registry, report) = load(&dir);
    assert!(report.refused.is_empty(), "{report}");
    assert_eq!(report.loaded.len(), 1, "{report}");
    assert_eq!(registry.backends(), [NULL_BACKEND]);

    let registry = Arc::new(registry);
    let factory =
        move || registry.open(&DeviceRequest { backend: Some(NULL_BACKEND), ..DeviceRequest::new(64, 64) });
    for tier in [Tier::Core, Tier::Capabilities, Tier::Lifecycle] {
        let suite = run_suite(NULL_BACKEND, &factory, Some(tier));
        assert_eq!(suite.failed(), 0, "{}", suite.table());
        assert!(suite.passed() > 0, "{}", suite.table());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_are_lower_cased_sorted_and_loaded_once() {
    let dir = library_copy("names", |_| {});
    let upper = library_file_name("null").replace("null", "NULL");
    place_copy(&dir, &upper);
    // A file named for another backend lacks that backend's functions.
    place_copy(&dir, &library_file_name("zz_other"));
    let (registry, report) = load(&dir);
    assert_eq!(registry.backends(), [NULL_BACKEND], "{report}");
    assert_eq!(report.loaded, [(NULL_BACKEND, dir.join(&upper))], "sorted by file name, NULL before null");
    match report.refused.as_slice() {
        [LoadError::Duplicate { name, first, .. }, LoadError::MissingSymbol { symbol, .. }] => {
            assert_eq!((name.as_str(), first), ("null", &dir.join(&upper)));
            assert_eq!(symbol, "f3d_backend_zz_other_abi");
        }
        other => panic!("expected a duplicate and a missing symbol, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_library_built_otherwise_is_refused_naming_both_abis() {
    let altered = ABI.replacen("f3d ", "f3x ", 1);
    let dir = library_copy("abi", |bytes| {
        let at = bytes
            .windows(ABI.len())
            .position(|w| w == ABI.as_bytes())
            .expect("the ABI string in the library");
        bytes[at..at + ABI.len()].copy_from_slice(altered.as_bytes());
    });
    let (registry, report) = load(&dir);
    assert!(report.loaded.is_empty() && registry.backends().is_empty(), "{report}");
    match report.refused.as_slice() {
        [error @ LoadError::AbiMismatch { library, program, .. }] => {
            assert_eq!((library.as_str(), program.as_str()), (altered.as_str(), ABI));
            let text = error.to_string();
            assert!(text.contains(&altered) && text.contains(ABI), "{text}");
        }
        other => panic!("expected one ABI refusal, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
