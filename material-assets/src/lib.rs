//! # f3d_materials
//!
//! Shader reflection for now; the material format, the engine shader library and naga
//! compilation arrive with the materials work.

pub mod reflect;

use f3d_hal::{ValidatedModule, naga};

/// Parses and validates a complete WGSL module. The error is naga's message with the source
/// location, rendered for a user.
pub fn compile_wgsl(label: &str, source: &str) -> Result<ValidatedModule, String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string_with_path(source, label))?;
    ValidatedModule::new(module).map_err(|e| e.emit_to_string_with_path(source, label))
}
