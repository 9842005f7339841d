//! Textures seen from shaders: filtering, mips, addressing, cube faces, float textures,
//! textures in the vertex stage, rendering into faces and levels, anisotropy.

use f3d_hal::{
    AddressMode, Color, ColorAttachment, FilterMode, GraphicsDevice, RenderPassDescriptor, SamplerDescriptor,
    TextureDescriptor, TextureFormat, TextureHandle, TextureRegion,
};

use super::{Entry, GREEN, rgba8};
use crate::draw::{pipeline_from, quad, render, scene_pipeline, target};
use crate::support::{expect_uniform, read_at};
use crate::{CheckResult, Context, Verdict, ensure};

pub(crate) const CHECKS: &[Entry] = &[
    ("nearest_and_linear_filtering", filtering),
    ("mip_level_chosen_by_derivatives", mip_selection),
    ("address_modes", address_modes),
    ("cube_faces_answer_their_direction", cube_faces),
    ("float_texture_samples_as_floats", float_texture),
    ("vertex_stage_samples_a_texture", vertex_stage_texture),
    ("render_into_cube_face_and_mip_level", render_into_face_and_level),
    ("anisotropy_is_clamped_not_refused", anisotropy),
    ("texture_load_and_dimensions", load_and_dimensions),
];

/// Samples `tex` with `sampler` at uv = `uv_scale` × the target position (0..1 across the
/// target) + `uv_offset`, explicit level `lod` when given.
const SAMPLE_WGSL: &str = r#"
struct Params {
    uv_scale: vec2<f32>,
    uv_offset: vec2<f32>,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var tex_sampler: sampler;
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}
@vertex
fn vs(@builtin(vertex_index) i: u32) -> Out {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    var out: Out;
    out.position = vec4<f32>(p[i], 0.5, 1.0);
    let st = vec2<f32>(p[i].x * 0.5 + 0.5, 0.5 - p[i].y * 0.5);
    out.uv = st * params.uv_scale + params.uv_offset;
    return out;
}
@fragment
fn fs(in: Out) -> @location(0) vec4<f32> {
    return textureSample(tex, tex_sampler, in.uv);
}
"#;

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// Draws `tex` sampled over a `w`×`h` target of `format`.
fn sample_into(
    device: &dyn GraphicsDevice,
    tex: &TextureHandle,
    sampler: &SamplerDescriptor,
    (w, h, format): (u32, u32, TextureFormat),
    uv_scale: [f32; 2],
    uv_offset: [f32; 2],
) -> Result<f3d_hal::ReadbackImage, Verdict> {
    let t = target(device, w, h, format)?;
    let p = pipeline_from(device, SAMPLE_WGSL, ("vs", "fs"), &[format], |_| {})?;
    let s = device.create_sampler(sampler).ctx("create_sampler")?;
    render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        crate::ensure!(
            pass.bind_uniform_block(
                "params",
                &floats(&[uv_scale[0], uv_scale[1], uv_offset[0], uv_offset[1]])
            ),
            "params refused"
        );
        crate::ensure!(pass.bind_texture("tex", tex, &s), "binding the texture was refused");
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })
}

fn rgba_texture(
    device: &dyn GraphicsDevice,
    w: u32,
    h: u32,
    texels: &[[u8; 4]],
) -> Result<TextureHandle, Verdict> {
    let t = device
        .create_texture(&TextureDescriptor::new_2d("texture", w, h, TextureFormat::Rgba8Unorm))
        .ctx("create texture")?;
    let bytes: Vec<u8> = texels.iter().flatten().copied().collect();
    device.write_texture(&t, TextureRegion::full(t.descriptor()), &bytes).ctx("upload")?;
    Ok(t)
}

fn filtering(device: &dyn GraphicsDevice) -> CheckResult {
    // A 2x1 texture, black then white, stretched over 8 pixels.
    let tex = rgba_texture(device, 2, 1, &[[0, 0, 0, 255], [255, 255, 255, 255]])?;
    let nearest = sample_into(
        device,
        &tex,
        &SamplerDescriptor::nearest(AddressMode::ClampToEdge),
        (8, 1, TextureFormat::Rgba8Unorm),
        [1.0, 1.0],
        [0.0, 0.0],
    )?;
    for x in 0..8u32 {
        let expected = if x < 4 { 0 } else { 255 };
        ensure!(nearest.rgba8(x, 0)[0] == expected, "nearest: column {x} is {:?}", nearest.rgba8(x, 0));
    }
    let linear = sample_into(
        device,
        &tex,
        &SamplerDescriptor::linear(AddressMode::ClampToEdge),
        (8, 1, TextureFormat::Rgba8Unorm),
        [1.0, 1.0],
        [0.0, 0.0],
    )?;
    for x in 0..8u32 {
        // u = (x + 0.5) / 8; texel space u * 2 - 0.5; weight of the white texel, clamped.
        let t = ((x as f32 + 0.5) / 8.0 * 2.0 - 0.5).clamp(0.0, 1.0);
        let expected = (t * 255.0).round() as i32;
        let got = i32::from(linear.rgba8(x, 0)[0]);
        ensure!((got - expected).abs() <= 2, "linear: column {x} is {got}, expected {expected} ± 2");
    }
    Ok(())
}

fn mip_selection(device: &dyn GraphicsDevice) -> CheckResult {
    // A 16x16 texture whose level 0 is red, level 1 green, level 2 blue: drawn over a 4x4
    // target, each pixel steps 4 texels, so level 2 is sampled (nearest mip filter).
    let desc = TextureDescriptor::new_2d("mips", 16, 16, TextureFormat::Rgba8Unorm).with_mips(3);
    let t = device.create_texture(&desc).ctx("create")?;
    for (level, color) in [[255u8, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]].into_iter().enumerate() {
        let region = TextureRegion::level(&desc, level as u32, 0);
        let data: Vec<u8> = (0..region.width * region.height).flat_map(|_| color).collect();
        device.write_texture(&t, region, &data).ctx("upload level")?;
    }
    let sampler = SamplerDescriptor {
        min_filter: FilterMode::Nearest,
        mipmap_filter: FilterMode::Nearest,
        ..SamplerDescriptor::default()
    };
    let image = sample_into(device, &t, &sampler, (4, 4, TextureFormat::Rgba8Unorm), [1.0, 1.0], [0.0, 0.0])?;
    expect_uniform(&image, [0, 0, 255, 255], "16 texels over 4 pixels must sample level 2")?;
    let image = sample_into(device, &t, &sampler, (8, 8, TextureFormat::Rgba8Unorm), [1.0, 1.0], [0.0, 0.0])?;
    expect_uniform(&image, [0, 255, 0, 255], "16 texels over 8 pixels must sample level 1")?;
    let clamped = SamplerDescriptor { lod_max_clamp: 0.0, ..sampler };
    let image = sample_into(device, &t, &clamped, (4, 4, TextureFormat::Rgba8Unorm), [1.0, 1.0], [0.0, 0.0])?;
    expect_uniform(&image, [255, 0, 0, 255], "lod_max_clamp 0 must keep level 0")
}

fn address_modes(device: &dyn GraphicsDevice) -> CheckResult {
    // Texels 0..4 across; sampled at u from -1 to 2 (12 pixels, 3 texture widths).
    let texels: Vec<[u8; 4]> = (0..4u8).map(|i| [i * 60, 0, 0, 255]).collect();
    let tex = rgba_texture(device, 4, 1, &texels)?;
    for (mode, pattern) in [
        (AddressMode::Repeat, [0u8, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]),
        (AddressMode::ClampToEdge, [0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3]),
        (AddressMode::MirrorRepeat, [3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0]),
    ] {
        let image = sample_into(
            device,
            &tex,
            &SamplerDescriptor::nearest(mode),
            (12, 1, TextureFormat::Rgba8Unorm),
            [3.0, 1.0],
            [-1.0, 0.0],
        )?;
        for x in 0..12u32 {
            let expected = pattern[x as usize] * 60;
            ensure!(
                image.rgba8(x, 0)[0] == expected,
                "{mode:?}: column {x} is {}, expected texel {}",
                image.rgba8(x, 0)[0],
                pattern[x as usize]
            );
        }
    }
    Ok(())
}

const CUBE_WGSL: &str = r#"
@group(0) @binding(0) var cube: texture_cube<f32>;
@group(0) @binding(1) var cube_sampler: sampler;
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var dirs = array<vec3<f32>, 6>(
        vec3<f32>(1.0, 0.1, 0.2), vec3<f32>(-1.0, -0.2, 0.1), vec3<f32>(0.1, 1.0, -0.2),
        vec3<f32>(0.2, -1.0, 0.1), vec3<f32>(-0.1, 0.2, 1.0), vec3<f32>(0.2, 0.1, -1.0),
    );
    return textureSample(cube, cube_sampler, dirs[u32(p.x)]);
}
"#;

fn cube_faces(device: &dyn GraphicsDevice) -> CheckResult {
    let cube = device
        .create_texture(&TextureDescriptor::new_cube("cube", 4, TextureFormat::Rgba8Unorm))
        .ctx("create cube")?;
    let colors: [[u8; 4]; 6] = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 0, 255],
        [0, 255, 255, 255],
        [255, 0, 255, 255],
    ];
    for (face, color) in colors.iter().enumerate() {
        let data: Vec<u8> = (0..16).flat_map(|_| *color).collect();
        device
            .write_texture(&cube, TextureRegion::rect(0, 0, 4, 4).on(0, face as u32), &data)
            .ctx("upload face")?;
    }
    let t = target(device, 6, 1, TextureFormat::Rgba8Unorm)?;
    let p = pipeline_from(device, CUBE_WGSL, ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |_| {})?;
    let s =
        device.create_sampler(&SamplerDescriptor::nearest(AddressMode::ClampToEdge)).ctx("create_sampler")?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        ensure!(pass.bind_texture("cube", &cube, &s), "binding the cube was refused");
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    let names = ["+X", "-X", "+Y", "-Y", "+Z", "-Z"];
    for (face, color) in colors.iter().enumerate() {
        ensure!(
            image.rgba8(face as u32, 0) == *color,
            "a direction towards {} sampled {:?}, that face holds {color:?}",
            names[face],
            image.rgba8(face as u32, 0)
        );
    }
    Ok(())
}

fn float_texture(device: &dyn GraphicsDevice) -> CheckResult {
    crate::draw::require_sampled(device, TextureFormat::Rgba32Float)?;
    crate::draw::require_sampled(device, TextureFormat::Rgba16Float)?;
    let values = [-2.5f32, 0.0, 1.5, 1000.25, 0.125, -0.0625, 3.0, 1.0];
    let desc = TextureDescriptor::new_2d("floats", 2, 1, TextureFormat::Rgba32Float);
    let t = device.create_texture(&desc).ctx("create")?;
    device.write_texture(&t, TextureRegion::full(&desc), &floats(&values)).ctx("upload")?;
    let image = sample_into(
        device,
        &t,
        &SamplerDescriptor::nearest(AddressMode::ClampToEdge),
        (2, 1, TextureFormat::Rgba32Float),
        [1.0, 1.0],
        [0.0, 0.0],
    )?;
    for x in 0..2u32 {
        let got = image.texel_f32(x, 0);
        let want = &values[x as usize * 4..x as usize * 4 + 4];
        ensure!(got == want, "texel {x} of an Rgba32Float texture sampled as {got:?}, expected {want:?}");
    }
    let half = TextureDescriptor::new_2d("halves", 1, 1, TextureFormat::Rgba16Float);
    let h = device.create_texture(&half).ctx("create")?;
    let bytes: Vec<u8> =
        [-2.5f32, 0.5, 1024.0, 65504.0].iter().flat_map(|v| f3d_hal::f32_to_f16(*v).to_le_bytes()).collect();
    device.write_texture(&h, TextureRegion::full(&half), &bytes).ctx("upload")?;
    let image = sample_into(
        device,
        &h,
        &SamplerDescriptor::nearest(AddressMode::ClampToEdge),
        (1, 1, TextureFormat::Rgba32Float),
        [1.0, 1.0],
        [0.0, 0.0],
    )?;
    ensure!(
        image.texel_f32(0, 0) == [-2.5, 0.5, 1024.0, 65504.0],
        "an Rgba16Float texture sampled as {:?}",
        image.texel_f32(0, 0)
    );
    Ok(())
}

const VERTEX_TEXTURE_WGSL: &str = r#"
@group(0) @binding(0) var offsets: texture_2d<f32>;
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(0.0, -1.0), vec2<f32>(-1.0, 1.0),
        vec2<f32>(-1.0, 1.0), vec2<f32>(0.0, -1.0), vec2<f32>(0.0, 1.0),
    );
    let shift = textureLoad(offsets, vec2<i32>(0, 0), 0).x;
    return vec4<f32>(p[i].x + shift, p[i].y, 0.5, 1.0);
}
@fragment
fn fs() -> @location(0) vec4<f32> {
    return vec4<f32>(0.0, 1.0, 0.0, 1.0);
}
"#;

fn vertex_stage_texture(device: &dyn GraphicsDevice) -> CheckResult {
    crate::draw::require_sampled(device, TextureFormat::R32Float)?;
    let desc = TextureDescriptor::new_2d("offsets", 1, 1, TextureFormat::R32Float);
    let tex = device.create_texture(&desc).ctx("create")?;
    device.write_texture(&tex, TextureRegion::full(&desc), &1.0f32.to_le_bytes()).ctx("upload")?;
    let t = target(device, 8, 4, TextureFormat::Rgba8Unorm)?;
    let p = pipeline_from(device, VERTEX_TEXTURE_WGSL, ("vs", "fs"), &[TextureFormat::Rgba8Unorm], |_| {})?;
    let s = device.create_sampler(&SamplerDescriptor::default()).ctx("create_sampler")?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        ensure!(pass.bind_texture("offsets", &tex, &s), "binding a texture to the vertex stage was refused");
        pass.draw(0..6, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    ensure!(
        image.rgba8(1, 2) == [0, 0, 0, 255],
        "the left half was drawn: the vertex stage did not read the offset"
    );
    ensure!(
        image.rgba8(6, 2) == rgba8(GREEN),
        "the right half was not drawn: the vertex stage did not read the offset"
    );
    Ok(())
}

fn render_into_face_and_level(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = TextureDescriptor::new_cube("cube target", 8, TextureFormat::Rgba8Unorm).with_mips(2);
    let cube = device.create_texture(&desc).ctx("create")?;
    for level in 0..2 {
        for face in 0..6 {
            crate::support::clear_at(device, &cube, level, face, Color::BLACK)?;
        }
    }
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |_| {})?;
    let mut attachment = ColorAttachment::clear(&cube, Color::BLUE);
    attachment.view.mip_level = 1;
    attachment.view.layer = 3;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("face 3 level 1", attachment))
        .ctx("begin_render_pass")?;
    crate::draw::draw_vertices(device, &mut *pass, &p, &quad(-1.0, -1.0, 0.0, 1.0, 0.5, GREEN))?;
    pass.submit().ctx("submit")?;
    crate::draw::drew_or_decline(device, &p)?;
    let image = read_at(device, &cube, 1, 3)?;
    ensure!(
        (image.width, image.height) == (4, 4),
        "level 1 of an 8x8 cube read back {}x{}",
        image.width,
        image.height
    );
    for x in 0..4 {
        let expected = if x < 2 { rgba8(GREEN) } else { [0, 0, 255, 255] };
        ensure!(image.rgba8(x, 1) == expected, "face 3 level 1 column {x} is {:?}", image.rgba8(x, 1));
    }
    expect_uniform(&read_at(device, &cube, 0, 3)?, [0, 0, 0, 255], "level 0 of face 3")?;
    expect_uniform(&read_at(device, &cube, 1, 2)?, [0, 0, 0, 255], "level 1 of face 2")
}

fn anisotropy(device: &dyn GraphicsDevice) -> CheckResult {
    let max = device.limits().max_sampler_anisotropy;
    let s = device
        .create_sampler(&SamplerDescriptor {
            max_anisotropy: 64,
            ..SamplerDescriptor::linear(AddressMode::Repeat)
        })
        .map_err(|e| Verdict::Failed(format!("anisotropy 64 was refused instead of clamped: {e}")))?;
    ensure!(
        s.descriptor().max_anisotropy <= max.max(1),
        "anisotropy 64 became {}, above the limit {max}",
        s.descriptor().max_anisotropy
    );
    let tex = rgba_texture(device, 1, 1, &[[0, 255, 0, 255]])?;
    let image =
        sample_into(device, &tex, s.descriptor(), (4, 4, TextureFormat::Rgba8Unorm), [1.0, 1.0], [0.0, 0.0])?;
    expect_uniform(&image, rgba8(GREEN), "sampling with a clamped anisotropic sampler")
}

const LOAD_WGSL: &str = r#"
@group(0) @binding(0) var tex: texture_2d<f32>;
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}
@fragment
fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let size = textureDimensions(tex, 1);
    let levels = textureNumLevels(tex);
    let texel = textureLoad(tex, vec2<i32>(i32(p.x) % 2, 0), 1);
    return vec4<f32>(texel.x, f32(size.x), f32(size.y), f32(levels));
}
"#;

fn load_and_dimensions(device: &dyn GraphicsDevice) -> CheckResult {
    crate::draw::require_sampled(device, TextureFormat::R32Float)?;
    let desc = TextureDescriptor::new_2d("load", 4, 2, TextureFormat::R32Float).with_mips(2);
    let tex = device.create_texture(&desc).ctx("create")?;
    device
        .write_texture(&tex, TextureRegion::level(&desc, 1, 0), &floats(&[7.0, 9.0]))
        .ctx("upload level 1")?;
    let t = target(device, 2, 1, TextureFormat::Rgba32Float)?;
    let p = pipeline_from(device, LOAD_WGSL, ("vs", "fs"), &[TextureFormat::Rgba32Float], |_| {})?;
    let s = device.create_sampler(&SamplerDescriptor::default()).ctx("create_sampler")?;
    let image = render(device, &t, Color::BLACK, None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        ensure!(pass.bind_texture("tex", &tex, &s), "binding was refused");
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })?;
    ensure!(
        image.texel_f32(0, 0) == [7.0, 2.0, 1.0, 2.0],
        "textureLoad/Dimensions/NumLevels gave {:?}",
        image.texel_f32(0, 0)
    );
    ensure!(
        image.texel_f32(1, 0)[0] == 9.0,
        "textureLoad of texel (1, 0) at level 1 gave {}",
        image.texel_f32(1, 0)[0]
    );
    Ok(())
}
