//! The directional light's shadow map: shadow casters' depth from the light.

use bevy_ecs::prelude::*;

use super::draw::{SceneTextures, draw_items, has_instancing};
use crate::render::graph::FrameGraph;
use crate::resources::StandardPasses;

/// Adds the shadow pass when the sun casts shadows.
pub fn add_shadow_pass(mut frame_graph: ResMut<FrameGraph>, passes: Res<StandardPasses>) {
    let FrameGraph { graph, view } = &mut *frame_graph;
    let Some(view) = view else { return };
    let Some(shadow) = view.shadow_map else { return };
    if !passes.shadow {
        return;
    }
    let frame = view.frame.clone();
    let mut written = shadow;
    graph.add_pass("shadow", |pass| {
        written = pass.write_depth(shadow, f3d_hal::LoadOp::Clear(1.0));
        move |ctx: &mut f3d_render_graph::PassContext<'_>| {
            let instancing = has_instancing(ctx.device);
            draw_items(ctx.encoder, instancing, &frame, &frame.shadow, SceneTextures::default())?;
            Ok(())
        }
    });
    view.shadow_map = Some(written);
    view.shadow_map_written = true;
}
