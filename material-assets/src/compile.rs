//! naga compilation of composed modules, with naga's spans mapped back to the file the user
//! edits.
//!
//! ```text
//!  .ron ──parse_material──▶ LoadedMaterial ──compose──▶ ComposedSource ──naga wgsl-in──▶ Module
//!                                                             │                 validate │
//!                                 errors: span → ComposedSource::location ◀──────────────┘
//!                                                                                   ValidatedModule
//! ```

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use f3d_hal::{ShaderStage, ValidatedModule, naga};

use crate::compose::{ComposedSource, SourceKind, Variant, compose_material};
use crate::format::{LoadedMaterial, read_material};
use crate::layout::{BlockLayout, MaterialLayout, uniform_blocks};
use crate::{MaterialError, nesting, reflect};

/// What compilation needs besides the material: the project folders `#include` searches, and
/// where the model matrix comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Project shader folders, searched after the engine library and the material's folder.
    pub include_dirs: Vec<PathBuf>,
    /// Read the model matrix per instance (three `vec4` rows of the affine transform at
    /// [`library::INSTANCE_LOCATIONS`](crate::library::INSTANCE_LOCATIONS), a vertex buffer
    /// stepped per instance) instead of from the per-draw `draw` block: what the renderer
    /// uses so repeated meshes are one draw.
    pub instanced: bool,
    /// With `instanced`: the byte budget of a uniform array of parameter blocks (0: one
    /// `material_params` block per draw). The material then reads its parameters from element
    /// `slot` of an array of [`MaterialLayout::array_len`] blocks, `slot` arriving per instance
    /// ([`library::INSTANCE_MATERIAL_LOCATION`](crate::library::INSTANCE_MATERIAL_LOCATION)),
    /// so instances of many materials that share a shader and textures are one draw. A budget
    /// that is the same for every material (the device's uniform block limit, say) gives each
    /// material as many slots as fit.
    pub material_array_bytes: u32,
    /// With `instanced`: read the parameter blocks from a read-only storage buffer of any
    /// length ([`layout::STORAGE_SLOTS`](crate::layout::STORAGE_SLOTS) slots) instead of a
    /// uniform array, so every material of a shader and texture set shares one table and one
    /// draw whatever their number. Needs a device with
    /// [`STORAGE_BUFFERS`](f3d_hal::DeviceFeature::STORAGE_BUFFERS); `material_array_bytes` is
    /// then unused.
    pub material_storage: bool,
}

/// One variant of a material, composed and validated by naga.
#[derive(Clone, Debug)]
pub struct CompiledMaterial {
    /// The variant.
    pub variant: Variant,
    /// The validated module (shared with shaders made from it).
    pub module: Arc<ValidatedModule>,
    /// The composed WGSL and its source map.
    pub source: ComposedSource,
    /// The parameter layout.
    pub layout: MaterialLayout,
    /// The vertex entry point.
    pub vertex_entry: &'static str,
    /// The fragment entry point.
    pub fragment_entry: &'static str,
    /// Every file read for it (the `.ron`, its `fragment_file`, project includes).
    pub files: Vec<PathBuf>,
    /// How many materials its parameter array holds (0: it reads one `material_params`
    /// block, bound per draw; see [`CompileOptions::material_array_bytes`];
    /// [`STORAGE_SLOTS`](crate::layout::STORAGE_SLOTS): a storage array of any length, see
    /// [`CompileOptions::material_storage`]).
    pub material_slots: u32,
}

impl CompiledMaterial {
    /// The binding table of its vertex + fragment pipeline, from reflection.
    pub fn bindings(&self) -> Result<f3d_hal::BindingLayout, reflect::ReflectError> {
        reflect::pipeline_bindings(&[
            (&self.module, ShaderStage::Vertex, self.vertex_entry),
            (&self.module, ShaderStage::Fragment, self.fragment_entry),
        ])
    }

    /// Every uniform block of the module, laid out by naga.
    pub fn uniform_blocks(&self) -> Vec<BlockLayout> {
        uniform_blocks(self.module.module())
    }
}

/// Composes and validates one variant of a loaded material.
pub fn compile_material(
    material: &LoadedMaterial,
    variant: Variant,
    options: &CompileOptions,
) -> Result<CompiledMaterial, MaterialError> {
    let layout = MaterialLayout::new(&material.desc).map_err(|reason| MaterialError::Shader {
        at: material.source.location(0, 1),
        message: format!("the parameter block could not be laid out: {reason}"),
        notes: Vec::new(),
    })?;
    require_function(material, "fragment")?;
    if let Some(vertex) = &material.vertex {
        require_function(material, "vertex")?;
        crate::hooks::check_removed_fields(vertex)?;
    }
    require_function(material, "light")?;
    if let Some(light) = &material.light {
        crate::hooks::check_light_signature(light)?;
    }
    let slots = match (options.instanced, options.material_storage) {
        (false, _) => 0,
        (true, true) => layout.block.as_ref().map_or(0, |_| crate::layout::STORAGE_SLOTS),
        (true, false) => layout.array_len(options.material_array_bytes),
    };
    let source =
        compose_material(material, &layout, variant, &options.include_dirs, options.instanced, slots)?;
    let module = validate_composed(&source, &material.fragment_location)?;
    crate::hooks::check_read_only_writes(module.module(), &source, &material.fragment_location)?;
    let (vertex_entry, fragment_entry) = variant.entry_points(material.desc.shading_model);
    let mut files = material.files.clone();
    files.extend(source.files().iter().cloned());
    Ok(CompiledMaterial {
        variant,
        module: Arc::new(module),
        source,
        layout,
        vertex_entry,
        fragment_entry,
        files,
        // `array_len` is 0 without a block, so this is what the composer declared.
        material_slots: slots,
    })
}

/// Compiled variants: variant, options, and what compiling gave.
type CacheEntries = Vec<(Variant, CompileOptions, Result<Arc<CompiledMaterial>, MaterialError>)>;

/// The variants of one [`LoadedMaterial`] compiled so far, by variant and options, refusals
/// included (a variant that does not compile is not composed again for every frame that asks).
/// A clone of the material starts empty: the clone's fields may be changed.
#[derive(Default)]
pub(crate) struct VariantCache {
    entries: Mutex<CacheEntries>,
}

impl Clone for VariantCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for VariantCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} compiled", self.lock().len())
    }
}

impl VariantCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, CacheEntries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl LoadedMaterial {
    /// [`compile_material`] of this material, once per variant and options: the one place a
    /// compiled variant is kept. The asset loader, the material store and the renderer ask the
    /// same loaded material, so a variant they share is composed and validated once. A file
    /// edit gives a new `LoadedMaterial` (the loader and the store read the material again),
    /// so nothing here outlives the files it was composed from.
    pub fn compiled(
        &self,
        variant: Variant,
        options: &CompileOptions,
    ) -> Result<Arc<CompiledMaterial>, MaterialError> {
        let find = |entries: &CacheEntries| {
            entries.iter().find(|(v, o, _)| *v == variant && o == options).map(|(_, _, r)| r.clone())
        };
        if let Some(result) = find(&self.variants.lock()) {
            return result;
        }
        // Composed without the lock: variants of one material may compile on several threads.
        let result = compile_material(self, variant, options).map(Arc::new);
        let mut entries = self.variants.lock();
        if let Some(first) = find(&entries) {
            return first;
        }
        entries.push((variant, options.clone(), result.clone()));
        result
    }

    /// The variants [`compiled`](Self::compiled) has compiled, in order, once for each set of
    /// options they were asked with (so a variant listed twice was compiled for two).
    pub fn compiled_variants(&self) -> Vec<Variant> {
        self.variants.lock().iter().map(|(v, _, _)| *v).collect()
    }
}

/// Reads, checks and compiles every variant of the material at `path`: what
/// `f3d material check` does for one file. Returns every problem found.
pub fn check_material(
    path: &Path,
    options: &CompileOptions,
) -> Result<Vec<CompiledMaterial>, Vec<MaterialError>> {
    let material = read_material(path)?;
    let results = compile_variants(path, |variant| compile_material(&material, variant, options));
    // A problem in user code shows in every variant; report the first variant's, once.
    results.into_iter().collect::<Result<Vec<_>, _>>().map_err(|e| vec![e])
}

/// Runs `compile` for each of [`Variant::ALL`], in that order, each on a thread of its own:
/// the variants compose, parse, validate and compile independently, and a save (or `f3d
/// material check`) waits for all of them. A panic in one (a bug in a compiler, never the
/// user's input) becomes an error naming the material's file and what the panic said, so a
/// reload keeps the last good version and the tool reports instead of crashing.
pub(crate) fn compile_variants<T: Send>(
    path: &Path,
    compile: impl Fn(Variant) -> Result<T, MaterialError> + Sync,
) -> [Result<T, MaterialError>; 3] {
    let compile = &compile;
    std::thread::scope(|scope| {
        Variant::ALL.map(|variant| (variant, scope.spawn(move || compile(variant)))).map(
            |(variant, handle)| {
                handle.join().unwrap_or_else(|payload| {
                    let said = payload
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "no message".to_owned());
                    Err(MaterialError::Shader {
                        at: crate::Location::file(path),
                        message: format!(
                            "compiling the {} variant panicked (a bug in f3d, not in the material): {said}",
                            variant.name()
                        ),
                        notes: Vec::new(),
                    })
                })
            },
        )
    })
}

/// The user's code must define the function the framework calls; said plainly here rather
/// than as naga's "no definition in scope" inside the library.
fn require_function(material: &LoadedMaterial, code: &'static str) -> Result<(), MaterialError> {
    let (user, name, signature) = match code {
        "vertex" => match &material.vertex {
            Some(v) => (v, "vertex", "fn vertex(v: ptr<function, VertexInputs>)"),
            None => return Ok(()),
        },
        "light" => match &material.light {
            Some(l) => (l, "light", "fn light(l: ptr<function, LightInputs>) -> vec3<f32>"),
            None => return Ok(()),
        },
        _ => (&material.fragment, "surface", "fn surface(m: ptr<function, MaterialInputs>)"),
    };
    if defines_function(&user.text, name) || user.text.contains("#include") {
        return Ok(());
    }
    let first = user.text.len() - user.text.trim_start().len();
    Err(MaterialError::MissingFunction { at: user.location(first, 1), code, signature })
}

/// Whether `text` has `fn name(` outside comments (a light scan, not a parse).
fn defines_function(text: &str, name: &str) -> bool {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).any(|l| {
        let mut words = l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty());
        while let Some(w) = words.next() {
            if w == "fn" && words.next() == Some(name) {
                return true;
            }
        }
        false
    })
}

/// Parses and validates a composed module (measured first, then on naga's own stack, see
/// [`nesting`]); naga's errors located in the user's files.
pub(crate) fn validate_composed(
    source: &ComposedSource,
    fallback: &crate::source::Location,
) -> Result<ValidatedModule, MaterialError> {
    let text = source.text();
    if let Some(e) = nesting::excess(text, true) {
        let at = source.location(e.offset, 1).unwrap_or_else(|| fallback.clone());
        return Err(MaterialError::TooMany { at, what: e.what, count: e.count, limit: e.limit });
    }
    nesting::with_stack(|| parse_and_validate(source, fallback))
}

fn parse_and_validate(
    source: &ComposedSource,
    fallback: &crate::source::Location,
) -> Result<ValidatedModule, MaterialError> {
    let text = source.text();
    let module = naga::front::wgsl::parse_str(text).map_err(|e| {
        let labels: Vec<(naga::Span, String)> = e.labels().map(|(s, l)| (s, l.to_owned())).collect();
        located(
            source,
            fallback,
            true,
            e.message().to_owned(),
            &labels,
            e.notes().map(str::to_owned).collect(),
        )
    })?;
    ValidatedModule::new(module).map(|m| m.with_source(text)).map_err(|e| {
        let labels: Vec<(naga::Span, String)> = e.spans().cloned().collect();
        located(source, fallback, false, error_chain(&*e), &labels, Vec::new())
    })
}

/// naga's error and its sources, joined (`Function 'surface' is invalid: ...`).
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let text = s.to_string();
        if !message.contains(&text) {
            message = format!("{message}: {text}");
        }
        next = s.source();
    }
    message
}

/// Picks the label to point at: the first one in the user's code, else the first at all.
fn located(
    source: &ComposedSource,
    fallback: &crate::source::Location,
    parse: bool,
    message: String,
    labels: &[(naga::Span, String)],
    mut notes: Vec<String>,
) -> MaterialError {
    // naga's validator labels IR handles (`naga::ir::Expression [4]`); say what they are.
    let tidy = |l: &str| match l.strip_prefix("naga::ir::") {
        Some(rest) => rest.split(' ').next().unwrap_or(rest).to_lowercase(),
        None => l.to_owned(),
    };
    let spans: Vec<(usize, usize, String)> = labels
        .iter()
        .filter_map(|(s, l)| s.to_range().map(|r| (r.start, r.end - r.start, tidy(l))))
        .collect();
    // The parser's first label is its primary; the validator goes from the function down to
    // the expression, so its last label in user code is the most precise.
    let in_user = |(o, _, _): &&(usize, usize, String)| source.kind(*o) == SourceKind::User;
    let user = if parse { spans.iter().find(in_user) } else { spans.iter().rev().find(in_user) };
    let primary = user.or_else(|| spans.first()).cloned();
    let mut at = None;
    if let Some((offset, len, label)) = &primary {
        let (offset, len) = (*offset, *len);
        at = source.location(offset, len);
        if !label.is_empty() && !message.contains(label.as_str()) && !parse_is_handle(label) {
            notes.insert(0, label.clone());
        }
        if source.kind(offset) == SourceKind::Library {
            notes.push("this is in the engine's shader library, reached from the material's code".into());
        }
    }
    for span in &spans {
        let (offset, len, label) = span;
        if Some(span) != primary.as_ref()
            && !label.is_empty()
            && let Some(loc) = source.location(*offset, *len)
        {
            notes.push(format!("{loc}: {label}"));
        }
    }
    MaterialError::Shader {
        at: at.unwrap_or_else(|| fallback.clone()),
        message: tidy_message(&message),
        notes,
    }
}

/// Whether a label is only an IR handle's kind (`expression`), which says nothing at the
/// primary location.
fn parse_is_handle(label: &str) -> bool {
    matches!(label, "expression" | "function" | "type" | "constant" | "globalvariable" | "localvariable")
}

/// naga's validator names IR handles (`Function [15] 'surface'`): drop the number where a
/// name follows, which is all a user can act on; other handles stay (the caret shows them).
fn tidy_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.find(" [") {
        let after = &rest[open + 2..];
        match after.find("] '") {
            Some(close) if close > 0 && after[..close].bytes().all(|b| b.is_ascii_digit()) => {
                out.push_str(&rest[..open]);
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..open + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    /// Each variant compiles on its own thread, results in `Variant::ALL`'s order; a panic in
    /// one is that variant's error, naming the file and what the panic said, and the others
    /// still compile.
    #[test]
    fn a_variant_that_panics_is_an_error_naming_the_file() {
        let path = std::path::Path::new("materials/broken.ron");
        let results = compile_variants(path, |variant| {
            if variant == Variant::DepthOnly {
                panic!("lowering went wrong");
            }
            Ok(variant.name())
        });
        assert!(matches!(results[0], Ok("color")), "{:?}", results[0]);
        assert!(matches!(results[2], Ok("shadow")), "{:?}", results[2]);
        let error = results[1].as_ref().expect_err("the depth variant panicked").to_string();
        assert!(error.contains("depth variant panicked") && error.contains("lowering went wrong"), "{error}");
        let at = results[1].as_ref().err().and_then(MaterialError::location).expect("located");
        assert!(at.to_string().contains("materials/broken.ron"), "{at}");
    }

    use super::*;

    #[test]
    fn finds_function_definitions() {
        assert!(defines_function("fn surface(m: ptr<function, MaterialInputs>) {}", "surface"));
        assert!(defines_function("  fn  surface (m)", "surface"));
        assert!(!defines_function("// fn surface(m)\nfn surfaces() {}", "surface"));
    }

    #[test]
    fn handle_numbers_leave_messages() {
        assert_eq!(
            tidy_message("Function [15] 'surface' is invalid: The type of [4] doesn't match"),
            "Function 'surface' is invalid: The type of [4] doesn't match"
        );
    }
}
