//! The invalid-material corpus (`tests/invalid/`): every file is wrong in its own way, and
//! each must fail with its own words at its own place, without panicking.

use std::path::{Path, PathBuf};

use f3d_materials::{CompileOptions, MaterialError, check_material, parse_material};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid")
}

/// (file, the file the error points into, line, column, words the message must contain).
const CASES: &[(&str, &str, u32, u32, &[&str])] = &[
    ("01_empty.ron", "01_empty.ron", 1, 1, &["material is empty"]),
    ("02_not_utf8.ron", "02_not_utf8.ron", 2, 15, &["not valid UTF-8", "offset 24"]),
    ("03_syntax.ron", "03_syntax.ron", 4, 33, &["Expected comma"]),
    (
        "04_unknown_field.ron",
        "04_unknown_field.ron",
        3,
        5,
        &["unknown field `colour` in Material", "allowed fields: name, shading_model"],
    ),
    (
        "05_unknown_parameter_field.ron",
        "05_unknown_parameter_field.ron",
        4,
        34,
        &["unknown field `hnit` in Parameter", "name, type, hint, default"],
    ),
    (
        "06_unknown_type.ron",
        "06_unknown_type.ron",
        4,
        27,
        &[
            "unknown variant `Vec5` of ParamType",
            "Float, Int, Vec2, Vec3, Vec4, Mat4, Texture2d, TextureCube",
        ],
    ),
    (
        "07_unknown_shading_model.ron",
        "07_unknown_shading_model.ron",
        3,
        20,
        &["unknown variant `Phong` of ShadingModel", "Lit, Unlit"],
    ),
    (
        "08_unknown_blending.ron",
        "08_unknown_blending.ron",
        3,
        15,
        &["`Screen` of Blending", "Opaque, Alpha, Additive, Multiply, Premultiplied"],
    ),
    ("09_missing_name.ron", "09_missing_name.ron", 4, 1, &["missing field named `name`"]),
    (
        "10_wrong_struct_name.ron",
        "10_wrong_struct_name.ron",
        1,
        1,
        &["Expected struct `Material` but found `Materiel`"],
    ),
    (
        "11_default_wrong_length.ron",
        "11_default_wrong_length.ron",
        4,
        45,
        &["parameter `tint` of type Vec3", "a list of 4 values", "expected a list of 3 numbers"],
    ),
    (
        "12_int_default_float.ron",
        "12_int_default_float.ron",
        4,
        45,
        &["parameter `count` of type Int", "1.5", "expected an integer"],
    ),
    (
        "13_default_on_texture.ron",
        "13_default_on_texture.ron",
        4,
        52,
        &["parameter `albedo` of type Texture2d", "no numeric default"],
    ),
    (
        "14_duplicate_parameter.ron",
        "14_duplicate_parameter.ron",
        6,
        16,
        &["duplicate parameter name `gain`", "line 4"],
    ),
    (
        "15_invalid_identifier.ron",
        "15_invalid_identifier.ron",
        4,
        16,
        &["`base color` is not a valid WGSL identifier"],
    ),
    ("16_keyword.ron", "16_keyword.ron", 4, 16, &["`loop` is a WGSL keyword"]),
    ("17_reserved_name.ron", "17_reserved_name.ron", 4, 16, &["`time` is reserved by the engine"]),
    (
        "18_range_on_vec3.ron",
        "18_range_on_vec3.ron",
        4,
        41,
        &["parameter `dir` of type Vec3", "Range only applies to Float and Int"],
    ),
    (
        "19_source_color_on_float.ron",
        "19_source_color_on_float.ron",
        4,
        43,
        &["of type Float", "SourceColor only applies to Vec3 and Vec4"],
    ),
    (
        "20_texture_hint_on_vec4.ron",
        "20_texture_hint_on_vec4.ron",
        4,
        42,
        &["of type Vec4", "DefaultWhite only applies to Texture2d and TextureCube"],
    ),
    (
        "21_range_min_above_max.ron",
        "21_range_min_above_max.ron",
        4,
        43,
        &["`gain` of type Float", "min (2)", "max (1)"],
    ),
    (
        "22_default_outside_range.ron",
        "22_default_outside_range.ron",
        4,
        83,
        &["`bands` of type Int", "default 12 is outside the Range hint [1, 8]"],
    ),
    (
        "23_engine_inputs_unlit.ron",
        "23_engine_inputs_unlit.ron",
        4,
        20,
        &["(SceneColor) are only available to Lit", "this material is Unlit"],
    ),
    (
        "24_fragment_and_file.ron",
        "24_fragment_and_file.ron",
        6,
        5,
        &["`fragment` and `fragment_file` are both given"],
    ),
    ("25_no_fragment.ron", "25_no_fragment.ron", 1, 1, &["no fragment code"]),
    (
        "26_missing_fragment_file.ron",
        "26_missing_fragment_file.ron",
        5,
        20,
        &["fragment_file `does_not_exist.wgsl` not found"],
    ),
    (
        "27_block_too_large.ron",
        "27_block_too_large.ron",
        260,
        9,
        &["parameter `m256` of type Mat4", "16448 bytes", "max_uniform_block_size (16384 bytes"],
    ),
    ("28_varying_texture.ron", "28_varying_texture.ron", 3, 37, &["varying `fade` has type Texture2d"]),
    ("29_wgsl_syntax.ron", "29_wgsl_syntax.ron", 8, 5, &["expected `;`"]),
    (
        "30_wgsl_type_error.ron",
        "30_wgsl_type_error.ron",
        8,
        23,
        &["'surface' is invalid", "doesn't match the type stored"],
    ),
    (
        "31_missing_surface.ron",
        "31_missing_surface.ron",
        6,
        1,
        &["must define `fn surface(m: ptr<function, MaterialInputs>)`"],
    ),
    (
        "32_include_missing.ron",
        "32_include_missing.ron",
        6,
        1,
        &["cannot find include `clouds.wgsl`", "the engine library"],
    ),
    (
        "33_include_cycle.ron",
        "cycle_b.wgsl",
        2,
        1,
        &["include cycle", "cycle_a.wgsl -> ", "cycle_b.wgsl -> ", "cycle_a.wgsl"],
    ),
    ("34_nesting_too_deep.ron", "34_nesting_too_deep.ron", 4, 56, &["nests deeper than 32 levels"]),
    (
        "35_duplicate_engine_input.ron",
        "35_duplicate_engine_input.ron",
        3,
        45,
        &["duplicate engine input name `SceneDepth`"],
    ),
    ("36_range_step_zero.ron", "36_range_step_zero.ron", 4, 43, &["Range step (0) must be positive"]),
    ("37_empty_fragment_file.ron", "empty.wgsl", 1, 1, &["fragment_file is empty"]),
    ("38_unknown_directive.ron", "38_unknown_directive.ron", 6, 1, &["unknown directive `#pragma`"]),
    ("39_error_after_escapes.ron", "39_error_after_escapes.ron", 5, 76, &["expected expression"]),
    (
        "40_vertex_without_function.ron",
        "40_vertex_without_function.ron",
        3,
        19,
        &["vertex code must define `fn vertex(v: ptr<function, VertexInputs>)`"],
    ),
    (
        "41_default_is_string.ron",
        "41_default_is_string.ron",
        4,
        45,
        &["`tint` of type Vec3", "a string does not fit"],
    ),
    (
        "42_sampler_name_clash.ron",
        "42_sampler_name_clash.ron",
        5,
        16,
        &["duplicate parameter name `albedo_sampler`"],
    ),
    (
        "43_too_many_varyings.ron",
        "43_too_many_varyings.ron",
        3,
        15,
        &["too many varyings: 9, the limit is 8"],
    ),
    ("44_unbalanced_ifdef.ron", "44_unbalanced_ifdef.ron", 6, 1, &["without `#endif`"]),
    (
        "45_mat4_wrong_columns.ron",
        "45_mat4_wrong_columns.ron",
        4,
        43,
        &["`xf` of type Mat4", "a list of 3 lists"],
    ),
    (
        "46_attribute_name_clash.ron",
        "46_attribute_name_clash.ron",
        4,
        25,
        &["duplicate attribute name `phase`", "line 3"],
    ),
    (
        "47_error_in_fragment_file.ron",
        "broken_surface.wgsl",
        4,
        5,
        &["cannot convert elements of `bool` to `f32`"],
    ),
    (
        "48_texture_shadows_builtin.ron",
        "48_texture_shadows_builtin.ron",
        4,
        16,
        &["`reflect` is a WGSL keyword, reserved word or built-in name"],
    ),
    ("49_world_offset.ron", "49_world_offset.ron", 6, 10, &["no field `world_offset`", "`world_position`"]),
    (
        "50_write_position.ron",
        "50_write_position.ron",
        6,
        5,
        &["`position` of `VertexInputs` is read-only", "`world_position`"],
    ),
    (
        "51_write_normal_in_loop.ron",
        "51_write_normal_in_loop.ron",
        8,
        13,
        &["`normal` of `VertexInputs` is read-only", "`world_normal`"],
    ),
    (
        "52_light_on_unlit.ron",
        "52_light_on_unlit.ron",
        4,
        17,
        &["a `light` hook runs in the engine's light loop", "this material is Unlit"],
    ),
    (
        "53_light_missing_function.ron",
        "53_light_missing_function.ron",
        3,
        18,
        &["fn light(l: ptr<function, LightInputs>) -> vec3<f32>"],
    ),
    (
        "54_light_wrong_signature.ron",
        "54_light_wrong_signature.ron",
        5,
        1,
        &["the light hook must be", "-> f32"],
    ),
    (
        "55_scene_color_opaque.ron",
        "55_scene_color_opaque.ron",
        5,
        33,
        &["`SceneColor` is the opaque scene's colour", "its blending is Opaque", "can never be read here"],
    ),
];

fn errors_of(file: &str) -> Vec<MaterialError> {
    match check_material(&corpus().join(file), &CompileOptions::default()) {
        Ok(_) => panic!("{file} was accepted"),
        Err(errors) => errors,
    }
}

#[test]
fn every_invalid_material_fails_with_its_words_at_its_place() {
    for (file, points_into, line, column, words) in CASES {
        let errors = errors_of(file);
        assert_eq!(errors.len(), 1, "{file}: one problem, one diagnostic: {errors:#?}");
        let e = &errors[0];
        let at = e.location().unwrap_or_else(|| panic!("{file}: no location"));
        assert_eq!(
            at.path.file_name().and_then(|n| n.to_str()),
            Some(*points_into),
            "{file}: points into {}",
            at.path.display()
        );
        assert_eq!((at.line, at.column), (*line, *column), "{file}: {e}");
        let message = e.to_string();
        for w in *words {
            assert!(message.contains(w), "{file}: `{message}` lacks `{w}`");
        }
        let diagnostic = e.diagnostic();
        assert!(
            diagnostic.starts_with(&format!("{}:{line}:{column}: error: ", at.path.display())),
            "{diagnostic}"
        );
    }
}

#[test]
fn the_corpus_is_complete_and_each_case_is_a_different_kind() {
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    on_disk.sort();
    let listed: Vec<String> = CASES.iter().map(|c| c.0.to_owned()).collect();
    assert_eq!(on_disk, listed, "every corpus file has a case and every case a file");
    assert!(CASES.len() >= 25);
    // Different kinds: no two cases share the same (variant, first word of the message).
    let mut kinds: Vec<String> = CASES
        .iter()
        .map(|(file, ..)| {
            let e = &errors_of(file)[0];
            let variant = format!("{e:?}").split([' ', '{', '(']).next().unwrap_or("").to_owned();
            format!("{variant}: {}", e.to_string().split(['`', '(', ':']).next().unwrap_or(""))
        })
        .collect();
    let total = kinds.len();
    kinds.sort();
    kinds.dedup();
    assert!(kinds.len() >= 25, "only {} distinct kinds of {total}: {kinds:#?}", kinds.len());
}

#[test]
fn diagnostics_show_the_line_and_a_caret() {
    let e = &errors_of("22_default_outside_range.ron")[0];
    let d = e.diagnostic();
    let lines: Vec<&str> = d.lines().collect();
    assert!(lines[2].starts_with("4 |") && lines[2].contains("default: 12"), "{d}");
    assert_eq!(lines[3].find('^'), lines[2].find("12"), "{d}");
}

/// Truncations and byte flips of every example and corpus file: each must be accepted or
/// refused with a located error, never a panic.
#[test]
fn mangled_materials_never_panic() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/assets/materials");
    let mut inputs = Vec::new();
    for dir in [examples, corpus()] {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "ron") {
                inputs.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    let mut state = 0x2545_f491_u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let mut tried = 0;
    for (path, bytes) in &inputs {
        let step = (bytes.len() / 40).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let result = parse_material(path, &bytes[..cut]);
            if let Err(errors) = result {
                assert!(errors.iter().all(|e| e.location().is_some()));
            }
            tried += 1;
        }
        for _ in 0..40 {
            let mut b = bytes.clone();
            if b.is_empty() {
                break;
            }
            let i = next() as usize % b.len();
            let table = b"(){}[],:\"#\\rX0.\n\xff";
            b[i] = table[next() as usize % table.len()];
            if let Ok(m) = parse_material(path, &b) {
                for v in f3d_materials::Variant::ALL {
                    let _ = f3d_materials::compile_material(&m, v, &CompileOptions::default());
                }
            }
            tried += 1;
        }
    }
    assert!(tried > 1000, "{tried}");
}
