//! The example materials compile in every variant, and their composed WGSL and reflection are
//! held by snapshots (`tests/snapshots/`; `F3D_BLESS=1` rewrites them).

use std::path::{Path, PathBuf};

use f3d_materials::{CompileOptions, Variant, check_material, cli};

const EXAMPLES: &[&str] = &["toon", "brass", "ocean", "water"];

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../examples/assets/materials/{name}.ron"))
}

fn snapshot(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(name);
    if std::env::var_os("F3D_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("no snapshot {}; run with F3D_BLESS=1 to write it", path.display()));
    if expected != actual {
        let first = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{name} differs from its snapshot at line {}:\n  expected: {:?}\n  actual:   {:?}\n(F3D_BLESS=1 rewrites it)",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

#[test]
fn examples_compile_in_every_variant() {
    for name in EXAMPLES {
        let variants = check_material(&example(name), &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.iter().map(|e| e.diagnostic()).collect::<String>()));
        assert_eq!(variants.iter().map(|v| v.variant).collect::<Vec<_>>(), Variant::ALL);
        for v in &variants {
            v.bindings().unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn composed_wgsl_snapshots() {
    for name in EXAMPLES {
        let variants = check_material(&example(name), &CompileOptions::default()).unwrap();
        let color = &variants[0];
        // Paths differ between machines; the snapshot holds the text naga parses.
        snapshot(&format!("{name}.color.wgsl"), color.source.text());
        snapshot(&format!("{name}.reflection.txt"), &cli::reflection(color));
    }
}

#[test]
fn brass_reads_its_fragment_file_and_lists_it_for_reload() {
    let variants = check_material(&example("brass"), &CompileOptions::default()).unwrap();
    let files: Vec<String> =
        variants[0].files.iter().filter_map(|f| Some(f.file_name()?.to_str()?.to_owned())).collect();
    assert_eq!(files, ["brass.ron", "brass.wgsl"]);
    assert!(variants[0].source.text().contains("fn noise_fbm2("), "noise.wgsl was included");
}

#[test]
fn water_binds_scene_color_and_depth_and_toon_does_not() {
    let water = check_material(&example("water"), &CompileOptions::default()).unwrap();
    let names: Vec<String> = water[0].bindings().unwrap().entries().iter().map(|b| b.name.clone()).collect();
    for n in [
        "scene_color_texture",
        "scene_color_texture_sampler",
        "scene_depth_texture",
        "material_params",
        "view",
        "lights",
        "draw",
    ] {
        assert!(names.contains(&n.to_owned()), "water lacks {n}: {names:?}");
    }
    let toon = check_material(&example("toon"), &CompileOptions::default()).unwrap();
    let names: Vec<String> = toon[0].bindings().unwrap().entries().iter().map(|b| b.name.clone()).collect();
    assert!(!names.iter().any(|n| n.starts_with("scene_")), "{names:?}");
    assert!(names.contains(&"base_color_texture_sampler".to_owned()));
}
