//! `.ron` materials on vulkan: every example material, every variant, goes through
//! [`VulkanCompiler`] (SPIR-V with this device's capabilities) and draws on a validated vulkan
//! device; and a material edited on disk draws its new colour after being read and compiled
//! again — what hot reload does on every change.
//!
//! The engine's frame data is not needed to prove a material runs: every binding gets a
//! stand-in (zeroed uniform blocks with identity matrices, 1x1 white textures, default
//! samplers), and every vertex attribute a buffer of its own.

use std::path::{Path, PathBuf};

use f3d_backend_vulkan::{ValidationLog, VulkanCompiler, VulkanDevice};
use f3d_hal::naga;
use f3d_hal::{
    BindingKind, BindingSlot, Color, ColorAttachment, ColorTargetState, CompareFunction,
    DepthStencilAttachment, DepthStencilState, GeometryDescriptor, GeometryUsages, GraphicsDevice,
    PassEncoder, PipelineDescriptor, PipelineHandle, PrimitiveState, RenderPassDescriptor, SamplerDescriptor,
    ShaderDescriptor, ShaderStage, TextureDescriptor, TextureDimension, TextureFormat, TextureHandle,
    TextureRegion, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};
use f3d_materials::{
    BackendShader, CompileOptions, CompiledMaterial, MaterialCompiler, Variant, compile_material,
    read_material,
};

mod common;

const SIZE: u32 = 16;

/// The vertex format feeding a shader input of type `ty`.
fn attribute_format(ty: &naga::TypeInner) -> VertexFormat {
    use naga::{ScalarKind as K, TypeInner as T, VectorSize as V};
    match ty {
        T::Scalar(s) if s.kind == K::Uint => VertexFormat::Uint32,
        T::Scalar(s) if s.kind == K::Sint => VertexFormat::Sint32,
        T::Scalar(_) => VertexFormat::Float32,
        T::Vector { size: V::Bi, .. } => VertexFormat::Float32x2,
        T::Vector { size: V::Tri, .. } => VertexFormat::Float32x3,
        T::Vector { scalar, .. } if scalar.kind == K::Uint => VertexFormat::Uint32x4,
        T::Vector { scalar, .. } if scalar.kind == K::Sint => VertexFormat::Sint32x4,
        _ => VertexFormat::Float32x4,
    }
}

/// `(location, format)` of every attribute the vertex entry point reads.
fn attributes(module: &naga::Module, entry: &str) -> Vec<(u32, VertexFormat)> {
    let ep = module.entry_points.iter().find(|e| e.name == entry).expect("the vertex entry point");
    let mut out = Vec::new();
    for arg in &ep.function.arguments {
        let members: Vec<(Option<&naga::Binding>, naga::Handle<naga::Type>)> =
            match &module.types[arg.ty].inner {
                naga::TypeInner::Struct { members, .. } if arg.binding.is_none() => {
                    members.iter().map(|m| (m.binding.as_ref(), m.ty)).collect()
                }
                _ => vec![(arg.binding.as_ref(), arg.ty)],
            };
        for (binding, ty) in members {
            if let Some(naga::Binding::Location { location, .. }) = binding {
                out.push((*location, attribute_format(&module.types[ty].inner)));
            }
        }
    }
    out
}

/// How many colour outputs the fragment entry point writes.
fn outputs(module: &naga::Module, entry: &str) -> usize {
    let ep = module.entry_points.iter().find(|e| e.name == entry).expect("the fragment entry point");
    match ep.function.result.as_ref() {
        Some(r) if matches!(r.binding, Some(naga::Binding::Location { .. })) => 1,
        Some(r) => match &module.types[r.ty].inner {
            naga::TypeInner::Struct { members, .. } => {
                members.iter().filter(|m| matches!(m.binding, Some(naga::Binding::Location { .. }))).count()
            }
            _ => 0,
        },
        None => 0,
    }
}

fn material_pipeline(device: &VulkanDevice, compiled: &CompiledMaterial, label: &str) -> PipelineHandle {
    match VulkanCompiler::for_device(device).compile(label, &compiled.module) {
        Ok(BackendShader::SpirV(words)) => {
            assert_eq!(words.first(), Some(&0x0723_0203), "{label}: not SPIR-V")
        }
        Ok(other) => panic!("{label}: the vulkan compiler gave a {}", other.kind()),
        Err(e) => panic!("{label}: {}", e.diagnostic()),
    }
    let module = compiled.module.clone();
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: format!("{label} {entry}"),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .unwrap_or_else(|e| panic!("{label}: create_shader {entry}: {e}"))
    };
    let colors = outputs(module.module(), compiled.fragment_entry);
    device
        .create_pipeline(&PipelineDescriptor {
            label: label.into(),
            vertex: shader(ShaderStage::Vertex, compiled.vertex_entry),
            fragment: Some(shader(ShaderStage::Fragment, compiled.fragment_entry)),
            vertex_buffers: attributes(module.module(), compiled.vertex_entry)
                .into_iter()
                .map(|(location, format)| VertexBufferLayout {
                    stride: format.size(),
                    step_mode: VertexStepMode::Vertex,
                    attributes: vec![VertexAttribute { location, format, offset: 0 }],
                })
                .collect(),
            primitive: PrimitiveState::default(),
            depth_stencil: Some(DepthStencilState::depth(
                TextureFormat::Depth32Float,
                CompareFunction::LessEqual,
                true,
            )),
            color_targets: vec![ColorTargetState::replace(TextureFormat::Rgba16Float); colors],
            sample_count: 1,
            multiview: None,
        })
        .unwrap_or_else(|e| panic!("{label}: create_pipeline: {e}"))
}

/// Binds a stand-in to every binding; returns what must stay alive until the pass is submitted.
fn bind_stand_ins(
    device: &VulkanDevice,
    pass: &mut dyn PassEncoder,
    pipeline: &PipelineHandle,
    compiled: &CompiledMaterial,
) -> Vec<TextureHandle> {
    const IDENTITY: [f32; 16] =
        [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let blocks = compiled.uniform_blocks();
    let mut keep = Vec::new();
    for (i, b) in pipeline.bindings().entries().iter().enumerate() {
        let slot = BindingSlot(i as u32);
        let ok = match b.kind {
            BindingKind::UniformBlock { size } => {
                let mut bytes = vec![0u8; size as usize];
                if let Some(layout) = blocks.iter().find(|l| l.name == b.name) {
                    for m in layout.members.iter().filter(|m| m.ty.starts_with("mat4x4")) {
                        let identity: Vec<u8> = IDENTITY.iter().flat_map(|v| v.to_le_bytes()).collect();
                        bytes[m.offset as usize..m.offset as usize + 64].copy_from_slice(&identity);
                    }
                }
                pass.bind_uniform_block_at(slot, &bytes)
            }
            BindingKind::Texture { dimension, depth, integer } => {
                let format = match (depth, integer) {
                    (true, _) => TextureFormat::Depth32Float,
                    (_, true) => TextureFormat::R32Uint,
                    _ => TextureFormat::Rgba8Unorm,
                };
                let desc = match dimension {
                    TextureDimension::Cube => TextureDescriptor::new_cube(&b.name, 1, format),
                    TextureDimension::D2Array => TextureDescriptor {
                        dimension: TextureDimension::D2Array,
                        ..TextureDescriptor::new_2d(&b.name, 1, 1, format)
                    },
                    TextureDimension::D2 => TextureDescriptor::new_2d(&b.name, 1, 1, format),
                };
                let t = device.create_texture(&desc).expect("stand-in texture");
                if format == TextureFormat::Rgba8Unorm {
                    for layer in 0..desc.array_layers {
                        device
                            .write_texture(&t, TextureRegion::rect(0, 0, 1, 1).on(0, layer), &[255; 4])
                            .expect("white");
                    }
                }
                let ok = pass.bind_texture_at(slot, &t);
                keep.push(t);
                ok
            }
            BindingKind::Sampler { comparison } => {
                let desc = SamplerDescriptor {
                    compare: comparison.then_some(CompareFunction::LessEqual),
                    ..SamplerDescriptor::linear(f3d_hal::AddressMode::ClampToEdge)
                };
                pass.bind_sampler_at(slot, &device.create_sampler(&desc).expect("stand-in sampler"))
            }
            BindingKind::StorageBuffer { .. } => panic!("{} binds a storage buffer", pipeline.label()),
        };
        assert!(ok, "{}: binding {} was refused", pipeline.label(), b.name);
    }
    keep
}

/// Draws one screen-covering triangle of `compiled`; returns the colour target, if any.
fn draw(device: &VulkanDevice, compiled: &CompiledMaterial, label: &str) -> Option<TextureHandle> {
    let pipeline = material_pipeline(device, compiled, label);
    let render = pipeline.descriptor().render.clone().expect("a render pipeline");
    let color = (!render.color_targets.is_empty()).then(|| {
        device
            .create_texture(&TextureDescriptor::new_2d("color", SIZE, SIZE, TextureFormat::Rgba16Float))
            .expect("color")
    });
    let depth = device
        .create_texture(&TextureDescriptor::new_2d("depth", SIZE, SIZE, TextureFormat::Depth32Float))
        .expect("depth");
    let desc = RenderPassDescriptor {
        label: label.into(),
        color_attachments: color.iter().map(|c| ColorAttachment::clear(c, Color::BLACK)).collect(),
        depth_stencil_attachment: Some(DepthStencilAttachment::clear(&depth, 1.0)),
        ..Default::default()
    };
    let mut pass = device.begin_render_pass(&desc).expect("begin_render_pass");
    pass.set_pipeline(&pipeline).expect("set_pipeline");
    let _stand_ins = bind_stand_ins(device, &mut *pass, &pipeline, compiled);
    let mut buffers = Vec::new();
    for (slot, layout) in render.vertex_buffers.iter().enumerate() {
        let a = layout.attributes[0];
        // Location 0 is the position: a triangle covering clip space (identity matrices).
        let data: Vec<u8> = if a.location == 0 {
            [[-1.0f32, -1.0, 0.5, 1.0], [3.0, -1.0, 0.5, 1.0], [-1.0, 3.0, 0.5, 1.0]]
                .iter()
                .flat_map(|v| v[..(a.format.size() / 4) as usize].to_vec())
                .flat_map(f32::to_le_bytes)
                .collect()
        } else {
            vec![0; 3 * a.format.size() as usize]
        };
        let g = device
            .create_geometry(
                &GeometryDescriptor {
                    label: format!("attribute {slot}"),
                    size: data.len() as u64,
                    usage: GeometryUsages::VERTEX,
                },
                Some(&data),
            )
            .expect("vertex buffer");
        pass.set_vertex_buffer(slot as u32, &g, 0).expect("set_vertex_buffer");
        buffers.push(g);
    }
    pass.draw(0..3, 0..1).unwrap_or_else(|e| panic!("{label}: draw: {e}"));
    pass.submit().unwrap_or_else(|e| panic!("{label}: submit: {e}"));
    let refusals = device.pipeline_refusals();
    assert!(refusals.is_empty(), "{label}: {refusals:?}");
    color
}

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/assets/materials");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    out.sort();
    out
}

#[test]
fn every_example_material_draws_every_variant_on_vulkan() {
    let _turn = common::turn();
    let log = ValidationLog::new();
    let Some(device) = common::device(&log) else { return };
    let examples = examples();
    assert!(!examples.is_empty(), "no example materials found");
    for path in examples {
        let material = read_material(&path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        for variant in Variant::ALL {
            let label = format!("{} {}", path.display(), variant.name());
            let compiled = compile_material(&material, variant, &CompileOptions::default())
                .unwrap_or_else(|e| panic!("{label}: {}", e.diagnostic()));
            draw(&device, &compiled, &label);
        }
    }
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
