//! Shaders and pipelines: accepted, reflected, and refused at their first draw.

use std::sync::atomic::AtomicBool;

use f3d_hal::backend::LiveToken;

/// A shader: nothing to compile for a device that never runs one.
pub(crate) struct NullShader {
    pub(crate) _live: LiveToken,
}

/// A pipeline: remembers whether its refusal was reported.
pub(crate) struct NullPipeline {
    pub(crate) refusal_reported: AtomicBool,
    pub(crate) _live: LiveToken,
}

/// A sampler.
pub(crate) struct NullSampler {
    pub(crate) _live: LiveToken,
}
