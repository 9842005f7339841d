//! `.ron` materials on wgpu: every example material, every variant, goes through
//! [`WgpuCompiler`], draws on a wgpu device with stand-in bindings
//! ([`f3d_testing::materials`]), and must draw what the soft backend draws from the same
//! material; and a material edited on disk draws its new colour after being read and compiled
//! again (what hot reload does per change).

use std::sync::Arc;

use f3d_backend_wgpu::{WgpuCompiler, WgpuDevice};
use f3d_hal::{BackendId, DeviceRequest, GraphicsDevice, TextureHandle, TextureRegion, ValidatedModule};
use f3d_materials::{
    BackendShader, CompileOptions, CompiledMaterial, MaterialCompiler, Variant, compile_material,
    read_material,
};
use f3d_testing::materials::{SIZE, draw_material, every_example_draws_as_on_soft};

mod common;

fn device() -> Option<WgpuDevice> {
    common::quiet_mesa();
    match WgpuDevice::open(&DeviceRequest::new(SIZE, SIZE)) {
        Ok(d) => Some(d),
        Err(e) if f3d_conformance::backend_required(&BackendId::WGPU) => {
            panic!("F3D_REQUIRE_BACKENDS names wgpu, but it did not open: {e}")
        }
        Err(e) => {
            eprintln!("skipped: the wgpu device did not open: {e}");
            None
        }
    }
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
    let Some(device) = device() else { return };
    let dir = std::env::temp_dir().join(format!("f3d-wgpu-reload-{}", std::process::id()));
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
    // The first version's pipeline, shaders and textures are gone with their handles.
    assert_eq!(device.live_resources(), before, "resources of an old version outlived it");
    let _ = std::fs::remove_dir_all(&dir);
}
