//! Reading a `.ron` material: bytes → text → ron → [`MaterialDesc`] → semantic checks, and
//! the fragment code found (inline or in its file) with a map back to where it was written.

use std::path::{Path, PathBuf};

use super::spans::{self, Node};
use super::{MaterialDesc, validate};
use crate::MaterialError;
use crate::source::{Location, SourceText};

/// The largest `.ron` or `.wgsl` file read (1 MiB): far beyond any real material, small enough
/// that nothing a file holds can make the checks slow.
pub const MAX_FILE_SIZE: u64 = 1 << 20;
/// The most parameters a material declares.
pub const MAX_PARAMETERS: usize = 1024;
/// The most custom varyings (locations 8 to 15).
pub const MAX_VARYINGS: usize = 8;
/// The most custom attributes (locations 8 to 14: location 15 carries the instance's material
/// slot, see [`library::INSTANCE_MATERIAL_LOCATION`](crate::library::INSTANCE_MATERIAL_LOCATION)).
pub const MAX_ATTRIBUTES: usize = 7;
/// How deep RON may nest (ron's recursion limit): the format itself needs 5.
const MAX_NESTING: usize = 32;

/// User WGSL (a `fragment`, a `vertex`, or a `fragment_file`) and where each byte of it was
/// written, so naga's spans can be shown in the file the user edits.
#[derive(Clone, Debug)]
pub struct UserCode {
    /// The WGSL.
    pub(crate) text: String,
    /// The file it is in (the `.ron` for inline code).
    pub(crate) file: SourceText,
    /// For inline code, the `.ron` offset of each byte of `text` (one more for the end);
    /// `None` when `text` is the whole of `file`.
    pub(crate) offsets: Option<Vec<usize>>,
}

impl UserCode {
    /// The WGSL.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The location of byte `offset` of the code, in the file it was written in.
    pub fn location(&self, offset: usize, length: usize) -> Location {
        match &self.offsets {
            None => self.file.location(offset, length),
            Some(map) => {
                let start = map.get(offset).or(map.last()).copied().unwrap_or(0);
                let end = map.get(offset + length).copied().unwrap_or(start + length);
                self.file.location(start, end.saturating_sub(start).max(1))
            }
        }
    }
}

/// A material read and checked: its description, its source, and its code.
#[derive(Clone, Debug)]
pub struct LoadedMaterial {
    /// What the file says.
    pub desc: MaterialDesc,
    /// The `.ron` text.
    pub(crate) source: SourceText,
    /// The location of each parameter's entry, in order.
    pub(crate) parameter_locations: Vec<Location>,
    /// The location of the `fragment` or `fragment_file` value.
    pub(crate) fragment_location: Location,
    /// The fragment code.
    pub(crate) fragment: UserCode,
    /// The vertex code, if any.
    pub(crate) vertex: Option<UserCode>,
    /// The `light` hook's code, if any.
    pub(crate) light: Option<UserCode>,
    /// Every file read so far (the `.ron`, the `fragment_file`); composition adds includes.
    pub files: Vec<PathBuf>,
    /// Its compiled variants ([`LoadedMaterial::compiled`]).
    pub(crate) variants: crate::compile::VariantCache,
}

impl LoadedMaterial {
    /// The `.ron` file's path.
    pub fn path(&self) -> &Path {
        self.source.path()
    }

    /// The fragment code, as naga will see it.
    pub fn fragment(&self) -> &UserCode {
        &self.fragment
    }

    /// The vertex code, if the material has a `vertex` function.
    pub fn vertex(&self) -> Option<&UserCode> {
        self.vertex.as_ref()
    }

    /// Whether `other` was read from the same text: the `.ron` and the `fragment_file`
    /// (includes are read when a variant is compiled).
    pub fn same_text(&self, other: &LoadedMaterial) -> bool {
        self.source.text() == other.source.text() && self.fragment.text == other.fragment.text
    }

    /// The `light` hook's code, if the material has one.
    pub fn light(&self) -> Option<&UserCode> {
        self.light.as_ref()
    }

    /// Where parameter `index` is declared.
    pub fn parameter_location(&self, index: usize) -> Option<&Location> {
        self.parameter_locations.get(index)
    }
}

/// Reads and checks the material at `path`.
pub fn read_material(path: &Path) -> Result<LoadedMaterial, Vec<MaterialError>> {
    let bytes = read_limited(path, "material", None).map_err(|e| vec![e])?;
    parse_material(path, &bytes)
}

/// Reads a file of at most [`MAX_FILE_SIZE`] bytes; `named_at` is where it was named (for a
/// missing file).
pub(crate) fn read_limited(
    path: &Path,
    what: &'static str,
    named_at: Option<(&Location, &str)>,
) -> Result<Vec<u8>, MaterialError> {
    // A file that cannot be reached (a name too long, a folder, no permission) is the fault of
    // the name, so the error points where it is written; one too large is the file's own.
    let reached_at = || named_at.map_or_else(|| Location::file(path), |(loc, _)| loc.clone());
    let meta = std::fs::metadata(path).map_err(|e| match (named_at, e.kind()) {
        (Some((loc, file)), std::io::ErrorKind::NotFound) => MaterialError::MissingFile {
            at: loc.clone(),
            what,
            file: file.to_owned(),
            looked_at: path.to_owned(),
        },
        _ => MaterialError::Io { at: reached_at(), what, reason: e.to_string() },
    })?;
    if meta.len() > MAX_FILE_SIZE {
        let at = Location::file(path);
        return Err(MaterialError::TooLarge { at, what, size: meta.len(), limit: MAX_FILE_SIZE });
    }
    std::fs::read(path).map_err(|e| MaterialError::Io { at: reached_at(), what, reason: e.to_string() })
}

/// Checks that `bytes` are non-empty UTF-8 of a sane size.
pub(crate) fn text_of(path: &Path, bytes: &[u8], what: &'static str) -> Result<String, MaterialError> {
    if bytes.len() as u64 > MAX_FILE_SIZE {
        return Err(MaterialError::TooLarge {
            at: Location::file(path),
            what,
            size: bytes.len() as u64,
            limit: MAX_FILE_SIZE,
        });
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.to_owned(),
        Err(e) => {
            let good = String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned();
            let at = SourceText::new(path, good.clone()).location(good.len(), 1);
            return Err(MaterialError::NotUtf8 { at, what, offset: e.valid_up_to() });
        }
    };
    if text.trim().is_empty() {
        return Err(MaterialError::Empty { at: Location::file(path), what });
    }
    Ok(text)
}

/// Parses and checks a material whose `.ron` bytes are `bytes`, as if read from `path` (a
/// `fragment_file` is resolved next to it).
pub fn parse_material(path: &Path, bytes: &[u8]) -> Result<LoadedMaterial, Vec<MaterialError>> {
    let text = text_of(path, bytes, "material").map_err(|e| vec![e])?;
    let source = SourceText::new(path, text);
    let options = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .with_recursion_limit(MAX_NESTING);
    let desc: MaterialDesc = options.from_str(source.text()).map_err(|e| vec![ron_error(&source, e)])?;
    let root = spans::index(source.text()).unwrap_or_default();
    let at_node = |node: Option<&Node>| {
        node.map_or_else(|| source.location(0, 1), |n| source.location(n.span.0, n.span.1 - n.span.0))
    };

    let mut errors = validate::check(&desc, &source, &root);

    let parameter_locations: Vec<Location> = (0..desc.parameters.len())
        .map(|i| at_node(root.value("parameters").and_then(|p| p.items.get(i))))
        .collect();

    let code_of = |field: &str, text: &str| -> UserCode {
        match root.value(field).and_then(|n| n.string.as_ref()) {
            Some(lit) if lit.text == text => {
                UserCode { text: text.to_owned(), file: source.clone(), offsets: Some(lit.offsets.clone()) }
            }
            // The indexer could not place it: point at the field (or the file) instead.
            _ => {
                let start = root.field(field).map_or(0, |f| f.name_span.0);
                UserCode {
                    text: text.to_owned(),
                    file: source.clone(),
                    offsets: Some(vec![start; text.len() + 1]),
                }
            }
        }
    };
    let fragment_location = at_node(root.value("fragment").or(root.value("fragment_file")));
    let mut files = vec![path.to_owned()];
    let fragment = match (&desc.fragment, &desc.fragment_file) {
        (Some(code), None) => Some(code_of("fragment", code)),
        (None, Some(file)) => {
            let resolved = path.parent().unwrap_or(Path::new("")).join(file);
            files.push(resolved.clone());
            match read_limited(&resolved, "fragment_file", Some((&fragment_location, file)))
                .and_then(|bytes| text_of(&resolved, &bytes, "fragment_file"))
            {
                Ok(text) => Some(UserCode {
                    text: text.clone(),
                    file: SourceText::new(&resolved, text),
                    offsets: None,
                }),
                Err(e) => {
                    errors.push(e);
                    None
                }
            }
        }
        // Both or neither: reported by the checks.
        _ => None,
    };
    let vertex = desc.vertex.as_deref().map(|v| code_of("vertex", v));
    let light = desc.light.as_deref().map(|l| code_of("light", l));
    match fragment {
        Some(fragment) if errors.is_empty() => Ok(LoadedMaterial {
            desc,
            source,
            parameter_locations,
            fragment_location,
            fragment,
            vertex,
            light,
            files,
            variants: Default::default(),
        }),
        _ => Err(errors),
    }
}

/// ron's error, at ron's position, with unknown fields and variants made structured.
fn ron_error(source: &SourceText, e: ron::error::SpannedError) -> MaterialError {
    use ron::error::Error as R;
    let at = source.location_at(e.span.start.line, e.span.start.col);
    // ron points just past an unknown identifier; point at the identifier itself.
    let at_word = |word: &str| {
        let line_start = source.location_at(e.span.start.line, 1);
        let before: String = at.line_text.chars().take(at.column.saturating_sub(1) as usize).collect();
        match before.rfind(word) {
            Some(i) => Location {
                column: before[..i].chars().count() as u32 + 1,
                length: word.chars().count().max(1) as u32,
                ..line_start
            },
            None => at.clone(),
        }
    };
    let list = |names: &[&str]| names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    match e.code {
        R::NoSuchStructField { expected, found, outer } => MaterialError::UnknownField {
            at: at_word(&found),
            container: outer.unwrap_or_else(|| "this struct".into()),
            allowed: list(expected),
            field: found,
        },
        R::NoSuchEnumVariant { expected, found, outer } => MaterialError::UnknownVariant {
            at: at_word(&found),
            container: outer.unwrap_or_else(|| "this enum".into()),
            allowed: list(expected),
            variant: found,
        },
        R::ExceededRecursionLimit => MaterialError::Syntax {
            at,
            message: format!("the material nests deeper than {MAX_NESTING} levels"),
        },
        other => MaterialError::Syntax { at, message: other.to_string() },
    }
}
