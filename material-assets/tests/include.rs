//! `#include`: project folders, relative includes, each file once, and the list of files read.

use std::path::{Path, PathBuf};

use f3d_materials::{CompileOptions, MaterialError, Variant, compile_material, parse_material};

fn project() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/project_shaders")
}

fn material(fragment: &str) -> f3d_materials::LoadedMaterial {
    let text = format!("Material(name: \"I\", fragment: r#\"{fragment}\"#)");
    parse_material(Path::new("/nowhere/inc.ron"), text.as_bytes()).unwrap()
}

#[test]
fn project_includes_are_found_read_once_and_listed() {
    let m = material(
        "\n#include <noise.wgsl>\n#include <ripples.wgsl>\nfn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = ripples(uv0()); }\n",
    );
    let options = CompileOptions { include_dirs: vec![project()], ..CompileOptions::default() };
    let c = compile_material(&m, Variant::Color, &options).unwrap_or_else(|e| panic!("{}", e.diagnostic()));
    assert_eq!(
        c.source.text().matches("fn noise_simplex2(").count(),
        1,
        "noise.wgsl once, though included thrice"
    );
    let names: Vec<&str> = c.files.iter().filter_map(|f| f.file_name()?.to_str()).collect();
    assert_eq!(names, ["inc.ron", "ripples.wgsl", "shape.wgsl"]);
    // Without the project folder the include is not found, and the error says where it looked.
    match compile_material(&m, Variant::Color, &CompileOptions::default()) {
        Err(MaterialError::IncludeNotFound { name, at, .. }) => {
            assert_eq!((name.as_str(), at.line), ("ripples.wgsl", 3));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_inside_an_include_point_into_that_file() {
    let dir = std::env::temp_dir().join(format!("f3d_include_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("broken.wgsl"), "// helpers\nfn helper() -> f32 {\n    return 1.0 +;\n}\n")
        .unwrap();
    let m = material("\n#include <broken.wgsl>\nfn surface(m: ptr<function, MaterialInputs>) {}\n");
    let e = compile_material(
        &m,
        Variant::Color,
        &CompileOptions { include_dirs: vec![dir.clone()], ..CompileOptions::default() },
    )
    .unwrap_err();
    let at = e.location().unwrap();
    assert_eq!((at.path.clone(), at.line), (dir.join("broken.wgsl"), 3), "{}", e.diagnostic());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_larger_than_the_limit_are_refused_by_size() {
    let mut big = b"Material(name: \"big\", fragment: \"".to_vec();
    big.resize(f3d_materials::format::MAX_FILE_SIZE as usize + 10, b' ');
    match parse_material(Path::new("big.ron"), &big) {
        Err(errors) => {
            assert!(matches!(errors[0], MaterialError::TooLarge { limit: 1_048_576, .. }), "{errors:?}")
        }
        Ok(_) => panic!("accepted a huge file"),
    }
}

#[test]
fn directives_with_odd_spacing_or_text_never_panic() {
    for line in [
        "#   include   <noise.wgsl>",
        "#\u{e9}t\u{e9}",
        "#",
        "# ifdef",
        "#include",
        "#include <>",
        "#include \"unterminated",
    ] {
        let m = material(&format!("\n{line}\nfn surface(m: ptr<function, MaterialInputs>) {{}}\n"));
        let r = compile_material(&m, Variant::Color, &CompileOptions::default());
        if line.contains("noise") {
            assert!(r.is_ok(), "{line}");
        } else {
            assert!(r.is_err_and(|e| e.location().is_some_and(|l| l.line == 1 || l.line == 2)), "{line}");
        }
    }
}

#[test]
fn a_loaded_material_compiles_each_variant_once_per_options() {
    let m = material(
        "\n#include <ripples.wgsl>\nfn surface(m: ptr<function, MaterialInputs>) { (*m).roughness = ripples(uv0()); }\n",
    );
    let options = CompileOptions { include_dirs: vec![project()], ..CompileOptions::default() };
    let first = m.compiled(Variant::Color, &options).unwrap_or_else(|e| panic!("{}", e.diagnostic()));
    let again = m.compiled(Variant::Color, &options).expect("compiled before");
    assert!(std::sync::Arc::ptr_eq(&first, &again), "the second ask compiled again");
    // Other options are another compile; so is a refusal, kept as one (asked again, no new entry).
    let missing = m.compiled(Variant::Color, &CompileOptions::default());
    assert!(
        matches!(missing, Err(MaterialError::IncludeNotFound { .. })),
        "not refused: {}",
        missing.is_ok()
    );
    assert!(m.compiled(Variant::Color, &CompileOptions::default()).is_err());
    m.compiled(Variant::Shadow, &options).expect("shadow");
    assert_eq!(m.compiled_variants(), [Variant::Color, Variant::Color, Variant::Shadow]);
    // A clone may be changed, so it keeps nothing of the original's compiles.
    assert!(m.clone().compiled_variants().is_empty());
}
