//! A CPU port of the library's `noise.wgsl`, for terrain, placement and tests on the CPU
//! that must match what shaders compute.
//!
//! * The integer hashes ([`hash_u32`], [`hash2`], [`hash3`]) agree with the WGSL bit for bit:
//!   both use wrapping 32-bit arithmetic on the same operations.
//! * The float noise performs the same f32 operations in the same order, so on an executor
//!   that rounds each operation (the soft backend, the test interpreter) it agrees to the last
//!   bit or two; GPUs that fuse multiply-adds or use approximate `sqrt` differ slightly more.
//!   The promise, held by a test that runs the WGSL through naga's IR: every function within
//!   [`FLOAT_TOLERANCE`] (absolute), [`curl3`] within [`CURL_TOLERANCE`] (it divides a
//!   difference by a small step).
//! * [`simplex3`] (as the reference 3D simplex noise it follows) is not continuous across the
//!   faces of its skewed grid, since its kernel reaches past the neighbouring simplex: at a
//!   point exactly on a face, one rounding decides the cell, and two correct executors may
//!   differ by ~1e-3 there. The tolerance holds off the faces.
//!
//! Seeds are `i32`, as in WGSL.

// The constants are written with the very digits of noise.wgsl, so both sides round the same
// decimal to the same f32.
#![allow(clippy::excessive_precision)]

/// The absolute tolerance of the float noise against the WGSL.
pub const FLOAT_TOLERANCE: f32 = 1e-4;
/// The absolute tolerance of [`curl3`] against the WGSL.
pub const CURL_TOLERANCE: f32 = 5e-3;

type V2 = [f32; 2];
type V3 = [f32; 3];

fn dot2(a: V2, b: V2) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}

fn dot3(a: V3, b: V3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub2(a: V2, b: V2) -> V2 {
    [a[0] - b[0], a[1] - b[1]]
}

fn sub3(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn add3(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn map2(a: V2, f: impl Fn(f32) -> f32) -> V2 {
    [f(a[0]), f(a[1])]
}

fn map3(a: V3, f: impl Fn(f32) -> f32) -> V3 {
    [f(a[0]), f(a[1]), f(a[2])]
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

fn quintic(t: f32) -> f32 {
    t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
}

/// `noise_hash_u32`: a full-avalanche permutation of u32.
pub fn hash_u32(x: u32) -> u32 {
    let mut h = x;
    h ^= h >> 16;
    h = h.wrapping_mul(0x7feb_352d);
    h ^= h >> 15;
    h = h.wrapping_mul(0x846c_a68b);
    h ^= h >> 16;
    h
}

/// `noise_hash2`: the hash of a 2D lattice point and a seed.
pub fn hash2(p: [i32; 2], seed: i32) -> u32 {
    hash_u32(p[0] as u32 ^ hash_u32(p[1] as u32 ^ hash_u32(seed as u32)))
}

/// `noise_hash3`: the hash of a 3D lattice point and a seed.
pub fn hash3(p: [i32; 3], seed: i32) -> u32 {
    let h = hash_u32(p[2] as u32 ^ hash_u32(seed as u32));
    hash_u32(p[0] as u32 ^ hash_u32(p[1] as u32 ^ h))
}

/// `noise_hash_unit`: a hash as a float in [0, 1), exactly its top 24 bits.
pub fn hash_unit(h: u32) -> f32 {
    (h >> 8) as f32 * 5.9604644775390625e-8
}

fn grad2(h: u32) -> V2 {
    let sx = if h & 1 != 0 { -1.0 } else { 1.0 };
    let sy = if h & 2 != 0 { -1.0 } else { 1.0 };
    if h & 4 == 0 {
        [sx, sy]
    } else if h & 8 == 0 {
        [sx, 0.0]
    } else {
        [0.0, sy]
    }
}

fn grad3_dot(h: u32, d: V3) -> f32 {
    let k = h & 15;
    let u = if k < 8 { d[0] } else { d[1] };
    let v = if k < 4 {
        d[1]
    } else if k == 12 || k == 14 {
        d[0]
    } else {
        d[2]
    };
    (if k & 1 != 0 { -u } else { u }) + (if k & 2 != 0 { -v } else { v })
}

fn cell2(p: V2) -> (V2, [i32; 2]) {
    let c = map2(p, f32::floor);
    (c, [c[0] as i32, c[1] as i32])
}

fn cell3(p: V3) -> (V3, [i32; 3]) {
    let c = map3(p, f32::floor);
    (c, [c[0] as i32, c[1] as i32, c[2] as i32])
}

fn off2(i: [i32; 2], x: i32, y: i32) -> [i32; 2] {
    [i[0].wrapping_add(x), i[1].wrapping_add(y)]
}

fn off3(i: [i32; 3], x: i32, y: i32, z: i32) -> [i32; 3] {
    [i[0].wrapping_add(x), i[1].wrapping_add(y), i[2].wrapping_add(z)]
}

/// `noise_perlin2`: gradient noise, about -1..1.
// 0.7071 is the WGSL's literal, not an approximation of 1/sqrt(2) to be improved.
#[allow(clippy::approx_constant)]
pub fn perlin2(p: V2, seed: i32) -> f32 {
    let (c, i) = cell2(p);
    let f = sub2(p, c);
    let u = map2(f, quintic);
    let n00 = dot2(grad2(hash2(i, seed)), f);
    let n10 = dot2(grad2(hash2(off2(i, 1, 0), seed)), sub2(f, [1.0, 0.0]));
    let n01 = dot2(grad2(hash2(off2(i, 0, 1), seed)), sub2(f, [0.0, 1.0]));
    let n11 = dot2(grad2(hash2(off2(i, 1, 1), seed)), sub2(f, [1.0, 1.0]));
    lerp(lerp(n00, n10, u[0]), lerp(n01, n11, u[0]), u[1]) * 0.7071
}

/// `noise_perlin3`: gradient noise, about -1..1.
pub fn perlin3(p: V3, seed: i32) -> f32 {
    let (c, i) = cell3(p);
    let f = sub3(p, c);
    let u = map3(f, quintic);
    let n = |x: i32, y: i32, z: i32| {
        grad3_dot(hash3(off3(i, x, y, z), seed), sub3(f, [x as f32, y as f32, z as f32]))
    };
    let n000 = grad3_dot(hash3(i, seed), f);
    let x0 = lerp(lerp(n000, n(1, 0, 0), u[0]), lerp(n(0, 1, 0), n(1, 1, 0), u[0]), u[1]);
    let x1 = lerp(lerp(n(0, 0, 1), n(1, 0, 1), u[0]), lerp(n(0, 1, 1), n(1, 1, 1), u[0]), u[1]);
    lerp(x0, x1, u[2])
}

/// `noise_value2`: value noise, -1..1.
pub fn value2(p: V2, seed: i32) -> f32 {
    let (c, i) = cell2(p);
    let u = map2(sub2(p, c), quintic);
    let v = |x, y| hash_unit(hash2(off2(i, x, y), seed));
    lerp(lerp(v(0, 0), v(1, 0), u[0]), lerp(v(0, 1), v(1, 1), u[0]), u[1]) * 2.0 - 1.0
}

/// `noise_value3`: value noise, -1..1.
pub fn value3(p: V3, seed: i32) -> f32 {
    let (c, i) = cell3(p);
    let u = map3(sub3(p, c), quintic);
    let v = |x, y, z| hash_unit(hash3(off3(i, x, y, z), seed));
    let z0 = lerp(lerp(v(0, 0, 0), v(1, 0, 0), u[0]), lerp(v(0, 1, 0), v(1, 1, 0), u[0]), u[1]);
    let z1 = lerp(lerp(v(0, 0, 1), v(1, 0, 1), u[0]), lerp(v(0, 1, 1), v(1, 1, 1), u[0]), u[1]);
    lerp(z0, z1, u[2]) * 2.0 - 1.0
}

fn simplex_corner2(x: V2, h: u32) -> f32 {
    let t = 0.5 - dot2(x, x);
    if t <= 0.0 {
        return 0.0;
    }
    let t2 = t * t;
    t2 * t2 * dot2(grad2(h), x)
}

/// `noise_simplex2`: simplex noise, about -1..1.
pub fn simplex2(p: V2, seed: i32) -> f32 {
    let skew = (p[0] + p[1]) * 0.36602540378;
    let c = map2([p[0] + skew, p[1] + skew], f32::floor);
    let unskew = (c[0] + c[1]) * 0.2113248654;
    let x0 = sub2(p, [c[0] - unskew, c[1] - unskew]);
    let o = if x0[0] > x0[1] { [1.0, 0.0] } else { [0.0, 1.0] };
    let x1 = map2(sub2(x0, o), |v| v + 0.2113248654);
    let x2 = map2(x0, |v| v - 1.0 + 0.4226497308);
    let i = [c[0] as i32, c[1] as i32];
    let mut n = simplex_corner2(x0, hash2(i, seed));
    n += simplex_corner2(x1, hash2(off2(i, o[0] as i32, o[1] as i32), seed));
    n += simplex_corner2(x2, hash2(off2(i, 1, 1), seed));
    70.0 * n
}

fn simplex_corner3(x: V3, h: u32) -> f32 {
    let t = 0.6 - dot3(x, x);
    if t <= 0.0 {
        return 0.0;
    }
    let t2 = t * t;
    t2 * t2 * grad3_dot(h, x)
}

/// `noise_simplex3`: simplex noise, about -1..1.
pub fn simplex3(p: V3, seed: i32) -> f32 {
    let skew = (p[0] + p[1] + p[2]) * 0.33333333333;
    let c = map3([p[0] + skew, p[1] + skew, p[2] + skew], f32::floor);
    let unskew = (c[0] + c[1] + c[2]) * 0.16666666667;
    let x0 = sub3(p, [c[0] - unskew, c[1] - unskew, c[2] - unskew]);
    let step = |edge: f32, x: f32| if x >= edge { 1.0 } else { 0.0 };
    let g = [step(x0[1], x0[0]), step(x0[2], x0[1]), step(x0[0], x0[2])];
    let l = map3(g, |v| 1.0 - v);
    let lzxy = [l[2], l[0], l[1]];
    let o1 = [g[0].min(lzxy[0]), g[1].min(lzxy[1]), g[2].min(lzxy[2])];
    let o2 = [g[0].max(lzxy[0]), g[1].max(lzxy[1]), g[2].max(lzxy[2])];
    let x1 = map3(sub3(x0, o1), |v| v + 0.16666666667);
    let x2 = map3(sub3(x0, o2), |v| v + 0.33333333333);
    let x3 = map3(x0, |v| v - 0.5);
    let i = [c[0] as i32, c[1] as i32, c[2] as i32];
    let oi = |o: V3| off3(i, o[0] as i32, o[1] as i32, o[2] as i32);
    let mut n = simplex_corner3(x0, hash3(i, seed));
    n += simplex_corner3(x1, hash3(oi(o1), seed));
    n += simplex_corner3(x2, hash3(oi(o2), seed));
    n += simplex_corner3(x3, hash3(off3(i, 1, 1, 1), seed));
    32.0 * n
}

/// `noise_cellular2`: distances to the nearest and second-nearest feature points.
pub fn cellular2(p: V2, seed: i32) -> V2 {
    let (c, i) = cell2(p);
    let f = sub2(p, c);
    let (mut f1, mut f2) = (8.0f32, 8.0f32);
    for y in -1..=1 {
        for x in -1..=1 {
            let h = hash2(off2(i, x, y), seed);
            let point = [x as f32 + hash_unit(h), y as f32 + hash_unit(hash_u32(h))];
            let d = sub2(point, f);
            let d = dot2(d, d).sqrt();
            if d < f1 {
                f2 = f1;
                f1 = d;
            } else if d < f2 {
                f2 = d;
            }
        }
    }
    [f1, f2]
}

fn octaves(p: V2, seed: i32, count: i32, layer: impl Fn(V2, i32) -> f32) -> f32 {
    let (mut sum, mut amplitude, mut norm) = (0.0f32, 0.5f32, 0.0f32);
    let mut q = p;
    for o in 0..count.clamp(1, 16) {
        sum += amplitude * layer(q, seed.wrapping_add(o));
        norm += amplitude;
        q = map2(q, |v| v * 2.0);
        amplitude *= 0.5;
    }
    sum / norm
}

/// `noise_fbm2`: fractal simplex (lacunarity 2, gain 0.5), about -1..1; octaves clamped to 1..16.
pub fn fbm2(p: V2, seed: i32, octave_count: i32) -> f32 {
    octaves(p, seed, octave_count, simplex2)
}

/// `noise_ridged2`: ridged multifractal, 0..1; octaves clamped to 1..16.
pub fn ridged2(p: V2, seed: i32, octave_count: i32) -> f32 {
    octaves(p, seed, octave_count, |q, s| {
        let r = 1.0 - simplex2(q, s).abs();
        r * r
    })
}

/// `noise_domain_warp2`: p pushed by two noise fields times `strength`.
pub fn domain_warp2(p: V2, seed: i32, strength: f32) -> V2 {
    let w = [simplex2(p, seed), simplex2([p[0] + 5.2, p[1] + 1.3], seed.wrapping_add(1))];
    [p[0] + w[0] * strength, p[1] + w[1] * strength]
}

/// `noise_domain_warp3`: p pushed by three noise fields times `strength`.
pub fn domain_warp3(p: V3, seed: i32, strength: f32) -> V3 {
    let w = [
        simplex3(p, seed),
        simplex3(add3(p, [5.2, 1.3, 2.8]), seed.wrapping_add(1)),
        simplex3(add3(p, [1.7, 9.2, 4.4]), seed.wrapping_add(2)),
    ];
    [p[0] + w[0] * strength, p[1] + w[1] * strength, p[2] + w[2] * strength]
}

/// `noise_curl3`: the curl of three simplex potentials by central differences (divergence-free).
pub fn curl3(p: V3, seed: i32) -> V3 {
    let e = 0.01f32;
    let (dx, dy, dz) = ([e, 0.0, 0.0], [0.0, e, 0.0], [0.0, 0.0, e]);
    let d = |delta: V3, s: i32| simplex3(add3(p, delta), s) - simplex3(sub3(p, delta), s);
    let (s1, s2) = (seed.wrapping_add(1), seed.wrapping_add(2));
    let da_dy = d(dy, seed);
    let da_dz = d(dz, seed);
    let db_dx = d(dx, s1);
    let db_dz = d(dz, s1);
    let dc_dx = d(dx, s2);
    let dc_dy = d(dy, s2);
    let k = 2.0 * e;
    [(dc_dy - db_dz) / k, (da_dz - dc_dx) / k, (db_dx - da_dy) / k]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_avalanche_and_differ_by_seed() {
        assert_ne!(hash2([0, 0], 0), hash2([0, 0], 1));
        assert_ne!(hash2([1, 0], 0), hash2([0, 1], 0));
        assert_eq!(hash_u32(0), 0);
        let ones: u32 = (0..32).map(|b| (hash_u32(1) ^ hash_u32(1 | 1 << b)).count_ones()).sum::<u32>() / 32;
        assert!((10..=22).contains(&ones), "weak avalanche: {ones} bits");
    }

    #[test]
    fn noise_stays_in_range() {
        for i in 0..2000 {
            let p = [i as f32 * 0.173 - 40.0, i as f32 * 0.071 + 3.0];
            let q = [p[0], p[1], i as f32 * 0.037];
            for v in [
                simplex2(p, 3),
                perlin2(p, 3),
                value2(p, 3),
                simplex3(q, 3),
                perlin3(q, 3),
                value3(q, 3),
                fbm2(p, 3, 5),
            ] {
                assert!((-1.05..=1.05).contains(&v), "{v} at {p:?}");
            }
            assert!((0.0..=1.0).contains(&ridged2(p, 1, 4)));
            let c = cellular2(p, 9);
            assert!(c[0] <= c[1] && c[0] >= 0.0 && c[0] < 1.5);
        }
    }
}
