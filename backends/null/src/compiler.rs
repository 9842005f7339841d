//! The null backend's material compiler.

use std::sync::Arc;

use f3d_hal::{BackendId, ValidatedModule};
use f3d_materials::{BackendShader, MaterialCompiler, MaterialError};

use crate::NULL_BACKEND;

/// What the null backend receives for a shader: the validated naga module as is (the device
/// reflects its bindings and refuses the pipeline at its first draw). A backend made from
/// this template turns the module into its own form here — SPIR-V words, source text for a
/// driver's compiler, a program for a CPU executor — and refuses what it cannot run with a
/// [`MaterialError::Backend`] naming the shader and the reason.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullCompiler;

impl MaterialCompiler for NullCompiler {
    fn backend(&self) -> BackendId {
        NULL_BACKEND
    }

    fn compile(&self, _label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError> {
        Ok(BackendShader::Naga(Arc::clone(module)))
    }
}
