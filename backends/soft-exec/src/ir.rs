//! The executor's program: a flat list of instructions over scalar registers.
//!
//! Every naga value is split into 32-bit scalars. A scalar lives in a *varying* register (one
//! value per lane, [`Lanes`](super::ops::Lanes)) or a *uniform* register (one value for the
//! whole batch). Constants are uniform registers filled once when an executor is made.
//! Control flow is jumps plus lane masks: `exec` is the set of lanes running, and mask slots
//! hold the masks that structured control flow saves and restores (see `lower::flow`).

use serde::{Deserialize, Serialize};

use super::ops::{Op1, Op2, Op3};

/// A register index (varying or uniform, by context).
pub(crate) type Reg = u32;

/// A mask slot index.
pub(crate) type Slot = u16;

/// The slot that is always empty (an absent exit).
pub(crate) const NO_SLOT: Slot = 0;
/// The lanes killed by `discard`.
pub(crate) const KILL_SLOT: Slot = 1;
/// The lanes that started the batch.
pub(crate) const ENTRY_SLOT: Slot = 2;
/// The first slot lowering may allocate.
pub(crate) const FIRST_FREE_SLOT: Slot = 3;

/// Slots whose lanes have left the current construct: restored masks exclude them.
pub(crate) type Exits = [Slot; 4];

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Src {
    /// A varying register.
    V(Reg),
    /// A uniform register (constants included).
    U(Reg),
}

/// A destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub(crate) enum Dst {
    /// A varying register: every lane is written.
    V(Reg),
    /// A uniform register.
    U(Reg),
}

/// Which derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum DerivAxis {
    /// `dpdx`
    X,
    /// `dpdy`
    Y,
    /// `fwidth`
    Width,
}

/// What a texture query asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum TexQuery {
    /// Width of a level.
    Width,
    /// Height of a level.
    Height,
    /// `textureNumLevels`
    Levels,
    /// `textureNumLayers`
    Layers,
}

/// How a sample picks its level of detail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum LevelArg {
    /// From the quad's derivatives (fragment stage).
    Auto,
    /// Level 0.
    Zero,
    /// An explicit level of detail.
    Exact(Src),
    /// From derivatives, plus a bias.
    Bias(Src),
    /// From explicit gradients (x then y, one per coordinate).
    Grad([Src; 3], [Src; 3]),
}

/// What a texture instruction does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum TexKind {
    /// `textureSample*` and `textureGather*`.
    Sample {
        /// Level of detail.
        level: LevelArg,
        /// Reference value for comparison samplers.
        depth_ref: Option<Src>,
        /// `textureGather` of this component.
        gather: Option<u8>,
        /// `textureSampleBaseClampToEdge`.
        clamp_to_edge: bool,
        /// Constant texel offset.
        offset: [i32; 2],
    },
    /// `textureLoad`.
    Load {
        /// The mip level (0 when absent).
        level: Option<Src>,
    },
}

/// One texture instruction (boxed in [`Inst::Texture`]: it is large and rare).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct TexOp {
    /// What it does.
    pub(crate) kind: TexKind,
    /// The texture's resource index.
    pub(crate) texture: u16,
    /// The sampler's resource index (unused for loads).
    pub(crate) sampler: u16,
    /// Coordinates: 2 for 2D (floats, or integers for loads), 3 for cubes.
    pub(crate) coord: [Src; 3],
    /// The array layer, for arrays.
    pub(crate) array_index: Option<Src>,
    /// Result registers (1 for depth samples, 4 otherwise).
    pub(crate) dst: [Reg; 4],
    /// How many of `dst` are used.
    pub(crate) dst_len: u8,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Inst {
    /// `d = op(a)`.
    Op1 { op: Op1, d: Dst, a: Src },
    /// `d = op(a, b)`.
    Op2 { op: Op2, d: Dst, a: Src, b: Src },
    /// `d = op(a, b, c)`.
    Op3 { op: Op3, d: Dst, a: Src, b: Src, c: Src },
    /// `d = a` (a broadcast when `a` is uniform and `d` varying).
    Copy { d: Dst, a: Src },
    /// `d = a` in the lanes of `exec` only.
    Blend { d: Reg, a: Src },
    /// `d = list[min(idx + add, len - 1)]`, per lane when `idx` varies.
    Gather { d: Dst, list: Box<[Src]>, idx: Src, add: u32 },
    /// `list[min(idx + add, len - 1)] = a`, per lane, in the lanes of `exec` when `masked`.
    Scatter { list: Box<[Src]>, idx: Src, add: u32, a: Src, masked: bool },
    /// A derivative across each 2x2 quad.
    Deriv { d: Reg, a: Reg, axis: DerivAxis, fine: bool },
    /// Four bytes of uniform block or read-only storage buffer `res` at
    /// `offset + idx * stride` (idx already clamped); 0 where the bound bytes end first.
    UniformLoad { d: Dst, res: u16, offset: u32, idx: Option<Src>, stride: u32 },
    /// The elements of a runtime-sized array at byte `offset` of storage buffer `res` with
    /// elements `stride` bytes apart: `(bound bytes - offset) / stride`, 0 when the buffer
    /// ends before `offset` (`arrayLength`).
    ArrayLength { d: Dst, res: u16, offset: u32, stride: u32 },
    /// A texture sample or load.
    Texture(Box<TexOp>),
    /// A texture size query (`level` for `Width`/`Height`).
    TexQuery { d: Dst, res: u16, query: TexQuery, level: Option<Src> },
    /// Go to `to`.
    Jump { to: u32 },
    /// Go to `to` when the uniform `cond` equals `when`.
    JumpIf { cond: Src, when: bool, to: u32 },
    /// Go to `to` when no lane runs.
    JumpIfNoLanes { to: u32 },
    /// Go to `to` when every lane of the batch was killed.
    JumpIfAllKilled { to: u32 },
    /// `save = exec; exec &= cond`; go to `skip` when no lane is left.
    IfV { cond: Reg, save: Slot, skip: u32 },
    /// `exec = save & !cond & !exits`; go to `skip` when no lane is left.
    ElseV { cond: Reg, save: Slot, exits: Exits, skip: u32 },
    /// `exec = save & !exits`.
    Restore { save: Slot, exits: Exits },
    /// `slot |= exec; exec = 0` (break, continue, return, for the lanes running).
    ExitLanes { slot: Slot },
    /// `slot = 0`.
    MaskZero { slot: Slot },
    /// `slot = exec`.
    MaskSave { slot: Slot },
    /// `exec |= slot`.
    MergeLanes { slot: Slot },
    /// `exec = slot`.
    SetExec { slot: Slot },
    /// Lanes of `exec` where `cond` holds move to `brk`.
    BreakIf { cond: Src, brk: Slot },
    /// Go to `to` while some lane runs.
    LoopBack { to: u32 },
    /// Enter a switch case: `exec = (save & lanes selecting it) | carry`; go to `skip` when
    /// empty. `value` is `None` for the default case; `values` are all the case values.
    CaseV { sel: Src, value: Option<u32>, values: Box<[u32]>, save: Slot, carry: Slot, skip: u32 },
    /// `carry = if fall { exec } else { 0 }` after a case body.
    Carry { carry: Slot, fall: bool },
    /// `discard`: the running lanes are killed.
    Kill,
    /// The end of the program.
    End,
}

/// How an instruction touches a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Read.
    Use,
    /// Written in every lane.
    Def,
    /// Written in some lanes: the old value is kept elsewhere (so it is read too).
    Update,
}

/// A register an instruction names.
pub(crate) struct RegRef<'a> {
    /// Varying or uniform.
    pub(crate) varying: bool,
    /// How it is touched.
    pub(crate) role: Role,
    /// The index, to read or rename.
    pub(crate) reg: &'a mut Reg,
}

fn src<'a>(s: &'a mut Src, f: &mut impl FnMut(RegRef<'a>)) {
    match s {
        Src::V(r) => f(RegRef { varying: true, role: Role::Use, reg: r }),
        Src::U(r) => f(RegRef { varying: false, role: Role::Use, reg: r }),
    }
}

fn dst<'a>(d: &'a mut Dst, f: &mut impl FnMut(RegRef<'a>)) {
    match d {
        Dst::V(r) => f(RegRef { varying: true, role: Role::Def, reg: r }),
        Dst::U(r) => f(RegRef { varying: false, role: Role::Def, reg: r }),
    }
}

impl Inst {
    /// Calls `f` for every register the instruction names: uses first, then definitions.
    pub(crate) fn visit_regs<'a>(&'a mut self, mut f: impl FnMut(RegRef<'a>)) {
        let f = &mut f;
        match self {
            Inst::Op1 { d, a, .. } | Inst::Copy { d, a } => {
                src(a, f);
                dst(d, f);
            }
            Inst::Op2 { d, a, b, .. } => {
                src(a, f);
                src(b, f);
                dst(d, f);
            }
            Inst::Op3 { d, a, b, c, .. } => {
                src(a, f);
                src(b, f);
                src(c, f);
                dst(d, f);
            }
            Inst::Blend { d, a } => {
                src(a, f);
                f(RegRef { varying: true, role: Role::Update, reg: d });
            }
            Inst::Gather { d, list, idx, .. } => {
                for s in list.iter_mut() {
                    src(s, f);
                }
                src(idx, f);
                dst(d, f);
            }
            Inst::Scatter { list, idx, a, .. } => {
                src(idx, f);
                src(a, f);
                for s in list.iter_mut() {
                    let (varying, reg) = match s {
                        Src::V(r) => (true, r),
                        Src::U(r) => (false, r),
                    };
                    f(RegRef { varying, role: Role::Update, reg });
                }
            }
            Inst::Deriv { d, a, .. } => {
                f(RegRef { varying: true, role: Role::Use, reg: a });
                f(RegRef { varying: true, role: Role::Def, reg: d });
            }
            Inst::UniformLoad { d, idx, .. } => {
                if let Some(i) = idx {
                    src(i, f);
                }
                dst(d, f);
            }
            Inst::Texture(op) => {
                let op = &mut **op;
                for c in op.coord.iter_mut() {
                    src(c, f);
                }
                if let Some(a) = &mut op.array_index {
                    src(a, f);
                }
                match &mut op.kind {
                    TexKind::Sample { level, depth_ref, .. } => {
                        match level {
                            LevelArg::Auto | LevelArg::Zero => {}
                            LevelArg::Exact(s) | LevelArg::Bias(s) => src(s, f),
                            LevelArg::Grad(x, y) => {
                                for s in x.iter_mut().chain(y.iter_mut()) {
                                    src(s, f);
                                }
                            }
                        }
                        if let Some(r) = depth_ref {
                            src(r, f);
                        }
                    }
                    TexKind::Load { level } => {
                        if let Some(l) = level {
                            src(l, f);
                        }
                    }
                }
                let n = usize::from(op.dst_len).min(4);
                for r in op.dst[..n].iter_mut() {
                    f(RegRef { varying: true, role: Role::Def, reg: r });
                }
            }
            Inst::TexQuery { d, level, .. } => {
                if let Some(l) = level {
                    src(l, f);
                }
                dst(d, f);
            }
            Inst::ArrayLength { d, .. } => dst(d, f),
            Inst::JumpIf { cond, .. } | Inst::BreakIf { cond, .. } => src(cond, f),
            Inst::IfV { cond, .. } | Inst::ElseV { cond, .. } => {
                f(RegRef { varying: true, role: Role::Use, reg: cond });
            }
            Inst::CaseV { sel, .. } => src(sel, f),
            Inst::Jump { .. }
            | Inst::JumpIfNoLanes { .. }
            | Inst::JumpIfAllKilled { .. }
            | Inst::Restore { .. }
            | Inst::ExitLanes { .. }
            | Inst::MaskZero { .. }
            | Inst::MaskSave { .. }
            | Inst::MergeLanes { .. }
            | Inst::SetExec { .. }
            | Inst::LoopBack { .. }
            | Inst::Carry { .. }
            | Inst::Kill
            | Inst::End => {}
        }
    }

    /// The jump target, for instructions that may jump.
    pub(crate) fn target_mut(&mut self) -> Option<&mut u32> {
        match self {
            Inst::Jump { to }
            | Inst::JumpIf { to, .. }
            | Inst::JumpIfNoLanes { to }
            | Inst::JumpIfAllKilled { to }
            | Inst::LoopBack { to } => Some(to),
            Inst::IfV { skip, .. } | Inst::ElseV { skip, .. } | Inst::CaseV { skip, .. } => Some(skip),
            _ => None,
        }
    }

    /// Whether removing the instruction changes nothing but the registers it defines.
    pub(crate) fn is_pure(&self) -> bool {
        matches!(
            self,
            Inst::Op1 { .. }
                | Inst::Op2 { .. }
                | Inst::Op3 { .. }
                | Inst::Copy { .. }
                | Inst::Gather { .. }
                | Inst::Deriv { .. }
                | Inst::UniformLoad { .. }
                | Inst::ArrayLength { .. }
                | Inst::Texture(_)
                | Inst::TexQuery { .. }
        )
    }
}
