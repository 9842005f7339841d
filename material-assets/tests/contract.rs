//! The shader contract: `required_stages()` and the library stay in step, reflection of each
//! stage, the engine's block layouts, and stage agreement.

use std::collections::BTreeSet;
use std::path::Path;

use f3d_hal::{BindingKind, ShaderStage};
use f3d_materials::contract::{compile_library_module, stage_module};
use f3d_materials::format::ShadingModel;
use f3d_materials::library::FILES;
use f3d_materials::{
    CompileOptions, ContractError, EngineStage, StageModule, Variant, check_stage_agreement,
    compile_material, parse_material, required_stages, stage_bindings, uniform_blocks,
};

/// Every entry point the library can produce: each material variant in each shading model,
/// and every stand-alone library file that has entry points.
fn library_entry_points() -> BTreeSet<(String, String)> {
    let mut modules = Vec::new();
    for shading in [ShadingModel::Lit, ShadingModel::Unlit] {
        for variant in Variant::ALL {
            modules.push(stage_module(StageModule::Material { variant, shading }).unwrap());
        }
    }
    // Files that stand alone compile by themselves; the framework files need a material's
    // generated declarations and are covered by the material modules above.
    const FRAMEWORK: &[&str] = &["mesh.wgsl", "fragment.wgsl", "lighting.wgsl"];
    for (name, _) in FILES {
        match compile_library_module(name) {
            Ok(m) => modules.push(std::sync::Arc::new(m)),
            Err(e) => assert!(FRAMEWORK.contains(name), "{name} does not compile alone: {e}"),
        }
    }
    let stage = |s: f3d_hal::naga::ShaderStage| match s {
        f3d_hal::naga::ShaderStage::Vertex => ShaderStage::Vertex.to_string(),
        f3d_hal::naga::ShaderStage::Fragment => ShaderStage::Fragment.to_string(),
        other => format!("{other:?}"),
    };
    modules
        .iter()
        .flat_map(|m| {
            m.module().entry_points.iter().map(|ep| (ep.name.clone(), stage(ep.stage))).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn required_stages_and_the_library_agree() {
    let required: BTreeSet<(String, String)> =
        required_stages().iter().map(|s| (s.entry_point.to_owned(), s.shader_stage.to_string())).collect();
    assert_eq!(required.len(), required_stages().len(), "entry point names are unique");
    assert_eq!(library_entry_points(), required);
    // And every listed stage is found in the module it names.
    for s in required_stages() {
        let module = stage_module(s.module).unwrap();
        assert!(module.entry_point_index(s.shader_stage, s.entry_point).is_some(), "{s:?}");
    }
}

#[test]
fn stage_bindings_come_from_reflection() {
    let names =
        |stage| -> Vec<String> { stage_bindings(stage).unwrap().into_iter().map(|b| b.name).collect() };
    let lit = names(EngineStage::LitFragment);
    for n in ["view", "lights", "shadow_map", "shadow_map_sampler", "environment_radiance", "brdf_lut"] {
        assert!(lit.contains(&n.to_owned()), "fs_lit keeps {n}: {lit:?}");
    }
    assert!(!lit.iter().any(|n| n.starts_with("scene_")), "no engine inputs unless asked: {lit:?}");
    assert_eq!(
        names(EngineStage::UnlitFragment),
        Vec::<String>::new(),
        "an empty unlit surface binds nothing"
    );
    assert_eq!(names(EngineStage::MeshVertex), ["view", "draw"]);
    // The shadow pass runs the vertex hook too, whose inputs hold the camera's position.
    assert_eq!(names(EngineStage::ShadowVertex), ["view", "lights", "draw"]);
    assert_eq!(names(EngineStage::TonemapFragment), ["tonemap", "hdr_color"]);
    let sky = stage_bindings(EngineStage::SkyboxFragment).unwrap();
    assert!(
        sky.iter().any(|b| b.name == "environment_radiance" && matches!(b.kind, BindingKind::Texture { .. }))
    );
}

#[test]
fn engine_blocks_are_laid_out_by_naga() {
    let blocks = uniform_blocks().unwrap();
    let names: Vec<&str> = blocks.iter().map(|b| b.type_name.as_str()).collect();
    assert_eq!(names, ["View", "Lights", "Draw", "Tonemap"]);
    let view = &blocks[0];
    assert_eq!((view.group, view.binding), (0, 0));
    assert_eq!(view.member("camera_position").map(|m| (m.offset, m.size)), Some((320, 12)));
    assert_eq!(view.member("time").map(|m| m.offset), Some(332), "a float fills the vec3's last slot");
    let lights = &blocks[1];
    // Eight lights of 13 floats each (position, range, colour, radius, spot axis, scale,
    // offset), a 16-byte aligned struct of 64 bytes.
    assert_eq!(lights.member("points").map(|m| (m.offset, m.size)), Some((112, 512)));
}

fn material_with(varyings: &str, fragment: &str) -> f3d_materials::CompiledMaterial {
    let text = format!(
        "Material(name: \"A\", shading_model: Unlit, varyings: [{varyings}], vertex: Some(\"fn vertex(v: ptr<function, VertexInputs>) {{}}\"), fragment: \"{fragment}\")"
    );
    let loaded = parse_material(Path::new("agree.ron"), text.as_bytes()).unwrap();
    compile_material(&loaded, Variant::Color, &CompileOptions::default()).unwrap()
}

#[test]
fn stages_agree_by_location_and_type() {
    let a = material_with(
        "(name: \"fade\", type: Float)",
        "fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color.a = fade; }",
    );
    check_stage_agreement((&a.module, "vs_mesh"), (&a.module, "fs_unlit")).unwrap();
    // The same fragment stage against a vertex stage that writes a vec2 at location 8.
    let b = material_with(
        "(name: \"fade\", type: Vec2)",
        "fn surface(m: ptr<function, MaterialInputs>) { (*m).base_color.a = fade.x; }",
    );
    match check_stage_agreement((&b.module, "vs_mesh"), (&a.module, "fs_unlit")) {
        Err(ContractError::VaryingMismatch { location: 8, vertex_type, fragment_type, .. }) => {
            assert!(
                vertex_type.starts_with("vec2<f32>") && fragment_type.starts_with("f32"),
                "{vertex_type} / {fragment_type}"
            );
        }
        other => panic!("{other:?}"),
    }
    // A vertex stage with no custom varyings does not write location 8 at all.
    let c = material_with("", "fn surface(m: ptr<function, MaterialInputs>) {}");
    assert!(matches!(
        check_stage_agreement((&c.module, "vs_mesh"), (&a.module, "fs_unlit")),
        Err(ContractError::MissingVarying { location: 8, .. })
    ));
    assert!(matches!(
        check_stage_agreement((&c.module, "vs_nope"), (&a.module, "fs_unlit")),
        Err(ContractError::NoEntryPoint { .. })
    ));
}
