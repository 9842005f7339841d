//! The `.f3dtrace` format: every call and command round-trips, and damaged files are refused
//! with an offset, never a panic.

use super::*;
use crate::{
    BlendState, ColorWrites, CompareFunction, GeometryUsages, PrimitiveTopology, SamplerDescriptor,
    StencilState, TextureFormat, TextureUsages, VertexAttribute, VertexFormat, VertexStepMode,
};

fn view(texture: TraceId) -> TraceView {
    TraceView { texture, mip_level: 0, layer: 0 }
}

/// A trace holding every call and every pass command once.
fn sample() -> Trace {
    let commands = vec![
        TraceCommand::SetPipeline(7),
        TraceCommand::SetViewport(Viewport::full(64, 32)),
        TraceCommand::SetScissor(Some(ScissorRect { x: 1, y: 2, width: 3, height: 4 })),
        TraceCommand::SetScissor(None),
        TraceCommand::SetStencilReference(9),
        TraceCommand::SetBlendConstant(Color::new(0.25, 0.5, 0.75, 1.0)),
        TraceCommand::SetVertexBuffer { slot: 1, buffer: 3, offset: 16 },
        TraceCommand::SetIndexBuffer { buffer: 3, format: IndexFormat::Uint16, offset: 8 },
        TraceCommand::BindUniform { slot: 0, bytes: vec![1, 2, 3, 4] },
        TraceCommand::BindTexture { slot: 1, texture: 2 },
        TraceCommand::BindSampler { slot: 2, sampler: 4 },
        TraceCommand::BindStorage { slot: 3, buffer: 5 },
        TraceCommand::Draw { vertices: 0..3, instances: 0..1 },
        TraceCommand::DrawIndexed { indices: 3..9, base_vertex: -2, instances: 1..4 },
        TraceCommand::DrawIndirect { buffer: 3, offset: 0 },
        TraceCommand::MultiDrawIndirect { buffer: 3, offset: 16, count: 2 },
        TraceCommand::WriteTimestamp { set: 8, index: 0 },
        TraceCommand::BeginOcclusion { set: 8, index: 1 },
        TraceCommand::EndOcclusion,
    ];
    let texture = TextureDescriptor::new_2d("target", 64, 32, TextureFormat::Rgba8UnormSrgb)
        .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC);
    let pipeline = TracePipeline {
        label: "pipe".into(),
        vertex: 5,
        fragment: Some(6),
        vertex_buffers: vec![VertexBufferLayout {
            stride: 12,
            step_mode: VertexStepMode::Instance,
            attributes: vec![VertexAttribute { location: 0, format: VertexFormat::Float32x3, offset: 0 }],
        }],
        primitive: PrimitiveState { topology: PrimitiveTopology::LineStrip, ..Default::default() },
        depth_stencil: Some(DepthStencilState {
            stencil: StencilState { read_mask: 0x0f, ..Default::default() },
            ..DepthStencilState::depth(TextureFormat::Depth32Float, CompareFunction::GreaterEqual, true)
        }),
        color_targets: vec![ColorTargetState {
            format: TextureFormat::Rgba16Float,
            blend: Some(BlendState::PREMULTIPLIED_ALPHA),
            write_mask: ColorWrites::RED | ColorWrites::ALPHA,
        }],
        sample_count: 4,
        multiview: Some(2),
    };
    let calls = vec![
        TraceCall::Module {
            id: 0,
            wgsl: "@vertex fn vs() -> @builtin(position) vec4f { return vec4f(); }".into(),
        },
        TraceCall::CreateTexture { id: 2, desc: texture },
        TraceCall::WriteTexture {
            texture: 2,
            region: TextureRegion::rect(0, 0, 1, 1),
            data: vec![255, 0, 0, 255],
        },
        TraceCall::CreateGeometry {
            id: 3,
            desc: GeometryDescriptor { usage: GeometryUsages::INDIRECT, ..GeometryDescriptor::new("g", 32) },
            data: Some(vec![7; 32]),
        },
        TraceCall::CreateGeometry { id: 10, desc: GeometryDescriptor::new("zeros", 4), data: None },
        TraceCall::WriteGeometry { buffer: 3, offset: 4, data: vec![1, 2] },
        TraceCall::CreateSampler {
            id: 4,
            desc: SamplerDescriptor {
                compare: Some(CompareFunction::Less),
                max_anisotropy: 8,
                ..Default::default()
            },
        },
        TraceCall::CreateShader {
            id: 5,
            label: "vs".into(),
            module: 0,
            stage: ShaderStage::Vertex,
            entry_point: "vs".into(),
        },
        TraceCall::CreatePipeline { id: 7, desc: pipeline },
        TraceCall::CreateComputePipeline { id: 11, label: "cs".into(), shader: 5 },
        TraceCall::CreateQuerySet { id: 8, label: "q".into(), kind: QueryKind::Occlusion, count: 2 },
        TraceCall::BeginFrame,
        TraceCall::Pass(TracePass {
            label: "main".into(),
            color_attachments: vec![TraceColorAttachment {
                view: view(2),
                resolve_target: Some(TraceView { texture: 2, mip_level: 1, layer: 3 }),
                load: LoadOp::Clear(Color::BLUE),
                store: StoreOp::Discard,
            }],
            depth_stencil_attachment: Some(TraceDepthAttachment {
                view: view(12),
                depth_load: LoadOp::Clear(0.5),
                depth_store: StoreOp::Store,
                stencil_load: LoadOp::Load,
                stencil_store: StoreOp::Discard,
            }),
            multiview: None,
            transitions: vec![TraceTransition {
                texture: 2,
                before: ResourceState::ShaderRead,
                after: ResourceState::ColorAttachment,
            }],
            commands,
        }),
        TraceCall::CopyTexture {
            src: 2,
            src_region: TextureRegion::rect(0, 0, 2, 2),
            dst: 12,
            dst_region: TextureRegion::rect(2, 2, 2, 2).on(1, 0),
        },
        TraceCall::Dispatch {
            pipeline: 11,
            uniforms: vec![("params".into(), vec![0; 16])],
            storage: vec![("out".into(), 3)],
            groups: [4, 2, 1],
        },
        TraceCall::Readback {
            texture: 2,
            region: TextureRegion::rect(0, 0, 1, 2),
            recorded: Some(ReadbackImage {
                width: 1,
                height: 2,
                format: TextureFormat::Rgba8UnormSrgb,
                data: vec![1, 2, 3, 4, 5, 6, 7, 8],
            }),
        },
        TraceCall::Readback { texture: 2, region: TextureRegion::rect(0, 0, 1, 1), recorded: None },
    ];
    Trace { backend: "vulkan".into(), adapter: "llvmpipe".into(), calls }
}

#[test]
fn every_call_and_command_round_trips() {
    let trace = sample();
    let bytes = trace.to_bytes();
    assert_eq!(&bytes[..8], b"F3DTRACE");
    let back = Trace::from_bytes(&bytes).expect("the sample reads back");
    assert_eq!(back, trace);
    assert_eq!(back.frames(), 1);
}

#[test]
fn every_truncation_is_an_error_naming_an_offset_inside_the_file() {
    let bytes = sample().to_bytes();
    for len in 0..bytes.len() {
        match Trace::from_bytes(&bytes[..len]) {
            Err(TraceError::Format { offset, what }) => {
                assert!(offset <= len as u64, "cut at {len}: offset {offset} past the end ({what})")
            }
            other => panic!("cut at {len}: expected a format error, got {other:?}"),
        }
    }
}

#[test]
fn trailing_bytes_bad_magic_and_other_versions_are_refused() {
    let mut bytes = sample().to_bytes();
    bytes.push(0);
    let e = Trace::from_bytes(&bytes).unwrap_err();
    assert!(e.to_string().contains("unread bytes at the end of the trace"), "{e}");

    let mut bytes = sample().to_bytes();
    bytes[0] = b'X';
    let e = Trace::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.to_string(), "offset 0: not an f3d trace (no F3DTRACE magic)");

    let mut bytes = sample().to_bytes();
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    let e = Trace::from_bytes(&bytes).unwrap_err();
    assert!(matches!(e, TraceError::Version { found: 2 }), "{e}");
}

#[test]
fn a_huge_count_is_refused_before_anything_is_allocated() {
    // The header's record count, then a texture whose label claims 2^60 bytes.
    let mut w = wire::Writer::default();
    w.buf.extend_from_slice(MAGIC);
    TRACE_VERSION.put(&mut w);
    String::from("soft").put(&mut w);
    String::new().put(&mut w);
    u32::MAX.put(&mut w);
    let e = Trace::from_bytes(&w.buf).unwrap_err();
    assert!(e.to_string().contains("4294967295 records cannot fit"), "{e}");

    let mut w = wire::Writer::default();
    w.buf.extend_from_slice(MAGIC);
    TRACE_VERSION.put(&mut w);
    String::from("soft").put(&mut w);
    String::new().put(&mut w);
    1u32.put(&mut w);
    2u8.put(&mut w);
    12u32.put(&mut w);
    0u32.put(&mut w);
    (1u64 << 60).put(&mut w);
    let e = Trace::from_bytes(&w.buf).unwrap_err();
    assert!(matches!(&e, TraceError::Format { offset: 53, .. }), "{e}");
    assert!(e.to_string().contains("a string needs 1152921504606846976 bytes"), "{e}");
}

#[test]
fn unknown_tags_and_enum_values_name_their_offset() {
    let trace = Trace { backend: "soft".into(), adapter: String::new(), calls: vec![TraceCall::BeginFrame] };
    let mut bytes = trace.to_bytes();
    let tag_at = bytes.len() - 5;
    bytes[tag_at] = 99;
    let e = Trace::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.to_string(), format!("offset {tag_at}: unknown record tag 99"));

    let trace = Trace {
        backend: "soft".into(),
        adapter: String::new(),
        calls: vec![TraceCall::CreateQuerySet {
            id: 0,
            label: String::new(),
            kind: QueryKind::Timestamp,
            count: 1,
        }],
    };
    let mut bytes = trace.to_bytes();
    let kind_at = bytes.len() - 5;
    bytes[kind_at] = 7;
    let e = Trace::from_bytes(&bytes).unwrap_err();
    assert_eq!(e.to_string(), format!("offset {kind_at}: QueryKind has 2 variants, not a variant 7"));
}

#[test]
fn corrupted_bytes_never_panic() {
    // A fixed-seed xorshift: every run damages the same bytes, and a failure names the seed
    // state to reproduce it.
    let bytes = sample().to_bytes();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..4000 {
        let mut damaged = bytes.clone();
        for _ in 0..1 + next() % 4 {
            let at = (next() % damaged.len() as u64) as usize;
            damaged[at] = next() as u8;
        }
        let result = std::panic::catch_unwind(|| Trace::from_bytes(&damaged));
        assert!(result.is_ok(), "round {round}: reading a damaged trace panicked");
    }
}
