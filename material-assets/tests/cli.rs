//! `f3d material check` and `f3d material compile` as the CLI crate calls them.

use std::path::{Path, PathBuf};

use f3d_materials::SoftCompiler;
use f3d_materials::cli::{self, Emit};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/assets/materials");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    v.sort();
    v
}

#[test]
fn check_passes_on_every_example() {
    let mut err = Vec::new();
    let paths = examples();
    assert!(paths.len() >= 4);
    assert_eq!(cli::check(&paths, &mut err), 0, "{}", String::from_utf8_lossy(&err));
    assert!(err.is_empty());
}

#[test]
fn check_prints_path_line_col_and_a_caret_for_each_problem() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid");
    let bad = [dir.join("30_wgsl_type_error.ron"), dir.join("14_duplicate_parameter.ron")];
    let mut paths = examples();
    paths.extend(bad.iter().cloned());
    let mut err = Vec::new();
    assert_eq!(cli::check(&paths, &mut err), 1);
    let text = String::from_utf8(err).unwrap();
    let first = format!("{}:8:23: error: Function 'surface' is invalid", bad[0].display());
    assert!(text.contains(&first), "{text}");
    let second = format!("{}:6:16: error: duplicate parameter name `gain`", bad[1].display());
    assert!(text.contains(&second), "{text}");
    assert!(
        text.contains("8 |     (*m).base_color = material_params.tint;\n  |                       ^^^^"),
        "{text}"
    );
    let checked = format!("error: 2 problem(s) in {} files checked", paths.len());
    assert!(text.trim_end().ends_with(&checked), "{text}");
    let mut none = Vec::new();
    assert_eq!(cli::check(&[], &mut none), 2);
}

#[test]
fn compile_prints_what_the_backend_receives() {
    let toon = examples().into_iter().find(|p| p.ends_with("toon.ron")).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(cli::compile(&toon, &SoftCompiler, Emit::Wgsl, &mut out, &mut err), 0);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("(soft backend: naga module)") && text.contains("fn fs_unlit("), "{text}");
    assert_eq!(text.matches("// ===== ").count(), 3, "one section per variant");

    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(cli::compile(&toon, &SoftCompiler, Emit::Reflection, &mut out, &mut err), 0);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("MaterialParams material_params (group 1, binding 0): 64 bytes"), "{text}");
    assert!(text.contains("band_count               @    44 (  4) i32"), "{text}");

    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(cli::compile(&toon, &SoftCompiler, Emit::Spirv, &mut out, &mut err), 1);
    assert!(String::from_utf8(err).unwrap().contains("the soft backend receives a naga module, not SPIR-V"));
    assert_eq!(Emit::from_name("SPIRV"), Some(Emit::Spirv));
    assert_eq!(Emit::from_name("hlsl"), None);
}

#[test]
fn compile_reports_a_broken_file_with_its_location() {
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid/29_wgsl_syntax.ron");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(cli::compile(&bad, &SoftCompiler, Emit::Wgsl, &mut out, &mut err), 1);
    assert!(out.is_empty());
    assert!(
        String::from_utf8(err).unwrap().starts_with(&format!("{}:8:5: error: expected `;`", bad.display()))
    );
}
