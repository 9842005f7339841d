//! Parameter packing: `offset_of` agrees with naga's layout of the compiled module for every
//! mix of types, setters write exactly their bytes, and wrong names and types are refused.

use std::path::Path;

use f3d_hal::{BackendId, DeviceOwner, TextureDescriptor, TextureDimension, TextureFormat, backend};
use f3d_materials::{
    CompileOptions, MaterialParameters, ParamType, ParameterError, Value, Variant, compile_material,
    parse_material,
};

fn material(params: &str) -> (f3d_materials::LoadedMaterial, f3d_materials::CompiledMaterial) {
    let text = format!(
        "Material(name: \"P\", parameters: [{params}], fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\")"
    );
    let loaded = parse_material(Path::new("packing.ron"), text.as_bytes())
        .unwrap_or_else(|e| panic!("{}", e.iter().map(|e| e.diagnostic()).collect::<String>()));
    let compiled = compile_material(&loaded, Variant::Color, &CompileOptions::default()).unwrap();
    (loaded, compiled)
}

fn decl(name: &str, ty: ParamType) -> String {
    format!("(name: \"{name}\", type: {ty:?}),")
}

/// Every parameter's offset, checked against the `MaterialParams` block naga laid out in the
/// compiled module.
fn assert_offsets_match_naga(params: &[(&str, ParamType)]) -> Vec<u32> {
    let text: String = params.iter().map(|(n, t)| decl(n, *t)).collect();
    let (loaded, compiled) = material(&text);
    let values = MaterialParameters::new(&loaded.desc, &compiled.layout);
    let block = compiled.uniform_blocks().into_iter().find(|b| b.type_name == "MaterialParams").unwrap();
    assert_eq!(values.block().len() as u32, block.size);
    let mut offsets = Vec::new();
    for (name, ty) in params {
        let naga = block.member(name).unwrap_or_else(|| panic!("naga has no member {name}"));
        assert_eq!(values.offset_of(name), Some(naga.offset), "{name} ({ty})");
        offsets.push(naga.offset);
    }
    offsets
}

#[test]
fn vec3_followed_by_float_shares_its_last_slot() {
    let offsets = assert_offsets_match_naga(&[("dir", ParamType::Vec3), ("gain", ParamType::Float)]);
    assert_eq!(offsets, [0, 12]);
}

#[test]
fn float_then_vec3_aligns_to_16() {
    let offsets = assert_offsets_match_naga(&[
        ("gain", ParamType::Float),
        ("dir", ParamType::Vec3),
        ("n", ParamType::Int),
    ]);
    assert_eq!(offsets, [0, 16, 28]);
}

#[test]
fn mat4_aligns_to_16_and_takes_64() {
    let offsets = assert_offsets_match_naga(&[
        ("a", ParamType::Float),
        ("xf", ParamType::Mat4),
        ("b", ParamType::Int),
        ("uv", ParamType::Vec2),
    ]);
    assert_eq!(offsets, [0, 16, 80, 88]);
}

#[test]
fn every_pair_of_types_agrees_with_naga() {
    let types = [
        ParamType::Float,
        ParamType::Int,
        ParamType::Vec2,
        ParamType::Vec3,
        ParamType::Vec4,
        ParamType::Mat4,
    ];
    for a in types {
        for b in types {
            for c in types {
                assert_offsets_match_naga(&[("a", a), ("b", b), ("c", c)]);
            }
        }
    }
}

fn read_f32s(bytes: &[u8], offset: u32, n: usize) -> Vec<f32> {
    bytes[offset as usize..offset as usize + 4 * n]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn defaults_are_applied_at_construction() {
    let (loaded, compiled) = material(
        "(name: \"tint\", type: Vec3, hint: SourceColor, default: [1.0, 0.5, 0.0]),
         (name: \"count\", type: Int, default: -3),
         (name: \"xf\", type: Mat4, default: [[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 4.0]]),
         (name: \"unset\", type: Vec2),",
    );
    let p = MaterialParameters::new(&loaded.desc, &compiled.layout);
    let tint = read_f32s(p.block(), p.offset_of("tint").unwrap(), 3);
    assert_eq!(tint[0], 1.0);
    assert!((tint[1] - 0.214_041_14).abs() < 1e-6, "sRGB 0.5 decodes to linear: {tint:?}");
    assert_eq!(tint[2], 0.0);
    let c = p.offset_of("count").unwrap() as usize;
    assert_eq!(i32::from_le_bytes(p.block()[c..c + 4].try_into().unwrap()), -3);
    let xf = read_f32s(p.block(), p.offset_of("xf").unwrap(), 16);
    assert_eq!((xf[0], xf[5], xf[10], xf[15]), (1.0, 2.0, 3.0, 4.0));
    assert_eq!(read_f32s(p.block(), p.offset_of("unset").unwrap(), 2), [0.0, 0.0]);
}

#[test]
fn setters_write_their_bytes_and_nothing_else() {
    let (loaded, compiled) = material(
        "(name: \"dir\", type: Vec3), (name: \"gain\", type: Float), (name: \"n\", type: Int), (name: \"c\", type: Vec4, hint: SourceColor),",
    );
    let mut p = MaterialParameters::new(&loaded.desc, &compiled.layout);
    let before = p.block().to_vec();
    p.set_float("gain", 2.5).unwrap();
    let off = p.offset_of("gain").unwrap() as usize;
    let after = p.block().to_vec();
    for (i, (a, b)) in before.iter().zip(&after).enumerate() {
        if !(off..off + 4).contains(&i) {
            assert_eq!(a, b, "byte {i} changed");
        }
    }
    assert_eq!(read_f32s(p.block(), off as u32, 1), [2.5]);
    p.set("dir", Value::Vec3([1.0, 2.0, 3.0])).unwrap();
    assert_eq!(read_f32s(p.block(), 0, 4), [1.0, 2.0, 3.0, 2.5], "vec3 then float share 16 bytes");
    p.set_int("n", 7).unwrap();
    p.set_color("c", [0.5, 1.0, 0.0, 0.5]).unwrap();
    let c = read_f32s(p.block(), p.offset_of("c").unwrap(), 4);
    assert!((c[0] - 0.214_041_14).abs() < 1e-6 && c[1] == 1.0 && c[3] == 0.5, "alpha stays linear: {c:?}");
    // Hot-loop path: write through offset_of.
    let o = p.offset_of("gain").unwrap() as usize;
    p.block_mut()[o..o + 4].copy_from_slice(&9.0f32.to_le_bytes());
    assert!(matches!(p.get("gain"), Some(Value::Float(v)) if v == 9.0));
}

#[test]
fn wrong_names_and_types_name_the_parameter_and_its_type() {
    let (loaded, compiled) = material("(name: \"gain\", type: Float), (name: \"albedo\", type: Texture2d),");
    let mut p = MaterialParameters::new(&loaded.desc, &compiled.layout);
    let before = p.block().to_vec();
    let e = p.set_vec3("gain", [1.0; 3]).unwrap_err();
    assert_eq!(
        e,
        ParameterError::WrongType { parameter: "gain".into(), declared: ParamType::Float, given: "Vec3" }
    );
    assert_eq!(e.to_string(), "parameter `gain` is declared Float; a Vec3 cannot be set to it");
    let e = p.set_float("gian", 1.0).unwrap_err();
    assert!(matches!(&e, ParameterError::Unknown { parameter, .. } if parameter == "gian"));
    assert!(e.to_string().contains("declared: gain, albedo"), "{e}");
    assert!(matches!(
        p.set_float("albedo", 1.0),
        Err(ParameterError::WrongType { declared: ParamType::Texture2d, .. })
    ));
    assert!(matches!(p.set_color("gain", [1.0; 4]), Err(ParameterError::WrongType { given: "color", .. })));
    assert_eq!(p.block(), &before[..], "refused sets change nothing");
    assert_eq!(p.offset_of("albedo"), None);
}

fn texture(owner: &DeviceOwner, dimension: TextureDimension) -> f3d_hal::TextureHandle {
    let desc = match dimension {
        TextureDimension::Cube => TextureDescriptor::new_cube("sky", 4, TextureFormat::Rgba8Unorm),
        _ => TextureDescriptor::new_2d("t", 4, 4, TextureFormat::Rgba8Unorm),
    };
    backend::wrap_texture(owner, desc, ())
}

#[test]
fn textures_check_their_dimension_and_fall_back_to_their_hint() {
    let (loaded, compiled) = material(
        "(name: \"albedo\", type: Texture2d, hint: DefaultNormal), (name: \"sky\", type: TextureCube), (name: \"k\", type: Float),",
    );
    let mut p = MaterialParameters::new(&loaded.desc, &compiled.layout);
    let unset: Vec<_> = p.textures().map(|(n, t, f)| (n.to_string(), t.is_some(), f)).collect();
    assert_eq!(
        unset,
        [("albedo".to_owned(), false, [128, 128, 255, 255]), ("sky".to_owned(), false, [255; 4])]
    );
    let owner = DeviceOwner::new(BackendId::NULL, "test");
    let cube = texture(&owner, TextureDimension::Cube);
    let flat = texture(&owner, TextureDimension::D2);
    assert!(matches!(
        p.set_texture("albedo", cube.clone()),
        Err(ParameterError::WrongTexture { declared: ParamType::Texture2d, .. })
    ));
    p.set_texture("albedo", flat.clone()).unwrap();
    p.set("sky", Value::Texture(cube)).unwrap();
    assert!(p.textures().all(|(_, t, _)| t.is_some()));
    assert!(matches!(
        p.set_texture("k", flat),
        Err(ParameterError::WrongType { declared: ParamType::Float, given: "texture", .. })
    ));
    // Textures take bindings 1, 3, ... of group 1, each with its sampler right after it.
    let slots: Vec<_> = compiled.layout.slots.iter().map(|(n, _, s)| (n.as_str(), s.clone())).collect();
    assert_eq!(slots[0], ("albedo", f3d_materials::ParamSlot::Texture { binding: 1, sampler_binding: 2 }));
    assert_eq!(slots[1], ("sky", f3d_materials::ParamSlot::Texture { binding: 3, sampler_binding: 4 }));
    // An unused texture is declared but not reflected as a binding the pipeline keeps.
    assert!(compiled.source.text().contains("@group(1) @binding(3) var sky: texture_cube<f32>;"));
    assert!(compiled.bindings().unwrap().slot("sky").is_none());
}

#[test]
fn reload_keeps_what_the_app_set_and_takes_new_defaults() {
    let (old, old_c) = material(
        "(name: \"gain\", type: Float, default: 1.0), (name: \"bias\", type: Float, default: 2.0), (name: \"n\", type: Int),",
    );
    let mut p = MaterialParameters::new(&old.desc, &old_c.layout);
    p.set_float("gain", 5.0).unwrap();
    p.set_int("n", 4).unwrap();
    // Edited: bias default changed, n became a Float, a new vec comes first.
    let (new, new_c) = material(
        "(name: \"tint\", type: Vec3, default: [1.0, 1.0, 1.0]), (name: \"gain\", type: Float, default: 1.0), (name: \"bias\", type: Float, default: 3.0), (name: \"n\", type: Float, default: 0.5),",
    );
    let q = p.carry_over(&new.desc, &new_c.layout);
    assert!(matches!(q.get("gain"), Some(Value::Float(v)) if v == 5.0));
    assert!(matches!(q.get("bias"), Some(Value::Float(v)) if v == 3.0));
    assert!(matches!(q.get("n"), Some(Value::Float(v)) if v == 0.5));
    assert!(matches!(q.get("tint"), Some(Value::Vec3([1.0, 1.0, 1.0]))));
    assert!(q.version() > p.version());
}
