//! Opaque draws, front to back by batch, lit with the shadow map and the environment.

use bevy_ecs::prelude::*;

use super::draw::{SceneTextures, draw_items, has_instancing};
use crate::render::graph::FrameGraph;
use crate::resources::StandardPasses;

/// Adds the opaque pass (it also clears the scene colour and depth when it is the first to
/// write them).
pub fn add_opaque_pass(mut frame_graph: ResMut<FrameGraph>, passes: Res<StandardPasses>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    if !passes.opaque {
        return;
    }
    let frame = view.frame.clone();
    let (hdr, depth) = (view.hdr, view.depth);
    let hdr_load = view.hdr_load();
    let depth_load = view.depth_load();
    let shadow = view.shadow_map.filter(|_| view.shadow_map_written);
    let (mut hdr_out, mut depth_out) = (hdr, depth);
    graph.add_pass("opaque", |pass| {
        if let Some(s) = shadow {
            pass.read_texture(s);
        }
        hdr_out = pass.write_color(hdr, hdr_load);
        depth_out = pass.write_depth(depth, depth_load);
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            let shadow_map = match shadow {
                Some(s) => Some(ctx.texture(s)?.clone()),
                None => None,
            };
            let instancing = has_instancing(ctx.device);
            let scene = SceneTextures { shadow_map: shadow_map.as_ref(), ..SceneTextures::default() };
            draw_items(ctx.encoder, instancing, &frame, &frame.opaque, scene)?;
            Ok(())
        }
    });
    view.hdr = hdr_out;
    view.depth = depth_out;
}
