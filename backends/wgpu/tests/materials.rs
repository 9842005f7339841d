//! `.ron` materials on wgpu: every example material, every variant, goes through
//! [`WgpuCompiler`] and draws on a wgpu device; and a material edited on disk draws its new
//! colour after being read and compiled again (what hot reload does per change).
//!
//! The engine's own frame data is not here yet (the plugin brings it), so each binding gets a
//! stand-in: zeroed uniform blocks with identity matrices, 1x1 white textures, default
//! samplers.

use std::path::{Path, PathBuf};

use f3d_backend_wgpu::{WgpuCompiler, WgpuDevice};
use f3d_hal::naga;
use f3d_hal::{
    BackendId, BindingKind, BindingSlot, Color, ColorAttachment, ColorTargetState, CompareFunction,
    DepthStencilAttachment, DepthStencilState, DeviceRequest, GeometryDescriptor, GeometryUsages,
    GraphicsDevice, PassEncoder, PipelineDescriptor, PipelineHandle, PrimitiveState, RenderPassDescriptor,
    SamplerDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureDimension, TextureFormat,
    TextureHandle, TextureRegion, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};
use f3d_materials::{
    BackendShader, CompileOptions, CompiledMaterial, MaterialCompiler, Variant, compile_material,
    read_material,
};

mod common;

const SIZE: u32 = 16;

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

fn vertex_format(ty: &naga::TypeInner) -> Option<VertexFormat> {
    use naga::{ScalarKind as K, TypeInner as T, VectorSize as V};
    Some(match ty {
        T::Scalar(s) if s.kind == K::Float => VertexFormat::Float32,
        T::Scalar(s) if s.kind == K::Uint => VertexFormat::Uint32,
        T::Scalar(s) if s.kind == K::Sint => VertexFormat::Sint32,
        T::Vector { size: V::Bi, scalar } if scalar.kind == K::Float => VertexFormat::Float32x2,
        T::Vector { size: V::Tri, scalar } if scalar.kind == K::Float => VertexFormat::Float32x3,
        T::Vector { size: V::Quad, scalar } if scalar.kind == K::Float => VertexFormat::Float32x4,
        T::Vector { size: V::Quad, scalar } if scalar.kind == K::Uint => VertexFormat::Uint32x4,
        T::Vector { size: V::Quad, scalar } if scalar.kind == K::Sint => VertexFormat::Sint32x4,
        _ => return None,
    })
}

/// The attributes an entry point reads, `(location, format)`, from its arguments.
fn vertex_inputs(module: &naga::Module, entry: &str) -> Vec<(u32, VertexFormat)> {
    let ep = module.entry_points.iter().find(|e| e.name == entry).expect("the entry point exists");
    let mut out = Vec::new();
    let mut visit = |binding: &Option<naga::Binding>, ty: naga::Handle<naga::Type>| {
        if let Some(naga::Binding::Location { location, .. }) = binding {
            let format =
                vertex_format(&module.types[ty].inner).expect("a vertex attribute type the test knows");
            out.push((*location, format));
        }
    };
    for arg in &ep.function.arguments {
        match &module.types[arg.ty].inner {
            naga::TypeInner::Struct { members, .. } if arg.binding.is_none() => {
                for m in members {
                    visit(&m.binding, m.ty);
                }
            }
            _ => visit(&arg.binding, arg.ty),
        }
    }
    out
}

/// How many colour outputs a fragment entry point writes.
fn color_outputs(module: &naga::Module, entry: &str) -> usize {
    let ep = module.entry_points.iter().find(|e| e.name == entry).expect("the entry point exists");
    match &ep.function.result {
        None => 0,
        Some(r) => match (&r.binding, &module.types[r.ty].inner) {
            (Some(naga::Binding::Location { .. }), _) => 1,
            (None, naga::TypeInner::Struct { members, .. }) => {
                members.iter().filter(|m| matches!(m.binding, Some(naga::Binding::Location { .. }))).count()
            }
            _ => 0,
        },
    }
}

/// A pipeline of `compiled` drawing into an `Rgba16Float` target (if it has colour) and a
/// `Depth32Float` depth buffer, with one vertex buffer per attribute.
fn material_pipeline(device: &WgpuDevice, compiled: &CompiledMaterial, label: &str) -> PipelineHandle {
    let compiler = WgpuCompiler::for_device(device);
    let module = match compiler.compile(label, &compiled.module).expect("the wgpu compiler accepts it") {
        BackendShader::Naga(m) => m,
        other => panic!("the wgpu compiler gave a {}", other.kind()),
    };
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: format!("{label} {entry}"),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .expect("create_shader")
    };
    let inputs = vertex_inputs(module.module(), compiled.vertex_entry);
    let colors = color_outputs(module.module(), compiled.fragment_entry);
    device
        .create_pipeline(&PipelineDescriptor {
            label: label.into(),
            vertex: shader(ShaderStage::Vertex, compiled.vertex_entry),
            fragment: Some(shader(ShaderStage::Fragment, compiled.fragment_entry)),
            vertex_buffers: inputs
                .iter()
                .map(|&(location, format)| VertexBufferLayout {
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
        .expect("create_pipeline")
}

const IDENTITY: [f32; 16] = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];

/// Binds a stand-in to every binding of `pipeline`; keeps the textures it made alive.
fn bind_stand_ins(
    device: &WgpuDevice,
    pass: &mut dyn PassEncoder,
    pipeline: &PipelineHandle,
    compiled: &CompiledMaterial,
) -> Vec<TextureHandle> {
    let blocks = compiled.uniform_blocks();
    let mut keep = Vec::new();
    for (i, b) in pipeline.bindings().entries().iter().enumerate() {
        let slot = BindingSlot(i as u32);
        let bound = match b.kind {
            BindingKind::UniformBlock { size } => {
                let mut bytes = vec![0u8; size as usize];
                let layout = blocks.iter().find(|l| l.name == b.name).expect("reflected blocks are laid out");
                for m in &layout.members {
                    if m.ty.starts_with("mat4x4")
                        && ["view_proj", "model", "normal_matrix"].contains(&m.name.as_str())
                    {
                        let at = m.offset as usize;
                        let identity: Vec<u8> = IDENTITY.iter().flat_map(|v| v.to_le_bytes()).collect();
                        bytes[at..at + 64].copy_from_slice(&identity);
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
                    _ => TextureDescriptor::new_2d(&b.name, 1, 1, format),
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
        assert!(bound, "{}: binding {} was refused", pipeline.label(), b.name);
    }
    keep
}

/// Draws one screen-covering triangle of `compiled`; returns the colour target.
fn draw(device: &WgpuDevice, compiled: &CompiledMaterial, label: &str) -> Option<TextureHandle> {
    let pipeline = material_pipeline(device, compiled, label);
    let color = (!pipeline.descriptor().render.as_ref().expect("a render pipeline").color_targets.is_empty())
        .then(|| {
            device
                .create_texture(&TextureDescriptor::new_2d("color", SIZE, SIZE, TextureFormat::Rgba16Float))
                .expect("color target")
        });
    let depth = device
        .create_texture(&TextureDescriptor::new_2d("depth", SIZE, SIZE, TextureFormat::Depth32Float))
        .expect("depth target");
    let desc = RenderPassDescriptor {
        label: label.into(),
        color_attachments: color.iter().map(|c| ColorAttachment::clear(c, Color::BLACK)).collect(),
        depth_stencil_attachment: Some(DepthStencilAttachment::clear(&depth, 1.0)),
        ..Default::default()
    };
    let mut pass = device.begin_render_pass(&desc).expect("begin_render_pass");
    pass.set_pipeline(&pipeline).expect("set_pipeline");
    let _textures = bind_stand_ins(device, &mut *pass, &pipeline, compiled);
    let render = pipeline.descriptor().render.clone().expect("a render pipeline");
    let mut buffers = Vec::new();
    for (slot, layout) in render.vertex_buffers.iter().enumerate() {
        let format = layout.attributes[0].format;
        // Location 0 is the position: a triangle covering clip space (object = world = clip
        // with identity matrices). Everything else reads zeros.
        let data: Vec<u8> = if layout.attributes[0].location == 0 {
            [[-1.0f32, -1.0, 0.5], [3.0, -1.0, 0.5], [-1.0, 3.0, 0.5]]
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect()
        } else {
            vec![0; 3 * format.size() as usize]
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
    pass.draw(0..3, 0..1).expect("draw");
    pass.submit().expect("submit");
    let refusals = device.pipeline_refusals();
    assert!(refusals.is_empty(), "{label}: {refusals:?}");
    let escaped = device.wgpu_take_uncaptured_errors();
    assert!(escaped.is_empty(), "{label}: {escaped:?}");
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
fn every_example_material_draws_every_variant_on_wgpu() {
    let Some(device) = device() else { return };
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
