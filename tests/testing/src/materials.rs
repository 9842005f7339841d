//! Example materials drawn on any device without the engine's frame: each binding of a
//! compiled material gets a stand-in (uniform blocks with every matrix the identity, 0.5 in every float
//! scalar and vector and zero elsewhere; 1x1 white textures; default samplers) and each vertex attribute a buffer of its own (location 0 a
//! triangle covering clip space, other float attributes 0.5 in every component, integer ones
//! zero). The GPU backends' material tests draw every
//! example material this way and compare the picture with the same draw on the soft backend
//! ([`compare_with_soft`]), so a material that runs but draws wrongly fails.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use f3d::f3d_hal::naga;
use f3d::f3d_hal::{
    BindingKind, BindingSlot, Color, ColorAttachment, ColorTargetState, CompareFunction,
    DepthStencilAttachment, DepthStencilState, GeometryDescriptor, GeometryUsages, GraphicsDevice,
    PassEncoder, PipelineDescriptor, PipelineHandle, PrimitiveState, RenderPassDescriptor, SamplerDescriptor,
    ShaderDescriptor, ShaderStage, TextureDescriptor, TextureDimension, TextureFormat, TextureHandle,
    TextureRegion, ValidatedModule, VertexAttribute, VertexBufferLayout, VertexFormat, VertexStepMode,
};
use f3d::f3d_materials::CompiledMaterial;

/// The colour target's edge in pixels.
pub const SIZE: u32 = 16;

/// Every `.ron` file of `examples/assets/materials`, sorted.
pub fn example_materials() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/assets/materials");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    out.sort();
    out
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

/// A pipeline of `compiled` (its stages made from `module`, the backend's compilation of
/// `compiled.module`) drawing into an `Rgba16Float` target (if it has colour) and a
/// `Depth32Float` depth buffer, with one vertex buffer per attribute.
pub fn material_pipeline(
    device: &dyn GraphicsDevice,
    compiled: &CompiledMaterial,
    module: &Arc<ValidatedModule>,
    label: &str,
) -> PipelineHandle {
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
    device: &dyn GraphicsDevice,
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
                    let at = m.offset as usize;
                    if m.ty.starts_with("mat4x4") {
                        let identity: Vec<u8> = IDENTITY.iter().flat_map(|v| v.to_le_bytes()).collect();
                        bytes[at..at + 64].copy_from_slice(&identity);
                    } else if m.ty == "f32" || (m.ty.starts_with("vec") && m.ty.ends_with("<f32>")) {
                        // Float scalars and vectors 0.5: light directions and colours, exposure,
                        // time — values that normalise and light without dividing by zero.
                        let size = m.size as usize;
                        bytes[at..at + size].copy_from_slice(&0.5f32.to_le_bytes().repeat(size / 4));
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
                    ..SamplerDescriptor::linear(f3d::f3d_hal::AddressMode::ClampToEdge)
                };
                pass.bind_sampler_at(slot, &device.create_sampler(&desc).expect("stand-in sampler"))
            }
            BindingKind::StorageBuffer { .. } => panic!("{} binds a storage buffer", pipeline.label()),
        };
        assert!(bound, "{}: binding {} was refused", pipeline.label(), b.name);
    }
    keep
}

/// Draws one screen-covering triangle of `compiled` (stages from `module`); returns the
/// colour target, `None` for a variant without colour. Panics if the device refused the
/// pipeline.
pub fn draw_material(
    device: &dyn GraphicsDevice,
    compiled: &CompiledMaterial,
    module: &Arc<ValidatedModule>,
    label: &str,
) -> Option<TextureHandle> {
    let pipeline = material_pipeline(device, compiled, module, label);
    let render = pipeline.descriptor().render.clone().expect("a render pipeline");
    let color = (!render.color_targets.is_empty()).then(|| {
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
    let mut buffers = Vec::new();
    for (slot, layout) in render.vertex_buffers.iter().enumerate() {
        let format = layout.attributes[0].format;
        let data: Vec<u8> = if layout.attributes[0].location == 0 {
            [[-1.0f32, -1.0, 0.5], [3.0, -1.0, 0.5], [-1.0, 3.0, 0.5]]
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect()
        } else if matches!(
            format,
            VertexFormat::Float32
                | VertexFormat::Float32x2
                | VertexFormat::Float32x3
                | VertexFormat::Float32x4
        ) {
            // Every other float attribute 0.5 in each component: normals, tangents, UVs and
            // colours that normalise and light without dividing by zero.
            0.5f32.to_le_bytes().repeat(3 * format.size() as usize / 4)
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
    color
}

/// Every texel of an `Rgba16Float` target, as floats, rows from the top.
pub fn texels(device: &dyn GraphicsDevice, target: &TextureHandle) -> Vec<[f32; 4]> {
    let image = device
        .readback(target, TextureRegion::full(target.descriptor()))
        .and_then(|p| p.wait())
        .expect("readback");
    (0..image.height)
        .flat_map(|y| (0..image.width).map(move |x| (x, y)))
        .map(|(x, y)| image.texel_f32(x, y))
        .collect()
}

/// Compares a GPU backend's picture of a material with soft's picture of the same draw: every
/// channel within 2 % of the larger magnitude or 0.01, whichever is larger (the two
/// evaluate the same WGSL with different float maths: lavapipe's and soft's transcendentals
/// differ in the last bits, which procedural noise can amplify a little). The error names the
/// first texel off and by how much.
pub fn compare_with_soft(label: &str, gpu: &[[f32; 4]], soft: &[[f32; 4]]) -> Result<(), String> {
    if gpu.len() != soft.len() {
        return Err(format!("{label}: {} texels against soft's {}", gpu.len(), soft.len()));
    }
    for (i, (g, s)) in gpu.iter().zip(soft).enumerate() {
        for c in 0..4 {
            let bound = (g[c].abs().max(s[c].abs()) * 0.02).max(0.01);
            if !(g[c] - s[c]).abs().le(&bound) {
                return Err(format!(
                    "{label}: texel ({}, {}) is {g:?}, soft drew {s:?} (channel {c} off by more than {bound})",
                    i as u32 % SIZE,
                    i as u32 / SIZE
                ));
            }
        }
    }
    Ok(())
}

/// Draws every variant of every example material with `draw` (a GPU backend's draw of
/// [`draw_material`], which may check more of its own) and with [`draw_material`] on a fresh
/// soft device, and compares the pictures ([`compare_with_soft`]). Panics listing every
/// material that differs, or if soft drew every material black (then the comparison proved
/// nothing).
pub fn every_example_draws_as_on_soft(
    device: &dyn GraphicsDevice,
    mut draw: impl FnMut(&CompiledMaterial, &str) -> Option<TextureHandle>,
) {
    use f3d::f3d_materials::{CompileOptions, Variant, compile_material, read_material};
    let soft = f3d_backend_soft::SoftDevice::new("reference");
    let examples = example_materials();
    assert!(!examples.is_empty(), "no example materials found");
    let (mut failures, mut lit) = (Vec::new(), 0);
    for path in examples {
        let material = read_material(&path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        for variant in Variant::ALL {
            let label = format!("{} {}", path.display(), variant.name());
            let compiled = compile_material(&material, variant, &CompileOptions::default())
                .unwrap_or_else(|e| panic!("{label}: {}", e.diagnostic()));
            let target = draw(&compiled, &label);
            let reference = draw_material(&soft, &compiled, &compiled.module, &label);
            if let (Some(target), Some(reference)) = (target, reference) {
                let expected = texels(&soft, &reference);
                lit += usize::from(expected.iter().any(|t| t[..3].iter().any(|c| c.abs() > 0.01)));
                if let Err(e) = compare_with_soft(&label, &texels(device, &target), &expected) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(lit > 0, "every material drew black on soft, so the comparison proved nothing");
}

/// What hot reload does on every change, without the engine: a material file edited on disk
/// (an unlit colour, twice) is read, compiled and drawn with `draw` on `device` again, and
/// each time draws its new colour; the first version's pipeline, shaders and textures are gone
/// with their handles. `name` keeps parallel test binaries' files apart.
pub fn edited_material_draws_its_new_colour(
    device: &dyn GraphicsDevice,
    name: &str,
    mut draw: impl FnMut(&CompiledMaterial, &str) -> Option<TextureHandle>,
) {
    use f3d::f3d_materials::{CompileOptions, Variant, compile_material, read_material};
    let unlit = |c: [f32; 3]| {
        format!(
            r#"Material(
    name: "Flat",
    shading_model: Unlit,
    culling: None,
    fragment: "fn surface(m: ptr<function, MaterialInputs>) {{ (*m).base_color = vec4<f32>({:?}, {:?}, {:?}, 1.0); }}",
)"#,
            c[0], c[1], c[2]
        )
    };
    let dir = std::env::temp_dir().join(format!("f3d-{name}-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("flat.ron");
    let before = device.live_resources();
    for color in [[1.0f32, 0.0, 0.0], [0.0, 0.5, 1.0]] {
        std::fs::write(&path, unlit(color)).expect("write the material");
        let material = read_material(&path).unwrap_or_else(|e| panic!("{e:?}"));
        let compiled = compile_material(&material, Variant::Color, &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.diagnostic()));
        let target = draw(&compiled, "flat").expect("the colour variant has a target");
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
}
