//! Rasterisation rules: clipping (near plane, w < 0, default depth clipping), watertight
//! shared edges, depth bias, two-sided stencil, multisampled depth, viewport with scissor.
//!
//! Every expectation is geometry worked out by hand in the check: which pixel centres a
//! clipped primitive covers, which stencil value a masked operation leaves, which depth a
//! bias moves to. Pixel (px, py) of a `w`×`h` target has its centre at clip
//! x = (px + 0.5) / w · 2 − 1 and y = 1 − (py + 0.5) / h · 2.

use f3d_hal::{
    AttachmentView, BlendComponent, BlendFactor, BlendOperation, BlendState, Color, ColorAttachment,
    CompareFunction, DepthBias, DepthStencilAttachment, DepthStencilState, DeviceFeature, GraphicsDevice,
    ReadbackImage, RenderPassDescriptor, ScissorRect, StencilFaceState, StencilOperation, StencilState,
    TextureDescriptor, TextureFormat, TextureUsages, Viewport,
};

use super::{Entry, GREEN, RED, rgba8};
use crate::draw::{V, draw_vertices, drew_or_decline, quad, render, scene_pipeline, target, v};
use crate::{CheckResult, Context, Verdict, ensure};

pub(crate) const CHECKS: &[Entry] = &[
    ("near_plane_clips_exactly", near_plane),
    ("w_below_zero_is_not_drawn_inverted", w_below_zero),
    ("depth_outside_0_1_is_clipped_by_default", depth_clipped),
    ("shared_edges_are_watertight", watertight),
    ("depth_bias_moves_depth", depth_bias),
    ("two_sided_stencil_with_masks", two_sided_stencil),
    ("msaa_depth_is_per_sample", msaa_depth),
    ("scissor_and_viewport_together", scissor_and_viewport),
];

const BLACK8: [u8; 4] = [0, 0, 0, 255];

/// A vertex with an explicit clip-space `w` (the position is (x, y, z, w) as given).
fn vw(x: f32, y: f32, z: f32, w: f32, color: [f32; 4]) -> V {
    V { pos: [x, y, z, w], color }
}

/// Fails unless every texel of `image` is `inside` where `covered(x, y)` and `outside`
/// elsewhere.
fn expect_coverage(
    image: &ReadbackImage,
    covered: impl Fn(u32, u32) -> bool,
    inside: [u8; 4],
    outside: [u8; 4],
    what: &str,
) -> CheckResult {
    for y in 0..image.height {
        for x in 0..image.width {
            let (want, side) = if covered(x, y) { (inside, "inside") } else { (outside, "outside") };
            let got = image.rgba8(x, y);
            ensure!(got == want, "{what}: texel ({x}, {y}) {side} is {got:?}, expected {want:?}");
        }
    }
    Ok(())
}

/// Verifies near-plane clipping: a screen-filling triangle whose depth is z = x / 2 (clip
/// z < 0 on the left half) must draw exactly the right half, where 0 <= z; the left half,
/// behind the near plane, stays clear. One vertex is given with w = 2 (same point), so the
/// clip must happen in homogeneous space. A device that clamps instead of clipping fills the
/// left half; one that drops a triangle with any vertex behind draws nothing; one that
/// clips at the wrong place (z = -w, the GL convention) fills part of the left half.
fn near_plane(device: &dyn GraphicsDevice) -> CheckResult {
    // z = x / 2 at every vertex: (-1, -1) -> -0.5, (3, -1) -> 1.5, (-1, 3) -> -0.5.
    let tri =
        [vw(-1.0, -1.0, -0.5, 1.0, GREEN), vw(6.0, -2.0, 3.0, 2.0, GREEN), vw(-1.0, 3.0, -0.5, 1.0, GREEN)];
    let image = crate::draw::scene(device, 16, 16, &tri, |_| {})?;
    // Column 7's centre is at x = -1/16 (z < 0), column 8's at +1/16 (z > 0).
    expect_coverage(
        &image,
        |x, _| x >= 8,
        rgba8(GREEN),
        BLACK8,
        "a triangle with depth x/2 clipped at the near plane z = 0",
    )
}

/// Verifies clipping of vertices behind the eye (w < 0). A triangle with two vertices in
/// front, on the line x = 0, and one behind (w = -1) whose naive divide lands at (1, 0) on
/// the right: the true image is the part with w > 0, which by hand is the region left of
/// x = 0 bounded by the rays y = x − 1 and y = 1 − x, i.e. the whole left half, and nothing
/// on the right where the naive triangle would be. A second triangle entirely behind the eye
/// (its naive divide covers the screen) must draw nothing.
fn w_below_zero(device: &dyn GraphicsDevice) -> CheckResult {
    // z = w / 2 everywhere, so the near plane coincides with w = 0 and z / w = 0.5.
    let mixed =
        [vw(0.0, -1.0, 0.5, 1.0, GREEN), vw(0.0, 1.0, 0.5, 1.0, GREEN), vw(-1.0, 0.0, -0.5, -1.0, GREEN)];
    let image = crate::draw::scene(device, 16, 16, &mixed, |_| {})?;
    expect_coverage(
        &image,
        |x, _| x < 8,
        rgba8(GREEN),
        BLACK8,
        "a triangle with one vertex behind the eye (w = -1, naive projection on the right)",
    )?;
    // Divided naively these are (-1, -1), (3, -1), (-1, 3) at depth 0.5: the whole screen.
    let behind =
        [vw(1.0, 1.0, -0.5, -1.0, GREEN), vw(-3.0, 1.0, -0.5, -1.0, GREEN), vw(1.0, -3.0, -0.5, -1.0, GREEN)];
    let image = crate::draw::scene(device, 16, 16, &behind, |_| {})?;
    crate::support::expect_uniform(&image, BLACK8, "a triangle entirely behind the eye (every w = -1)")
}

/// Verifies that with the default primitive state (`unclipped_depth` false) clip depth
/// outside 0..=w is clipped, not clamped: four bands at z = 1.5, -0.5, 0.5 and 0.25 draw only
/// the last two. A device that clamps depth draws all four; one with a GL-style -1..1 range
/// draws the band at -0.5.
fn depth_clipped(device: &dyn GraphicsDevice) -> CheckResult {
    let mut vertices = Vec::new();
    for (i, z) in [1.5f32, -0.5, 0.5, 0.25].into_iter().enumerate() {
        let x0 = -1.0 + 0.5 * i as f32;
        vertices.extend(quad(x0, -1.0, x0 + 0.5, 1.0, z, GREEN));
    }
    let image = crate::draw::scene(device, 16, 4, &vertices, |_| {})?;
    expect_coverage(
        &image,
        |x, _| x >= 8,
        rgba8(GREEN),
        BLACK8,
        "bands at clip z 1.5, -0.5 (clipped), 0.5 and 0.25 (drawn)",
    )
}

/// Additive blending: every fragment adds its colour.
fn additive() -> BlendState {
    let add = BlendComponent {
        src_factor: BlendFactor::One,
        dst_factor: BlendFactor::One,
        operation: BlendOperation::Add,
    };
    BlendState { color: add, alpha: add }
}

/// Draws `triangles` additively at red 0.25 into a 16×16 target and returns, per pixel, how
/// many triangles covered it (red / 63.75).
fn hit_counts(device: &dyn GraphicsDevice, triangles: &[V]) -> Result<Vec<Vec<u32>>, Verdict> {
    let t = target(device, 16, 16, TextureFormat::Rgba8Unorm)?;
    let p =
        scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| d.color_targets[0].blend = Some(additive()))?;
    let image = render(device, &t, Color::TRANSPARENT, None, |pass| {
        draw_vertices(device, pass, &p, triangles)?;
        Ok(vec![p.clone()])
    })?;
    let mut counts = vec![vec![0; 16]; 16];
    for (y, row) in counts.iter_mut().enumerate() {
        for (x, count) in row.iter_mut().enumerate() {
            let red = f32::from(image.rgba8(x as u32, y as u32)[0]);
            let k = (red / 63.75).round();
            ensure!(
                (red - k * 63.75).abs() <= 1.0,
                "pixel ({x}, {y}) has red {red}, not a whole number of additive 0.25 hits"
            );
            *count = k as u32;
        }
    }
    Ok(counts)
}

/// Verifies the fill rule on shared edges: a fan of ten triangles around a pixel centre
/// (spokes vertical, horizontal, diagonal through pixel centres, and oblique) tiling the
/// square of pixels 2..14, and a 4×4 grid of cells whose inner vertices sit on pixel
/// centres tiling the whole target, are drawn additively with 0.25 each. Every pixel inside
/// must be hit exactly once and every pixel outside never: a crack leaves 0, a
/// double-counted edge or vertex leaves 2.
fn watertight(device: &dyn GraphicsDevice) -> CheckResult {
    let c = [0.25, 0.0, 0.0, 0.25];
    // The fan: centre at pixel (8, 7)'s centre; rim on the square x, y in [-0.75, 0.75]
    // (pixel edges 2 and 14), counter-clockwise from the bottom-left corner.
    let centre = (0.0625f32, 0.0625f32);
    let rim = [
        (-0.75f32, -0.75f32),
        (0.0625, -0.75),
        (0.3, -0.75),
        (0.75, -0.75),
        (0.75, 0.0625),
        (0.75, 0.75),
        (0.0625, 0.75),
        (-0.75, 0.75),
        (-0.75, 0.4),
        (-0.75, 0.0625),
    ];
    let mut fan = Vec::new();
    for i in 0..rim.len() {
        let (a, b) = (rim[i], rim[(i + 1) % rim.len()]);
        fan.extend([v(centre.0, centre.1, 0.5, c), v(a.0, a.1, 0.5, c), v(b.0, b.1, 0.5, c)]);
    }
    let counts = hit_counts(device, &fan)?;
    for (y, row) in counts.iter().enumerate() {
        for (x, &k) in row.iter().enumerate() {
            let want = u32::from((2..14).contains(&x) && (2..14).contains(&y));
            ensure!(k == want, "fan: pixel ({x}, {y}) was covered {k} times, expected {want}");
        }
    }
    // The grid: nodes at -1, -0.5, 0, 0.5, 1, the inner ones moved onto pixel centres
    // (multiples of 1/16 plus 1/16), each cell split along alternating diagonals.
    let node = |i: usize, j: usize| -> (f32, f32) {
        let base = |k: usize| -1.0 + 0.5 * k as f32;
        if (1..4).contains(&i) && (1..4).contains(&j) {
            // Odd sixteenths: pixel centres. Every triangle stays counter-clockwise.
            let shift = [[-0.0625f32, 0.1875], [0.0625, -0.0625], [0.1875, 0.0625]];
            (base(i) + shift[(i + j) % 3][0], base(j) + shift[(i + 2 * j) % 3][1])
        } else {
            (base(i), base(j))
        }
    };
    let mut grid = Vec::new();
    for j in 0..4 {
        for i in 0..4 {
            let p = |a: usize, b: usize| {
                let (x, y) = node(a, b);
                v(x, y, 0.5, c)
            };
            let (p00, p10, p01, p11) = (p(i, j), p(i + 1, j), p(i, j + 1), p(i + 1, j + 1));
            if (i + j) % 2 == 0 {
                grid.extend([p00, p10, p11, p00, p11, p01]);
            } else {
                grid.extend([p00, p10, p01, p10, p11, p01]);
            }
        }
    }
    let counts = hit_counts(device, &grid)?;
    for (y, row) in counts.iter().enumerate() {
        for (x, &k) in row.iter().enumerate() {
            ensure!(k == 1, "grid: pixel ({x}, {y}) was covered {k} times, expected once");
        }
    }
    Ok(())
}

/// The smallest step of Depth32Float between 0.5 and 1, and the constant bias unit there
/// (2^(e − 23) with exponent e = −1).
const UNIT: f32 = 1.0 / 16_777_216.0;

/// Draws `first` (red, depth test Always, writing depth) then `second` (green, `compare`,
/// with `bias`) into a 16×16 Depth32Float pass cleared to 1 and returns whether the second
/// won at a few pixels spread over the target (fails if they disagree).
fn second_wins(
    device: &dyn GraphicsDevice,
    first: &[V],
    second: &[V],
    compare: CompareFunction,
    bias: DepthBias,
) -> Result<bool, Verdict> {
    let format = TextureFormat::Depth32Float;
    let depth =
        device.create_texture(&TextureDescriptor::new_2d("depth", 16, 16, format)).ctx("create depth")?;
    let t = target(device, 16, 16, TextureFormat::Rgba8Unorm)?;
    let base = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Always, true))
    })?;
    let biased = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState { bias, ..DepthStencilState::depth(format, compare, true) })
    })?;
    let image = render(device, &t, Color::BLACK, Some((&depth, 1.0)), |pass| {
        draw_vertices(device, pass, &base, first)?;
        draw_vertices(device, pass, &biased, second)?;
        Ok(vec![base.clone(), biased.clone()])
    })?;
    let probes = [(2u32, 2u32), (8, 8), (13, 12), (5, 11)];
    let won = image.rgba8(2, 2) == rgba8(GREEN);
    for (x, y) in probes {
        let got = image.rgba8(x, y);
        ensure!(
            got == rgba8(GREEN) || got == rgba8(RED),
            "depth bias: pixel ({x}, {y}) is {got:?}, neither quad's colour"
        );
        ensure!(
            (got == rgba8(GREEN)) == won,
            "depth bias: coplanar quads disagree across the target ({x}, {y}) is {got:?}"
        );
    }
    Ok(won)
}

/// Verifies depth bias on Depth32Float. Constant: a second quad coplanar at 0.5 loses Less
/// without bias; pushed back 200 units it wins with a constant bias of −1000 units, pushed
/// back 4000 units it loses (so a unit is 2^−24 within a factor of a few); a constant +1000
/// makes it lose LessEqual, which it wins without bias. Slope-scaled: on a plane whose depth
/// rises 1/64 per pixel, a copy 1/128 behind wins with slope scale −1 (offset −1/64), loses
/// with −0.25 (−1/256) and loses with −1 clamped to −1/1024; a slope scale on a flat quad
/// moves nothing. A device ignoring bias, applying it with the wrong sign, the wrong unit or
/// without the slope or the clamp fails one of these.
fn depth_bias(device: &dyn GraphicsDevice) -> CheckResult {
    let flat = |z: f32| quad(-1.0, -1.0, 1.0, 1.0, z, RED).to_vec();
    let flat_green = |z: f32| quad(-1.0, -1.0, 1.0, 1.0, z, GREEN).to_vec();
    let constant = |units: i32| DepthBias { constant: units, slope_scale: 0.0, clamp: 0.0 };
    let slope = |s: f32, clamp: f32| DepthBias { constant: 0, slope_scale: s, clamp };
    // Depth 0.5 at x = -1 rising to 0.75 at x = 1: 0.25 over 16 pixels, 1/64 per pixel.
    let tilted = |shift: f32, color: [f32; 4]| {
        let (z0, z1) = (0.5 + shift, 0.75 + shift);
        vec![
            v(-1.0, -1.0, z0, color),
            v(1.0, -1.0, z1, color),
            v(-1.0, 1.0, z0, color),
            v(-1.0, 1.0, z0, color),
            v(1.0, -1.0, z1, color),
            v(1.0, 1.0, z1, color),
        ]
    };
    let cases = [
        (
            "coplanar, no bias, Less",
            flat(0.5),
            flat_green(0.5),
            CompareFunction::Less,
            DepthBias::default(),
            false,
        ),
        (
            "coplanar, no bias, LessEqual",
            flat(0.5),
            flat_green(0.5),
            CompareFunction::LessEqual,
            DepthBias::default(),
            true,
        ),
        (
            "200 units behind, constant -1000, Less",
            flat(0.5),
            flat_green(0.5 + 200.0 * UNIT),
            CompareFunction::Less,
            constant(-1000),
            true,
        ),
        (
            "4000 units behind, constant -1000, Less",
            flat(0.5),
            flat_green(0.5 + 4000.0 * UNIT),
            CompareFunction::Less,
            constant(-1000),
            false,
        ),
        (
            "coplanar, constant +1000, LessEqual",
            flat(0.5),
            flat_green(0.5),
            CompareFunction::LessEqual,
            constant(1000),
            false,
        ),
        (
            "tilted, 1/128 behind, slope -1, Less",
            tilted(0.0, RED),
            tilted(1.0 / 128.0, GREEN),
            CompareFunction::Less,
            slope(-1.0, 0.0),
            true,
        ),
        (
            "tilted, 1/128 behind, slope -0.25, Less",
            tilted(0.0, RED),
            tilted(1.0 / 128.0, GREEN),
            CompareFunction::Less,
            slope(-0.25, 0.0),
            false,
        ),
        (
            "tilted, 1/128 behind, slope -1 clamped to -1/1024, Less",
            tilted(0.0, RED),
            tilted(1.0 / 128.0, GREEN),
            CompareFunction::Less,
            slope(-1.0, -1.0 / 1024.0),
            false,
        ),
        (
            "flat, coplanar, slope -1000, Less",
            flat(0.5),
            flat_green(0.5),
            CompareFunction::Less,
            slope(-1000.0, 0.0),
            false,
        ),
    ];
    for (what, first, second, compare, bias, should_win) in cases {
        let won = second_wins(device, &first, &second, compare, bias)?;
        ensure!(
            won == should_win,
            "depth bias ({what}): the second quad {} the depth test but should {}",
            if won { "passed" } else { "failed" },
            if should_win { "pass" } else { "fail" }
        );
    }
    Ok(())
}

/// The quad of `quad` with each triangle's winding reversed (back-facing with the default
/// counter-clockwise front).
fn back_quad(x0: f32, y0: f32, x1: f32, y1: f32, z: f32, color: [f32; 4]) -> Vec<V> {
    quad(x0, y0, x1, y1, z, color).chunks(3).flat_map(|t| [t[0], t[2], t[1]]).collect()
}

/// Verifies two-sided stencil with masks and depth_fail_op. The stencil is set to 0xA5
/// everywhere (depth 0.5); then, with read mask 0x0F and write mask 0x3F, front faces test
/// Greater (pass Zero, depth fail Replace, fail Replace) and back faces LessEqual (pass
/// Invert, depth fail IncrementClamp, fail DecrementClamp), in four columns (front/back with
/// reference 0x3C, front/back with 0x02) and two rows (depth 0.25 passes Less, 0.75 fails).
/// By hand, kept bits 0x80 | new bits & 0x3F:
///
/// ```text
///              front 0x3C   back 0x3C   front 0x02   back 0x02
/// depth passes    0x80        0xA4        0x82         0x9A
/// depth fails     0xBC        0xA4        0x82         0xA6
/// ```
///
/// Each cell is probed with an Equal test at its value. Swapped faces, ignored masks or a
/// depth fail treated as a pass all change some cell.
fn two_sided_stencil(device: &dyn GraphicsDevice) -> CheckResult {
    if !device.features().has(DeviceFeature::STENCIL) {
        return crate::decline(device, "does not report stencil");
    }
    let format = TextureFormat::Depth24PlusStencil8;
    let ds =
        device.create_texture(&TextureDescriptor::new_2d("ds", 16, 8, format)).ctx("create depth-stencil")?;
    let t = target(device, 16, 8, TextureFormat::Rgba8Unorm)?;
    let face = |compare, pass_op, depth_fail_op, fail_op| StencilFaceState {
        compare,
        fail_op,
        depth_fail_op,
        pass_op,
    };
    let both = |f: StencilFaceState| StencilState { front: f, back: f, read_mask: 0xff, write_mask: 0xff };
    use StencilOperation as S;
    let set = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState {
            stencil: both(face(CompareFunction::Always, S::Replace, S::Keep, S::Keep)),
            ..DepthStencilState::depth(format, CompareFunction::Always, true)
        })
    })?;
    let apply = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState {
            stencil: StencilState {
                front: face(CompareFunction::Greater, S::Zero, S::Replace, S::Replace),
                back: face(CompareFunction::LessEqual, S::Invert, S::IncrementClamp, S::DecrementClamp),
                read_mask: 0x0F,
                write_mask: 0x3F,
            },
            ..DepthStencilState::depth(format, CompareFunction::Less, false)
        })
    })?;
    let probe = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState {
            stencil: both(face(CompareFunction::Equal, S::Keep, S::Keep, S::Keep)),
            ..DepthStencilState::depth(format, CompareFunction::Always, false)
        })
    })?;
    // Column i spans clip x -1 + 0.5 i .. -0.5 + 0.5 i; row 0 (top, y 0..1) at depth 0.25,
    // row 1 (bottom) at 0.75.
    let columns = [(0x3Cu32, true), (0x3C, false), (0x02, true), (0x02, false)];
    let expected: [[u8; 4]; 2] = [[0x80, 0xA4, 0x82, 0x9A], [0xBC, 0xA4, 0x82, 0xA6]];
    let cell = |col: usize, row: usize| {
        let x0 = -1.0 + 0.5 * col as f32;
        let (y0, y1) = if row == 0 { (0.0, 1.0) } else { (-1.0, 0.0) };
        (x0, y0, x0 + 0.5, y1)
    };
    let image = render(device, &t, Color::BLACK, Some((&ds, 1.0)), |pass| {
        pass.set_stencil_reference(0xA5).ctx("set_stencil_reference")?;
        draw_vertices(device, pass, &set, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED))?;
        for (col, &(reference, front)) in columns.iter().enumerate() {
            pass.set_stencil_reference(reference).ctx("set_stencil_reference")?;
            let mut vertices = Vec::new();
            for (row, z) in [(0, 0.25f32), (1, 0.75)] {
                let (x0, y0, x1, y1) = cell(col, row);
                if front {
                    vertices.extend(quad(x0, y0, x1, y1, z, RED));
                } else {
                    vertices.extend(back_quad(x0, y0, x1, y1, z, RED));
                }
            }
            draw_vertices(device, pass, &apply, &vertices)?;
        }
        for (row, values) in expected.iter().enumerate() {
            for (col, &value) in values.iter().enumerate() {
                pass.set_stencil_reference(u32::from(value)).ctx("set_stencil_reference")?;
                let (x0, y0, x1, y1) = cell(col, row);
                draw_vertices(device, pass, &probe, &quad(x0, y0, x1, y1, 0.5, GREEN))?;
            }
        }
        Ok(vec![set.clone(), apply.clone(), probe.clone()])
    })?;
    for (row, values) in expected.iter().enumerate() {
        for (col, &value) in values.iter().enumerate() {
            let (x, y) = (col as u32 * 4 + 1, row as u32 * 4 + 1);
            let got = image.rgba8(x, y);
            ensure!(
                got == rgba8(GREEN),
                "two-sided stencil: the {} face with reference {:#04x} where depth {} should leave {value:#04x} \
                 (start 0xA5, read mask 0x0F, write mask 0x3F), but an Equal probe at {value:#04x} failed at ({x}, {y})",
                if columns[col].1 { "front" } else { "back" },
                columns[col].0,
                if row == 0 { "passes" } else { "fails" },
            );
        }
    }
    Ok(())
}

/// Verifies that depth is tested per sample in a 4-sample colour + depth pass resolved to
/// one sample: a red plane at constant depth 0.5, then a green plane whose depth is
/// 0.5 + (x − 1/16) / 4 (crossing 0.5 at the centre of column 8) with Less. Columns left of
/// 8 resolve green, right of it red, and column 8 — where both planes cover every sample but
/// the intersection runs through the pixel — must resolve to k/4 green, 1 <= k <= 3, which
/// only per-sample depth gives (depth taken at the pixel centre makes it all one colour).
fn msaa_depth(device: &dyn GraphicsDevice) -> CheckResult {
    if !device.features().has(DeviceFeature::MSAA) {
        return crate::decline(device, "does not report MSAA");
    }
    let (w, h) = (16u32, 8u32);
    let (color_format, depth_format) = (TextureFormat::Rgba8Unorm, TextureFormat::Depth32Float);
    let ms = |label: &str, format| {
        let desc = TextureDescriptor::new_2d(label, w, h, format)
            .with_samples(4)
            .with_usage(TextureUsages::RENDER_ATTACHMENT);
        ensure!(desc.sample_count == 4, "with_samples(4) made a descriptor of {} samples", desc.sample_count);
        device.create_texture(&desc).ctx(&format!("create 4-sample {format}"))
    };
    let color = ms("msaa colour", color_format)?;
    let depth = ms("msaa depth", depth_format)?;
    let resolve = target(device, w, h, color_format)?;
    let pipeline = |compare| {
        scene_pipeline(device, color_format, |d| {
            d.sample_count = 4;
            d.depth_stencil = Some(DepthStencilState::depth(depth_format, compare, true));
        })
    };
    let (flat, sloped) = (pipeline(CompareFunction::Less)?, pipeline(CompareFunction::Less)?);
    let mut attachment = ColorAttachment::clear(&color, Color::BLACK);
    attachment.resolve_target = Some(AttachmentView::new(&resolve));
    let desc = RenderPassDescriptor {
        depth_stencil_attachment: Some(DepthStencilAttachment::clear(&depth, 1.0)),
        ..RenderPassDescriptor::color("msaa depth", attachment)
    };
    let mut pass = device.begin_render_pass(&desc).ctx("begin_render_pass")?;
    draw_vertices(device, &mut *pass, &flat, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED))?;
    // 0.5 + (x - 0.0625) / 4 at x = -1 and x = 1.
    let (z0, z1) = (0.234_375f32, 0.734_375f32);
    let plane = [
        v(-1.0, -1.0, z0, GREEN),
        v(1.0, -1.0, z1, GREEN),
        v(-1.0, 1.0, z0, GREEN),
        v(-1.0, 1.0, z0, GREEN),
        v(1.0, -1.0, z1, GREEN),
        v(1.0, 1.0, z1, GREEN),
    ];
    draw_vertices(device, &mut *pass, &sloped, &plane)?;
    pass.submit().ctx("submit")?;
    drew_or_decline(device, &flat)?;
    drew_or_decline(device, &sloped)?;
    let image = crate::support::read(device, &resolve)?;
    for y in 0..h {
        for x in 0..w {
            let [r, g, b, a] = image.rgba8(x, y).map(f32::from);
            let k = (g / 63.75).round();
            ensure!(
                (g - k * 63.75).abs() <= 2.0
                    && (r - (4.0 - k) * 63.75).abs() <= 2.0
                    && b == 0.0
                    && a == 255.0,
                "pixel ({x}, {y}) resolved to {:?}, not k/4 green and (4 - k)/4 red",
                image.rgba8(x, y)
            );
            let want = match x {
                0..8 => "all green",
                8 => "partly green (1 to 3 of 4 samples)",
                _ => "all red",
            };
            let ok = match x {
                0..8 => k == 4.0,
                8 => (1.0..=3.0).contains(&k),
                _ => k == 0.0,
            };
            ensure!(
                ok,
                "pixel ({x}, {y}) has {k} of 4 samples green, expected {want} (the planes cross at the centre of \
                 column 8)"
            );
        }
    }
    Ok(())
}

/// Verifies that a viewport smaller than the target and a scissor inside the target apply
/// together: viewport x 2..12, y 4..12 (16×16 target), scissor x 6..14, y 0..8; a quad over
/// clip x -1..0.6 maps to viewport pixels x 2..10, so only x 6..10, y 4..8 is drawn. A
/// device ignoring the viewport draws from x 0 (and rows 0..4); one ignoring the scissor
/// draws x 2..6 and rows 8..12.
fn scissor_and_viewport(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 16, 16, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_viewport(Viewport {
            x: 2.0,
            y: 4.0,
            width: 10.0,
            height: 8.0,
            min_depth: 0.0,
            max_depth: 1.0,
        })
        .ctx("set_viewport")?;
        pass.set_scissor(Some(ScissorRect { x: 6, y: 0, width: 8, height: 8 })).ctx("set_scissor")?;
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 0.6, 1.0, 0.5, GREEN))?;
        Ok(vec![p.clone()])
    })?;
    expect_coverage(
        &image,
        |x, y| (6..10).contains(&x) && (4..8).contains(&y),
        rgba8(GREEN),
        BLACK8,
        "a quad in viewport (2, 4, 10x8) with scissor (6, 0, 8x8)",
    )
}
