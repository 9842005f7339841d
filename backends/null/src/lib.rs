//! # f3d_backend_null: the template backend
//!
//! A real device that draws nothing. Textures live in memory: clears, uploads, overwrites,
//! copies and readback all work and are held to the conformance suite's `CORE`,
//! `CAPABILITIES` and `LIFECYCLE` tiers. Shaders and pipelines are accepted (bindings are
//! reflected, so bind-by-name answers truthfully), but every pipeline is refused at its first
//! draw — it draws nothing, the rest of the pass goes on, and the refusal is reported once in
//! `pipeline_refusals()`. It reports only what it does: [`DeviceFeature::COPY_TEXTURE`], and so
//! passes every CORE, CAPABILITIES and LIFECYCLE check. [`NullDevice::with_instancing`] also
//! takes a draw of many instances as one call ([`DeviceFeature::INSTANCING`]), so CPU
//! benchmarks on null measure what the engine records for a GPU, not a million
//! single-instance draws; that device's instancing check declines (with its pipeline
//! refused, where the instances land cannot be seen).
//!
//! ## The template for a new backend
//!
//! `f3d create backend --name NAME` writes this crate under a new name (its files are
//! [`TEMPLATE_FILES`], with this backend's name replaced in each of its spellings). It compiles
//! against the public APIs of `f3d_hal` and `f3d_materials` only, and has what every backend
//! has:
//!
//! * `device.rs` — the [`GraphicsDevice`]: resources, checks, readback;
//! * `pass.rs` — submit: the HAL's recorder checks every call of a pass and hands the device
//!   the recorded pass to execute;
//! * `texture.rs`, `pipeline.rs` — the payloads behind the HAL's handles;
//! * `compiler.rs` — the [`MaterialCompiler`](f3d_materials::MaterialCompiler): what the
//!   backend receives for a shader;
//! * [`register_null_backend`] — the registration function an app (or a backend crate's own
//!   `f3d` binary, through `f3d_cli::run`) calls;
//! * [`f3d_backend_null_abi`] and [`f3d_backend_null_register`] — what a program that loads
//!   the crate's `cdylib` (`libf3d_backend_null.so`) at run time calls, through
//!   `DeviceRegistry::load_dir` or `F3D_BACKEND_PATH` ([`f3d_hal::dynamic`]);
//! * `tests/conformance.rs` — the conformance suite's tiers but the shader one, one test per
//!   check, with the backend's own reviewed declines (none here; a backend that draws adds
//!   `Tier::Shader` once it runs shaders, and lists there, with why, any check it cannot
//!   answer);
//! * `tests/registration.rs` — the backend opens by name through a registry;
//! * `tests/dynamic.rs` — the built library loads at run time and passes the same suite, and
//!   a copy with its ABI string altered is refused.
//!
//! It has no `conv.rs`, since there is no API to convert HAL enums into, and no
//! `readback.rs`, since host memory reads back through the HAL's `HostPlanes`.

mod compiler;
mod device;
mod pass;
mod pipeline;
mod texture;

use std::sync::Arc;

pub use compiler::NullCompiler;
pub use device::NullDevice;
use f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice, Registration};

#[cfg(doc)]
use f3d_hal::DeviceFeature;

/// This backend's name, as `F3D_BACKEND`, `--backend` and the registry spell it.
pub const NULL_BACKEND: BackendId = BackendId::new("null");

/// Registers the null backend; it always opens.
pub fn register_null_backend(registry: &mut DeviceRegistry) -> Registration {
    registry.add_backend(NULL_BACKEND, |request| {
        Ok(Arc::new(NullDevice::new(&request.label)) as Arc<dyn GraphicsDevice>)
    })
}

/// The ABI string this library was built with ([`f3d_hal::dynamic::ABI`]), for a loader to
/// compare with its own before registering it (the crate is also built as a `cdylib`).
#[unsafe(no_mangle)]
pub extern "C" fn f3d_backend_null_abi() -> *const std::ffi::c_char {
    f3d_hal::dynamic::ABI_C.as_ptr()
}

/// Registers this backend into a loader's registry ([`DeviceRegistry::load_dir`]).
///
/// # Safety
///
/// `registry` points to a live registry of a program whose ABI string is this library's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn f3d_backend_null_register(registry: *mut DeviceRegistry) {
    // SAFETY: the loader passes its own registry, after comparing the ABI strings.
    let registry = unsafe { &mut *registry };
    let _ = register_null_backend(registry);
}

/// This crate's files, each as (path in the crate, text): what `f3d create backend` writes
/// under a new name. A test in `f3d_cli` checks the list against the crate's directory.
pub const TEMPLATE_FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../Cargo.toml")),
    ("src/lib.rs", include_str!("lib.rs")),
    ("src/compiler.rs", include_str!("compiler.rs")),
    ("src/device.rs", include_str!("device.rs")),
    ("src/pass.rs", include_str!("pass.rs")),
    ("src/pipeline.rs", include_str!("pipeline.rs")),
    ("src/texture.rs", include_str!("texture.rs")),
    ("tests/conformance.rs", include_str!("../tests/conformance.rs")),
    ("tests/dynamic.rs", include_str!("../tests/dynamic.rs")),
    ("tests/registration.rs", include_str!("../tests/registration.rs")),
];
