//! The depth prepass: opaque depth before shading, when a material reads the scene depth
//! (or [`DepthPrepass::Always`](crate::resources::DepthPrepass::Always)). With MSAA it draws the
//! single-sampled scene depth that materials sample (a multisampled depth buffer cannot be
//! sampled as one), and the opaque pass fills the multisampled depth itself.

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
    let multisampled = view.samples > 1;
    let (depth, load) = if multisampled {
        let desc = f3d_render_graph::TextureDesc::relative(1.0, crate::render::prepare::draws::DEPTH_FORMAT);
        (graph.create_texture("scene_depth", desc), f3d_hal::LoadOp::Clear(1.0))
    } else {
        (view.depth, view.depth_load())
    };
    let mut written = depth;
    graph.add_pass("depth_prepass", |pass| {
        written = pass.write_depth(depth, load);
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            let instancing = has_instancing(ctx.device);
            draw_items(ctx.encoder, instancing, &frame, &frame.depth_prepass, SceneTextures::default())?;
            Ok(())
        }
    });
    if multisampled {
        view.scene_depth = Some(written);
    } else {
        view.depth = written;
    }
}
