//! Emits instructions: virtual registers, constants, labels and folding.
//!
//! Lowering works on [`Val`]s: a compile-time constant, a uniform register or a varying
//! register. An operation whose operands are all constants is folded here (with the same
//! [`Op2::eval`] the uniform path runs), one whose operands are all uniform makes a uniform
//! register, and anything touching a varying register makes a varying one. That is the whole
//! of "uniform values are computed once per batch".

use std::collections::HashMap;

use crate::ir::{Dst, FIRST_FREE_SLOT, Inst, Reg, Slot, Src};
use crate::ops::{Op1, Op2, Op3};

/// A scalar during lowering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Val {
    /// A constant, as its 32-bit pattern.
    C(u32),
    /// A uniform virtual register.
    U(Reg),
    /// A varying virtual register.
    V(Reg),
}

impl Val {
    /// The constant `f32` `x`.
    pub(crate) fn f(x: f32) -> Val {
        Val::C(x.to_bits())
    }

    /// Whether the value differs between lanes.
    pub(crate) fn varying(self) -> bool {
        matches!(self, Val::V(_))
    }

    fn bits(self) -> Option<f32> {
        match self {
            Val::C(b) => Some(f32::from_bits(b)),
            _ => None,
        }
    }
}

/// A forward or backward jump target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Label(pub(crate) u32);

/// Limits that keep a hostile shader from exhausting memory at compile time.
pub(crate) const MAX_INSTRUCTIONS: usize = 1 << 20;

/// The instruction stream being built.
pub(crate) struct Builder {
    pub(crate) code: Vec<Inst>,
    consts: Vec<f32>,
    const_regs: HashMap<u32, Reg>,
    /// Virtual varying registers made so far.
    pub(crate) n_v: u32,
    /// Virtual uniform registers made so far (constants are separate, see `finish`).
    pub(crate) n_u: u32,
    /// Mask slots made so far.
    pub(crate) n_slots: Slot,
    labels: Vec<Option<u32>>,
    /// Loops as (first pc, pc of the back jump), for register allocation.
    pub(crate) loops: Vec<(u32, u32)>,
}

/// Uniform virtual registers at or above this index are constants until `finish` renumbers
/// them; keeps the two kinds apart while both grow.
const CONST_BASE: Reg = 1 << 30;

impl Builder {
    pub(crate) fn new() -> Self {
        Self {
            code: Vec::new(),
            consts: Vec::new(),
            const_regs: HashMap::new(),
            n_v: 0,
            n_u: 0,
            n_slots: FIRST_FREE_SLOT,
            labels: Vec::new(),
            loops: Vec::new(),
        }
    }

    pub(crate) fn new_v(&mut self) -> Reg {
        self.n_v += 1;
        self.n_v - 1
    }

    pub(crate) fn new_u(&mut self) -> Reg {
        self.n_u += 1;
        self.n_u - 1
    }

    pub(crate) fn slot(&mut self) -> Slot {
        self.n_slots = self.n_slots.saturating_add(1);
        self.n_slots - 1
    }

    pub(crate) fn push(&mut self, inst: Inst) {
        self.code.push(inst);
    }

    pub(crate) fn pc(&self) -> u32 {
        self.code.len() as u32
    }

    pub(crate) fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() as u32 - 1)
    }

    pub(crate) fn bind(&mut self, l: Label) {
        let pc = self.pc();
        if let Some(slot) = self.labels.get_mut(l.0 as usize) {
            *slot = Some(pc);
        }
    }

    pub(crate) fn jump(&mut self, l: Label) {
        self.push(Inst::Jump { to: l.0 });
    }

    /// Jumps to `l` when `cond` (uniform or constant) equals `when`.
    pub(crate) fn jump_if(&mut self, cond: Val, when: bool, l: Label) {
        match cond {
            Val::C(b) => {
                if (b != 0) == when {
                    self.jump(l);
                }
            }
            _ => {
                let cond = self.src(cond);
                self.push(Inst::JumpIf { cond, when, to: l.0 });
            }
        }
    }

    /// The operand for `v`, making a constant register when needed.
    pub(crate) fn src(&mut self, v: Val) -> Src {
        match v {
            Val::V(r) => Src::V(r),
            Val::U(r) => Src::U(r),
            Val::C(bits) => {
                let next = CONST_BASE + self.consts.len() as Reg;
                let r = *self.const_regs.entry(bits).or_insert(next);
                if r == next {
                    self.consts.push(f32::from_bits(bits));
                }
                Src::U(r)
            }
        }
    }

    fn dst_for(&mut self, varying: bool) -> (Dst, Val) {
        if varying {
            let r = self.new_v();
            (Dst::V(r), Val::V(r))
        } else {
            let r = self.new_u();
            (Dst::U(r), Val::U(r))
        }
    }

    pub(crate) fn op1(&mut self, op: Op1, a: Val) -> Val {
        if let Some(x) = a.bits() {
            return Val::C(op.eval(x).to_bits());
        }
        let (d, v) = self.dst_for(a.varying());
        let a = self.src(a);
        self.push(Inst::Op1 { op, d, a });
        v
    }

    pub(crate) fn op2(&mut self, op: Op2, a: Val, b: Val) -> Val {
        if let (Some(x), Some(y)) = (a.bits(), b.bits()) {
            return Val::C(op.eval(x, y).to_bits());
        }
        let (d, v) = self.dst_for(a.varying() || b.varying());
        let (a, b) = (self.src(a), self.src(b));
        self.push(Inst::Op2 { op, d, a, b });
        v
    }

    pub(crate) fn op3(&mut self, op: Op3, a: Val, b: Val, c: Val) -> Val {
        if let (Some(x), Some(y), Some(z)) = (a.bits(), b.bits(), c.bits()) {
            return Val::C(op.eval(x, y, z).to_bits());
        }
        if op == Op3::Select {
            // A known condition, or equal arms, need no instruction.
            if let Val::C(cond) = c {
                return if cond != 0 { b } else { a };
            }
            if a == b {
                return a;
            }
        }
        let (d, v) = self.dst_for(a.varying() || b.varying() || c.varying());
        let (a, b, c) = (self.src(a), self.src(b), self.src(c));
        self.push(Inst::Op3 { op, d, a, b, c });
        v
    }

    /// A fresh register holding `a` (varying if `varying`).
    pub(crate) fn copy(&mut self, a: Val, varying: bool) -> Val {
        let (d, v) = self.dst_for(varying || a.varying());
        let a = self.src(a);
        self.push(Inst::Copy { d, a });
        v
    }

    /// Writes `a` into the variable register `d` (all lanes, or the running lanes when
    /// `masked`).
    pub(crate) fn write(&mut self, d: Val, a: Val, masked: bool) {
        let a = self.src(a);
        match d {
            Val::V(r) if masked => self.push(Inst::Blend { d: r, a }),
            Val::V(r) => self.push(Inst::Copy { d: Dst::V(r), a }),
            Val::U(r) => self.push(Inst::Copy { d: Dst::U(r), a }),
            Val::C(_) => {}
        }
    }

    /// `list[idx + add]`, clamped to the list.
    pub(crate) fn gather(&mut self, list: &[Val], idx: Val, add: u32) -> Val {
        let Some(&first) = list.first() else { return Val::C(0) };
        if let Val::C(i) = idx {
            let at = (i as u64 + u64::from(add)).min(list.len() as u64 - 1) as usize;
            return list[at];
        }
        if list.iter().all(|&v| v == first) {
            return first;
        }
        let varying = idx.varying() || list.iter().any(|v| v.varying());
        let (d, v) = self.dst_for(varying);
        let list = list.iter().map(|&v| self.src(v)).collect();
        let idx = self.src(idx);
        self.push(Inst::Gather { d, list, idx, add });
        v
    }

    /// Finishes the stream: resolves labels and places constants after the uniform
    /// registers. Returns the constants (uniform registers `n_u..n_u + consts.len()`).
    pub(crate) fn finish(&mut self) -> Vec<f32> {
        let labels = std::mem::take(&mut self.labels);
        let end = self.pc();
        let n_u = self.n_u;
        for inst in &mut self.code {
            if let Some(to) = inst.target_mut() {
                *to = labels.get(*to as usize).copied().flatten().unwrap_or(end);
            }
            inst.visit_regs(|r| {
                if !r.varying && *r.reg >= CONST_BASE {
                    *r.reg = *r.reg - CONST_BASE + n_u;
                }
            });
        }
        std::mem::take(&mut self.consts)
    }
}
