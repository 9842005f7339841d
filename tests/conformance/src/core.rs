//! `CORE`: clears, uploads, readback and their rules — what every device does.

use f3d_hal::{
    Color, ColorAttachment, DepthStencilAttachment, DeviceError, DeviceFeature, GeometryDescriptor,
    GraphicsDevice, RenderPassDescriptor, ScissorRect, TextureDescriptor, TextureDimension, TextureFormat,
    TextureRegion, TextureUsages, readback_format,
};

use crate::support::{clear, clear_at, expect_uniform, pattern, read, read_at, rgba8, unorm8};
use crate::{Check, CheckFn, CheckResult, Context, Tier, ensure, fail};

pub(crate) fn checks() -> Vec<Check> {
    let c = |name, f| Check { tier: Tier::Core, name, run: CheckFn::Device(f) };
    vec![
        c("clear_and_readback", clear_and_readback),
        c("readback_rows_from_top", readback_rows_from_top),
        c("readback_sees_submitted_work_only", readback_sees_submitted_work_only),
        c("clear_ignores_scissor", clear_ignores_scissor),
        c("wrong_size_upload_refused", wrong_size_upload_refused),
        c("region_overwrite_changes_only_region", region_overwrite_changes_only_region),
        c("format_queries_answer", format_queries_answer),
        c("round_trip_every_supported_format", round_trip_every_supported_format),
        c("readback_region_rules", readback_region_rules),
        c("readback_conversion", readback_conversion),
        c("pass_touches_only_its_attachment", pass_touches_only_its_attachment),
        c("absurd_descriptors_refused", absurd_descriptors_refused),
        c("geometry_bounds", geometry_bounds),
    ]
}

fn clear_and_readback(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 13, 7)?;
    for color in [Color::new(0.2, 0.4, 0.6, 1.0), Color::new(1.0, 0.0, 0.5, 0.25)] {
        clear(device, &t, color)?;
        let image = read(device, &t)?;
        ensure!(image.format == TextureFormat::Rgba8Unorm, "Rgba8Unorm read back as {}", image.format);
        expect_uniform(&image, unorm8(color), "after a clear")?;
    }
    Ok(())
}

fn readback_rows_from_top(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 4, 4)?;
    // Row y holds (10 * y, x, 200, 255): unambiguous in both axes.
    let data: Vec<u8> = (0..4u8).flat_map(|y| (0..4u8).flat_map(move |x| [10 * y, x, 200, 255])).collect();
    device.write_texture(&t, TextureRegion::full(t.descriptor()), &data).ctx("write_texture")?;
    let image = read(device, &t)?;
    for y in 0..4u32 {
        for x in 0..4u32 {
            let got = image.rgba8(x, y);
            ensure!(
                got[..2] == [10 * y as u8, x as u8],
                "texel ({x}, {y}) holds the upload's ({}, {}): rows or columns are not in upload order (row 0 = top)",
                got[1],
                got[0] / 10
            );
        }
    }
    // A region starting at row 2 starts with upload row 2.
    let part = device.readback(&t, TextureRegion::rect(1, 2, 2, 2)).ctx("readback")?.wait().ctx("wait")?;
    ensure!(
        part.rgba8(0, 0)[..2] == [20, 1],
        "region (1, 2) starts with {:?}, expected row 2 column 1",
        part.rgba8(0, 0)
    );
    Ok(())
}

fn readback_sees_submitted_work_only(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 8, 8)?;
    clear(device, &t, Color::RED)?;
    let pending = device.readback(&t, TextureRegion::full(t.descriptor())).ctx("readback")?;
    clear(device, &t, Color::BLUE)?;
    // A pass begun but not yet submitted must not show either.
    let unsubmitted = device
        .begin_render_pass(&RenderPassDescriptor::color(
            "unsubmitted",
            ColorAttachment::clear(&t, Color::GREEN),
        ))
        .ctx("begin_render_pass")?;
    let early = device.readback(&t, TextureRegion::full(t.descriptor())).ctx("readback")?;
    unsubmitted.submit().ctx("submit")?;
    expect_uniform(
        &pending.wait().ctx("wait")?,
        [255, 0, 0, 255],
        "asked after the red clear, before the blue one",
    )?;
    expect_uniform(
        &early.wait().ctx("wait")?,
        [0, 0, 255, 255],
        "asked while a green pass was still unsubmitted",
    )?;
    expect_uniform(&read(device, &t)?, [0, 255, 0, 255], "after the green pass was submitted")
}

fn clear_ignores_scissor(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 16, 16)?;
    clear(device, &t, Color::BLUE)?;
    let mut pass = device
        .begin_render_pass(&RenderPassDescriptor::color("clear", ColorAttachment::clear(&t, Color::RED)))
        .ctx("begin_render_pass")?;
    pass.set_scissor(Some(ScissorRect { x: 2, y: 2, width: 3, height: 3 })).ctx("set_scissor")?;
    pass.submit().ctx("submit")?;
    expect_uniform(&read(device, &t)?, [255, 0, 0, 255], "a clear with a scissor set afterwards")?;
    // The next pass inherits no scissor either: its clear covers everything too.
    clear(device, &t, Color::GREEN)?;
    expect_uniform(&read(device, &t)?, [0, 255, 0, 255], "the next pass's clear")
}

fn wrong_size_upload_refused(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 4, 4)?;
    clear(device, &t, Color::GREEN)?;
    let region = TextureRegion::full(t.descriptor());
    for len in [63usize, 65, 0, 16] {
        match device.write_texture(&t, region, &vec![7u8; len]) {
            Err(DeviceError::DataSize { expected: 64, given, .. }) if given == len as u64 => {}
            other => {
                return fail(format!("an upload of {len} bytes into 4x4 RGBA8 (64 bytes) gave {other:?}"));
            }
        }
    }
    expect_uniform(&read(device, &t)?, [0, 255, 0, 255], "after refused uploads")
}

fn region_overwrite_changes_only_region(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 6, 5)?;
    clear(device, &t, Color::BLACK)?;
    let (x0, y0, w, h) = (1u32, 2u32, 3u32, 2u32);
    let data: Vec<u8> = (0..w * h).flat_map(|i| [i as u8 + 1, 100, 0, 255]).collect();
    device.write_texture(&t, TextureRegion::rect(x0, y0, w, h), &data).ctx("write_texture")?;
    let image = read(device, &t)?;
    for y in 0..5 {
        for x in 0..6 {
            let inside = (x0..x0 + w).contains(&x) && (y0..y0 + h).contains(&y);
            let expected =
                if inside { [((y - y0) * w + (x - x0)) as u8 + 1, 100, 0, 255] } else { [0, 0, 0, 255] };
            ensure!(
                image.rgba8(x, y) == expected,
                "texel ({x}, {y}) is {:?}, expected {expected:?}",
                image.rgba8(x, y)
            );
        }
    }
    Ok(())
}

fn usage_for(device: &dyn GraphicsDevice, format: TextureFormat) -> TextureUsages {
    let s = device.texture_format_support(format);
    let mut usage = TextureUsages::COPY_DST | TextureUsages::COPY_SRC;
    if s.sampled {
        usage |= TextureUsages::SAMPLED;
    }
    if s.renderable {
        usage |= TextureUsages::RENDER_ATTACHMENT;
    }
    usage
}

fn format_queries_answer(device: &dyn GraphicsDevice) -> CheckResult {
    for &format in TextureFormat::ALL {
        let s = device.texture_format_support(format);
        let facts = format.facts();
        ensure!(!s.renderable || s.create, "{format}: renderable but cannot be created");
        ensure!(!s.filterable || s.sampled, "{format}: filterable but not sampled");
        ensure!(!s.blendable || s.renderable, "{format}: blendable but not renderable");
        ensure!(!s.renderable || facts.renderable, "{format}: renderable, which the format table forbids");
        ensure!(!s.blendable || facts.blendable, "{format}: blendable, which the format table forbids");
        let (w, h) = facts.block_size;
        let desc = TextureDescriptor::new_2d("format query", w * 2, h * 2, format)
            .with_usage(usage_for(device, format));
        let created = device.create_texture(&desc);
        match (&created, s.create) {
            (Ok(_), true) | (Err(_), false) => {}
            (Ok(_), false) => {
                return fail(format!("{format}: support says it cannot be created, but it was"));
            }
            (Err(e), true) => return fail(format!("{format}: support says it can be created, but: {e}")),
        }
        if let (Ok(t), true) = (&created, s.renderable) {
            let pass = if format.is_color() {
                RenderPassDescriptor::color("render check", ColorAttachment::clear(t, Color::BLACK))
            } else {
                RenderPassDescriptor {
                    label: "render check".into(),
                    depth_stencil_attachment: Some(DepthStencilAttachment::clear(t, 1.0)),
                    ..Default::default()
                }
            };
            let encoder =
                device.begin_render_pass(&pass).ctx(&format!("{format}: renderable, but a pass on it"))?;
            encoder.submit().ctx(&format!("{format}: submit"))?;
        }
    }
    Ok(())
}

fn round_trip_every_supported_format(device: &dyn GraphicsDevice) -> CheckResult {
    let copies = device.features().has(DeviceFeature::COPY_TEXTURE);
    for (i, &format) in TextureFormat::ALL.iter().enumerate() {
        let s = device.texture_format_support(format);
        if !s.create || !format.is_color() {
            continue;
        }
        let (bw, bh) = format.facts().block_size;
        let (w, h) = (bw * 3, bh * 2);
        let desc =
            TextureDescriptor::new_2d("round trip", w, h, format).with_usage(usage_for(device, format));
        let t = device.create_texture(&desc).ctx(&format!("{format}: create"))?;
        let data = pattern(format, w, h, i as u64);
        device.write_texture(&t, TextureRegion::full(&desc), &data).ctx(&format!("{format}: upload"))?;
        if format.is_compressed() {
            // Uploads must work; readback of block formats is refused by the shared rule.
            ensure!(
                device.readback(&t, TextureRegion::full(&desc)).is_err(),
                "{format}: a compressed texture was read back"
            );
            continue;
        }
        let raw_equal = |image: &f3d_hal::ReadbackImage, expected: &[u8], what: &str| -> CheckResult {
            let want = expected_readback(format, expected);
            ensure!(
                image.data == want,
                "{format}: {what} did not round-trip ({} bytes differ)",
                count_diff(&image.data, &want)
            );
            Ok(())
        };
        raw_equal(&read(device, &t)?, &data, "an upload")?;
        // Overwrite the top-right block with another pattern; the rest stays.
        let patch = pattern(format, bw, bh, 1000 + i as u64);
        device
            .write_texture(&t, TextureRegion::rect(w - bw, 0, bw, bh), &patch)
            .ctx(&format!("{format}: overwrite"))?;
        let mut expected = data.clone();
        let row = format.row_bytes(w) as usize;
        let patch_row = format.row_bytes(bw) as usize;
        expected[row - patch_row..row].copy_from_slice(&patch[..patch_row]);
        raw_equal(&read(device, &t)?, &expected, "an overwrite")?;
        if copies {
            let other = device.create_texture(&desc).ctx(&format!("{format}: create copy target"))?;
            device
                .copy_texture(&t, TextureRegion::full(&desc), &other, TextureRegion::full(&desc))
                .ctx(&format!("{format}: copy"))?;
            raw_equal(&read(device, &other)?, &expected, "a copy")?;
        }
    }
    Ok(())
}

fn count_diff(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len())
}

fn readback_region_rules(device: &dyn GraphicsDevice) -> CheckResult {
    let t = rgba8(device, 8, 4)?;
    let refused = |region: TextureRegion, what: &str| -> CheckResult {
        match device.readback(&t, region) {
            Err(DeviceError::OutOfBounds { .. }) => Ok(()),
            Err(other) => fail(format!("{what}: refused, but as {other} rather than out of bounds")),
            Ok(_) => fail(format!("{what}: not refused")),
        }
    };
    refused(TextureRegion::rect(6, 0, 3, 1), "a region one texel past the right edge")?;
    refused(TextureRegion::rect(0, 3, 1, 2), "a region one row past the bottom")?;
    refused(TextureRegion::rect(u32::MAX, 0, 2, 1), "a region whose edge overflows")?;
    refused(TextureRegion::rect(0, 0, 8, 4).on(1, 0), "mip level 1 of a one-level texture")?;
    refused(TextureRegion::rect(0, 0, 8, 4).on(0, 1), "layer 1 of a one-layer texture")?;
    refused(TextureRegion::rect(0, 0, 0, 4), "an empty region")?;
    // Depth formats are refused, whichever the device supports.
    let depth = [TextureFormat::Depth32Float, TextureFormat::Depth24Plus, TextureFormat::Depth16Unorm]
        .into_iter()
        .find(|f| device.texture_format_support(*f).create);
    if let Some(format) = depth {
        let d =
            device.create_texture(&TextureDescriptor::new_2d("depth", 4, 4, format)).ctx("create depth")?;
        ensure!(
            matches!(
                device.readback(&d, TextureRegion::full(d.descriptor())),
                Err(DeviceError::Refused { .. })
            ),
            "reading back {format} was not refused"
        );
    }
    if device.features().has(DeviceFeature::MSAA) {
        let m = device
            .create_texture(
                &TextureDescriptor::new_2d("msaa", 4, 4, TextureFormat::Rgba8Unorm)
                    .with_samples(4)
                    .with_usage(TextureUsages::RENDER_ATTACHMENT | TextureUsages::COPY_SRC),
            )
            .ctx("create multisampled")?;
        ensure!(
            matches!(
                device.readback(&m, TextureRegion::full(m.descriptor())),
                Err(DeviceError::Refused { .. })
            ),
            "reading back a multisampled texture was not refused"
        );
    }
    let no_src = device
        .create_texture(
            &TextureDescriptor::new_2d("no copy src", 4, 4, TextureFormat::Rgba8Unorm)
                .with_usage(TextureUsages::COPY_DST),
        )
        .ctx("create")?;
    ensure!(
        matches!(
            device.readback(&no_src, TextureRegion::full(no_src.descriptor())),
            Err(DeviceError::MissingUsage { usage: "COPY_SRC", .. })
        ),
        "reading back a texture without COPY_SRC was not refused as a missing usage"
    );
    Ok(())
}

/// What reading back the tightly packed texels `raw` of `format` must give, worked out here
/// from the readback rule's words — 8-bit formats widen to RGBA8 (missing channels 0, missing
/// alpha 255), BGRA comes back as RGBA, 10-bit channels scale to 8 bits rounded to nearest
/// and 2-bit alpha to 0/85/170/255, everything else as stored — and not with the HAL's
/// `convert_for_readback`, which the backends themselves call: a mistake there would agree
/// with itself.
fn expected_readback(format: TextureFormat, raw: &[u8]) -> Vec<u8> {
    use TextureFormat as F;
    let texel = format.facts().block_bytes as usize;
    let mut out = Vec::new();
    for t in raw.chunks_exact(texel.max(1)) {
        match format {
            F::R8Unorm => out.extend([t[0], 0, 0, 255]),
            F::Rg8Unorm => out.extend([t[0], t[1], 0, 255]),
            F::Bgra8Unorm | F::Bgra8UnormSrgb => out.extend([t[2], t[1], t[0], t[3]]),
            F::Rgb10a2Unorm => {
                let v =
                    u32::from(t[0]) | u32::from(t[1]) << 8 | u32::from(t[2]) << 16 | u32::from(t[3]) << 24;
                // x / 1023 of 255, to nearest (no ten-bit value lands on a half).
                let ten = |shift: u32| (((v >> shift) & 1023) * 255 + 511) / 1023;
                out.extend([ten(0), ten(10), ten(20), (v >> 30) * 85].map(|c| c as u8));
            }
            _ => out.extend_from_slice(t),
        }
    }
    out
}

fn readback_conversion(device: &dyn GraphicsDevice) -> CheckResult {
    use TextureFormat as F;
    // Expected by hand: (format, uploaded texel, texel read back, format read back).
    let cases: [(F, &[u8], &[u8], F); 9] = [
        (F::Rgba8Unorm, &[1, 2, 3, 4], &[1, 2, 3, 4], F::Rgba8Unorm),
        (F::Rgba8UnormSrgb, &[1, 2, 3, 4], &[1, 2, 3, 4], F::Rgba8UnormSrgb),
        (F::Bgra8Unorm, &[1, 2, 3, 4], &[3, 2, 1, 4], F::Rgba8Unorm),
        (F::Bgra8UnormSrgb, &[1, 2, 3, 4], &[3, 2, 1, 4], F::Rgba8UnormSrgb),
        // r = 1023, g = 512, b = 0, a = 1: 255, 128 (127.6), 0, 85.
        (F::Rgb10a2Unorm, &[0xff, 0x03, 0x08, 0x40], &[255, 128, 0, 85], F::Rgba8Unorm),
        (
            F::Rgba16Float,
            &[0, 0x3c, 0, 0xc0, 0, 0, 0, 0x3c],
            &[0, 0x3c, 0, 0xc0, 0, 0, 0, 0x3c],
            F::Rgba16Float,
        ),
        (F::R8Unorm, &[9], &[9, 0, 0, 255], F::Rgba8Unorm),
        (F::Rg8Unorm, &[9, 8], &[9, 8, 0, 255], F::Rgba8Unorm),
        (F::R32Uint, &[0x78, 0x56, 0x34, 0x12], &[0x78, 0x56, 0x34, 0x12], F::R32Uint),
    ];
    for (format, texel, back, back_format) in cases {
        if !device.texture_format_support(format).create {
            continue;
        }
        ensure!(
            readback_format(format) == back_format,
            "the shared rule reads {format} back as {}",
            readback_format(format)
        );
        let t =
            device.create_texture(&TextureDescriptor::new_2d("conversion", 1, 1, format)).ctx("create")?;
        device.write_texture(&t, TextureRegion::rect(0, 0, 1, 1), texel).ctx("upload")?;
        let image = read(device, &t)?;
        ensure!(
            image.format == back_format,
            "{format} came back as {}, the shared rule says {back_format}",
            image.format
        );
        ensure!(
            image.data == back,
            "{format} texel {texel:?} came back as {:?}, expected {back:?}",
            image.data
        );
    }
    // Every format the device creates comes back in the format the shared rule names.
    for &format in TextureFormat::ALL {
        if !device.texture_format_support(format).create || !format.is_color() || format.is_compressed() {
            continue;
        }
        let t =
            device.create_texture(&TextureDescriptor::new_2d("conversion", 1, 1, format)).ctx("create")?;
        let image = read(device, &t)?;
        ensure!(image.format == readback_format(format), "{format} came back as {}", image.format);
        ensure!(
            image.data.len() == readback_format(format).facts().block_bytes as usize,
            "{format}: one texel came back as {} bytes",
            image.data.len()
        );
    }
    Ok(())
}

fn pass_touches_only_its_attachment(device: &dyn GraphicsDevice) -> CheckResult {
    let a = rgba8(device, 4, 4)?;
    let b = rgba8(device, 4, 4)?;
    clear(device, &a, Color::RED)?;
    clear(device, &b, Color::GREEN)?;
    clear(device, &a, Color::BLUE)?;
    expect_uniform(&read(device, &b)?, [0, 255, 0, 255], "texture B after clearing A")?;
    // Levels: clearing level 1 leaves levels 0 and 2.
    let desc = TextureDescriptor::new_2d("mips", 8, 8, TextureFormat::Rgba8Unorm).with_mips(3);
    let m = device.create_texture(&desc).ctx("create mipmapped")?;
    for level in 0..3 {
        clear_at(device, &m, level, 0, Color::GREEN)?;
    }
    clear_at(device, &m, 1, 0, Color::RED)?;
    for (level, expected) in [(0, [0, 255, 0, 255]), (1, [255, 0, 0, 255]), (2, [0, 255, 0, 255])] {
        let image = read_at(device, &m, level, 0)?;
        ensure!(
            (image.width, image.height) == (8 >> level, 8 >> level),
            "level {level} read back {}x{}",
            image.width,
            image.height
        );
        expect_uniform(&image, expected, &format!("level {level} after clearing level 1"))?;
    }
    // Layers: clearing face 4 of a cube leaves the other faces.
    let cube = device
        .create_texture(&TextureDescriptor::new_cube("cube", 4, TextureFormat::Rgba8Unorm))
        .ctx("create cube")?;
    ensure!(cube.descriptor().dimension == TextureDimension::Cube, "cube descriptor changed");
    for face in 0..6 {
        clear_at(device, &cube, 0, face, Color::BLACK)?;
    }
    clear_at(device, &cube, 0, 4, Color::WHITE)?;
    for face in 0..6 {
        let expected = if face == 4 { [255; 4] } else { [0, 0, 0, 255] };
        expect_uniform(
            &read_at(device, &cube, 0, face)?,
            expected,
            &format!("cube face {face} after clearing face 4"),
        )?;
    }
    Ok(())
}

fn absurd_descriptors_refused(device: &dyn GraphicsDevice) -> CheckResult {
    let max = device.limits().max_texture_dimension_2d;
    let base = TextureDescriptor::new_2d("absurd", 4, 4, TextureFormat::Rgba8Unorm);
    let cases: Vec<(TextureDescriptor, &str)> = vec![
        (TextureDescriptor { width: max + 1, ..base.clone() }, "a width one past max_texture_dimension_2d"),
        (
            TextureDescriptor { width: u32::MAX, height: u32::MAX, ..base.clone() },
            "a u32::MAX×u32::MAX texture",
        ),
        (TextureDescriptor { width: 0, ..base.clone() }, "a zero width"),
        (TextureDescriptor { mip_level_count: 4, ..base.clone() }, "4 mips on a 4x4 texture"),
        (TextureDescriptor { mip_level_count: 0, ..base.clone() }, "zero mips"),
        (TextureDescriptor { array_layers: 2, ..base.clone() }, "2 layers on a D2 texture"),
        (
            TextureDescriptor {
                dimension: TextureDimension::Cube,
                array_layers: 6,
                width: 8,
                ..base.clone()
            },
            "a non-square cube",
        ),
        (TextureDescriptor { sample_count: 3, ..base.clone() }, "3 samples"),
        (TextureDescriptor { usage: TextureUsages::empty(), ..base.clone() }, "no usage"),
        (
            TextureDescriptor {
                dimension: TextureDimension::D2Array,
                array_layers: device.limits().max_texture_array_layers + 1,
                ..base.clone()
            },
            "one layer past max_texture_array_layers",
        ),
    ];
    for (desc, what) in cases {
        match device.create_texture(&desc) {
            Ok(_) => return fail(format!("{what} was created")),
            // A case past a limit is refused as that limit, by its name.
            Err(DeviceError::LimitExceeded { limit, .. }) if what.contains("max_") => {
                ensure!(what.contains(limit), "{what}: refused naming another limit, {limit}");
            }
            Err(e) if what.contains("max_") => {
                return fail(format!("{what}: refused, but not as the limit it passes: {e}"));
            }
            Err(_) => {}
        }
    }
    // The limit itself is fine to ask for, at least for a 1-pixel-high texture.
    device
        .create_texture(&TextureDescriptor::new_2d("at the limit", max, 1, TextureFormat::R8Unorm))
        .ctx("a texture exactly max_texture_dimension_2d wide")?;
    Ok(())
}

fn geometry_bounds(device: &dyn GraphicsDevice) -> CheckResult {
    let desc = GeometryDescriptor::new("geometry", 64);
    match device.create_geometry(&desc, Some(&[0; 63])) {
        Err(DeviceError::DataSize { expected: 64, given: 63, .. }) => {}
        other => return fail(format!("63 bytes for a 64-byte buffer gave {other:?}")),
    }
    let g = device.create_geometry(&desc, Some(&[1; 64])).ctx("create_geometry")?;
    device.write_geometry(&g, 60, &[2; 4]).ctx("a write ending exactly at the end")?;
    for (offset, len) in [(61u64, 4usize), (64, 1), (u64::MAX, 2)] {
        ensure!(
            matches!(device.write_geometry(&g, offset, &vec![0; len]), Err(DeviceError::OutOfBounds { .. })),
            "a {len}-byte write at offset {offset} of a 64-byte buffer was not refused as out of bounds"
        );
    }
    ensure!(
        device.create_geometry(&GeometryDescriptor::new("empty", 0), None).is_err(),
        "a zero-sized buffer was created"
    );
    let huge = GeometryDescriptor::new("huge", device.limits().max_geometry_buffer_size + 1);
    ensure!(
        matches!(
            device.create_geometry(&huge, None),
            Err(DeviceError::LimitExceeded { limit: "max_geometry_buffer_size", .. })
        ),
        "a buffer past max_geometry_buffer_size was not refused naming the limit"
    );
    Ok(())
}
