//! How passes and pipelines start and what they keep: the Y rule, clean starts, bindings
//! that do not follow, refusals, attachment limits.

use f3d_hal::{
    Color, ColorAttachment, CompareFunction, DepthStencilState, DeviceError, GraphicsDevice,
    RenderPassDescriptor, ScissorRect, StencilFaceState, StencilState, TextureDescriptor, TextureFormat,
    Viewport,
};

use super::{BLUE, Entry, GREEN, RED, near, rgba8};
use crate::draw::{
    draw_vertices, params, pipeline_from, probe_pipeline_desc, quad, render, scene, scene_pipeline, target,
    use_pipeline,
};
use crate::support::{expect_uniform, read_at};
use crate::{CheckResult, Context, ensure, fail};

pub(crate) const CHECKS: &[Entry] = &[
    ("y_rule_top_of_clip_space_is_top_row", y_rule),
    ("viewport_covers_the_level_not_the_base", viewport_covers_level),
    ("scissor_is_not_inherited", scissor_not_inherited),
    ("stencil_reference_starts_at_zero", stencil_starts_off),
    ("bindings_do_not_follow_the_pipeline", bindings_do_not_follow),
    ("refused_pipeline_draws_nothing_and_is_reported_once", refused_pipeline),
    ("short_uniform_block_refused", short_uniform_block_refused),
    ("too_many_color_attachments_refused", too_many_attachments),
    ("viewport_maps_clip_space", viewport_maps),
    ("scissor_clips_draws", scissor_clips),
    ("object_id_survives_r32uint", object_id),
    ("multiple_render_targets", multiple_render_targets),
    ("discard_removes_fragments", discard),
    ("pipeline_must_match_the_pass", pipeline_matches_pass),
    ("viewport_rules", viewport_rules),
    ("draw_past_the_vertex_buffer_refused", draw_past_vertex_buffer),
];

fn y_rule(device: &dyn GraphicsDevice) -> CheckResult {
    // A quad over the top half of clip space (y > 0) must fill the top rows.
    let image = scene(device, 8, 8, &quad(-1.0, 0.0, 1.0, 1.0, 0.5, RED), |_| {})?;
    for y in 0..8 {
        let expected = if y < 4 { [255, 0, 0, 255] } else { [0, 0, 0, 255] };
        ensure!(
            image.rgba8(3, y) == expected,
            "row {y} is {:?}: clip-space y up must land in the top rows",
            image.rgba8(3, y)
        );
    }
    Ok(())
}

fn viewport_covers_level(device: &dyn GraphicsDevice) -> CheckResult {
    let t = device
        .create_texture(&TextureDescriptor::new_2d("mips", 16, 16, TextureFormat::Rgba8Unorm).with_mips(2))
        .ctx("create")?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let mut attachment = ColorAttachment::clear(&t, Color::BLACK);
    attachment.view.mip_level = 1;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("level 1", attachment))
        .ctx("begin_render_pass")?;
    draw_vertices(device, &mut *pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
    pass.submit().ctx("submit")?;
    crate::draw::drew_or_decline(device, &p)?;
    expect_uniform(
        &read_at(device, &t, 1, 0)?,
        [0, 255, 0, 255],
        "a full-screen quad drawn into mip level 1 (8x8)",
    )
}

fn scissor_not_inherited(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    render(device, &t, Color::BLACK, None, |pass| {
        pass.set_scissor(Some(ScissorRect { x: 0, y: 0, width: 1, height: 1 })).ctx("set_scissor")?;
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED))?;
        Ok(vec![p.clone()])
    })?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    expect_uniform(&image, [0, 255, 0, 255], "a full-screen draw in the pass after one that set a scissor")
}

fn stencil_starts_off(device: &dyn GraphicsDevice) -> CheckResult {
    let format = TextureFormat::Depth24PlusStencil8;
    if !device.texture_format_support(format).create {
        return crate::decline(device, "has no stencil format, so the stencil reference cannot be observed");
    }
    let ds =
        device.create_texture(&TextureDescriptor::new_2d("ds", 8, 8, format)).ctx("create depth-stencil")?;
    let equal_zero = StencilFaceState { compare: CompareFunction::Equal, ..StencilFaceState::default() };
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState {
            stencil: StencilState { front: equal_zero, back: equal_zero, read_mask: 0xff, write_mask: 0xff },
            ..DepthStencilState::depth(format, CompareFunction::Always, false)
        });
    })?;
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    render(device, &t, Color::BLACK, Some((&ds, 1.0)), |pass| {
        pass.set_stencil_reference(7).ctx("set_stencil_reference")?;
        Ok(vec![])
    })?;
    // Stencil cleared to 0; a test "equal to the reference" passes only if the reference
    // started at 0 again.
    let image = render(device, &t, Color::BLACK, Some((&ds, 1.0)), |pass| {
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    expect_uniform(
        &image,
        [0, 255, 0, 255],
        "stencil Equal against a fresh pass's reference (0) on a stencil of 0",
    )
}

fn bindings_do_not_follow(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let a = crate::draw::create_pipeline(
        device,
        &probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?,
        "pipeline A",
    )?;
    let mut desc_b = probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?;
    desc_b.label = "pipeline B".into();
    let b = crate::draw::create_pipeline(device, &desc_b, "pipeline B")?;
    let mut refused_draws = Vec::new();
    render(device, &t, Color::BLACK, None, |pass| {
        use_pipeline(pass, &a, &params(RED, [-1.0, -1.0, 1.0, 1.0], 0.5))?;
        pass.set_pipeline(&b).ctx("set_pipeline B")?;
        refused_draws.push(pass.draw(0..6, 0..1));
        use_pipeline(pass, &a, &params(RED, [-1.0, -1.0, 1.0, 1.0], 0.5))?;
        pass.set_pipeline(&a).ctx("set_pipeline A again")?;
        refused_draws.push(pass.draw(0..6, 0..1));
        Ok(vec![a.clone(), b.clone()])
    })?;
    for (i, r) in refused_draws.into_iter().enumerate() {
        match r {
            Err(DeviceError::Refused { .. } | DeviceError::Validation(_)) => {}
            other => {
                return fail(format!(
                    "draw {i}: a uniform block bound before set_pipeline was still bound after it ({other:?}); set_pipeline must forget every binding"
                ));
            }
        }
    }
    expect_uniform(
        &crate::support::read(device, &t)?,
        [0, 0, 0, 255],
        "draws refused for a missing binding must draw nothing",
    )
}

fn refused_pipeline(device: &dyn GraphicsDevice) -> CheckResult {
    // Two passes with the same pipeline between a background quad: whether the device runs
    // the pipeline or refuses it, the background must draw, and a refusal is listed once.
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    for _ in 0..2 {
        let desc = RenderPassDescriptor::color("refusal", ColorAttachment::clear(&t, Color::BLUE));
        let mut pass = device.begin_render_pass(&desc).ctx("begin_render_pass")?;
        draw_vertices(device, &mut *pass, &p, &quad(-1.0, -1.0, 0.0, 1.0, 0.5, RED))?;
        pass.submit().ctx("submit")?;
    }
    let refusals: Vec<_> =
        device.pipeline_refusals().into_iter().filter(|r| r.pipeline == p.label()).collect();
    let image = crate::support::read(device, &t)?;
    ensure!(
        image.rgba8(6, 3) == [0, 0, 255, 255],
        "the rest of the pass (its clear) did not survive: {:?}",
        image.rgba8(6, 3)
    );
    match refusals.len() {
        0 => ensure!(
            image.rgba8(1, 3) == [255, 0, 0, 255],
            "the pipeline was not refused but did not draw: {:?}",
            image.rgba8(1, 3)
        ),
        1 => {
            ensure!(!refusals[0].reason.is_empty(), "a refusal without a reason");
            ensure!(
                image.rgba8(1, 3) == [0, 0, 255, 255],
                "a refused pipeline drew: {:?}",
                image.rgba8(1, 3)
            );
        }
        n => return fail(format!("one refused pipeline drawn in two passes was reported {n} times")),
    }
    Ok(())
}

fn short_uniform_block_refused(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = crate::draw::create_pipeline(
        device,
        &probe_pipeline_desc(device, "fs_color", TextureFormat::Rgba8Unorm)?,
        "uniforms",
    )?;
    let full = params(GREEN, [-1.0, -1.0, 1.0, 1.0], 0.5);
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("u", ColorAttachment::clear(&t, Color::BLACK)))
        .ctx("begin_render_pass")?;
    pass.set_pipeline(&p).ctx("set_pipeline")?;
    ensure!(
        !pass.bind_uniform_block("params", &full[..36]),
        "a 36-byte block for a 48-byte uniform block (missing members) was accepted"
    );
    ensure!(
        !pass.bind_uniform_block("not_declared", &full),
        "a block the pipeline does not declare was accepted"
    );
    ensure!(pass.bind_uniform_block("Params", &full), "the block's type name was refused");
    let mut longer = full.clone();
    longer.extend([0; 16]);
    ensure!(pass.bind_uniform_block("params", &longer), "a block longer than declared was refused");
    pass.draw(0..6, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    crate::draw::drew_or_decline(device, &p)?;
    expect_uniform(&crate::support::read(device, &t)?, [0, 255, 0, 255], "the draw with the accepted block")
}

fn too_many_attachments(device: &dyn GraphicsDevice) -> CheckResult {
    let n = device.limits().max_color_attachments as usize + 1;
    let textures: Vec<_> =
        (0..n).map(|_| target(device, 4, 4, TextureFormat::Rgba8Unorm)).collect::<Result<_, _>>()?;
    let desc = RenderPassDescriptor {
        label: "too many".into(),
        color_attachments: textures.iter().map(|t| ColorAttachment::clear(t, Color::RED)).collect(),
        ..Default::default()
    };
    match device.begin_render_pass(&desc) {
        Err(DeviceError::LimitExceeded { limit: "max_color_attachments", .. }) => Ok(()),
        Err(other) => fail(format!(
            "{n} colour attachments refused as {other} rather than naming max_color_attachments"
        )),
        Ok(_) => fail(format!("a pass with {n} colour attachments (limit {}) was begun", n - 1)),
    }
}

fn viewport_maps(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 16, 16, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_viewport(Viewport {
            x: 8.0,
            y: 0.0,
            width: 8.0,
            height: 8.0,
            min_depth: 0.0,
            max_depth: 1.0,
        })
        .ctx("set_viewport")?;
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    for y in 0..16 {
        for x in 0..16 {
            let inside = x >= 8 && y < 8;
            let expected = if inside { [0, 255, 0, 255] } else { [0, 0, 0, 255] };
            ensure!(
                image.rgba8(x, y) == expected,
                "viewport (8, 0, 8x8): pixel ({x}, {y}) is {:?}",
                image.rgba8(x, y)
            );
        }
    }
    Ok(())
}

fn scissor_clips(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 16, 16, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_scissor(Some(ScissorRect { x: 3, y: 5, width: 4, height: 2 })).ctx("set_scissor")?;
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    for y in 0..16 {
        for x in 0..16 {
            let inside = (3..7).contains(&x) && (5..7).contains(&y);
            let expected = if inside { [0, 255, 0, 255] } else { [0, 0, 0, 255] };
            ensure!(
                image.rgba8(x, y) == expected,
                "scissor (3, 5, 4x2): pixel ({x}, {y}) is {:?}",
                image.rgba8(x, y)
            );
        }
    }
    Ok(())
}

const ID_WGSL: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) u32 {
    return 0xdeadbe00u + u32(p.x) + 16u * u32(p.y);
}
"#;

fn object_id(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 16, 8, TextureFormat::R32Uint)?;
    let p = pipeline_from(device, ID_WGSL, ("vs", "fs"), &[TextureFormat::R32Uint], |_| {})?;
    let image = render(device, &t, Color::new(7.0, 0.0, 0.0, 0.0), None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    for y in 0..8 {
        for x in 0..16 {
            let expected = 0xdead_be00u32 + x + 16 * y;
            ensure!(
                image.r32uint(x, y) == expected,
                "object id at ({x}, {y}) read back {:#x}, expected {expected:#x}",
                image.r32uint(x, y)
            );
        }
    }
    Ok(())
}

const MRT_WGSL: &str = r#"
struct Out {
    @location(0) a: vec4<f32>,
    @location(1) b: vec4<f32>,
}
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
@fragment
fn fs() -> Out {
    return Out(vec4<f32>(1.0, 0.0, 0.0, 1.0), vec4<f32>(0.0, 0.0, 1.0, 0.5));
}
"#;

fn multiple_render_targets(device: &dyn GraphicsDevice) -> CheckResult {
    let a = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
    let b = target(device, 4, 4, TextureFormat::Rgba16Float)?;
    let p = pipeline_from(
        device,
        MRT_WGSL,
        ("vs", "fs"),
        &[TextureFormat::Rgba8Unorm, TextureFormat::Rgba16Float],
        |_| {},
    )?;
    let desc = RenderPassDescriptor {
        label: "mrt".into(),
        color_attachments: vec![
            ColorAttachment::clear(&a, Color::BLACK),
            ColorAttachment::clear(&b, Color::BLACK),
        ],
        ..Default::default()
    };
    let mut pass = device.begin_render_pass(&desc).ctx("begin_render_pass")?;
    pass.set_pipeline(&p).ctx("set_pipeline")?;
    pass.draw(0..3, 0..1).ctx("draw")?;
    pass.submit().ctx("submit")?;
    crate::draw::drew_or_decline(device, &p)?;
    expect_uniform(&crate::support::read(device, &a)?, rgba8(RED), "target 0")?;
    let hdr = crate::support::read(device, &b)?;
    ensure!(
        hdr.texel_f32(2, 2) == [0.0, 0.0, 1.0, 0.5],
        "target 1 (Rgba16Float) holds {:?}",
        hdr.texel_f32(2, 2)
    );
    Ok(())
}

const DISCARD_WGSL: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    if (u32(p.x) + u32(p.y)) % 2u == 1u {
        discard;
    }
    return vec4<f32>(0.0, 1.0, 0.0, 1.0);
}
"#;

fn discard(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = pipeline_from(device, DISCARD_WGSL, ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |_| {})?;
    let image = render(device, &t, Color::BLUE, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    for y in 0..8 {
        for x in 0..8 {
            let expected = if (x + y) % 2 == 1 { rgba8(BLUE) } else { rgba8(GREEN) };
            ensure!(
                near(image.rgba8(x, y), expected, 0),
                "checkerboard discard: ({x}, {y}) is {:?}",
                image.rgba8(x, y)
            );
        }
    }
    Ok(())
}

fn pipeline_matches_pass(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
    let depth = device
        .create_texture(&TextureDescriptor::new_2d("depth", 4, 4, TextureFormat::Depth32Float))
        .ctx("create depth")?;
    let hdr = scene_pipeline(device, TextureFormat::Rgba16Float, |_| {})?;
    let plain = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let deep = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil =
            Some(DepthStencilState::depth(TextureFormat::Depth32Float, CompareFunction::Less, true));
    })?;
    let refused = |r: Result<(), DeviceError>, what: &str| -> CheckResult {
        match r {
            Err(DeviceError::Refused { .. } | DeviceError::Validation(_)) => Ok(()),
            other => fail(format!("{what}: set_pipeline gave {other:?}, expected a refusal")),
        }
    };
    let colour_only = RenderPassDescriptor::color("colour only", ColorAttachment::clear(&t, Color::BLACK));
    let with_depth = RenderPassDescriptor {
        depth_stencil_attachment: Some(f3d_hal::DepthStencilAttachment::clear(&depth, 1.0)),
        ..colour_only.clone()
    };
    let mut pass = device.begin_render_pass(&colour_only).ctx("begin_render_pass")?;
    refused(pass.set_pipeline(&hdr), "an Rgba16Float pipeline in an Rgba8Unorm pass")?;
    refused(pass.set_pipeline(&deep), "a depth-tested pipeline in a pass without depth")?;
    pass.set_pipeline(&plain).ctx("a matching pipeline")?;
    drop(pass);
    let mut pass = device.begin_render_pass(&with_depth).ctx("begin_render_pass")?;
    refused(pass.set_pipeline(&plain), "a pipeline without depth state in a pass with a depth attachment")?;
    pass.set_pipeline(&deep).ctx("a matching depth pipeline")?;
    Ok(())
}

fn viewport_rules(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("v", ColorAttachment::clear(&t, Color::BLACK)))
        .ctx("begin_render_pass")?;
    let base = Viewport::full(8, 8);
    for (v, what) in [
        (Viewport { min_depth: 0.8, max_depth: 0.2, ..base }, "min_depth above max_depth"),
        (Viewport { max_depth: 1.5, ..base }, "max_depth 1.5"),
        (Viewport { width: 0.0, ..base }, "zero width"),
        (Viewport { height: f32::NAN, ..base }, "a NaN height"),
        (Viewport { width: 1e9, ..base }, "a width of 1e9"),
    ] {
        ensure!(
            matches!(pass.set_viewport(v), Err(DeviceError::OutOfBounds { .. })),
            "a viewport with {what} was not refused as out of bounds"
        );
    }
    pass.set_viewport(Viewport {
        x: -4.0,
        y: 2.0,
        width: 10.0,
        height: 3.0,
        min_depth: 0.25,
        max_depth: 0.75,
    })
    .ctx("a valid viewport partly off the target")
}

fn draw_past_vertex_buffer(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let vb =
        crate::draw::buffer(device, &crate::draw::vertex_bytes(&quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN)))?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("v", ColorAttachment::clear(&t, Color::BLACK)))
        .ctx("begin_render_pass")?;
    pass.set_pipeline(&p).ctx("set_pipeline")?;
    pass.set_vertex_buffer(0, &vb, 0).ctx("set_vertex_buffer")?;
    ensure!(
        matches!(pass.draw(0..7, 0..1), Err(DeviceError::OutOfBounds { .. })),
        "a draw of 7 vertices from a 6-vertex buffer was not refused as out of bounds"
    );
    ensure!(
        matches!(pass.set_vertex_buffer(0, &vb, 2), Err(DeviceError::OutOfBounds { .. })),
        "a vertex buffer offset of 2 (not a multiple of 4) was accepted"
    );
    pass.draw(0..6, 0..1).ctx("a draw of the 6 vertices the buffer holds")
}
