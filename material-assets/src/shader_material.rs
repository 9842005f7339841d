//! [`ShaderMaterial`], the escape hatch: a complete fragment shader in WGSL or GLSL 450, bound
//! by name like everything else, with its uniform blocks' layout reflected so the app can
//! pack them.
//!
//! GLSL goes through naga's glsl-in, which needs Vulkan GLSL (`#version 450`, every uniform
//! in a block with `layout(set = .., binding = ..)`) and does not accept combined
//! `uniform sampler2D`. f3d rewrites each `layout(set = S, binding = B) uniform sampler2D name;`
//! (or `samplerCube`) into a `texture2D name` at binding B, a `sampler name_sampler` at the
//! set's next free binding, and `#define name sampler2D(name, name_sampler)`, so user code
//! still calls `texture(name, uv)` and the app still binds `name`.

use std::path::Path;
use std::sync::Arc;

use f3d_hal::{BindingInfo, ShaderStage, ValidatedModule, naga};

use crate::compile::error_chain;
use crate::compose::ComposedSource;
use crate::layout::{BlockLayout, uniform_blocks};
use crate::source::SourceText;
use crate::{MaterialError, nesting, reflect};

/// The language of a [`ShaderMaterial`]'s source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShaderLanguage {
    /// WGSL; the module's one fragment entry point is used.
    Wgsl,
    /// Vulkan GLSL 450; the entry point is `main`.
    Glsl,
}

/// A complete fragment shader written by the user.
#[derive(Clone, Debug)]
pub struct ShaderMaterial {
    label: String,
    module: Arc<ValidatedModule>,
    entry_point: String,
    blocks: Vec<BlockLayout>,
    /// The shader's own texture bindings (name, whether a cube), engine ones left out.
    textures: Vec<(String, bool)>,
    /// Whether it samples the engine's `environment_radiance`.
    environment: bool,
}

impl ShaderMaterial {
    /// Compiles WGSL holding exactly one `@fragment` entry point; `label` names it in errors
    /// (a path for files).
    pub fn from_wgsl(label: &str, source: &str) -> Result<Self, MaterialError> {
        let file = SourceText::new(label, source);
        too_deep(&file, true)?;
        nesting::with_stack(|| Self::wgsl_on_stack(label, &file))
    }

    fn wgsl_on_stack(label: &str, file: &SourceText) -> Result<Self, MaterialError> {
        let source = file.text();
        let module = naga::front::wgsl::parse_str(source).map_err(|e| {
            let (at, notes) = match e.labels().next() {
                Some((span, l)) => (
                    file.location(
                        span.to_range().map_or(0, |r| r.start),
                        span.to_range().map_or(1, |r| r.len()),
                    ),
                    vec![l.to_owned()],
                ),
                None => (file.location(0, 1), Vec::new()),
            };
            MaterialError::Shader { at, message: e.message().to_owned(), notes }
        })?;
        Self::finish(label, file, module, None)
    }

    /// Compiles Vulkan GLSL 450 (a fragment shader; see the module docs for samplers).
    pub fn from_glsl(label: &str, source: &str) -> Result<Self, MaterialError> {
        let file = SourceText::new(label, source);
        too_deep(&file, false)?;
        if let Some(e) = nesting::macro_excess(file.text()) {
            return Err(MaterialError::TooMany {
                at: file.location(e.offset, 1),
                what: e.what,
                count: e.count,
                limit: e.limit,
            });
        }
        nesting::with_stack(|| Self::glsl_on_stack(label, &file))
    }

    fn glsl_on_stack(label: &str, file: &SourceText) -> Result<Self, MaterialError> {
        let rewritten = split_combined_samplers(file);
        let mut frontend = naga::front::glsl::Frontend::default();
        let options = naga::front::glsl::Options::from(naga::ShaderStage::Fragment);
        let module = frontend.parse(&options, rewritten.text()).map_err(|errors| {
            let mut located = errors.errors.iter().map(|e| {
                let r = e.meta.to_range().unwrap_or(0..0);
                let at = rewritten.location(r.start, r.len().max(1)).unwrap_or_else(|| file.location(0, 1));
                (at, e.kind.to_string())
            });
            let (at, message) =
                located.next().unwrap_or_else(|| (file.location(0, 1), "GLSL parse failed".into()));
            MaterialError::Shader {
                at,
                message,
                notes: located.map(|(at, m)| format!("{at}: {m}")).collect(),
            }
        })?;
        Self::finish(label, file, module, Some(&rewritten))
    }

    /// Reads a `.wgsl`, `.glsl` or `.frag` file.
    pub fn from_path(path: &Path) -> Result<Self, MaterialError> {
        let bytes = crate::format::load::read_limited(path, "shader", None)?;
        let text = crate::format::load::text_of(path, &bytes, "shader")?;
        let label = path.display().to_string();
        match path.extension().and_then(|e| e.to_str()) {
            Some("wgsl") => Self::from_wgsl(&label, &text),
            _ => Self::from_glsl(&label, &text),
        }
    }

    fn finish(
        label: &str,
        file: &SourceText,
        module: naga::Module,
        map: Option<&ComposedSource>,
    ) -> Result<Self, MaterialError> {
        let entry_point = module
            .entry_points
            .iter()
            .find(|ep| ep.stage == naga::ShaderStage::Fragment)
            .map(|ep| ep.name.clone())
            .ok_or_else(|| MaterialError::MissingFunction {
                at: file.location(0, 1),
                code: "shader material",
                signature: "a @fragment entry point",
            })?;
        // The text naga parsed, marked with its language: the shader cache's key.
        let source = match map {
            Some(rewritten) => format!("glsl\n{}", rewritten.text()),
            None => format!("wgsl\n{}", file.text()),
        };
        let validated = ValidatedModule::new(module).map(|m| m.with_source(&source)).map_err(|e| {
            let span = e.spans().filter_map(|(s, _)| s.to_range()).last();
            let at = span
                .and_then(|r| match map {
                    Some(m) => m.location(r.start, r.len()),
                    None => Some(file.location(r.start, r.len())),
                })
                .unwrap_or_else(|| file.location(0, 1));
            MaterialError::Shader { at, message: error_chain(&*e), notes: Vec::new() }
        })?;
        let located = |offset: usize, len: usize| match map {
            Some(m) => m.location(offset, len).unwrap_or_else(|| file.location(0, 1)),
            None => file.location(offset, len),
        };
        check_contract(validated.module(), &entry_point, file, map.is_none(), &located)?;
        let blocks = uniform_blocks(validated.module());
        let module = Arc::new(validated);
        let bindings =
            reflect::stage_bindings(&module, ShaderStage::Fragment, &entry_point).map_err(|e| {
                MaterialError::Shader { at: file.location(0, 1), message: e.to_string(), notes: Vec::new() }
            })?;
        let environment = bindings.iter().any(|b| b.name == SHADER_MATERIAL_ENGINE_BINDINGS[0]);
        let textures = bindings
            .into_iter()
            .filter_map(|b| match b.kind {
                f3d_hal::BindingKind::Texture { dimension, .. }
                    if !SHADER_MATERIAL_ENGINE_BINDINGS.contains(&b.name.as_str()) =>
                {
                    Some((b.name, dimension == f3d_hal::TextureDimension::Cube))
                }
                _ => None,
            })
            .collect();
        Ok(Self { label: label.to_owned(), module, entry_point, blocks, textures, environment })
    }

    /// The label (the file's path, for files).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The validated module.
    pub fn module(&self) -> &Arc<ValidatedModule> {
        &self.module
    }

    /// The fragment entry point.
    pub fn entry_point(&self) -> &str {
        &self.entry_point
    }

    /// Every uniform block, with naga's member offsets: pack these bytes yourself.
    pub fn uniform_blocks(&self) -> &[BlockLayout] {
        &self.blocks
    }

    /// The block whose type (or variable) is called `name`: blocks bind by type name.
    pub fn block(&self, name: &str) -> Option<&BlockLayout> {
        self.blocks
            .iter()
            .find(|b| b.type_name == name)
            .or_else(|| self.blocks.iter().find(|b| b.name == name))
    }

    /// The shader's own texture bindings, each with whether it is a cube (the engine's
    /// `environment_radiance` left out: see [`reads_environment`](Self::reads_environment)).
    pub fn textures(&self) -> &[(String, bool)] {
        &self.textures
    }

    /// Whether it samples the engine's `environment_radiance`.
    pub fn reads_environment(&self) -> bool {
        self.environment
    }

    /// The bindings the fragment stage uses.
    pub fn bindings(&self) -> Result<Vec<BindingInfo>, reflect::ReflectError> {
        reflect::stage_bindings(&self.module, ShaderStage::Fragment, &self.entry_point)
    }
}

/// The textures an engine binds into a shader material by name: the environment's radiance
/// cube and its sampler (the material's `environment` switch says whether they hold the
/// scene's environment or black).
pub const SHADER_MATERIAL_ENGINE_BINDINGS: &[&str] =
    &["environment_radiance", "environment_radiance_sampler"];

/// What a shader material's fragment stage may take and give (DESIGN §5): the engine's
/// varyings at their locations and types ([`ENGINE_VARYINGS`](crate::library::ENGINE_VARYINGS)),
/// one `vec4<f32>` colour at location 0, and its own bindings in the material group (1) only:
/// uniform blocks, float textures (2D or cube) and filtering samplers, none named like the
/// engine's view bindings except [`SHADER_MATERIAL_ENGINE_BINDINGS`].
fn check_contract(
    module: &naga::Module,
    entry_point: &str,
    file: &SourceText,
    wgsl: bool,
    located: &dyn Fn(usize, usize) -> crate::source::Location,
) -> Result<(), MaterialError> {
    use crate::library::{ENGINE_VARYINGS, VIEW_BINDINGS, groups};
    let refuse = |at, message: String| MaterialError::Shader { at, message, notes: Vec::new() };
    let Some(ep) = module.entry_points.iter().find(|e| e.name == entry_point) else { return Ok(()) };
    // Every located input: (location, type) from arguments and struct members alike.
    let mut inputs = Vec::new();
    for arg in &ep.function.arguments {
        match (&arg.binding, &module.types[arg.ty].inner) {
            (Some(naga::Binding::Location { location, .. }), _) => inputs.push((*location, arg.ty)),
            (None, naga::TypeInner::Struct { members, .. }) => {
                for m in members {
                    if let Some(naga::Binding::Location { location, .. }) = m.binding {
                        inputs.push((location, m.ty));
                    }
                }
            }
            _ => {}
        }
    }
    for (location, ty) in inputs {
        let at = location_declaration(file, location, true, wgsl);
        let found = type_text(module, ty);
        match ENGINE_VARYINGS.iter().find(|(_, l, _)| *l == location) {
            Some((_, _, want)) if found == *want => {}
            Some((name, _, want)) => {
                return Err(refuse(
                    at,
                    format!(
                        "fragment input @location({location}) is the engine's `{name}`, a {want}, not a {found}"
                    ),
                ));
            }
            None => {
                let known: Vec<String> =
                    ENGINE_VARYINGS.iter().map(|(n, l, t)| format!("{l} {n}: {t}")).collect();
                return Err(refuse(
                    at,
                    format!(
                        "fragment input @location({location}) is not an engine varying (the engine gives {})",
                        known.join(", ")
                    ),
                ));
            }
        }
    }
    // The output: one colour at location 0.
    let mut outputs = Vec::new();
    if let Some(result) = &ep.function.result {
        match (&result.binding, &module.types[result.ty].inner) {
            (Some(naga::Binding::Location { location, .. }), _) => outputs.push((*location, result.ty)),
            (None, naga::TypeInner::Struct { members, .. }) => {
                for m in members {
                    if let Some(naga::Binding::Location { location, .. }) = m.binding {
                        outputs.push((location, m.ty));
                    }
                }
            }
            _ => {}
        }
    }
    match outputs.as_slice() {
        [(0, ty)] if type_text(module, *ty) == "vec4<f32>" => {}
        _ => {
            let at = outputs.iter().find(|(l, _)| *l != 0).map_or_else(
                || location_declaration(file, 0, false, wgsl),
                |(l, _)| location_declaration(file, *l, false, wgsl),
            );
            return Err(refuse(at, "a shader material writes one vec4<f32> colour at @location(0)".into()));
        }
    }
    // Bindings: the material group only, and only what the renderer binds there.
    for (handle, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else { continue };
        let name = var.name.clone().unwrap_or_default();
        let span = module.global_variables.get_span(handle).to_range().unwrap_or(0..1);
        let at = located(span.start, span.len().max(1));
        let engine = VIEW_BINDINGS.iter().any(|(n, _)| *n == name);
        if engine && !SHADER_MATERIAL_ENGINE_BINDINGS.contains(&name.as_str()) {
            return Err(refuse(
                at,
                format!(
                    "`{name}` is one of the engine's view bindings; a shader material reads its own blocks and \
                     textures, and `environment_radiance` with its sampler"
                ),
            ));
        }
        if binding.group != groups::MATERIAL {
            return Err(refuse(
                at,
                format!(
                    "`{name}` is in group {}; a shader material's bindings are in group {} (group {} is the \
                     view's, group {} the draw's)",
                    binding.group,
                    groups::MATERIAL,
                    groups::VIEW,
                    groups::DRAW
                ),
            ));
        }
        let supported = match (&var.space, &module.types[var.ty].inner) {
            (naga::AddressSpace::Uniform, _) => true,
            (
                _,
                naga::TypeInner::Image {
                    class: naga::ImageClass::Sampled { kind, multi: false },
                    dim,
                    arrayed: false,
                },
            ) => {
                *kind == naga::ScalarKind::Float
                    && matches!(dim, naga::ImageDimension::D2 | naga::ImageDimension::Cube)
            }
            (_, naga::TypeInner::Sampler { comparison }) => !comparison,
            _ => false,
        };
        if !supported {
            return Err(refuse(
                at,
                format!(
                    "`{name}`: a shader material binds uniform blocks, float 2D or cube textures and filtering \
                     samplers, not {}",
                    type_text(module, var.ty)
                ),
            ));
        }
    }
    Ok(())
}

/// A type as WGSL spells it, for the contract's messages (`vec3<f32>`).
fn type_text(module: &naga::Module, ty: naga::Handle<naga::Type>) -> String {
    let scalar = |s: naga::Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Float, 4) => "f32".to_owned(),
        (naga::ScalarKind::Sint, 4) => "i32".to_owned(),
        (naga::ScalarKind::Uint, 4) => "u32".to_owned(),
        (naga::ScalarKind::Bool, _) => "bool".to_owned(),
        (kind, width) => format!("{kind:?}{}", width * 8),
    };
    match &module.types[ty].inner {
        naga::TypeInner::Scalar(s) => scalar(*s),
        naga::TypeInner::Vector { size, scalar: s } => format!("vec{}<{}>", *size as u8, scalar(*s)),
        other => module.types[ty].name.clone().unwrap_or_else(|| format!("{other:?}")),
    }
}

/// Where the user declared the input (or output) at `location`: the first `@location(N)`
/// followed by a `name:` (WGSL inputs) or not (outputs), or `layout(location = N) in|out`
/// (GLSL); the file's start when none is found.
fn location_declaration(
    file: &SourceText,
    location: u32,
    input: bool,
    wgsl: bool,
) -> crate::source::Location {
    let text = file.text();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let found = if wgsl {
            let tag = format!("@location({location})");
            line.find(&tag).filter(|&i| {
                let rest = line[i + tag.len()..].trim_start();
                let is_input = rest.split([',', ')']).next().is_some_and(|p| p.contains(':'));
                is_input == input
            })
        } else {
            let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            let tag = format!("location={location})");
            let qualifier = if input { ")in" } else { ")out" };
            (squeezed.contains(&tag) && squeezed.contains(&format!("{location}{qualifier}")))
                .then(|| line.find("layout").unwrap_or(0))
        };
        if let Some(i) = found {
            return file.location(offset + i, line.trim_end().len().saturating_sub(i).max(1));
        }
        offset += line.len();
    }
    file.location(0, 1)
}

/// Refuses code that nests too deep for naga (see [`nesting`]), at the place it does.
fn too_deep(file: &SourceText, nested_comments: bool) -> Result<(), MaterialError> {
    match nesting::excess(file.text(), nested_comments) {
        Some(e) => Err(MaterialError::TooMany {
            at: file.location(e.offset, 1),
            what: e.what,
            count: e.count,
            limit: e.limit,
        }),
        None => Ok(()),
    }
}

/// A combined sampler declaration found in GLSL.
struct Combined {
    set: u32,
    binding: u32,
    kind: &'static str,
    name: String,
}

fn parse_combined(line: &str) -> Option<Combined> {
    let t = line.trim();
    let rest = t.strip_prefix("layout")?.trim_start().strip_prefix('(')?;
    let close = rest.find(')')?;
    let (quals, after) = (&rest[..close], rest[close + 1..].trim());
    let after = after.strip_prefix("uniform")?.trim_start();
    let (kind, after) = if let Some(a) = after.strip_prefix("sampler2D") {
        ("texture2D", a)
    } else if let Some(a) = after.strip_prefix("samplerCube") {
        ("textureCube", a)
    } else {
        return None;
    };
    if !after.starts_with(char::is_whitespace) {
        return None;
    }
    let name = after.trim().strip_suffix(';')?.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let mut set = 0;
    let mut binding = None;
    for q in quals.split(',') {
        let mut kv = q.split('=').map(str::trim);
        match (kv.next(), kv.next().and_then(|v| v.parse::<u32>().ok())) {
            (Some("set"), Some(v)) => set = v,
            (Some("binding"), Some(v)) => binding = Some(v),
            _ => {}
        }
    }
    Some(Combined { set, binding: binding?, kind, name: name.to_owned() })
}

/// Rewrites combined samplers (see the module docs), keeping a map from the rewritten text
/// back to the user's lines.
fn split_combined_samplers(file: &SourceText) -> ComposedSource {
    let text = file.text();
    let combined: Vec<Combined> = text.lines().filter_map(parse_combined).collect();
    let mut next_free: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for line in text.lines() {
        let t = line.trim();
        if !t.starts_with("layout") {
            continue;
        }
        let quals = t.split(')').next().unwrap_or("");
        let field = |key: &str| {
            quals.split(['(', ',']).find_map(|q| {
                let mut kv = q.split('=').map(str::trim);
                (kv.next() == Some(key)).then(|| kv.next().and_then(|v| v.parse::<u32>().ok())).flatten()
            })
        };
        if let Some(b) = field("binding") {
            let set = field("set").unwrap_or(0);
            let e = next_free.entry(set).or_insert(0);
            *e = (*e).max(b + 1);
        }
    }
    let mut out = ComposedSource::for_rewrite(file.clone());
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        match parse_combined(line).and_then(|c| combined.iter().find(|x| x.name == c.name)) {
            Some(c) => {
                let free = next_free.entry(c.set).or_insert(0);
                let sampler_binding = *free;
                *free += 1;
                let indent = line.len() - line.trim_start().len();
                out.copy_line(start, &line[..indent]);
                out.push_generated(&format!(
                    "layout(set = {0}, binding = {1}) uniform {2} {3}; layout(set = {0}, binding = {4}) uniform sampler {3}_sampler;\n#define {3} {5}({3}, {3}_sampler)\n",
                    c.set,
                    c.binding,
                    c.kind,
                    c.name,
                    sampler_binding,
                    if c.kind == "texture2D" { "sampler2D" } else { "samplerCube" },
                ));
            }
            None => out.copy_line(start, line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combined_sampler_lines_are_recognised() {
        let c = parse_combined("layout(set = 1, binding = 3) uniform sampler2D albedo;").unwrap();
        assert_eq!((c.set, c.binding, c.kind, c.name.as_str()), (1, 3, "texture2D", "albedo"));
        assert!(parse_combined("layout(binding = 0) uniform Params { vec4 t; };").is_none());
        assert!(parse_combined("uniform sampler2D x;").is_none());
    }
}
