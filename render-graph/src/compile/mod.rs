//! Compiling a declared graph into a plan, one stage per module:
//!
//! ```text
//!  RenderGraph ─▶ order ─▶ cull ─▶ lifetimes ─▶ alias ─▶ barriers ─▶ CompiledGraph
//!               versions,   live    first/last   slots    transitions
//!               edges,      passes, use, usage   (device  per pass
//!               cycles      stores               -free)
//! ```
//!
//! Every stage works on indices into flat arrays; no name is formatted, hashed or compared
//! unless an error is reported or a dump asked for.

pub(crate) mod alias;
pub(crate) mod barriers;
pub(crate) mod cull;
pub(crate) mod lifetimes;
pub(crate) mod order;

use std::ops::Range;

use f3d_hal::ResourceState;

use crate::builder::{Callback, PassKind, RenderGraph};
use crate::resource::AccessKind;
use crate::{GraphError, PassId, TextureId};

pub use barriers::Transition;

use alias::{AliasPlan, PhysicalKey};
use barriers::BarrierPlan;
use cull::Liveness;
use lifetimes::Lifetimes;
use order::NONE;

/// A graph with its plan: execution order, culled passes, lifetimes, transient aliasing and
/// barriers. Computed without a device; [`dump`](Self::dump) prints it and
/// [`execute`](Self::execute) runs it.
pub struct CompiledGraph {
    pub(crate) graph: RenderGraph,
    pub(crate) output_size: (u32, u32),
    pub(crate) keys: Vec<PhysicalKey>,
    pub(crate) liveness: Liveness,
    pub(crate) lifetimes: Lifetimes,
    pub(crate) alias: AliasPlan,
    pub(crate) barriers: BarrierPlan,
}

impl RenderGraph {
    /// Orders, culls and plans the graph for an output of `output_size` (what relative
    /// texture sizes scale). Needs no device. Fails on the first error found, naming the passes
    /// and textures involved: misuse seen while declaring, then sizes, two writers of one
    /// version, reads of unwritten transients, render passes without attachments, cycles.
    pub fn compile(mut self, output_size: (u32, u32)) -> Result<CompiledGraph, GraphError> {
        if let Some(error) = self.build_error.take() {
            return Err(error);
        }
        let keys = alias::resolve(&self, output_size)?;
        let versions = order::versions(&self)?;
        self.check_attachments()?;
        let order = order::order(&self, &versions)?;
        let liveness = cull::cull(&self, &versions, &order);
        let lifetimes = lifetimes::lifetimes(&self, &liveness.schedule);
        let alias = alias::alias(&self, &keys, &lifetimes);
        let barriers = barriers::barriers(&self, &liveness.schedule);
        Ok(CompiledGraph { graph: self, output_size, keys, liveness, lifetimes, alias, barriers })
    }

    fn check_attachments(&self) -> Result<(), GraphError> {
        for (p, pass) in self.passes.iter().enumerate() {
            if pass.kind != PassKind::Render {
                continue;
            }
            let attaches =
                order::pass_accesses(self, p).iter().any(|a| !matches!(a.kind, AccessKind::Sampled));
            if !attaches {
                return Err(GraphError::NoAttachment { pass: pass.name.to_string() });
            }
        }
        Ok(())
    }
}

impl CompiledGraph {
    /// The output size the graph was compiled for.
    pub fn output_size(&self) -> (u32, u32) {
        self.output_size
    }

    /// Names of the passes that will run, in execution order.
    pub fn order(&self) -> impl Iterator<Item = &str> + '_ {
        self.liveness.schedule.iter().map(|&p| &*self.graph.passes[p as usize].name)
    }

    /// Names of the culled passes, in the order they were added.
    pub fn culled(&self) -> impl Iterator<Item = &str> + '_ {
        self.graph.passes.iter().zip(&self.liveness.live).filter(|&(_, &live)| !live).map(|(p, _)| &*p.name)
    }

    /// Whether `pass` was culled (its closure will not run).
    pub fn is_culled(&self, pass: PassId) -> bool {
        !self.liveness.live.get(pass.0 as usize).copied().unwrap_or(false)
    }

    /// The positions in [`order`](Self::order) of the first and last pass using `texture`
    /// (an output's range runs to the end); `None` when no pass that runs uses it.
    pub fn lifetime(&self, texture: TextureId) -> Option<Range<usize>> {
        let r = texture.index as usize;
        let first = *self.lifetimes.first.get(r)?;
        (first != NONE).then(|| first as usize..self.lifetimes.last[r] as usize + 1)
    }

    /// The physical texture (slot) a transient was placed in; transients sharing a slot
    /// share memory. `None` for imported and unused textures.
    pub fn physical_slot(&self, texture: TextureId) -> Option<usize> {
        let slot = *self.alias.slot_of.get(texture.index as usize)?;
        (slot != NONE).then_some(slot as usize)
    }

    /// How many physical transient textures the plan needs.
    pub fn physical_textures(&self) -> usize {
        self.alias.slots.len()
    }

    /// Bytes aliasing saves: what the used transients would take one texture each, minus
    /// what their slots take.
    pub fn bytes_saved(&self) -> u64 {
        self.alias.bytes_requested - self.alias.bytes_allocated
    }

    /// The transitions `pass` needs before it runs (empty for culled passes).
    pub fn transitions(&self, pass: PassId) -> &[Transition] {
        match self.liveness.schedule.iter().position(|&p| p == pass.0) {
            Some(pos) => self.barriers.at(pos),
            None => &[],
        }
    }

    /// The state the graph leaves `texture` in: what to import it with next frame.
    pub fn final_state(&self, texture: TextureId) -> Option<ResourceState> {
        self.barriers.final_state.get(texture.index as usize).copied()
    }

    /// The name a texture was declared with.
    pub fn texture_name(&self, texture: TextureId) -> Option<&str> {
        self.graph.resources.get(texture.index as usize).map(|r| &*r.name)
    }

    pub(crate) fn take_callbacks(&mut self) -> Vec<Callback> {
        self.graph.take_callbacks()
    }
}
