//! The semantic checks: everything serde cannot say about a material that parsed. Every
//! problem is found (not only the first), each at the place it was written.

use std::collections::HashMap;

use super::spans::Node;
use super::{Blending, DefaultValue, EngineInput, Hint, MaterialDesc, ParamType, ShadingModel};
use super::{MAX_ATTRIBUTES, MAX_PARAMETERS, MAX_VARYINGS};
use crate::MaterialError;
use crate::source::{Location, SourceText};

/// The most texture parameters: the lit stage's own textures (shadow map, radiance cube, BRDF
/// LUT, scene colour and depth) leave 8 of the 16 that every device promises per stage.
pub const MAX_TEXTURES: usize = 8;

/// WGSL's keywords, reserved words, predeclared type names and enumerants: none may name a
/// parameter.
const WGSL_WORDS: &[&str] = &[
    // Keywords.
    "alias",
    "break",
    "case",
    "const",
    "const_assert",
    "continue",
    "continuing",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "false",
    "fn",
    "for",
    "if",
    "let",
    "loop",
    "override",
    "requires",
    "return",
    "struct",
    "switch",
    "true",
    "var",
    "while",
    // Reserved words.
    "NULL",
    "Self",
    "abstract",
    "active",
    "alignas",
    "alignof",
    "as",
    "asm",
    "asm_fragment",
    "async",
    "attribute",
    "auto",
    "await",
    "become",
    "binding_array",
    "cast",
    "catch",
    "class",
    "co_await",
    "co_return",
    "co_yield",
    "coherent",
    "column_major",
    "common",
    "compile",
    "compile_fragment",
    "concept",
    "const_cast",
    "consteval",
    "constexpr",
    "constinit",
    "crate",
    "debugger",
    "decltype",
    "delete",
    "demote",
    "demote_to_helper",
    "do",
    "dynamic_cast",
    "enum",
    "explicit",
    "export",
    "extends",
    "extern",
    "external",
    "fallthrough",
    "filter",
    "final",
    "finally",
    "friend",
    "from",
    "fxgroup",
    "get",
    "goto",
    "groupshared",
    "highp",
    "impl",
    "implements",
    "import",
    "inline",
    "instanceof",
    "interface",
    "layout",
    "lowp",
    "macro",
    "macro_rules",
    "match",
    "mediump",
    "meta",
    "mod",
    "module",
    "move",
    "mut",
    "mutable",
    "namespace",
    "new",
    "nil",
    "noexcept",
    "noinline",
    "nointerpolation",
    "noperspective",
    "null",
    "nullptr",
    "of",
    "operator",
    "package",
    "packoffset",
    "partition",
    "pass",
    "patch",
    "pixelfragment",
    "precise",
    "precision",
    "premerge",
    "priv",
    "protected",
    "pub",
    "public",
    "readonly",
    "ref",
    "regardless",
    "register",
    "reinterpret_cast",
    "require",
    "resource",
    "restrict",
    "self",
    "set",
    "shared",
    "sizeof",
    "smooth",
    "snorm",
    "static",
    "static_assert",
    "static_cast",
    "std",
    "subroutine",
    "super",
    "target",
    "template",
    "this",
    "thread_local",
    "throw",
    "trait",
    "try",
    "type",
    "typedef",
    "typeid",
    "typename",
    "typeof",
    "union",
    "unless",
    "unorm",
    "unsafe",
    "unsized",
    "use",
    "using",
    "varying",
    "virtual",
    "volatile",
    "wgsl",
    "where",
    "with",
    "writeonly",
    "yield",
    // Predeclared types.
    "bool",
    "f16",
    "f32",
    "i32",
    "u32",
    "vec2",
    "vec3",
    "vec4",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "array",
    "atomic",
    "ptr",
    "sampler",
    "sampler_comparison",
    "vec2f",
    "vec3f",
    "vec4f",
    "vec2i",
    "vec3i",
    "vec4i",
    "vec2u",
    "vec3u",
    "vec4u",
    "mat2x2f",
    "mat2x3f",
    "mat2x4f",
    "mat3x2f",
    "mat3x3f",
    "mat3x4f",
    "mat4x2f",
    "mat4x3f",
    "mat4x4f",
    "vec2h",
    "vec3h",
    "vec4h",
    "mat2x2h",
    "mat2x3h",
    "mat2x4h",
    "mat3x2h",
    "mat3x3h",
    "mat3x4h",
    "mat4x2h",
    "mat4x3h",
    "mat4x4h",
    "texture_1d",
    "texture_2d",
    "texture_2d_array",
    "texture_3d",
    "texture_cube",
    "texture_cube_array",
    "texture_multisampled_2d",
    "texture_depth_2d",
    "texture_depth_2d_array",
    "texture_depth_cube",
    "texture_depth_cube_array",
    "texture_depth_multisampled_2d",
    "texture_external",
    "texture_storage_1d",
    "texture_storage_2d",
    "texture_storage_2d_array",
    "texture_storage_3d",
    // Predeclared enumerants (address spaces, access modes, texel formats): a module-scope
    // name would shadow them for the whole module, the library's `var<uniform>` included.
    "function",
    "private",
    "workgroup",
    "uniform",
    "storage",
    "read",
    "write",
    "read_write",
    "rgba8unorm",
    "rgba8snorm",
    "rgba8uint",
    "rgba8sint",
    "rgba16uint",
    "rgba16sint",
    "rgba16float",
    "r32uint",
    "r32sint",
    "r32float",
    "rg32uint",
    "rg32sint",
    "rg32float",
    "rgba32uint",
    "rgba32sint",
    "rgba32float",
    "bgra8unorm",
];

/// WGSL's built-in functions: a module-scope name (a texture, a varying) would shadow them
/// for the whole module, the engine library included.
const WGSL_BUILTINS: &[&str] = &[
    "abs",
    "acos",
    "acosh",
    "all",
    "any",
    "arrayLength",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitcast",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "countLeadingZeros",
    "countOneBits",
    "countTrailingZeros",
    "cross",
    "degrees",
    "determinant",
    "distance",
    "dot",
    "dpdx",
    "dpdxCoarse",
    "dpdxFine",
    "dpdy",
    "dpdyCoarse",
    "dpdyFine",
    "exp",
    "exp2",
    "extractBits",
    "faceForward",
    "firstLeadingBit",
    "firstTrailingBit",
    "floor",
    "fma",
    "fract",
    "frexp",
    "fwidth",
    "insertBits",
    "inverseSqrt",
    "ldexp",
    "length",
    "log",
    "log2",
    "max",
    "min",
    "mix",
    "modf",
    "normalize",
    "pack2x16float",
    "pack4x8snorm",
    "pack4x8unorm",
    "pow",
    "quantizeToF16",
    "radians",
    "reflect",
    "refract",
    "reverseBits",
    "round",
    "saturate",
    "select",
    "sign",
    "sin",
    "sinh",
    "smoothstep",
    "sqrt",
    "step",
    "tan",
    "tanh",
    "textureDimensions",
    "textureGather",
    "textureGatherCompare",
    "textureLoad",
    "textureNumLayers",
    "textureNumLevels",
    "textureNumSamples",
    "textureSample",
    "textureSampleBias",
    "textureSampleCompare",
    "textureSampleCompareLevel",
    "textureSampleGrad",
    "textureSampleLevel",
    "textureStore",
    "transpose",
    "trunc",
    "unpack2x16float",
    "unpack4x8snorm",
    "unpack4x8unorm",
    "workgroupBarrier",
    "storageBarrier",
];

/// Whether `name` is a WGSL keyword, reserved word, predeclared type or built-in function.
pub(crate) fn is_keyword(name: &str) -> bool {
    WGSL_WORDS.contains(&name) || WGSL_BUILTINS.contains(&name)
}

/// Whether the engine's shader library already uses `name` (or its prefix).
pub(crate) fn is_reserved(name: &str) -> bool {
    crate::library::RESERVED_NAMES.contains(&name)
        || crate::library::RESERVED_PREFIXES.iter().any(|p| name.starts_with(p))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && name != "_" && !name.starts_with("__") && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

struct Checker<'a> {
    source: &'a SourceText,
    errors: Vec<MaterialError>,
}

impl Checker<'_> {
    fn at(&self, node: Option<&Node>, fallback: Option<&Node>) -> Location {
        match node.or(fallback) {
            Some(n) => self.source.location(n.span.0, n.span.1 - n.span.0),
            None => self.source.location(0, 1),
        }
    }

    /// Name rules shared by parameters, varyings and attributes.
    fn check_name(&mut self, what: &'static str, name: &str, at: Location, seen: &mut HashMap<String, u32>) {
        let error = if !is_identifier(name) {
            Some(MaterialError::InvalidIdentifier { at: at.clone(), what, name: name.to_owned() })
        } else if is_keyword(name) {
            Some(MaterialError::Keyword { at: at.clone(), what, name: name.to_owned() })
        } else if is_reserved(name) {
            Some(MaterialError::Reserved { at: at.clone(), what, name: name.to_owned() })
        } else {
            None
        };
        if let Some(e) = error {
            self.errors.push(e);
            return;
        }
        if let Some(&first_line) = seen.get(name) {
            self.errors.push(MaterialError::Duplicate { at, what, name: name.to_owned(), first_line });
        } else {
            seen.insert(name.to_owned(), at.line);
        }
    }
}

/// Runs every check on a parsed material; `root` is the span index of `source`.
pub(crate) fn check(desc: &MaterialDesc, source: &SourceText, root: &Node) -> Vec<MaterialError> {
    let mut c = Checker { source, errors: Vec::new() };
    // One namespace: parameters (textures and their samplers are module globals), varyings and
    // attributes (private globals in the composed module) are all plain names in user code.
    let mut names: HashMap<String, u32> = HashMap::new();

    let params_node = root.value("parameters");
    if desc.parameters.len() > MAX_PARAMETERS {
        let at = c.at(params_node, None);
        c.errors.push(MaterialError::TooMany {
            at,
            what: "parameters",
            count: desc.parameters.len(),
            limit: MAX_PARAMETERS,
        });
    }
    let textures = desc.parameters.iter().filter(|p| p.ty.is_texture()).count();
    if textures > MAX_TEXTURES {
        let at = c.at(params_node, None);
        c.errors.push(MaterialError::TooMany {
            at,
            what: "texture parameters",
            count: textures,
            limit: MAX_TEXTURES,
        });
    }
    for (i, p) in desc.parameters.iter().enumerate() {
        let entry = params_node.and_then(|n| n.items.get(i));
        let field = |name: &str| entry.and_then(|e| e.value(name));
        let name_at = c.at(field("name"), entry);
        c.check_name("parameter", &p.name, name_at.clone(), &mut names);
        if p.ty.is_texture() && is_identifier(&p.name) {
            let sampler = format!("{}_sampler", p.name);
            if let Some(&first_line) = names.get(&sampler) {
                c.errors.push(MaterialError::Duplicate {
                    at: name_at,
                    what: "parameter",
                    name: sampler,
                    first_line,
                });
            } else {
                names.insert(sampler, name_at.line);
            }
        }
        if let Some(hint) = &p.hint {
            let hint_at = c.at(field("hint"), entry);
            check_hint(&mut c, p.name.as_str(), p.ty, hint, hint_at);
        }
        if let Some(default) = &p.default {
            let default_at = c.at(field("default"), entry);
            if p.ty.is_texture() {
                c.errors.push(MaterialError::DefaultOnTexture {
                    at: default_at,
                    parameter: p.name.clone(),
                    declared: p.ty,
                });
            } else if let Err(e) = check_default(&p.name, p.ty, default, default_at.clone()) {
                c.errors.push(e);
            } else if let (Some(Hint::Range { min, max, .. }), Some(v)) = (&p.hint, scalar(default))
                && min <= max
                && (v < *min || v > *max)
            {
                c.errors.push(MaterialError::BadRange {
                    at: default_at,
                    parameter: p.name.clone(),
                    declared: p.ty,
                    reason: format!("default {v} is outside the Range hint [{min}, {max}]"),
                });
            }
        }
    }
    if let Some(e) =
        crate::layout::check_block_size(desc, |i| c.at(params_node.and_then(|n| n.items.get(i)), params_node))
    {
        c.errors.push(e);
    }

    for (what, list, field) in
        [("varying", &desc.varyings, "varyings"), ("attribute", &desc.attributes, "attributes")]
    {
        let node = root.value(field);
        let limit = if what == "varying" { MAX_VARYINGS } else { MAX_ATTRIBUTES };
        if list.len() > limit {
            let at = c.at(node, None);
            c.errors.push(MaterialError::TooMany {
                at,
                what: if what == "varying" { "varyings" } else { "attributes" },
                count: list.len(),
                limit,
            });
        }
        for (i, v) in list.iter().enumerate() {
            let entry = node.and_then(|n| n.items.get(i));
            let name_at = c.at(entry.and_then(|e| e.value("name")), entry);
            c.check_name(what, &v.name, name_at, &mut names);
            if matches!(v.ty, ParamType::Mat4 | ParamType::Texture2d | ParamType::TextureCube) {
                let at = c.at(entry.and_then(|e| e.value("type")), entry);
                c.errors.push(MaterialError::InterfaceType {
                    at,
                    what,
                    name: v.name.clone(),
                    declared: v.ty,
                });
            }
        }
    }

    if desc.light.is_some() && desc.shading_model != ShadingModel::Lit {
        let at = c.at(root.value("light"), None);
        c.errors.push(MaterialError::LightNotLit { at, shading_model: format!("{:?}", desc.shading_model) });
    }

    if !desc.engine_inputs.is_empty() {
        let node = root.value("engine_inputs");
        if desc.shading_model != ShadingModel::Lit {
            let at = c.at(node, None);
            let inputs = desc.engine_inputs.iter().map(|e| format!("{e:?}")).collect::<Vec<_>>().join(", ");
            c.errors.push(MaterialError::EngineInputsNotLit {
                at,
                inputs,
                shading_model: format!("{:?}", desc.shading_model),
            });
        }
        let mut seen = HashMap::new();
        for (i, input) in desc.engine_inputs.iter().enumerate() {
            let at = c.at(node.and_then(|n| n.items.get(i)), node);
            if *input == EngineInput::SceneColor && desc.blending == Blending::Opaque {
                c.errors.push(MaterialError::SceneColorOpaque { at: at.clone() });
            }
            if let Some(&first_line) = seen.get(input) {
                c.errors.push(MaterialError::Duplicate {
                    at,
                    what: "engine input",
                    name: format!("{input:?}"),
                    first_line,
                });
            } else {
                seen.insert(*input, at.line);
            }
        }
    }

    match (&desc.fragment, &desc.fragment_file) {
        (Some(_), Some(_)) => {
            let later = [root.field("fragment"), root.field("fragment_file")]
                .into_iter()
                .flatten()
                .max_by_key(|f| f.name_span.0)
                .map(|f| source.location(f.name_span.0, f.name_span.1 - f.name_span.0));
            c.errors.push(MaterialError::FragmentBoth { at: later.unwrap_or_else(|| source.location(0, 1)) });
        }
        (None, None) => {
            let at = c.at(Some(root), None);
            c.errors.push(MaterialError::FragmentMissing {
                at: Location { length: root.name.as_ref().map_or(1, |n| n.0.len() as u32), ..at },
            });
        }
        _ => {}
    }
    c.errors
}

fn check_hint(c: &mut Checker<'_>, parameter: &str, ty: ParamType, hint: &Hint, at: Location) {
    let applies_to = match hint {
        Hint::SourceColor => (!matches!(ty, ParamType::Vec3 | ParamType::Vec4)).then_some("Vec3 and Vec4"),
        Hint::Range { .. } => (!matches!(ty, ParamType::Float | ParamType::Int)).then_some("Float and Int"),
        _ => (!ty.is_texture()).then_some("Texture2d and TextureCube"),
    };
    if let Some(applies_to) = applies_to {
        c.errors.push(MaterialError::HintMismatch {
            at,
            parameter: parameter.to_owned(),
            declared: ty,
            hint: hint.name().to_owned(),
            applies_to,
        });
        return;
    }
    if let Hint::Range { min, max, step } = *hint {
        let bad = |reason: String| MaterialError::BadRange {
            at: at.clone(),
            parameter: parameter.to_owned(),
            declared: ty,
            reason,
        };
        if !(min.is_finite() && max.is_finite()) || min > max {
            c.errors.push(bad(format!("Range min ({min}) must be finite and not above max ({max})")));
        } else if step.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
            c.errors.push(bad(format!("Range step ({}) must be positive", step.unwrap_or_default())));
        } else if ty == ParamType::Int
            && [Some(min), Some(max), step].into_iter().flatten().any(|v| v.fract() != 0.0)
        {
            c.errors.push(bad("an Int's Range min, max and step must be whole numbers".into()));
        }
    }
}

/// The single number of a scalar default.
fn scalar(v: &DefaultValue) -> Option<f64> {
    match v {
        DefaultValue::Int(i) => Some(*i as f64),
        DefaultValue::Float(f) => Some(*f),
        _ => None,
    }
}

fn check_default(
    parameter: &str,
    ty: ParamType,
    value: &DefaultValue,
    at: Location,
) -> Result<(), MaterialError> {
    let expected = match ty {
        ParamType::Float => "a number",
        ParamType::Int => "an integer",
        ParamType::Vec2 => "a list of 2 numbers",
        ParamType::Vec3 => "a list of 3 numbers",
        ParamType::Vec4 => "a list of 4 numbers",
        ParamType::Mat4 => "a list of 16 numbers or of 4 columns of 4 numbers",
        ParamType::Texture2d | ParamType::TextureCube => "no default",
    };
    let wrong = || MaterialError::DefaultShape {
        at: at.clone(),
        parameter: parameter.to_owned(),
        declared: ty,
        expected: expected.to_owned(),
        found: value.describe(),
    };
    let numbers = |items: &[DefaultValue]| items.iter().all(|i| scalar(i).is_some_and(f64::is_finite));
    let ok = match (ty, value) {
        (ParamType::Float, v) => scalar(v).is_some_and(f64::is_finite),
        (ParamType::Int, DefaultValue::Int(i)) => i32::try_from(*i).is_ok(),
        (ParamType::Vec2 | ParamType::Vec3 | ParamType::Vec4, DefaultValue::List(items)) => {
            items.len() == ty.components() && numbers(items)
        }
        (ParamType::Mat4, DefaultValue::List(items)) => {
            (items.len() == 16 && numbers(items))
                || (items.len() == 4
                    && items
                        .iter()
                        .all(|c| matches!(c, DefaultValue::List(col) if col.len() == 4 && numbers(col))))
        }
        _ => false,
    };
    if ok { Ok(()) } else { Err(wrong()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_words() {
        assert!(is_identifier("base_color") && is_identifier("_x1"));
        assert!(
            !is_identifier("1x") && !is_identifier("a b") && !is_identifier("__x") && !is_identifier("_")
        );
        assert!(is_keyword("loop") && is_keyword("f32") && is_keyword("reflect") && !is_keyword("looped"));
    }
}
