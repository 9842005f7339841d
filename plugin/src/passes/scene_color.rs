//! The scene snapshots: copies of the opaque scene's colour and depth for materials that read
//! `scene_color()` (refraction) or `scene_depth()` (absorption, shore foam), made only when a
//! visible material asks for them.

use bevy_ecs::prelude::*;
use f3d_render_graph::TextureDesc;

use crate::render::graph::FrameGraph;
use crate::resources::StandardPasses;

/// Adds the copies a visible translucent material needs.
pub fn add_scene_color_pass(mut frame_graph: ResMut<FrameGraph>, passes: Res<StandardPasses>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    if !passes.scene_color {
        return;
    }
    if view.frame.needs_scene_color && view.hdr_written {
        if view.samples > 1 {
            // The resolve is a snapshot already: the translucent pass draws into `hdr`.
            view.scene_color = Some(view.resolved_hdr(graph));
        } else {
            let format = view.frame.hdr_format;
            let snapshot = graph.create_texture("scene_color_snapshot", TextureDesc::relative(1.0, format));
            view.scene_color = Some(graph.add_copy_pass("scene_color_snapshot", view.hdr, snapshot));
        }
    }
    // Multisampled, the depth prepass drew the single-sampled scene depth already.
    if view.frame.needs_scene_depth && view.depth_written && view.scene_depth.is_none() {
        let Some(pipeline) = view.frame.depth_copy.clone() else { return };
        let format = crate::render::prepare::draws::DEPTH_FORMAT;
        let snapshot = graph.create_texture("scene_depth_snapshot", TextureDesc::relative(1.0, format));
        let depth = view.depth;
        let mut written = snapshot;
        // Depth is copied by drawing (frag_depth), not copy_texture: backends may refuse
        // copies of depth formats.
        graph.add_pass("scene_depth_snapshot", |pass| {
            pass.read_texture(depth);
            written = pass.write_depth(snapshot, f3d_hal::LoadOp::Clear(1.0));
            move |ctx: &mut f3d_render_graph::PassContext<'_>| {
                let source = ctx.texture(depth)?.clone();
                ctx.encoder.set_pipeline(&pipeline)?;
                if let Some(slot) = pipeline.slot("source") {
                    ctx.encoder.bind_texture_at(slot, &source);
                }
                ctx.encoder.draw(0..3, 0..1)?;
                Ok(())
            }
        });
        view.scene_depth = Some(written);
    }
}
