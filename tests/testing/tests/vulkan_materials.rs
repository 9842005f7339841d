//! `.ron` materials on vulkan: every example material, every variant, goes through
//! [`VulkanCompiler`] (SPIR-V with this device's capabilities), draws on a validated vulkan
//! device with stand-in bindings ([`f3d_testing::materials`]), and must draw what the soft
//! backend draws from the same material; and a material edited on disk draws its new colour
//! after being read and compiled again — what hot reload does on every change.

use f3d::f3d_hal::TextureHandle;
use f3d::f3d_materials::{BackendShader, CompiledMaterial, MaterialCompiler};
use f3d_backend_vulkan::{ValidationLog, VulkanCompiler, VulkanDevice};
use f3d_testing::materials::{
    draw_material, edited_material_draws_its_new_colour, every_example_draws_as_on_soft,
};

mod gpu_support;
use gpu_support as common;

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

#[test]
fn an_edited_material_draws_its_new_colour_after_recompiling() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    edited_material_draws_its_new_colour(&device, "vulkan", |compiled, label| draw(&device, compiled, label));
    assert!(log.is_empty(), "validation messages: {:#?}", log.messages());
}
