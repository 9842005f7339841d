//! `f3d_cli::run_from` as an out-of-tree backend crate's binary uses it: the full `f3d` over a
//! registry and compilers with one more backend, here the null device registered as `nil`
//! and a backend `echo` that never opens.

use std::sync::Arc;

use f3d::f3d_hal::{BackendId, DeviceRegistry, GraphicsDevice, OpenError, ValidatedModule};
use f3d::f3d_materials::{BackendShader, MaterialCompiler, MaterialCompilers, MaterialError};

/// A compiler for `nil`: the module as is.
struct NilCompiler;

impl MaterialCompiler for NilCompiler {
    fn backend(&self) -> BackendId {
        BackendId::from_name("nil")
    }

    fn compile(&self, _label: &str, module: &Arc<ValidatedModule>) -> Result<BackendShader, MaterialError> {
        Ok(BackendShader::Naga(Arc::clone(module)))
    }
}

fn tools() -> (DeviceRegistry, MaterialCompilers) {
    let mut registry = f3d::plugin::default_registry();
    let _ = registry.add_backend(BackendId::from_name("echo"), |_| {
        Err(OpenError::DeviceUnavailable {
            backend: BackendId::from_name("echo"),
            reason: "echo needs a mirror".into(),
        })
    });
    let _ = registry.add_backend(BackendId::from_name("nil"), |request| {
        Ok(Arc::new(f3d_backend_null::NullDevice::new(&request.label)) as Arc<dyn GraphicsDevice>)
    });
    let mut compilers = f3d::material::offline_compilers();
    compilers.add(Arc::new(NilCompiler));
    (registry, compilers)
}

fn f3d(args: &[&str]) -> (u8, String) {
    let (registry, compilers) = tools();
    let mut out = Vec::new();
    let code =
        f3d_cli::run_from(std::iter::once("f3d").chain(args.iter().copied()), registry, compilers, &mut out);
    (code, String::from_utf8(out).expect("utf-8 output"))
}

#[test]
fn backends_lists_the_added_ones_first_with_their_adapter_or_reason() {
    let (code, text) = f3d(&["backends"]);
    assert_eq!(code, 0, "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("nil: f3d null"), "{text}");
    assert!(
        lines[1].starts_with("echo: not available: ") && lines[1].ends_with("echo needs a mirror"),
        "{text}"
    );
    assert!(lines.iter().any(|l| l.starts_with("soft: f3d soft")), "{text}");
}

#[test]
fn conformance_runs_on_the_added_backend_and_refuses_an_unknown_one() {
    let (code, text) = f3d(&["conformance", "--backend", "nil", "--tier", "core"]);
    assert_eq!(code, 0, "{text}");
    let summary = text.lines().last().unwrap_or_default();
    assert!(summary.starts_with("conformance nil: ") && summary.contains(" 0 failed"), "{text}");
    assert!(!summary.contains(" 0 passed"), "{text}");

    let (code, _) = f3d(&["conformance", "--backend", "mirror"]);
    assert_eq!(code, 2);
}

#[test]
fn material_compile_uses_the_added_compiler() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/assets/materials/water.ron");
    let (code, text) = f3d(&["material", "compile", file, "--backend", "nil", "--emit", "reflection"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("naga module"), "{text}");

    let (code, _) = f3d(&["material", "compile", file, "--backend", "mirror"]);
    assert_eq!(code, 2, "no compiler for a backend the tools lack");
}
