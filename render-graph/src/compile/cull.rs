//! Stage 2: which passes matter, and which writes must be stored.
//!
//! A version is *needed* when it is the last version of an output (every imported texture,
//! and transients marked with `mark_output`), or when a live pass reads it or loads it to
//! draw over. A pass is *live* when it is kept alive or produces a needed version. Walking
//! the order backwards settles every consumer before its producer, so one sweep decides
//! both. A pass clearing a texture makes the version before it unneeded: the pass that wrote
//! that version is culled unless something else reads it.
//!
//! Store ops fall out of the same facts: a write is stored when the version it produces is
//! needed, and may be discarded otherwise.

use f3d_hal::StoreOp;

use crate::builder::RenderGraph;
use crate::compile::order::{Versions, pass_accesses};

pub(crate) struct Liveness {
    /// Per pass (insertion order): survives culling.
    pub(crate) live: Vec<bool>,
    /// Per access (graph order): store op of a write; `Store` for reads.
    pub(crate) store: Vec<StoreOp>,
    /// The live passes, in execution order.
    pub(crate) schedule: Vec<u32>,
}

pub(crate) fn cull(graph: &RenderGraph, versions: &Versions, order: &[u32]) -> Liveness {
    let mut needed = vec![false; versions.len()];
    for (r, resource) in graph.resources.iter().enumerate() {
        if resource.output {
            needed[versions.entry(r as u32, resource.last_version)] = true;
        }
    }
    let mut live = vec![false; graph.passes.len()];
    let mut store = vec![StoreOp::Store; graph.accesses.len()];
    for &p in order.iter().rev() {
        let p = p as usize;
        let accesses = pass_accesses(graph, p);
        let first = graph.passes[p].first_access as usize;
        let mut is_live = graph.passes[p].keep_alive;
        for (i, a) in accesses.iter().enumerate() {
            if a.kind.is_write() {
                let produces_needed = needed[versions.entry(a.resource, a.version) + 1];
                store[first + i] = if produces_needed { StoreOp::Store } else { StoreOp::Discard };
                is_live |= produces_needed;
            }
        }
        if !is_live {
            continue;
        }
        live[p] = true;
        for a in accesses {
            if !a.kind.is_write() || a.kind.loads() {
                needed[versions.entry(a.resource, a.version)] = true;
            }
        }
    }
    let schedule = order.iter().copied().filter(|&p| live[p as usize]).collect();
    Liveness { live, store, schedule }
}
