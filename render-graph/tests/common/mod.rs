//! Helpers shared by the graph's tests: device-free textures, snapshots, and the frame shapes
//! the tests compile.

#![allow(dead_code)] // each test binary uses its own subset

pub mod three_pass;

use std::path::PathBuf;

use f3d_hal::backend::wrap_texture;
use f3d_hal::{
    BackendId, Color, DeviceOwner, LoadOp, ResourceState, TextureDescriptor, TextureFormat, TextureHandle,
};
use f3d_render_graph::{PassContext, PassResult, RenderGraph, TextureDesc, TextureId};

/// A texture handle with no device behind it: compile reads only its descriptor, so
/// device-free tests can import targets.
pub fn detached_texture(label: &str, width: u32, height: u32, format: TextureFormat) -> TextureHandle {
    let owner = DeviceOwner::new(BackendId::new("detached"), "graph tests");
    wrap_texture(&owner, TextureDescriptor::new_2d(label, width, height, format), ())
}

/// A closure that records nothing.
pub fn nothing(_: &mut PassContext<'_>) -> PassResult {
    Ok(())
}

/// Compares `actual` with `tests/snapshots/<name>.txt`. `F3D_BLESS=1` (re)writes the file;
/// a mismatch writes the actual text under the target directory and fails with both.
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(format!("{name}.txt"));
    if std::env::var_os("F3D_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("snapshot {} unreadable ({e}); F3D_BLESS=1 writes it", path.display()));
    if expected != actual {
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.actual.txt"));
        std::fs::write(&out, actual).unwrap();
        panic!(
            "snapshot {name} differs (actual written to {}; F3D_BLESS=1 accepts it)\n--- expected\n{expected}\n--- actual\n{actual}",
            out.display()
        );
    }
}

/// The handles of the engine's frame, for assertions.
pub struct EngineFrame {
    pub shadow_map: TextureId,
    pub depth: TextureId,
    pub scene_color: TextureId,
    pub snapshot: TextureId,
    pub debug: TextureId,
    pub target: TextureId,
    pub shadow: f3d_render_graph::PassId,
    pub opaque: f3d_render_graph::PassId,
    pub translucent: f3d_render_graph::PassId,
    pub tonemap: f3d_render_graph::PassId,
    pub debug_overlay: f3d_render_graph::PassId,
}

/// The engine's own frame: shadow → depth prepass → opaque → skybox → scene-colour snapshot →
/// translucent → tonemap, plus a debug overlay nobody reads (culled).
pub fn engine_frame(graph: &mut RenderGraph, target: TextureHandle) -> EngineFrame {
    let shadow_map = graph.create_texture("shadow_map", TextureDesc::depth(2048, 2048));
    let depth = graph.create_texture("depth", TextureDesc::relative(1.0, TextureFormat::Depth32Float));
    let scene_color =
        graph.create_texture("scene_color", TextureDesc::relative(1.0, TextureFormat::Rgba16Float));
    let snapshot =
        graph.create_texture("scene_snapshot", TextureDesc::relative(1.0, TextureFormat::Rgba16Float));
    let debug = graph.create_texture("debug", TextureDesc::relative(0.5, TextureFormat::Rgba8Unorm));
    let target = graph.import_texture("target", target, ResourceState::Present);

    let mut shadow_v = shadow_map;
    let shadow = graph.add_pass("shadow", |pass| {
        shadow_v = pass.write_depth(shadow_map, LoadOp::Clear(1.0));
        nothing
    });
    let mut depth_v = depth;
    graph.add_pass("depth_prepass", |pass| {
        depth_v = pass.write_depth(depth, LoadOp::Clear(1.0));
        nothing
    });
    let mut scene_v = scene_color;
    let opaque = graph.add_pass("opaque", |pass| {
        pass.read_texture(shadow_v);
        depth_v = pass.write_depth(depth_v, LoadOp::Load);
        scene_v = pass.write_color(scene_color, LoadOp::Clear(Color::BLACK));
        nothing
    });
    graph.add_pass("skybox", |pass| {
        pass.read_depth(depth_v);
        scene_v = pass.write_color(scene_v, LoadOp::Load);
        nothing
    });
    let snapshot_v = graph.add_copy_pass("scene_color_snapshot", scene_v, snapshot);
    let translucent = graph.add_pass("translucent", |pass| {
        pass.read_texture(snapshot_v);
        pass.read_depth(depth_v);
        scene_v = pass.write_color(scene_v, LoadOp::Load);
        nothing
    });
    let tonemap = graph.add_pass("tonemap", |pass| {
        pass.read_texture(scene_v);
        pass.write_color(target, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let debug_overlay = graph.add_pass("debug_overlay", |pass| {
        pass.read_texture(depth_v);
        pass.write_color(debug, LoadOp::Clear(Color::TRANSPARENT));
        nothing
    });
    EngineFrame {
        shadow_map,
        depth,
        scene_color,
        snapshot,
        debug,
        target,
        shadow,
        opaque,
        translucent,
        tonemap,
        debug_overlay,
    }
}

/// A bloom-like post chain at half resolution: bright → blur_h → blur_v → composite. The
/// bright and blur_v targets never live at the same time, so they can share memory.
pub fn post_chain(graph: &mut RenderGraph, target: TextureHandle) -> [TextureId; 4] {
    let hdr = graph.create_texture("hdr", TextureDesc::relative(1.0, TextureFormat::Rgba16Float));
    let half = TextureDesc::relative(0.5, TextureFormat::Rgba16Float);
    let bright = graph.create_texture("bright", half);
    let blur_a = graph.create_texture("blur_a", half);
    let blur_b = graph.create_texture("blur_b", half);
    let target = graph.import_texture("target", target, ResourceState::Undefined);
    let mut hdr_v = hdr;
    graph.add_pass("scene", |pass| {
        hdr_v = pass.write_color(hdr, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let mut bright_v = bright;
    graph.add_pass("bright", |pass| {
        pass.read_texture(hdr_v);
        bright_v = pass.write_color(bright, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let mut a_v = blur_a;
    graph.add_pass("blur_h", |pass| {
        pass.read_texture(bright_v);
        a_v = pass.write_color(blur_a, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let mut b_v = blur_b;
    graph.add_pass("blur_v", |pass| {
        pass.read_texture(a_v);
        b_v = pass.write_color(blur_b, LoadOp::Clear(Color::BLACK));
        nothing
    });
    graph.add_pass("composite", |pass| {
        pass.read_texture(hdr_v);
        pass.read_texture(b_v);
        pass.write_color(target, LoadOp::Clear(Color::BLACK));
        nothing
    });
    [hdr, bright, blur_a, blur_b]
}
