//! # The shader executor: naga IR on the CPU
//!
//! The soft backend runs the same validated naga modules the GPU backends compile. Each
//! entry point is compiled once per pipeline ([`Program::compile`]) into the executor's own
//! program: every value split into 32-bit scalars, every function call inlined, every
//! scalar living in a register that holds one value per lane ("structure of arrays"). A
//! program then runs over batches of [`LANES`] = 64 lanes (8x8 pixels, or 64 vertices):
//! each instruction loops over the 64 lanes, which the compiler turns into SIMD, so the cost
//! of interpreting is paid once per 64 pixels rather than once per pixel.
//!
//! ```text
//! ValidatedModule ──Program::compile──▶ Program (Send + Sync, shared by threads)
//!                                          │ Program::bind(&[Resource]) once per draw
//!                                          ▼
//!  per thread: Executor::new(&program) ─▶ input_mut(slot) ← attributes / varyings
//!                                          run(&bindings, active)
//!                                          output(slot), discarded() → raster
//! ```
//!
//! ## Lanes and values
//!
//! * A register is [`Lanes`] = `[f32; 64]`. Floats are stored as themselves; `i32`, `u32` and
//!   `bool` as bit patterns (`f32::from_bits`; `bool` is 0 or 1). [`bool_lanes`] and
//!   [`lanes_mask`] convert masks.
//! * Fragment lanes come in 2x2 quads: lanes `4q..4q+4` are the pixels `(x, y)`, `(x+1, y)`,
//!   `(x, y+1)`, `(x+1, y+1)`. Derivatives (`dpdx`, `dpdy`, `fwidth`; `Fine` and the default
//!   per pixel pair, `Coarse` per quad) and implicit-LOD sampling read a quad's lanes.
//! * `active` (a `u64`, bit `l` = lane `l`) says which lanes are covered. In the fragment
//!   stage every lane of a quad with any covered lane runs (the others are helpers, for
//!   derivatives; their results mean nothing); lanes of empty quads do not run and may hold
//!   anything. In the vertex stage exactly the active lanes run.
//! * Values the same for every lane — constants, uniform-block loads, storage-buffer loads at
//!   uniform indices, `arrayLength`, texture sizes and everything computed only from them,
//!   including loop counters and variables that only ever hold such values — live in uniform
//!   registers and are computed once per batch.
//!
//! ## Semantics
//!
//! * Integer arithmetic wraps; shifts take the amount modulo 32; `x / 0 == x`, `x % 0 == 0`
//!   (naga's helpers on every GPU backend); float-to-int conversion saturates.
//! * Out-of-range dynamic indices are clamped to the last element (WGSL allows any element).
//! * Read-only storage buffers (`var<storage, read>`, or `var<storage>`) are bound as bytes
//!   ([`Resource::StorageBuffer`]) in WGSL's storage layout (naga's layouter), and read like
//!   uniform blocks. A runtime-sized array at the end of one has as many elements as the bound
//!   bytes hold past its offset: `arrayLength` returns that count, and every index into it,
//!   constant or dynamic, is clamped to its last element; when the buffer holds no whole
//!   element, element 0 is read and the bytes past the buffer's end read as 0. Writable
//!   storage buffers are refused.
//! * `discard` kills the lane for the rest of the invocation (naga emits `OpKill`);
//!   [`Executor::discarded`] reports killed lanes. Branches and loops run with lane masks;
//!   a loop runs until every lane has left it. A batch that jumps back more than 2^24 times
//!   is abandoned and all its lanes reported discarded (what a GPU watchdog would do).
//! * Textures: see [`TextureView`] for the bytes the executor reads, and `texture/sample.rs`
//!   for the filtering rules (WebGPU/Vulkan: texel centres at half-integers, LOD from quad
//!   derivatives, per-face clamping on cube maps — no filtering across cube faces,
//!   anisotropy treated as 1).
//! * Transcendentals (`exp`, `exp2`, `log`, `log2`, `pow`) use vectorisable approximations
//!   within a few ULP; trigonometric functions use the standard library's.
//!
//! ## What is refused
//!
//! [`Program::compile`] returns [`ExecError::Unsupported`] naming the construct for: compute
//! entry points, writable storage buffers (`var<storage, read_write>`; read-only ones run),
//! storage textures, atomics, workgroup memory and barriers, subgroup operations, ray queries
//! and ray tracing, cooperative matrices, immediates (push constants), binding arrays,
//! multisampled, 1D, 3D, cube-array and external textures, `f16`/`f64`/64-bit integer values,
//! runtime-sized arrays outside read-only storage buffers, dual-source blending, and builtins
//! other than `position`, `vertex_index`, `instance_index`, `front_facing`, `sample_index`,
//! `primitive_index` and `frag_depth`. Nothing a validated module contains makes compilation
//! or execution panic.

// Lane loops index several arrays by the same lane on purpose: that is the shape the
// compiler vectorises, and iterator chains over four arrays would only obscure it.
#![allow(clippy::needless_range_loop)]

mod error;
mod fmath;
mod interface;
mod ir;
mod lower;
mod ops;
mod optimize;
mod regalloc;
mod run;
#[cfg(test)]
mod tests;
mod texture;

pub use error::ExecError;
pub use interface::{
    Builtin, Interface, Interpolation, IoKind, IoSlot, ResourceInfo, ResourceKind, Sampling, ScalarType,
};
pub use texture::{Bindings, Resource, TextureView};

use f3d_hal::{ShaderStage, ValidatedModule};

use self::interface::Refuse;
use self::texture::{Bound, BoundSampler, BoundTexture};

/// Lanes per batch.
pub const LANES: usize = 64;

/// One register: a 32-bit value per lane (see the module docs for how types are stored).
pub type Lanes = [f32; LANES];

/// Most varying registers a program may use (each is 256 bytes per executor).
const MAX_REGISTERS: u32 = 1 << 14;

/// The lanes whose bit is set in `mask`, as WGSL booleans (bit patterns 1 and 0), e.g. for
/// the `front_facing` input.
pub fn bool_lanes(mask: u64) -> Lanes {
    std::array::from_fn(|l| f32::from_bits((mask >> l & 1) as u32))
}

/// The mask of lanes whose boolean (or integer) is non-zero.
pub fn lanes_mask(lanes: &Lanes) -> u64 {
    lanes.iter().enumerate().fold(0, |m, (l, x)| m | (u64::from(x.to_bits() != 0) << l))
}

/// A hash of this executor's sources: programs stored by [`Program::to_bytes`] are read back
/// only by the executor that wrote them (the shader cache puts it in its key).
pub const SOURCE_HASH: &str = env!("F3D_SOFT_EXEC_SOURCE");

/// A compiled entry point. Compile once per pipeline; share it between threads, each running
/// it with its own [`Executor`]. Its stored form ([`Program::to_bytes`]) leaves out what is
/// made again on reading: the interpreter's compact steps and the CPU test.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Program {
    interface: Interface,
    entry_point: String,
    code: Vec<ir::Inst>,
    #[serde(skip)]
    steps: Vec<run::Step>,
    consts: Vec<f32>,
    n_v: u32,
    n_u: u32,
    n_slots: u16,
    input_base: Vec<u32>,
    output_base: Vec<u32>,
    /// Per input slot, bit `c` set when component `c` may be read (see
    /// [`Program::input_reads`]).
    input_reads: Vec<u32>,
    #[serde(skip)]
    avx2: bool,
}

impl Program {
    /// Compiles entry point `entry_point` of `module` for `stage`. Fails with an error naming
    /// the construct when the entry point uses something the executor does not run.
    pub fn compile(
        module: &ValidatedModule,
        stage: ShaderStage,
        entry_point: &str,
    ) -> Result<Program, ExecError> {
        let refuse = Refuse { stage, entry_point: entry_point.to_owned() };
        if stage == ShaderStage::Compute {
            return Err(refuse.unsupported("compute shaders"));
        }
        let Some(ep_index) = module.entry_point_index(stage, entry_point) else {
            return Err(ExecError::NoEntryPoint { stage, entry_point: entry_point.to_owned() });
        };
        let mut lowered = lower::lower(module, ep_index, &refuse)?;
        optimize::optimize(&mut lowered);
        let alloc = regalloc::allocate(&mut lowered);
        if alloc.n_v > MAX_REGISTERS {
            return Err(
                refuse.too_large(format!("{} varying registers (at most {MAX_REGISTERS})", alloc.n_v))
            );
        }
        regalloc::verify(&lowered.code, alloc.n_v, alloc.n_u).map_err(|detail| ExecError::Internal {
            stage,
            entry_point: entry_point.to_owned(),
            detail,
        })?;
        let input_reads = input_reads(&lowered.code, &lowered.interface, &alloc.input_base);
        Ok(Program {
            input_reads,
            interface: lowered.interface,
            entry_point: entry_point.to_owned(),
            steps: run::prepare(&lowered.code, alloc.n_v),
            code: lowered.code,
            consts: lowered.consts,
            n_v: alloc.n_v,
            n_u: alloc.n_u,
            n_slots: lowered.n_slots,
            input_base: alloc.input_base,
            output_base: alloc.output_base,
            avx2: detect_avx2(),
        })
    }

    /// The program as bytes, for the shader cache on disk: [`Program::from_bytes`] of the same
    /// executor (same [`SOURCE_HASH`]) reads it back. `None` if it cannot be written (no
    /// program of this executor's making fails to).
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        ciborium::into_writer(self, &mut bytes).ok()?;
        Some(bytes)
    }

    /// A program [`to_bytes`](Self::to_bytes) wrote; `None` when `bytes` are not one, or name a
    /// register or jump past the program's own tables (checked as a compile's result is, and
    /// the compact steps are prepared again, so the interpreter's unchecked register access
    /// stays sound whatever the bytes).
    pub fn from_bytes(bytes: &[u8]) -> Option<Program> {
        let mut p: Program = ciborium::from_reader(bytes).ok()?;
        let slots = p.interface.inputs.len();
        let tables_fit = p.input_base.len() == slots
            && p.input_reads.len() == slots
            && p.output_base.len() == p.interface.outputs.len()
            && p.consts.len() <= p.n_u as usize
            && p.n_v <= MAX_REGISTERS
            && p.code.last().is_some_and(|i| matches!(i, ir::Inst::End));
        if !tables_fit || regalloc::verify(&p.code, p.n_v, p.n_u).is_err() {
            return None;
        }
        p.steps = run::prepare(&p.code, p.n_v);
        p.avx2 = detect_avx2();
        Some(p)
    }

    /// What the program reads and writes.
    pub fn interface(&self) -> &Interface {
        &self.interface
    }

    /// The entry point's name.
    pub fn entry_point(&self) -> &str {
        &self.entry_point
    }

    /// The components of input `slot` ([`Interface::inputs`]) the program may read, as a bit
    /// mask (bit `c` for component `c`). A component whose bit is clear is never read, so a
    /// caller need not fill its register before [`Executor::run`] (the rasteriser skips
    /// interpolating it). 0 for a slot that does not exist.
    pub fn input_reads(&self, slot: usize) -> u32 {
        self.input_reads.get(slot).copied().unwrap_or(0)
    }

    /// The number of instructions (a measure of the shader's cost per batch).
    pub fn instruction_count(&self) -> usize {
        self.code.len()
    }

    /// The program as text, one instruction per line (for debugging and snapshot tests).
    pub fn dump(&self) -> String {
        let mut s = String::new();
        for (pc, inst) in self.code.iter().enumerate() {
            s += &format!("{pc:4} {inst:?}\n");
        }
        s
    }

    /// Counts of what the program does per batch (for diagnostics and tests).
    pub fn stats(&self) -> ProgramStats {
        let mut stats = ProgramStats {
            instructions: self.code.len(),
            varying_registers: self.n_v,
            uniform_registers: self.n_u,
            ..ProgramStats::default()
        };
        for inst in &self.code {
            match inst {
                ir::Inst::Op1 { d, .. }
                | ir::Inst::Op2 { d, .. }
                | ir::Inst::Op3 { d, .. }
                | ir::Inst::Copy { d, .. }
                | ir::Inst::Gather { d, .. }
                | ir::Inst::UniformLoad { d, .. }
                | ir::Inst::ArrayLength { d, .. }
                | ir::Inst::TexQuery { d, .. } => match d {
                    ir::Dst::U(_) => stats.uniform_instructions += 1,
                    ir::Dst::V(_) => stats.varying_instructions += 1,
                },
                ir::Inst::Blend { .. }
                | ir::Inst::Scatter { .. }
                | ir::Inst::Deriv { .. }
                | ir::Inst::Texture(_) => stats.varying_instructions += 1,
                _ => stats.control_instructions += 1,
            }
        }
        stats
    }

    /// Checks `resources` against [`Interface::resources`] (same order, matching kinds,
    /// uniform blocks at least as large as the block, storage buffers at least as large as
    /// their type's fixed part, texture planes as large as their levels) and prepares them
    /// for [`Executor::run`]. Call once per draw.
    pub fn bind<'a>(&self, resources: &[Resource<'a>]) -> Result<Bindings<'a>, ExecError> {
        let wanted = &self.interface.resources;
        if resources.len() != wanted.len() {
            return Err(ExecError::BindingCount {
                entry_point: self.entry_point.clone(),
                expected: wanted.len(),
                given: resources.len(),
            });
        }
        let mut slots = Vec::with_capacity(wanted.len());
        for (info, res) in wanted.iter().zip(resources) {
            let problem = |p: String| ExecError::Binding {
                entry_point: self.entry_point.clone(),
                group: info.group,
                binding: info.binding,
                problem: p,
            };
            let bound = match (info.kind, res) {
                (ResourceKind::UniformBlock { size }, Resource::UniformBlock(bytes)) => {
                    if bytes.len() < size as usize {
                        return Err(problem(format!(
                            "the uniform block needs {size} bytes, {} given",
                            bytes.len()
                        )));
                    }
                    Bound::Uniform(bytes)
                }
                (ResourceKind::StorageBuffer { min_size }, Resource::StorageBuffer(bytes)) => {
                    if bytes.len() < min_size as usize {
                        return Err(problem(format!(
                            "the storage buffer needs at least {min_size} bytes, {} given",
                            bytes.len()
                        )));
                    }
                    Bound::Uniform(bytes)
                }
                (ResourceKind::Texture { dimension, depth, sample }, Resource::Texture(view)) => {
                    if view.dimension != dimension {
                        return Err(problem(format!(
                            "a {dimension:?} texture is declared, a {:?} one given",
                            view.dimension
                        )));
                    }
                    if view.format.has_depth() != depth {
                        return Err(problem(format!(
                            "{} does not fit a {} binding",
                            view.format,
                            if depth { "depth" } else { "colour" }
                        )));
                    }
                    let kind = view.format.facts().sample_kind;
                    let fits = match sample {
                        ScalarType::U32 => kind == f3d_hal::SampleKind::Uint,
                        ScalarType::I32 => kind == f3d_hal::SampleKind::Sint,
                        _ => matches!(kind, f3d_hal::SampleKind::Float | f3d_hal::SampleKind::Depth),
                    };
                    if !fits {
                        return Err(problem(format!(
                            "{} does not fit a texture of {sample:?} samples",
                            view.format
                        )));
                    }
                    Bound::Texture(BoundTexture::new(view).map_err(problem)?)
                }
                (ResourceKind::Sampler { comparison }, Resource::Sampler(desc)) => {
                    if desc.compare.is_some() != comparison {
                        return Err(problem(if comparison {
                            "a comparison sampler is declared, the sampler has no compare function".into()
                        } else {
                            "a filtering sampler is declared, the sampler has a compare function".into()
                        }));
                    }
                    Bound::Sampler(BoundSampler::new(desc))
                }
                (kind, res) => {
                    let given = match res {
                        Resource::UniformBlock(_) => "a uniform block",
                        Resource::StorageBuffer(_) => "a storage buffer",
                        Resource::Texture(_) => "a texture",
                        Resource::Sampler(_) => "a sampler",
                    };
                    return Err(problem(format!("expected {kind:?}, got {given}")));
                }
            };
            slots.push(bound);
        }
        Ok(Bindings { slots })
    }
}

/// Which input components `code` may read: a component counts as read when any instruction
/// reads its register (conservative: registers are pinned, so no other value shares an
/// input's register, and a read anywhere, even after a write, counts).
fn input_reads(code: &[ir::Inst], interface: &Interface, input_base: &[u32]) -> Vec<u32> {
    let mut read = std::collections::HashSet::new();
    for inst in code {
        let mut inst = inst.clone();
        inst.visit_regs(|r| {
            if r.varying && r.role != ir::Role::Def {
                read.insert(*r.reg);
            }
        });
    }
    interface
        .inputs
        .iter()
        .zip(input_base)
        .map(|(slot, &base)| {
            (0..slot.components.min(32)).fold(0, |m, c| m | (u32::from(read.contains(&(base + c))) << c))
        })
        .collect()
}

/// Whether this CPU runs the AVX2 and FMA paths (the executor's and the rasteriser's).
#[cfg(target_arch = "x86_64")]
pub fn detect_avx2() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

/// Whether this CPU runs the AVX2 and FMA paths: never off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn detect_avx2() -> bool {
    false
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("entry_point", &self.entry_point)
            .field("interface", &self.interface)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// What a program does per batch: see [`Program::stats`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgramStats {
    /// All instructions.
    pub instructions: usize,
    /// Instructions computing one value for the whole batch.
    pub uniform_instructions: usize,
    /// Instructions computing a value per lane (64 at a time).
    pub varying_instructions: usize,
    /// Jumps and mask bookkeeping.
    pub control_instructions: usize,
    /// Varying registers (256 bytes each).
    pub varying_registers: u32,
    /// Uniform registers, constants included.
    pub uniform_registers: u32,
}

/// One thread's scratch state for running a [`Program`]: its registers and masks. Make one
/// per thread (and per program); running a batch allocates nothing.
pub struct Executor<'p> {
    program: &'p Program,
    state: run::State,
}

impl<'p> Executor<'p> {
    /// Scratch state for `program`.
    pub fn new(program: &'p Program) -> Self {
        let mut u = vec![0.0; program.n_u as usize];
        u[..program.consts.len()].copy_from_slice(&program.consts);
        let state = run::State {
            v: run::RegisterFile::new(program.n_v as usize),
            u,
            m: vec![0; usize::from(program.n_slots)],
            tex: run::TexScratch::new(),
        };
        Self { program, state }
    }

    /// The program this executor runs.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    fn slot_range(&self, base: &[u32], slots: &[IoSlot], slot: usize) -> std::ops::Range<usize> {
        match (base.get(slot), slots.get(slot)) {
            (Some(&b), Some(s)) => b as usize..(b + s.components) as usize,
            _ => 0..0,
        }
    }

    /// The registers of input `slot` ([`Interface::inputs`]), one per component, to fill
    /// before [`run`](Self::run). Empty for a slot that does not exist.
    pub fn input_mut(&mut self, slot: usize) -> &mut [Lanes] {
        let r = self.slot_range(&self.program.input_base, &self.program.interface.inputs, slot);
        self.state.v.lanes_mut().get_mut(r).unwrap_or(&mut [])
    }

    /// Runs the program over one batch. `active`: the covered lanes (see the module docs).
    pub fn run(&mut self, bindings: &Bindings<'_>, active: u64) {
        let entry = match self.program.interface.stage {
            ShaderStage::Fragment => {
                let mut quads = 0u64;
                for q in 0..LANES / 4 {
                    if active >> (4 * q) & 0xf != 0 {
                        quads |= 0xf << (4 * q);
                    }
                }
                quads
            }
            _ => active,
        };
        run::run(self.program, &mut self.state, bindings, entry);
    }

    /// The registers of output `slot` ([`Interface::outputs`]) after [`run`](Self::run).
    /// Empty for a slot that does not exist.
    pub fn output(&self, slot: usize) -> &[Lanes] {
        let r = self.slot_range(&self.program.output_base, &self.program.interface.outputs, slot);
        self.state.v.lanes().get(r).unwrap_or(&[])
    }

    /// The lanes the last [`run`](Self::run) discarded.
    pub fn discarded(&self) -> u64 {
        self.state.m.get(usize::from(ir::KILL_SLOT)).copied().unwrap_or(0)
    }
}
