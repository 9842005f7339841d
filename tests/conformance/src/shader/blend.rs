//! The output merger: depth compares and writes, stencil operations, blend factors and
//! operations, write masks — each against the HAL's reference arithmetic, computed here.

use f3d_hal::{
    BlendComponent, BlendFactor, BlendOperation, BlendState, Color, ColorWrites, CompareFunction,
    DepthStencilState, DeviceFeature, GraphicsDevice, StencilFaceState, StencilOperation, StencilState,
    TextureDescriptor, TextureFormat,
};

use super::{Entry, GREEN, RED};
use crate::draw::{draw_vertices, quad, render, scene_pipeline, target};
use crate::{CheckResult, Context, Verdict, ensure};

pub(crate) const CHECKS: &[Entry] = &[
    ("depth_compare_functions", depth_compare),
    ("depth_write_false_stops_depth_writes", depth_write_off),
    ("stencil_operations", stencil_ops),
    ("blend_factors", blend_factors),
    ("blend_operations", blend_operations),
    ("blend_constant_reaches_the_blend", blend_constant),
    ("color_write_mask", write_mask),
];

fn depth_target(
    device: &dyn GraphicsDevice,
    format: TextureFormat,
) -> Result<f3d_hal::TextureHandle, Verdict> {
    device.create_texture(&TextureDescriptor::new_2d("depth", 4, 4, format)).ctx("create depth")
}

fn depth_compare(device: &dyn GraphicsDevice) -> CheckResult {
    // The depth buffer holds 0.5 (a first quad); a second quad at 0.25, 0.5 or 0.75 passes or
    // not by the reference arithmetic.
    let format = TextureFormat::Depth32Float;
    for compare in CompareFunction::ALL {
        for z in [0.25f32, 0.5, 0.75] {
            let depth = depth_target(device, format)?;
            let t = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
            let first = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
                d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Always, true))
            })?;
            let second = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
                d.depth_stencil = Some(DepthStencilState::depth(format, compare, true))
            })?;
            let image = render(device, &t, Color::BLACK, Some((&depth, 1.0)), |pass| {
                draw_vertices(device, pass, &first, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED))?;
                draw_vertices(device, pass, &second, &quad(-1.0, -1.0, 1.0, 1.0, z, GREEN))?;
                Ok(vec![first.clone(), second.clone()])
            })?;
            let passes = compare.passes(z, 0.5);
            let expected = if passes { [0, 255, 0, 255] } else { [255, 0, 0, 255] };
            ensure!(
                image.rgba8(2, 2) == expected,
                "depth {compare:?}: {z} against 0.5 {} but the pixel is {:?}",
                if passes { "passes" } else { "fails" },
                image.rgba8(2, 2)
            );
        }
    }
    Ok(())
}

fn depth_write_off(device: &dyn GraphicsDevice) -> CheckResult {
    let format = TextureFormat::Depth32Float;
    let depth = depth_target(device, format)?;
    let t = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
    let no_write = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Less, false))
    })?;
    let test = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Less, true))
    })?;
    let image = render(device, &t, Color::BLACK, Some((&depth, 1.0)), |pass| {
        // A near quad that must not write depth, then a farther one that must still pass.
        draw_vertices(device, pass, &no_write, &quad(-1.0, -1.0, 1.0, 1.0, 0.2, RED))?;
        draw_vertices(device, pass, &test, &quad(-1.0, -1.0, 1.0, 1.0, 0.8, GREEN))?;
        Ok(vec![no_write.clone(), test.clone()])
    })?;
    ensure!(
        image.rgba8(1, 1) == [0, 255, 0, 255],
        "a quad at 0.8 failed Less after a quad at 0.2 drawn with depth writes off: {:?}",
        image.rgba8(1, 1)
    );
    Ok(())
}

fn stencil_ops(device: &dyn GraphicsDevice) -> CheckResult {
    if !device.features().has(DeviceFeature::STENCIL) {
        return crate::decline(device, "does not report stencil");
    }
    let format = TextureFormat::Depth24PlusStencil8;
    for op in StencilOperation::ALL {
        for (start, fail_first) in [(5u8, false), (0, false), (255, false), (5, true)] {
            let ds = device
                .create_texture(&TextureDescriptor::new_2d("ds", 4, 4, format))
                .ctx("create depth-stencil")?;
            let t = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
            let face = |compare, pass_op, fail_op| StencilFaceState {
                compare,
                pass_op,
                fail_op,
                depth_fail_op: StencilOperation::Keep,
            };
            let state = |f: StencilFaceState| DepthStencilState {
                stencil: StencilState { front: f, back: f, read_mask: 0xff, write_mask: 0xff },
                ..DepthStencilState::depth(format, CompareFunction::Always, false)
            };
            // 1. Set the stencil to `start` (Replace with reference `start`).
            let set = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
                d.depth_stencil = Some(state(face(
                    CompareFunction::Always,
                    StencilOperation::Replace,
                    StencilOperation::Keep,
                )))
            })?;
            // 2. Apply `op` as the pass op (or as the fail op of a Never test), reference 9.
            let apply_face = if fail_first {
                face(CompareFunction::Never, StencilOperation::Keep, op)
            } else {
                face(CompareFunction::Always, op, StencilOperation::Keep)
            };
            let apply = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
                d.depth_stencil = Some(state(apply_face))
            })?;
            let expected = stencil_after(op, start)?;
            // 3. Draw green where stencil == expected.
            let probe = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
                d.depth_stencil =
                    Some(state(face(CompareFunction::Equal, StencilOperation::Keep, StencilOperation::Keep)))
            })?;
            let image = render(device, &t, Color::BLACK, Some((&ds, 1.0)), |pass| {
                pass.set_stencil_reference(u32::from(start)).ctx("set_stencil_reference")?;
                draw_vertices(device, pass, &set, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED))?;
                pass.set_stencil_reference(9).ctx("set_stencil_reference")?;
                draw_vertices(device, pass, &apply, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, RED))?;
                pass.set_stencil_reference(u32::from(expected)).ctx("set_stencil_reference")?;
                draw_vertices(device, pass, &probe, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, GREEN))?;
                Ok(vec![set.clone(), apply.clone(), probe.clone()])
            })?;
            ensure!(
                image.rgba8(2, 2) == [0, 255, 0, 255],
                "stencil {op:?} as the {} op on {start} with reference 9 should leave {expected}",
                if fail_first { "fail" } else { "pass" }
            );
        }
    }
    Ok(())
}

/// The value of blend factor `f` per channel for the source (0.2, 0.4, 0.6, 0.8), the
/// destination (0.9, 0.7, 0.5, 0.3) and the constant (0.5, 0.25, 0.125, 0.75) of
/// `blend_factors`, written out by hand rather than with the HAL's `BlendFactor::value`,
/// which the soft backend blends with.
fn factor_value(f: BlendFactor) -> [f32; 4] {
    use BlendFactor as B;
    match f {
        B::Zero => [0.0; 4],
        B::One => [1.0; 4],
        B::Src => [0.2, 0.4, 0.6, 0.8],
        B::OneMinusSrc => [0.8, 0.6, 0.4, 0.2],
        B::SrcAlpha => [0.8; 4],
        B::OneMinusSrcAlpha => [0.2; 4],
        B::Dst => [0.9, 0.7, 0.5, 0.3],
        B::OneMinusDst => [0.1, 0.3, 0.5, 0.7],
        B::DstAlpha => [0.3; 4],
        B::OneMinusDstAlpha => [0.7; 4],
        // min(source alpha, 1 − destination alpha) = min(0.8, 0.7) for colour, 1 for alpha.
        B::SrcAlphaSaturated => [0.7, 0.7, 0.7, 1.0],
        B::Constant => [0.5, 0.25, 0.125, 0.75],
        B::OneMinusConstant => [0.5, 0.75, 0.875, 0.25],
    }
}

/// The stencil value `op` leaves on `start` (5, 0 or 255) with reference 9, written out by
/// hand rather than with the HAL's `StencilOperation::apply`, which the soft backend runs.
fn stencil_after(op: StencilOperation, start: u8) -> Result<u8, Verdict> {
    use StencilOperation as S;
    let column = match start {
        5 => 0,
        0 => 1,
        255 => 2,
        other => {
            return Err(Verdict::Failed(format!("no hand-written stencil result for a start of {other}")));
        }
    };
    let row: [u8; 3] = match op {
        S::Keep => [5, 0, 255],
        S::Zero => [0, 0, 0],
        S::Replace => [9, 9, 9],
        S::Invert => [250, 255, 0],
        S::IncrementClamp => [6, 1, 255],
        S::DecrementClamp => [4, 0, 254],
        S::IncrementWrap => [6, 1, 0],
        S::DecrementWrap => [4, 255, 254],
    };
    Ok(row[column])
}

/// Draws `src` over `dst` (both straight RGBA) with `blend` into an Rgba16Float target and
/// returns the blended value.
fn blended(
    device: &dyn GraphicsDevice,
    blend: BlendState,
    src: [f32; 4],
    dst: [f32; 4],
    constant: Option<[f32; 4]>,
) -> Result<[f32; 4], Verdict> {
    let format = TextureFormat::Rgba16Float;
    if !device.texture_format_support(format).blendable {
        return Err(Verdict::Declined(format!(
            "{}: does not blend {format}, which this check needs",
            device.backend_id()
        )));
    }
    let t = target(device, 4, 4, format)?;
    let p = scene_pipeline(device, format, |d| d.color_targets[0].blend = Some(blend))?;
    let clear = Color::new(f64::from(dst[0]), f64::from(dst[1]), f64::from(dst[2]), f64::from(dst[3]));
    let image = render(device, &t, clear, None, |pass| {
        if let Some(k) = constant {
            pass.set_blend_constant(Color::new(
                f64::from(k[0]),
                f64::from(k[1]),
                f64::from(k[2]),
                f64::from(k[3]),
            ))
            .ctx("set_blend_constant")?;
        }
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, src))?;
        Ok(vec![p.clone()])
    })?;
    Ok(image.texel_f32(1, 1))
}

fn close(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 2e-3 + y.abs() * 2e-3)
}

fn blend_factors(device: &dyn GraphicsDevice) -> CheckResult {
    let (src, dst) = ([0.2, 0.4, 0.6, 0.8], [0.9, 0.7, 0.5, 0.3]);
    let k = [0.5, 0.25, 0.125, 0.75];
    let has_constant = device.features().has(DeviceFeature::BLEND_CONSTANT);
    for f in BlendFactor::ALL {
        for as_src in [true, false] {
            let comp = if as_src {
                BlendComponent {
                    src_factor: f,
                    dst_factor: BlendFactor::Zero,
                    operation: BlendOperation::Add,
                }
            } else {
                BlendComponent {
                    src_factor: BlendFactor::Zero,
                    dst_factor: f,
                    operation: BlendOperation::Add,
                }
            };
            let state = BlendState { color: comp, alpha: comp };
            if f.uses_constant() && !has_constant {
                // Not skipped: without the feature the factor must be refused, by its name.
                let desc = crate::draw::scene_pipeline_desc(device, TextureFormat::Rgba16Float, |d| {
                    d.color_targets[0].blend = Some(state)
                })?;
                crate::support::expect_unsupported(
                    device,
                    device.create_pipeline(&desc),
                    DeviceFeature::BLEND_CONSTANT,
                    &format!("a pipeline blending with {f:?}"),
                )?;
                continue;
            }
            let got = blended(device, state, src, dst, f.uses_constant().then_some(k))?;
            // The blended term alone: the factor's value times the colour it weighs.
            let weighed = if as_src { src } else { dst };
            let factor = factor_value(f);
            let want: [f32; 4] = std::array::from_fn(|c| weighed[c] * factor[c]);
            ensure!(
                close(got, want),
                "{f:?} as the {} factor gave {got:?}, reference {want:?}",
                if as_src { "source" } else { "destination" }
            );
        }
    }
    Ok(())
}

fn blend_operations(device: &dyn GraphicsDevice) -> CheckResult {
    let (src, dst) = ([0.2, 0.9, 0.6, 0.8], [0.7, 0.3, 0.5, 0.3]);
    for operation in [
        BlendOperation::Add,
        BlendOperation::Subtract,
        BlendOperation::ReverseSubtract,
        BlendOperation::Min,
        BlendOperation::Max,
    ] {
        let comp = BlendComponent {
            src_factor: BlendFactor::SrcAlpha,
            dst_factor: BlendFactor::OneMinusSrcAlpha,
            operation,
        };
        let state = BlendState { color: comp, alpha: BlendComponent::REPLACE };
        let got = blended(device, state, src, dst, None)?;
        // By hand: source terms 0.8 × src = (0.16, 0.72, 0.48), destination terms 0.2 × dst =
        // (0.14, 0.06, 0.10); min and max ignore the factors; alpha is replaced (0.8). The
        // target is a float format, so nothing is clamped.
        let rgb = match operation {
            BlendOperation::Add => [0.30, 0.78, 0.58],
            BlendOperation::Subtract => [0.02, 0.66, 0.38],
            BlendOperation::ReverseSubtract => [-0.02, -0.66, -0.38],
            BlendOperation::Min => [0.2, 0.3, 0.5],
            BlendOperation::Max => [0.7, 0.9, 0.6],
        };
        let want = [rgb[0], rgb[1], rgb[2], 0.8];
        ensure!(close(got, want), "{operation:?} gave {got:?}, reference {want:?}");
    }
    Ok(())
}

fn blend_constant(device: &dyn GraphicsDevice) -> CheckResult {
    let comp = BlendComponent {
        src_factor: BlendFactor::Constant,
        dst_factor: BlendFactor::OneMinusConstant,
        operation: BlendOperation::Add,
    };
    let state = BlendState { color: comp, alpha: comp };
    if !device.features().has(DeviceFeature::BLEND_CONSTANT) {
        let desc = crate::draw::scene_pipeline_desc(device, TextureFormat::Rgba16Float, |d| {
            d.color_targets[0].blend = Some(state)
        })?;
        return crate::support::expect_unsupported(
            device,
            device.create_pipeline(&desc),
            DeviceFeature::BLEND_CONSTANT,
            "a pipeline blending with the constant",
        );
    }
    let (src, dst, k) = ([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.25, 0.5, 0.75, 1.0]);
    let got = blended(device, state, src, dst, Some(k))?;
    ensure!(
        close(got, k),
        "white over black weighted by the constant {k:?} gave {got:?} (a zero constant would give 0)"
    );
    Ok(())
}

fn write_mask(device: &dyn GraphicsDevice) -> CheckResult {
    let t = target(device, 4, 4, TextureFormat::Rgba8Unorm)?;
    let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
        d.color_targets[0].write_mask = ColorWrites::GREEN | ColorWrites::ALPHA
    })?;
    let image = render(device, &t, Color::new(0.0, 0.0, 1.0, 0.0), None, |pass| {
        draw_vertices(device, pass, &p, &quad(-1.0, -1.0, 1.0, 1.0, 0.5, [1.0, 1.0, 0.0, 1.0]))?;
        Ok(vec![p.clone()])
    })?;
    ensure!(
        image.rgba8(1, 1) == [0, 255, 255, 255],
        "writing (1, 1, 0, 1) with mask GREEN|ALPHA over (0, 0, 1, 0) gave {:?}",
        image.rgba8(1, 1)
    );
    Ok(())
}
