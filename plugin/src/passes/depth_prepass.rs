//! The depth prepass: opaque depth before shading, when a material reads the scene depth
//! (or [`DepthPrepass::Always`](crate::plugin::DepthPrepass::Always)).

use bevy_ecs::prelude::*;

use super::draw::{SceneTextures, draw_items, has_instancing};
use crate::render::graph::FrameGraph;

/// Adds the depth prepass when prepare made a draw list for it.
pub fn add_depth_prepass(mut frame_graph: ResMut<FrameGraph>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    if view.frame.depth_prepass.is_empty() {
        return;
    }
    let frame = view.frame.clone();
    let depth = view.depth;
    let load = view.depth_load();
    let mut written = depth;
    graph.add_pass("depth_prepass", |pass| {
        written = pass.write_depth(depth, load);
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            let instancing = has_instancing(ctx.device);
            draw_items(ctx.encoder, instancing, &frame, &frame.depth_prepass, SceneTextures::default())?;
            Ok(())
        }
    });
    view.depth = written;
}
