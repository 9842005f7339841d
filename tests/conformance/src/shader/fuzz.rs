//! A seeded fuzz check: random small scenes drawn on the device and by a reference
//! rasteriser written here (f64 edge functions at pixel centres, depth test Less), with the
//! share of differing pixels bounded. Edge pixels may legitimately differ (fill-rule ties,
//! fixed-point snapping), so the bound is 2 % of the pixels, as flutter3d held its backends.

use f3d_hal::{Color, CompareFunction, DepthStencilState, GraphicsDevice, TextureDescriptor, TextureFormat};

use super::Entry;
use crate::draw::{V, draw_vertices, render, scene_pipeline, target, v};
use crate::support::Rng;
use crate::{CheckResult, Context, ensure};

pub(crate) const CHECKS: &[Entry] = &[("seeded_scenes_match_the_reference", fuzz)];

const SIZE: u32 = 32;
const SCENES: u64 = 6;
const TRIANGLES: usize = 12;
/// The largest share of pixels allowed to differ.
const MAX_DIFFERING: f64 = 0.02;

fn random_scene(seed: u64) -> Vec<V> {
    let mut rng = Rng::new(seed);
    let mut unit = move || (rng.next_u32() % 10_000) as f32 / 10_000.0;
    let mut out = Vec::new();
    for _ in 0..TRIANGLES {
        let color = [unit(), unit(), unit(), 1.0];
        let color = color.map(|c| (c * 255.0).round() / 255.0);
        for _ in 0..3 {
            let (x, y, z) = (unit() * 2.4 - 1.2, unit() * 2.4 - 1.2, unit() * 0.9 + 0.05);
            out.push(v(x, y, z, color));
        }
    }
    out
}

/// The reference: every triangle, both windings, depth Less, at pixel centres.
fn reference(vertices: &[V]) -> Vec<[u8; 4]> {
    let n = (SIZE * SIZE) as usize;
    let mut color = vec![[0u8, 0, 0, 255]; n];
    let mut depth = vec![1.0f64; n];
    let to_screen = |p: [f32; 4]| {
        let s = f64::from(SIZE);
        ((f64::from(p[0]) + 1.0) * 0.5 * s, (1.0 - f64::from(p[1])) * 0.5 * s, f64::from(p[2]))
    };
    for tri in vertices.chunks_exact(3) {
        let [a, b, c] = [to_screen(tri[0].pos), to_screen(tri[1].pos), to_screen(tri[2].pos)];
        let area = (b.0 - a.0) * (c.1 - a.1) - (c.0 - a.0) * (b.1 - a.1);
        if area.abs() < 1e-12 {
            continue;
        }
        let rgba = tri[0].color.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        for y in 0..SIZE {
            for x in 0..SIZE {
                let (px, py) = (f64::from(x) + 0.5, f64::from(y) + 0.5);
                let w0 = ((b.0 - px) * (c.1 - py) - (c.0 - px) * (b.1 - py)) / area;
                let w1 = ((c.0 - px) * (a.1 - py) - (a.0 - px) * (c.1 - py)) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * a.2 + w1 * b.2 + w2 * c.2;
                let i = (y * SIZE + x) as usize;
                if z < depth[i] {
                    depth[i] = z;
                    color[i] = rgba;
                }
            }
        }
    }
    color
}

fn fuzz(device: &dyn GraphicsDevice) -> CheckResult {
    let format = TextureFormat::Depth32Float;
    for seed in 1..=SCENES {
        let vertices = random_scene(seed);
        let t = target(device, SIZE, SIZE, TextureFormat::Rgba8Unorm)?;
        let depth = device
            .create_texture(&TextureDescriptor::new_2d("depth", SIZE, SIZE, format))
            .ctx("create depth")?;
        let p = scene_pipeline(device, TextureFormat::Rgba8Unorm, |d| {
            d.depth_stencil = Some(DepthStencilState::depth(format, CompareFunction::Less, true))
        })?;
        let image = render(device, &t, Color::BLACK, Some((&depth, 1.0)), |pass| {
            draw_vertices(device, pass, &p, &vertices)?;
            Ok(vec![p.clone()])
        })?;
        let want = reference(&vertices);
        let differing = (0..SIZE * SIZE)
            .filter(|&i| {
                let got = image.rgba8(i % SIZE, i / SIZE);
                got.iter().zip(want[i as usize]).any(|(a, b)| a.abs_diff(b) > 1)
            })
            .count();
        let share = differing as f64 / f64::from(SIZE * SIZE);
        ensure!(
            share <= MAX_DIFFERING,
            "scene {seed}: {differing} of {} pixels ({:.1} %) differ from the reference (bound 2 %)",
            SIZE * SIZE,
            share * 100.0
        );
    }
    Ok(())
}
