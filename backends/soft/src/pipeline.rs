//! Shaders and pipelines: each entry point compiled once into the executor's program, and
//! the links between a pipeline's vertex layouts, its two stages and its bindings worked
//! out when the pipeline is made, so draws only index.

use std::sync::Arc;

use f3d_hal::backend::{self, LiveToken};
use f3d_hal::shader_cache::ShaderCache;
use f3d_hal::{
    BindingSlot, DeviceError, DeviceOwner, PipelineDescriptor, PipelineInfo, ShaderDescriptor, ShaderStage,
};
use f3d_materials::reflect;

use crate::exec::{Builtin, Interpolation, IoKind, Program, ScalarType};
use crate::geometry::{AttributeSource, Interp, attribute_sources};

/// A compiled entry point.
pub(crate) struct SoftShader {
    pub(crate) program: Arc<Program>,
    pub(crate) _live: LiveToken,
}

impl SoftShader {
    /// Compiles the entry point, or shares the program this module already has for it, or
    /// reads the one an earlier run left in `cache` (keyed by the executor's sources too).
    pub(crate) fn compile(
        desc: &ShaderDescriptor,
        live: LiveToken,
        cache: &ShaderCache,
    ) -> Result<Self, DeviceError> {
        Ok(Self { program: Self::program(desc, cache)?, _live: live })
    }

    /// The executor's program of `desc`'s entry point, made once per module (and kept in
    /// `cache`): what [`compile`](Self::compile) wraps and `prepare_shader` makes ahead.
    pub(crate) fn program(desc: &ShaderDescriptor, cache: &ShaderCache) -> Result<Arc<Program>, DeviceError> {
        if desc.stage == ShaderStage::Compute {
            return Err(DeviceError::Unsupported {
                feature: f3d_hal::DeviceFeature::COMPUTE,
                backend: f3d_hal::BackendId::SOFT,
            });
        }
        let key =
            format!("soft program {} {} exec {}", desc.stage, desc.entry_point, crate::exec::SOURCE_HASH);
        desc.module
            .compiled_cached(&key, cache, Program::to_bytes, Program::from_bytes, || {
                Program::compile(&desc.module, desc.stage, &desc.entry_point).map_err(|e| e.to_string())
            })
            .map_err(|message| DeviceError::Shader { label: desc.label.clone(), message })
    }
}

/// A vertex-stage input fed from a vertex buffer.
pub(crate) struct AttributeInput {
    pub(crate) slot: usize,
    pub(crate) source: AttributeSource,
    pub(crate) components: usize,
}

/// A varying the fragment stage reads: which vertex output feeds which fragment input.
pub(crate) struct VaryingLink {
    pub(crate) vs_output: usize,
    pub(crate) fs_input: usize,
    pub(crate) components: usize,
}

/// A varying component the fragment stage reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ComponentRead {
    /// The fragment input slot.
    pub(crate) fs_input: usize,
    /// The component within it.
    pub(crate) component: usize,
    /// Its plane: index into the primitive's planes (the order of [`SoftPipeline::interp`]).
    pub(crate) plane: usize,
    /// Whether it is divided by w (perspective-correct).
    pub(crate) perspective: bool,
}

/// A fragment output and the colour target it goes to.
pub(crate) struct TargetOutput {
    pub(crate) target: usize,
    pub(crate) slot: usize,
    pub(crate) components: usize,
}

/// A pipeline: programs plus every link between them, resolved once.
pub(crate) struct SoftPipeline {
    pub(crate) vs: Arc<Program>,
    pub(crate) fs: Option<Arc<Program>>,
    pub(crate) attributes: Vec<AttributeInput>,
    pub(crate) vertex_index: Option<usize>,
    pub(crate) instance_index: Option<usize>,
    pub(crate) position_output: usize,
    pub(crate) varyings: Vec<VaryingLink>,
    /// Interpolation per varying component, in link order.
    pub(crate) interp: Vec<Interp>,
    /// For each resource of the vertex program, its slot in the pipeline's binding table.
    pub(crate) vs_slots: Vec<BindingSlot>,
    /// The same for the fragment program.
    pub(crate) fs_slots: Vec<BindingSlot>,
    pub(crate) outputs: Vec<TargetOutput>,
    pub(crate) frag_depth: Option<usize>,
    /// Fragment inputs that are builtins.
    pub(crate) fs_position: Option<usize>,
    pub(crate) fs_front_facing: Option<usize>,
    pub(crate) fs_primitive_index: Option<usize>,
    pub(crate) fs_sample_index: Option<usize>,
    /// Depth and stencil may be tested before shading (no discard, no depth output).
    pub(crate) early_tests: bool,
    /// Whether shading needs w (perspective varyings or the position builtin's w read).
    pub(crate) needs_w: bool,
    /// The varying components the fragment stage reads: only these are interpolated.
    pub(crate) fs_reads: Vec<ComponentRead>,
    /// Components of the position builtin the fragment stage reads (bit 0 x .. bit 3 w).
    pub(crate) position_reads: u32,
    /// The fragment stage reads no input at all and never discards or writes depth: every
    /// fragment of a draw gets the same outputs, so a draw shades once (see `draw.rs`).
    pub(crate) constant_outputs: bool,
    pub(crate) _live: LiveToken,
}

fn shader_error(label: &str, message: String) -> DeviceError {
    DeviceError::Shader { label: label.to_owned(), message }
}

fn interp_of(i: Interpolation) -> Interp {
    match i {
        Interpolation::Perspective => Interp::Perspective,
        Interpolation::Linear => Interp::Linear,
        Interpolation::Flat => Interp::Flat,
    }
}

impl SoftPipeline {
    pub(crate) fn new(
        owner: &DeviceOwner,
        desc: &PipelineDescriptor,
        live: LiveToken,
    ) -> Result<(PipelineInfo, Self), DeviceError> {
        const OP: &str = "create_pipeline";
        let vs_shader = backend::shader_payload::<SoftShader>(owner, &desc.vertex, OP)?;
        let fs_shader = match &desc.fragment {
            Some(f) => Some(backend::shader_payload::<SoftShader>(owner, f, OP)?),
            None => None,
        };
        let label = desc.label.as_str();
        if desc.vertex.descriptor().stage != ShaderStage::Vertex
            || desc.fragment.as_ref().is_some_and(|f| f.descriptor().stage != ShaderStage::Fragment)
        {
            return Err(shader_error(
                label,
                "the vertex and fragment shaders are not of those stages".into(),
            ));
        }
        let mut stages = vec![(
            &*desc.vertex.descriptor().module,
            ShaderStage::Vertex,
            desc.vertex.descriptor().entry_point.as_str(),
        )];
        if let Some(f) = &desc.fragment {
            stages.push((
                &*f.descriptor().module,
                ShaderStage::Fragment,
                f.descriptor().entry_point.as_str(),
            ));
        }
        let bindings = reflect::pipeline_bindings(&stages).map_err(|e| shader_error(label, e.to_string()))?;
        let vs = vs_shader.program.clone();
        let vi = vs.interface();

        // Vertex inputs: every location the vertex stage reads must come from a layout.
        let sources = attribute_sources(&desc.vertex_buffers);
        let mut attributes = Vec::new();
        let (mut vertex_index, mut instance_index) = (None, None);
        for (slot, input) in vi.inputs.iter().enumerate() {
            match input.kind {
                IoKind::Location { location, .. } => {
                    let Some((_, source)) = sources.iter().find(|(l, _)| *l == location) else {
                        return Err(shader_error(
                            label,
                            format!(
                                "vertex input @location({location}) has no attribute in the vertex buffer layouts"
                            ),
                        ));
                    };
                    let integer_attr = matches!(
                        source.format,
                        f3d_hal::VertexFormat::Uint32
                            | f3d_hal::VertexFormat::Uint32x2
                            | f3d_hal::VertexFormat::Uint32x4
                            | f3d_hal::VertexFormat::Sint32
                            | f3d_hal::VertexFormat::Sint32x4
                    );
                    if integer_attr != matches!(input.scalar, ScalarType::U32 | ScalarType::I32) {
                        return Err(shader_error(
                            label,
                            format!(
                                "vertex input @location({location}) is {:?} but its attribute is {:?}",
                                input.scalar, source.format
                            ),
                        ));
                    }
                    attributes.push(AttributeInput {
                        slot,
                        source: *source,
                        components: input.components as usize,
                    });
                }
                IoKind::Builtin(Builtin::VertexIndex) => vertex_index = Some(slot),
                IoKind::Builtin(Builtin::InstanceIndex) => instance_index = Some(slot),
                IoKind::Builtin(other) => {
                    return Err(shader_error(label, format!("vertex input builtin {other:?}")));
                }
            }
        }
        let position_output = vi
            .output_builtin(Builtin::Position)
            .ok_or_else(|| shader_error(label, "the vertex stage writes no @builtin(position)".into()))?;

        let mut varyings = Vec::new();
        let mut interp = Vec::new();
        let (mut fs_position, mut fs_front_facing, mut fs_primitive_index, mut fs_sample_index) =
            (None, None, None, None);
        let mut outputs = Vec::new();
        let mut frag_depth = None;
        let mut early_tests = true;
        if let Some(fs) = fs_shader.map(|s| &s.program) {
            let fi = fs.interface();
            for (slot, input) in fi.inputs.iter().enumerate() {
                match input.kind {
                    IoKind::Location { location, interpolation, .. } => {
                        let Some(vs_output) = vi.output_location(location) else {
                            return Err(shader_error(
                                label,
                                format!(
                                    "fragment input @location({location}) is not written by the vertex stage"
                                ),
                            ));
                        };
                        let out = &vi.outputs[vs_output];
                        if out.scalar != input.scalar || out.components < input.components {
                            return Err(shader_error(
                                label,
                                format!(
                                    "@location({location}) is {:?}x{} in the vertex stage and {:?}x{} in the fragment stage",
                                    out.scalar, out.components, input.scalar, input.components
                                ),
                            ));
                        }
                        let components = input.components as usize;
                        varyings.push(VaryingLink { vs_output, fs_input: slot, components });
                        interp.extend(std::iter::repeat_n(interp_of(interpolation), components));
                    }
                    IoKind::Builtin(Builtin::Position) => fs_position = Some(slot),
                    IoKind::Builtin(Builtin::FrontFacing) => fs_front_facing = Some(slot),
                    IoKind::Builtin(Builtin::PrimitiveIndex) => fs_primitive_index = Some(slot),
                    IoKind::Builtin(Builtin::SampleIndex) => fs_sample_index = Some(slot),
                    IoKind::Builtin(other) => {
                        return Err(shader_error(label, format!("fragment input builtin {other:?}")));
                    }
                }
            }
            for (slot, output) in fi.outputs.iter().enumerate() {
                match output.kind {
                    IoKind::Location { location, .. } => {
                        let target = location as usize;
                        if target >= desc.color_targets.len() {
                            continue;
                        }
                        outputs.push(TargetOutput { target, slot, components: output.components as usize });
                    }
                    IoKind::Builtin(Builtin::FragDepth) => frag_depth = Some(slot),
                    IoKind::Builtin(_) => {}
                }
            }
            early_tests = !fi.may_discard && frag_depth.is_none();
        }
        let slots_of = |program: &Program| -> Result<Vec<BindingSlot>, DeviceError> {
            program
                .interface()
                .resources
                .iter()
                .map(|r| {
                    bindings
                        .entries()
                        .iter()
                        .position(|b| (b.group, b.binding) == (r.group, r.binding))
                        .map(|i| BindingSlot(i as u32))
                        .ok_or_else(|| {
                            shader_error(
                                label,
                                format!(
                                    "resource @group({}) @binding({}) is missing from the binding table",
                                    r.group, r.binding
                                ),
                            )
                        })
                })
                .collect()
        };
        let vs_slots = slots_of(&vs)?;
        let fs_slots = match fs_shader {
            Some(s) => slots_of(&s.program)?,
            None => Vec::new(),
        };
        // What the fragment stage really reads, so the rasteriser interpolates nothing else.
        let mut fs_reads = Vec::new();
        let mut position_reads = 0;
        let mut constant_outputs = false;
        if let Some(fs) = fs_shader.map(|s| &s.program) {
            let mut plane = 0;
            for link in &varyings {
                let read = fs.input_reads(link.fs_input);
                for component in 0..link.components {
                    if read >> component & 1 != 0 {
                        fs_reads.push(ComponentRead {
                            fs_input: link.fs_input,
                            component,
                            plane: plane + component,
                            perspective: interp[plane + component] == Interp::Perspective,
                        });
                    }
                }
                plane += link.components;
            }
            position_reads = fs_position.map_or(0, |slot| fs.input_reads(slot));
            let reads_nothing = (0..fs.interface().inputs.len()).all(|slot| fs.input_reads(slot) == 0);
            constant_outputs = reads_nothing && early_tests;
        }
        let needs_w = position_reads & 8 != 0 || fs_reads.iter().any(|r| r.perspective);
        let info = PipelineInfo { label: desc.label.clone(), bindings, render: Some(desc.clone()) };
        let pipeline = Self {
            vs,
            fs: fs_shader.map(|s| s.program.clone()),
            attributes,
            vertex_index,
            instance_index,
            position_output,
            varyings,
            interp,
            vs_slots,
            fs_slots,
            outputs,
            frag_depth,
            fs_position,
            fs_front_facing,
            fs_primitive_index,
            fs_sample_index,
            early_tests,
            needs_w,
            fs_reads,
            position_reads,
            constant_outputs,
            _live: live,
        };
        Ok((info, pipeline))
    }
}
