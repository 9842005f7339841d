//! Typed material structs: Rust made from a `.ron` file, one field and one typed setter per
//! parameter, so a misspelt parameter or a value of the wrong type is a compile error rather
//! than an `Err` at run time.
//!
//! ```text
//! f3d material codegen assets/materials/water.ron --out src/water.rs
//! ```
//!
//! writes (abridged):
//!
//! ```text
//! #[derive(Clone, Debug, Default, PartialEq)]
//! pub struct Water {
//!     /// `foam_width`: Float, 0 to 2; the file's default 0.35.
//!     pub foam_width: Option<f32>,
//!     /// `shallow_color`: Vec3, an sRGB-authored colour; the file's default [0.35, 0.75, 0.8].
//!     pub shallow_color: Option<Color>,
//!     /// `seed`: Int; the file's default 11.
//!     pub seed: Option<i32>,
//!     // …
//! }
//! impl Water {
//!     pub fn set_foam_width(&mut self, value: f32) -> &mut Self { … }
//!     // …
//! }
//! impl f3d::material::TypedMaterial for Water { … }
//! ```
//!
//! and the app writes the values it means into a [`CustomMaterial`]:
//!
//! ```ignore
//! Water { foam_width: Some(0.06), ripple_scale: Some(2.5), ..default() }.apply(&mut water)?;
//! ```
//!
//! Decisions:
//!
//! * **Fields are `Option`s.** `None` leaves the parameter as the material has it (the
//!   file's default, or what the app set before), so applying a struct does not pin every
//!   default as an app value: a later edit of another default in the `.ron` still shows on
//!   hot reload, as it does with the by-name setters.
//! * **Rust types** are the ones Bevy users reach for: `f32`, `i32`, `Vec2`/`Vec3`/`Vec4`,
//!   `Mat4` (column-major, as the block holds it), [`Color`] for
//!   parameters with the `SourceColor` hint (decoded to linear as
//!   [`CustomMaterial::set_color`] does), and `Handle<Image>` for textures.
//! * **Staleness.** The struct carries the parameter list it was made from
//!   ([`TypedMaterial::PARAMETERS`]). [`apply`](TypedMaterial::apply) compares it with the
//!   material's current version first and writes nothing when they differ: after a hot
//!   reload that added, removed, renamed or retyped a parameter it returns
//!   [`TypedMaterialError::Stale`], naming the difference, until the code is generated again.
//!   [`TypedMaterial::check`] asks the same question without writing (for a
//!   [`MaterialEvent::Reloaded`](crate::material::MaterialEvent) handler). On a material whose
//!   file has not loaded yet the values are kept and applied when it loads (by name, as
//!   [`CustomMaterial::set`] keeps them), since there is no parameter list to check yet.
//! * **Build-time codegen, not a macro**: the generated file is ordinary, reviewable source
//!   checked in beside the app, and the build does not parse `.ron` files or compile shaders.
//!   Keep it in sync with a test that runs [`generate`] and compares (f3d's examples do).

use std::fmt::Write as _;
use std::path::Path;

use bevy_asset::Handle;
use bevy_color::{Color, ColorToComponents};
use bevy_image::Image;
use f3d_materials::format::{DefaultValue, Hint, ParameterDesc};
use f3d_materials::{MaterialError, ParamType, Value};

use super::CustomMaterial;

/// A struct made by [`generate`] (`f3d material codegen`) from one `.ron` material.
pub trait TypedMaterial {
    /// The material file it was generated from, as given to the generator.
    const FILE: &'static str;
    /// Every parameter of that file, with its type, in the file's order.
    const PARAMETERS: &'static [(&'static str, ParamType)];

    /// The values this struct holds, by parameter name (the fields that are `Some`).
    fn values(&self) -> Vec<(&'static str, TypedValue)>;

    /// Whether `material`'s current version has exactly the parameters (names and types)
    /// this struct was generated for. A material that has not loaded yet passes.
    fn check(material: &CustomMaterial) -> Result<(), TypedMaterialError> {
        let Some(loaded) = material.loaded() else { return Ok(()) };
        match difference(Self::PARAMETERS, &loaded.desc.parameters) {
            None => Ok(()),
            Some(difference) => Err(TypedMaterialError::Stale {
                file: Self::FILE,
                material: loaded.desc.name.clone(),
                difference,
            }),
        }
    }

    /// Writes the fields that are `Some` into `material`, after [`check`](Self::check): a
    /// stale struct writes nothing. A value that the material then refuses (a texture that
    /// cannot be bound) is returned, the values before it written.
    fn apply(&self, material: &mut CustomMaterial) -> Result<(), TypedMaterialError> {
        Self::check(material)?;
        for (name, value) in self.values() {
            let written = match value {
                TypedValue::Number(v) => material.set(name, v).map(|_| ()).map_err(|e| e.to_string()),
                TypedValue::Color(c) => material
                    .set_color(name, c.to_srgba().to_f32_array())
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                TypedValue::Image(image) => {
                    material.set_image(name, image).map(|_| ()).map_err(|e| e.to_string())
                }
            };
            written.map_err(|reason| TypedMaterialError::Refused { parameter: name, reason })?;
        }
        Ok(())
    }
}

/// One field's value as [`TypedMaterial::apply`] writes it.
#[derive(Clone, Debug)]
pub enum TypedValue {
    /// A block parameter, written as [`CustomMaterial::set`] does.
    Number(Value),
    /// A `SourceColor` parameter, written as [`CustomMaterial::set_color`] does.
    Color(Color),
    /// A texture parameter.
    Image(Handle<Image>),
}

/// Why a typed struct's values were not written.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TypedMaterialError {
    /// The material's parameters are no longer those the struct was generated for.
    #[error(
        "the typed struct generated from {file} is stale for material `{material}`: {difference}; run `f3d material codegen` again"
    )]
    Stale {
        /// The file the struct was generated from.
        file: &'static str,
        /// The material's name.
        material: String,
        /// The first difference found, in words.
        difference: String,
    },
    /// The material refused one value.
    #[error("parameter `{parameter}`: {reason}")]
    Refused {
        /// The parameter.
        parameter: &'static str,
        /// The material's reason.
        reason: String,
    },
}

/// The first difference between the parameters a struct was generated for and a
/// material's, in words; `None` when they are the same set.
fn difference(generated: &[(&str, ParamType)], current: &[ParameterDesc]) -> Option<String> {
    for p in current {
        match generated.iter().find(|(name, _)| *name == p.name) {
            None => {
                return Some(format!(
                    "the material has a parameter `{}` ({:?}) the struct lacks",
                    p.name, p.ty
                ));
            }
            Some((_, ty)) if *ty != p.ty => {
                return Some(format!(
                    "parameter `{}` is {:?} in the material but {ty:?} in the struct",
                    p.name, p.ty
                ));
            }
            Some(_) => {}
        }
    }
    generated
        .iter()
        .find(|(name, _)| !current.iter().any(|p| p.name == *name))
        .map(|(name, ty)| format!("the struct's parameter `{name}` ({ty:?}) is no longer in the material"))
}

/// Checks the material at `path` (parsing, composition and every variant's shader, as
/// `f3d material check` does) and returns the Rust source of its typed struct, named
/// `type_name` (by default the file's stem in UpperCamelCase). `path` is written into the
/// source as given, so pass the path the app's repository knows the file by.
pub fn generate(path: &Path, type_name: Option<&str>) -> Result<String, Vec<MaterialError>> {
    // What `f3d material check` does, on the one reading of the file the source is made from.
    let loaded = f3d_materials::read_material(path)?;
    for variant in f3d_materials::Variant::ALL {
        f3d_materials::compile_material(&loaded, variant, &f3d_materials::CompileOptions::default())
            .map_err(|e| vec![e])?;
    }
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = type_name.map_or_else(|| upper_camel(&stem), str::to_owned);
    Ok(rust_source(&path.display().to_string().replace('\\', "/"), &name, &loaded.desc.parameters))
}

/// `water_surface` → `WaterSurface` (a leading digit gets a `Material` prefix).
fn upper_camel(stem: &str) -> String {
    let mut out = String::new();
    for part in stem.split(|c: char| !c.is_alphanumeric()).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Material");
    }
    out
}

/// The field name of a parameter: the name itself, `r#name` for a Rust keyword, and
/// `name_` for the four that cannot be raw identifiers.
fn field_name(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract",
        "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual",
        "yield",
    ];
    if matches!(name, "self" | "Self" | "super" | "crate" | "_") {
        format!("{name}_")
    } else if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// The Rust type of a parameter's field (inside the `Option`).
fn rust_type(p: &ParameterDesc) -> &'static str {
    match (p.ty, p.hint) {
        (ParamType::Vec3 | ParamType::Vec4, Some(Hint::SourceColor)) => "f3d::bevy_color::Color",
        (ParamType::Float, _) => "f32",
        (ParamType::Int, _) => "i32",
        (ParamType::Vec2, _) => "f3d::bevy_math::Vec2",
        (ParamType::Vec3, _) => "f3d::bevy_math::Vec3",
        (ParamType::Vec4, _) => "f3d::bevy_math::Vec4",
        (ParamType::Mat4, _) => "f3d::bevy_math::Mat4",
        (ParamType::Texture2d | ParamType::TextureCube, _) => {
            "f3d::bevy_asset::Handle<f3d::bevy_image::Image>"
        }
    }
}

/// How a field's value becomes a [`TypedValue`] (`v` is the unwrapped field).
fn to_value(p: &ParameterDesc) -> &'static str {
    match (p.ty, p.hint) {
        (ParamType::Vec3 | ParamType::Vec4, Some(Hint::SourceColor)) => "TypedValue::Color(*v)",
        (ParamType::Float, _) => "TypedValue::Number(Value::Float(*v))",
        (ParamType::Int, _) => "TypedValue::Number(Value::Int(*v))",
        (ParamType::Vec2, _) => "TypedValue::Number(Value::Vec2(v.to_array()))",
        (ParamType::Vec3, _) => "TypedValue::Number(Value::Vec3(v.to_array()))",
        (ParamType::Vec4, _) => "TypedValue::Number(Value::Vec4(v.to_array()))",
        (ParamType::Mat4, _) => "TypedValue::Number(Value::Mat4(v.to_cols_array()))",
        (ParamType::Texture2d | ParamType::TextureCube, _) => "TypedValue::Image(v.clone())",
    }
}

/// The parameter described for a field's doc comment: type, hint and the file's default.
fn describe(p: &ParameterDesc) -> String {
    let mut s = format!("`{}`: {:?}", p.name, p.ty);
    match p.hint {
        Some(Hint::SourceColor) => s.push_str(", an sRGB-authored colour"),
        Some(Hint::Range { min, max, step }) => {
            let _ = write!(s, ", {min} to {max}");
            if let Some(step) = step {
                let _ = write!(s, " (step {step})");
            }
        }
        Some(hint) => {
            let _ = write!(s, ", unset: {hint:?}");
        }
        None => {}
    }
    match &p.default {
        Some(d) => {
            let _ = write!(s, "; the file's default {}", default_text(d));
        }
        None if !p.ty.is_texture() => s.push_str("; the file's default zero"),
        None => {}
    }
    s
}

fn default_text(d: &DefaultValue) -> String {
    match d {
        DefaultValue::Int(i) => i.to_string(),
        DefaultValue::Float(f) => f.to_string(),
        DefaultValue::Bool(b) => b.to_string(),
        DefaultValue::Text(t) => format!("{t:?}"),
        DefaultValue::List(items) => {
            format!("[{}]", items.iter().map(default_text).collect::<Vec<_>>().join(", "))
        }
    }
}

/// The generated source (see the module docs for its shape).
fn rust_source(file: &str, name: &str, parameters: &[ParameterDesc]) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "// @generated by `f3d material codegen {file}`: do not edit. Generate it again");
    let _ = writeln!(w, "// when the material's parameters change (its `check` reports the struct stale).");
    let _ = writeln!(w);
    let _ = writeln!(w, "/// The parameters of `{file}`, typed: `Some` fields are written by");
    let _ = writeln!(
        w,
        "/// [`apply`](f3d::material::TypedMaterial::apply), `None` ones left as the material has them."
    );
    let _ = writeln!(w, "#[derive(Clone, Debug, Default, PartialEq)]");
    let _ = writeln!(w, "pub struct {name} {{");
    for p in parameters {
        let _ = writeln!(w, "    /// {}.", describe(p));
        let _ = writeln!(w, "    pub {}: Option<{}>,", field_name(&p.name), rust_type(p));
    }
    let _ = writeln!(w, "}}");
    let _ = writeln!(w);
    let _ = writeln!(w, "impl {name} {{");
    for (i, p) in parameters.iter().enumerate() {
        if i > 0 {
            let _ = writeln!(w);
        }
        let _ = writeln!(w, "    /// Sets `{}`.", p.name);
        let _ = writeln!(
            w,
            "    pub fn set_{}(&mut self, value: {}) -> &mut Self {{",
            field_name(&p.name).trim_start_matches("r#"),
            rust_type(p)
        );
        let _ = writeln!(w, "        self.{} = Some(value);", field_name(&p.name));
        let _ = writeln!(w, "        self");
        let _ = writeln!(w, "    }}");
    }
    let _ = writeln!(w, "}}");
    let _ = writeln!(w);
    let _ = writeln!(w, "impl f3d::material::TypedMaterial for {name} {{");
    let _ = writeln!(w, "    const FILE: &'static str = {file:?};");
    let _ =
        writeln!(w, "    const PARAMETERS: &'static [(&'static str, f3d::f3d_materials::ParamType)] = &[");
    for p in parameters {
        let _ = writeln!(w, "        ({:?}, f3d::f3d_materials::ParamType::{:?}),", p.name, p.ty);
    }
    let _ = writeln!(w, "    ];");
    let _ = writeln!(w);
    let _ = writeln!(w, "    fn values(&self) -> Vec<(&'static str, f3d::material::TypedValue)> {{");
    if parameters.is_empty() {
        let _ = writeln!(w, "        Vec::new()");
    } else {
        let _ = writeln!(w, "        #[allow(unused_imports)]");
        let _ = writeln!(w, "        use f3d::{{f3d_materials::Value, material::TypedValue}};");
        let _ = writeln!(w, "        let mut values = Vec::new();");
        for p in parameters {
            let _ = writeln!(w, "        if let Some(v) = &self.{} {{", field_name(&p.name));
            let _ = writeln!(w, "            values.push(({:?}, {}));", p.name, to_value(p));
            let _ = writeln!(w, "        }}");
        }
        let _ = writeln!(w, "        values");
    }
    let _ = writeln!(w, "    }}");
    let _ = writeln!(w, "}}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_rust_names() {
        assert_eq!(upper_camel("toon_lit"), "ToonLit");
        assert_eq!(upper_camel("water"), "Water");
        assert_eq!(upper_camel("3d-thing"), "Material3dThing");
        assert_eq!(upper_camel(""), "Material");
        assert_eq!(field_name("type"), "r#type");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("tint"), "tint");
    }

    fn param(name: &str, ty: ParamType) -> ParameterDesc {
        ParameterDesc { name: name.into(), ty, hint: None, default: None }
    }

    #[test]
    fn every_kind_of_difference_is_named() {
        let generated = [("tint", ParamType::Vec4), ("gain", ParamType::Float)];
        let same = [param("gain", ParamType::Float), param("tint", ParamType::Vec4)];
        assert_eq!(difference(&generated, &same), None, "order does not matter");
        let added =
            [param("tint", ParamType::Vec4), param("gain", ParamType::Float), param("bias", ParamType::Int)];
        assert!(difference(&generated, &added).unwrap().contains("`bias` (Int) the struct lacks"));
        let retyped = [param("tint", ParamType::Vec3), param("gain", ParamType::Float)];
        assert!(
            difference(&generated, &retyped).unwrap().contains("`tint` is Vec3 in the material but Vec4")
        );
        let removed = [param("tint", ParamType::Vec4)];
        assert!(difference(&generated, &removed).unwrap().contains("`gain` (Float) is no longer"));
    }
}
