//! # f3d_materials
//!
//! Materials for f3d (DESIGN §5): the `.ron` material format, the engine shader library
//! (WGSL), the shader contract, naga compilation with errors located in the user's files,
//! parameters packed by reflection, and the per-backend [`MaterialCompiler`]. Nothing here
//! needs a device: parsing, composition, validation and packing are pure, and are tested so.
//!
//! ## The contract
//!
//! ```text
//!  .ron ─read_material─▶ LoadedMaterial ─compile_material(variant)─▶ CompiledMaterial
//!   │   serde + ron 0.12, then          │  compose (library + generated     │ Arc<ValidatedModule>,
//!   │   semantic checks (all problems,  │  declarations + user code,        │ entry points, layout,
//!   │   each at file:line:col)          │  #include, variant defines),      │ files read (hot reload)
//!   ▼                                   │  naga parse + validate; spans     ▼
//!  MaterialParameters::new ◀── MaterialLayout (naga's offsets)  MaterialCompiler::compile ─▶ BackendShader
//! ```
//!
//! * **naga IR is the currency.** A material becomes one WGSL module per [`Variant`] (colour,
//!   depth-only, shadow), validated by naga into an `f3d_hal::ValidatedModule`; each backend's
//!   [`MaterialCompiler`] turns it into its own form (the module itself for soft).
//! * **Errors are located.** Every [`MaterialError`] but `Backend` carries a [`Location`]
//!   (`path:line:col` and the line's text); naga's spans in inline `fragment`/`vertex`
//!   strings are mapped back through the string's escapes into the `.ron`.
//!   [`MaterialError::diagnostic`] renders them as rustc does. No input panics or hangs: files
//!   are capped at [`format::MAX_FILE_SIZE`], RON nesting at 32, shader code nesting and
//!   declarations at [`nesting::MAX_NESTING`] and [`nesting::MAX_DECLARATIONS`] (naga runs on a
//!   stack sized for them, [`nesting`]), parameters at
//!   [`format::MAX_PARAMETERS`], and the parameter block at `DeviceLimits::GUARANTEED`'s
//!   `max_uniform_block_size`.
//! * **Hot reload.** [`MaterialStore`] holds materials by file at their last good version,
//!   watches their files (the `.ron`, `fragment_file`, includes) through notify, debounced,
//!   and rebuilds what changed when polled; a save that fails keeps the last good version
//!   and is reported once ([`store`]).
//! * **Offsets come from naga.** [`layout`] reads member offsets from the struct naga built and
//!   sizes from `naga::proc::Layouter`; nothing packs std140 by hand.
//!
//! ## The format
//!
//! ```ron
//! Material(
//!     name: "Toon",
//!     shading_model: Unlit,             // Lit (default) | Unlit
//!     blending: Opaque,                 // Opaque (default) | Alpha | Additive | Multiply | Premultiplied
//!     culling: Back,                    // Back (default) | Front | None (two-sided)
//!     depth: (write: true, compare: LessEqual),   // optional; translucent modes default to no write
//!     parameters: [
//!         (name: "base_color", type: Vec4, hint: SourceColor, default: [1.0, 1.0, 1.0, 1.0]),
//!         (name: "band_count", type: Int, hint: Range(min: 1, max: 8, step: 1), default: 3),
//!         (name: "base_color_texture", type: Texture2d, hint: DefaultWhite),
//!     ],
//!     engine_inputs: [],                // SceneColor (translucent blending only), SceneDepth; Lit only
//!     varyings: [],                     // (name: "crest", type: Float): vertex → surface
//!     attributes: [],                   // (name: "phase", type: Float): mesh → vertex
//!     vertex: None,                     // Some("fn vertex(v: ptr<function, VertexInputs>) { ... }")
//!     light: None,                      // Lit only: Some("fn light(l: ptr<function, LightInputs>) -> vec3<f32> { ... }")
//!     fragment: "fn surface(m: ptr<function, MaterialInputs>) { ... }",
//!     // or fragment_file: "toon.wgsl", resolved next to the .ron
//! )
//! ```
//!
//! Unknown fields are refused (serde `deny_unknown_fields`) with the allowed ones listed;
//! `Option` fields may be written bare (ron's `implicit_some` is on). Types: `Float Int Vec2
//! Vec3 Vec4 Mat4 Texture2d TextureCube`. Numbers live in one `MaterialParams` uniform block
//! read as `material_params.<name>`; a texture parameter `name` declares `name` and
//! `name_sampler`. Hints: `SourceColor` (Vec3/Vec4, sRGB-authored: defaults and `set_color`
//! decode to linear), `Range(min, max, step)` (Float/Int), `DefaultWhite|DefaultBlack|
//! DefaultNormal|DefaultTransparent` (textures: what an unset one shows). Parameter, varying
//! and attribute names share one namespace, must be WGSL identifiers, not WGSL keywords, and
//! not names of the engine library ([`library::RESERVED_NAMES`], prefixes `f3d_`, `noise_`,
//! `brdf_`, ...).
//!
//! ## Shader code
//!
//! `surface(m)` fills [`MaterialInputs`](library) `{ base_color, normal, emissive, metallic,
//! roughness, occlusion }` (base colour linear, straight alpha; normal in world space, starting
//! at `world_normal()`); accessors `world_position() world_normal() view_direction() uv0()
//! vertex_color() time() screen_uv() fragment_view_depth() normal_from_tangent_space(n)`, and
//! with engine inputs `scene_color(offset) scene_depth(offset)` (linear view depth, comparable
//! with `fragment_view_depth()`). `vertex(v)` edits `VertexInputs { position, normal,
//! world_position, world_normal, uv0, tangent, color, camera_position }`: it moves the vertex
//! through `world_position` and turns the shading normal through `world_normal` (world space,
//! starting as the model transform of `position` and `normal`; the engine projects and shades
//! what the hook leaves there, in the colour, depth and shadow passes alike); `position`,
//! `normal` and `camera_position` are read-only ([`hooks`]). A Lit material's
//! optional `light` block defines `fn light(l: ptr<function, LightInputs>) -> vec3<f32>`,
//! called in the light loop for the sun and every point and spot light with `LightInputs {
//! light_direction, radiance, attenuation, shadow, normal, view_direction, base_color,
//! metallic, roughness }`; what it returns replaces the engine BRDF's direct term for that
//! light (image-based light stays the engine's). Custom attributes and varyings are plain
//! names (private globals copied in and out by generated code). Lit runs Cook-Torrance (GGX,
//! Smith height-correlated, Schlick) with IBL (radiance cube + BRDF LUT, or SH irradiance), one
//! directional light with 3x3 PCF shadows and up to 8 point lights; Unlit outputs `base_color`.
//! Output is linear and premultiplied (`Premultiplied` blending: `base_color` already is).
//! `#include <noise.wgsl>` and `#include <brdf.wgsl>` are available; [`noise`] is the CPU port.
//!
//! ## Bindings and attributes
//!
//! `@group(0)` view and frame ([`library::VIEW_BINDINGS`]: `view`, `lights`, shadow map,
//! environment, BRDF LUT, scene colour and depth), `@group(1)` the material (`material_params`
//! at binding 0, then each texture at 1, 3, 5, ... with its sampler after it), `@group(2)` per
//! draw (`draw`: model and normal matrices). Vertex attributes by location
//! ([`library::ENGINE_ATTRIBUTES`]): 0 position, 1 normal, 2 uv0, 3 tangent, 4 color; custom
//! attributes and varyings from location 8. Entry points: [`contract::required_stages`].

// A MaterialError carries its location and the line's text for the excerpt, which makes it
// larger than clippy likes in a Result. Materials compile at load and reload, never per frame,
// so the size costs nothing that matters and matching on plain variants stays simple.
#![allow(clippy::result_large_err)]

pub mod backend;
pub mod cli;
mod compile;
pub mod compose;
pub mod contract;
mod error;
pub mod format;
pub mod hooks;
pub mod layout;
pub mod library;
pub mod nesting;
pub mod noise;
mod params;
pub mod reflect;
mod shader_material;
mod source;
pub mod store;

pub use backend::{BackendShader, MaterialCompiler, MaterialCompilers, SoftCompiler};
pub use compile::{CompileOptions, CompiledMaterial, check_material, compile_material};
pub use compose::{ComposedSource, SourceKind, Variant};
pub use contract::{
    ContractError, EngineStage, StageInfo, StageModule, check_stage_agreement, required_stages,
    stage_bindings, uniform_blocks,
};
pub use error::{MaterialError, ParameterError};
pub use format::{LoadedMaterial, MaterialDesc, ParamType, parse_material, read_material};
pub use layout::{BlockLayout, MaterialLayout, MemberLayout, ParamSlot};
pub use params::{MaterialParameters, Value};
pub use shader_material::{SHADER_MATERIAL_ENGINE_BINDINGS, ShaderLanguage, ShaderMaterial};
pub use source::{Location, SourceText};
pub use store::{
    ChangeSignal, MaterialSourceId, MaterialStore, MaterialVersion, StoreEvent, WatchSettings, one_line_error,
};

use f3d_hal::{ValidatedModule, naga};

/// Parses and validates a complete WGSL module. The error is naga's message with the source
/// location, rendered for a user.
pub fn compile_wgsl(label: &str, source: &str) -> Result<ValidatedModule, String> {
    let module =
        naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string_with_path(source, label))?;
    let validated = ValidatedModule::new(module).map_err(|e| e.emit_to_string_with_path(source, label))?;
    Ok(validated.with_source(source))
}
