//! The errors of this crate: [`MaterialError`] for anything wrong in a material's files (every
//! variant but one carries the [`Location`] it is about), and [`ParameterError`] for setting
//! parameters at run time.

use std::fmt::Write as _;

use crate::format::ParamType;
use crate::source::Location;

/// Something wrong with a material: its `.ron`, its WGSL, an include, or a backend's compile.
///
/// `Display` is the message alone; [`MaterialError::location`] says where, and
/// [`MaterialError::diagnostic`] renders both the way `f3d material check` prints them.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MaterialError {
    /// A file could not be read.
    #[error("cannot read {what}: {reason}")]
    Io {
        /// The file.
        at: Location,
        /// What the file was for (`material`, `fragment_file`, `include`).
        what: &'static str,
        /// The operating system's words.
        reason: String,
    },
    /// A file is empty (or only whitespace).
    #[error("the {what} is empty")]
    Empty {
        /// The file.
        at: Location,
        /// What the file was for.
        what: &'static str,
    },
    /// A file is not UTF-8.
    #[error("the {what} is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 {
        /// Where the first bad byte is.
        at: Location,
        /// What the file was for.
        what: &'static str,
        /// The byte offset of the first bad byte.
        offset: usize,
    },
    /// A file is larger than f3d reads.
    #[error("the {what} is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// The file.
        at: Location,
        /// What the file was for.
        what: &'static str,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The `.ron` is not well-formed RON (or not the shape of a `Material`).
    #[error("{message}")]
    Syntax {
        /// Where ron stopped.
        at: Location,
        /// ron's words.
        message: String,
    },
    /// A field the format does not have.
    #[error("unknown field `{field}` in {container}; allowed fields: {}", allowed.join(", "))]
    UnknownField {
        /// The field.
        at: Location,
        /// What was written.
        field: String,
        /// Where it was written (`Material`, a parameter, ...).
        container: String,
        /// The fields allowed there.
        allowed: Vec<String>,
    },
    /// A variant the format does not have.
    #[error("unknown variant `{variant}` of {container}; allowed variants: {}", allowed.join(", "))]
    UnknownVariant {
        /// The variant.
        at: Location,
        /// What was written.
        variant: String,
        /// The enum (`ParamType`, `Hint`, ...).
        container: String,
        /// The variants allowed.
        allowed: Vec<String>,
    },
    /// A default that does not fit the parameter's type.
    #[error("parameter `{parameter}` of type {declared}: default {found} does not fit; expected {expected}")]
    DefaultShape {
        /// The default.
        at: Location,
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
        /// What a default of this type looks like.
        expected: String,
        /// What was written.
        found: String,
    },
    /// A numeric default on a texture parameter.
    #[error(
        "parameter `{parameter}` of type {declared}: textures take no numeric default; use a hint \
         (DefaultWhite, DefaultBlack, DefaultNormal or DefaultTransparent)"
    )]
    DefaultOnTexture {
        /// The default.
        at: Location,
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
    },
    /// Two things of the same kind (or sharing one namespace) with one name.
    #[error("duplicate {what} name `{name}` (first declared at line {first_line})")]
    Duplicate {
        /// The second one.
        at: Location,
        /// `parameter`, `varying`, `attribute` or `engine input`.
        what: &'static str,
        /// The name.
        name: String,
        /// The line of the first.
        first_line: u32,
    },
    /// A name that is not a WGSL identifier.
    #[error(
        "{what} name `{name}` is not a valid WGSL identifier (letters, digits and `_`, not starting with a digit or `__`)"
    )]
    InvalidIdentifier {
        /// The name.
        at: Location,
        /// What is named.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A name that is a WGSL keyword, reserved word, predeclared type or built-in function.
    #[error("{what} name `{name}` is a WGSL keyword, reserved word or built-in name")]
    Keyword {
        /// The name.
        at: Location,
        /// What is named.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A name the engine's shader framework already uses.
    #[error("{what} name `{name}` is reserved by the engine's shader library")]
    Reserved {
        /// The name.
        at: Location,
        /// What is named.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A hint on a type it does not apply to.
    #[error("parameter `{parameter}` of type {declared}: hint {hint} only applies to {applies_to}")]
    HintMismatch {
        /// The hint.
        at: Location,
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
        /// The hint's name.
        hint: String,
        /// The types it applies to.
        applies_to: &'static str,
    },
    /// A `Range` hint that is not a range, or a default outside it.
    #[error("parameter `{parameter}` of type {declared}: {reason}")]
    BadRange {
        /// The hint or the default.
        at: Location,
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
        /// What is wrong.
        reason: String,
    },
    /// Engine inputs asked for by something other than a lit surface material.
    #[error(
        "engine inputs ({inputs}) are only available to Lit surface materials; this material is {shading_model}"
    )]
    EngineInputsNotLit {
        /// The `engine_inputs` field.
        at: Location,
        /// The inputs asked for.
        inputs: String,
        /// The material's shading model.
        shading_model: String,
    },
    /// `SceneColor` on an opaque material: the scene colour is the opaque pass's result, which
    /// the material draws into, so it can never be read there.
    #[error(
        "`SceneColor` is the opaque scene's colour, taken after the opaque pass that draws this \
         material (its blending is Opaque), so it can never be read here; give it a translucent \
         blending (Alpha, Premultiplied, Additive, Multiply) or drop the input"
    )]
    SceneColorOpaque {
        /// The `SceneColor` item of `engine_inputs`.
        at: Location,
    },
    /// A `light` hook on a material that is not lit.
    #[error(
        "a `light` hook runs in the engine's light loop, which only Lit materials have; this material is {shading_model}"
    )]
    LightNotLit {
        /// The `light` field.
        at: Location,
        /// The material's shading model.
        shading_model: String,
    },
    /// Both `fragment` and `fragment_file`.
    #[error("`fragment` and `fragment_file` are both given; give exactly one")]
    FragmentBoth {
        /// The second of the two.
        at: Location,
    },
    /// Neither `fragment` nor `fragment_file`.
    #[error(
        "the material has no fragment code; give `fragment` (WGSL text) or `fragment_file` (a .wgsl next to the .ron)"
    )]
    FragmentMissing {
        /// The material.
        at: Location,
    },
    /// The `fragment_file` (or another named file) does not exist.
    #[error("{what} `{file}` not found (looked for {})", looked_at.display())]
    MissingFile {
        /// Where it is named.
        at: Location,
        /// What the file was for.
        what: &'static str,
        /// The name as written.
        file: String,
        /// The path tried.
        looked_at: std::path::PathBuf,
    },
    /// The parameters' uniform block would be larger than every device promises.
    #[error(
        "parameter `{parameter}` of type {declared} makes the MaterialParams block {size} bytes, more than \
         max_uniform_block_size ({limit} bytes, DeviceLimits::GUARANTEED)"
    )]
    BlockTooLarge {
        /// The first parameter past the limit.
        at: Location,
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
        /// The block's size with it.
        size: u32,
        /// The limit.
        limit: u32,
    },
    /// More of something than f3d allows.
    #[error("too many {what}: {count}, the limit is {limit}")]
    TooMany {
        /// The list.
        at: Location,
        /// What.
        what: &'static str,
        /// How many were given.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A varying or attribute of a type that cannot cross the stage interface.
    #[error("{what} `{name}` has type {declared}; {what}s may be Float, Int, Vec2, Vec3 or Vec4")]
    InterfaceType {
        /// The type.
        at: Location,
        /// `varying` or `attribute`.
        what: &'static str,
        /// The name.
        name: String,
        /// Its declared type.
        declared: ParamType,
    },
    /// An `#include` names a file found nowhere.
    #[error("cannot find include `{name}` (searched: {})", searched.join(", "))]
    IncludeNotFound {
        /// The `#include` line.
        at: Location,
        /// The name as written.
        name: String,
        /// Where it was looked for.
        searched: Vec<String>,
    },
    /// An `#include` cycle.
    #[error("include cycle: {}", chain.join(" -> "))]
    IncludeCycle {
        /// The `#include` that closes the cycle.
        at: Location,
        /// The files of the cycle, first to last.
        chain: Vec<String>,
    },
    /// A preprocessor line that is not understood, or unbalanced `#if`/`#endif`.
    #[error("{message}")]
    Directive {
        /// The line.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// The material code does not define a function the framework calls.
    #[error("the {code} code must define `{signature}`")]
    MissingFunction {
        /// The code.
        at: Location,
        /// `fragment` or `vertex`.
        code: &'static str,
        /// The expected signature.
        signature: &'static str,
    },
    /// naga refused the composed shader; the span is mapped back into the file it came from.
    #[error("{message}{}", notes.iter().fold(String::new(), |mut s, n| { let _ = write!(s, "\n  note: {n}"); s }))]
    Shader {
        /// naga's primary span, in the `.ron`, the `fragment_file`, an include or the library.
        at: Location,
        /// naga's message.
        message: String,
        /// naga's notes and secondary labels.
        notes: Vec<String>,
    },
    /// A backend could not turn the validated module into its form.
    #[error("the {backend} backend cannot compile `{label}`: {reason}")]
    Backend {
        /// The backend.
        backend: String,
        /// The shader.
        label: String,
        /// Why.
        reason: String,
    },
}

impl MaterialError {
    /// Where the problem is; `None` only for [`MaterialError::Backend`].
    pub fn location(&self) -> Option<&Location> {
        use MaterialError::*;
        match self {
            Io { at, .. }
            | Empty { at, .. }
            | NotUtf8 { at, .. }
            | TooLarge { at, .. }
            | Syntax { at, .. }
            | UnknownField { at, .. }
            | UnknownVariant { at, .. }
            | DefaultShape { at, .. }
            | DefaultOnTexture { at, .. }
            | Duplicate { at, .. }
            | InvalidIdentifier { at, .. }
            | Keyword { at, .. }
            | Reserved { at, .. }
            | HintMismatch { at, .. }
            | BadRange { at, .. }
            | EngineInputsNotLit { at, .. }
            | SceneColorOpaque { at }
            | LightNotLit { at, .. }
            | FragmentBoth { at }
            | FragmentMissing { at }
            | MissingFile { at, .. }
            | BlockTooLarge { at, .. }
            | TooMany { at, .. }
            | InterfaceType { at, .. }
            | IncludeNotFound { at, .. }
            | IncludeCycle { at, .. }
            | Directive { at, .. }
            | MissingFunction { at, .. }
            | Shader { at, .. } => Some(at),
            Backend { .. } => None,
        }
    }

    /// The rustc-style rendering: `path:line:col: error: message`, then the source line with a
    /// caret under the problem.
    pub fn diagnostic(&self) -> String {
        match self.location() {
            Some(at) => format!("{at}: error: {self}\n{}", at.excerpt()),
            None => format!("error: {self}\n"),
        }
    }
}

/// Setting a material parameter went wrong. Nothing is changed when an error is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParameterError {
    /// The material declares no parameter of that name.
    #[error("material `{material}` has no parameter `{parameter}` (declared: {})", declared.join(", "))]
    Unknown {
        /// The material's name.
        material: String,
        /// The name asked for.
        parameter: String,
        /// The parameters it does declare.
        declared: Vec<String>,
    },
    /// The value is not of the parameter's declared type.
    #[error("parameter `{parameter}` is declared {declared}; a {given} cannot be set to it")]
    WrongType {
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
        /// What was given.
        given: &'static str,
    },
    /// A texture of the wrong dimension or kind for a texture parameter.
    #[error("parameter `{parameter}` is declared {declared}; the texture given is {given}")]
    WrongTexture {
        /// The parameter.
        parameter: String,
        /// Its declared type.
        declared: ParamType,
        /// What the texture is.
        given: String,
    },
}
