//! The shader contract in code (DESIGN §5): which entry points the engine asks for, what each
//! binds, how the engine's uniform blocks are laid out, and whether two stages agree on
//! their varyings. All of it is read from the library through naga, never written twice.

use std::path::PathBuf;
use std::sync::Arc;

use f3d_hal::{BindingInfo, ShaderStage, ValidatedModule, naga};

use crate::compile::{CompileOptions, compile_material, error_chain};
use crate::compose::Variant;
use crate::compose::preprocess::Preprocessor;
use crate::format::{ShadingModel, parse_material};
use crate::layout::{BlockLayout, uniform_blocks as module_blocks};
use crate::reflect::{self, ReflectError};

/// An entry point the engine's passes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineStage {
    /// `vs_mesh`: a surface material's vertex stage for the colour pass.
    MeshVertex,
    /// `fs_lit`: the engine PBR around a lit surface.
    LitFragment,
    /// `fs_unlit`: an unlit surface's `base_color`.
    UnlitFragment,
    /// `vs_depth`: the depth prepass.
    DepthVertex,
    /// `fs_depth`: the depth prepass (writes nothing but depth).
    DepthFragment,
    /// `vs_shadow`: the directional light's shadow map.
    ShadowVertex,
    /// `fs_shadow`: the shadow map (depth only).
    ShadowFragment,
    /// `vs_skybox`: the full-screen skybox triangle.
    SkyboxVertex,
    /// `fs_skybox`: the environment's radiance.
    SkyboxFragment,
    /// `vs_fullscreen`: the tonemap pass's triangle.
    TonemapVertex,
    /// `fs_tonemap`: exposure, tone curve, sRGB encode.
    TonemapFragment,
}

/// Where a stage's module comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StageModule {
    /// Composed around a surface material, in this variant and shading model.
    Material {
        /// The variant.
        variant: Variant,
        /// The shading model.
        shading: ShadingModel,
    },
    /// A stand-alone library file.
    Library(&'static str),
}

/// One required stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StageInfo {
    /// Which.
    pub stage: EngineStage,
    /// Vertex or fragment.
    pub shader_stage: ShaderStage,
    /// The entry point's name.
    pub entry_point: &'static str,
    /// The module that holds it.
    pub module: StageModule,
}

const fn material(variant: Variant, shading: ShadingModel) -> StageModule {
    StageModule::Material { variant, shading }
}

const REQUIRED: &[StageInfo] = &[
    StageInfo {
        stage: EngineStage::MeshVertex,
        shader_stage: ShaderStage::Vertex,
        entry_point: "vs_mesh",
        module: material(Variant::Color, ShadingModel::Lit),
    },
    StageInfo {
        stage: EngineStage::LitFragment,
        shader_stage: ShaderStage::Fragment,
        entry_point: "fs_lit",
        module: material(Variant::Color, ShadingModel::Lit),
    },
    StageInfo {
        stage: EngineStage::UnlitFragment,
        shader_stage: ShaderStage::Fragment,
        entry_point: "fs_unlit",
        module: material(Variant::Color, ShadingModel::Unlit),
    },
    StageInfo {
        stage: EngineStage::DepthVertex,
        shader_stage: ShaderStage::Vertex,
        entry_point: "vs_depth",
        module: material(Variant::DepthOnly, ShadingModel::Lit),
    },
    StageInfo {
        stage: EngineStage::DepthFragment,
        shader_stage: ShaderStage::Fragment,
        entry_point: "fs_depth",
        module: material(Variant::DepthOnly, ShadingModel::Lit),
    },
    StageInfo {
        stage: EngineStage::ShadowVertex,
        shader_stage: ShaderStage::Vertex,
        entry_point: "vs_shadow",
        module: material(Variant::Shadow, ShadingModel::Lit),
    },
    StageInfo {
        stage: EngineStage::ShadowFragment,
        shader_stage: ShaderStage::Fragment,
        entry_point: "fs_shadow",
        module: material(Variant::Shadow, ShadingModel::Lit),
    },
    StageInfo {
        stage: EngineStage::SkyboxVertex,
        shader_stage: ShaderStage::Vertex,
        entry_point: "vs_skybox",
        module: StageModule::Library("skybox.wgsl"),
    },
    StageInfo {
        stage: EngineStage::SkyboxFragment,
        shader_stage: ShaderStage::Fragment,
        entry_point: "fs_skybox",
        module: StageModule::Library("skybox.wgsl"),
    },
    StageInfo {
        stage: EngineStage::TonemapVertex,
        shader_stage: ShaderStage::Vertex,
        entry_point: "vs_fullscreen",
        module: StageModule::Library("tonemap.wgsl"),
    },
    StageInfo {
        stage: EngineStage::TonemapFragment,
        shader_stage: ShaderStage::Fragment,
        entry_point: "fs_tonemap",
        module: StageModule::Library("tonemap.wgsl"),
    },
];

/// Every entry point the engine asks for. A test holds this list and the library's entry
/// points equal.
pub fn required_stages() -> &'static [StageInfo] {
    REQUIRED
}

/// The contract could not be held.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    /// A module lacks the entry point asked for.
    #[error("the module has no {stage} entry point named {entry_point}")]
    NoEntryPoint {
        /// The stage.
        stage: ShaderStage,
        /// The name.
        entry_point: String,
    },
    /// The fragment stage reads a location the vertex stage does not write.
    #[error(
        "the fragment stage reads `{name}` ({ty}) at location {location}, which the vertex stage does not write"
    )]
    MissingVarying {
        /// The location.
        location: u32,
        /// The fragment input's name.
        name: String,
        /// Its type.
        ty: String,
    },
    /// Both stages use a location with different types (or interpolation).
    #[error(
        "location {location}: the vertex stage writes `{vertex_name}` as {vertex_type}, the fragment stage reads `{fragment_name}` as {fragment_type}"
    )]
    VaryingMismatch {
        /// The location.
        location: u32,
        /// The vertex output's name.
        vertex_name: String,
        /// Its type.
        vertex_type: String,
        /// The fragment input's name.
        fragment_name: String,
        /// Its type.
        fragment_type: String,
    },
    /// A library module failed to compile (a bug in f3d, reported rather than hidden).
    #[error("the engine library's {module} does not compile: {reason}")]
    Library {
        /// The module.
        module: String,
        /// naga's words.
        reason: String,
    },
    /// Reflection failed.
    #[error(transparent)]
    Reflect(#[from] ReflectError),
}

/// The reference material a material stage is compiled with to read its contract: no
/// parameters, an empty surface.
fn reference_material(shading: ShadingModel) -> String {
    format!(
        "Material(name: \"f3d reference\", shading_model: {shading:?}, fragment: \"fn surface(m: ptr<function, MaterialInputs>) {{}}\")"
    )
}

/// The validated module a stage lives in (material stages: around the reference material).
pub fn stage_module(module: StageModule) -> Result<Arc<ValidatedModule>, ContractError> {
    match module {
        StageModule::Material { variant, shading } => {
            let text = reference_material(shading);
            let label = || format!("reference {shading:?} material, {} variant", variant.name());
            let loaded = parse_material(&PathBuf::from("<f3d>/reference.ron"), text.as_bytes())
                .map_err(|e| ContractError::Library { module: label(), reason: format!("{e:?}") })?;
            let compiled = compile_material(&loaded, variant, &CompileOptions::default())
                .map_err(|e| ContractError::Library { module: label(), reason: e.to_string() })?;
            Ok(compiled.module)
        }
        StageModule::Library(name) => compile_library_module(name).map(Arc::new),
    }
}

/// Compiles a stand-alone library file (skybox, tonemap) through the preprocessor and naga.
pub fn compile_library_module(name: &str) -> Result<ValidatedModule, ContractError> {
    let err = |reason: String| ContractError::Library { module: name.to_owned(), reason };
    let mut pre = Preprocessor::new(Vec::new(), &[]);
    pre.library(name).map_err(|e| err(e.diagnostic()))?;
    let text = pre.out.text().to_owned();
    let module = naga::front::wgsl::parse_str(&text).map_err(|e| err(e.emit_to_string(&text)))?;
    ValidatedModule::new(module).map(|m| m.with_source(&text)).map_err(|e| err(error_chain(&*e)))
}

/// The bindings `stage` keeps (uses), from reflection of the library.
pub fn stage_bindings(stage: EngineStage) -> Result<Vec<BindingInfo>, ContractError> {
    let info = REQUIRED.iter().find(|s| s.stage == stage).copied().ok_or(ContractError::NoEntryPoint {
        stage: ShaderStage::Vertex,
        entry_point: format!("{stage:?}"),
    })?;
    let module = stage_module(info.module)?;
    Ok(reflect::stage_bindings(&module, info.shader_stage, info.entry_point)?)
}

/// Every uniform block of the engine (View, Lights, Draw, Tonemap), laid out by naga.
pub fn uniform_blocks() -> Result<Vec<BlockLayout>, ContractError> {
    let mut out: Vec<BlockLayout> = Vec::new();
    for module in [material(Variant::Color, ShadingModel::Lit), StageModule::Library("tonemap.wgsl")] {
        for block in module_blocks(stage_module(module)?.module()) {
            if !out.iter().any(|b| b.type_name == block.type_name) {
                out.push(block);
            }
        }
    }
    Ok(out)
}

/// One value crossing the stage interface.
struct Varying {
    location: u32,
    name: String,
    ty: String,
}

fn describe(module: &naga::Module, ty: naga::Handle<naga::Type>, binding: &naga::Binding) -> String {
    let base = crate::layout::type_name_of(module, ty);
    match binding {
        naga::Binding::Location { interpolation: Some(i), .. } => format!("{base} ({i:?})"),
        _ => base,
    }
}

fn collect(
    module: &naga::Module,
    ty: naga::Handle<naga::Type>,
    binding: Option<&naga::Binding>,
    name: &str,
    out: &mut Vec<Varying>,
) {
    match (binding, &module.types[ty].inner) {
        (Some(b @ naga::Binding::Location { location, .. }), _) => {
            out.push(Varying { location: *location, name: name.to_owned(), ty: describe(module, ty, b) })
        }
        (None, naga::TypeInner::Struct { members, .. }) => {
            for m in members {
                collect(module, m.ty, m.binding.as_ref(), m.name.as_deref().unwrap_or("?"), out);
            }
        }
        _ => {}
    }
}

/// Checks that every location the fragment entry point reads is written by the vertex entry
/// point with the same type and interpolation (checked before a pipeline is made).
pub fn check_stage_agreement(
    vs: (&ValidatedModule, &str),
    fs: (&ValidatedModule, &str),
) -> Result<(), ContractError> {
    fn entry<'m>(
        m: &'m ValidatedModule,
        stage: ShaderStage,
        name: &str,
    ) -> Result<&'m naga::EntryPoint, ContractError> {
        m.entry_point_index(stage, name)
            .and_then(|i| m.module().entry_points.get(i))
            .ok_or_else(|| ContractError::NoEntryPoint { stage, entry_point: name.to_owned() })
    }
    let v = entry(vs.0, ShaderStage::Vertex, vs.1)?;
    let f = entry(fs.0, ShaderStage::Fragment, fs.1)?;
    let mut outputs = Vec::new();
    if let Some(r) = &v.function.result {
        collect(vs.0.module(), r.ty, r.binding.as_ref(), "result", &mut outputs);
    }
    let mut inputs = Vec::new();
    for a in &f.function.arguments {
        collect(fs.0.module(), a.ty, a.binding.as_ref(), a.name.as_deref().unwrap_or("?"), &mut inputs);
    }
    for input in inputs {
        match outputs.iter().find(|o| o.location == input.location) {
            None => {
                return Err(ContractError::MissingVarying {
                    location: input.location,
                    name: input.name,
                    ty: input.ty,
                });
            }
            Some(o) if o.ty != input.ty => {
                return Err(ContractError::VaryingMismatch {
                    location: input.location,
                    vertex_name: o.name.clone(),
                    vertex_type: o.ty.clone(),
                    fragment_name: input.name,
                    fragment_type: input.ty,
                });
            }
            Some(_) => {}
        }
    }
    Ok(())
}
