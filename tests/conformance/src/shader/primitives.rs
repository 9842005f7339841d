//! Primitives: each topology drawn as itself, wireframe, culling and winding, index buffers
//! and their windows, instancing, geometry overwrites, interpolation, derivatives.

use f3d_hal::{
    Color, CullMode, DeviceError, DeviceFeature, FrontFace, GeometryDescriptor, GeometryUsages,
    GraphicsDevice, IndexFormat, PolygonMode, PrimitiveTopology, TextureFormat, VertexAttribute,
    VertexBufferLayout, VertexFormat, VertexStepMode,
};

use super::{Entry, GREEN, RED, WHITE, rgba8};
use crate::draw::{buffer, pipeline_from, quad, render, scene, scene_pipeline, target, v, vertex_bytes};
use crate::{CheckResult, Context, ensure, fail};

pub(crate) const CHECKS: &[Entry] = &[
    ("point_list_draws_points", point_list),
    ("line_list_draws_lines", line_list),
    ("line_strip_draws_a_strip", line_strip),
    ("triangle_list_draws_triangles", triangle_list),
    ("triangle_strip_draws_a_strip", triangle_strip),
    ("wireframe_draws_edges_or_is_refused", wireframe),
    ("culling_and_front_face", culling),
    ("index_window_draws_that_window", index_window),
    ("index_window_past_the_end_refused", index_window_past_end),
    ("both_index_formats", index_formats),
    ("instanced_vertex_buffers", instanced_buffers),
    ("geometry_overwrite_draws_like_an_upload", geometry_overwrite),
    ("interpolation_perspective_linear_flat", interpolation),
    ("derivatives_of_linear_varyings", derivatives),
];

/// Pixel centre of column `x` of a `w`-wide target in clip space.
fn cx(x: u32, w: u32) -> f32 {
    (x as f32 + 0.5) / w as f32 * 2.0 - 1.0
}

/// Pixel centre of row `y` (from the top) of an `h`-high target in clip space.
fn cy(y: u32, h: u32) -> f32 {
    1.0 - (y as f32 + 0.5) / h as f32 * 2.0
}

fn lit(image: &f3d_hal::ReadbackImage) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for y in 0..image.height {
        for x in 0..image.width {
            if image.rgba8(x, y) != [0, 0, 0, 255] {
                out.push((x, y));
            }
        }
    }
    out
}

fn point_list(device: &dyn GraphicsDevice) -> CheckResult {
    let points = [(1u32, 2u32), (5, 5), (6, 1)];
    let vertices: Vec<_> = points.iter().map(|&(x, y)| v(cx(x, 8), cy(y, 8), 0.5, GREEN)).collect();
    let image = scene(device, 8, 8, &vertices, |d| d.primitive.topology = PrimitiveTopology::PointList)?;
    let mut expected = points.to_vec();
    expected.sort_by_key(|p| (p.1, p.0));
    ensure!(lit(&image) == expected, "points at {points:?} lit {:?}", lit(&image));
    Ok(())
}

fn line_list(device: &dyn GraphicsDevice) -> CheckResult {
    // A horizontal line through row 2 from column 1 to column 6, and a vertical one.
    let vertices = [
        v(cx(1, 8) - 0.1, cy(2, 8), 0.5, GREEN),
        v(cx(6, 8) + 0.1, cy(2, 8), 0.5, GREEN),
        v(cx(4, 8), cy(4, 8) + 0.1, 0.5, RED),
        v(cx(4, 8), cy(7, 8) - 0.1, 0.5, RED),
    ];
    let image = scene(device, 8, 8, &vertices, |d| d.primitive.topology = PrimitiveTopology::LineList)?;
    for x in 1..=6 {
        ensure!(image.rgba8(x, 2) == rgba8(GREEN), "horizontal line: ({x}, 2) is {:?}", image.rgba8(x, 2));
    }
    for y in 4..=7 {
        ensure!(image.rgba8(4, y) == rgba8(RED), "vertical line: (4, {y}) is {:?}", image.rgba8(4, y));
    }
    let count = lit(&image).len();
    ensure!((10..=11).contains(&count), "two lines of 6 and 4 pixels lit {count} pixels");
    Ok(())
}

fn line_strip(device: &dyn GraphicsDevice) -> CheckResult {
    // An L: along row 1 then down column 6.
    let vertices = [
        v(cx(1, 8) - 0.1, cy(1, 8), 0.5, GREEN),
        v(cx(6, 8), cy(1, 8), 0.5, GREEN),
        v(cx(6, 8), cy(6, 8) - 0.1, 0.5, GREEN),
    ];
    let image = scene(device, 8, 8, &vertices, |d| d.primitive.topology = PrimitiveTopology::LineStrip)?;
    for x in 1..6 {
        ensure!(image.rgba8(x, 1) == rgba8(GREEN), "strip segment 1: ({x}, 1) is {:?}", image.rgba8(x, 1));
    }
    for y in 2..=6 {
        ensure!(image.rgba8(6, y) == rgba8(GREEN), "strip segment 2: (6, {y}) is {:?}", image.rgba8(6, y));
    }
    ensure!(image.rgba8(1, 6) == [0, 0, 0, 255], "a line strip closed itself or filled");
    Ok(())
}

fn triangle_list(device: &dyn GraphicsDevice) -> CheckResult {
    // Two separate triangles; the gap between them stays clear.
    let mut vertices = vec![v(-1.0, -1.0, 0.5, RED), v(-0.2, -1.0, 0.5, RED), v(-1.0, 1.0, 0.5, RED)];
    vertices.extend([v(0.2, 1.0, 0.5, GREEN), v(1.0, -1.0, 0.5, GREEN), v(1.0, 1.0, 0.5, GREEN)]);
    let image = scene(device, 16, 16, &vertices, |_| {})?;
    ensure!(image.rgba8(0, 8) == rgba8(RED), "left triangle missing: {:?}", image.rgba8(0, 8));
    ensure!(image.rgba8(15, 8) == rgba8(GREEN), "right triangle missing: {:?}", image.rgba8(15, 8));
    ensure!(image.rgba8(8, 8) == [0, 0, 0, 255], "the gap between two triangles was filled");
    Ok(())
}

fn triangle_strip(device: &dyn GraphicsDevice) -> CheckResult {
    // Four vertices make a full quad as a strip (two triangles, winding alternating).
    let vertices = [
        v(-1.0, -1.0, 0.5, GREEN),
        v(1.0, -1.0, 0.5, GREEN),
        v(-1.0, 1.0, 0.5, GREEN),
        v(1.0, 1.0, 0.5, GREEN),
    ];
    let image = scene(device, 8, 8, &vertices, |d| {
        d.primitive.topology = PrimitiveTopology::TriangleStrip;
        d.primitive.cull_mode = CullMode::Back;
    })?;
    crate::support::expect_uniform(
        &image,
        rgba8(GREEN),
        "a 4-vertex strip (both triangles front-facing) over the target",
    )
}

fn wireframe(device: &dyn GraphicsDevice) -> CheckResult {
    let adjust = |d: &mut f3d_hal::PipelineDescriptor| d.primitive.polygon_mode = PolygonMode::Line;
    if !device.features().has(DeviceFeature::WIREFRAME) {
        let desc = crate::draw::scene_pipeline_desc(device, TextureFormat::Rgba8Unorm, adjust)?;
        return crate::support::expect_unsupported(
            device,
            device.create_pipeline(&desc),
            DeviceFeature::WIREFRAME,
            "a wireframe pipeline",
        );
    }
    let image = scene(device, 16, 16, &quad(-0.5, -0.5, 0.5, 0.5, 0.5, GREEN), adjust)?;
    ensure!(
        image.rgba8(8, 6) == [0, 0, 0, 255] || image.rgba8(6, 9) == [0, 0, 0, 255],
        "the inside of a wireframe quad was filled"
    );
    for (x, y) in [(4, 8), (8, 4), (11, 8), (8, 11)] {
        let near_edge = (-1i32..=1).any(|d| {
            let (px, py) = if x == 8 { (x, (y as i32 + d) as u32) } else { ((x as i32 + d) as u32, y) };
            image.rgba8(px, py) == rgba8(GREEN)
        });
        ensure!(near_edge, "no wireframe edge near ({x}, {y})");
    }
    Ok(())
}

fn culling(device: &dyn GraphicsDevice) -> CheckResult {
    let ccw = [v(-1.0, -1.0, 0.5, GREEN), v(1.0, -1.0, 0.5, GREEN), v(-1.0, 1.0, 0.5, GREEN)];
    let cw = [ccw[0], ccw[2], ccw[1]];
    for (cull, front, tri, drawn) in [
        (CullMode::Back, FrontFace::Ccw, ccw, true),
        (CullMode::Back, FrontFace::Ccw, cw, false),
        (CullMode::Front, FrontFace::Ccw, ccw, false),
        (CullMode::Front, FrontFace::Ccw, cw, true),
        (CullMode::Back, FrontFace::Cw, cw, true),
        (CullMode::Back, FrontFace::Cw, ccw, false),
        (CullMode::None, FrontFace::Cw, ccw, true),
    ] {
        let image = scene(device, 8, 8, &tri, |d| {
            d.primitive.cull_mode = cull;
            d.primitive.front_face = front;
        })?;
        let got = image.rgba8(1, 6) == rgba8(GREEN);
        let winding = if tri[1].pos == ccw[1].pos { "counter-clockwise" } else { "clockwise" };
        ensure!(
            got == drawn,
            "a {winding} triangle with cull {cull:?} and front {front:?} was {}drawn",
            if got { "" } else { "not " }
        );
    }
    Ok(())
}

fn indexed(
    device: &dyn GraphicsDevice,
    vertices: &[crate::draw::V],
    indices: &[u32],
    format: IndexFormat,
    window: std::ops::Range<u32>,
    base_vertex: i32,
) -> Result<Result<f3d_hal::ReadbackImage, DeviceError>, crate::Verdict> {
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let vb = buffer(device, &vertex_bytes(vertices))?;
    let bytes: Vec<u8> = match format {
        IndexFormat::Uint16 => indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect(),
        IndexFormat::Uint32 => indices.iter().flat_map(|&i| i.to_le_bytes()).collect(),
    };
    let ib = device
        .create_geometry(
            &GeometryDescriptor {
                label: "indices".into(),
                size: bytes.len() as u64,
                usage: GeometryUsages::INDEX,
            },
            Some(&bytes),
        )
        .ctx("create index buffer")?;
    let mut result = Ok(());
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.set_vertex_buffer(0, &vb, 0).ctx("set_vertex_buffer")?;
        pass.set_index_buffer(&ib, format, 0).ctx("set_index_buffer")?;
        result = pass.draw_indexed(window, base_vertex, 0..1);
        Ok(vec![p.clone()])
    })?;
    Ok(result.map(|()| image))
}

/// Eight vertices: a left quad (0–3) and a right quad (4–7), each as two triangles by index.
fn two_quads() -> (Vec<crate::draw::V>, Vec<u32>) {
    let vertices = vec![
        v(-1.0, -1.0, 0.5, RED),
        v(0.0, -1.0, 0.5, RED),
        v(-1.0, 1.0, 0.5, RED),
        v(0.0, 1.0, 0.5, RED),
        v(0.0, -1.0, 0.5, GREEN),
        v(1.0, -1.0, 0.5, GREEN),
        v(0.0, 1.0, 0.5, GREEN),
        v(1.0, 1.0, 0.5, GREEN),
    ];
    (vertices, vec![0, 1, 2, 2, 1, 3, 4, 5, 6, 6, 5, 7])
}

fn index_window(device: &dyn GraphicsDevice) -> CheckResult {
    let (vertices, indices) = two_quads();
    let image =
        indexed(device, &vertices, &indices, IndexFormat::Uint32, 6..12, 0)?.ctx("draw_indexed 6..12")?;
    ensure!(image.rgba8(1, 4) == [0, 0, 0, 255], "indices 6..12 drew the left quad (indices 0..6)");
    ensure!(image.rgba8(6, 4) == rgba8(GREEN), "indices 6..12 did not draw the right quad");
    // base_vertex shifts every index: the left quad's indices + 4 draw the right quad.
    let image = indexed(device, &vertices, &indices, IndexFormat::Uint32, 0..6, 4)?
        .ctx("draw_indexed with base_vertex 4")?;
    ensure!(
        image.rgba8(6, 4) == rgba8(GREEN) && image.rgba8(1, 4) == [0, 0, 0, 255],
        "base_vertex 4 did not shift to the right quad"
    );
    Ok(())
}

fn index_window_past_end(device: &dyn GraphicsDevice) -> CheckResult {
    let (vertices, indices) = two_quads();
    match indexed(device, &vertices, &indices, IndexFormat::Uint16, 6..13, 0)? {
        Err(DeviceError::OutOfBounds { .. }) => Ok(()),
        Err(other) => fail(format!("indices 6..13 of 12 refused as {other}, not out of bounds")),
        Ok(_) => fail("indices 6..13 of a 12-index buffer were drawn"),
    }
}

fn index_formats(device: &dyn GraphicsDevice) -> CheckResult {
    let (vertices, indices) = two_quads();
    for format in [IndexFormat::Uint16, IndexFormat::Uint32] {
        let image = indexed(device, &vertices, &indices, format, 0..12, 0)?.ctx("draw_indexed")?;
        ensure!(
            image.rgba8(1, 4) == rgba8(RED) && image.rgba8(6, 4) == rgba8(GREEN),
            "{format:?} indices did not draw both quads"
        );
    }
    Ok(())
}

const INSTANCE_WGSL: &str = r#"
struct In {
    @location(0) position: vec2<f32>,
    @location(1) offset: vec2<f32>,
    @location(2) color: vec4<f32>,
}
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) color: vec4<f32>,
}
@vertex
fn vs(v: In) -> Out {
    return Out(vec4<f32>(v.position + v.offset, 0.5, 1.0), v.color);
}
@fragment
fn fs(v: Out) -> @location(0) vec4<f32> {
    return v.color;
}
"#;

fn instanced_buffers(device: &dyn GraphicsDevice) -> CheckResult {
    if !device.features().has(DeviceFeature::INSTANCING) {
        return crate::decline(device, "does not report instancing");
    }
    // A quarter-size quad at the bottom-left, four instances offset to each quadrant, each
    // with its own colour from a per-instance buffer.
    let corners: Vec<f32> = vec![-1.0, -1.0, 0.0, -1.0, -1.0, 0.0, -1.0, 0.0, 0.0, -1.0, 0.0, 0.0];
    let colors = [RED, GREEN, [0.0, 0.0, 1.0, 1.0], WHITE];
    let offsets = [[0.0f32, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
    let per_instance: Vec<f32> =
        offsets.iter().zip(colors).flat_map(|(o, c)| [o[0], o[1], c[0], c[1], c[2], c[3]]).collect();
    let p = pipeline_from(device, INSTANCE_WGSL, ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |d| {
        d.vertex_buffers = vec![
            VertexBufferLayout {
                stride: 8,
                step_mode: VertexStepMode::Vertex,
                attributes: vec![VertexAttribute { location: 0, format: VertexFormat::Float32x2, offset: 0 }],
            },
            VertexBufferLayout {
                stride: 24,
                step_mode: VertexStepMode::Instance,
                attributes: vec![
                    VertexAttribute { location: 1, format: VertexFormat::Float32x2, offset: 0 },
                    VertexAttribute { location: 2, format: VertexFormat::Float32x4, offset: 8 },
                ],
            },
        ];
    })?;
    let floats = |f: &[f32]| f.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (vb, ib) = (buffer(device, &floats(&corners))?, buffer(device, &floats(&per_instance))?);
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.set_vertex_buffer(0, &vb, 0).ctx("set_vertex_buffer 0")?;
        pass.set_vertex_buffer(1, &ib, 0).ctx("set_vertex_buffer 1")?;
        pass.draw(0..6, 0..4).ctx("draw 4 instances")?;
        Ok(vec![p.clone()])
    })?;
    for (i, (x, y)) in [(1u32, 6u32), (6, 6), (1, 1), (6, 1)].into_iter().enumerate() {
        ensure!(
            image.rgba8(x, y) == rgba8(colors[i]),
            "instance {i} at ({x}, {y}) is {:?}",
            image.rgba8(x, y)
        );
    }
    Ok(())
}

fn geometry_overwrite(device: &dyn GraphicsDevice) -> CheckResult {
    let (vertices, _) = two_quads();
    let t = target(device, 8, 8, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let left: Vec<_> = [0, 1, 2, 2, 1, 3].iter().map(|&i| vertices[i]).collect();
    let mut bytes = vertex_bytes(&left);
    bytes.extend(vertex_bytes(&left));
    let vb = buffer(device, &bytes)?;
    // Overwrite the second copy's colours (only) with green; the first copy stays red.
    let green: Vec<u8> = GREEN.iter().flat_map(|f| f.to_le_bytes()).collect();
    for i in 6..12u64 {
        device.write_geometry(&vb, i * 32 + 16, &green).ctx("write_geometry")?;
    }
    let draw = |range: std::ops::Range<u32>| {
        render(device, &t, Color::BLACK, None, |pass| {
            pass.set_pipeline(&p).ctx("set_pipeline")?;
            pass.set_vertex_buffer(0, &vb, 0).ctx("set_vertex_buffer")?;
            pass.draw(range, 0..1).ctx("draw")?;
            Ok(vec![p.clone()])
        })
    };
    ensure!(draw(0..6)?.rgba8(1, 4) == rgba8(RED), "the neighbours of an overwrite changed");
    ensure!(draw(6..12)?.rgba8(1, 4) == rgba8(GREEN), "an overwritten range did not draw what was written");
    Ok(())
}

const INTERP_WGSL: &str = r#"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(perspective) p: f32,
    @location(1) @interpolate(linear) l: f32,
    @location(2) @interpolate(flat) f: f32,
}
@vertex
fn vs(@builtin(vertex_index) i: u32) -> Out {
    // A quad whose right edge is twice as far (w = 2), as two triangles.
    var xs = array<f32, 6>(-1.0, 1.0, -1.0, -1.0, 1.0, 1.0);
    var ys = array<f32, 6>(-1.0, -1.0, 1.0, 1.0, -1.0, 1.0);
    var ws = array<f32, 6>(1.0, 2.0, 1.0, 1.0, 2.0, 2.0);
    var vs = array<f32, 6>(0.0, 1.0, 0.0, 0.0, 1.0, 1.0);
    let w = ws[i];
    var out: Out;
    out.position = vec4<f32>(xs[i] * w, ys[i] * w, 0.5 * w, w);
    out.p = vs[i];
    out.l = vs[i];
    out.f = f32(i / 3u);
    return out;
}
@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return vec4<f32>(in.p, in.l, in.f, 1.0);
}
"#;

fn interpolation(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 16, 4, TextureFormat::Rgba32Float)?;
    let p = pipeline_from(device, INTERP_WGSL, ("vs", "fs"), &[TextureFormat::Rgba32Float], |_| {})?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.draw(0..6, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    for x in 0..16u32 {
        // Screen position s in [0, 1]; with w going 1 → 2, the perspective-correct value is
        // s / (2 - s) and the linear value is s.
        let s = (x as f32 + 0.5) / 16.0;
        let texel = image.texel_f32(x, 2);
        let (perspective, linear) = (s / (2.0 - s), s);
        ensure!(
            (texel[0] - perspective).abs() < 2e-3,
            "column {x}: perspective-correct {} expected {perspective}",
            texel[0]
        );
        ensure!((texel[1] - linear).abs() < 2e-3, "column {x}: linear {} expected {linear}", texel[1]);
        ensure!(texel[2] == 0.0 || texel[2] == 1.0, "column {x}: flat value {} is not a vertex's", texel[2]);
    }
    Ok(())
}

const DERIV_WGSL: &str = r#"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}
@vertex
fn vs(@builtin(vertex_index) i: u32) -> Out {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    var out: Out;
    out.position = vec4<f32>(p[i], 0.5, 1.0);
    // uv = (3 x, 5 y) in pixels of a 16x16 target: d/dx = 3/8 per pixel... in clip units.
    out.uv = vec2<f32>(p[i].x * 24.0, p[i].y * 40.0);
    return out;
}
@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return vec4<f32>(dpdx(in.uv.x), dpdy(in.uv.y), fwidth(in.uv.x + in.uv.y), dpdx(in.uv.y));
}
"#;

fn derivatives(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 16, 16, TextureFormat::Rgba32Float)?;
    let p = pipeline_from(device, DERIV_WGSL, ("vs", "fs"), &[TextureFormat::Rgba32Float], |_| {})?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    // One pixel is 2/16 clip units: d(uv.x)/dx = 24 * 2/16 = 3; y grows down the screen
    // while clip y grows up: d(uv.y)/dy = -40 * 2/16 = -5.
    let expected = [3.0, -5.0, 8.0, 0.0];
    for (x, y) in [(0, 0), (5, 9), (15, 15), (8, 3)] {
        let got = image.texel_f32(x, y);
        for c in 0..4 {
            ensure!(
                (got[c] - expected[c]).abs() < 1e-3,
                "({x}, {y}): derivative {c} is {}, expected {}",
                got[c],
                expected[c]
            );
        }
    }
    Ok(())
}
