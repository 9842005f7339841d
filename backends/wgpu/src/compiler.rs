//! The wgpu [`MaterialCompiler`]: a validated naga module is what wgpu takes
//! (`ShaderSource::Naga`), so compiling is validating the module the way a wgpu device will,
//! with the naga capabilities its features and downlevel flags allow.

use std::sync::Arc;

use f3d_hal::naga;
use f3d_hal::{BackendId, ValidatedModule};
use f3d_materials::{BackendShader, MaterialCompiler, MaterialError};

use crate::WgpuDevice;

/// Turns validated modules into what the wgpu backend runs (the module itself), refusing
/// what wgpu would refuse: the shader capabilities a device lacks (64-bit floats without
/// `SHADER_F64`, ...) and compute entry points where the API has no compute.
#[derive(Clone, Copy, Debug)]
pub struct WgpuCompiler {
    features: wgpu::Features,
    downlevel: wgpu::DownlevelFlags,
}

impl WgpuCompiler {
    /// For materials that must run on any WebGPU device: no optional features, a fully
    /// compliant API.
    pub fn new() -> Self {
        Self { features: wgpu::Features::empty(), downlevel: wgpu::DownlevelFlags::compliant() }
    }

    /// For `device`: what its wgpu device was granted.
    pub fn for_device(device: &WgpuDevice) -> Self {
        Self { features: device.grant.features, downlevel: device.grant.downlevel }
    }
}

impl Default for WgpuCompiler {
    fn default() -> Self {
        Self::new()
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

impl MaterialCompiler for WgpuCompiler {
    fn backend(&self) -> BackendId {
        BackendId::WGPU
    }

    fn compile(&self, label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError> {
        let refuse = |reason: String| MaterialError::Backend {
            backend: BackendId::WGPU.to_string(),
            label: label.to_owned(),
            reason,
        };
        let m = module.module();
        if !self.downlevel.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
            && let Some(ep) = m.entry_points.iter().find(|ep| ep.stage == naga::ShaderStage::Compute)
        {
            return Err(refuse(format!(
                "compute entry point `{}`: this device has no compute shaders",
                ep.name
            )));
        }
        let mut validator = wgpu_naga_bridge::create_validator(
            self.features,
            self.downlevel,
            naga::valid::ValidationFlags::all(),
        );
        validator.validate(m).map_err(|e| refuse(error_chain(e.as_inner())))?;
        Ok(BackendShader::Naga(Arc::clone(module)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(source: &str) -> Arc<ValidatedModule> {
        Arc::new(f3d_materials::compile_wgsl("t.wgsl", source).expect("compiles"))
    }

    #[test]
    fn baseline_refuses_f64_and_a_device_with_it_accepts() {
        let m = module("@compute @workgroup_size(1) fn main() { var x: f64 = 1.0lf; x = x * 2.0lf; }");
        let baseline = WgpuCompiler::new().compile("f64", &m);
        assert!(
            matches!(&baseline, Err(MaterialError::Backend { backend, .. }) if backend == "wgpu"),
            "{baseline:?}"
        );
        let with = WgpuCompiler { features: wgpu::Features::SHADER_F64, ..WgpuCompiler::new() };
        assert!(matches!(with.compile("f64", &m), Ok(BackendShader::Naga(_))));
    }

    #[test]
    fn compute_needs_compute_shaders() {
        let m = module("@compute @workgroup_size(1) fn main() {}");
        assert!(WgpuCompiler::new().compile("c", &m).is_ok());
        let gles = WgpuCompiler { downlevel: wgpu::DownlevelFlags::empty(), ..WgpuCompiler::new() };
        assert!(gles.compile("c", &m).is_err());
    }
}
