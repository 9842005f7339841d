//! Stage 5: the state each texture must be in for each live pass, and the transitions between.
//!
//! Each texture starts in a known state (`Undefined` for a transient, since its memory may
//! have held another texture, or the state it was imported in) and follows its uses in
//! execution order. A pass gets a transition for a texture when the state it needs differs
//! from the one before, or when both are writes (a write-after-write hazard still needs a
//! dependency even in the same layout). Reads after reads in the same state need nothing.
//!
//! Render passes hand their transitions to the device in
//! `RenderPassDescriptor::transitions`; backends with implicit synchronisation ignore them.

use f3d_hal::ResourceState;

use crate::TextureId;
use crate::builder::{Origin, RenderGraph};
use crate::compile::order::pass_accesses;

/// A state change one pass needs for one texture before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The texture, at the version the pass accesses.
    pub texture: TextureId,
    /// The state earlier work left it in.
    pub before: ResourceState,
    /// The state the pass needs.
    pub after: ResourceState,
}

pub(crate) struct BarrierPlan {
    /// Transitions of the pass at schedule position `i`: `list[start[i]..start[i + 1]]`.
    pub(crate) start: Vec<u32>,
    pub(crate) list: Vec<Transition>,
    /// Per texture: the state the graph leaves it in (its import state if no live pass used it).
    pub(crate) final_state: Vec<ResourceState>,
}

impl BarrierPlan {
    pub(crate) fn at(&self, position: usize) -> &[Transition] {
        &self.list[self.start[position] as usize..self.start[position + 1] as usize]
    }
}

fn is_write(state: ResourceState) -> bool {
    matches!(
        state,
        ResourceState::ColorAttachment
            | ResourceState::DepthStencilAttachment
            | ResourceState::CopyDestination
    )
}

pub(crate) fn barriers(graph: &RenderGraph, schedule: &[u32]) -> BarrierPlan {
    let mut state: Vec<ResourceState> = graph
        .resources
        .iter()
        .map(|r| match r.origin {
            Origin::Transient(_) => ResourceState::Undefined,
            Origin::Imported { state, .. } => state,
        })
        .collect();
    let mut start = Vec::with_capacity(schedule.len() + 1);
    let mut list = Vec::with_capacity(graph.accesses.len());
    for &p in schedule {
        start.push(list.len() as u32);
        for a in pass_accesses(graph, p as usize) {
            let before = state[a.resource as usize];
            let after = a.kind.state();
            if before != after || is_write(after) {
                list.push(Transition {
                    texture: TextureId { index: a.resource, version: a.version },
                    before,
                    after,
                });
            }
            state[a.resource as usize] = after;
        }
    }
    start.push(list.len() as u32);
    BarrierPlan { start, list, final_state: state }
}
