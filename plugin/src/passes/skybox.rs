//! The skybox: the environment's radiance behind everything the opaque pass left at the far
//! plane (a full-screen triangle at depth 1, depth-tested without writes).

use bevy_ecs::prelude::*;

use super::draw::{SceneTextures, bind_view};
use crate::render::graph::FrameGraph;
use crate::resources::StandardPasses;

/// Adds the skybox pass when there is an environment with a skybox.
pub fn add_skybox_pass(mut frame_graph: ResMut<FrameGraph>, passes: Res<StandardPasses>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    let Some(pipeline) = view.frame.skybox.clone() else { return };
    if !passes.skybox {
        return;
    }
    let frame = view.frame.clone();
    let hdr = view.hdr;
    let hdr_load = view.hdr_load();
    let depth = view.depth;
    let depth_ready = view.depth_written;
    let depth_load = view.depth_load();
    let (mut hdr_out, mut depth_out) = (hdr, depth);
    graph.add_pass("skybox", |pass| {
        hdr_out = pass.write_color(hdr, hdr_load);
        if depth_ready {
            pass.read_depth(depth);
        } else {
            // Nothing drew yet: a cleared depth buffer the sky passes everywhere.
            depth_out = pass.write_depth(depth, depth_load);
        }
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            ctx.encoder.set_pipeline(&pipeline.handle)?;
            bind_view(ctx.encoder, &pipeline, &frame, SceneTextures::default());
            ctx.encoder.draw(0..3, 0..1)?;
            Ok(())
        }
    });
    view.hdr = hdr_out;
    view.depth = depth_out;
}
