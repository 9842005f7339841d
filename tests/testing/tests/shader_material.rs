//! `ShaderMaterial` draws (issue 21, item 4): raw WGSL and GLSL fragment shaders on squares
//! seen from above, one cell each, checked against the colours they must produce on soft,
//! wgpu and vulkan (and the GPU frames against soft's live frame):
//!
//! 0. a WGSL block set by name (`set_block`) — its linear colour;
//! 1. a GLSL combined sampler with an image bound by name — the image's colour;
//! 2. the same shader with no image bound — white;
//! 3. the `uv0` varying at the square's centre — (0.5, 0.5, 0);
//! 4. `environment_radiance` with the environment on — the sky, not black;
//! 5. the same with it off — black;
//! 6. `Multiply` blending over a grey square — the product, not the shader's own colour;
//! 7. front-face culling of a square that faces the camera — nothing drawn (the sky behind,
//!    as in the gap beside it);
//! 8. depth compare `Always` under a nearer green square — the shader's red shows.

use f3d::f3d_materials::format::{Blending, Culling, DepthCompare, DepthState};
use f3d::image::{ImageData, ImageFormat};
use f3d::prelude::*;
use f3d_testing::{Frame, backend_opens, compare, gpu, render_on, soft_frame, top_down_camera};

const TINT: &str = "struct Tint { color: vec4<f32> }
@group(1) @binding(0) var<uniform> tint: Tint;
@fragment
fn fs() -> @location(0) vec4<f32> {
    return tint.color;
}
";

const TEXTURED: &str = "#version 450
layout(location = 2) in vec2 uv;
layout(location = 0) out vec4 o;
layout(set = 1, binding = 0) uniform sampler2D pattern;
void main() {
    o = texture(pattern, uv);
}
";

const UV: &str = "@fragment
fn fs(@location(2) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(uv, 0.0, 1.0);
}
";

const SKY: &str = "@group(1) @binding(0) var environment_radiance: texture_cube<f32>;
@group(1) @binding(1) var environment_radiance_sampler: sampler;
@fragment
fn fs(@location(1) n: vec3<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(textureSample(environment_radiance, environment_radiance_sampler, n).rgb, 1.0);
}
";

const CELLS: u32 = 9;
const CELL: u32 = 16;
const TOLERANCE: u8 = 6;
const IMAGE: [u8; 3] = [40, 200, 90];

fn tint(color: [f32; 4]) -> ShaderMaterial {
    let mut m = ShaderMaterial::from_wgsl("tint.wgsl", TINT).unwrap_or_else(|e| panic!("{}", e.diagnostic()));
    let bytes: Vec<u8> = color.iter().flat_map(|c| c.to_le_bytes()).collect();
    m.set_block("Tint", &bytes).expect("the block by its type name");
    m
}

fn scene(world: &mut World) {
    let image = world.resource_mut::<Assets<Image>>().add(ImageData::solid(
        4,
        4,
        [IMAGE[0], IMAGE[1], IMAGE[2], 255],
        ImageFormat::Rgba8Srgb,
    ));
    let textured = |bound: bool| {
        let mut m = ShaderMaterial::from_glsl("textured.frag", TEXTURED)
            .unwrap_or_else(|e| panic!("{}", e.diagnostic()));
        if bound {
            m.set_image("pattern", image.clone()).expect("the texture by name");
        }
        m
    };
    let sky = ShaderMaterial::from_wgsl("sky.wgsl", SKY).unwrap_or_else(|e| panic!("{}", e.diagnostic()));
    let materials = [
        (0, 0.0, tint([0.5, 0.1, 0.02, 1.0])),
        (1, 0.0, textured(true)),
        (2, 0.0, textured(false)),
        (3, 0.0, ShaderMaterial::from_wgsl("uv.wgsl", UV).unwrap()),
        (4, 0.0, sky.clone()),
        (5, 0.0, sky.with_environment(false)),
        (6, 0.0, tint([0.5, 0.5, 0.5, 1.0])),
        (6, 0.2, tint([1.0, 0.5, 0.0, 1.0]).with_blending(Blending::Multiply)),
        (7, 0.0, tint([1.0, 1.0, 1.0, 1.0]).with_culling(Culling::Front)),
        (8, 0.2, tint([0.0, 1.0, 0.0, 1.0])),
        (
            8,
            0.0,
            tint([1.0, 0.0, 0.0, 1.0]).with_depth(DepthState { write: true, compare: DepthCompare::Always }),
        ),
    ];
    let square = world.resource_mut::<Assets<Mesh>>().add(Plane3d::default().mesh().size(0.8, 0.8));
    for (cell, height, material) in materials {
        let material = world.resource_mut::<Assets<ShaderMaterial>>().add(material);
        let x = cell as f32 + 0.5 - CELLS as f32 / 2.0;
        world.spawn((Mesh3d(square.clone()), MeshMaterial3d(material), Transform::from_xyz(x, height, 0.0)));
    }
    world.spawn(Environment::default());
    top_down_camera(world, Vec3::ZERO, CELLS as f32, 1.0);
}

/// A linear value as the untonemapped sRGB output's byte.
fn srgb(linear: f32) -> u8 {
    (Srgba::from(LinearRgba::new(linear, 0.0, 0.0, 1.0)).red * 255.0).round() as u8
}

fn expected(cell: u32) -> Option<[u8; 3]> {
    Some(match cell {
        0 => [srgb(0.5), srgb(0.1), srgb(0.02)],
        1 => IMAGE,
        2 => [255, 255, 255],
        3 => [srgb(0.5), srgb(0.5), 0],
        4 => return None,
        5 => [0, 0, 0],
        7 => return None,
        6 => [srgb(0.5), srgb(0.25), 0],
        _ => [255, 0, 0],
    })
}

fn judge(backend: &str, frame: &Frame) {
    let centre = |cell: u32| {
        let p = frame.pixel(cell * CELL + CELL / 2, CELL / 2);
        [p[0], p[1], p[2]]
    };
    let wrong: Vec<(u32, [u8; 3], [u8; 3])> = (0..CELLS)
        .filter_map(|cell| {
            let want = expected(cell)?;
            let seen = centre(cell);
            (!seen.iter().zip(want).all(|(s, w)| s.abs_diff(w) <= TOLERANCE)).then_some((cell, want, seen))
        })
        .collect();
    assert!(wrong.is_empty(), "{backend}: cells showing the wrong colour (cell, expected, seen): {wrong:?}");
    let sky = centre(4);
    assert!(sky.iter().any(|&c| c > 40), "{backend}: the environment reads black with it on: {sky:?}");
    // The culled square: what the gap beside it shows (the background), where a drawn one
    // would be white.
    let gap = frame.pixel(7 * CELL, CELL / 2);
    let culled = centre(7);
    assert!(
        culled.iter().zip(gap).all(|(c, g)| c.abs_diff(g) <= TOLERANCE) && culled != [255; 3],
        "{backend}: the front-culled square drew: {culled:?} against the background {gap:?}"
    );
}

fn check(backend: &str) {
    if !backend_opens(backend) {
        return;
    }
    let frame = render_on(backend, CELLS * CELL, CELL, scene);
    if let Ok(dir) = std::env::var("F3D_TEST_OUT") {
        let _ = frame.write_png(&std::path::Path::new(&dir).join(format!("shader_material_{backend}.png")));
    }
    judge(backend, &frame);
    if backend != "soft" {
        let soft = soft_frame(CELLS * CELL, CELL, scene).expect("soft");
        let c = compare(&frame, &soft, gpu::AGAINST_SOFT).unwrap_or_else(|e| panic!("{backend}: {e}"));
        if let Err(e) = c.within(gpu::AGAINST_SOFT) {
            panic!("{backend} against soft's frame: {e}");
        }
    }
}

#[test]
fn shader_materials_draw_what_their_shaders_say_on_soft() {
    check("soft");
}

#[test]
fn shader_materials_draw_what_their_shaders_say_on_wgpu() {
    check("wgpu");
}

#[test]
fn shader_materials_draw_what_their_shaders_say_on_vulkan() {
    check("vulkan");
}

/// Values the shader does not take are refused by name.
#[test]
fn unknown_names_and_wrong_sizes_are_refused() {
    let mut m = tint([1.0; 4]);
    assert!(
        m.set_block("Tnit", &[0; 16]).unwrap_err().to_string().contains("no uniform block called `Tnit`")
    );
    let e = m.set_block("tint", &[0; 12]).unwrap_err().to_string();
    assert!(e.contains("16 bytes, 12 were given"), "{e}");
    assert!(m.set_image("pattern", Handle::default()).is_err(), "TINT has no texture");
}
