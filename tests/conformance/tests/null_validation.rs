//! The validation layer (the HAL's `ValidatingDevice`) over the null device: each kind of
//! misuse is a typed error.

use std::sync::Arc;

use f3d_backend_null::NullDevice;
use f3d_hal::{
    Color, ColorAttachment, ColorTargetState, DeviceError, GraphicsDevice, PipelineDescriptor,
    PrimitiveState, RenderPassDescriptor, ShaderDescriptor, ShaderStage, TextureDescriptor, TextureFormat,
    TextureRegion, TextureUsages, ValidatingDevice, ValidationError, VertexAttribute, VertexBufferLayout,
    VertexFormat, VertexStepMode,
};

const WGSL: &str = r#"
struct Params { color: vec4<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@vertex fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> { return vec4<f32>(p, 0.0, 1.0); }
@fragment fn fs() -> @location(0) vec4<f32> { return params.color; }
"#;

fn validated() -> ValidatingDevice {
    ValidatingDevice::new(Arc::new(NullDevice::new("validated")))
}

fn pipeline(device: &dyn GraphicsDevice, format: TextureFormat) -> f3d_hal::PipelineHandle {
    let module = Arc::new(f3d_materials::compile_wgsl("v.wgsl", WGSL).expect("compiles"));
    let shader = |stage, entry: &str| {
        device
            .create_shader(&ShaderDescriptor {
                label: entry.into(),
                module: module.clone(),
                stage,
                entry_point: entry.into(),
            })
            .expect("shader")
    };
    device
        .create_pipeline(&PipelineDescriptor {
            label: "validated pipeline".into(),
            vertex: shader(ShaderStage::Vertex, "vs"),
            fragment: Some(shader(ShaderStage::Fragment, "fs")),
            vertex_buffers: vec![VertexBufferLayout {
                stride: 8,
                step_mode: VertexStepMode::Vertex,
                attributes: vec![VertexAttribute { location: 0, format: VertexFormat::Float32x2, offset: 0 }],
            }],
            primitive: PrimitiveState::default(),
            depth_stencil: None,
            color_targets: vec![ColorTargetState::replace(format)],
            sample_count: 1,
            multiview: None,
        })
        .expect("pipeline")
}

fn target(device: &dyn GraphicsDevice) -> f3d_hal::TextureHandle {
    device
        .create_texture(&TextureDescriptor::new_2d("target", 4, 4, TextureFormat::Rgba8Unorm))
        .expect("texture")
}

#[test]
fn foreign_handle_is_a_validation_error() {
    let v = validated();
    let other = NullDevice::new("other");
    let theirs = target(&other);
    let err = v.write_texture(&theirs, TextureRegion::rect(0, 0, 1, 1), &[0; 4]).unwrap_err();
    assert!(
        matches!(
            err,
            DeviceError::Validation(ValidationError::ForeignHandle { operation: "write_texture", .. })
        ),
        "{err}"
    );
}

/// A missing usage is the contract's own error (`DeviceError::MissingUsage`, what the
/// conformance suite expects), not a validation error of another shape.
#[test]
fn missing_usage_is_the_contracts_error() {
    let v = validated();
    let t = v
        .create_texture(
            &TextureDescriptor::new_2d("no dst", 4, 4, TextureFormat::Rgba8Unorm)
                .with_usage(TextureUsages::COPY_SRC),
        )
        .unwrap();
    let err = v.write_texture(&t, TextureRegion::rect(0, 0, 1, 1), &[0; 4]).unwrap_err();
    assert!(matches!(err, DeviceError::MissingUsage { usage: "COPY_DST", .. }), "{err}");
    let err = v
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&t, Color::RED)))
        .err()
        .unwrap();
    assert!(matches!(err, DeviceError::MissingUsage { usage: "RENDER_ATTACHMENT", .. }), "{err}");
}

#[test]
fn draw_without_pipeline_missing_binding_and_missing_buffer() {
    let v = validated();
    let t = target(&v);
    let p = pipeline(&v, TextureFormat::Rgba8Unorm);
    let mut pass = v
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&t, Color::RED)))
        .unwrap();
    let err = pass.draw(0..3, 0..1).unwrap_err();
    assert!(matches!(err, DeviceError::Validation(ValidationError::DrawWithoutPipeline { .. })), "{err}");
    pass.set_pipeline(&p).unwrap();
    let err = pass.draw(0..3, 0..1).unwrap_err();
    assert!(
        matches!(&err, DeviceError::Validation(ValidationError::MissingBinding { binding, .. }) if binding == "params"),
        "{err}"
    );
    assert!(pass.bind_uniform_block("params", &[0; 16]));
    assert!(!pass.bind_uniform_block("nope", &[0; 16]), "an undeclared name binds nothing");
    let err = pass.draw(0..3, 0..1).unwrap_err();
    assert!(
        matches!(err, DeviceError::Validation(ValidationError::MissingVertexBuffer { slot: 0, .. })),
        "{err}"
    );
    let vb = v.create_geometry(&f3d_hal::GeometryDescriptor::new("vb", 24), None).unwrap();
    pass.set_vertex_buffer(0, &vb, 0).unwrap();
    pass.draw(0..3, 0..1).expect("a complete draw passes validation");
    // set_pipeline forgets bindings, even for the same pipeline.
    pass.set_pipeline(&p).unwrap();
    assert!(matches!(
        pass.draw(0..3, 0..1),
        Err(DeviceError::Validation(ValidationError::MissingBinding { .. }))
    ));
}

#[test]
fn pipeline_targets_must_match_the_pass() {
    let v = validated();
    let t = target(&v);
    let p = pipeline(&v, TextureFormat::Rgba16Float);
    let mut pass = v
        .begin_render_pass(&RenderPassDescriptor::color("p", ColorAttachment::clear(&t, Color::RED)))
        .unwrap();
    let err = pass.set_pipeline(&p).unwrap_err();
    assert!(matches!(err, DeviceError::Validation(ValidationError::AttachmentMismatch { .. })), "{err}");
}

/// A pipeline without depth state in a pass with a depth attachment disagrees with it (wgpu
/// and Vulkan's dynamic rendering both require the formats to match); it was let through.
#[test]
fn a_depthless_pipeline_in_a_depth_pass_is_refused() {
    let v = validated();
    let t = target(&v);
    let depth =
        v.create_texture(&TextureDescriptor::new_2d("depth", 4, 4, TextureFormat::Depth32Float)).unwrap();
    let p = pipeline(&v, TextureFormat::Rgba8Unorm);
    let desc = RenderPassDescriptor {
        depth_stencil_attachment: Some(f3d_hal::DepthStencilAttachment::clear(&depth, 1.0)),
        ..RenderPassDescriptor::color("p", ColorAttachment::clear(&t, Color::RED))
    };
    let mut pass = v.begin_render_pass(&desc).unwrap();
    let err = pass.set_pipeline(&p).unwrap_err();
    assert!(
        matches!(&err, DeviceError::Validation(ValidationError::AttachmentMismatch { reason, .. }) if reason.contains("depth")),
        "{err}"
    );
}

/// The layer holds the contract itself: a texture the device cannot render to, or a draw of
/// several instances on a device without instancing, is refused in the contract's terms
/// whatever the wrapped backend would have done.
#[test]
fn the_contracts_rules_hold_through_the_layer() {
    let v = validated();
    // The null device makes no multisampled textures (it does not report MSAA).
    let err = v
        .create_texture(&TextureDescriptor::new_2d("ms", 4, 4, TextureFormat::Rgba8Unorm).with_samples(4))
        .unwrap_err();
    assert!(matches!(err, DeviceError::Unsupported { feature: f3d_hal::DeviceFeature::MSAA, .. }), "{err}");
    // Past a limit: named by the limit.
    let err = v
        .create_texture(&TextureDescriptor::new_2d("huge", 1 << 20, 4, TextureFormat::Rgba8Unorm))
        .unwrap_err();
    assert!(matches!(err, DeviceError::LimitExceeded { limit: "max_texture_dimension_2d", .. }), "{err}");
}
