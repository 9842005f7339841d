//! Image-based lighting computed on the CPU: a radiance cube prefiltered with GGX per mip
//! (mip m holds roughness m / (mips − 1), as `lighting.wgsl` reads it), nine SH irradiance
//! coefficients, and the split-sum BRDF LUT. Backend-independent; the render world runs it
//! once per distinct environment and uploads the results.

use std::f32::consts::PI;

use bevy_math::Vec3;
use rayon::prelude::*;

use super::{Environment, EnvironmentSource, EquirectImage, Sky};

/// Texels per side of the radiance cube's level 0.
pub(crate) const CUBE_SIZE: u32 = 128;
/// Texels per side of the BRDF LUT.
pub(crate) const LUT_SIZE: u32 = 64;
const PREFILTER_SAMPLES: u32 = 64;
const LUT_SAMPLES: u32 = 128;

/// What the render world uploads.
pub(crate) struct IblData {
    /// Per mip, the six faces (+X −X +Y −Y +Z −Z) one after the other, RGBA linear.
    pub radiance: Vec<Vec<[f32; 4]>>,
    /// Radiance SH (L00, L1−1, L10, L11, L2−2, L2−1, L20, L21, L22).
    pub sh: [[f32; 3]; 9],
    /// `LUT_SIZE`² (scale, bias) pairs: x = n·v, y = roughness, row 0 = roughness 0.
    pub lut: Vec<[f32; 2]>,
}

/// A source of radiance by direction.
enum Radiance<'a> {
    Sky(Sky, Vec3),
    Image(Vec<Level>, &'a EquirectImage),
}

/// One level of an equirect pyramid.
struct Level {
    width: u32,
    height: u32,
    texels: Vec<[f32; 3]>,
}

impl Radiance<'_> {
    /// Radiance along `d` (unit); `glow` adds the sun glow (skybox level only), `lod` picks a
    /// blurrier image level.
    fn sample(&self, d: Vec3, glow: bool, lod: f32) -> [f32; 3] {
        match self {
            Self::Sky(sky, sun) => sky_radiance(sky, *sun, d, glow),
            Self::Image(levels, _) => {
                let l = (lod.max(0.0) as usize).min(levels.len() - 1);
                sample_equirect(&levels[l], d)
            }
        }
    }
}

fn mix3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

fn sky_radiance(sky: &Sky, sun: Vec3, d: Vec3, glow: bool) -> [f32; 3] {
    let y = d.y;
    let mut c = if y >= 0.0 {
        mix3(sky.horizon, sky.zenith, y.powf(0.45))
    } else {
        let t = (-y / 0.08).clamp(0.0, 1.0);
        mix3(mix3(sky.horizon, sky.ground, 0.5), sky.ground, t * t * (3.0 - 2.0 * t))
    };
    if glow {
        let cos = d.dot(sun).max(0.0);
        let g = cos.powf(900.0) * 8.0 + cos.powf(24.0) * 0.06;
        for (ci, s) in c.iter_mut().zip(sky.sun_glow) {
            *ci += s * g;
        }
    }
    c
}

fn sample_equirect(level: &Level, d: Vec3) -> [f32; 3] {
    let u = 0.5 + d.z.atan2(d.x) / (2.0 * PI);
    let v = d.y.clamp(-1.0, 1.0).acos() / PI;
    let (w, h) = (level.width as f32, level.height as f32);
    let x = u * w - 0.5;
    let y = (v * h - 0.5).clamp(0.0, h - 1.0);
    let (x0, y0) = (x.floor(), y.floor());
    let (fx, fy) = (x - x0, y - y0);
    let at = |xi: f32, yi: f32| {
        let xi = (xi as i64).rem_euclid(level.width as i64) as u32;
        let yi = (yi.max(0.0) as u32).min(level.height - 1);
        level.texels[(yi * level.width + xi) as usize]
    };
    let top = mix3(at(x0, y0), at(x0 + 1.0, y0), fx);
    let bottom = mix3(at(x0, y0 + 1.0), at(x0 + 1.0, y0 + 1.0), fx);
    mix3(top, bottom, fy)
}

fn pyramid(image: &EquirectImage) -> Vec<Level> {
    let mut levels = vec![Level { width: image.width, height: image.height, texels: image.texels.clone() }];
    while let Some(last) = levels.last() {
        if last.width <= 8 || last.height <= 4 {
            break;
        }
        let (w, h) = (last.width / 2, last.height / 2);
        let mut texels = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let mut sum = [0.0; 3];
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let t = last.texels[((y * 2 + dy) * last.width + x * 2 + dx) as usize];
                    for c in 0..3 {
                        sum[c] += t[c] * 0.25;
                    }
                }
                texels.push(sum);
            }
        }
        levels.push(Level { width: w, height: h, texels });
    }
    levels
}

/// The direction through texel (`x`, `y`) of cube `face` of `size` (Vulkan/WebGPU face
/// orientation).
pub(crate) fn cube_direction(face: u32, x: u32, y: u32, size: u32) -> Vec3 {
    let s = 2.0 * (x as f32 + 0.5) / size as f32 - 1.0;
    let t = 2.0 * (y as f32 + 0.5) / size as f32 - 1.0;
    let d = match face {
        0 => Vec3::new(1.0, -t, -s),
        1 => Vec3::new(-1.0, -t, s),
        2 => Vec3::new(s, 1.0, t),
        3 => Vec3::new(s, -1.0, -t),
        4 => Vec3::new(s, -t, 1.0),
        _ => Vec3::new(-s, -t, -1.0),
    };
    d.normalize()
}

fn hammersley(i: u32, n: u32) -> (f32, f32) {
    (i as f32 / n as f32, i.reverse_bits() as f32 * 2.328_306_4e-10)
}

/// A GGX-distributed half vector around `n` (alpha = roughness²).
fn importance_sample_ggx(u: (f32, f32), n: Vec3, roughness: f32) -> Vec3 {
    let a = roughness * roughness;
    let phi = 2.0 * PI * u.0;
    let cos_theta = ((1.0 - u.1) / (1.0 + (a * a - 1.0) * u.1)).max(0.0).sqrt();
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    let h = Vec3::new(sin_theta * phi.cos(), sin_theta * phi.sin(), cos_theta);
    let up = if n.z.abs() < 0.999 { Vec3::Z } else { Vec3::X };
    let tx = up.cross(n).normalize();
    let ty = n.cross(tx);
    (tx * h.x + ty * h.y + n * h.z).normalize()
}

/// Mip levels of the radiance cube.
pub(crate) fn mip_count() -> u32 {
    32 - CUBE_SIZE.leading_zeros()
}

/// Computes everything an environment needs.
pub(crate) fn compute(env: &Environment) -> IblData {
    let source = match &env.source {
        EnvironmentSource::Sky(sky) => {
            let sun = sky.sun_direction.try_normalize().unwrap_or(Vec3::Y);
            Radiance::Sky(*sky, sun)
        }
        EnvironmentSource::Image(image)
            if image.width > 0
                && image.height > 0
                && image.texels.len() == (image.width * image.height) as usize =>
        {
            Radiance::Image(pyramid(image), image)
        }
        EnvironmentSource::Image(_) => {
            Radiance::Sky(Sky::default(), Sky::default().sun_direction.normalize())
        }
    };
    let mips = mip_count();
    let image_width = match &source {
        Radiance::Image(_, img) => img.width as f32,
        Radiance::Sky(..) => 1.0,
    };
    let radiance = (0..mips)
        .map(|mip| {
            let size = (CUBE_SIZE >> mip).max(1);
            let roughness = mip as f32 / (mips - 1).max(1) as f32;
            // The image level whose texels are about as wide as this mip's.
            let lod = (image_width / (4.0 * size as f32)).max(1.0).log2() + if mip > 0 { 1.0 } else { 0.0 };
            (0..6 * size * size)
                .into_par_iter()
                .map(|i| {
                    let face = i / (size * size);
                    let (x, y) = (i % size, (i / size) % size);
                    let n = cube_direction(face, x, y, size);
                    let c = if mip == 0 {
                        source.sample(n, true, 0.0)
                    } else {
                        let mut sum = [0.0f32; 3];
                        let mut weight = 0.0;
                        for s in 0..PREFILTER_SAMPLES {
                            let h = importance_sample_ggx(hammersley(s, PREFILTER_SAMPLES), n, roughness);
                            let l = 2.0 * n.dot(h) * h - n;
                            let n_dot_l = n.dot(l);
                            if n_dot_l > 0.0 {
                                let r = source.sample(l, false, lod);
                                for c in 0..3 {
                                    sum[c] += r[c] * n_dot_l;
                                }
                                weight += n_dot_l;
                            }
                        }
                        let w = 1.0 / weight.max(1e-6);
                        [sum[0] * w, sum[1] * w, sum[2] * w]
                    };
                    [c[0], c[1], c[2], 1.0]
                })
                .collect()
        })
        .collect();
    IblData { radiance, sh: project_sh(&source), lut: brdf_lut() }
}

fn project_sh(source: &Radiance<'_>) -> [[f32; 3]; 9] {
    let (w, h) = (128u32, 64u32);
    let mut sh = [[0f32; 3]; 9];
    for y in 0..h {
        let theta = (y as f32 + 0.5) / h as f32 * PI;
        let d_omega = (2.0 * PI / w as f32) * (PI / h as f32) * theta.sin();
        for x in 0..w {
            let phi = (x as f32 + 0.5) / w as f32 * 2.0 * PI;
            let d = Vec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin());
            let r = source.sample(d, false, 3.0);
            let basis = [
                0.282_095,
                0.488_603 * d.y,
                0.488_603 * d.z,
                0.488_603 * d.x,
                1.092_548 * d.x * d.y,
                1.092_548 * d.y * d.z,
                0.315_392 * (3.0 * d.z * d.z - 1.0),
                1.092_548 * d.x * d.z,
                0.546_274 * (d.x * d.x - d.y * d.y),
            ];
            for (coef, b) in sh.iter_mut().zip(basis) {
                for c in 0..3 {
                    coef[c] += r[c] * b * d_omega;
                }
            }
        }
    }
    sh
}

/// The split-sum environment BRDF (Karis 2013): scale and bias of f0 by (n·v, roughness).
fn brdf_lut() -> Vec<[f32; 2]> {
    (0..LUT_SIZE * LUT_SIZE)
        .into_par_iter()
        .map(|i| {
            let n_dot_v = ((i % LUT_SIZE) as f32 + 0.5) / LUT_SIZE as f32;
            let roughness = ((i / LUT_SIZE) as f32 + 0.5) / LUT_SIZE as f32;
            let v = Vec3::new((1.0 - n_dot_v * n_dot_v).sqrt(), 0.0, n_dot_v);
            let (mut a, mut b) = (0.0, 0.0);
            let k = roughness * roughness / 2.0;
            let g1 = |x: f32| x / (x * (1.0 - k) + k);
            for s in 0..LUT_SAMPLES {
                let h = importance_sample_ggx(hammersley(s, LUT_SAMPLES), Vec3::Z, roughness);
                let l = 2.0 * v.dot(h) * h - v;
                let (n_dot_l, n_dot_h, v_dot_h) = (l.z.max(0.0), h.z.max(0.0), v.dot(h).max(0.0));
                if n_dot_l > 0.0 {
                    let g = g1(n_dot_v) * g1(n_dot_l);
                    let g_vis = g * v_dot_h / (n_dot_h * n_dot_v).max(1e-6);
                    let fc = (1.0 - v_dot_h).powi(5);
                    a += (1.0 - fc) * g_vis;
                    b += fc * g_vis;
                }
            }
            [a / LUT_SAMPLES as f32, b / LUT_SAMPLES as f32]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_faces_point_where_they_say() {
        let c = CUBE_SIZE / 2;
        let axes = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
        for (face, axis) in axes.iter().enumerate() {
            assert!(cube_direction(face as u32, c, c, CUBE_SIZE).dot(*axis) > 0.99);
        }
        // Row 0 of the side faces looks up.
        assert!(cube_direction(4, c, 0, CUBE_SIZE).y > 0.6);
    }

    #[test]
    fn brdf_lut_is_bounded_and_smooth_surfaces_reflect_fully() {
        let lut = brdf_lut();
        for [a, b] in &lut {
            assert!((0.0..=1.05).contains(a) && (0.0..=1.05).contains(b));
        }
        // n·v = 1, roughness ~0: scale + bias ~ 1.
        let [a, b] = lut[(LUT_SIZE - 1) as usize];
        assert!((a + b - 1.0).abs() < 0.05, "{a} {b}");
    }

    #[test]
    fn a_uniform_sky_gives_uniform_irradiance() {
        let grey = Sky {
            zenith: [1.0; 3],
            horizon: [1.0; 3],
            ground: [1.0; 3],
            sun_glow: [0.0; 3],
            ..Sky::default()
        };
        let sh = project_sh(&Radiance::Sky(grey, Vec3::Y));
        // L00 of constant radiance 1 is 4π · 0.282095.
        assert!((sh[0][0] - 3.5449).abs() < 0.02, "{:?}", sh[0]);
        assert!(sh[1][0].abs() < 0.02);
    }
}
