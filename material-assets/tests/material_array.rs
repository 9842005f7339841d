//! Materials compiled with a material array (`CompileOptions::material_array_bytes`): every
//! example material composes and validates in every variant, the array holds as many blocks
//! as fit the budget, and the generated interface carries the slot from the instance to the
//! fragment stage.

use std::path::PathBuf;

use f3d_materials::library::{INSTANCE_MATERIAL_LOCATION, MATERIAL_SLOT_VARYING_LOCATION};
use f3d_materials::{CompileOptions, MaterialLayout, Variant, compile_material, read_material};

fn example_materials() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/assets/materials");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no example materials in {}", dir.display());
    files
}

#[test]
fn every_example_material_compiles_with_an_array() {
    for path in example_materials() {
        let material = read_material(&path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let layout = MaterialLayout::new(&material.desc).unwrap();
        for budget in [16 << 10, 64 << 10] {
            let options =
                CompileOptions { instanced: true, material_array_bytes: budget, ..Default::default() };
            for variant in Variant::ALL {
                let compiled = compile_material(&material, variant, &options).unwrap_or_else(|e| {
                    panic!("{} ({}): {}", path.display(), variant.name(), e.diagnostic())
                });
                let Some(stride) = layout.slot_stride() else {
                    assert_eq!(compiled.material_slots, 0, "{}: no block, no array", path.display());
                    continue;
                };
                assert_eq!(stride % 16, 0);
                assert_eq!(compiled.material_slots, budget / stride, "{}", path.display());
                let array = compiled
                    .uniform_blocks()
                    .into_iter()
                    .find(|b| b.name == f3d_materials::layout::MATERIAL_ARRAY_VAR)
                    .unwrap_or_else(|| panic!("{}: no material array", path.display()));
                assert_eq!(array.size, stride * compiled.material_slots, "{}: array size", path.display());
                let text = compiled.source.text();
                assert!(text.contains(&format!(
                    "@location({INSTANCE_MATERIAL_LOCATION}) f3d_instance_material: u32"
                )));
                if variant == Variant::Color {
                    assert!(text.contains(&format!(
                        "@location({MATERIAL_SLOT_VARYING_LOCATION}) @interpolate(flat) f3d_material_slot: u32"
                    )));
                }
            }
        }
    }
}

/// Without the option nothing changes: one `material_params` block, no slot attribute.
#[test]
fn without_a_budget_the_block_is_single() {
    for path in example_materials() {
        let material = read_material(&path).unwrap();
        let options = CompileOptions { instanced: true, ..Default::default() };
        let compiled = compile_material(&material, Variant::Color, &options).unwrap();
        assert_eq!(compiled.material_slots, 0);
        assert!(!compiled.source.text().contains("f3d_instance_material"));
    }
}

/// With `material_storage` every example material reads its parameters from a read-only
/// storage array of any length, in every variant; the reflected binding says so, and the
/// block keeps the layout the uniform form has (the app packs the same bytes).
#[test]
fn every_example_material_compiles_with_a_storage_array() {
    use f3d_hal::BindingKind;
    for path in example_materials() {
        let material = read_material(&path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        let layout = MaterialLayout::new(&material.desc).unwrap();
        let options = CompileOptions { instanced: true, material_storage: true, ..Default::default() };
        for variant in Variant::ALL {
            let compiled = compile_material(&material, variant, &options)
                .unwrap_or_else(|e| panic!("{} ({}): {}", path.display(), variant.name(), e.diagnostic()));
            let bindings = compiled.bindings().unwrap();
            let array =
                bindings.entries().iter().find(|b| b.name == f3d_materials::layout::MATERIAL_ARRAY_VAR);
            if layout.slot_stride().is_none() {
                assert_eq!(compiled.material_slots, 0, "{}: no block, no array", path.display());
                assert!(array.is_none());
                continue;
            }
            assert_eq!(compiled.material_slots, f3d_materials::layout::STORAGE_SLOTS, "{}", path.display());
            let array = array.unwrap_or_else(|| panic!("{}: no material array", path.display()));
            assert_eq!(array.kind, BindingKind::StorageBuffer { read_only: true }, "{}", path.display());
            assert!(
                compiled.uniform_blocks().iter().all(|b| b.name != f3d_materials::layout::MATERIAL_ARRAY_VAR),
                "{}: the array is not a uniform block",
                path.display()
            );
            let uniform = compile_material(
                &material,
                variant,
                &CompileOptions { instanced: true, material_array_bytes: 64 << 10, ..Default::default() },
            )
            .unwrap();
            assert_eq!(compiled.layout, uniform.layout, "{}: the block's layout differs", path.display());
        }
    }
}
