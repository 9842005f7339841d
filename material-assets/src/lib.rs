//! # f3d_materials
//!
//! Materials for f3d (DESIGN §5): the `.ron` material format, the engine shader library
//! (WGSL), the shader contract, naga compilation with errors located in the user's files,
//! reflection-packed parameters and the per-backend [`MaterialCompiler`].
//!
//! WIP: the crate docs are completed with the rest of the crate.

mod compile;
pub mod compose;
mod error;
pub mod format;
pub mod layout;
pub mod library;
pub mod reflect;
mod source;

pub use compile::{CompileOptions, CompiledMaterial, check_material, compile_material};
pub use compose::{ComposedSource, SourceKind, Variant};
pub use error::{MaterialError, ParameterError};
pub use format::{LoadedMaterial, MaterialDesc, ParamType, parse_material, read_material};
pub use layout::{BlockLayout, MaterialLayout, MemberLayout, ParamSlot};
pub use source::{Location, SourceText};

use f3d_hal::{ValidatedModule, naga};

/// Parses and validates a complete WGSL module. The error is naga's message with the source
/// location, rendered for a user.
pub fn compile_wgsl(label: &str, source: &str) -> Result<ValidatedModule, String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string_with_path(source, label))?;
    ValidatedModule::new(module).map_err(|e| e.emit_to_string_with_path(source, label))
}
