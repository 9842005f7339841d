//! Stage 3: when each texture is first and last used, and what it is used for.
//!
//! Positions count live passes in execution order. A texture no live pass touches has no
//! lifetime and gets no memory. An output lives to the end of the graph (position
//! `schedule.len()`), since the caller reads it afterwards; the usage flags a transient needs
//! are the union of its uses (plus `COPY_SRC` for transient outputs, which callers read back;
//! an imported texture's usage is the caller's business).

use f3d_hal::TextureUsages;

use crate::builder::RenderGraph;
use crate::compile::order::{NONE, pass_accesses};

pub(crate) struct Lifetimes {
    /// Per texture: position of the first live pass using it, or [`NONE`].
    pub(crate) first: Vec<u32>,
    /// Per texture: position of the last live pass using it (or the end, for outputs).
    pub(crate) last: Vec<u32>,
    /// Per texture: every usage its live passes need.
    pub(crate) usage: Vec<TextureUsages>,
}

impl Lifetimes {
    pub(crate) fn is_used(&self, resource: usize) -> bool {
        self.first[resource] != NONE
    }
}

pub(crate) fn lifetimes(graph: &RenderGraph, schedule: &[u32]) -> Lifetimes {
    let n = graph.resources.len();
    let mut first = vec![NONE; n];
    let mut last = vec![NONE; n];
    let mut usage = vec![TextureUsages::empty(); n];
    for (pos, &p) in schedule.iter().enumerate() {
        for a in pass_accesses(graph, p as usize) {
            let r = a.resource as usize;
            if first[r] == NONE {
                first[r] = pos as u32;
            }
            last[r] = pos as u32;
            usage[r] |= a.kind.usage();
        }
    }
    for (r, resource) in graph.resources.iter().enumerate() {
        if resource.output && first[r] != NONE {
            last[r] = schedule.len() as u32;
            if !resource.is_imported() {
                usage[r] |= TextureUsages::COPY_SRC;
            }
        }
    }
    Lifetimes { first, last, usage }
}
