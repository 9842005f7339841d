//! Translucent draws, back to front by instance, over the opaque scene; materials may read
//! the scene-colour snapshot and the opaque depth.

use bevy_ecs::prelude::*;

use super::draw::{SceneTextures, draw_items, has_instancing};
use crate::render::graph::FrameGraph;
use crate::resources::StandardPasses;

/// Adds the translucent pass when something translucent is visible.
pub fn add_translucent_pass(mut frame_graph: ResMut<FrameGraph>, passes: Res<StandardPasses>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    if view.frame.translucent.is_empty() || !passes.translucent {
        return;
    }
    let frame = view.frame.clone();
    let hdr = view.hdr;
    let hdr_load = view.hdr_load();
    let depth = view.depth;
    let depth_ready = view.depth_written;
    let depth_load = view.depth_load();
    let shadow = view.shadow_map.filter(|_| view.shadow_map_written);
    let scene_color = view.scene_color;
    let scene_depth = view.scene_depth;
    let (mut hdr_out, mut depth_out) = (hdr, depth);
    graph.add_pass("translucent", |pass| {
        if let Some(s) = shadow {
            pass.read_texture(s);
        }
        for s in [scene_color, scene_depth].into_iter().flatten() {
            pass.read_texture(s);
        }
        hdr_out = pass.write_color(hdr, hdr_load);
        if depth_ready {
            pass.read_depth(depth);
        } else {
            depth_out = pass.write_depth(depth, depth_load);
        }
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            let get = |id: Option<f3d_render_graph::TextureId>| -> Result<Option<f3d_hal::TextureHandle>, f3d_render_graph::GraphError> {
                match id {
                    Some(id) => Ok(Some(ctx.texture(id)?.clone())),
                    None => Ok(None),
                }
            };
            let shadow_map = get(shadow)?;
            let scene_color = get(scene_color)?;
            let scene_depth = get(scene_depth)?;
            let instancing = has_instancing(ctx.device);
            let scene = SceneTextures {
                shadow_map: shadow_map.as_ref(),
                scene_color: scene_color.as_ref(),
                scene_depth: scene_depth.as_ref(),
            };
            draw_items(ctx.encoder, instancing, &frame, &frame.translucent, scene)?;
            Ok(())
        }
    });
    view.hdr = hdr_out;
    view.depth = depth_out;
}
