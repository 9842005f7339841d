//! What a material's hooks may do beyond what naga checks, said at the user's line.
//!
//! * `vertex` moves a vertex through `world_position` and turns its shading normal through
//!   `world_normal`; `position`, `normal` and `camera_position` are read-only (the engine has
//!   already made the world-space fields from them, so a write would silently do nothing). A
//!   write to one of them, and the old `world_offset` field, are errors.
//! * `light` must have the header the engine calls (naga would report a mismatch at the
//!   engine's call, inside the library).

use f3d_hal::naga;

use crate::MaterialError;
use crate::compose::ComposedSource;
use crate::format::load::UserCode;
use crate::source::Location;

/// The fields of `VertexInputs` a hook may read but not write.
pub const READ_ONLY_FIELDS: [&str; 3] = ["position", "normal", "camera_position"];

/// Refuses the field `world_offset` (gone: the hook writes `world_position` instead) in the
/// user's vertex code, at its first use.
pub(crate) fn check_removed_fields(vertex: &UserCode) -> Result<(), MaterialError> {
    let text = vertex.text();
    let mut start = 0;
    while let Some(found) = text[start..].find("world_offset") {
        let at = start + found;
        let end = at + "world_offset".len();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !word(text[..at].chars().next_back())
            && !word(text[end..].chars().next())
            && !in_line_comment(text, at)
        {
            return Err(MaterialError::Shader {
                at: vertex.location(at, "world_offset".len()),
                message: "`VertexInputs` has no field `world_offset`: move the vertex through \
                          `world_position` instead (`(*v).world_position += offset;`)"
                    .into(),
                notes: vec![
                    "world_position starts as the model transform of position; the engine projects what \
                     the hook leaves there"
                        .into(),
                ],
            });
        }
        start = end;
    }
    Ok(())
}

/// Refuses a store into a read-only field of the hook's `VertexInputs` argument, located in the
/// user's code.
pub(crate) fn check_read_only_writes(
    module: &naga::Module,
    source: &ComposedSource,
    fallback: &Location,
) -> Result<(), MaterialError> {
    let Some(function) =
        module.functions.iter().map(|(_, f)| f).find(|f| f.name.as_deref() == Some("vertex"))
    else {
        return Ok(());
    };
    let Some(argument) = function.arguments.first() else { return Ok(()) };
    let naga::TypeInner::Pointer { base, .. } = module.types[argument.ty].inner else { return Ok(()) };
    let naga::TypeInner::Struct { members, .. } = &module.types[base].inner else { return Ok(()) };
    let read_only: Vec<(u32, &str)> = members
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let name = m.name.as_deref()?;
            READ_ONLY_FIELDS.contains(&name).then_some((i as u32, name))
        })
        .collect();
    match first_store(&function.body, &function.expressions, &read_only) {
        None => Ok(()),
        Some((field, span)) => {
            let at = span
                .to_range()
                .and_then(|r| source.location(r.start, r.len().max(1)))
                .unwrap_or_else(|| fallback.clone());
            Err(MaterialError::Shader {
                at,
                message: format!(
                    "`{field}` of `VertexInputs` is read-only: move the vertex through `world_position` \
                     and change the shading normal through `world_normal`"
                ),
                notes: vec![format!(
                    "the engine made world_position and world_normal from {field} before the hook ran, \
                     so a write to it would change nothing"
                )],
            })
        }
    }
}

/// The first statement (in order, into nested blocks) that stores into a read-only field of
/// argument 0, with its span.
fn first_store<'a>(
    block: &naga::Block,
    expressions: &naga::Arena<naga::Expression>,
    read_only: &[(u32, &'a str)],
) -> Option<(&'a str, naga::Span)> {
    for (statement, span) in block.span_iter() {
        let found = match statement {
            naga::Statement::Store { pointer, .. } => {
                stored_field(*pointer, expressions, read_only).map(|field| (field, *span))
            }
            naga::Statement::Block(inner) => first_store(inner, expressions, read_only),
            naga::Statement::If { accept, reject, .. } => first_store(accept, expressions, read_only)
                .or_else(|| first_store(reject, expressions, read_only)),
            naga::Statement::Switch { cases, .. } => {
                cases.iter().find_map(|c| first_store(&c.body, expressions, read_only))
            }
            naga::Statement::Loop { body, continuing, .. } => first_store(body, expressions, read_only)
                .or_else(|| first_store(continuing, expressions, read_only)),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The read-only field `pointer` points into (a member of argument 0, or a part of one).
fn stored_field<'a>(
    mut pointer: naga::Handle<naga::Expression>,
    expressions: &naga::Arena<naga::Expression>,
    read_only: &[(u32, &'a str)],
) -> Option<&'a str> {
    loop {
        match expressions[pointer] {
            naga::Expression::AccessIndex { base, index } => {
                if matches!(expressions[base], naga::Expression::FunctionArgument(0)) {
                    return read_only.iter().find(|(i, _)| *i == index).map(|(_, name)| *name);
                }
                pointer = base;
            }
            naga::Expression::Access { base, .. } => pointer = base,
            _ => return None,
        }
    }
}

/// Refuses a `light` header that is not `fn light(l: ptr<function, LightInputs>) -> vec3<f32>`
/// (any parameter name, any spacing), at the header.
pub(crate) fn check_light_signature(code: &UserCode) -> Result<(), MaterialError> {
    let text = code.text();
    let Some(start) = text
        .match_indices("fn light")
        .map(|(i, _)| i)
        .find(|&i| text[i + "fn light".len()..].trim_start().starts_with('(') && !in_line_comment(text, i))
    else {
        return Ok(());
    };
    let header = text[start..].split('{').next().unwrap_or("");
    let compact: String = header.chars().filter(|c| !c.is_whitespace()).collect();
    let arguments = compact.split_once('(').and_then(|(_, a)| a.rsplit_once(')')).map_or("", |(a, _)| a);
    let one_pointer =
        arguments.ends_with(":ptr<function,LightInputs>") && arguments.matches(':').count() == 1;
    let returns = compact.rsplit_once(')').is_some_and(|(_, r)| r == "->vec3<f32>");
    if one_pointer && returns {
        return Ok(());
    }
    Err(MaterialError::Shader {
        at: code.location(start, header.trim_end().len().max(1)),
        message: format!(
            "the light hook must be `fn light(l: ptr<function, LightInputs>) -> vec3<f32>`; this one is `{}`",
            header.split_whitespace().collect::<Vec<_>>().join(" ")
        ),
        notes: vec![
            "the engine calls it once per light and adds the vec3 it returns as that light's radiance".into(),
        ],
    })
}

/// Whether byte `at` of `text` is inside a `//` comment.
fn in_line_comment(text: &str, at: usize) -> bool {
    text[..at].rsplit('\n').next().is_some_and(|line| line.contains("//"))
}
