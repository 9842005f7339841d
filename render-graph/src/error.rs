//! The graph's errors: one enum, every variant naming the passes and textures at fault.

use f3d_hal::DeviceError;

use crate::PassError;

/// Why a graph could not be compiled or executed.
///
/// Compile errors (everything but [`Pass`](Self::Pass) and [`Allocation`](Self::Allocation))
/// are found without a device and name passes and textures by the names they were declared
/// with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// The passes depend on each other in a circle, so no order runs them all. Listed in
    /// dependency order, each needing the one before it (and the first needing the last).
    #[error("the passes depend on each other in a cycle: {}", cycle(passes))]
    Cycle {
        /// The passes of the cycle.
        passes: Vec<String>,
    },
    /// A pass reads a transient texture that no pass wrote before (version 0 has no contents).
    #[error("pass {pass} reads {resource}, which no pass has written")]
    ReadBeforeWrite {
        /// The reading pass.
        pass: String,
        /// The texture.
        resource: String,
    },
    /// Two passes write over the same version of a texture; each write makes the next version,
    /// so only one pass may consume a version (the second must take the first's result).
    #[error("passes {first} and {second} both write over version {version} of {resource}")]
    TwoWriters {
        /// The texture.
        resource: String,
        /// The version both write over.
        version: u32,
        /// The pass added first.
        first: String,
        /// The pass added second.
        second: String,
    },
    /// One pass uses a texture in two ways that cannot hold at once (writing what it samples,
    /// two versions of it, a copy source it also attaches).
    #[error("pass {pass} uses {resource} both as {first} and as {second}")]
    ConflictingAccess {
        /// The pass.
        pass: String,
        /// The texture.
        resource: String,
        /// The first use declared.
        first: &'static str,
        /// The use that conflicts with it.
        second: &'static str,
    },
    /// A pass attaches two different depth textures; a pass has at most one.
    #[error("pass {pass} attaches two depth textures: {first} and {second}")]
    TwoDepthAttachments {
        /// The pass.
        pass: String,
        /// The first depth texture.
        first: String,
        /// The second one.
        second: String,
    },
    /// A render pass declares no attachment, so there is nothing to begin a pass on. (A pass
    /// that only calls the device belongs in `add_device_pass`.)
    #[error("render pass {pass} has no colour or depth attachment")]
    NoAttachment {
        /// The pass.
        pass: String,
    },
    /// A handle does not belong to this graph (made by another graph, or a version that was
    /// never produced).
    #[error("{by} uses texture #{index} version {version}, which this graph does not have")]
    UnknownResource {
        /// The pass (or call) that used it.
        by: String,
        /// The handle's texture index.
        index: u32,
        /// The handle's version.
        version: u32,
    },
    /// A transient texture's size is zero, not finite, or resolves to more than `u32` texels.
    #[error("texture {resource} has an invalid size: {reason}")]
    InvalidSize {
        /// The texture.
        resource: String,
        /// What is wrong.
        reason: String,
    },
    /// A pass closure returned an error, or the device refused part of a pass (beginning it,
    /// a copy, a submission, a feature the pass needs).
    #[error("pass {pass}: {source}")]
    Pass {
        /// The pass.
        pass: String,
        /// What failed; a device refusal is a boxed [`DeviceError`] (see
        /// [`GraphError::device_error`]).
        source: PassError,
    },
    /// The device could not make a transient texture.
    #[error("allocating {resource}: {source}")]
    Allocation {
        /// The (first) texture to live in the allocation.
        resource: String,
        /// The device's refusal.
        source: DeviceError,
    },
    /// A pass closure asked for a texture the pass did not declare.
    #[error("pass {pass} did not declare {resource}")]
    Undeclared {
        /// The pass.
        pass: String,
        /// The texture asked for (its name, or `#index` if it is not in the graph).
        resource: String,
    },
}

impl GraphError {
    /// The device refusal under a [`Pass`](Self::Pass) or [`Allocation`](Self::Allocation)
    /// error, if that is what it is.
    pub fn device_error(&self) -> Option<&DeviceError> {
        match self {
            Self::Pass { source, .. } => source.downcast_ref::<DeviceError>(),
            Self::Allocation { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn cycle(passes: &[String]) -> String {
    let mut s = passes.join(" -> ");
    if let Some(first) = passes.first() {
        s.push_str(" -> ");
        s.push_str(first);
    }
    s
}
