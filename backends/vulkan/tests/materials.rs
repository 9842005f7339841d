//! `.ron` materials on vulkan: every example material, every variant, goes through
//! [`VulkanCompiler`] (SPIR-V with this device's capabilities), draws on a validated vulkan
//! device with stand-in bindings ([`f3d_testing::materials`]), and must draw what the soft
//! backend draws from the same material; and a material edited on disk draws its new colour
//! after being read and compiled again — what hot reload does on every change.

use f3d_backend_vulkan::{ValidationLog, VulkanCompiler, VulkanDevice};
use f3d_hal::{GraphicsDevice, TextureHandle, TextureRegion};
use f3d_materials::{
    BackendShader, CompileOptions, CompiledMaterial, MaterialCompiler, Variant, compile_material,
    read_material,
};
use f3d_testing::materials::{SIZE, draw_material, every_example_draws_as_on_soft};

mod common;

/// Draws `compiled` on vulkan with stand-in bindings ([`f3d_testing::materials`]), after
/// checking the vulkan compiler turns it into SPIR-V.
fn draw(device: &VulkanDevice, compiled: &CompiledMaterial, label: &str) -> Option<TextureHandle> {
    match VulkanCompiler::for_device(device).compile(label, &compiled.module) {
        Ok(BackendShader::SpirV(words)) => {
            assert_eq!(words.first(), Some(&0x0723_0203), "{label}: not SPIR-V")
        }
        Ok(other) => panic!("{label}: the vulkan compiler gave a {}", other.kind()),
        Err(e) => panic!("{label}: {}", e.diagnostic()),
    }
    draw_material(device, compiled, &compiled.module, label)
}

#[test]
fn every_example_material_draws_every_variant_on_vulkan_as_on_soft() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    every_example_draws_as_on_soft(&device, |compiled, label| draw(&device, compiled, label));
    assert!(log.is_empty(), "validation messages: {:#?}", log.messages());
}

fn unlit(color: [f32; 3]) -> String {
    format!(
        r#"Material(
    name: "Flat",
    shading_model: Unlit,
    culling: None,
    fragment: "fn surface(m: ptr<function, MaterialInputs>) {{ (*m).base_color = vec4<f32>({:?}, {:?}, {:?}, 1.0); }}",
)"#,
        color[0], color[1], color[2]
    )
}

#[test]
fn an_edited_material_draws_its_new_colour_after_recompiling() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let dir = std::env::temp_dir().join(format!("f3d-vulkan-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("flat.ron");
    let before = device.live_resources();
    for color in [[1.0f32, 0.0, 0.0], [0.0, 0.5, 1.0]] {
        std::fs::write(&path, unlit(color)).expect("write the material");
        let material = read_material(&path).unwrap_or_else(|e| panic!("{e:?}"));
        let compiled = compile_material(&material, Variant::Color, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.diagnostic()));
        let target = draw(&device, &compiled, "flat").expect("the colour variant has a target");
        let image = device
            .readback(&target, TextureRegion::full(target.descriptor()))
            .expect("readback")
            .wait()
            .expect("wait");
        let got = image.texel_f32(SIZE / 2, SIZE / 2);
        let close = got.iter().zip([color[0], color[1], color[2], 1.0]).all(|(a, b)| (a - b).abs() < 1e-3);
        assert!(close, "the material edited to {color:?} drew {got:?}");
    }
    assert_eq!(device.live_resources(), before, "resources of an old version outlived it");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(log.is_empty(), "validation messages: {:#?}", log.messages());
}
