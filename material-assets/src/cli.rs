//! What `f3d material check` and `f3d material compile` do, as library calls the CLI crate
//! wraps in a few lines (and tests call directly).
//!
//! ```text
//! f3d material check <files...>                      → cli::check(paths, stderr) -> exit code
//! f3d material compile <file> --backend <name>
//!                     [--emit wgsl|spirv|reflection] → cli::compile(path, compiler, emit, out, err)
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use f3d_hal::ShaderStage;

use crate::backend::{BackendShader, MaterialCompiler};
use crate::compile::{CompileOptions, CompiledMaterial, check_material};
use crate::reflect;

/// What `compile` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Emit {
    /// The composed WGSL of each variant (what naga parsed), or the backend's text.
    #[default]
    Wgsl,
    /// The SPIR-V words the backend produced, in hex (only for backends that emit SPIR-V).
    Spirv,
    /// Entry points, bindings and uniform block layouts of each variant.
    Reflection,
}

impl Emit {
    /// Parses `wgsl`, `spirv` or `reflection`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "wgsl" => Some(Self::Wgsl),
            "spirv" | "spir-v" | "spv" => Some(Self::Spirv),
            "reflection" => Some(Self::Reflection),
            _ => None,
        }
    }
}

/// Checks every material in `paths` (parse, semantic checks, composition and naga validation
/// of every variant). Prints one diagnostic per problem to `stderr` as
/// `path:line:col: error: message` with a source excerpt, and returns the exit code: 0 when
/// all are valid, 1 otherwise (2 when no file was given).
pub fn check(paths: &[PathBuf], stderr: &mut dyn Write) -> i32 {
    check_with(paths, &CompileOptions::default(), stderr)
}

/// [`check`] with project include folders.
pub fn check_with(paths: &[PathBuf], options: &CompileOptions, stderr: &mut dyn Write) -> i32 {
    if paths.is_empty() {
        let _ = writeln!(stderr, "error: no material files given");
        return 2;
    }
    let mut problems = 0;
    for path in paths {
        if let Err(errors) = check_material(path, options) {
            for e in &errors {
                let _ = write!(stderr, "{}", e.diagnostic());
            }
            problems += errors.len();
        }
    }
    if problems > 0 {
        let files = if paths.len() == 1 { "file" } else { "files" };
        let _ = writeln!(stderr, "error: {problems} problem(s) in {} {files} checked", paths.len());
        1
    } else {
        0
    }
}

/// Compiles the material at `path` for `compiler`'s backend and prints what that backend
/// receives to `out` (`emit` chooses the form). Problems go to `err`; returns the exit code.
pub fn compile(
    path: &Path,
    compiler: &dyn MaterialCompiler,
    emit: Emit,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let variants = match check_material(path, &CompileOptions::default()) {
        Ok(v) => v,
        Err(errors) => {
            for e in &errors {
                let _ = write!(err, "{}", e.diagnostic());
            }
            return 1;
        }
    };
    for compiled in &variants {
        let label = format!("{}#{}", path.display(), compiled.variant.name());
        let shader = match compiler.compile(&label, &compiled.module) {
            Ok(s) => s,
            Err(e) => {
                let _ = write!(err, "{}", e.diagnostic());
                return 1;
            }
        };
        let _ = writeln!(out, "// ===== {label} ({} backend: {})", compiler.backend(), shader.kind());
        let printed = match (emit, &shader) {
            (Emit::Wgsl, _) => writeln!(out, "{}", compiled.source.text()),
            (Emit::Spirv, BackendShader::SpirV(words)) => write_words(out, words),
            (Emit::Spirv, other) => {
                let _ = writeln!(
                    err,
                    "error: the {} backend receives a {}, not SPIR-V; try --emit wgsl or --emit reflection",
                    compiler.backend(),
                    other.kind()
                );
                return 1;
            }
            (Emit::Reflection, _) => writeln!(out, "{}", reflection(compiled)),
        };
        if printed.is_err() {
            return 1;
        }
    }
    0
}

fn write_words(out: &mut dyn Write, words: &[u32]) -> std::io::Result<()> {
    for chunk in words.chunks(8) {
        let line: Vec<String> = chunk.iter().map(|w| format!("0x{w:08x}")).collect();
        writeln!(out, "{}", line.join(" "))?;
    }
    Ok(())
}

/// The reflection dump: entry points, bindings and blocks of one compiled variant.
pub fn reflection(compiled: &CompiledMaterial) -> String {
    let mut s =
        format!("entry points: {} (vertex), {} (fragment)\n", compiled.vertex_entry, compiled.fragment_entry);
    for (stage, entry) in
        [(ShaderStage::Vertex, compiled.vertex_entry), (ShaderStage::Fragment, compiled.fragment_entry)]
    {
        match reflect::stage_bindings(&compiled.module, stage, entry) {
            Ok(bindings) => {
                s += &format!("{stage} bindings:\n");
                for b in bindings {
                    s +=
                        &format!("  @group({}) @binding({}) {} : {:?}\n", b.group, b.binding, b.name, b.kind);
                }
            }
            Err(e) => s += &format!("{stage} bindings: {e}\n"),
        }
    }
    for block in compiled.uniform_blocks() {
        s += &block.dump();
    }
    s
}
