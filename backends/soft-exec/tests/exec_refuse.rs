//! Everything the executor does not run is refused at compile time with an error naming
//! the construct — never a panic, never a wrong picture.
// Assertions index inputs and outputs by lane, as the shaders do.
#![allow(clippy::needless_range_loop)]

mod exec_support;

use exec_support::*;
use f3d_hal::ShaderStage;
use f3d_soft_exec::ExecError;

#[track_caller]
fn refused(src: &str, stage: ShaderStage, entry: &str, construct: &str) {
    match try_compile(src, stage, entry) {
        Ok(_) => panic!("compiled, but should refuse {construct}"),
        Err(e @ ExecError::Unsupported { .. }) => {
            let text = e.to_string();
            assert!(text.contains(construct), "`{text}` does not name {construct}");
            assert!(text.contains(entry), "`{text}` does not name the entry point");
        }
        Err(e) => panic!("wrong error for {construct}: {e}"),
    }
}

#[test]
fn storage_and_atomics() {
    refused(
        "struct B { n: atomic<u32> }
        @group(0) @binding(0) var<storage, read_write> b: B;
        @fragment fn fs() -> @location(0) vec4<f32> { atomicAdd(&b.n, 1u); return vec4<f32>(1.0); }",
        ShaderStage::Fragment,
        "fs",
        "atomic operations",
    );
    // Read-only storage buffers run (`exec_storage.rs`); writable ones are refused, whether
    // or not the entry point stores to them.
    refused(
        "@group(0) @binding(0) var<storage, read_write> b: array<f32>;
        @fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> { b[1] = x; return vec4<f32>(b[0]); }",
        ShaderStage::Fragment,
        "fs",
        "writable storage buffers",
    );
    refused(
        "struct S { v: vec4<f32> }
        @group(0) @binding(0) var<storage, read_write> b: S;
        @vertex fn vs() -> @builtin(position) vec4<f32> { return b.v; }",
        ShaderStage::Vertex,
        "vs",
        "writable storage buffers",
    );
    refused(
        "@group(0) @binding(0) var st: texture_storage_2d<rgba8unorm, write>;
        @fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
            textureStore(st, vec2<i32>(p.xy), vec4<f32>(1.0)); return vec4<f32>(1.0);
        }",
        ShaderStage::Fragment,
        "fs",
        "storage textures",
    );
}

#[test]
fn compute_and_workgroup() {
    refused(
        "var<workgroup> w: array<u32, 64>;
        @compute @workgroup_size(64) fn cs(@builtin(local_invocation_index) i: u32) { w[i] = i; workgroupBarrier(); }",
        ShaderStage::Compute,
        "cs",
        "compute shaders",
    );
}

#[test]
fn ray_queries_and_subgroups() {
    refused(
        "enable wgpu_ray_query;
        @group(0) @binding(0) var acc: acceleration_structure;
        @fragment fn fs() -> @location(0) vec4<f32> {
            var rq: ray_query;
            rayQueryInitialize(&rq, acc, RayDesc(0u, 0xffu, 0.1, 100.0, vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0)));
            rayQueryProceed(&rq);
            return vec4<f32>(1.0);
        }",
        ShaderStage::Fragment,
        "fs",
        "acceleration structures",
    );
    refused(
        "@fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> { return vec4<f32>(subgroupAdd(x)); }",
        ShaderStage::Fragment,
        "fs",
        "subgroup operations",
    );
    refused(
        "@fragment fn fs(@builtin(subgroup_size) n: u32) -> @location(0) vec4<f32> { return vec4<f32>(f32(n)); }",
        ShaderStage::Fragment,
        "fs",
        "subgroup",
    );
}

#[test]
fn textures_the_device_has_no_view_for() {
    for (decl, call, what) in [
        ("texture_1d<f32>", "textureLoad(t, 0, 0)", "1D textures"),
        ("texture_3d<f32>", "textureLoad(t, vec3<i32>(0), 0)", "3D textures"),
        ("texture_multisampled_2d<f32>", "textureLoad(t, vec2<i32>(0), 0)", "multisampled textures"),
        ("texture_cube_array<f32>", "vec4<f32>(f32(textureNumLayers(t)))", "cube array textures"),
    ] {
        let src = format!(
            "@group(0) @binding(0) var t: {decl};
            @fragment fn fs() -> @location(0) vec4<f32> {{ return {call}; }}"
        );
        refused(&src, ShaderStage::Fragment, "fs", what);
    }
}

#[test]
fn types_and_io_the_executor_does_not_hold() {
    refused(
        "enable f16;
        @fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> { let h = f16(x) * 2.0h; return vec4<f32>(f32(h)); }",
        ShaderStage::Fragment,
        "fs",
        "f16",
    );
    refused(
        "struct O { @location(0) c: vec4<f32>, @builtin(sample_mask) m: u32 }
        @fragment fn fs() -> O { return O(vec4<f32>(1.0), 1u); }",
        ShaderStage::Fragment,
        "fs",
        "the builtin `sample_mask`",
    );
    refused(
        "enable dual_source_blending;
        struct O { @location(0) @blend_src(0) a: vec4<f32>, @location(0) @blend_src(1) b: vec4<f32> }
        @fragment fn fs() -> O { return O(vec4<f32>(1.0), vec4<f32>(0.5)); }",
        ShaderStage::Fragment,
        "fs",
        "dual-source blending",
    );
    refused(
        "enable clip_distances;
        struct O { @builtin(position) p: vec4<f32>, @builtin(clip_distances) d: array<f32, 1> }
        @vertex fn vs() -> O { return O(vec4<f32>(0.0), array<f32, 1>(1.0)); }",
        ShaderStage::Vertex,
        "vs",
        "clip_distances",
    );
    refused(
        "override k: f32;
        @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(k); }",
        ShaderStage::Fragment,
        "fs",
        "pipeline-overridable constant",
    );
}

#[test]
fn missing_entry_points_are_named() {
    let src = "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }";
    let err = try_compile(src, ShaderStage::Vertex, "fs").unwrap_err();
    assert!(matches!(err, ExecError::NoEntryPoint { ref entry_point, .. } if entry_point == "fs"), "{err}");
    assert!(try_compile(src, ShaderStage::Fragment, "nope").is_err());
}

#[test]
fn overrides_with_defaults_are_used() {
    let p = fragment(
        "override k: f32 = 2.5;
        @fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(k); }",
    );
    let ex = run(&p, &[], &[]);
    assert_eq!(out(&ex, 0, 0)[5], 2.5);
}
