//! Every compile stage, without a device: snapshots of the dump (and the Graphviz output) of
//! hand-built graphs, and the structural facts behind them.

mod common;

use common::{assert_snapshot, detached_texture, engine_frame, nothing, post_chain};
use f3d_hal::{Color, LoadOp, ResourceState, TextureFormat};
use f3d_render_graph::{RenderGraph, TextureDesc, TextureSize, Transition};

const OUTPUT: (u32, u32) = (1280, 720);

fn target() -> f3d_hal::TextureHandle {
    detached_texture("target", OUTPUT.0, OUTPUT.1, TextureFormat::Rgba8UnormSrgb)
}

#[test]
fn engine_frame_plan() {
    let mut graph = RenderGraph::new();
    let frame = engine_frame(&mut graph, target());
    let compiled = graph.compile(OUTPUT).unwrap();
    assert_eq!(
        compiled.order().collect::<Vec<_>>(),
        ["shadow", "depth_prepass", "opaque", "skybox", "scene_color_snapshot", "translucent", "tonemap"]
    );
    assert_eq!(compiled.culled().collect::<Vec<_>>(), ["debug_overlay"]);
    assert!(compiled.is_culled(frame.debug_overlay));
    assert!(!compiled.is_culled(frame.tonemap));
    // The culled pass's texture gets no memory.
    assert_eq!(compiled.lifetime(frame.debug), None);
    assert_eq!(compiled.physical_slot(frame.debug), None);
    assert_eq!(compiled.final_state(frame.target), Some(ResourceState::ColorAttachment));
    assert_snapshot("engine_frame", &compiled.dump());
}

#[test]
fn engine_frame_dot() {
    let mut graph = RenderGraph::new();
    engine_frame(&mut graph, target());
    let dot = graph.compile(OUTPUT).unwrap().to_dot();
    assert!(dot.starts_with("digraph render_graph {"));
    assert_snapshot("engine_frame_dot", &dot);
}

#[test]
fn graphs_are_send_and_sync() {
    // Sync too, so the plugin can keep the frame's graph in an ECS resource.
    fn shareable<T: Send + Sync>() {}
    shareable::<RenderGraph>();
    shareable::<f3d_render_graph::CompiledGraph>();
}

#[test]
fn graphs_are_built_on_one_thread_and_compiled_on_another() {
    let mut graph = RenderGraph::new();
    engine_frame(&mut graph, target());
    let compiled = std::thread::spawn(move || graph.compile(OUTPUT).unwrap()).join().unwrap();
    // And the compiled graph (closures included) moves on to the render thread.
    let order = std::thread::spawn(move || compiled.order().count()).join().unwrap();
    assert_eq!(order, 7);
}

#[test]
fn dumps_are_stable() {
    let dump = || {
        let mut graph = RenderGraph::new();
        engine_frame(&mut graph, target());
        let compiled = graph.compile(OUTPUT).unwrap();
        (compiled.dump(), compiled.to_dot())
    };
    assert_eq!(dump(), dump());
}

// --- order -----------------------------------------------------------------------------------

#[test]
fn order_keeps_insertion_order_when_valid_and_moves_stale_readers_first() {
    let mut graph = RenderGraph::new();
    let history = graph.import_texture("history", target(), ResourceState::ShaderRead);
    let a = graph.create_texture("a", TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm));
    let b = graph.create_texture("b", TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm));
    let mut a1 = a;
    graph.add_pass("write_a", |pass| {
        a1 = pass.write_color(a, LoadOp::Clear(Color::RED));
        nothing
    });
    // Overwrites the history texture...
    graph.add_pass("update_history", |pass| {
        pass.read_texture(a1);
        pass.write_color(history, LoadOp::Load);
        nothing
    });
    // ...which this pass, added later, reads as it was (version 0): it must run before.
    let mut b1 = b;
    graph.add_pass("reproject", |pass| {
        pass.read_texture(history);
        b1 = pass.write_color(b, LoadOp::Clear(Color::BLACK));
        nothing
    });
    graph.add_pass("independent", |pass| {
        pass.read_texture(b1);
        pass.keep_alive();
        let _ = pass.write_color(a1, LoadOp::Load);
        nothing
    });
    let compiled = graph.compile(OUTPUT).unwrap();
    assert_eq!(
        compiled.order().collect::<Vec<_>>(),
        ["write_a", "reproject", "update_history", "independent"]
    );
    assert_snapshot("order_stale_reader", &compiled.dump());
}

#[test]
fn order_breaks_ties_by_insertion() {
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("out", target(), ResourceState::Undefined);
    let names = ["c", "a", "d", "b"];
    let mut textures = Vec::new();
    for name in names {
        let t = graph.create_texture(name, TextureDesc::relative(0.25, TextureFormat::Rgba8Unorm));
        let mut v = t;
        graph.add_pass(name, |pass| {
            v = pass.write_color(t, LoadOp::Clear(Color::BLACK));
            nothing
        });
        textures.push(v);
    }
    graph.add_pass("gather", |pass| {
        for &t in textures.iter().rev() {
            pass.read_texture(t);
        }
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let compiled = graph.compile(OUTPUT).unwrap();
    assert_eq!(compiled.order().collect::<Vec<_>>(), ["c", "a", "d", "b", "gather"]);
}

// --- cull ------------------------------------------------------------------------------------

#[test]
fn culling_follows_needed_versions() {
    let mut graph = RenderGraph::new();
    let target = graph.import_texture("target", target(), ResourceState::Undefined);
    let desc = TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm);
    let unread = graph.create_texture("unread", desc);
    let chain = graph.create_texture("chain", desc);
    let kept = graph.create_texture("kept", desc);
    let loaded = graph.create_texture("loaded", desc);
    let output = graph.create_texture("output", desc);

    // Dead chain: its only reader is itself culled.
    let mut chain1 = chain;
    let dead_a = graph.add_pass("dead_producer", |pass| {
        chain1 = pass.write_color(chain, LoadOp::Clear(Color::RED));
        nothing
    });
    let dead_b = graph.add_pass("dead_consumer", |pass| {
        pass.read_texture(chain1);
        pass.write_color(unread, LoadOp::Clear(Color::RED));
        nothing
    });
    // Overwritten by a clear before anyone reads it: culled.
    let mut t1 = target;
    let cleared_over = graph.add_pass("cleared_over", |pass| {
        t1 = pass.write_color(target, LoadOp::Clear(Color::BLUE));
        nothing
    });
    // Kept alive though nothing reads what it writes: its write is discarded.
    graph.add_pass("side_effect", |pass| {
        pass.keep_alive();
        pass.write_color(kept, LoadOp::Clear(Color::RED));
        nothing
    });
    // Loaded by a live pass: needed.
    let mut loaded1 = loaded;
    graph.add_pass("loaded_producer", |pass| {
        loaded1 = pass.write_color(loaded, LoadOp::Clear(Color::GREEN));
        nothing
    });
    let mut loaded2 = loaded1;
    graph.add_pass("loader", |pass| {
        loaded2 = pass.write_color(loaded1, LoadOp::Load);
        nothing
    });
    let mut t2 = t1;
    graph.add_pass("final", |pass| {
        pass.read_texture(loaded2);
        t2 = pass.write_color(t1, LoadOp::Clear(Color::BLACK));
        nothing
    });
    // A transient marked as an output keeps its producer.
    let mut output1 = output;
    graph.add_pass("output_producer", |pass| {
        output1 = pass.write_color(output, LoadOp::Clear(Color::WHITE));
        nothing
    });
    graph.mark_output(output1);

    let compiled = graph.compile(OUTPUT).unwrap();
    assert_eq!(compiled.culled().collect::<Vec<_>>(), ["dead_producer", "dead_consumer", "cleared_over"]);
    for pass in [dead_a, dead_b, cleared_over] {
        assert!(compiled.is_culled(pass));
        assert!(compiled.transitions(pass).is_empty());
    }
    assert_eq!(
        compiled.order().collect::<Vec<_>>(),
        ["side_effect", "loaded_producer", "loader", "final", "output_producer"]
    );
    assert_eq!(compiled.lifetime(output), Some(4..6), "an output lives to the end");
    assert_snapshot("cull", &compiled.dump());
}

// --- lifetimes and aliasing ------------------------------------------------------------------

#[test]
fn post_chain_aliases_non_overlapping_transients() {
    let mut graph = RenderGraph::new();
    let [hdr, bright, blur_a, blur_b] = post_chain(&mut graph, target());
    let compiled = graph.compile(OUTPUT).unwrap();
    // scene, bright, blur_h, blur_v, composite
    assert_eq!(compiled.lifetime(hdr), Some(0..5));
    assert_eq!(compiled.lifetime(bright), Some(1..3));
    assert_eq!(compiled.lifetime(blur_a), Some(2..4));
    assert_eq!(compiled.lifetime(blur_b), Some(3..5));
    assert_eq!(compiled.physical_slot(bright), compiled.physical_slot(blur_b));
    assert_ne!(compiled.physical_slot(bright), compiled.physical_slot(blur_a));
    assert_ne!(compiled.physical_slot(hdr), compiled.physical_slot(bright));
    assert_eq!(compiled.physical_textures(), 3);
    // One half-resolution Rgba16Float texture (640x360x8 bytes) saved.
    assert_eq!(compiled.bytes_saved(), 640 * 360 * 8);
    assert_snapshot("alias_post_chain", &compiled.dump());
    assert_snapshot("alias_post_chain_dot", &compiled.to_dot());
}

#[test]
fn aliasing_needs_the_same_shape_and_never_touches_imports() {
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("out", target(), ResourceState::Undefined);
    let a = graph.create_texture("a", TextureDesc::relative(0.5, TextureFormat::Rgba16Float));
    // Same size as `a` at 1280x720, spelled absolutely: interchangeable.
    let b = graph.create_texture("b", TextureDesc::absolute(640, 360, TextureFormat::Rgba16Float));
    // Another format: never shares.
    let c = graph.create_texture("c", TextureDesc::absolute(640, 360, TextureFormat::Rgba8Unorm));
    let mut prev = None;
    for (name, t) in [("pass_a", a), ("pass_b", b), ("pass_c", c)] {
        let mut v = t;
        graph.add_pass(name, |pass| {
            if let Some(p) = prev {
                pass.read_texture(p);
            }
            v = pass.write_color(t, LoadOp::Clear(Color::BLACK));
            nothing
        });
        prev = Some(v);
    }
    graph.add_pass("present", |pass| {
        pass.read_texture(prev.unwrap());
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let compiled = graph.compile(OUTPUT).unwrap();
    // a lives pass_a..pass_b, b lives pass_b..pass_c: they overlap at pass_b, so no sharing.
    assert_ne!(compiled.physical_slot(a), compiled.physical_slot(b));
    assert_eq!(compiled.physical_slot(out), None);
    assert_eq!(compiled.bytes_saved(), 0);

    // With a pass in between, `a` is done before `b` starts, and they share.
    let mut graph = RenderGraph::new();
    let out = graph.import_texture("out", target(), ResourceState::Undefined);
    let a = graph.create_texture("a", TextureDesc::relative(0.5, TextureFormat::Rgba16Float));
    let mid = graph.create_texture("mid", TextureDesc::relative(0.5, TextureFormat::Rgba8Unorm));
    let b = graph.create_texture("b", TextureDesc::absolute(640, 360, TextureFormat::Rgba16Float));
    let (mut a1, mut mid1, mut b1) = (a, mid, b);
    graph.add_pass("pass_a", |pass| {
        a1 = pass.write_color(a, LoadOp::Clear(Color::BLACK));
        nothing
    });
    graph.add_pass("pass_mid", |pass| {
        pass.read_texture(a1);
        mid1 = pass.write_color(mid, LoadOp::Clear(Color::BLACK));
        nothing
    });
    graph.add_pass("pass_b", |pass| {
        pass.read_texture(mid1);
        b1 = pass.write_color(b, LoadOp::Clear(Color::BLACK));
        nothing
    });
    graph.add_pass("present", |pass| {
        pass.read_texture(b1);
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let compiled = graph.compile(OUTPUT).unwrap();
    assert_eq!(compiled.physical_slot(a), compiled.physical_slot(b));
    assert_ne!(compiled.physical_slot(a), compiled.physical_slot(mid));
    assert_eq!(compiled.bytes_saved(), 640 * 360 * 8);
}

#[test]
fn relative_sizes_follow_the_output() {
    let build = || {
        let mut graph = RenderGraph::new();
        let t = graph.create_texture(
            "third",
            TextureDesc::new(TextureSize::Relative { scale: 1.0 / 3.0 }, TextureFormat::Rgba8Unorm),
        );
        let mut t1 = t;
        graph.add_pass("p", |pass| {
            t1 = pass.write_color(t, LoadOp::Clear(Color::BLACK));
            nothing
        });
        graph.mark_output(t1);
        graph
    };
    assert!(
        build().compile((1280, 720)).unwrap().dump().contains("third transient output 427x240 Rgba8Unorm")
    );
    assert!(build().compile((1, 1)).unwrap().dump().contains("third transient output 1x1 Rgba8Unorm"));
}

// --- barriers --------------------------------------------------------------------------------

#[test]
fn barriers_follow_each_texture_through_the_frame() {
    let mut graph = RenderGraph::new();
    let frame = engine_frame(&mut graph, target());
    let compiled = graph.compile(OUTPUT).unwrap();
    let t = |texture, before, after| Transition { texture, before, after };
    assert_eq!(
        compiled.transitions(frame.shadow),
        [t(frame.shadow_map, ResourceState::Undefined, ResourceState::DepthStencilAttachment)]
    );
    assert_eq!(compiled.transitions(frame.opaque)[0].before, ResourceState::DepthStencilAttachment);
    assert_eq!(compiled.transitions(frame.opaque)[0].after, ResourceState::ShaderRead);
    // Opaque samples the version shadow wrote.
    assert!(compiled.transitions(frame.opaque)[0].texture.same_texture(frame.shadow_map));
    assert_eq!(compiled.transitions(frame.opaque)[0].texture.version(), 1);
    let tonemap = compiled.transitions(frame.tonemap);
    assert!(tonemap.iter().any(|x| x.texture.same_texture(frame.target)
        && x.before == ResourceState::Present
        && x.after == ResourceState::ColorAttachment));
    assert!(tonemap.iter().any(|x| x.texture.same_texture(frame.scene_color)
        && x.before == ResourceState::ColorAttachment
        && x.after == ResourceState::ShaderRead));
    // translucent reads depth in the state skybox left it in: no transition for depth.
    assert!(!compiled.transitions(frame.translucent).iter().any(|x| x.texture.same_texture(frame.depth)));
    assert_snapshot("barriers_engine_frame", &barrier_section(&compiled.dump()));
}

/// The `barriers:` and `final states:` sections of a dump.
fn barrier_section(dump: &str) -> String {
    dump.split_once("barriers:").map(|(_, rest)| format!("barriers:{rest}")).unwrap()
}
