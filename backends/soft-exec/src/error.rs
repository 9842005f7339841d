//! The executor's errors: what a pipeline cannot run, and bindings that do not fit it.

use f3d_hal::ShaderStage;

/// Why a shader cannot be compiled for, or bound to, the soft executor.
///
/// Every refusal names the construct or the resource, so the pipeline refusal a user sees says
/// what to change ("fragment entry point `fs` uses atomic operations, which the soft backend
/// does not run").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The module has no entry point of that name for that stage.
    #[error("the module has no {stage} entry point named `{entry_point}`")]
    NoEntryPoint {
        /// The stage asked for.
        stage: ShaderStage,
        /// The name asked for.
        entry_point: String,
    },
    /// The entry point uses something the soft executor does not run.
    #[error("{stage} entry point `{entry_point}` uses {construct}, which the soft backend does not run")]
    Unsupported {
        /// The stage of the entry point.
        stage: ShaderStage,
        /// The entry point's name.
        entry_point: String,
        /// The construct, in words a shader author recognises ("atomic operations",
        /// "storage textures", "the builtin `sample_mask`").
        construct: String,
    },
    /// The entry point is larger than the executor's limits (registers, instructions, call depth).
    #[error("{stage} entry point `{entry_point}` is too large for the soft backend: {limit}")]
    TooLarge {
        /// The stage of the entry point.
        stage: ShaderStage,
        /// The entry point's name.
        entry_point: String,
        /// Which limit, and its value.
        limit: String,
    },
    /// The executor's own checks caught a mistake in its compilation of this entry point
    /// (a bug in f3d, reported instead of run).
    #[error(
        "{stage} entry point `{entry_point}`: the soft backend miscompiled it ({detail}); please report this"
    )]
    Internal {
        /// The stage of the entry point.
        stage: ShaderStage,
        /// The entry point's name.
        entry_point: String,
        /// What check failed.
        detail: String,
    },
    /// The resources given to [`Program::bind`](super::Program::bind) do not match the
    /// program's [`Interface::resources`](super::Interface::resources).
    #[error("binding {group}:{binding} of entry point `{entry_point}`: {problem}")]
    Binding {
        /// The entry point's name.
        entry_point: String,
        /// The `@group` of the resource.
        group: u32,
        /// The `@binding` of the resource.
        binding: u32,
        /// What is wrong ("expected a texture, got a uniform block", "plane 3 holds 12 bytes,
        /// level 1 needs 16").
        problem: String,
    },
    /// [`Program::bind`](super::Program::bind) got a different number of resources than the
    /// interface lists.
    #[error("entry point `{entry_point}` uses {expected} resources, {given} were given")]
    BindingCount {
        /// The entry point's name.
        entry_point: String,
        /// How many the interface lists.
        expected: usize,
        /// How many were given.
        given: usize,
    },
}
