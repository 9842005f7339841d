//! The backends this build of `f3d` can open.

use f3d_hal::DeviceRegistry;

/// A registry of every backend compiled in, in the default order (GPU backends last added,
/// so tried first; software fallbacks first added).
pub fn registry() -> DeviceRegistry {
    let mut registry = DeviceRegistry::new();
    let _ = f3d_backend_null::register_null_backend(&mut registry);
    let _ = f3d_backend_soft::register_soft_backend(&mut registry);
    let _ = f3d_backend_wgpu::register_wgpu_backend(&mut registry);
    let _ = f3d_backend_vulkan::register_vulkan_backend(&mut registry);
    registry
}

/// The material compiler of every backend compiled in.
pub fn material_compilers() -> f3d_materials::MaterialCompilers {
    let mut compilers = f3d_materials::MaterialCompilers::builtin();
    compilers.add(std::sync::Arc::new(f3d_backend_wgpu::WgpuCompiler::new()));
    compilers.add(std::sync::Arc::new(f3d_backend_vulkan::VulkanCompiler::new()));
    compilers
}
