//! [`MaterialCompiler`]: how each backend turns a validated naga module into what it runs.
//!
//! naga IR is the currency (DESIGN §5): every material and engine stage reaches a backend as a
//! [`ValidatedModule`]. The soft backend uses the module as is ([`SoftCompiler`], here since
//! the engine's own checks use it); null's compiler lives in its crate, which is the template
//! for new backends; wgpu hands the module to wgpu; vulkan emits SPIR-V words with naga's
//! spv-out in its own crate. Compilers are plain values collected in a [`MaterialCompilers`]
//! (a resource, never a global), looked up by [`BackendId`].

use std::sync::Arc;

use f3d_hal::{BackendId, ValidatedModule};

use crate::MaterialError;

/// What a backend receives for one shader module.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum BackendShader {
    /// The validated naga module itself (null, soft, wgpu).
    Naga(Arc<ValidatedModule>),
    /// SPIR-V words (vulkan).
    SpirV(Vec<u32>),
}

impl BackendShader {
    /// A name for the form, for tools.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Naga(_) => "naga module",
            Self::SpirV(_) => "SPIR-V",
        }
    }
}

/// Turns validated modules into one backend's form. Object-safe, shareable across threads.
pub trait MaterialCompiler: Send + Sync {
    /// The backend this compiler serves.
    fn backend(&self) -> BackendId;

    /// Compiles `module` (named `label` in errors). Errors are
    /// [`MaterialError::Backend`], naming the backend and the shader.
    fn compile(&self, label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError>;

    /// Whether `module` compiles, and if not why in the backend's words: what a device's
    /// [`check_shader_module`](f3d_hal::GraphicsDevice::check_shader_module) answers.
    fn check(&self, label: &str, module: &Arc<ValidatedModule>) -> Result<(), String> {
        match self.compile(label, module) {
            Ok(_) => Ok(()),
            Err(MaterialError::Backend { reason, .. }) => Err(reason),
            Err(other) => Err(other.to_string()),
        }
    }
}

/// The soft backend's compiler: the module as is; the soft backend lowers the IR into its
/// lane-parallel program when it builds a pipeline. It refuses what the CPU executor cannot
/// run: compute entry points and storage textures.
#[derive(Clone, Copy, Debug, Default)]
pub struct SoftCompiler;

impl MaterialCompiler for SoftCompiler {
    fn backend(&self) -> BackendId {
        BackendId::SOFT
    }

    fn compile(&self, label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError> {
        let m = module.module();
        let refuse = |reason: String| MaterialError::Backend {
            backend: BackendId::SOFT.to_string(),
            label: label.to_owned(),
            reason,
        };
        if let Some(ep) = m.entry_points.iter().find(|ep| ep.stage == f3d_hal::naga::ShaderStage::Compute) {
            return Err(refuse(format!(
                "compute entry point `{}`: the soft backend runs vertex and fragment stages",
                ep.name
            )));
        }
        for (_, var) in m.global_variables.iter() {
            if let f3d_hal::naga::TypeInner::Image {
                class: f3d_hal::naga::ImageClass::Storage { .. }, ..
            } = m.types[var.ty].inner
            {
                return Err(refuse(format!(
                    "storage texture `{}`: the soft backend samples textures but does not write them from shaders",
                    var.name.as_deref().unwrap_or("?")
                )));
            }
        }
        Ok(BackendShader::Naga(Arc::clone(module)))
    }
}

/// The compilers an app has, by backend. Later additions replace earlier ones of the same
/// backend.
#[derive(Clone, Default)]
pub struct MaterialCompilers {
    compilers: Vec<Arc<dyn MaterialCompiler>>,
}

impl std::fmt::Debug for MaterialCompilers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.compilers.iter().map(|c| c.backend())).finish()
    }
}

impl MaterialCompilers {
    /// The compilers this crate provides: soft's (each other backend's comes with its crate).
    pub fn builtin() -> Self {
        let mut this = Self::default();
        this.add(Arc::new(SoftCompiler));
        this
    }

    /// Adds (or replaces) the compiler of its backend.
    pub fn add(&mut self, compiler: Arc<dyn MaterialCompiler>) {
        let id = compiler.backend();
        self.compilers.retain(|c| c.backend() != id);
        self.compilers.push(compiler);
    }

    /// The compiler for `backend`.
    pub fn get(&self, backend: &BackendId) -> Option<&Arc<dyn MaterialCompiler>> {
        self.compilers.iter().find(|c| c.backend() == *backend)
    }

    /// The backends served, in the order added.
    pub fn backends(&self) -> Vec<BackendId> {
        self.compilers.iter().map(|c| c.backend()).collect()
    }
}
