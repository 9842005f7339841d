//! Tonemap and resolve: exposure, the camera's tone curve, sRGB encode into the output.

use bevy_ecs::prelude::*;
use f3d_hal::{Color, LoadOp};

use crate::render::graph::FrameGraph;
use crate::resources::StandardPasses;

/// Adds the tonemap pass, which writes the output target.
pub fn add_tonemap_pass(mut frame_graph: ResMut<FrameGraph>, passes: Res<StandardPasses>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    let Some((pipeline, block)) = view.frame.tonemap.clone() else { return };
    if !passes.tonemap {
        return;
    }
    let hdr = view.hdr;
    if !view.hdr_written {
        // Nothing drew: tonemap a cleared scene so the output is the clear colour.
        let load = view.hdr_load();
        let mut cleared = hdr;
        graph.add_pass("clear", |pass| {
            cleared = pass.write_color(hdr, load);
            |_ctx: &mut f3d_render_graph::PassContext<'_>| Ok(())
        });
        view.hdr = cleared;
    }
    let hdr = view.resolved_hdr(graph);
    let output = view.output;
    let mut out = output;
    graph.add_pass("tonemap", |pass| {
        pass.read_texture(hdr);
        out = pass.write_color(output, LoadOp::Clear(Color::BLACK));
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            let texture = ctx.texture(hdr)?.clone();
            ctx.encoder.set_pipeline(&pipeline.handle)?;
            let layout = pipeline.handle.bindings();
            if let Some(slot) = layout.slot("tonemap") {
                ctx.encoder.bind_uniform_block_at(slot, &block);
            }
            if let Some(slot) = layout.slot("hdr_color") {
                ctx.encoder.bind_texture_at(slot, &texture);
            }
            ctx.encoder.draw(0..3, 0..1)?;
            Ok(())
        }
    });
    view.output = out;
}
