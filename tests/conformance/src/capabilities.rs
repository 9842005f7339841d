//! `CAPABILITIES`: one probe per HAL feature. Reported → the probe works; not reported →
//! refused naming *that* feature (not another, and not done anyway).

use std::num::NonZeroU32;

use f3d_hal::{
    AttachmentView, BlendComponent, BlendFactor, BlendOperation, BlendState, Color, ColorAttachment,
    CompareFunction, ComputePipelineDescriptor, DepthStencilAttachment, DepthStencilState, DeviceFeature,
    GeometryDescriptor, GeometryUsages, GraphicsDevice, PolygonMode, QueryKind, RenderPassDescriptor,
    SamplerDescriptor, ShaderStage, StencilFaceState, StencilOperation, StencilState, TextureDescriptor,
    TextureDimension, TextureFormat, TextureRegion, TextureUsages,
};

use crate::draw::{create_pipeline, drew, drew_or_decline, params, probe_pipeline_desc, use_pipeline};
use crate::support::{clear, expect_uniform, expect_unsupported, read, read_at, rgba8};
use crate::{Check, CheckFn, CheckResult, Context, Tier, Verdict, ensure, fail};

pub(crate) fn checks() -> Vec<Check> {
    let c = |name, f| Check { tier: Tier::Capabilities, name, run: CheckFn::Device(f) };
    let checks = vec![
        c("compute", compute),
        c("storage_buffers", storage_buffers),
        c("timestamp_query", timestamp_query),
        c("occlusion_query", occlusion_query),
        c("indirect_draw", indirect_draw),
        c("multi_draw_indirect", multi_draw_indirect),
        c("msaa", msaa),
        c("wireframe", wireframe),
        c("blend_constant", blend_constant),
        c("multiview", multiview),
        c("depth_clip_control", depth_clip_control),
        c("texture_compression_bc", texture_compression_bc),
        c("float32_filterable", float32_filterable),
        c("copy_texture", copy_texture),
        c("instancing", instancing),
        c("stencil", stencil),
        c("present", present),
    ];
    debug_assert_eq!(checks.len(), DeviceFeature::ALL.len());
    checks
}

const SIZE: u32 = 8;
const FULL: [f32; 4] = [-1.0, -1.0, 1.0, 1.0];
const LEFT_HALF: [f32; 4] = [-1.0, -1.0, 0.0, 1.0];
const GREEN: [f32; 4] = [0.0, 1.0, 0.0, 1.0];

fn has(device: &dyn GraphicsDevice, f: DeviceFeature) -> bool {
    device.features().has(f)
}

const COMPUTE_WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = id.x * 3u + 1u;
}
"#;

fn compute(device: &dyn GraphicsDevice) -> CheckResult {
    let module = f3d_materials::compile_wgsl("compute.wgsl", COMPUTE_WGSL)
        .map(std::sync::Arc::new)
        .map_err(|e| Verdict::Failed(format!("the compute probe does not compile: {e}")))?;
    let shader = device.create_shader(&f3d_hal::ShaderDescriptor {
        label: "compute probe".into(),
        module,
        stage: ShaderStage::Compute,
        entry_point: "main".into(),
    });
    let shader = match shader {
        Ok(shader) => shader,
        // Refusing the compute shader itself is a fine refusal, if it names the feature.
        Err(e) if !has(device, DeviceFeature::COMPUTE) => {
            return expect_unsupported(device, Err::<(), _>(e), DeviceFeature::COMPUTE, "a compute shader");
        }
        Err(e) => return fail(format!("reports compute but refused a compute shader: {e}")),
    };
    let desc = ComputePipelineDescriptor { label: "compute probe".into(), shader };
    if !has(device, DeviceFeature::COMPUTE) {
        return expect_unsupported(
            device,
            device.create_compute_pipeline(&desc),
            DeviceFeature::COMPUTE,
            "create_compute_pipeline",
        );
    }
    if !has(device, DeviceFeature::STORAGE_BUFFERS) {
        return fail("reports compute without storage-buffers, so nothing a compute shader does can be seen");
    }
    let pipeline = device.create_compute_pipeline(&desc).ctx("create_compute_pipeline")?;
    let buffer = device
        .create_geometry(
            &GeometryDescriptor { label: "compute out".into(), size: 32, usage: GeometryUsages::STORAGE },
            None,
        )
        .ctx("create storage buffer")?;
    device.dispatch(&pipeline, &[], &[("data", &buffer)], [2, 1, 1]).ctx("dispatch")?;
    let bytes = device.read_geometry(&buffer).ctx("read_geometry")?;
    let values: Vec<u32> =
        bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let expected: Vec<u32> = (0..8).map(|i| i * 3 + 1).collect();
    ensure!(values == expected, "the compute probe wrote {values:?}, expected {expected:?}");
    Ok(())
}

fn storage_buffers(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = GeometryDescriptor { label: "storage".into(), size: 16, usage: GeometryUsages::STORAGE };
    let data: Vec<u8> = (0..16).collect();
    if !has(device, DeviceFeature::STORAGE_BUFFERS) {
        expect_unsupported(
            device,
            device.create_geometry(&desc, Some(&data)),
            DeviceFeature::STORAGE_BUFFERS,
            "a STORAGE buffer",
        )?;
        let plain = device
            .create_geometry(&GeometryDescriptor::new("plain", 16), Some(&data))
            .ctx("create_geometry")?;
        return expect_unsupported(
            device,
            device.read_geometry(&plain),
            DeviceFeature::STORAGE_BUFFERS,
            "read_geometry",
        );
    }
    let buffer = device.create_geometry(&desc, Some(&data)).ctx("create storage buffer")?;
    device.write_geometry(&buffer, 4, &[9, 9]).ctx("write_geometry")?;
    let back = device.read_geometry(&buffer).ctx("read_geometry")?;
    let mut expected = data.clone();
    expected[4..6].copy_from_slice(&[9, 9]);
    ensure!(back == expected, "a storage buffer read back {back:?}, expected {expected:?}");
    Ok(())
}

fn timestamp_query(device: &dyn GraphicsDevice) -> CheckResult {
    let set = device.create_query_set("timestamps", QueryKind::Timestamp, 2);
    if !has(device, DeviceFeature::TIMESTAMP_QUERY) {
        return expect_unsupported(device, set, DeviceFeature::TIMESTAMP_QUERY, "a timestamp query set");
    }
    let set = set.ctx("create_query_set")?;
    let t = rgba8(device, SIZE, SIZE)?;
    // Two passes submitted apart in time: the second timestamp is later than the first.
    for (index, color) in [(0, Color::RED), (1, Color::BLACK)] {
        if index == 1 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color("timestamps", ColorAttachment::clear(&t, color)))
            .ctx("begin_render_pass")?;
        pass.write_timestamp(&set, index).ctx("write_timestamp")?;
        pass.submit().ctx("submit")?;
    }
    let times = device.read_query_set(&set).ctx("read_query_set")?;
    ensure!(times.len() == 2, "a set of 2 timestamps read back {} values", times.len());
    ensure!(
        times[1] > times[0],
        "a timestamp written in a pass submitted 2 ms after another is not later: {times:?}"
    );
    ensure!(
        times[1] - times[0] < 10_000_000_000,
        "two passes 2 ms apart are {} ns apart",
        times[1] - times[0]
    );
    Ok(())
}

fn occlusion_query(device: &dyn GraphicsDevice) -> CheckResult {
    let set = device.create_query_set("occlusion", QueryKind::Occlusion, 2);
    if !has(device, DeviceFeature::OCCLUSION_QUERY) {
        return expect_unsupported(device, set, DeviceFeature::OCCLUSION_QUERY, "an occlusion query set");
    }
    let set = set.ctx("create_query_set")?;
    let t = rgba8(device, SIZE, SIZE)?;
    let pipeline = create_pipeline(
        device,
        &probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?,
        "occlusion",
    )?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "occlusion",
            ColorAttachment::clear(&t, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    use_pipeline(&mut *pass, &pipeline, &params(GREEN, LEFT_HALF, 0.5))?;
    pass.begin_occlusion_query(&set, 0).ctx("begin_occlusion_query")?;
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.end_occlusion_query().ctx("end_occlusion_query")?;
    pass.begin_occlusion_query(&set, 1).ctx("begin_occlusion_query")?;
    pass.end_occlusion_query().ctx("end_occlusion_query")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "occlusion")?;
    let counts = device.read_query_set(&set).ctx("read_query_set")?;
    ensure!(
        counts == [32, 0],
        "occlusion counts {counts:?}, expected [32, 0] (half of an 8x8 target, then nothing)"
    );
    Ok(())
}

/// Draws `count` draws from an indirect buffer; used by both indirect probes.
fn indirect_probe(device: &dyn GraphicsDevice, feature: DeviceFeature, multi: bool) -> CheckResult {
    let t = rgba8(device, SIZE, SIZE)?;
    let pipeline = create_pipeline(
        device,
        &probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?,
        "indirect",
    )?;
    let args: Vec<u8> = if multi { [3u32, 1, 0, 0, 3, 1, 3, 0].to_vec() } else { [6u32, 1, 0, 0].to_vec() }
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let usage = if has(device, DeviceFeature::INDIRECT_DRAW) {
        GeometryUsages::INDIRECT
    } else {
        GeometryUsages::VERTEX
    };
    let desc = GeometryDescriptor { label: "indirect args".into(), size: args.len() as u64, usage };
    if !has(device, DeviceFeature::INDIRECT_DRAW) && !multi {
        let indirect = GeometryDescriptor { usage: GeometryUsages::INDIRECT, ..desc.clone() };
        expect_unsupported(
            device,
            device.create_geometry(&indirect, Some(&args)),
            feature,
            "an INDIRECT buffer",
        )?;
    }
    let buffer = device.create_geometry(&desc, Some(&args)).ctx("create_geometry")?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("indirect", ColorAttachment::clear(&t, Color::BLACK)))
        .ctx("begin_render_pass")?;
    use_pipeline(&mut *pass, &pipeline, &params(GREEN, FULL, 0.5))?;
    let result = if multi { pass.multi_draw_indirect(&buffer, 0, 2) } else { pass.draw_indirect(&buffer, 0) };
    if !has(device, feature) {
        return expect_unsupported(
            device,
            result,
            feature,
            if multi { "multi_draw_indirect" } else { "draw_indirect" },
        );
    }
    result.ctx("indirect draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "indirect")?;
    expect_uniform(&read(device, &t)?, [0, 255, 0, 255], "after an indirect draw of the whole target")
}

fn indirect_draw(device: &dyn GraphicsDevice) -> CheckResult {
    indirect_probe(device, DeviceFeature::INDIRECT_DRAW, false)
}

fn multi_draw_indirect(device: &dyn GraphicsDevice) -> CheckResult {
    indirect_probe(device, DeviceFeature::MULTI_DRAW_INDIRECT, true)
}

fn msaa(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor::new_2d("msaa", SIZE, SIZE, TextureFormat::Rgba8Unorm)
        .with_samples(4)
        .with_usage(TextureUsages::RENDER_ATTACHMENT);
    let mut pipe = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    pipe.sample_count = 4;
    if !has(device, DeviceFeature::MSAA) {
        expect_unsupported(device, device.create_texture(&desc), DeviceFeature::MSAA, "a 4-sample texture")?;
        return expect_unsupported(
            device,
            device.create_pipeline(&pipe),
            DeviceFeature::MSAA,
            "a 4-sample pipeline",
        );
    }
    let ms = device.create_texture(&desc).ctx("create 4-sample texture")?;
    let resolve = rgba8(device, SIZE, SIZE)?;
    let pipeline = create_pipeline(device, &pipe, "msaa")?;
    let mut attachment = ColorAttachment::clear(&ms, Color::BLACK);
    attachment.resolve_target = Some(AttachmentView::new(&resolve));
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("msaa", attachment))
        .ctx("begin_render_pass")?;
    use_pipeline(&mut *pass, &pipeline, &params([1.0; 4], FULL, 0.5))?;
    // One triangle of the two: its diagonal crosses pixels, which resolve to partial coverage.
    pass.draw(0..3, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "msaa")?;
    let image = read(device, &resolve)?;
    // Four samples of white or black average to k/4 of white: every pixel must sit at one
    // of those five levels (a resolve that filters across pixels, or more samples than
    // four, lands between them), and the diagonal must have partial ones.
    let mut partial = 0;
    for (x, y) in (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| (x, y))) {
        let v = f32::from(image.rgba8(x, y)[0]);
        let k = (v / 63.75).round();
        ensure!(
            (v - k * 63.75).abs() <= 2.0,
            "pixel ({x}, {y}) resolved to {v}, not a whole number of 4 samples (0, 64, 128, 191 or 255)"
        );
        if k > 0.0 && k < 4.0 {
            partial += 1;
        }
    }
    ensure!(partial > 0, "no pixel along a triangle's diagonal resolved to partial coverage");
    Ok(())
}

fn wireframe(device: &dyn GraphicsDevice) -> CheckResult {
    let mut desc = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    desc.primitive.polygon_mode = PolygonMode::Line;
    if !has(device, DeviceFeature::WIREFRAME) {
        return expect_unsupported(
            device,
            device.create_pipeline(&desc),
            DeviceFeature::WIREFRAME,
            "a wireframe pipeline",
        );
    }
    let t = rgba8(device, 32, 32)?;
    let pipeline = create_pipeline(device, &desc, "wireframe")?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "wireframe",
            ColorAttachment::clear(&t, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    use_pipeline(&mut *pass, &pipeline, &params(GREEN, [-0.5, -0.5, 0.5, 0.5], 0.5))?;
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "wireframe")?;
    let image = read(device, &t)?;
    let lit = |x: u32, y: u32| image.rgba8(x, y)[1] > 128;
    ensure!(!lit(12, 19) && !lit(19, 12), "the inside of a wireframe quad was filled");
    ensure!((8..24).any(|y| lit(8, y)), "the left edge of a wireframe quad (column 8) was not drawn");
    Ok(())
}

fn blend_constant(device: &dyn GraphicsDevice) -> CheckResult {
    let mut desc = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    desc.color_targets[0].blend = Some(BlendState {
        color: BlendComponent {
            src_factor: BlendFactor::Constant,
            dst_factor: BlendFactor::Zero,
            operation: BlendOperation::Add,
        },
        alpha: BlendComponent::REPLACE,
    });
    let t = rgba8(device, SIZE, SIZE)?;
    if !has(device, DeviceFeature::BLEND_CONSTANT) {
        expect_unsupported(
            device,
            device.create_pipeline(&desc),
            DeviceFeature::BLEND_CONSTANT,
            "a pipeline blending with the constant",
        )?;
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color(
                "blend constant",
                ColorAttachment::clear(&t, Color::BLACK),
            ))
            .ctx("begin_render_pass")?;
        return expect_unsupported(
            device,
            pass.set_blend_constant(Color::WHITE),
            DeviceFeature::BLEND_CONSTANT,
            "set_blend_constant",
        );
    }
    let pipeline = create_pipeline(device, &desc, "blend constant")?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "blend constant",
            ColorAttachment::clear(&t, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    pass.set_blend_constant(Color::new(0.5, 0.25, 1.0, 1.0)).ctx("set_blend_constant")?;
    use_pipeline(&mut *pass, &pipeline, &params([1.0; 4], FULL, 0.5))?;
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "blend constant")?;
    let got = read(device, &t)?.rgba8(3, 3);
    let close = got.iter().zip([128u8, 64, 255, 255]).all(|(a, b)| a.abs_diff(b) <= 1);
    ensure!(close, "white × constant (0.5, 0.25, 1) gave {got:?}, expected [128, 64, 255, 255]");
    Ok(())
}

fn multiview(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor {
        dimension: TextureDimension::D2Array,
        array_layers: 2,
        ..TextureDescriptor::new_2d("multiview", SIZE, SIZE, TextureFormat::Rgba8Unorm)
    };
    let t = device.create_texture(&desc).ctx("create 2-layer array")?;
    let two = NonZeroU32::new(2);
    let mut pass_desc = RenderPassDescriptor::color("multiview", ColorAttachment::clear(&t, Color::BLACK));
    pass_desc.multiview = two;
    let mut pipe = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    pipe.multiview = two;
    if !has(device, DeviceFeature::MULTIVIEW) {
        expect_unsupported(
            device,
            device.create_pipeline(&pipe),
            DeviceFeature::MULTIVIEW,
            "a multiview pipeline",
        )?;
        return expect_unsupported(
            device,
            device.begin_render_pass(&pass_desc),
            DeviceFeature::MULTIVIEW,
            "a multiview pass",
        );
    }
    let pipeline = create_pipeline(device, &pipe, "multiview")?;
    let mut pass = device.begin_render_pass(&pass_desc).ctx("begin_render_pass")?;
    use_pipeline(&mut *pass, &pipeline, &params(GREEN, FULL, 0.5))?;
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "multiview")?;
    for layer in 0..2 {
        expect_uniform(
            &read_at(device, &t, 0, layer)?,
            [0, 255, 0, 255],
            &format!("multiview layer {layer}"),
        )?;
    }
    Ok(())
}

fn depth_clip_control(device: &dyn GraphicsDevice) -> CheckResult {
    let mut desc = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    desc.primitive.unclipped_depth = true;
    desc.depth_stencil =
        Some(DepthStencilState::depth(TextureFormat::Depth32Float, CompareFunction::LessEqual, true));
    if !has(device, DeviceFeature::DEPTH_CLIP_CONTROL) {
        return expect_unsupported(
            device,
            device.create_pipeline(&desc),
            DeviceFeature::DEPTH_CLIP_CONTROL,
            "an unclipped-depth pipeline",
        );
    }
    let t = rgba8(device, SIZE, SIZE)?;
    let depth = device
        .create_texture(&TextureDescriptor::new_2d("depth", SIZE, SIZE, TextureFormat::Depth32Float))
        .ctx("create depth")?;
    let pipeline = create_pipeline(device, &desc, "depth clip control")?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor {
            depth_stencil_attachment: Some(DepthStencilAttachment::clear(&depth, 1.0)),
            ..RenderPassDescriptor::color("unclipped", ColorAttachment::clear(&t, Color::BLACK))
        })
        .ctx("begin_render_pass")?;
    // Beyond the far plane: clipped normally, clamped to 1.0 (and passing LessEqual) unclipped.
    use_pipeline(&mut *pass, &pipeline, &params(GREEN, FULL, 1.5))?;
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, "depth clip control")?;
    expect_uniform(
        &read(device, &t)?,
        [0, 255, 0, 255],
        "a quad beyond the far plane drawn with unclipped depth",
    )
}

fn texture_compression_bc(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor::new_2d("bc1", 4, 4, TextureFormat::Bc1RgbaUnorm)
        .with_usage(TextureUsages::SAMPLED | TextureUsages::COPY_DST);
    if !has(device, DeviceFeature::TEXTURE_COMPRESSION_BC) {
        ensure!(
            !device.texture_format_support(TextureFormat::Bc1RgbaUnorm).create,
            "BC1 support says create without the feature"
        );
        return expect_unsupported(
            device,
            device.create_texture(&desc),
            DeviceFeature::TEXTURE_COMPRESSION_BC,
            "a BC1 texture",
        );
    }
    let t = device.create_texture(&desc).ctx("create BC1")?;
    // One block: both endpoints pure red (RGB565 0xF800), every index 0.
    device
        .write_texture(&t, TextureRegion::full(&desc), &[0x00, 0xf8, 0x00, 0xf8, 0, 0, 0, 0])
        .ctx("upload BC1 block")?;
    sample_probe(device, &t, &SamplerDescriptor::default(), TextureFormat::Rgba8Unorm, "BC1")
        .and_then(|image| expect_uniform(&image, [255, 0, 0, 255], "a red BC1 block sampled"))
}

/// Draws `texture` sampled over a whole target of `format` and reads it back.
fn sample_probe(
    device: &dyn GraphicsDevice,
    texture: &f3d_hal::TextureHandle,
    sampler: &SamplerDescriptor,
    format: TextureFormat,
    what: &str,
) -> Result<f3d_hal::ReadbackImage, Verdict> {
    let target = device
        .create_texture(&TextureDescriptor::new_2d("sampled", SIZE, SIZE, format))
        .ctx("create target")?;
    let sampler = device.create_sampler(sampler).ctx("create_sampler")?;
    let pipeline = create_pipeline(device, &probe_pipeline_desc(device, "fs_texture", format)?, what)?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(what, ColorAttachment::clear(&target, Color::BLACK)))
        .ctx("begin_render_pass")?;
    use_pipeline(&mut *pass, &pipeline, &params([0.0; 4], FULL, 0.5))?;
    ensure!(pass.bind_texture("tex", texture, &sampler), "{what}: binding the texture was refused");
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    drew(device, &pipeline, what)?;
    read(device, &target)
}

fn float32_filterable(device: &dyn GraphicsDevice) -> CheckResult {
    let support = device.texture_format_support(TextureFormat::R32Float);
    let reported = has(device, DeviceFeature::FLOAT32_FILTERABLE);
    ensure!(
        support.filterable == (reported && support.sampled),
        "R32Float filterable is {} but the feature is {reported}",
        support.filterable
    );
    let desc = TextureDescriptor::new_2d("r32f", 2, 1, TextureFormat::R32Float);
    let t = device.create_texture(&desc).ctx("create R32Float")?;
    let texels: Vec<u8> = [0.0f32, 1.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    device.write_texture(&t, TextureRegion::full(&desc), &texels).ctx("upload")?;
    let linear = SamplerDescriptor::linear(f3d_hal::AddressMode::ClampToEdge);
    if !reported {
        let target = rgba8(device, SIZE, SIZE)?;
        let sampler = device.create_sampler(&linear).ctx("create_sampler")?;
        let pipeline = create_pipeline(
            device,
            &probe_pipeline_desc(device, "fs_texture", TextureFormat::Rgba8Unorm)?,
            "float32",
        )?;
        let mut pass = device
            .begin_render_pass(&RenderPassDescriptor::color(
                "float32",
                ColorAttachment::clear(&target, Color::BLACK),
            ))
            .ctx("begin_render_pass")?;
        use_pipeline(&mut *pass, &pipeline, &params([0.0; 4], FULL, 0.5))?;
        if !pass.bind_texture("tex", &t, &sampler) {
            // Refusing the binding outright is also a refusal, but it must not be silent: the
            // draw then lacks its texture. Devices that sample float textures must accept it.
            ensure!(!support.sampled, "R32Float is sampled but binding it was refused");
            return Ok(());
        }
        return expect_unsupported(
            device,
            pass.draw(0..6, 0..1),
            DeviceFeature::FLOAT32_FILTERABLE,
            "drawing with a linear sampler on R32Float",
        );
    }
    let image = sample_probe(device, &t, &linear, TextureFormat::R32Float, "float32 filtering")?;
    // The target's horizontal centre samples halfway between the two texels.
    let mid = image.texel_f32(SIZE / 2 - 1, 0)[0];
    let left = image.texel_f32(0, 0)[0];
    ensure!(left < 0.05, "the left edge sampled {left}, expected 0 (clamped texel 0)");
    ensure!(
        mid > 0.2 && mid < 0.8,
        "near the centre a linear sample gave {mid}, expected between the texels"
    );
    Ok(())
}

fn copy_texture(device: &dyn GraphicsDevice) -> CheckResult {
    let a = rgba8(device, SIZE, SIZE)?;
    let b = rgba8(device, SIZE, SIZE)?;
    clear(device, &a, Color::RED)?;
    clear(device, &b, Color::BLUE)?;
    let result =
        device.copy_texture(&a, TextureRegion::rect(0, 0, 2, 3), &b, TextureRegion::rect(5, 4, 2, 3));
    if !has(device, DeviceFeature::COPY_TEXTURE) {
        expect_unsupported(device, result, DeviceFeature::COPY_TEXTURE, "copy_texture")?;
        return expect_uniform(&read(device, &b)?, [0, 0, 255, 255], "the destination of a refused copy");
    }
    result.ctx("copy_texture")?;
    let image = read(device, &b)?;
    for y in 0..SIZE {
        for x in 0..SIZE {
            let inside = (5..7).contains(&x) && (4..7).contains(&y);
            let expected = if inside { [255, 0, 0, 255] } else { [0, 0, 255, 255] };
            ensure!(
                image.rgba8(x, y) == expected,
                "after a 2x3 copy to (5, 4), texel ({x}, {y}) is {:?}",
                image.rgba8(x, y)
            );
        }
    }
    // A copy between sRGB twins keeps the bytes.
    let srgb = device
        .create_texture(&TextureDescriptor::new_2d("srgb", SIZE, SIZE, TextureFormat::Rgba8UnormSrgb))
        .ctx("create sRGB")?;
    device
        .copy_texture(&b, TextureRegion::full(b.descriptor()), &srgb, TextureRegion::full(srgb.descriptor()))
        .ctx("copy to the sRGB twin")?;
    ensure!(read(device, &srgb)?.data == image.data, "a copy to the sRGB twin changed the bytes");
    ensure!(
        device
            .copy_texture(&a, TextureRegion::rect(0, 0, 4, 4), &a, TextureRegion::rect(2, 2, 4, 4))
            .is_err(),
        "an overlapping copy within one texture was not refused"
    );
    Ok(())
}

fn instancing(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, SIZE, SIZE)?;
    let pipeline = create_pipeline(
        device,
        &probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?,
        "instancing",
    )?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "instancing",
            ColorAttachment::clear(&t, Color::BLACK),
        ))
        .ctx("begin_render_pass")?;
    // Quarter-width rectangles: instance 1 lands in the second quarter.
    use_pipeline(&mut *pass, &pipeline, &params(GREEN, [-1.0, -1.0, -0.5, 1.0], 0.5))?;
    let result = pass.draw(0..6, 0..2);
    if !has(device, DeviceFeature::INSTANCING) {
        return expect_unsupported(device, result, DeviceFeature::INSTANCING, "a draw of 2 instances");
    }
    result.ctx("draw 2 instances")?;
    pass.submit().ctx("submit")?;
    // A device that takes the call but draws nothing with this pipeline (null) cannot show
    // where the instances land: declined, with its refusal as the reason.
    drew_or_decline(device, &pipeline)?;
    let image = read(device, &t)?;
    for x in 0..SIZE {
        let expected = if x < SIZE / 2 { [0, 255, 0, 255] } else { [0, 0, 0, 255] };
        ensure!(
            image.rgba8(x, 4) == expected,
            "two instances of a quarter-width quad: column {x} is {:?}",
            image.rgba8(x, 4)
        );
    }
    Ok(())
}

fn stencil(device: &dyn GraphicsDevice) -> CheckResult {
    let format = [TextureFormat::Depth24PlusStencil8, TextureFormat::Depth32FloatStencil8]
        .into_iter()
        .find(|f| device.texture_format_support(*f).create)
        .unwrap_or(TextureFormat::Depth24PlusStencil8);
    let desc =
        TextureDescriptor::new_2d("stencil", SIZE, SIZE, format).with_usage(TextureUsages::RENDER_ATTACHMENT);
    let face = |compare, pass_op| StencilFaceState { compare, pass_op, ..StencilFaceState::default() };
    let state = |compare, pass_op| DepthStencilState {
        stencil: StencilState {
            front: face(compare, pass_op),
            back: face(compare, pass_op),
            read_mask: 0xff,
            write_mask: 0xff,
        },
        ..DepthStencilState::depth(format, CompareFunction::Always, false)
    };
    let mut mark = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    mark.depth_stencil = Some(state(CompareFunction::Always, StencilOperation::Replace));
    if !has(device, DeviceFeature::STENCIL) {
        expect_unsupported(
            device,
            device.create_texture(&desc),
            DeviceFeature::STENCIL,
            "a depth-stencil texture",
        )?;
        return expect_unsupported(
            device,
            device.create_pipeline(&mark),
            DeviceFeature::STENCIL,
            "a pipeline with a stencil test",
        );
    }
    let mut test = mark.clone();
    test.depth_stencil = Some(state(CompareFunction::Equal, StencilOperation::Keep));
    test.label = "stencil test".into();
    let ds = device.create_texture(&desc).ctx("create depth-stencil")?;
    let t = rgba8(device, SIZE, SIZE)?;
    let (mark, test) =
        (create_pipeline(device, &mark, "stencil mark")?, create_pipeline(device, &test, "stencil test")?);
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor {
            depth_stencil_attachment: Some(DepthStencilAttachment::clear(&ds, 1.0)),
            ..RenderPassDescriptor::color("stencil", ColorAttachment::clear(&t, Color::BLACK))
        })
        .ctx("begin_render_pass")?;
    pass.set_stencil_reference(1).ctx("set_stencil_reference")?;
    use_pipeline(&mut *pass, &mark, &params([0.0, 0.0, 0.0, 1.0], LEFT_HALF, 0.5))?;
    pass.draw(0..6, 0..1).ctx("draw mark")?;
    use_pipeline(&mut *pass, &test, &params(GREEN, FULL, 0.5))?;
    pass.draw(0..6, 0..1).ctx("draw test")?;
    pass.submit().ctx("submit")?;
    drew(device, &mark, "stencil")?;
    drew(device, &test, "stencil")?;
    let image = read(device, &t)?;
    for x in 0..SIZE {
        let expected = if x < SIZE / 2 { [0, 255, 0, 255] } else { [0, 0, 0, 255] };
        ensure!(
            image.rgba8(x, 3) == expected,
            "stencil Equal 1 after marking the left half: column {x} is {:?}",
            image.rgba8(x, 3)
        );
    }
    Ok(())
}

/// Presentation: with [`DeviceFeature::PRESENT`], frames presented to a real X window (the
/// `DISPLAY` variable's server) reach it with their sRGB values, a zero-sized surface skips
/// and a resize is followed; without it, `create_surface` is refused by that name. A device
/// that reports it where no X server can be reached declines, saying so.
fn present(device: &dyn GraphicsDevice) -> CheckResult {
    use f3d_hal::raw_window_handle::{
        RawDisplayHandle, RawWindowHandle, XlibDisplayHandle, XlibWindowHandle,
    };
    use f3d_hal::{PresentMode, Presented, SurfaceConfig, SurfaceTarget};

    use crate::window::{TestWindow, pattern_frame, show};

    const FIRST: (u32, u32) = (48, 32);
    const SECOND: (u32, u32) = (64, 40);
    let config = SurfaceConfig { width: FIRST.0, height: FIRST.1, present_mode: PresentMode::AutoVsync };
    let window = TestWindow::open(None, FIRST);
    if !has(device, DeviceFeature::PRESENT) {
        let target = match &window {
            Ok(w) => w.target("conformance window").map_err(|e| Verdict::Failed(e.to_string()))?,
            // SAFETY: an honest refusal never touches the handles; with no X server there is
            // no real window to give.
            Err(_) => unsafe {
                SurfaceTarget::new(
                    RawWindowHandle::Xlib(XlibWindowHandle::new(1)),
                    RawDisplayHandle::Xlib(XlibDisplayHandle::new(None, 0)),
                    "no window",
                    std::sync::Arc::new(()),
                )
            },
        };
        return expect_unsupported(
            device,
            device.create_surface(&target, &config).map(drop),
            DeviceFeature::PRESENT,
            "create_surface",
        );
    }
    let window = match window {
        Ok(w) => w,
        Err(e) => {
            return Err(Verdict::Declined(format!(
                "{}: no X server to present to (DISPLAY={:?}): {e}",
                device.backend_id(),
                std::env::var("DISPLAY").unwrap_or_default()
            )));
        }
    };
    let failed = |what: &str, e: &dyn std::fmt::Display| Verdict::Failed(format!("{what}: {e}"));
    let target = window.target("conformance window").map_err(|e| failed("the window's target", &e))?;
    let mut surface = device.create_surface(&target, &config).ctx("create_surface")?;
    let frame = pattern_frame(device, FIRST).map_err(|e| failed("the frame", &e))?;
    show(device, surface.as_mut(), &frame, &window, FIRST, 3).map_err(|e| failed("presenting", &e))?;
    surface.configure(&SurfaceConfig { width: 0, height: 0, ..config }).ctx("configure 0x0")?;
    match surface.present(&frame).ctx("present to a zero-sized surface")? {
        Presented::Skipped(_) => {}
        Presented::Shown => return fail("a zero-sized (minimised) surface showed a frame"),
    }
    window.resize(SECOND).map_err(|e| failed("resizing the window", &e))?;
    surface.configure(&SurfaceConfig { width: SECOND.0, height: SECOND.1, ..config }).ctx("configure")?;
    // The frame of the old size is scaled to the new one.
    show(device, surface.as_mut(), &frame, &window, SECOND, 3)
        .map_err(|e| failed("presenting after a resize", &e))?;
    Ok(())
}
