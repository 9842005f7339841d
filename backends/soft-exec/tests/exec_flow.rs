//! Control flow over lane masks: loops with per-lane trip counts, nested branches, switches,
//! inlined calls with early returns, discard, and derivatives on quads.
// Assertions index inputs and outputs by lane, as the shaders do.
#![allow(clippy::needless_range_loop)]

mod exec_support;

use exec_support::*;
use f3d_soft_exec::{Builtin, Executor, IoKind, Resource, bool_lanes};

#[test]
fn loops_run_until_every_lane_leaves() {
    let p = fragment(
        "@fragment fn fs(@location(0) @interpolate(flat) n: i32, @location(1) limit: f32) -> @location(0) vec4<f32> {
            var acc = 0.0;
            var steps = 0;
            for (var i = 0; i < n; i++) {
                steps += 1;
                if (i % 3 == 1) { continue; }
                acc += f32(i);
                if (acc > limit) { break; }
            }
            var j = 0;
            loop {
                j += 2;
                continuing { break if j >= n; }
            }
            return vec4<f32>(acc, f32(steps), f32(j), 1.0);
        }",
    );
    let n = ilanes(|l| (l as i32 * 7) % 23 - 2);
    let limit = lanes(|l| (l % 5) as f32 * 6.0);
    let ex = run(&p, &[vec![n], vec![limit]], &[]);
    for l in 0..64 {
        let n = n[l].to_bits() as i32;
        let (mut acc, mut steps) = (0.0f32, 0);
        let mut i = 0;
        while i < n {
            steps += 1;
            if i % 3 != 1 {
                acc += i as f32;
                if acc > limit[l] {
                    break;
                }
            }
            i += 1;
        }
        let mut j = 0;
        loop {
            j += 2;
            if j >= n {
                break;
            }
        }
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l]],
            [acc, steps as f32, j as f32],
            "lane {l}, n = {n}"
        );
    }
}

#[test]
fn uniform_loop_over_uniform_lights() {
    let p = fragment(
        "struct Light { dir: vec4<f32>, color: vec4<f32> }
        struct Lights { count: u32, lights: array<Light, 4> }
        @group(0) @binding(0) var<uniform> l: Lights;
        @fragment fn fs(@location(0) n: vec3<f32>) -> @location(0) vec4<f32> {
            var c = vec3<f32>(0.0);
            for (var i = 0u; i < l.count; i++) {
                c += max(dot(n, l.lights[i].dir.xyz), 0.0) * l.lights[i].color.rgb;
            }
            return vec4<f32>(c, 1.0);
        }",
    );
    let mut bytes = vec![0u8; 16];
    bytes[..4].copy_from_slice(&3u32.to_le_bytes());
    let lights = [
        ([0.0f32, 1.0, 0.0, 0.0], [1.0f32, 0.5, 0.25, 0.0]),
        ([1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]),
        ([0.0, 0.0, 1.0, 0.0], [0.5, 0.5, 0.5, 0.0]),
        ([9.0, 9.0, 9.0, 0.0], [9.0, 9.0, 9.0, 0.0]),
    ];
    for (d, c) in lights {
        for v in d.iter().chain(&c) {
            bytes.extend(v.to_le_bytes());
        }
    }
    let nrm: Vec<_> = (0..3).map(|c| lanes(|l| ((l * (c + 2)) % 7) as f32 / 3.0 - 1.0)).collect();
    let ex = run(&p, std::slice::from_ref(&nrm), &[Resource::UniformBlock(&bytes)]);
    for l in 0..64 {
        let n = [nrm[0][l], nrm[1][l], nrm[2][l]];
        let mut c = [0.0f32; 3];
        for (d, col) in &lights[..3] {
            let k = (n[0] * d[0] + n[1] * d[1] + n[2] * d[2]).max(0.0);
            for i in 0..3 {
                c[i] += k * col[i];
            }
        }
        for i in 0..3 {
            close(out(&ex, 0, i)[l], c[i], 1e-6, "light sum");
        }
    }
    // The loop counter and the light data are uniform: only the per-lane lighting varies.
    let stats = p.stats();
    assert!(stats.uniform_instructions > 0, "{stats:?}");
}

#[test]
fn nested_branches_and_switch() {
    let p = fragment(
        "fn classify(x: i32) -> i32 {
            if (x < 0) { return -1; }
            if (x == 0) { return 0; }
            var r = 0;
            switch (x % 5) {
                case 1, 2: { r = 10; }
                case 3: { r = 30; if (x > 20) { break; } r += 1; }
                default: { r = 99; }
            }
            return r + x;
        }
        @fragment fn fs(@location(0) @interpolate(flat) x: i32, @location(1) y: f32) -> @location(0) vec4<f32> {
            var a = 0.0;
            if (y > 0.5) {
                if (y > 2.0) { a = 3.0; } else { a = 2.0; }
            } else if (y > -0.5) {
                a = 1.0;
            } else {
                a = -1.0;
                if (x > 10) { a = -2.0; }
            }
            return vec4<f32>(f32(classify(x)), a, 0.0, 1.0);
        }",
    );
    let x = ilanes(|l| l as i32 - 20);
    let y = lanes(|l| (l % 9) as f32 * 0.6 - 1.5);
    let ex = run(&p, &[vec![x], vec![y]], &[]);
    for l in 0..64 {
        let x = l as i32 - 20;
        let class = if x < 0 {
            -1
        } else if x == 0 {
            0
        } else {
            let r = match x % 5 {
                1 | 2 => 10,
                3 => {
                    if x > 20 {
                        30
                    } else {
                        31
                    }
                }
                _ => 99,
            };
            r + x
        };
        let y = y[l];
        let a = if y > 0.5 {
            if y > 2.0 { 3.0 } else { 2.0 }
        } else if y > -0.5 {
            1.0
        } else if x > 10 {
            -2.0
        } else {
            -1.0
        };
        assert_eq!([out(&ex, 0, 0)[l], out(&ex, 0, 1)[l]], [class as f32, a], "lane {l}");
    }
}

#[test]
fn calls_with_pointers_and_private_globals() {
    let p = fragment(
        "var<private> counter: i32 = 5;
        fn bump(p: ptr<function, f32>, by: f32) { *p = *p + by; counter += 1; }
        fn first_positive(v: vec4<f32>) -> i32 {
            for (var i = 0; i < 4; i++) {
                if (v[i] > 0.0) { return i; }
            }
            return -1;
        }
        @fragment fn fs(@location(0) v: vec4<f32>) -> @location(0) vec4<f32> {
            var x = v.x;
            bump(&x, 2.0);
            bump(&x, v.y);
            return vec4<f32>(x, f32(first_positive(v)), f32(counter), 1.0);
        }",
    );
    let v: Vec<_> =
        (0..4).map(|c| lanes(|l| if (l >> c) & 1 == 1 { 1.0 + c as f32 } else { -1.0 })).collect();
    let ex = run(&p, std::slice::from_ref(&v), &[]);
    for l in 0..64 {
        let comps = [v[0][l], v[1][l], v[2][l], v[3][l]];
        let first = comps.iter().position(|&c| c > 0.0).map_or(-1, |i| i as i32);
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l]],
            [comps[0] + 2.0 + comps[1], first as f32, 7.0],
            "lane {l}"
        );
    }
}

#[test]
fn discard_kills_lanes_and_keeps_the_rest() {
    let p = fragment(
        "fn maybe_discard(x: f32) { if (x < 0.0) { discard; } }
        @fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> {
            var s = 0.0;
            for (var i = 0; i < 8; i++) {
                s += x;
                if (s > 20.0) { discard; }
            }
            maybe_discard(x);
            return vec4<f32>(s, 1.0, 0.0, 1.0);
        }",
    );
    let x = lanes(|l| l as f32 * 0.1 - 1.0);
    let ex = run(&p, &[vec![x]], &[]);
    let mut want_discarded = 0u64;
    for l in 0..64 {
        let x = x[l];
        let killed = x * 8.0 > 20.0 || x < 0.0 || (1..=8).any(|k| x * k as f32 > 20.0);
        if killed {
            want_discarded |= 1 << l;
        } else {
            let mut s = 0.0f32;
            for _ in 0..8 {
                s += x;
            }
            assert_eq!(out(&ex, 0, 0)[l], s, "lane {l}");
        }
    }
    assert_eq!(ex.discarded(), want_discarded);
    assert!(p.interface().may_discard);

    // Every lane discarded: the batch ends early and reports all of them.
    let all = fragment(
        "@fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> {
            loop { if (x > -100.0) { discard; } }
            return vec4<f32>(0.0);
        }",
    );
    let ex = run(&all, &[vec![x]], &[]);
    assert_eq!(ex.discarded(), u64::MAX);
}

#[test]
fn derivatives_on_quads() {
    let p = fragment(
        "@fragment fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
            let f = 2.0 * pos.x + 3.0 * pos.y;
            let g = pos.x * pos.y;
            return vec4<f32>(dpdx(f), dpdy(f), fwidth(f), dpdxFine(g) + 100.0 * dpdyCoarse(g));
        }",
    );
    let slot = p.interface().input_builtin(Builtin::Position).expect("position input");
    assert_eq!(slot, 0);
    // An 8x8 tile of quads: quad q covers pixels (2*(q%4), 2*(q/4)) .. +1, lanes in quad order.
    let px = |l: usize| (2 * ((l / 4) % 4) + (l % 2)) as f32 + 0.5;
    let py = |l: usize| (2 * ((l / 4) / 4) + (l % 4) / 2) as f32 + 0.5;
    let pos = vec![lanes(px), lanes(py), lanes(|_| 0.5), lanes(|_| 1.0)];
    let ex = run(&p, &[pos], &[]);
    for l in 0..64 {
        let q = l / 4 * 4;
        let row = if l % 4 < 2 { q } else { q + 2 };
        let g = |i: usize| px(i) * py(i);
        let fine_x = g(row + 1) - g(row);
        let coarse_y = g(q + 2) - g(q);
        assert_eq!([out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l]], [2.0, 3.0, 5.0], "lane {l}");
        assert_eq!(out(&ex, 0, 3)[l], fine_x + 100.0 * coarse_y, "lane {l}");
    }
}

#[test]
fn empty_quads_do_not_run() {
    // Lanes of uncovered quads hold garbage (here a NaN trip count) and must not run.
    let p = fragment(
        "@fragment fn fs(@location(0) n: f32) -> @location(0) vec4<f32> {
            var i = 0.0;
            while (i < n) { i += 1.0; }
            return vec4<f32>(i, 0.0, 0.0, 1.0);
        }",
    );
    let n = lanes(|l| if l < 8 { 3.0 } else { f32::INFINITY });
    let active = 0b0001_0010u64; // lanes 1 and 4: quads 0 and 1
    let ex = run_active(&p, &[vec![n]], &[], active);
    assert_eq!(out(&ex, 0, 0)[1], 3.0);
    assert_eq!(out(&ex, 0, 0)[0], 3.0, "helper lanes of a covered quad run too");
    assert_eq!(ex.discarded(), 0);
}

#[test]
fn vertex_stage_io() {
    let p = vertex(
        "struct Out { @builtin(position) pos: vec4<f32>, @location(0) uv: vec2<f32>, @location(3) @interpolate(flat) id: u32 }
        @vertex fn vs(@location(0) p: vec3<f32>, @builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32) -> Out {
            var o: Out;
            o.pos = vec4<f32>(p * 2.0, 1.0);
            o.uv = p.xy + vec2<f32>(f32(ii));
            o.id = vi * 10u + ii;
            return o;
        }",
    );
    let itf = p.interface();
    assert_eq!(itf.inputs.len(), 3);
    assert!(matches!(itf.inputs[0].kind, IoKind::Location { location: 0, .. }));
    assert_eq!(itf.input_builtin(Builtin::VertexIndex), Some(1));
    assert_eq!(itf.output_builtin(Builtin::Position), Some(0));
    assert_eq!(itf.output_location(3), Some(2));
    let pos: Vec<_> = (0..3).map(|c| lanes(|l| l as f32 + c as f32 * 100.0)).collect();
    let ex = run(&p, &[pos.clone(), vec![ulanes(|l| l as u32)], vec![ulanes(|_| 2)]], &[]);
    for l in 0..64 {
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l], out(&ex, 0, 3)[l]],
            [pos[0][l] * 2.0, pos[1][l] * 2.0, pos[2][l] * 2.0, 1.0]
        );
        assert_eq!([out(&ex, 1, 0)[l], out(&ex, 1, 1)[l]], [pos[0][l] + 2.0, pos[1][l] + 2.0]);
        assert_eq!(out_u(&ex, 2, 0)[l], l as u32 * 10 + 2);
    }
}

#[test]
fn front_facing_and_frag_depth() {
    let p = fragment(
        "struct Out { @location(0) c: vec4<f32>, @builtin(frag_depth) d: f32 }
        @fragment fn fs(@builtin(front_facing) ff: bool, @location(0) z: f32) -> Out {
            var o: Out;
            o.c = select(vec4<f32>(0.0, 0.0, 1.0, 1.0), vec4<f32>(1.0, 0.0, 0.0, 1.0), ff);
            o.d = z * 0.5;
            return o;
        }",
    );
    let ff = p.interface().input_builtin(Builtin::FrontFacing).unwrap();
    let depth = p.interface().output_builtin(Builtin::FragDepth).unwrap();
    let mask = 0x0f0f_f0f0_1234_5678u64;
    let mut inputs = vec![vec![], vec![]];
    inputs[ff] = vec![bool_lanes(mask)];
    inputs[1 - ff] = vec![lanes(|l| l as f32)];
    let ex: Executor<'_> = run(&p, &inputs, &[]);
    for l in 0..64 {
        assert_eq!(out(&ex, 0, 0)[l], if mask >> l & 1 == 1 { 1.0 } else { 0.0 });
        assert_eq!(out(&ex, depth, 0)[l], l as f32 * 0.5);
    }
}

#[test]
fn runaway_loops_are_abandoned_not_hung() {
    let p = fragment(
        "@fragment fn fs(@location(0) n: f32) -> @location(0) vec4<f32> {
            var i = 0.0;
            while (i < n) { i += 0.0; }
            return vec4<f32>(i, 0.0, 0.0, 1.0);
        }",
    );
    let ex = run(&p, &[vec![lanes(|_| 1.0)]], &[]);
    assert_eq!(ex.discarded(), u64::MAX);
}
