// f3d engine library: procedural noise. `#include <noise.wgsl>` in material code.
//
// Every function takes an i32 seed; the same seed gives the same field. The integer hashes
// agree bit for bit with f3d_materials::noise (the CPU port); the float noise agrees within
// the tolerance stated there. Ranges: simplex, perlin and value noise about -1..1; cellular
// gives (F1, F2) distances; fbm about -1..1; ridged 0..1.

// A 32-bit integer mix (xor-shift-multiply; a full-avalanche permutation of u32).
fn noise_hash_u32(x: u32) -> u32 {
    var h = x;
    h = h ^ (h >> 16u);
    h = h * 0x7feb352du;
    h = h ^ (h >> 15u);
    h = h * 0x846ca68bu;
    h = h ^ (h >> 16u);
    return h;
}

// Hash of a 2D lattice point and a seed.
fn noise_hash2(p: vec2<i32>, seed: i32) -> u32 {
    return noise_hash_u32(bitcast<u32>(p.x) ^ noise_hash_u32(bitcast<u32>(p.y) ^ noise_hash_u32(bitcast<u32>(seed))));
}

// Hash of a 3D lattice point and a seed.
fn noise_hash3(p: vec3<i32>, seed: i32) -> u32 {
    let h = noise_hash_u32(bitcast<u32>(p.z) ^ noise_hash_u32(bitcast<u32>(seed)));
    return noise_hash_u32(bitcast<u32>(p.x) ^ noise_hash_u32(bitcast<u32>(p.y) ^ h));
}

// A hash as a float in [0, 1) (its top 24 bits, exactly).
fn noise_hash_unit(h: u32) -> f32 {
    return f32(h >> 8u) * 5.9604644775390625e-8;
}

// One of eight 2D gradients: the four diagonals and the four axes.
fn noise_grad2(h: u32) -> vec2<f32> {
    let sx = select(1.0, -1.0, (h & 1u) != 0u);
    let sy = select(1.0, -1.0, (h & 2u) != 0u);
    if (h & 4u) == 0u {
        return vec2<f32>(sx, sy);
    }
    if (h & 8u) == 0u {
        return vec2<f32>(sx, 0.0);
    }
    return vec2<f32>(0.0, sy);
}

// The dot product of one of Perlin's twelve cube-edge gradients (sixteen entries) with d.
fn noise_grad3_dot(h: u32, d: vec3<f32>) -> f32 {
    let k = h & 15u;
    let u = select(d.y, d.x, k < 8u);
    let v = select(select(d.z, d.x, k == 12u || k == 14u), d.y, k < 4u);
    return select(u, -u, (k & 1u) != 0u) + select(v, -v, (k & 2u) != 0u);
}

fn noise_quintic2(t: vec2<f32>) -> vec2<f32> {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn noise_quintic3(t: vec3<f32>) -> vec3<f32> {
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
}

fn noise_lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + (b - a) * t;
}

// Classic gradient noise on the square lattice.
fn noise_perlin2(p: vec2<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let f = p - cell;
    let i = vec2<i32>(cell);
    let u = noise_quintic2(f);
    let n00 = dot(noise_grad2(noise_hash2(i, seed)), f);
    let n10 = dot(noise_grad2(noise_hash2(i + vec2<i32>(1, 0), seed)), f - vec2<f32>(1.0, 0.0));
    let n01 = dot(noise_grad2(noise_hash2(i + vec2<i32>(0, 1), seed)), f - vec2<f32>(0.0, 1.0));
    let n11 = dot(noise_grad2(noise_hash2(i + vec2<i32>(1, 1), seed)), f - vec2<f32>(1.0, 1.0));
    return noise_lerp(noise_lerp(n00, n10, u.x), noise_lerp(n01, n11, u.x), u.y) * 0.7071;
}

// Classic gradient noise on the cubic lattice (Perlin's improved gradients).
fn noise_perlin3(p: vec3<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let f = p - cell;
    let i = vec3<i32>(cell);
    let u = noise_quintic3(f);
    let n000 = noise_grad3_dot(noise_hash3(i, seed), f);
    let n100 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 0, 0), seed), f - vec3<f32>(1.0, 0.0, 0.0));
    let n010 = noise_grad3_dot(noise_hash3(i + vec3<i32>(0, 1, 0), seed), f - vec3<f32>(0.0, 1.0, 0.0));
    let n110 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 1, 0), seed), f - vec3<f32>(1.0, 1.0, 0.0));
    let n001 = noise_grad3_dot(noise_hash3(i + vec3<i32>(0, 0, 1), seed), f - vec3<f32>(0.0, 0.0, 1.0));
    let n101 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 0, 1), seed), f - vec3<f32>(1.0, 0.0, 1.0));
    let n011 = noise_grad3_dot(noise_hash3(i + vec3<i32>(0, 1, 1), seed), f - vec3<f32>(0.0, 1.0, 1.0));
    let n111 = noise_grad3_dot(noise_hash3(i + vec3<i32>(1, 1, 1), seed), f - vec3<f32>(1.0, 1.0, 1.0));
    let x0 = noise_lerp(noise_lerp(n000, n100, u.x), noise_lerp(n010, n110, u.x), u.y);
    let x1 = noise_lerp(noise_lerp(n001, n101, u.x), noise_lerp(n011, n111, u.x), u.y);
    return noise_lerp(x0, x1, u.z);
}

// Value noise: random values at lattice points, smoothly interpolated.
fn noise_value2(p: vec2<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let i = vec2<i32>(cell);
    let u = noise_quintic2(p - cell);
    let a = noise_hash_unit(noise_hash2(i, seed));
    let b = noise_hash_unit(noise_hash2(i + vec2<i32>(1, 0), seed));
    let c = noise_hash_unit(noise_hash2(i + vec2<i32>(0, 1), seed));
    let d = noise_hash_unit(noise_hash2(i + vec2<i32>(1, 1), seed));
    return noise_lerp(noise_lerp(a, b, u.x), noise_lerp(c, d, u.x), u.y) * 2.0 - 1.0;
}

// Value noise in 3D.
fn noise_value3(p: vec3<f32>, seed: i32) -> f32 {
    let cell = floor(p);
    let i = vec3<i32>(cell);
    let u = noise_quintic3(p - cell);
    let a = noise_hash_unit(noise_hash3(i, seed));
    let b = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 0, 0), seed));
    let c = noise_hash_unit(noise_hash3(i + vec3<i32>(0, 1, 0), seed));
    let d = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 1, 0), seed));
    let e = noise_hash_unit(noise_hash3(i + vec3<i32>(0, 0, 1), seed));
    let f = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 0, 1), seed));
    let g = noise_hash_unit(noise_hash3(i + vec3<i32>(0, 1, 1), seed));
    let h = noise_hash_unit(noise_hash3(i + vec3<i32>(1, 1, 1), seed));
    let z0 = noise_lerp(noise_lerp(a, b, u.x), noise_lerp(c, d, u.x), u.y);
    let z1 = noise_lerp(noise_lerp(e, f, u.x), noise_lerp(g, h, u.x), u.y);
    return noise_lerp(z0, z1, u.z) * 2.0 - 1.0;
}

fn noise_simplex_corner2(x: vec2<f32>, h: u32) -> f32 {
    let t = 0.5 - dot(x, x);
    if t <= 0.0 {
        return 0.0;
    }
    let t2 = t * t;
    return t2 * t2 * dot(noise_grad2(h), x);
}

// Simplex noise in 2D.
fn noise_simplex2(p: vec2<f32>, seed: i32) -> f32 {
    let skew = (p.x + p.y) * 0.36602540378;
    let cell = floor(p + skew);
    let unskew = (cell.x + cell.y) * 0.2113248654;
    let x0 = p - (cell - unskew);
    let o = select(vec2<f32>(0.0, 1.0), vec2<f32>(1.0, 0.0), x0.x > x0.y);
    let x1 = x0 - o + 0.2113248654;
    let x2 = x0 - 1.0 + 0.4226497308;
    let i = vec2<i32>(cell);
    var n = noise_simplex_corner2(x0, noise_hash2(i, seed));
    n += noise_simplex_corner2(x1, noise_hash2(i + vec2<i32>(o), seed));
    n += noise_simplex_corner2(x2, noise_hash2(i + vec2<i32>(1, 1), seed));
    return 70.0 * n;
}

fn noise_simplex_corner3(x: vec3<f32>, h: u32) -> f32 {
    let t = 0.6 - dot(x, x);
    if t <= 0.0 {
        return 0.0;
    }
    let t2 = t * t;
    return t2 * t2 * noise_grad3_dot(h, x);
}

// Simplex noise in 3D.
fn noise_simplex3(p: vec3<f32>, seed: i32) -> f32 {
    let skew = (p.x + p.y + p.z) * 0.33333333333;
    let cell = floor(p + skew);
    let unskew = (cell.x + cell.y + cell.z) * 0.16666666667;
    let x0 = p - (cell - unskew);
    let g = step(x0.yzx, x0.xyz);
    let l = 1.0 - g;
    let o1 = min(g, l.zxy);
    let o2 = max(g, l.zxy);
    let x1 = x0 - o1 + 0.16666666667;
    let x2 = x0 - o2 + 0.33333333333;
    let x3 = x0 - 0.5;
    let i = vec3<i32>(cell);
    var n = noise_simplex_corner3(x0, noise_hash3(i, seed));
    n += noise_simplex_corner3(x1, noise_hash3(i + vec3<i32>(o1), seed));
    n += noise_simplex_corner3(x2, noise_hash3(i + vec3<i32>(o2), seed));
    n += noise_simplex_corner3(x3, noise_hash3(i + vec3<i32>(1, 1, 1), seed));
    return 32.0 * n;
}

// Cellular (Worley) noise: distances to the nearest and second-nearest feature points, one
// random point per cell.
fn noise_cellular2(p: vec2<f32>, seed: i32) -> vec2<f32> {
    let cell = floor(p);
    let i = vec2<i32>(cell);
    let f = p - cell;
    var f1 = 8.0;
    var f2 = 8.0;
    for (var y = -1; y <= 1; y += 1) {
        for (var x = -1; x <= 1; x += 1) {
            let offset = vec2<i32>(x, y);
            let h = noise_hash2(i + offset, seed);
            let point = vec2<f32>(offset) + vec2<f32>(noise_hash_unit(h), noise_hash_unit(noise_hash_u32(h)));
            let d = length(point - f);
            if d < f1 {
                f2 = f1;
                f1 = d;
            } else if d < f2 {
                f2 = d;
            }
        }
    }
    return vec2<f32>(f1, f2);
}

// Fractal sum of simplex octaves (lacunarity 2, gain 0.5), normalised to about -1..1.
// `octaves` is clamped to 1..16.
fn noise_fbm2(p: vec2<f32>, seed: i32, octaves: i32) -> f32 {
    var sum = 0.0;
    var amplitude = 0.5;
    var norm = 0.0;
    var q = p;
    let count = clamp(octaves, 1, 16);
    for (var o = 0; o < count; o += 1) {
        sum += amplitude * noise_simplex2(q, seed + o);
        norm += amplitude;
        q = q * 2.0;
        amplitude *= 0.5;
    }
    return sum / norm;
}

// Ridged multifractal: sharp crests where the noise crosses zero, 0..1.
fn noise_ridged2(p: vec2<f32>, seed: i32, octaves: i32) -> f32 {
    var sum = 0.0;
    var amplitude = 0.5;
    var norm = 0.0;
    var q = p;
    let count = clamp(octaves, 1, 16);
    for (var o = 0; o < count; o += 1) {
        let r = 1.0 - abs(noise_simplex2(q, seed + o));
        sum += amplitude * r * r;
        norm += amplitude;
        q = q * 2.0;
        amplitude *= 0.5;
    }
    return sum / norm;
}

// p pushed by two independent noise fields times `strength`.
fn noise_domain_warp2(p: vec2<f32>, seed: i32, strength: f32) -> vec2<f32> {
    let w = vec2<f32>(noise_simplex2(p, seed), noise_simplex2(p + vec2<f32>(5.2, 1.3), seed + 1));
    return p + w * strength;
}

// p pushed by three independent noise fields times `strength`.
fn noise_domain_warp3(p: vec3<f32>, seed: i32, strength: f32) -> vec3<f32> {
    let w = vec3<f32>(
        noise_simplex3(p, seed),
        noise_simplex3(p + vec3<f32>(5.2, 1.3, 2.8), seed + 1),
        noise_simplex3(p + vec3<f32>(1.7, 9.2, 4.4), seed + 2),
    );
    return p + w * strength;
}

// A divergence-free field: the curl of three simplex potentials, by central differences.
fn noise_curl3(p: vec3<f32>, seed: i32) -> vec3<f32> {
    let e = 0.01;
    let dx = vec3<f32>(e, 0.0, 0.0);
    let dy = vec3<f32>(0.0, e, 0.0);
    let dz = vec3<f32>(0.0, 0.0, e);
    // Potentials a (seed), b (seed + 1), c (seed + 2).
    let da_dy = noise_simplex3(p + dy, seed) - noise_simplex3(p - dy, seed);
    let da_dz = noise_simplex3(p + dz, seed) - noise_simplex3(p - dz, seed);
    let db_dx = noise_simplex3(p + dx, seed + 1) - noise_simplex3(p - dx, seed + 1);
    let db_dz = noise_simplex3(p + dz, seed + 1) - noise_simplex3(p - dz, seed + 1);
    let dc_dx = noise_simplex3(p + dx, seed + 2) - noise_simplex3(p - dx, seed + 2);
    let dc_dy = noise_simplex3(p + dy, seed + 2) - noise_simplex3(p - dy, seed + 2);
    return vec3<f32>(dc_dy - db_dz, da_dz - dc_dx, db_dx - da_dy) / (2.0 * e);
}
