//! Arithmetic, builtins, composites and conversions: each shader's outputs against the same
//! arithmetic done in Rust, one value per lane.
// Assertions index inputs and outputs by lane, as the shaders do.
#![allow(clippy::needless_range_loop)]

mod exec_support;

use exec_support::*;
use f3d_soft_exec::Resource;

#[test]
fn float_arithmetic_per_lane() {
    let p = fragment(
        r#"
        @fragment fn fs(@location(0) a: f32, @location(1) b: f32) -> @location(0) vec4<f32> {
            return vec4<f32>(a + b * 2.0, a - b, a / b, a % b);
        }"#,
    );
    let a = lanes(|l| l as f32 * 0.75 - 10.0);
    let b = lanes(|l| (l as f32 - 31.5) * 0.3);
    let ex = run(&p, &[vec![a], vec![b]], &[]);
    for l in 0..64 {
        assert_eq!(out(&ex, 0, 0)[l], a[l] + b[l] * 2.0);
        assert_eq!(out(&ex, 0, 1)[l], a[l] - b[l]);
        assert_eq!(out(&ex, 0, 2)[l], a[l] / b[l]);
        assert_eq!(out(&ex, 0, 3)[l], a[l] - b[l] * (a[l] / b[l]).trunc());
    }
}

/// Runs `f(x)` for 64 values of `x` as a one-argument WGSL builtin call and compares with
/// `reference` within `tol`.
fn unary(name: &str, xs: impl Fn(usize) -> f32, reference: impl Fn(f32) -> f32, tol: f32) {
    let src = format!(
        "@fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> {{ return vec4<f32>({name}(x), 0.0, 0.0, 1.0); }}"
    );
    let p = fragment(&src);
    let x = lanes(xs);
    let ex = run(&p, &[vec![x]], &[]);
    for l in 0..64 {
        close(out(&ex, 0, 0)[l], reference(x[l]), tol, &format!("{name}({})", x[l]));
    }
}

#[test]
fn exponential_family() {
    let pos = |l: usize| 0.01 + l as f32 * 0.37;
    let any = |l: usize| l as f32 * 0.4 - 12.0;
    unary("exp", any, f32::exp, 4e-6);
    unary("exp2", any, f32::exp2, 4e-6);
    unary("log", pos, f32::ln, 4e-6);
    unary("log2", pos, f32::log2, 4e-6);
    unary("sqrt", pos, f32::sqrt, 0.0);
    unary("inverseSqrt", pos, |x| 1.0 / x.sqrt(), 0.0);
    let p = fragment(
        "@fragment fn fs(@location(0) x: f32, @location(1) y: f32) -> @location(0) vec4<f32> {
            return vec4<f32>(pow(x, y), ldexp(x, i32(y)), 0.0, 1.0);
        }",
    );
    let x = lanes(|l| 0.05 + l as f32 * 0.05);
    let y = lanes(|l| (l % 9) as f32 * 3.0 - 4.0);
    let ex = run(&p, &[vec![x], vec![y]], &[]);
    for l in 0..64 {
        close(out(&ex, 0, 0)[l], x[l].powf(y[l]), 2e-5, "pow");
        assert_eq!(out(&ex, 0, 1)[l], x[l] * 2f32.powi(y[l] as i32), "ldexp");
    }
}

#[test]
fn trigonometric_family() {
    let angle = |l: usize| l as f32 * 0.21 - 6.5;
    let unit = |l: usize| l as f32 / 32.0 - 0.99;
    unary("sin", angle, f32::sin, 1e-6);
    unary("cos", angle, f32::cos, 1e-6);
    unary("tan", |l| l as f32 * 0.02 - 0.6, f32::tan, 1e-6);
    unary("asin", unit, f32::asin, 1e-6);
    unary("acos", unit, f32::acos, 1e-6);
    unary("atan", angle, f32::atan, 1e-6);
    unary("sinh", unit, f32::sinh, 1e-6);
    unary("cosh", unit, f32::cosh, 1e-6);
    unary("tanh", angle, f32::tanh, 1e-6);
    unary("asinh", angle, f32::asinh, 1e-6);
    unary("acosh", |l| 1.0 + l as f32, f32::acosh, 1e-6);
    unary("atanh", unit, f32::atanh, 1e-6);
    unary("radians", angle, |x| x * (std::f32::consts::PI / 180.0), 1e-6);
    unary("degrees", angle, |x| x * (180.0 / std::f32::consts::PI), 1e-6);
    let p = fragment(
        "@fragment fn fs(@location(0) y: f32, @location(1) x: f32) -> @location(0) vec4<f32> {
            return vec4<f32>(atan2(y, x), 0.0, 0.0, 1.0);
        }",
    );
    let y = lanes(|l| (l as f32 * 0.7).sin());
    let x = lanes(|l| (l as f32 * 0.7).cos() * 2.0);
    let ex = run(&p, &[vec![y], vec![x]], &[]);
    for l in 0..64 {
        assert_eq!(out(&ex, 0, 0)[l], y[l].atan2(x[l]));
    }
}

#[test]
fn rounding_and_sign_family() {
    let xs = |l: usize| [2.5, -2.5, 3.5, -0.5, 0.5, 1.49, -7.75, 0.0][l % 8] + (l / 8) as f32 * 0.125;
    unary("floor", xs, f32::floor, 0.0);
    unary("ceil", xs, f32::ceil, 0.0);
    unary("round", xs, f32::round_ties_even, 0.0);
    unary("trunc", xs, f32::trunc, 0.0);
    unary("fract", xs, |x| x - x.floor(), 0.0);
    unary("abs", xs, f32::abs, 0.0);
    unary(
        "sign",
        xs,
        |x| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        },
        0.0,
    );
    unary("saturate", |l| l as f32 * 0.05 - 1.0, |x| x.clamp(0.0, 1.0), 0.0);
    unary("quantizeToF16", |l| 1.0 + l as f32 * 1e-4, |x| f3d_hal::f16_to_f32(f3d_hal::f32_to_f16(x)), 0.0);
    // Ties go to even.
    unary("round", |l| l as f32 - 31.5, f32::round_ties_even, 0.0);
}

#[test]
fn interpolation_and_range_builtins() {
    let p = fragment(
        "@fragment fn fs(@location(0) a: f32, @location(1) b: f32, @location(2) t: f32)
            -> @location(0) vec4<f32> {
            let m = modf(a);
            let f = frexp(b);
            return vec4<f32>(mix(a, b, t), smoothstep(-1.0, 1.0, t), step(t, 0.25), clamp(a, -2.0, 3.0))
                + vec4<f32>(fma(a, b, t), min(a, b), max(a, b), 0.0) * 1000.0
                + vec4<f32>(m.fract, m.whole, f.fract, f32(f.exp)) * 1e6;
        }",
    );
    let a = lanes(|l| l as f32 * 0.3 - 7.0);
    let b = lanes(|l| 3.0 - l as f32 * 0.11);
    let t = lanes(|l| l as f32 / 40.0 - 0.3);
    let ex = run(&p, &[vec![a], vec![b], vec![t]], &[]);
    for l in 0..64 {
        let (a, b, t) = (a[l], b[l], t[l]);
        let st = ((t + 1.0) / 2.0).clamp(0.0, 1.0);
        let (fr, ex_) = {
            let e = if b == 0.0 { 0 } else { b.abs().log2().floor() as i32 + 1 };
            (b / 2f32.powi(e), e)
        };
        let want = [
            a * (1.0 - t) + b * t + a.mul_add(b, t) * 1000.0 + (a - a.trunc()) * 1e6,
            st * st * (3.0 - 2.0 * st) + a.min(b) * 1000.0 + a.trunc() * 1e6,
            if 0.25 >= t { 1.0 } else { 0.0 } + a.max(b) * 1000.0 + fr * 1e6,
            a.clamp(-2.0, 3.0) + ex_ as f32 * 1e6,
        ];
        for c in 0..4 {
            close(out(&ex, 0, c)[l], want[c], 1e-6, &format!("lane {l} component {c}"));
        }
    }
}

#[test]
fn integer_arithmetic_wraps_and_divides_like_wgsl() {
    let p = fragment(
        "struct Out { @location(0) s: vec4<i32>, @location(1) u: vec4<u32>, @location(2) s2: vec4<i32> }
        @fragment fn fs(@location(0) @interpolate(flat) a: i32, @location(1) @interpolate(flat) b: i32,
                        @location(2) @interpolate(flat) c: u32, @location(3) @interpolate(flat) d: u32) -> Out {
            var o: Out;
            o.s = vec4<i32>(a + b, a * b, a / b, a % b);
            o.u = vec4<u32>(c - d, c / d, c % d, (c << d) ^ (c >> d));
            o.s2 = vec4<i32>(a >> u32(b), -a, abs(a), sign(a) * 7 + min(a, b) - max(a, b) + clamp(a, -5, 5));
            return o;
        }",
    );
    let specials = [i32::MAX, i32::MIN, -1, 0, 7, -7, 1 << 20, 3];
    let a = ilanes(|l| specials[l % 8].wrapping_add((l / 8) as i32));
    let b = ilanes(|l| [1, -1, 0, 3, -2, 0, 31, 33][l / 8] + (l % 3) as i32);
    let c = ulanes(|l| [u32::MAX, 0, 5, 1 << 31][l % 4].wrapping_add(l as u32));
    let d = ulanes(|l| [0, 1, 31, 32, 33, 7, 2, 0][l % 8]);
    let ex = run(&p, &[vec![a], vec![b], vec![c], vec![d]], &[]);
    let (s, u, s2) = (
        [0, 1, 2, 3].map(|k| out_i(&ex, 0, k)),
        [0, 1, 2, 3].map(|k| out_u(&ex, 1, k)),
        [0, 1, 2, 3].map(|k| out_i(&ex, 2, k)),
    );
    for l in 0..64 {
        let (a, b) = (a[l].to_bits() as i32, b[l].to_bits() as i32);
        let (c, d) = (c[l].to_bits(), d[l].to_bits());
        let div = if b == 0 || (a == i32::MIN && b == -1) { a } else { a / b };
        let rem = if b == 0 || (a == i32::MIN && b == -1) { 0 } else { a % b };
        assert_eq!(
            [s[0][l], s[1][l], s[2][l], s[3][l]],
            [a.wrapping_add(b), a.wrapping_mul(b), div, rem],
            "i32 lane {l}: {a} {b}"
        );
        let udiv = c.checked_div(d).unwrap_or(c);
        let urem = c.checked_rem(d).unwrap_or(0);
        assert_eq!(
            [u[0][l], u[1][l], u[2][l], u[3][l]],
            [c.wrapping_sub(d), udiv, urem, c.wrapping_shl(d) ^ c.wrapping_shr(d)],
            "u32 lane {l}: {c} {d}"
        );
        let want3 = a
            .signum()
            .wrapping_mul(7)
            .wrapping_add(a.min(b))
            .wrapping_sub(a.max(b))
            .wrapping_add(a.clamp(-5, 5));
        assert_eq!(
            [s2[0][l], s2[1][l], s2[2][l], s2[3][l]],
            [a.wrapping_shr(b as u32), a.wrapping_neg(), a.wrapping_abs(), want3],
            "lane {l}"
        );
    }
}

#[test]
fn bit_builtins() {
    let p = fragment(
        "struct Out { @location(0) a: vec4<u32>, @location(1) b: vec4<u32>, @location(2) c: vec4<i32> }
        @fragment fn fs(@location(0) @interpolate(flat) x: u32, @location(1) @interpolate(flat) o: u32,
                        @location(2) @interpolate(flat) n: u32) -> Out {
            var r: Out;
            r.a = vec4<u32>(countOneBits(x), countLeadingZeros(x), countTrailingZeros(x), reverseBits(x));
            r.b = vec4<u32>(firstLeadingBit(x), firstTrailingBit(x), extractBits(x, o, n), insertBits(x, 0x5au, o, n));
            r.c = vec4<i32>(firstLeadingBit(i32(x)), extractBits(i32(x), o, n), dot4I8Packed(x, 0x01ff02feu), i32(dot4U8Packed(x, x)));
            return r;
        }",
    );
    let x = ulanes(|l| {
        [0u32, 1, 0x8000_0000, 0xffff_ffff, 0x1234_5678, 0x00f0_0f00, 0xdead_beef, 6][l % 8]
            .rotate_left(l as u32 / 8)
    });
    let o = ulanes(|l| [0, 4, 28, 31, 32, 40, 8, 1][l / 8]);
    let n = ulanes(|l| [0, 1, 4, 8, 32, 33, 5, 31][l % 8]);
    let ex = run(&p, &[vec![x], vec![o], vec![n]], &[]);
    let extract = |e: u32, off: u32, cnt: u32, signed: bool| {
        let off = off.min(32);
        let cnt = cnt.min(32 - off);
        if cnt == 0 {
            return 0u32;
        }
        let v = (e as u64 >> off) & ((1u64 << cnt) - 1);
        if signed && (v >> (cnt - 1)) & 1 == 1 { (v | (!0u64 << cnt)) as u32 } else { v as u32 }
    };
    let insert = |e: u32, nb: u32, off: u32, cnt: u32| {
        let off = off.min(32);
        let cnt = cnt.min(32 - off);
        let mask = (((1u64 << cnt) - 1) << off) as u32;
        (e & !mask) | (((nb as u64) << off) as u32 & mask)
    };
    let flb = |v: u32| if v == 0 { u32::MAX } else { 31 - v.leading_zeros() };
    let dot4 = |a: u32, b: u32, signed: bool| -> i32 {
        (0..4)
            .map(|i| {
                let (x, y) = ((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff);
                if signed { (x as u8 as i8 as i32) * (y as u8 as i8 as i32) } else { (x * y) as i32 }
            })
            .sum()
    };
    for l in 0..64 {
        let (x, o, n) = (x[l].to_bits(), o[l].to_bits(), n[l].to_bits());
        assert_eq!(
            out_u(&ex, 0, 0)[l..=l]
                .iter()
                .chain(&out_u(&ex, 0, 1)[l..=l])
                .chain(&out_u(&ex, 0, 2)[l..=l])
                .chain(&out_u(&ex, 0, 3)[l..=l])
                .copied()
                .collect::<Vec<_>>(),
            vec![x.count_ones(), x.leading_zeros(), x.trailing_zeros(), x.reverse_bits()],
            "lane {l}"
        );
        let ftb = if x == 0 { u32::MAX } else { x.trailing_zeros() };
        assert_eq!(
            [out_u(&ex, 1, 0)[l], out_u(&ex, 1, 1)[l], out_u(&ex, 1, 2)[l], out_u(&ex, 1, 3)[l]],
            [flb(x), ftb, extract(x, o, n, false), insert(x, 0x5a, o, n)],
            "lane {l}: x {x:#x} o {o} n {n}"
        );
        let signed_flb = if (x as i32) < 0 { flb(!x) } else { flb(x) };
        assert_eq!(
            [out_i(&ex, 2, 0)[l], out_i(&ex, 2, 1)[l], out_i(&ex, 2, 2)[l], out_i(&ex, 2, 3)[l]],
            [signed_flb as i32, extract(x, o, n, true) as i32, dot4(x, 0x01ff02fe, true), dot4(x, x, false)],
            "lane {l}: x {x:#x}"
        );
    }
}

#[test]
fn booleans_select_and_relational() {
    let p = fragment(
        "@fragment fn fs(@location(0) a: f32, @location(1) b: f32) -> @location(0) vec4<f32> {
            let p = a < b;
            let q = a >= 0.0;
            let v = vec3<bool>(p, q, a != b);
            let both = p && q;
            let either = p || !q;
            let x = select(a, b, p != q);
            let w = select(vec2<f32>(1.0, 2.0), vec2<f32>(3.0, 4.0), vec2<bool>(both, either));
            return vec4<f32>(x, f32(all(v)) + 2.0 * f32(any(v)), w.x, w.y);
        }",
    );
    let a = lanes(|l| (l % 8) as f32 - 3.0);
    let b = lanes(|l| (l / 8) as f32 - 3.0);
    let ex = run(&p, &[vec![a], vec![b]], &[]);
    for l in 0..64 {
        let (a, b) = (a[l], b[l]);
        let (p, q, r) = (a < b, a >= 0.0, a != b);
        let x = if p != q { b } else { a };
        let all = (p && q && r) as u32 as f32;
        let any = (p || q || r) as u32 as f32;
        let w = [if p && q { 3.0 } else { 1.0 }, if p || !q { 4.0 } else { 2.0 }];
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l], out(&ex, 0, 3)[l]],
            [x, all + 2.0 * any, w[0], w[1]],
            "lane {l}"
        );
    }
}

#[test]
fn swizzles_matrices_and_vector_geometry() {
    let p = fragment(
        "struct Out { @location(0) a: vec4<f32>, @location(1) b: vec4<f32>, @location(2) c: vec4<f32>, @location(3) d: vec4<f32> }
        @fragment fn fs(@location(0) v: vec4<f32>, @location(1) w: vec3<f32>) -> Out {
            let m = mat4x4<f32>(v, v.yzwx, v.zwxy * 2.0, vec4<f32>(1.0, -1.0, 0.5, 3.0));
            let n = mat3x3<f32>(w, w.zxy, vec3<f32>(0.25, 0.5, -1.0));
            var o: Out;
            o.a = m * v.wzyx;
            o.b = vec4<f32>(v.xy * m[1].zw, (w * n).yz);
            o.c = vec4<f32>(cross(w, v.xyz), determinant(n));
            o.d = vec4<f32>(dot(v, v.yxwz), length(w), distance(w, v.xyz), (transpose(n) * w).x)
                + vec4<f32>(normalize(w), 0.0) * 100.0
                + vec4<f32>(reflect(w, vec3<f32>(0.0, 1.0, 0.0)), 0.0) * 1000.0;
            return o;
        }",
    );
    let v: Vec<_> = (0..4).map(|c| lanes(|l| ((l * 7 + c * 3) % 11) as f32 * 0.5 - 2.0)).collect();
    let w: Vec<_> = (0..3).map(|c| lanes(|l| ((l * 5 + c * 2) % 9) as f32 * 0.25 + 0.1)).collect();
    let ex = run(&p, &[v.clone(), w.clone()], &[]);
    for l in 0..64 {
        let v = [v[0][l], v[1][l], v[2][l], v[3][l]];
        let w = [w[0][l], w[1][l], w[2][l]];
        let cols = [
            v,
            [v[1], v[2], v[3], v[0]],
            [v[2] * 2.0, v[3] * 2.0, v[0] * 2.0, v[1] * 2.0],
            [1.0, -1.0, 0.5, 3.0],
        ];
        let x = [v[3], v[2], v[1], v[0]];
        let mv: Vec<f32> = (0..4).map(|r| (0..4).map(|c| cols[c][r] * x[c]).sum()).collect();
        for r in 0..4 {
            close(out(&ex, 0, r)[l], mv[r], 1e-6, "mat4 * vec4");
        }
        let n = [w, [w[2], w[0], w[1]], [0.25, 0.5, -1.0]];
        let wn: Vec<f32> = (0..3).map(|c| (0..3).map(|r| w[r] * n[c][r]).sum()).collect();
        let b = [v[0] * cols[1][2], v[1] * cols[1][3], wn[1], wn[2]];
        for c in 0..4 {
            close(out(&ex, 1, c)[l], b[c], 1e-6, "vec * mat, column access");
        }
        let cross = [w[1] * v[2] - w[2] * v[1], w[2] * v[0] - w[0] * v[2], w[0] * v[1] - w[1] * v[0]];
        let det = n[0][0] * (n[1][1] * n[2][2] - n[2][1] * n[1][2])
            - n[1][0] * (n[0][1] * n[2][2] - n[2][1] * n[0][2])
            + n[2][0] * (n[0][1] * n[1][2] - n[1][1] * n[0][2]);
        for (c, want) in [cross[0], cross[1], cross[2], det].into_iter().enumerate() {
            close(out(&ex, 2, c)[l], want, 1e-5, "cross, determinant");
        }
        let len = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
        let dist = ((w[0] - v[0]).powi(2) + (w[1] - v[1]).powi(2) + (w[2] - v[2]).powi(2)).sqrt();
        let tn_x = (0..3).map(|r| n[0][r] * w[r]).sum::<f32>();
        let dot = v[0] * v[1] + v[1] * v[0] + v[2] * v[3] + v[3] * v[2];
        let refl = [w[0], -w[1], w[2]];
        let d = [
            dot + w[0] / len * 100.0 + refl[0] * 1000.0,
            len + w[1] / len * 100.0 + refl[1] * 1000.0,
            dist + w[2] / len * 100.0 + refl[2] * 1000.0,
            tn_x,
        ];
        for c in 0..4 {
            close(out(&ex, 3, c)[l], d[c], 2e-6, &format!("vector geometry {c}"));
        }
    }
}

#[test]
fn structs_and_arrays_with_dynamic_indices() {
    let p = fragment(
        "struct Light { color: vec3<f32>, power: f32 }
        struct Scene { lights: array<Light, 4>, weights: array<f32, 3> }
        @fragment fn fs(@location(0) @interpolate(flat) i: u32, @location(1) x: f32) -> @location(0) vec4<f32> {
            var s: Scene;
            for (var k = 0u; k < 4u; k++) {
                s.lights[k] = Light(vec3<f32>(f32(k), f32(k) * 2.0, x), f32(k) + 0.5);
            }
            s.weights = array<f32, 3>(10.0, 20.0, 30.0);
            s.lights[i % 4u].power = s.lights[i % 4u].power * 100.0;
            var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
            m[i % 2u][(i / 2u) % 2u] = x;
            let arr = array<f32, 5>(1.0, 2.0, 3.0, 4.0, 5.0);
            let lt = s.lights[(i + 1u) % 4u];
            return vec4<f32>(s.lights[i % 4u].power + lt.color.y, s.weights[i % 3u] + arr[i],
                             m[0][0] + m[0][1] * 10.0 + m[1][0] * 100.0 + m[1][1] * 1000.0, lt.color.z);
        }",
    );
    let i = ulanes(|l| l as u32);
    let x = lanes(|l| l as f32 * 0.5);
    let ex = run(&p, &[vec![i], vec![x]], &[]);
    for l in 0..64u32 {
        let li = l as usize;
        let k = l % 4;
        let power = (k as f32 + 0.5) * 100.0;
        let next = (l + 1) % 4;
        let arr = [1.0, 2.0, 3.0, 4.0, 5.0][(l as usize).min(4)];
        let mut m = [[1.0, 2.0], [3.0, 4.0]];
        m[(l % 2) as usize][((l / 2) % 2) as usize] = x[li];
        let want = [
            power + next as f32 * 2.0,
            [10.0, 20.0, 30.0][(l % 3) as usize] + arr,
            m[0][0] + m[0][1] * 10.0 + m[1][0] * 100.0 + m[1][1] * 1000.0,
            x[li],
        ];
        for c in 0..4 {
            assert_eq!(out(&ex, 0, c)[li], want[c], "lane {l} component {c}");
        }
    }
}

#[test]
fn conversions_and_packing() {
    let p = fragment(
        "struct Out { @location(0) a: vec4<i32>, @location(1) b: vec4<u32>, @location(2) c: vec4<f32>, @location(3) d: vec4<f32> }
        @fragment fn fs(@location(0) x: f32, @location(1) @interpolate(flat) n: i32) -> Out {
            var o: Out;
            o.a = vec4<i32>(i32(x), i32(u32(x)), bitcast<i32>(x), i32(x > 0.0) + i32(bool(n)) * 2);
            o.b = vec4<u32>(u32(x), bitcast<u32>(n), pack4x8unorm(vec4<f32>(x, -x, x * 0.1, 0.5)),
                            pack2x16float(vec2<f32>(x, f32(n))));
            o.c = vec4<f32>(f32(n), f32(u32(n)), unpack4x8snorm(u32(n)).xy);
            o.d = vec4<f32>(unpack2x16unorm(bitcast<u32>(n)), unpack2x16float(pack2x16float(vec2<f32>(x, 1.5))));
            return o;
        }",
    );
    let x = lanes(|l| [3.7, -3.7, 1e10, -1e10, 0.0, 0.49, 255.5, -0.0][l % 8] * (1 + l / 8) as f32);
    let n = ilanes(|l| [0, 1, -1, i32::MIN, i32::MAX, 0x7f80_0102, -300, 65535][l % 8] ^ (l as i32 / 8));
    let ex = run(&p, &[vec![x], vec![n]], &[]);
    let unorm8 = |v: f32| (0.5 + 255.0 * v.clamp(0.0, 1.0)).floor() as u32;
    for l in 0..64 {
        let (x, n) = (x[l], n[l].to_bits() as i32);
        assert_eq!(
            [out_i(&ex, 0, 0)[l], out_i(&ex, 0, 1)[l], out_i(&ex, 0, 2)[l], out_i(&ex, 0, 3)[l]],
            [x as i32, x as u32 as i32, x.to_bits() as i32, (x > 0.0) as i32 + (n != 0) as i32 * 2],
            "lane {l}"
        );
        let pack8 = unorm8(x) | unorm8(-x) << 8 | unorm8(x * 0.1) << 16 | unorm8(0.5) << 24;
        let pack16 = u32::from(f3d_hal::f32_to_f16(x)) | u32::from(f3d_hal::f32_to_f16(n as f32)) << 16;
        assert_eq!(
            [out_u(&ex, 1, 0)[l], out_u(&ex, 1, 1)[l], out_u(&ex, 1, 2)[l], out_u(&ex, 1, 3)[l]],
            [x as u32, n as u32, pack8, pack16],
            "lane {l}"
        );
        let snorm = |b: u32| ((b & 0xff) as u8 as i8 as f32 / 127.0).max(-1.0);
        let nu = n as u32;
        assert_eq!(
            [out(&ex, 2, 0)[l], out(&ex, 2, 1)[l], out(&ex, 2, 2)[l], out(&ex, 2, 3)[l]],
            [n as f32, nu as f32, snorm(nu), snorm(nu >> 8)]
        );
        let h = |v: f32| f3d_hal::f16_to_f32(f3d_hal::f32_to_f16(v));
        assert_eq!(
            [out(&ex, 3, 0)[l], out(&ex, 3, 1)[l], out(&ex, 3, 2)[l], out(&ex, 3, 3)[l]],
            [(nu & 0xffff) as f32 / 65535.0, (nu >> 16) as f32 / 65535.0, h(x), 1.5]
        );
    }
}

#[test]
fn uniform_and_varying_paths_agree_bit_for_bit() {
    // The same expression on a uniform-block value (computed once per batch, on one value)
    // and on a varying copy of it (computed per lane) must agree exactly.
    let p = fragment(
        "struct U { x: vec4<f32>, n: vec4<i32> }
        @group(0) @binding(0) var<uniform> u: U;
        @fragment fn fs(@location(0) vx: vec4<f32>, @location(1) @interpolate(flat) vn: vec4<i32>) -> @location(0) vec4<f32> {
            let fu = pow(abs(u.x.x), u.x.y) + exp2(u.x.z) * log2(abs(u.x.w) + 1.0) + f32(u.n.x / u.n.y) + sin(u.x.x);
            let fv = pow(abs(vx.x), vx.y) + exp2(vx.z) * log2(abs(vx.w) + 1.0) + f32(vn.x / vn.y) + sin(vx.x);
            return vec4<f32>(fu, fv, 0.0, 1.0);
        }",
    );
    let x = [1.7f32, 2.25, -3.5, 0.8];
    let n = [-17i32, 4, 0, 0];
    let mut bytes = Vec::new();
    for v in x {
        bytes.extend(v.to_le_bytes());
    }
    for v in n {
        bytes.extend(v.to_le_bytes());
    }
    let vx: Vec<_> = x.iter().map(|&c| lanes(|_| c)).collect();
    let vn: Vec<_> = n.iter().map(|&c| ilanes(|_| c)).collect();
    let ex = run(&p, &[vx, vn], &[Resource::UniformBlock(&bytes)]);
    for l in 0..64 {
        assert_eq!(out(&ex, 0, 0)[l].to_bits(), out(&ex, 0, 1)[l].to_bits(), "lane {l}");
    }
    assert!(p.instruction_count() > 0);
}
