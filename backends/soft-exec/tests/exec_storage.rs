//! Read-only storage buffers: bound bytes read with WGSL's storage layout, runtime-sized arrays
//! indexed per lane and by constants, `arrayLength`, reads past the end, and what is refused.
// Assertions index inputs and outputs by lane, as the shaders do.
#![allow(clippy::needless_range_loop)]

mod exec_support;

use exec_support::*;
use f3d_soft_exec::{ExecError, Resource, ResourceKind};

/// The material-array shape: `Params` padded to 48 bytes per slot.
const SLOTS: &str = "
    struct Params { color: vec4<f32>, scale: f32, id: u32, flags: vec2<u32> }
    struct Slot { @align(16) @size(48) params: Params }
";

/// Bytes of one slot per WGSL's layout: `color` at 0, `scale` at 16, `id` at 20, `flags` at 24;
/// the padding (32..48) holds a pattern no field may read.
fn slot_bytes(color: [f32; 4], scale: f32, id: u32, flags: [u32; 2]) -> Vec<u8> {
    let mut b = Vec::with_capacity(48);
    for c in color {
        b.extend(c.to_le_bytes());
    }
    b.extend(scale.to_le_bytes());
    b.extend(id.to_le_bytes());
    b.extend(flags[0].to_le_bytes());
    b.extend(flags[1].to_le_bytes());
    b.resize(48, 0xab);
    b
}

/// Slot `i`'s values: distinct for every slot and every field.
fn slot_values(i: u32) -> ([f32; 4], f32, u32, [u32; 2]) {
    let f = i as f32;
    ([f + 0.5, f * 2.0 + 0.25, -f - 1.0, f * 10.0 + 3.0], 1.0 + f * 0.5, 100 + i, [1000 + i, 7 * i + 5])
}

/// `n` slots of [`slot_values`].
fn slots(n: u32) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            let (c, s, id, fl) = slot_values(i);
            slot_bytes(c, s, id, fl)
        })
        .collect()
}

#[test]
fn runtime_array_indexed_per_lane_in_vertex_stage() {
    let p = vertex(&format!(
        "{SLOTS}
        @group(1) @binding(0) var<storage, read> f3d_material_array: array<Slot>;
        var<private> p: Params;
        fn load_params(slot: u32) {{ p = f3d_material_array[slot].params; }}
        struct Out {{
            @builtin(position) pos: vec4<f32>,
            @location(0) color: vec4<f32>,
            @location(1) @interpolate(flat) ids: vec4<u32>,
        }}
        @vertex fn vs(@builtin(instance_index) slot: u32) -> Out {{
            load_params(slot);
            var o: Out;
            o.pos = vec4<f32>(0.0, 0.0, 0.0, 1.0);
            o.color = p.color * p.scale;
            o.ids = vec4<u32>(p.id, p.flags.x, p.flags.y, bitcast<u32>(p.scale));
            return o;
        }}"
    ));
    let itf = p.interface();
    assert_eq!(itf.resources.len(), 1);
    assert_eq!((itf.resources[0].group, itf.resources[0].binding), (1, 0));
    assert_eq!(itf.resources[0].kind, ResourceKind::StorageBuffer { min_size: 0 });
    assert_eq!(itf.resources[0].kind.binding_kind(), f3d_hal::BindingKind::StorageBuffer { read_only: true });
    let buffer = slots(5);
    let slot_of = |l: usize| ((l * 3) % 5) as u32;
    let ex = run(&p, &[vec![ulanes(slot_of)]], &[Resource::StorageBuffer(&buffer)]);
    for l in 0..64 {
        let (c, s, id, fl) = slot_values(slot_of(l));
        let color = [out(&ex, 1, 0)[l], out(&ex, 1, 1)[l], out(&ex, 1, 2)[l], out(&ex, 1, 3)[l]];
        assert_eq!(color, c.map(|x| x * s), "lane {l} color");
        let ids = [out_u(&ex, 2, 0)[l], out_u(&ex, 2, 1)[l], out_u(&ex, 2, 2)[l], out_u(&ex, 2, 3)[l]];
        assert_eq!(ids, [id, fl[0], fl[1], s.to_bits()], "lane {l} ids");
    }
}

#[test]
fn runtime_array_indexed_per_lane_in_fragment_stage() {
    let p = fragment(&format!(
        "{SLOTS}
        @group(0) @binding(0) var<storage> slots: array<Slot>;
        struct Out {{ @location(0) c: vec4<f32>, @location(1) ids: vec4<u32> }}
        @fragment fn fs(@location(0) @interpolate(flat) slot: u32) -> Out {{
            let params = slots[slot].params;
            return Out(params.color, vec4<u32>(params.id, params.flags, slots[slot].params.id));
        }}"
    ));
    let buffer = slots(4);
    let slot_of = |l: usize| (l % 4) as u32 ^ 1;
    let ex = run(&p, &[vec![ulanes(slot_of)]], &[Resource::StorageBuffer(&buffer)]);
    for l in 0..64 {
        let (c, _, id, fl) = slot_values(slot_of(l));
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l], out(&ex, 0, 3)[l]],
            c,
            "lane {l}"
        );
        let ids = [out_u(&ex, 1, 0)[l], out_u(&ex, 1, 1)[l], out_u(&ex, 1, 2)[l], out_u(&ex, 1, 3)[l]];
        assert_eq!(ids, [id, fl[0], fl[1], id], "lane {l}");
    }
}

/// A buffer with a fixed header before its runtime-sized array: `tint` at 16, `slots` at 32.
const HEADED: &str = "
    struct Buffer { count: u32, tint: vec4<f32>, slots: array<Slot> }
    @group(0) @binding(0) var<storage, read> buf: Buffer;
";

fn headed(tint: [f32; 4], n: u32) -> Vec<u8> {
    let mut b = 77u32.to_le_bytes().to_vec();
    b.resize(16, 0xcd);
    for t in tint {
        b.extend(t.to_le_bytes());
    }
    b.extend(slots(n));
    b
}

#[test]
fn constant_indices_and_fixed_members() {
    let p = fragment(&format!(
        "{SLOTS}{HEADED}
        struct Out {{ @location(0) a: vec4<f32>, @location(1) b: vec4<f32>, @location(2) ids: vec4<u32> }}
        @fragment fn fs() -> Out {{
            return Out(buf.slots[2].params.color, buf.tint,
                vec4<u32>(buf.count, buf.slots[0].params.id, buf.slots[3].params.flags.y, buf.slots[1].params.id));
        }}"
    ));
    assert_eq!(p.interface().resources[0].kind, ResourceKind::StorageBuffer { min_size: 32 });
    let tint = [0.1, 0.2, 0.3, 0.4];
    let buffer = headed(tint, 4);
    let ex = run(&p, &[], &[Resource::StorageBuffer(&buffer)]);
    for l in 0..64 {
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l], out(&ex, 0, 3)[l]],
            slot_values(2).0
        );
        assert_eq!([out(&ex, 1, 0)[l], out(&ex, 1, 1)[l], out(&ex, 1, 2)[l], out(&ex, 1, 3)[l]], tint);
        let ids = [out_u(&ex, 2, 0)[l], out_u(&ex, 2, 1)[l], out_u(&ex, 2, 2)[l], out_u(&ex, 2, 3)[l]];
        assert_eq!(ids, [77, slot_values(0).2, slot_values(3).3[1], slot_values(1).2]);
    }
}

#[test]
fn array_length_is_the_bound_length_over_the_stride() {
    let p = fragment(&format!(
        "{SLOTS}{HEADED}
        @group(0) @binding(1) var<storage, read> bare: array<Slot>;
        @fragment fn fs() -> @location(0) vec4<u32> {{
            return vec4<u32>(arrayLength(&buf.slots), arrayLength(&bare), 0u, 0u);
        }}"
    ));
    // The length is the same in every lane, so it is computed once per batch.
    assert!(p.dump().contains("ArrayLength { d: U("), "{}", p.dump());
    for (n_headed, extra, n_bare) in [(3u32, 0usize, 1u32), (7, 20, 12)] {
        let mut a = headed([0.0; 4], n_headed);
        a.resize(a.len() + extra, 0);
        let mut b = slots(n_bare);
        b.resize(b.len() + 47, 0);
        let ex = run(&p, &[], &[Resource::StorageBuffer(&a), Resource::StorageBuffer(&b)]);
        for l in 0..64 {
            assert_eq!(out_u(&ex, 0, 0)[l], (a.len() as u32 - 32) / 48, "lane {l}, {} bytes", a.len());
            assert_eq!(out_u(&ex, 0, 1)[l], n_bare, "lane {l}, {} bytes", b.len());
        }
    }
    // An empty buffer holds no element.
    let a = headed([0.0; 4], 0);
    let ex = run(&p, &[], &[Resource::StorageBuffer(&a), Resource::StorageBuffer(&[])]);
    assert_eq!((out_u(&ex, 0, 0)[0], out_u(&ex, 0, 1)[0]), (0, 0));
}

#[test]
fn indices_past_the_end_read_defined_values() {
    let p = fragment(&format!(
        "{SLOTS}
        @group(0) @binding(0) var<storage, read> slots: array<Slot>;
        struct Out {{ @location(0) c: vec4<f32>, @location(1) ids: vec4<u32> }}
        @fragment fn fs(@location(0) @interpolate(flat) slot: u32) -> Out {{
            let params = slots[slot].params;
            return Out(params.color, vec4<u32>(params.id, params.flags, slots[4000000000u].params.id));
        }}"
    ));
    let index = |l: usize| match l % 4 {
        0 => l as u32,
        1 => 3 + l as u32 * 1000,
        2 => u32::MAX - l as u32,
        _ => 0x8000_0000 + l as u32,
    };
    // Three slots: every index past the end reads the last one (WGSL allows any element).
    let buffer = slots(3);
    let ex = run(&p, &[vec![ulanes(index)]], &[Resource::StorageBuffer(&buffer)]);
    for l in 0..64 {
        let (c, _, id, fl) = slot_values(index(l).min(2));
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l], out(&ex, 0, 3)[l]],
            c,
            "lane {l}"
        );
        let ids = [out_u(&ex, 1, 0)[l], out_u(&ex, 1, 1)[l], out_u(&ex, 1, 2)[l], out_u(&ex, 1, 3)[l]];
        assert_eq!(ids, [id, fl[0], fl[1], slot_values(2).2], "lane {l}");
    }
    // No whole slot: what lies in the buffer is read, everything past its end reads as 0.
    let partial = &buffer[..20];
    let ex = run(&p, &[vec![ulanes(index)]], &[Resource::StorageBuffer(partial)]);
    let c = slot_values(0).0;
    for l in 0..64 {
        assert_eq!(
            [out(&ex, 0, 0)[l], out(&ex, 0, 1)[l], out(&ex, 0, 2)[l], out(&ex, 0, 3)[l]],
            c,
            "lane {l}"
        );
        let ids = [out_u(&ex, 1, 0)[l], out_u(&ex, 1, 1)[l], out_u(&ex, 1, 2)[l], out_u(&ex, 1, 3)[l]];
        assert_eq!(ids, [0; 4], "lane {l}");
    }
    let ex = run(&p, &[vec![ulanes(index)]], &[Resource::StorageBuffer(&[])]);
    for l in 0..64 {
        assert_eq!([out(&ex, 0, 0)[l], out(&ex, 0, 3)[l]], [0.0, 0.0], "lane {l}");
        assert_eq!([out_u(&ex, 1, 0)[l], out_u(&ex, 1, 3)[l]], [0, 0], "lane {l}");
    }
}

#[test]
fn binding_checks_size_and_kind() {
    let p = fragment(&format!(
        "{SLOTS}{HEADED}
        struct U {{ x: vec4<f32> }}
        @group(0) @binding(1) var<uniform> u: U;
        @fragment fn fs() -> @location(0) vec4<f32> {{ return buf.tint + u.x; }}"
    ));
    let block = [0u8; 16];
    let ok = headed([1.0; 4], 0);
    assert_eq!(ok.len(), 32);
    assert!(p.bind(&[Resource::StorageBuffer(&ok), Resource::UniformBlock(&block)]).is_ok());
    let short = &ok[..31];
    let err = p.bind(&[Resource::StorageBuffer(short), Resource::UniformBlock(&block)]).unwrap_err();
    assert!(matches!(err, ExecError::Binding { group: 0, binding: 0, .. }), "{err}");
    assert!(err.to_string().contains("32 bytes"), "{err}");
    let err = p.bind(&[Resource::UniformBlock(&ok), Resource::UniformBlock(&block)]).unwrap_err();
    assert!(matches!(err, ExecError::Binding { group: 0, binding: 0, .. }), "{err}");
    assert!(err.to_string().contains("got a uniform block"), "{err}");
    let err = p.bind(&[Resource::StorageBuffer(&ok), Resource::StorageBuffer(&block)]).unwrap_err();
    assert!(matches!(err, ExecError::Binding { group: 0, binding: 1, .. }), "{err}");
    assert!(err.to_string().contains("got a storage buffer"), "{err}");
}
