//! `.ron` materials on wgpu: every example material, every variant, goes through
//! [`WgpuCompiler`], draws on a wgpu device with stand-in bindings
//! ([`f3d_testing::materials`]), and must draw what the soft backend draws from the same
//! material; and a material edited on disk draws its new colour after being read and compiled
//! again (what hot reload does per change).

use std::sync::Arc;

use f3d::f3d_hal::{TextureHandle, ValidatedModule};
use f3d::f3d_materials::{BackendShader, CompiledMaterial, MaterialCompiler};
use f3d_backend_wgpu::{WgpuCompiler, WgpuDevice};
use f3d_testing::materials::{
    SIZE, draw_material, edited_material_draws_its_new_colour, every_example_draws_as_on_soft,
};

mod gpu_support;
use gpu_support as common;

fn device() -> Option<WgpuDevice> {
    common::wgpu_device((SIZE, SIZE))
}

/// `compiled.module` as the wgpu compiler hands it to the device.
fn module(device: &WgpuDevice, compiled: &CompiledMaterial, label: &str) -> Arc<ValidatedModule> {
    match WgpuCompiler::for_device(device)
        .compile(label, &compiled.module)
        .expect("the wgpu compiler accepts it")
    {
        BackendShader::Naga(m) => m,
        other => panic!("the wgpu compiler gave a {}", other.kind()),
    }
}

/// Draws `compiled` on wgpu with stand-in bindings; no wgpu error may escape.
fn draw(device: &WgpuDevice, compiled: &CompiledMaterial, label: &str) -> Option<TextureHandle> {
    let target = draw_material(device, compiled, &module(device, compiled, label), label);
    let escaped = device.wgpu_take_uncaptured_errors();
    assert!(escaped.is_empty(), "{label}: {escaped:?}");
    target
}

#[test]
fn every_example_material_draws_every_variant_on_wgpu_as_on_soft() {
    let Some(device) = device() else { return };
    every_example_draws_as_on_soft(&device, |compiled, label| draw(&device, compiled, label));
}

#[test]
fn an_edited_material_draws_its_new_colour_after_recompiling() {
    let Some(device) = device() else { return };
    edited_material_draws_its_new_colour(&device, "wgpu", |compiled, label| draw(&device, compiled, label));
}
