//! The engine's noise library (`noise.wgsl`) run by the device agrees with its CPU port
//! (`f3d_materials::noise`): every integer hash bit for bit, every float noise within the
//! port's stated tolerance. One draw per function over a 16×8 target, one point per pixel;
//! the points are exact in f32 (small integers times powers of two), so no device's
//! rounding of the inputs enters the comparison.
//!
//! The points also keep at least [`FACE_MARGIN`] away from the faces of the simplex grids
//! (asserted on the CPU before drawing). 3D simplex noise, like the reference it follows, is
//! not continuous across those faces (its kernel reaches past the neighbouring simplex), so
//! a point exactly on one is decided by one rounding: the first set of points (steps of
//! 1/16) had one at `[3.8125, -0.625, 0.375]`, where the skewed x coordinate is exactly 5 and
//! an H100 took the other cell (-0.2473 against the port's -0.2460, on vulkan and wgpu), while
//! lavapipe and soft took the port's. Both are the same function; the check is about the
//! function, not about which side of a discontinuity one rounding falls.

use f3d_hal::{Color, GraphicsDevice, ReadbackImage, TextureFormat, TextureHandle};
use f3d_materials::noise;

use super::Entry;
use crate::draw::{pipeline_from, render, target};
use crate::{CheckResult, Context, Verdict, ensure, fail};

pub(crate) const CHECKS: &[Entry] = &[
    ("noise_hashes_match_the_cpu_port_bit_for_bit", hashes),
    ("noise_functions_match_the_cpu_port", floats),
];

const W: u32 = 16;
const H: u32 = 8;
const SEED: i32 = -4242;

/// The fragment's point index, its point, its integer lattice point, and the full-screen
/// triangle. `VALUE` is replaced per function.
const FRAME: &str = r#"
@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    var p = array<vec2<f32>, 3>(vec2<f32>(-1.0, -1.0), vec2<f32>(3.0, -1.0), vec2<f32>(-1.0, 3.0));
    return vec4<f32>(p[i], 0.5, 1.0);
}

fn index(pos: vec4<f32>) -> u32 {
    return u32(pos.x) + 16u * u32(pos.y);
}

fn point(i: u32) -> vec3<f32> {
    return vec3<f32>(
        f32(i % 16u) * 0.625 + 0.0654296875,
        f32(i / 16u) * 1.125 - 3.9892578125,
        f32(i) * 0.0625 - 2.9794921875,
    );
}

fn lattice(i: u32) -> vec3<i32> {
    return vec3<i32>(i32(i) * 977 - 5000, i32(i) * -131 + 7, i32(i) * 65599);
}

@fragment
fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<TYPE> {
    let i = index(pos);
    let p = point(i);
    let q = lattice(i);
    let seed = SEED;
    return vec4<TYPE>(VALUE, ZERO, ZERO, ZERO);
}
"#;

/// Point `i`: a grid of steps 0.625, 1.125 and 1/16, offset by 3, 11 and 21 1024ths so no
/// coordinate, no difference of two and no skewed coordinate is near an integer.
fn point(i: u32) -> [f32; 3] {
    [
        (i % W) as f32 * 0.625 + 67.0 / 1024.0,
        (i / W) as f32 * 1.125 - 4085.0 / 1024.0,
        i as f32 * 0.0625 - 3051.0 / 1024.0,
    ]
}

/// The least distance the points keep from the faces of the simplex grids.
const FACE_MARGIN: f64 = 1e-3;

/// How far `p` is from the nearest face of the 2D and 3D simplex grids (cell faces of the
/// skewed lattice, and the planes where two offsets inside a cell tie), in f64.
fn face_distance(p: [f32; 3]) -> f64 {
    let off_integer = |v: f64| (v - v.round()).abs();
    let [x, y, z] = p.map(f64::from);
    let skew3 = (x + y + z) / 3.0;
    let skew2 = (x + y) * (3f64.sqrt() - 1.0) / 2.0;
    [x + skew3, y + skew3, z + skew3, x + skew2, y + skew2, x - y, y - z, x - z]
        .into_iter()
        .map(off_integer)
        .fold(f64::INFINITY, f64::min)
}

fn lattice(i: u32) -> [i32; 3] {
    let i = i as i32;
    [i * 977 - 5000, i * -131 + 7, i * 65_599]
}

/// The module for one expression of type `ty` (`u32` or `f32`).
fn module_for(value: &str, ty: &str) -> String {
    let library = f3d_materials::library::file("noise.wgsl").unwrap_or_default();
    let zero = if ty == "u32" { "0u" } else { "0.0" };
    let frame = FRAME
        .replace("TYPE", ty)
        .replace("VALUE", value)
        .replace("ZERO", zero)
        .replace("SEED", &SEED.to_string());
    format!("{library}\n{frame}")
}

/// `expr` (of WGSL type `ty`) at every point, drawn into `t` (of `format`) and read back.
fn draw_points(
    device: &dyn GraphicsDevice,
    t: &TextureHandle,
    expr: &str,
    ty: &str,
    format: TextureFormat,
) -> Result<ReadbackImage, Verdict> {
    let p = pipeline_from(device, &module_for(expr, ty), ("vs", "fs"), &[format], |_| {})?;
    render(device, t, Color::new(0.0, 0.0, 0.0, 0.0), None, |pass| {
        pass.set_pipeline(&p).ctx("set_pipeline")?;
        pass.draw(0..3, 0..1).ctx("draw")?;
        Ok(vec![p.clone()])
    })
}

type Hash = (&'static str, fn(u32) -> u32);

fn hashes(device: &dyn GraphicsDevice) -> CheckResult {
    if f3d_materials::library::file("noise.wgsl").is_none() {
        return fail("the engine library has no noise.wgsl");
    }
    let cases: [Hash; 3] = [
        ("noise_hash_u32(i * 2654435761u)", |i| noise::hash_u32(i.wrapping_mul(2_654_435_761))),
        ("noise_hash2(q.xy, seed)", |i| {
            let q = lattice(i);
            noise::hash2([q[0], q[1]], SEED)
        }),
        ("noise_hash3(q, seed)", |i| noise::hash3(lattice(i), SEED)),
    ];
    let t = target(device, W, H, TextureFormat::R32Uint)?;
    for (expr, cpu) in cases {
        let image = draw_points(device, &t, expr, "u32", TextureFormat::R32Uint)?;
        for i in 0..W * H {
            let (got, want) = (image.r32uint(i % W, i / W), cpu(i));
            ensure!(
                got == want,
                "{expr} at point {i}: the device gave {got:#010x}, the CPU port {want:#010x}"
            );
        }
    }
    Ok(())
}

type Noise = (&'static str, fn([f32; 3]) -> f32, f32);

fn floats(device: &dyn GraphicsDevice) -> CheckResult {
    let tol = noise::FLOAT_TOLERANCE;
    let cases: [Noise; 12] = [
        ("noise_simplex2(p.xy, seed)", |p| noise::simplex2([p[0], p[1]], SEED), tol),
        ("noise_simplex3(p, seed)", |p| noise::simplex3(p, SEED), tol),
        ("noise_perlin2(p.xy, seed)", |p| noise::perlin2([p[0], p[1]], SEED), tol),
        ("noise_perlin3(p, seed)", |p| noise::perlin3(p, SEED), tol),
        ("noise_value2(p.xy, seed)", |p| noise::value2([p[0], p[1]], SEED), tol),
        ("noise_value3(p, seed)", |p| noise::value3(p, SEED), tol),
        ("noise_cellular2(p.xy, seed).x", |p| noise::cellular2([p[0], p[1]], SEED)[0], tol),
        ("noise_cellular2(p.xy, seed).y", |p| noise::cellular2([p[0], p[1]], SEED)[1], tol),
        ("noise_fbm2(p.xy, seed, 4)", |p| noise::fbm2([p[0], p[1]], SEED, 4), tol),
        ("noise_ridged2(p.xy, seed, 4)", |p| noise::ridged2([p[0], p[1]], SEED, 4), tol),
        ("noise_domain_warp3(p, seed, 0.5).z", |p| noise::domain_warp3(p, SEED, 0.5)[2], tol),
        ("noise_curl3(p, seed).x", |p| noise::curl3(p, SEED)[0], noise::CURL_TOLERANCE),
    ];
    if let Some(i) = (0..W * H).find(|&i| face_distance(point(i)) < FACE_MARGIN) {
        return fail(format!("the check's point {i} {:?} lies on a simplex face", point(i)));
    }
    let t = target(device, W, H, TextureFormat::R32Float)?;
    for (expr, cpu, tolerance) in cases {
        let image = draw_points(device, &t, expr, "f32", TextureFormat::R32Float)?;
        for i in 0..W * H {
            let (got, want) = (image.texel_f32(i % W, i / W)[0], cpu(point(i)));
            ensure!(
                (got - want).abs() <= tolerance,
                "{expr} at point {i} {:?}: the device gave {got}, the CPU port {want} (tolerance {tolerance})",
                point(i)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The point the H100 decided the other way lies on a face; the check's points do not.
    #[test]
    fn the_points_keep_off_the_simplex_faces() {
        assert!(face_distance([3.8125, -0.625, 0.375]) < FACE_MARGIN);
        let least = (0..W * H).map(|i| face_distance(point(i))).fold(f64::INFINITY, f64::min);
        assert!(least >= FACE_MARGIN, "{least}");
    }
}
