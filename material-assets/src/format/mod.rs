//! The `.ron` material format (DESIGN §5): the types serde reads, then the semantic checks.
//!
//! [`parse_material`] is the whole front door: bytes in, a [`MaterialDesc`] whose every name,
//! hint and default has been checked (or every problem found, each with its location).

pub(crate) mod load;
pub(crate) mod spans;
mod validate;

use std::fmt;

use serde::Deserialize;

pub use load::{
    LoadedMaterial, MAX_ATTRIBUTES, MAX_FILE_SIZE, MAX_PARAMETERS, MAX_VARYINGS, parse_material,
    read_material,
};
pub use validate::MAX_TEXTURES;

/// A material as written in its `.ron` file.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename = "Material")]
pub struct MaterialDesc {
    /// A name for logs, errors and tools.
    pub name: String,
    /// Engine PBR, or the surface's `base_color` as is.
    #[serde(default)]
    pub shading_model: ShadingModel,
    /// How the output meets what is already drawn.
    #[serde(default)]
    pub blending: Blending,
    /// Which faces are culled.
    #[serde(default)]
    pub culling: Culling,
    /// The depth test; `None` takes [`DepthState::for_blending`].
    #[serde(default)]
    pub depth: Option<DepthState>,
    /// The parameters the app sets by name.
    #[serde(default)]
    pub parameters: Vec<ParameterDesc>,
    /// Scene textures the surface reads (lit surface materials only).
    #[serde(default)]
    pub engine_inputs: Vec<EngineInput>,
    /// Values written by `vertex` and read, interpolated, by `surface`.
    #[serde(default)]
    pub varyings: Vec<InterfaceDesc>,
    /// Per-vertex values from the mesh, read by `vertex`.
    #[serde(default)]
    pub attributes: Vec<InterfaceDesc>,
    /// WGSL defining `fn vertex(v: ptr<function, VertexInputs>)`.
    #[serde(default)]
    pub vertex: Option<String>,
    /// WGSL defining `fn light(l: ptr<function, LightInputs>) -> vec3<f32>` (Lit materials):
    /// called in the engine's light loop for every directional, point and spot light, after
    /// attenuation and shadowing are known, its result replacing the engine BRDF's direct
    /// term for that light. Image-based lighting stays the engine's.
    #[serde(default)]
    pub light: Option<String>,
    /// WGSL defining `fn surface(m: ptr<function, MaterialInputs>)`.
    #[serde(default)]
    pub fragment: Option<String>,
    /// A `.wgsl` file, resolved next to the `.ron`, holding the fragment code instead.
    #[serde(default)]
    pub fragment_file: Option<String>,
}

/// Lighting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
pub enum ShadingModel {
    /// The engine's Cook-Torrance BRDF with image-based, directional and point lights.
    #[default]
    Lit,
    /// `base_color` is the output.
    Unlit,
}

/// How a material's (premultiplied) output is blended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
pub enum Blending {
    /// Replaces; alpha is forced to 1.
    #[default]
    Opaque,
    /// Straight alpha from the surface, premultiplied by the framework, blended "over".
    Alpha,
    /// Added to what is there (scaled by alpha).
    Additive,
    /// Multiplies what is there (alpha fades towards no change).
    Multiply,
    /// The surface's `base_color` is already premultiplied; blended "over".
    Premultiplied,
}

impl Blending {
    /// The fixed-function blend for the framework's premultiplied output; `None` for opaque.
    ///
    /// * Alpha and Premultiplied: "over", `src + dst·(1 − αs)`.
    /// * Additive: `src + dst` (the framework has already scaled `src` by alpha).
    /// * Multiply: `src·dst + dst·(1 − αs)`, so alpha 0 leaves the target as it was.
    pub fn blend_state(self) -> Option<f3d_hal::BlendState> {
        use f3d_hal::{BlendComponent, BlendFactor, BlendOperation, BlendState};
        let component = |src_factor, dst_factor| BlendComponent {
            src_factor,
            dst_factor,
            operation: BlendOperation::Add,
        };
        match self {
            Self::Opaque => None,
            Self::Alpha | Self::Premultiplied => Some(BlendState::PREMULTIPLIED_ALPHA),
            Self::Additive => Some(BlendState {
                color: component(BlendFactor::One, BlendFactor::One),
                alpha: component(BlendFactor::Zero, BlendFactor::One),
            }),
            Self::Multiply => Some(BlendState {
                color: component(BlendFactor::Dst, BlendFactor::OneMinusSrcAlpha),
                alpha: component(BlendFactor::Zero, BlendFactor::One),
            }),
        }
    }

    /// Whether the material is drawn in the translucent pass (sorted back to front).
    pub fn is_translucent(self) -> bool {
        self != Self::Opaque
    }
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
pub enum Culling {
    /// Back faces (the default).
    #[default]
    Back,
    /// Front faces.
    Front,
    /// None: both sides are drawn, and the framework flips the normal of back faces.
    None,
}

impl Culling {
    /// The HAL's name for it.
    pub fn to_hal(self) -> f3d_hal::CullMode {
        match self {
            Self::Back => f3d_hal::CullMode::Back,
            Self::Front => f3d_hal::CullMode::Front,
            Self::None => f3d_hal::CullMode::None,
        }
    }
}

impl MaterialDesc {
    /// The depth test in force: as written, or [`DepthState::for_blending`].
    pub fn depth_state(&self) -> DepthState {
        self.depth.unwrap_or_else(|| DepthState::for_blending(self.blending))
    }
}

/// A depth test, as written in `depth: (write: true, compare: LessEqual)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DepthState {
    /// Whether passing fragments write depth.
    #[serde(default = "yes")]
    pub write: bool,
    /// The comparison.
    #[serde(default = "less_equal")]
    pub compare: DepthCompare,
}

fn yes() -> bool {
    true
}

fn less_equal() -> DepthCompare {
    DepthCompare::LessEqual
}

impl DepthState {
    /// The default for a blending mode: opaque writes depth, every translucent mode does not;
    /// all test with `LessEqual`.
    pub fn for_blending(blending: Blending) -> Self {
        Self { write: blending == Blending::Opaque, compare: DepthCompare::LessEqual }
    }
}

/// A depth comparison (the HAL's `CompareFunction`, spelled for the format).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[allow(missing_docs)]
pub enum DepthCompare {
    Never,
    Less,
    Equal,
    LessEqual,
    Greater,
    NotEqual,
    GreaterEqual,
    Always,
}

impl DepthCompare {
    /// The HAL's name for it.
    pub fn to_hal(self) -> f3d_hal::CompareFunction {
        use f3d_hal::CompareFunction as C;
        match self {
            Self::Never => C::Never,
            Self::Less => C::Less,
            Self::Equal => C::Equal,
            Self::LessEqual => C::LessEqual,
            Self::Greater => C::Greater,
            Self::NotEqual => C::NotEqual,
            Self::GreaterEqual => C::GreaterEqual,
            Self::Always => C::Always,
        }
    }
}

/// A declared parameter: `(name: "roughness", type: Float, hint: Range(min: 0, max: 1), default: 0.5)`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename = "Parameter")]
pub struct ParameterDesc {
    /// The name user code reads it by (`material_params.<name>`, or the texture's own name).
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// How tools present it, and for textures what an unset one shows.
    #[serde(default)]
    pub hint: Option<Hint>,
    /// The value at construction; zero (or the texture hint's colour) when absent.
    #[serde(default)]
    pub default: Option<DefaultValue>,
}

/// The type of a parameter, varying or attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum ParamType {
    /// `f32`.
    Float,
    /// `i32`.
    Int,
    /// `vec2<f32>`.
    Vec2,
    /// `vec3<f32>`.
    Vec3,
    /// `vec4<f32>`.
    Vec4,
    /// `mat4x4<f32>`, column-major.
    Mat4,
    /// A 2D texture with its sampler.
    Texture2d,
    /// A cube texture with its sampler.
    TextureCube,
}

impl ParamType {
    /// Whether it is a texture binding rather than a member of the parameter block.
    pub fn is_texture(self) -> bool {
        matches!(self, Self::Texture2d | Self::TextureCube)
    }

    /// The WGSL type of a block member or a texture binding.
    pub fn wgsl(self) -> &'static str {
        match self {
            Self::Float => "f32",
            Self::Int => "i32",
            Self::Vec2 => "vec2<f32>",
            Self::Vec3 => "vec3<f32>",
            Self::Vec4 => "vec4<f32>",
            Self::Mat4 => "mat4x4<f32>",
            Self::Texture2d => "texture_2d<f32>",
            Self::TextureCube => "texture_cube<f32>",
        }
    }

    /// How many numbers a default has (0 for textures).
    pub fn components(self) -> usize {
        match self {
            Self::Float | Self::Int => 1,
            Self::Vec2 => 2,
            Self::Vec3 => 3,
            Self::Vec4 => 4,
            Self::Mat4 => 16,
            Self::Texture2d | Self::TextureCube => 0,
        }
    }
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// How a parameter is meant to be edited, and what an unset texture shows.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub enum Hint {
    /// An sRGB-authored colour (`Vec3`/`Vec4`): `set_color` and the default decode to linear.
    SourceColor,
    /// A slider (`Float`/`Int`).
    Range {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Step; must be positive when given.
        #[serde(default)]
        step: Option<f64>,
    },
    /// An unset texture is opaque white.
    DefaultWhite,
    /// An unset texture is opaque black.
    DefaultBlack,
    /// An unset texture is the flat normal (0.5, 0.5, 1).
    DefaultNormal,
    /// An unset texture is transparent black.
    DefaultTransparent,
}

impl Hint {
    /// The hint's name as written.
    pub fn name(&self) -> &'static str {
        match self {
            Self::SourceColor => "SourceColor",
            Self::Range { .. } => "Range",
            Self::DefaultWhite => "DefaultWhite",
            Self::DefaultBlack => "DefaultBlack",
            Self::DefaultNormal => "DefaultNormal",
            Self::DefaultTransparent => "DefaultTransparent",
        }
    }

    /// For a texture hint, the RGBA8 texel an unset texture shows.
    pub fn default_texel(&self) -> Option<[u8; 4]> {
        match self {
            Self::DefaultWhite => Some([255, 255, 255, 255]),
            Self::DefaultBlack => Some([0, 0, 0, 255]),
            Self::DefaultNormal => Some([128, 128, 255, 255]),
            Self::DefaultTransparent => Some([0, 0, 0, 0]),
            _ => None,
        }
    }
}

/// A default as written: a number or a (nested) list of numbers. Checked against the type by
/// the semantic pass, so its shape is free here.
#[derive(Clone, Debug, PartialEq)]
pub enum DefaultValue {
    /// An integer literal.
    Int(i64),
    /// A float literal.
    Float(f64),
    /// A boolean (never valid; kept to say so clearly).
    Bool(bool),
    /// A string (never valid; kept to say so clearly).
    Text(String),
    /// A list or tuple.
    List(Vec<DefaultValue>),
}

impl DefaultValue {
    /// A short description for errors: `3 numbers`, `a string`, ...
    pub fn describe(&self) -> String {
        match self {
            Self::Int(v) => format!("integer {v}"),
            Self::Float(v) => format!("number {v}"),
            Self::Bool(b) => format!("boolean {b}"),
            Self::Text(_) => "a string".into(),
            Self::List(items) if items.iter().all(|i| matches!(i, Self::List(_))) && !items.is_empty() => {
                format!("a list of {} lists", items.len())
            }
            Self::List(items) => format!("a list of {} values", items.len()),
        }
    }
}

impl<'de> Deserialize<'de> for DefaultValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = DefaultValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or a list of numbers")
            }
            fn visit_bool<E>(self, v: bool) -> Result<DefaultValue, E> {
                Ok(DefaultValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<DefaultValue, E> {
                Ok(DefaultValue::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<DefaultValue, E> {
                Ok(i64::try_from(v).map_or(DefaultValue::Float(v as f64), DefaultValue::Int))
            }
            fn visit_i128<E>(self, v: i128) -> Result<DefaultValue, E> {
                Ok(i64::try_from(v).map_or(DefaultValue::Float(v as f64), DefaultValue::Int))
            }
            fn visit_u128<E>(self, v: u128) -> Result<DefaultValue, E> {
                Ok(i64::try_from(v).map_or(DefaultValue::Float(v as f64), DefaultValue::Int))
            }
            fn visit_f64<E>(self, v: f64) -> Result<DefaultValue, E> {
                Ok(DefaultValue::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<DefaultValue, E> {
                Ok(DefaultValue::Text(v.to_owned()))
            }
            fn visit_char<E>(self, v: char) -> Result<DefaultValue, E> {
                Ok(DefaultValue::Text(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<DefaultValue, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(DefaultValue::List(items))
            }
        }
        d.deserialize_any(V)
    }
}

/// A scene texture a lit surface material reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
pub enum EngineInput {
    /// The opaque scene's colour, snapshotted before translucents: `scene_color(offset)`.
    SceneColor,
    /// The opaque scene's depth: `scene_depth(offset)` (linear view depth).
    SceneDepth,
}

impl EngineInput {
    /// The preprocessor define that turns its declarations on.
    pub fn define(self) -> &'static str {
        match self {
            Self::SceneColor => "F3D_SCENE_COLOR",
            Self::SceneDepth => "F3D_SCENE_DEPTH",
        }
    }
}

/// A varying or attribute: `(name: "phase", type: Float)`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename = "VaryingOrAttribute")]
pub struct InterfaceDesc {
    /// The plain name user code reads and writes.
    pub name: String,
    /// Float, Int, Vec2, Vec3 or Vec4.
    #[serde(rename = "type")]
    pub ty: ParamType,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blending_maps_to_premultiplied_fixed_function() {
        let dst = [0.2, 0.4, 0.6, 1.0];
        let src = [0.25, 0.0, 0.0, 0.5]; // premultiplied half-transparent red
        let over = Blending::Alpha.blend_state().unwrap().apply(src, dst, [0.0; 4]);
        assert_eq!(over, [0.35, 0.2, 0.3, 1.0]);
        let clear = Blending::Multiply.blend_state().unwrap().apply([0.0; 4], dst, [0.0; 4]);
        assert_eq!(clear, dst, "alpha 0 multiplies by nothing");
        assert!(Blending::Opaque.blend_state().is_none());
        assert!(!DepthState::for_blending(Blending::Additive).write);
        assert_eq!(Culling::None.to_hal(), f3d_hal::CullMode::None);
    }
}
