//! The engine's own shaders and the example materials compile for the soft executor: every
//! entry point of every required stage and of every material variant; and each program, as
//! the shader cache stores it, reads back as the same program.
// Assertions index inputs and outputs by lane, as the shaders do.
#![allow(clippy::needless_range_loop)]

use std::path::Path;

use f3d_hal::{SamplerDescriptor, ShaderStage, TextureDimension, TextureFormat};
use f3d_soft_exec::{Executor, Program, Resource, ResourceKind, ScalarType, TextureView};

/// Runs one batch of `program` with placeholder inputs and resources (patterned uniform and
/// storage bytes, 2x2 textures, linear samplers): binding must succeed and the run must end. (The
/// values mean nothing: placeholder matrices make NaNs a GPU would make too; the device's
/// rendering tests check pictures.)
fn run_once(program: &Program, what: &str) {
    let itf = program.interface();
    let zero_blocks: Vec<Vec<u8>> = itf
        .resources
        .iter()
        .map(|r| match r.kind {
            ResourceKind::UniformBlock { size } => {
                // Identity-ish matrices are not needed: zeros plus a 1.0 pattern keep values finite.
                (0..size).map(|i| if i % 20 == 0 { 0x3f } else { 0 }).collect()
            }
            // The fixed part plus four elements of whatever runtime-sized array follows.
            ResourceKind::StorageBuffer { min_size } => {
                (0..min_size + 1024).map(|i| if i % 20 == 0 { 0x3f } else { 0 }).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    let texel_planes: Vec<Vec<Vec<u8>>> = itf
        .resources
        .iter()
        .map(|r| match r.kind {
            ResourceKind::Texture { dimension, .. } => {
                let layers = if dimension == TextureDimension::Cube { 6 } else { 1 };
                (0..layers).map(|_| vec![0x80; 16]).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    let plane_refs: Vec<Vec<&[u8]>> =
        texel_planes.iter().map(|p| p.iter().map(|v| v.as_slice()).collect()).collect();
    let plain = SamplerDescriptor::linear(f3d_hal::AddressMode::Repeat);
    let compare = SamplerDescriptor { compare: Some(f3d_hal::CompareFunction::LessEqual), ..plain.clone() };
    let resources: Vec<Resource<'_>> = itf
        .resources
        .iter()
        .enumerate()
        .map(|(i, r)| match r.kind {
            ResourceKind::UniformBlock { .. } => Resource::UniformBlock(&zero_blocks[i]),
            ResourceKind::StorageBuffer { .. } => Resource::StorageBuffer(&zero_blocks[i]),
            ResourceKind::Texture { dimension, depth, sample } => Resource::Texture(TextureView {
                format: match (depth, sample) {
                    (true, _) => TextureFormat::Depth32Float,
                    (_, ScalarType::U32) => TextureFormat::R32Uint,
                    (_, ScalarType::I32) => TextureFormat::R32Sint,
                    _ => TextureFormat::Rgba8Unorm,
                },
                dimension,
                width: 2,
                height: 2,
                mip_levels: 1,
                layers: plane_refs[i].len() as u32,
                planes: &plane_refs[i],
            }),
            ResourceKind::Sampler { comparison } => {
                Resource::Sampler(if comparison { &compare } else { &plain })
            }
        })
        .collect();
    let bindings = program.bind(&resources).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut ex = Executor::new(program);
    for (slot, info) in itf.inputs.iter().enumerate() {
        for (c, reg) in ex.input_mut(slot).iter_mut().enumerate() {
            *reg = std::array::from_fn(|l| match info.scalar {
                ScalarType::F32 => 0.25 + 0.01 * l as f32 + 0.1 * c as f32,
                ScalarType::Bool => f32::from_bits(1),
                _ => f32::from_bits((l % 3) as u32),
            });
        }
    }
    ex.run(&bindings, u64::MAX);
    for (slot, info) in itf.outputs.iter().enumerate() {
        assert_eq!(ex.output(slot).len(), info.components as usize, "{what}: output {slot}");
    }
}

/// The program as the shader cache stores it reads back as the same program, and runs.
fn read_back(program: &Program, what: &str) {
    let bytes = program.to_bytes().unwrap_or_else(|| panic!("{what}: the program was not written"));
    let back =
        Program::from_bytes(&bytes).unwrap_or_else(|| panic!("{what}: the stored program did not read back"));
    assert!(back.to_bytes().as_ref() == Some(&bytes), "{what}: another program read back");
    run_once(&back, what);
}

fn stage_of(s: naga::ShaderStage) -> ShaderStage {
    match s {
        naga::ShaderStage::Vertex => ShaderStage::Vertex,
        naga::ShaderStage::Fragment => ShaderStage::Fragment,
        _ => ShaderStage::Compute,
    }
}

#[test]
fn every_engine_stage_compiles() {
    for info in f3d_materials::contract::required_stages() {
        let module = f3d_materials::contract::stage_module(info.module).unwrap_or_else(|e| panic!("{e}"));
        let program = Program::compile(&module, info.shader_stage, info.entry_point)
            .unwrap_or_else(|e| panic!("{:?}: {e}", info.stage));
        assert!(program.instruction_count() > 0);
        run_once(&program, &format!("{:?}", info.stage));
        read_back(&program, &format!("{:?}", info.stage));
    }
}

#[test]
fn every_example_material_compiles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/assets/materials");
    for name in ["toon", "brass", "ocean", "water"] {
        let path = dir.join(format!("{name}.ron"));
        let variants = f3d_materials::check_material(&path, &f3d_materials::CompileOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for v in &variants {
            for ep in &v.module.module().entry_points {
                let stage = stage_of(ep.stage);
                if stage == ShaderStage::Compute {
                    continue;
                }
                let program = Program::compile(&v.module, stage, &ep.name)
                    .unwrap_or_else(|e| panic!("{name} {:?} {}: {e}", v.variant, ep.name));
                run_once(&program, &format!("{name} {:?} {}", v.variant, ep.name));
                read_back(&program, &format!("{name} {:?} {}", v.variant, ep.name));
            }
        }
    }
}
