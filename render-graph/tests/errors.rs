//! Each compile error, from the graph that causes it, naming its passes and textures.

mod common;

use common::{detached_texture, nothing};
use f3d_hal::{Color, LoadOp, ResourceState, TextureFormat};
use f3d_render_graph::{GraphError, RenderGraph, TextureDesc, TextureSize};

const OUTPUT: (u32, u32) = (64, 64);

fn color_desc() -> TextureDesc {
    TextureDesc::relative(1.0, TextureFormat::Rgba8Unorm)
}

#[test]
fn cycle_through_a_stale_read() {
    let mut graph = RenderGraph::new();
    let x = graph.create_texture("x", color_desc());
    let y = graph.create_texture("y", color_desc());
    let z = graph.create_texture("z", color_desc());
    let mut x1 = x;
    graph.add_pass("seed", |pass| {
        x1 = pass.write_color(x, LoadOp::Clear(Color::RED));
        nothing
    });
    let mut x2 = x1;
    graph.add_pass("overwrite_x", |pass| {
        x2 = pass.write_color(x1, LoadOp::Load);
        nothing
    });
    let mut y1 = y;
    graph.add_pass("derive_y", |pass| {
        pass.read_texture(x2);
        y1 = pass.write_color(y, LoadOp::Clear(Color::RED));
        nothing
    });
    // Reads x as it was before overwrite_x (so it must run before overwrite_x), and y, which
    // needs overwrite_x's result: no order satisfies both.
    graph.add_pass("stale", |pass| {
        pass.read_texture(x1);
        pass.read_texture(y1);
        pass.keep_alive();
        pass.write_color(z, LoadOp::Clear(Color::RED));
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    match &err {
        GraphError::Cycle { passes } => assert_eq!(passes, &["overwrite_x", "derive_y", "stale"]),
        other => panic!("expected a cycle, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        "the passes depend on each other in a cycle: overwrite_x -> derive_y -> stale -> overwrite_x"
    );
}

#[test]
fn read_before_write_of_a_transient() {
    let mut graph = RenderGraph::new();
    let out = graph.import_texture(
        "out",
        detached_texture("out", 64, 64, TextureFormat::Rgba8Unorm),
        ResourceState::Undefined,
    );
    let fresh = graph.create_texture("fresh", color_desc());
    graph.add_pass("sampler", |pass| {
        pass.read_texture(fresh);
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(
        matches!(&err, GraphError::ReadBeforeWrite { pass, resource } if pass == "sampler" && resource == "fresh"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "pass sampler reads fresh, which no pass has written");
}

#[test]
fn loading_an_unwritten_transient_is_a_read_before_write() {
    let mut graph = RenderGraph::new();
    let fresh = graph.create_texture("fresh", color_desc());
    graph.add_pass("blend_over", |pass| {
        pass.write_color(fresh, LoadOp::Load);
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(
        matches!(&err, GraphError::ReadBeforeWrite { pass, resource } if pass == "blend_over" && resource == "fresh")
    );
}

#[test]
fn importing_makes_version_zero_readable() {
    let mut graph = RenderGraph::new();
    let history = graph.import_texture(
        "history",
        detached_texture("history", 64, 64, TextureFormat::Rgba8Unorm),
        ResourceState::ShaderRead,
    );
    let out = graph.import_texture(
        "out",
        detached_texture("out", 64, 64, TextureFormat::Rgba8Unorm),
        ResourceState::Undefined,
    );
    graph.add_pass("reproject", |pass| {
        pass.read_texture(history);
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        nothing
    });
    assert!(graph.compile(OUTPUT).is_ok());
}

#[test]
fn two_writers_of_one_version() {
    let mut graph = RenderGraph::new();
    let out = graph.import_texture(
        "out",
        detached_texture("out", 64, 64, TextureFormat::Rgba8Unorm),
        ResourceState::Undefined,
    );
    graph.add_pass("first", |pass| {
        pass.write_color(out, LoadOp::Clear(Color::RED));
        nothing
    });
    graph.add_pass("second", |pass| {
        pass.write_color(out, LoadOp::Load);
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(
        matches!(&err, GraphError::TwoWriters { resource, version: 0, first, second }
            if resource == "out" && first == "first" && second == "second"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "passes first and second both write over version 0 of out");
}

#[test]
fn conflicting_access_in_one_pass() {
    let mut graph = RenderGraph::new();
    let t = graph.create_texture("feedback", color_desc());
    let mut t1 = t;
    graph.add_pass("seed", |pass| {
        t1 = pass.write_color(t, LoadOp::Clear(Color::RED));
        nothing
    });
    graph.add_pass("loop", |pass| {
        pass.read_texture(t1);
        pass.write_color(t1, LoadOp::Load);
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(
        matches!(&err, GraphError::ConflictingAccess { pass, resource, first: "sample", second: "color" }
            if pass == "loop" && resource == "feedback"),
        "{err:?}"
    );
}

#[test]
fn sampling_a_read_only_depth_attachment_is_not_a_conflict() {
    let mut graph = RenderGraph::new();
    let depth = graph.create_texture("depth", TextureDesc::depth(64, 64));
    let out = graph.import_texture(
        "out",
        detached_texture("out", 64, 64, TextureFormat::Rgba8Unorm),
        ResourceState::Undefined,
    );
    let mut d1 = depth;
    graph.add_pass("prepass", |pass| {
        d1 = pass.write_depth(depth, LoadOp::Clear(1.0));
        nothing
    });
    graph.add_pass("fog", |pass| {
        pass.read_depth(d1);
        pass.read_texture(d1);
        pass.write_color(out, LoadOp::Clear(Color::BLACK));
        nothing
    });
    let compiled = graph.compile(OUTPUT).unwrap();
    assert!(compiled.dump().contains("depth-read+sample"));
}

#[test]
fn two_depth_attachments() {
    let mut graph = RenderGraph::new();
    let a = graph.create_texture("depth_a", TextureDesc::depth(64, 64));
    let b = graph.create_texture("depth_b", TextureDesc::depth(64, 64));
    graph.add_pass("greedy", |pass| {
        pass.write_depth(a, LoadOp::Clear(1.0));
        pass.write_depth(b, LoadOp::Clear(1.0));
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(
        matches!(&err, GraphError::TwoDepthAttachments { pass, first, second }
            if pass == "greedy" && first == "depth_a" && second == "depth_b"),
        "{err:?}"
    );
}

#[test]
fn render_pass_without_attachment() {
    let mut graph = RenderGraph::new();
    let t = graph.create_texture("t", color_desc());
    let mut t1 = t;
    graph.add_pass("seed", |pass| {
        t1 = pass.write_color(t, LoadOp::Clear(Color::RED));
        nothing
    });
    graph.add_pass("only_samples", |pass| {
        pass.read_texture(t1);
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(matches!(&err, GraphError::NoAttachment { pass } if pass == "only_samples"), "{err:?}");
}

#[test]
fn handle_from_another_graph() {
    let mut other = RenderGraph::new();
    other.create_texture("a", color_desc());
    let foreign = other.create_texture("b", color_desc());
    let mut graph = RenderGraph::new();
    graph.create_texture("only", color_desc());
    graph.add_pass("confused", |pass| {
        pass.write_color(foreign, LoadOp::Clear(Color::RED));
        nothing
    });
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(
        matches!(&err, GraphError::UnknownResource { by, index: 1, version: 0 } if by == "pass confused"),
        "{err:?}"
    );

    let mut graph = RenderGraph::new();
    graph.mark_output(foreign);
    let err = graph.compile(OUTPUT).unwrap_err();
    assert!(matches!(&err, GraphError::UnknownResource { by, .. } if by == "mark_output"), "{err:?}");
}

#[test]
fn invalid_sizes() {
    for (size, reason) in [
        (TextureSize::Absolute(0, 16), "0x16 has no texels"),
        (TextureSize::Relative { scale: 0.0 }, "relative scale 0 is not a positive number"),
        (TextureSize::Relative { scale: f32::NAN }, "relative scale NaN is not a positive number"),
    ] {
        let mut graph = RenderGraph::new();
        let t = graph.create_texture("bad", TextureDesc::new(size, TextureFormat::Rgba8Unorm));
        graph.mark_output(t);
        let err = graph.compile(OUTPUT).unwrap_err();
        assert!(
            matches!(&err, GraphError::InvalidSize { resource, reason: r } if resource == "bad" && r == reason),
            "{err:?}"
        );
    }
}
