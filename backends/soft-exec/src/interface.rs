//! What a program reads and writes: its inputs, outputs and resources, found by reflection of
//! the entry point when the program is compiled.

use f3d_hal::{ShaderStage, TextureDimension};
use naga::{Binding, BuiltIn, Handle, Module, Type, TypeInner};
use serde::{Deserialize, Serialize};

use super::ExecError;

/// The scalar type of an input or output component, and how its lanes hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarType {
    /// `f32`, stored as itself.
    F32,
    /// `i32`, stored as its bits (`f32::from_bits(x as u32)`).
    I32,
    /// `u32`, stored as its bits (`f32::from_bits(x)`).
    U32,
    /// `bool`, stored as the bits 0 or 1 (`f32::from_bits(b as u32)`).
    Bool,
}

/// How a varying is interpolated across a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Interpolation {
    /// Perspective-correct (the default for floats).
    Perspective,
    /// Linear in screen space.
    Linear,
    /// Taken from the provoking vertex (the only choice for integers).
    Flat,
}

/// Where in a pixel a varying is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Sampling {
    /// The pixel centre (the default).
    Center,
    /// The centroid of the covered samples.
    Centroid,
    /// Each sample.
    Sample,
    /// Flat: the first vertex.
    First,
    /// Flat: either vertex.
    Either,
}

/// A builtin input or output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Builtin {
    /// Vertex output: clip-space position (`vec4<f32>`). Fragment input: framebuffer x and y
    /// (pixel centres at +0.5), depth z, and w = 1 / clip w.
    Position,
    /// Vertex input: the vertex index (`u32`).
    VertexIndex,
    /// Vertex input: the instance index (`u32`).
    InstanceIndex,
    /// Fragment input: whether the primitive faces the viewer (`bool`).
    FrontFacing,
    /// Fragment input: the sample index (`u32`; 0 without multisampling).
    SampleIndex,
    /// Fragment input: the primitive's index in the draw (`u32`).
    PrimitiveIndex,
    /// Fragment output: the fragment's depth (`f32`).
    FragDepth,
}

/// What an input or output is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IoKind {
    /// A user attribute (vertex input), varying (vertex output, fragment input) or colour
    /// target (fragment output) at `@location(location)`.
    Location {
        /// The location.
        location: u32,
        /// How it is interpolated (fragment inputs and vertex outputs; `Flat` for integers).
        interpolation: Interpolation,
        /// Where it is sampled.
        sampling: Sampling,
    },
    /// A builtin.
    Builtin(Builtin),
}

/// One input or output of a program: `components` registers of `scalar` lanes.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IoSlot {
    /// What it is.
    pub kind: IoKind,
    /// The scalar type of its components.
    pub scalar: ScalarType,
    /// 1 to 4.
    pub components: u32,
    /// The member or argument name in the shader, when it has one.
    pub name: Option<String>,
}

/// What a resource is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ResourceKind {
    /// A uniform block of `size` bytes (naga's layouter), bound as bytes.
    UniformBlock {
        /// The block's size.
        size: u32,
    },
    /// A read-only storage buffer (`var<storage, read>`), bound as bytes laid out as naga's
    /// layouter lays out its type. Its type may end in a runtime-sized array, whose length is
    /// whatever the bound bytes hold past the fixed part.
    StorageBuffer {
        /// The fewest bytes a bound buffer may hold: the size of the type without its
        /// runtime-sized array (the array's offset; 0 for a bare runtime-sized array), or the
        /// whole type's size when it has none.
        min_size: u32,
    },
    /// A sampled texture.
    Texture {
        /// 2D, 2D array or cube.
        #[serde(with = "DimensionDef")]
        dimension: TextureDimension,
        /// A depth texture (`texture_depth_*`).
        depth: bool,
        /// What sampling it returns (`F32` for float and depth textures).
        sample: ScalarType,
    },
    /// A sampler.
    Sampler {
        /// A comparison sampler (`sampler_comparison`).
        comparison: bool,
    },
}

impl ResourceKind {
    /// The HAL's description of the same binding.
    pub fn binding_kind(&self) -> f3d_hal::BindingKind {
        match *self {
            ResourceKind::UniformBlock { size } => f3d_hal::BindingKind::UniformBlock { size },
            ResourceKind::StorageBuffer { .. } => f3d_hal::BindingKind::StorageBuffer { read_only: true },
            ResourceKind::Texture { dimension, depth, sample } => f3d_hal::BindingKind::Texture {
                dimension,
                depth,
                integer: matches!(sample, ScalarType::I32 | ScalarType::U32),
            },
            ResourceKind::Sampler { comparison } => f3d_hal::BindingKind::Sampler { comparison },
        }
    }
}

/// One resource a program uses.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ResourceInfo {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The global's name in the shader.
    pub name: Option<String>,
    /// What it is.
    pub kind: ResourceKind,
}

/// Everything a program reads and writes, in the order the executor's slots use.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interface {
    /// The stage.
    #[serde(with = "StageDef")]
    pub stage: ShaderStage,
    /// Inputs, in the order the entry point declares them: index `i` is
    /// [`Executor::input_mut`](super::Executor::input_mut)`(i)`.
    pub inputs: Vec<IoSlot>,
    /// Outputs, in declaration order: index `i` is
    /// [`Executor::output`](super::Executor::output)`(i)`.
    pub outputs: Vec<IoSlot>,
    /// Resources the entry point uses (directly or through the functions it calls), sorted by
    /// group then binding: index `i` is the `i`th resource given to
    /// [`Program::bind`](super::Program::bind).
    pub resources: Vec<ResourceInfo>,
    /// Whether the fragment entry point may `discard`.
    pub may_discard: bool,
}

impl Interface {
    /// The input slot of `kind`.
    pub fn input(&self, kind: IoKind) -> Option<usize> {
        self.inputs.iter().position(|s| s.kind == kind)
    }

    /// The input slot at `@location(location)`.
    pub fn input_location(&self, location: u32) -> Option<usize> {
        self.inputs
            .iter()
            .position(|s| matches!(s.kind, IoKind::Location { location: l, .. } if l == location))
    }

    /// The input slot of a builtin.
    pub fn input_builtin(&self, builtin: Builtin) -> Option<usize> {
        self.input(IoKind::Builtin(builtin))
    }

    /// The output slot at `@location(location)`.
    pub fn output_location(&self, location: u32) -> Option<usize> {
        self.outputs
            .iter()
            .position(|s| matches!(s.kind, IoKind::Location { location: l, .. } if l == location))
    }

    /// The output slot of a builtin (`Position` for vertex programs, `FragDepth`).
    pub fn output_builtin(&self, builtin: Builtin) -> Option<usize> {
        self.outputs.iter().position(|s| s.kind == IoKind::Builtin(builtin))
    }
}

/// Builds "unsupported" errors for one entry point.
#[derive(Clone)]
pub(crate) struct Refuse {
    pub(crate) stage: ShaderStage,
    pub(crate) entry_point: String,
}

impl Refuse {
    /// An [`ExecError::Unsupported`] naming `construct`.
    pub(crate) fn unsupported(&self, construct: impl Into<String>) -> ExecError {
        ExecError::Unsupported {
            stage: self.stage,
            entry_point: self.entry_point.clone(),
            construct: construct.into(),
        }
    }

    /// An [`ExecError::TooLarge`] naming `limit`.
    pub(crate) fn too_large(&self, limit: impl Into<String>) -> ExecError {
        ExecError::TooLarge { stage: self.stage, entry_point: self.entry_point.clone(), limit: limit.into() }
    }
}

/// The scalar type of a naga scalar, or the construct that makes it unsupported.
pub(crate) fn scalar_type(scalar: naga::Scalar, refuse: &Refuse) -> Result<ScalarType, ExecError> {
    use naga::ScalarKind as K;
    match (scalar.kind, scalar.width) {
        (K::Float, 4) => Ok(ScalarType::F32),
        (K::Sint, 4) => Ok(ScalarType::I32),
        (K::Uint, 4) => Ok(ScalarType::U32),
        (K::Bool, _) => Ok(ScalarType::Bool),
        (K::Float, 2) => Err(refuse.unsupported("f16 values")),
        (K::Float, 8) => Err(refuse.unsupported("f64 values")),
        (K::Sint | K::Uint, 8) => Err(refuse.unsupported("64-bit integers")),
        (K::Sint | K::Uint, 2) => Err(refuse.unsupported("16-bit integers")),
        (K::Sint | K::Uint, 1) => Err(refuse.unsupported("8-bit integers")),
        _ => Err(refuse.unsupported(format!("{:?} scalars of width {}", scalar.kind, scalar.width))),
    }
}

/// A builtin as WGSL spells it, for refusals.
fn builtin_name(b: BuiltIn) -> String {
    let wgsl = match b {
        BuiltIn::Position { .. } => "position",
        BuiltIn::ViewIndex => "view_index",
        BuiltIn::BaseInstance => "base_instance",
        BuiltIn::BaseVertex => "base_vertex",
        BuiltIn::ClipDistances => "clip_distances",
        BuiltIn::CullDistance => "cull_distance",
        BuiltIn::InstanceIndex => "instance_index",
        BuiltIn::PointSize => "point_size",
        BuiltIn::VertexIndex => "vertex_index",
        BuiltIn::DrawIndex => "draw_index",
        BuiltIn::FragDepth => "frag_depth",
        BuiltIn::PointCoord => "point_coord",
        BuiltIn::FrontFacing => "front_facing",
        BuiltIn::PrimitiveIndex => "primitive_index",
        BuiltIn::Barycentric { .. } => "barycentric",
        BuiltIn::SampleIndex => "sample_index",
        BuiltIn::SampleMask => "sample_mask",
        BuiltIn::NumSubgroups
        | BuiltIn::SubgroupId
        | BuiltIn::SubgroupSize
        | BuiltIn::SubgroupInvocationId => {
            return format!("the subgroup builtin `{b:?}` (subgroup operations)");
        }
        _ => return format!("the builtin `{b:?}`"),
    };
    format!("the builtin `{wgsl}`")
}

/// Whether a type holds atomics anywhere.
fn holds_atomics(module: &Module, ty: Handle<Type>) -> bool {
    match module.types[ty].inner {
        TypeInner::Atomic(_) => true,
        TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => holds_atomics(module, base),
        TypeInner::Struct { ref members, .. } => members.iter().any(|m| holds_atomics(module, m.ty)),
        _ => false,
    }
}

/// One leaf of an entry point's arguments or result: a bound scalar or vector.
pub(crate) struct Leaf {
    pub(crate) slot: IoSlot,
}

/// The bound leaves of an argument or result of type `ty` with `binding` (a struct's members
/// when `binding` is `None`), in member order: their components concatenated are the value's
/// flattened components.
pub(crate) fn io_leaves(
    module: &Module,
    ty: Handle<Type>,
    binding: Option<&Binding>,
    name: Option<&str>,
    stage: ShaderStage,
    input: bool,
    refuse: &Refuse,
) -> Result<Vec<Leaf>, ExecError> {
    let inner = &module.types[ty].inner;
    let Some(binding) = binding else {
        let TypeInner::Struct { members, .. } = inner else {
            return Err(refuse.unsupported("an entry point argument without a binding"));
        };
        let mut leaves = Vec::new();
        for m in members {
            leaves.extend(io_leaves(
                module,
                m.ty,
                m.binding.as_ref(),
                m.name.as_deref(),
                stage,
                input,
                refuse,
            )?);
        }
        return Ok(leaves);
    };
    if let Binding::BuiltIn(b) = *binding {
        let known = matches!(
            b,
            BuiltIn::Position { .. }
                | BuiltIn::VertexIndex
                | BuiltIn::InstanceIndex
                | BuiltIn::FrontFacing
                | BuiltIn::SampleIndex
                | BuiltIn::PrimitiveIndex
                | BuiltIn::FragDepth
        );
        if !known {
            return Err(refuse.unsupported(builtin_name(b)));
        }
    }
    let (scalar, components) = match *inner {
        TypeInner::Scalar(s) => (s, 1),
        TypeInner::Vector { size, scalar } => (scalar, size as u32),
        _ => return Err(refuse.unsupported("an entry point input or output that is not a scalar or vector")),
    };
    let scalar = scalar_type(scalar, refuse)?;
    let kind = match *binding {
        Binding::Location { location, interpolation, sampling, blend_src, per_primitive } => {
            if blend_src.is_some() {
                return Err(refuse.unsupported("dual-source blending (`@blend_src`)"));
            }
            if per_primitive {
                return Err(refuse.unsupported("per-primitive inputs"));
            }
            let interpolation = match interpolation {
                Some(naga::Interpolation::Perspective) => Interpolation::Perspective,
                Some(naga::Interpolation::Linear) => Interpolation::Linear,
                Some(naga::Interpolation::Flat) => Interpolation::Flat,
                Some(naga::Interpolation::PerVertex) => {
                    return Err(refuse.unsupported("per-vertex interpolation"));
                }
                None if scalar == ScalarType::F32 => Interpolation::Perspective,
                None => Interpolation::Flat,
            };
            let sampling = match sampling {
                Some(naga::Sampling::Center) | None => Sampling::Center,
                Some(naga::Sampling::Centroid) => Sampling::Centroid,
                Some(naga::Sampling::Sample) => Sampling::Sample,
                Some(naga::Sampling::First) => Sampling::First,
                Some(naga::Sampling::Either) => Sampling::Either,
            };
            IoKind::Location { location, interpolation, sampling }
        }
        Binding::BuiltIn(b) => {
            use ShaderStage as S;
            let builtin = match (b, stage, input) {
                (BuiltIn::Position { .. }, S::Vertex, false)
                | (BuiltIn::Position { .. }, S::Fragment, true) => Builtin::Position,
                (BuiltIn::VertexIndex, S::Vertex, true) => Builtin::VertexIndex,
                (BuiltIn::InstanceIndex, S::Vertex, true) => Builtin::InstanceIndex,
                (BuiltIn::FrontFacing, S::Fragment, true) => Builtin::FrontFacing,
                (BuiltIn::SampleIndex, S::Fragment, true) => Builtin::SampleIndex,
                (BuiltIn::PrimitiveIndex, S::Fragment, true) => Builtin::PrimitiveIndex,
                (BuiltIn::FragDepth, S::Fragment, false) => Builtin::FragDepth,
                _ => return Err(refuse.unsupported(builtin_name(b))),
            };
            IoKind::Builtin(builtin)
        }
    };
    Ok(vec![Leaf { slot: IoSlot { kind, scalar, components, name: name.map(str::to_owned) } }])
}

/// The resource a global variable is, or why it is refused; `None` for globals that are not
/// resources (private variables).
pub(crate) fn resource_of(
    module: &Module,
    layouter: &naga::proc::Layouter,
    global: Handle<naga::GlobalVariable>,
    refuse: &Refuse,
) -> Result<Option<ResourceInfo>, ExecError> {
    use naga::AddressSpace as A;
    let var = &module.global_variables[global];
    let kind = match var.space {
        A::Private | A::Function => return Ok(None),
        A::Uniform => {
            if let TypeInner::BindingArray { .. } = module.types[var.ty].inner {
                return Err(refuse.unsupported("binding arrays"));
            }
            ResourceKind::UniformBlock { size: layouter[var.ty].size }
        }
        A::Handle => handle_kind(&module.types[var.ty].inner, refuse)?,
        A::Storage { .. } if holds_atomics(module, var.ty) => {
            return Err(refuse.unsupported("atomic operations (on a storage buffer)"));
        }
        A::Storage { access } if access.contains(naga::StorageAccess::STORE) => {
            return Err(refuse.unsupported("writable storage buffers (`var<storage, read_write>`)"));
        }
        A::Storage { .. } => {
            if let TypeInner::BindingArray { .. } = module.types[var.ty].inner {
                return Err(refuse.unsupported("binding arrays"));
            }
            ResourceKind::StorageBuffer { min_size: fixed_size(module, layouter, var.ty) }
        }
        A::WorkGroup => return Err(refuse.unsupported("workgroup variables")),
        A::Immediate => return Err(refuse.unsupported("immediate data (push constants)")),
        A::TaskPayload => return Err(refuse.unsupported("task payloads")),
        A::RayPayload | A::IncomingRayPayload => return Err(refuse.unsupported("ray payloads")),
    };
    let Some(rb) = var.binding else {
        return Err(refuse.unsupported("a resource without @group/@binding"));
    };
    Ok(Some(ResourceInfo { group: rb.group, binding: rb.binding, name: var.name.clone(), kind }))
}

/// The size of a storage buffer's type without its runtime-sized array, if it has one (WGSL
/// allows one only as the whole type or as the last member of the top-level struct).
fn fixed_size(module: &Module, layouter: &naga::proc::Layouter, ty: Handle<Type>) -> u32 {
    let runtime = |t: Handle<Type>| {
        matches!(module.types[t].inner, TypeInner::Array { size: naga::ArraySize::Dynamic, .. })
    };
    match module.types[ty].inner {
        _ if runtime(ty) => 0,
        TypeInner::Struct { ref members, .. } => match members.last() {
            Some(last) if runtime(last.ty) => last.offset,
            _ => layouter[ty].size,
        },
        _ => layouter[ty].size,
    }
}

fn handle_kind(inner: &TypeInner, refuse: &Refuse) -> Result<ResourceKind, ExecError> {
    use naga::{ImageClass, ImageDimension as D};
    match *inner {
        TypeInner::Sampler { comparison } => Ok(ResourceKind::Sampler { comparison }),
        TypeInner::Image { dim, arrayed, class } => {
            let dimension = match (dim, arrayed) {
                (D::D2, false) => TextureDimension::D2,
                (D::D2, true) => TextureDimension::D2Array,
                (D::Cube, false) => TextureDimension::Cube,
                (D::Cube, true) => return Err(refuse.unsupported("cube array textures")),
                (D::D1, _) => return Err(refuse.unsupported("1D textures")),
                (D::D3, _) => return Err(refuse.unsupported("3D textures")),
            };
            let (depth, sample) = match class {
                ImageClass::Sampled { multi: true, .. } | ImageClass::Depth { multi: true } => {
                    return Err(refuse.unsupported("multisampled textures"));
                }
                ImageClass::Sampled { kind, multi: false } => {
                    let sample = match kind {
                        naga::ScalarKind::Float => ScalarType::F32,
                        naga::ScalarKind::Sint => ScalarType::I32,
                        naga::ScalarKind::Uint => ScalarType::U32,
                        _ => return Err(refuse.unsupported("textures of this sample type")),
                    };
                    (false, sample)
                }
                ImageClass::Depth { multi: false } => (true, ScalarType::F32),
                ImageClass::Storage { .. } => return Err(refuse.unsupported("storage textures")),
                ImageClass::External => return Err(refuse.unsupported("external textures")),
            };
            Ok(ResourceKind::Texture { dimension, depth, sample })
        }
        TypeInner::BindingArray { .. } => Err(refuse.unsupported("binding arrays")),
        TypeInner::AccelerationStructure { .. } => {
            Err(refuse.unsupported("acceleration structures (ray tracing)"))
        }
        TypeInner::RayQuery { .. } => Err(refuse.unsupported("ray queries")),
        _ => Err(refuse.unsupported("this kind of resource")),
    }
}

/// [`ShaderStage`]'s stored form.
#[derive(Serialize, Deserialize)]
#[serde(remote = "ShaderStage")]
enum StageDef {
    Vertex,
    Fragment,
    Compute,
}

/// [`TextureDimension`]'s stored form.
#[derive(Serialize, Deserialize)]
#[serde(remote = "TextureDimension")]
enum DimensionDef {
    D2,
    D2Array,
    Cube,
}
