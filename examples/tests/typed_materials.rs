//! The typed material structs in `src/typed/`: in sync with their `.ron` files, writing what
//! they hold (and only that), refusing a material whose parameters changed, and the
//! generator refusing a material that does not compile. (The compile errors for misspelt
//! names and wrong types are the `compile_fail` doctests of `f3d_examples::typed`.)

use std::path::Path;

use f3d::f3d_materials::Value;
use f3d::material::TypedMaterialError;
use f3d::material::typed::generate;
use f3d::prelude::*;
use f3d_examples::typed::Water;

/// Each checked-in struct is exactly what the generator makes of its file today.
#[test]
fn the_checked_in_structs_are_up_to_date() {
    for name in ["water", "ocean", "toon"] {
        let file = format!("assets/materials/{name}.ron");
        let fresh =
            generate(Path::new(&file), None).unwrap_or_else(|e| panic!("{file}: {}", e[0].diagnostic()));
        let kept = std::fs::read_to_string(format!("src/typed/{name}.rs")).unwrap();
        assert!(
            fresh == kept,
            "src/typed/{name}.rs is stale: run `f3d material codegen {file} --out src/typed/{name}.rs` in examples/"
        );
    }
}

fn water() -> CustomMaterial {
    CustomMaterial::load("assets/materials/water.ron").unwrap_or_else(|e| panic!("{}", e[0].diagnostic()))
}

fn float(m: &CustomMaterial, name: &str) -> f32 {
    match m.parameters().get(name) {
        Some(Value::Float(v)) => v,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn apply_writes_the_fields_that_are_set_and_only_those() {
    let mut m = water();
    let before_refraction = float(&m, "refraction");
    Water { foam_width: Some(0.06), seed: Some(7), ..default() }.apply(&mut m).unwrap();
    assert_eq!(float(&m, "foam_width"), 0.06);
    assert!(matches!(m.parameters().get("seed"), Some(Value::Int(7))));
    assert_eq!(float(&m, "refraction"), before_refraction, "a `None` field is left alone");

    // A `SourceColor` parameter takes a `Color` and stores what `set_color` stores for its
    // sRGB components (decoded to linear).
    let mut by_name = water();
    by_name.set_color("shallow_color", [0.5, 0.25, 1.0, 1.0]).unwrap();
    let mut typed = water();
    Water { shallow_color: Some(Color::srgb(0.5, 0.25, 1.0)), ..default() }.apply(&mut typed).unwrap();
    let Some(Value::Vec3(linear)) = typed.parameters().get("shallow_color") else { panic!() };
    let Some(Value::Vec3(expected)) = by_name.parameters().get("shallow_color") else { panic!() };
    assert_eq!(linear, expected);
    assert!((linear[0] - 0.214).abs() < 1e-3, "decoded: {linear:?}");
}

#[test]
fn a_struct_for_other_parameters_is_stale_and_writes_nothing() {
    let text = std::fs::read_to_string("assets/materials/water.ron").unwrap();
    let renamed = text.replace(r#"(name: "seed", type: Int"#, r#"(name: "ripple_seed", type: Int"#);
    assert_ne!(text, renamed);
    let mut m = CustomMaterial::parse("assets/materials/water.ron", renamed.as_bytes())
        .unwrap_or_else(|e| panic!("{}", e[0].diagnostic()));
    let foam = float(&m, "foam_width");
    let e = Water { foam_width: Some(1.5), ..default() }.apply(&mut m).unwrap_err();
    match &e {
        TypedMaterialError::Stale { difference, material, .. } => {
            assert_eq!(material, "Water");
            assert!(difference.contains("`ripple_seed`"), "{difference}");
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("f3d material codegen"), "says what to do: {e}");
    assert_eq!(float(&m, "foam_width"), foam, "a stale struct wrote a value");
    assert!(Water::check(&m).is_err());
    // A retyped parameter is stale too.
    let retyped = text.replace(
        r#"(name: "seed", type: Int, default: 11)"#,
        r#"(name: "seed", type: Float, default: 11.0)"#,
    );
    assert_ne!(text, retyped);
    let m = CustomMaterial::parse("assets/materials/water.ron", retyped.as_bytes()).unwrap();
    assert!(matches!(Water::check(&m), Err(TypedMaterialError::Stale { .. })));
}

/// The generator checks the material first: one that does not compile gives its errors at
/// `path:line:col` and no source.
#[test]
fn a_material_that_does_not_compile_has_no_struct() {
    let dir = std::env::temp_dir().join(format!("f3d_typed_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("broken.ron");
    let text = std::fs::read_to_string("assets/materials/toon.ron")
        .unwrap()
        .replace("floor(lambert", "flor(lambert");
    std::fs::write(&file, &text).unwrap();
    let errors = generate(&file, None).unwrap_err();
    let at = errors[0].location().expect("a located error");
    let line = text.lines().position(|l| l.contains("flor(")).unwrap() + 1;
    assert_eq!((at.path.as_path(), at.line), (file.as_path(), line as u32), "{}", errors[0].diagnostic());
    let _ = std::fs::remove_dir_all(&dir);
}
