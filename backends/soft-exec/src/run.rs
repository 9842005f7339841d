//! The interpreter: runs a program's instructions over one batch of lanes.
//!
//! Each instruction does its work for all 64 lanes in a tight loop the compiler vectorises,
//! or once for a uniform result, so dispatch costs one branch per 64 lanes. Lanes outside
//! `exec` still compute (their values are never stored into variables or outputs), which
//! keeps every loop branch-free and gives derivatives their helper lanes.
//!
//! On x86-64 CPUs with AVX2 the same code is compiled a second time with AVX2 and FMA
//! enabled and chosen at run time. Shader arithmetic is bit-identical on both (the compiler
//! never fuses a separate multiply and add); the one difference is the sRGB decode of
//! sampled texels, whose polynomial uses fused multiply-adds on the AVX2 path (within an
//! ULP of the unfused result, both within 1e-5 of the exact curve).

use super::ir::{DerivAxis, Dst, ENTRY_SLOT, Inst, KILL_SLOT, NO_SLOT, Src, TexKind};
use super::ops::{Arg, Lanes, Op1, Op2, Op3};
use super::texture::{self, Bindings};
use super::{LANES, Program};

const ZERO: Lanes = [0.0; LANES];

/// Loop back-jumps allowed per batch before the batch is abandoned (a GPU's watchdog would
/// reset the device; here the batch's lanes are reported as discarded).
pub(crate) const MAX_BACK_JUMPS: u64 = 1 << 24;

/// A varying or uniform operand of a prepared step: a register index, with
/// [`UNIFORM`] set for uniform registers.
type Opnd = u32;

/// The flag of uniform operands in an [`Opnd`].
const UNIFORM: u32 = 1 << 31;

/// An instruction as the interpreter runs it: element-wise operations on varying registers
/// (the bulk of every shader) get a compact form with operands already decoded (`Opnd`),
/// and `shape` says which operands are uniform (bit `i` for operand `i`), so each shape
/// runs code with no per-operand decisions left; everything else runs as the instruction
/// itself.
pub(crate) enum Step {
    /// `d = op(a)`, `d` varying.
    V1 { op: Op1, d: u32, a: Opnd },
    /// `d = op(a, b)`, `d` varying.
    V2 { op: Op2, shape: u8, d: u32, a: Opnd, b: Opnd },
    /// `d = op(a, b, c)`, `d` varying.
    V3 { op: Op3, shape: u8, d: u32, a: Opnd, b: Opnd, c: Opnd },
    /// Up to four consecutive `V2` steps of the same operation and shape (the components of
    /// a vector operation), run in order by one dispatch; members are `[d, a, b]`.
    G2 { op: Op2, shape: u8, n: u8, m: [[u32; 3]; 4] },
    /// Up to four consecutive `V3` steps, as `G2`; members are `[d, a, b, c]`.
    G3 { op: Op3, shape: u8, n: u8, m: [[u32; 4]; 4] },
    /// The place of a step folded into the group before it (never reached: the group
    /// skips it).
    Folded,
    /// Anything else.
    Any(Inst),
}

/// Prepares `code` for a register file of `n_v` varying registers. A compact step is made
/// only when every varying register it names is below `n_v`: the interpreter's unchecked
/// register access relies on exactly that.
pub(crate) fn prepare(code: &[Inst], n_v: u32) -> Vec<Step> {
    let opnd = |s: Src| match s {
        Src::V(r) if r < n_v => Some(r),
        Src::V(_) => None,
        Src::U(r) if r < UNIFORM => Some(r | UNIFORM),
        Src::U(_) => None,
    };
    let shape =
        |ops: &[Opnd]| ops.iter().enumerate().fold(0u8, |m, (i, x)| m | (u8::from(x & UNIFORM != 0) << i));
    let steps = code
        .iter()
        .map(|inst| {
            let step = match *inst {
                Inst::Op1 { op, d: Dst::V(d), a } if d < n_v => {
                    opnd(a).filter(|a| a & UNIFORM == 0).map(|a| Step::V1 { op, d, a })
                }
                Inst::Op2 { op, d: Dst::V(d), a, b } if d < n_v => opnd(a)
                    .zip(opnd(b))
                    .filter(|&(a, b)| shape(&[a, b]) != 3)
                    .map(|(a, b)| Step::V2 { op, shape: shape(&[a, b]), d, a, b }),
                Inst::Op3 { op, d: Dst::V(d), a, b, c } if d < n_v => opnd(a)
                    .zip(opnd(b))
                    .zip(opnd(c))
                    .filter(|&((a, b), c)| shape(&[a, b, c]) != 7)
                    .map(|((a, b), c)| Step::V3 { op, shape: shape(&[a, b, c]), d, a, b, c }),
                _ => None,
            };
            step.unwrap_or_else(|| Step::Any(inst.clone()))
        })
        .collect::<Vec<_>>();
    group(code, steps)
}

/// Folds runs of element-wise steps into group steps. A run never spans a jump target (a
/// jump must land on a step that runs), and its members never write a register they read
/// themselves (members run in order, so they may read each other's results).
fn group(code: &[Inst], mut steps: Vec<Step>) -> Vec<Step> {
    let mut target = vec![false; steps.len() + 1];
    for inst in code {
        if let Some(t) = inst.clone().target_mut()
            && let Some(slot) = target.get_mut(*t as usize)
        {
            *slot = true;
        }
    }
    let mut i = 0;
    while i < steps.len() {
        match steps[i] {
            Step::V2 { op, shape, .. } => {
                let mut m = [[0u32; 3]; 4];
                let mut n = 0;
                while n < 4 && i + n < steps.len() && (n == 0 || !target[i + n]) {
                    match steps[i + n] {
                        Step::V2 { op: o, shape: s, d, a, b }
                            if o == op && s == shape && a != d && b != d =>
                        {
                            m[n] = [d, a, b];
                            n += 1;
                        }
                        _ => break,
                    }
                }
                if n > 1 {
                    steps[i] = Step::G2 { op, shape, n: n as u8, m };
                    for s in &mut steps[i + 1..i + n] {
                        *s = Step::Folded;
                    }
                }
                i += n.max(1);
            }
            Step::V3 { op, shape, .. } => {
                let mut m = [[0u32; 4]; 4];
                let mut n = 0;
                while n < 4 && i + n < steps.len() && (n == 0 || !target[i + n]) {
                    match steps[i + n] {
                        Step::V3 { op: o, shape: s, d, a, b, c }
                            if o == op && s == shape && a != d && b != d && c != d =>
                        {
                            m[n] = [d, a, b, c];
                            n += 1;
                        }
                        _ => break,
                    }
                }
                if n > 1 {
                    steps[i] = Step::G3 { op, shape, n: n as u8, m };
                    for s in &mut steps[i + 1..i + n] {
                        *s = Step::Folded;
                    }
                }
                i += n.max(1);
            }
            _ => i += 1,
        }
    }
    steps
}

/// Varying operand `x`.
///
/// # Safety
///
/// `base` points at a register file of at least `n_v` registers, `x` is a varying operand
/// `prepare` checked against `n_v`, and no `&mut` to register `x` is alive for `'a`.
#[inline(always)]
unsafe fn vreg<'a>(base: *const Lanes, x: Opnd) -> Arg<'a> {
    // SAFETY: in bounds and not mutably borrowed, by this function's contract.
    Arg::V(unsafe { &*base.add(x as usize) })
}

/// Uniform operand `x`.
#[inline(always)]
fn sreg<'a>(u: &[f32], x: Opnd) -> Arg<'a> {
    Arg::S(u.get((x & !UNIFORM) as usize).copied().unwrap_or(0.0))
}

/// Operand `x` read safely from the whole file (the rare step whose destination is also
/// an operand computes into a temporary first).
#[inline(always)]
fn opnd_all<'a>(v: &'a [Lanes], u: &[f32], x: Opnd) -> Arg<'a> {
    if x & UNIFORM != 0 {
        Arg::S(u.get((x & !UNIFORM) as usize).copied().unwrap_or(0.0))
    } else {
        Arg::V(v.get(x as usize).unwrap_or(&ZERO))
    }
}

/// One register in memory, aligned to a cache line so the lane loops' vector loads and
/// stores never straddle two lines.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
struct Block([f32; LANES]);

// `Block` must be exactly a `Lanes` (no padding) for the casts below.
const _: () = assert!(std::mem::size_of::<Block>() == std::mem::size_of::<Lanes>());

/// The varying registers of one executor.
pub(crate) struct RegisterFile {
    blocks: Vec<Block>,
}

impl RegisterFile {
    pub(crate) fn new(n: usize) -> Self {
        Self { blocks: vec![Block([0.0; LANES]); n] }
    }

    pub(crate) fn lanes(&self) -> &[Lanes] {
        // SAFETY: `Block` is `repr(C)` around exactly one `Lanes` (its size equals `Lanes`'s,
        // checked above, so there is no padding) and is at least as aligned, so `len` blocks
        // are `len` valid, initialised `Lanes` borrowed for as long as `self`.
        unsafe { std::slice::from_raw_parts(self.blocks.as_ptr().cast::<Lanes>(), self.blocks.len()) }
    }

    pub(crate) fn lanes_mut(&mut self) -> &mut [Lanes] {
        // SAFETY: as in `lanes`, and the borrow of `self` is unique, so the slice is too.
        unsafe { std::slice::from_raw_parts_mut(self.blocks.as_mut_ptr().cast::<Lanes>(), self.blocks.len()) }
    }
}

/// The mutable state of one batch.
pub(crate) struct State {
    pub(crate) v: RegisterFile,
    pub(crate) u: Vec<f32>,
    pub(crate) m: Vec<u64>,
    pub(crate) tex: TexScratch,
}

/// The registers except `d`, readable while `d` is written.
struct Regs<'a> {
    lo: &'a [Lanes],
    hi: &'a [Lanes],
    d: usize,
}

impl<'a> Regs<'a> {
    #[inline(always)]
    fn get(&self, r: u32) -> &'a Lanes {
        let r = r as usize;
        if r < self.d {
            self.lo.get(r).unwrap_or(&ZERO)
        } else if r > self.d {
            self.hi.get(r - self.d - 1).unwrap_or(&ZERO)
        } else {
            &ZERO
        }
    }
}

/// Splits the register file into register `d` and the rest.
#[inline(always)]
fn split(v: &mut [Lanes], d: u32) -> Option<(&mut Lanes, Regs<'_>)> {
    let d = d as usize;
    if d >= v.len() {
        return None;
    }
    let (lo, rest) = v.split_at_mut(d);
    let (dst, hi) = rest.split_first_mut()?;
    Some((dst, Regs { lo, hi, d }))
}

/// An operand read from the whole register file (for the rare instruction that writes a
/// register it also reads: it computes into a temporary first).
#[inline(always)]
fn arg_all<'a>(v: &'a [Lanes], u: &[f32], s: Src) -> Arg<'a> {
    match s {
        Src::V(r) => Arg::V(v.get(r as usize).unwrap_or(&ZERO)),
        Src::U(r) => Arg::S(u.get(r as usize).copied().unwrap_or(0.0)),
    }
}

#[inline(always)]
fn store(v: &mut [Lanes], d: u32, x: &Lanes) {
    if let Some(reg) = v.get_mut(d as usize) {
        *reg = *x;
    }
}

#[inline(always)]
fn arg<'a>(regs: &Regs<'a>, u: &[f32], s: Src) -> Arg<'a> {
    match s {
        Src::V(r) => Arg::V(regs.get(r)),
        Src::U(r) => Arg::S(u.get(r as usize).copied().unwrap_or(0.0)),
    }
}

/// A uniform operand's value (lane 0 if a varying one slips through).
#[inline(always)]
fn scalar(v: &[Lanes], u: &[f32], s: Src) -> f32 {
    match s {
        Src::U(r) => u.get(r as usize).copied().unwrap_or(0.0),
        Src::V(r) => v.get(r as usize).map_or(0.0, |x| x[0]),
    }
}

/// An operand as lanes (uniforms broadcast).
#[inline(always)]
fn lanes(v: &[Lanes], u: &[f32], s: Src) -> Lanes {
    match s {
        Src::V(r) => v.get(r as usize).copied().unwrap_or(ZERO),
        Src::U(r) => [u.get(r as usize).copied().unwrap_or(0.0); LANES],
    }
}

/// The lanes whose boolean is true.
#[inline(always)]
fn mask_of(b: &Lanes) -> u64 {
    let mut m = 0u64;
    for (l, x) in b.iter().enumerate() {
        m |= u64::from(x.to_bits() != 0) << l;
    }
    m
}

#[inline(always)]
fn slot(m: &[u64], s: u16) -> u64 {
    m.get(usize::from(s)).copied().unwrap_or(0)
}

#[inline(always)]
fn set_slot(m: &mut [u64], s: u16, x: u64) {
    if s != NO_SLOT
        && let Some(p) = m.get_mut(usize::from(s))
    {
        *p = x;
    }
}

#[inline(always)]
fn read_u32(bytes: &[u8], at: u64) -> u32 {
    let at = at as usize;
    match bytes.get(at..at.wrapping_add(4)) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        None => 0,
    }
}

/// The elements of a runtime-sized array at byte `offset` of `bytes`, `stride` bytes apart
/// (0 when `bytes` ends before `offset`; buffers past 4 GiB count as 4 GiB, the most a `u32`
/// offset reaches).
fn array_length(bytes: &[u8], offset: u32, stride: u32) -> u32 {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    len.saturating_sub(offset) / stride.max(1)
}

/// Runs `program` over one batch; `entry` is the set of lanes that start.
pub(crate) fn run(program: &Program, st: &mut State, bindings: &Bindings<'_>, entry: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        if program.avx2 {
            // SAFETY: `run_avx2` only needs the CPU to support AVX2 and FMA, and
            // `program.avx2` is true only when `is_x86_feature_detected!` found both on
            // this machine (see `Program::compile`).
            unsafe { run_avx2(program, st, bindings, entry) };
            return;
        }
    }
    interpret::<false>(program, st, bindings, entry);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2(program: &Program, st: &mut State, bindings: &Bindings<'_>, entry: u64) {
    interpret::<true>(program, st, bindings, entry);
}

#[inline(always)]
fn interpret<const FMA: bool>(program: &Program, st: &mut State, bindings: &Bindings<'_>, entry: u64) {
    let code = &program.steps[..];
    let State { v, u, m, tex } = st;
    let (v, u, m) = (v.lanes_mut(), &mut u[..], &mut m[..]);
    // The steps were prepared for `program.n_v` registers; a file of another size (which
    // `Executor` never makes) runs nothing rather than anything unchecked.
    if v.len() != program.n_v as usize {
        return;
    }
    m.fill(0);
    set_slot(m, ENTRY_SLOT, entry);
    let mut exec = entry;
    let mut pc = 0usize;
    let mut back_jumps = 0u64;
    while let Some(step) = code.get(pc) {
        pc += 1;
        let inst = match step {
            Step::V1 { op, d, a } => {
                let d = *d as usize;
                if *a as usize == d {
                    let mut out = ZERO;
                    op.run(&mut out, opnd_all(v, u, *a));
                    store(v, d as u32, &out);
                } else {
                    let base = v.as_mut_ptr();
                    // SAFETY: `prepare` checked `d` and `a` (a varying operand) against
                    // `program.n_v`, which is `v.len()` (checked on entry); `d` differs from
                    // `a` (checked above), so the `&mut` does not overlap it.
                    unsafe { op.run(&mut *base.add(d), vreg(base, *a)) };
                }
                continue;
            }
            Step::V2 { op, shape, d, a, b } => {
                let d = *d as usize;
                if *a as usize == d || *b as usize == d {
                    let mut out = ZERO;
                    op.run(&mut out, opnd_all(v, u, *a), opnd_all(v, u, *b));
                    store(v, d as u32, &out);
                } else {
                    let base = v.as_mut_ptr();
                    // SAFETY: `prepare` checked `d` and every varying operand against
                    // `program.n_v`, which is `v.len()` (checked on entry); `d` is none of
                    // the operands (checked above), so the `&mut` overlaps no operand; `shape`
                    // says which operands are varying.
                    unsafe {
                        let dst = &mut *base.add(d);
                        match shape {
                            0 => op.run(dst, vreg(base, *a), vreg(base, *b)),
                            1 => op.run(dst, sreg(u, *a), vreg(base, *b)),
                            _ => op.run(dst, vreg(base, *a), sreg(u, *b)),
                        }
                    }
                }
                continue;
            }
            Step::V3 { op, shape, d, a, b, c } => {
                let d = *d as usize;
                if *a as usize == d || *b as usize == d || *c as usize == d {
                    let mut out = ZERO;
                    op.run(&mut out, opnd_all(v, u, *a), opnd_all(v, u, *b), opnd_all(v, u, *c));
                    store(v, d as u32, &out);
                } else {
                    let base = v.as_mut_ptr();
                    // SAFETY: as for `V2`.
                    unsafe {
                        let dst = &mut *base.add(d);
                        let (a, b, c) = (*a, *b, *c);
                        match shape {
                            0 => op.run(dst, vreg(base, a), vreg(base, b), vreg(base, c)),
                            1 => op.run(dst, sreg(u, a), vreg(base, b), vreg(base, c)),
                            2 => op.run(dst, vreg(base, a), sreg(u, b), vreg(base, c)),
                            3 => op.run(dst, sreg(u, a), sreg(u, b), vreg(base, c)),
                            4 => op.run(dst, vreg(base, a), vreg(base, b), sreg(u, c)),
                            5 => op.run(dst, sreg(u, a), vreg(base, b), sreg(u, c)),
                            _ => op.run(dst, vreg(base, a), sreg(u, b), sreg(u, c)),
                        }
                    }
                }
                continue;
            }
            Step::G2 { op, shape, n, m } => {
                let n = usize::from(*n).min(4);
                let base = v.as_mut_ptr();
                for &[d, a, b] in &m[..n] {
                    // SAFETY: as for `V2`: `prepare` checked every index against `v.len()`
                    // and grouped only members whose destination is none of their operands.
                    unsafe {
                        let dst = &mut *base.add(d as usize);
                        match shape {
                            0 => op.run(dst, vreg(base, a), vreg(base, b)),
                            1 => op.run(dst, sreg(u, a), vreg(base, b)),
                            _ => op.run(dst, vreg(base, a), sreg(u, b)),
                        }
                    }
                }
                pc += n - 1;
                continue;
            }
            Step::G3 { op, shape, n, m } => {
                let n = usize::from(*n).min(4);
                let base = v.as_mut_ptr();
                for &[d, a, b, c] in &m[..n] {
                    // SAFETY: as for `G2`.
                    unsafe {
                        let dst = &mut *base.add(d as usize);
                        match shape {
                            0 => op.run(dst, vreg(base, a), vreg(base, b), vreg(base, c)),
                            1 => op.run(dst, sreg(u, a), vreg(base, b), vreg(base, c)),
                            2 => op.run(dst, vreg(base, a), sreg(u, b), vreg(base, c)),
                            3 => op.run(dst, sreg(u, a), sreg(u, b), vreg(base, c)),
                            4 => op.run(dst, vreg(base, a), vreg(base, b), sreg(u, c)),
                            5 => op.run(dst, sreg(u, a), vreg(base, b), sreg(u, c)),
                            _ => op.run(dst, vreg(base, a), sreg(u, b), sreg(u, c)),
                        }
                    }
                }
                pc += n - 1;
                continue;
            }
            Step::Folded => continue,
            Step::Any(inst) => inst,
        };
        match inst {
            Inst::Op1 { op, d, a } => match *d {
                Dst::V(d) if *a == Src::V(d) => {
                    let mut out = ZERO;
                    op.run(&mut out, arg_all(v, u, *a));
                    store(v, d, &out);
                }
                Dst::V(d) => {
                    if let Some((dst, regs)) = split(v, d) {
                        op.run(dst, arg(&regs, u, *a));
                    }
                }
                Dst::U(d) => {
                    let x = op.eval(scalar(v, u, *a));
                    if let Some(p) = u.get_mut(d as usize) {
                        *p = x;
                    }
                }
            },
            Inst::Op2 { op, d, a, b } => match *d {
                Dst::V(d) if *a == Src::V(d) || *b == Src::V(d) => {
                    let mut out = ZERO;
                    op.run(&mut out, arg_all(v, u, *a), arg_all(v, u, *b));
                    store(v, d, &out);
                }
                Dst::V(d) => {
                    if let Some((dst, regs)) = split(v, d) {
                        op.run(dst, arg(&regs, u, *a), arg(&regs, u, *b));
                    }
                }
                Dst::U(d) => {
                    let x = op.eval(scalar(v, u, *a), scalar(v, u, *b));
                    if let Some(p) = u.get_mut(d as usize) {
                        *p = x;
                    }
                }
            },
            Inst::Op3 { op, d, a, b, c } => match *d {
                Dst::V(d) if *a == Src::V(d) || *b == Src::V(d) || *c == Src::V(d) => {
                    let mut out = ZERO;
                    op.run(&mut out, arg_all(v, u, *a), arg_all(v, u, *b), arg_all(v, u, *c));
                    store(v, d, &out);
                }
                Dst::V(d) => {
                    if let Some((dst, regs)) = split(v, d) {
                        op.run(dst, arg(&regs, u, *a), arg(&regs, u, *b), arg(&regs, u, *c));
                    }
                }
                Dst::U(d) => {
                    let x = op.eval(scalar(v, u, *a), scalar(v, u, *b), scalar(v, u, *c));
                    if let Some(p) = u.get_mut(d as usize) {
                        *p = x;
                    }
                }
            },
            Inst::Copy { d, a } => match *d {
                Dst::V(d) => {
                    if *a != Src::V(d)
                        && let Some((dst, regs)) = split(v, d)
                    {
                        match arg(&regs, u, *a) {
                            Arg::V(x) => *dst = *x,
                            Arg::S(x) => *dst = [x; LANES],
                        }
                    }
                }
                Dst::U(d) => {
                    let x = scalar(v, u, *a);
                    if let Some(p) = u.get_mut(d as usize) {
                        *p = x;
                    }
                }
            },
            Inst::Blend { d, a } => {
                if let Some((dst, regs)) = split(v, *d) {
                    match arg(&regs, u, *a) {
                        Arg::V(x) => {
                            for l in 0..LANES {
                                if exec >> l & 1 != 0 {
                                    dst[l] = x[l];
                                }
                            }
                        }
                        Arg::S(x) => {
                            for l in 0..LANES {
                                if exec >> l & 1 != 0 {
                                    dst[l] = x;
                                }
                            }
                        }
                    }
                }
            }
            Inst::Gather { d, list, idx, add } => {
                let last = list.len().saturating_sub(1) as u64;
                match *d {
                    Dst::U(d) => {
                        let i =
                            (u64::from(scalar(v, u, *idx).to_bits()) + u64::from(*add)).min(last) as usize;
                        let x = list.get(i).map_or(0.0, |&s| scalar(v, u, s));
                        if let Some(p) = u.get_mut(d as usize) {
                            *p = x;
                        }
                    }
                    Dst::V(d) => {
                        let ix = lanes(v, u, *idx);
                        if let Some((dst, regs)) = split(v, d) {
                            for l in 0..LANES {
                                let i = (u64::from(ix[l].to_bits()) + u64::from(*add)).min(last) as usize;
                                dst[l] = match list.get(i) {
                                    Some(Src::V(r)) => regs.get(*r)[l],
                                    Some(Src::U(r)) => u.get(*r as usize).copied().unwrap_or(0.0),
                                    None => 0.0,
                                };
                            }
                        }
                    }
                }
            }
            Inst::Scatter { list, idx, add, a, masked } => {
                let last = list.len().saturating_sub(1) as u64;
                let value = lanes(v, u, *a);
                let ix = lanes(v, u, *idx);
                let lane_on = |l: usize| !*masked || exec >> l & 1 != 0;
                for l in 0..LANES {
                    if !lane_on(l) {
                        continue;
                    }
                    let i = (u64::from(ix[l].to_bits()) + u64::from(*add)).min(last) as usize;
                    match list.get(i) {
                        Some(Src::V(r)) => {
                            if let Some(reg) = v.get_mut(*r as usize) {
                                reg[l] = value[l];
                            }
                        }
                        Some(Src::U(r)) => {
                            if let Some(p) = u.get_mut(*r as usize) {
                                *p = value[l];
                            }
                        }
                        None => {}
                    }
                }
            }
            Inst::Deriv { d, a, axis, fine } => {
                if let Some((dst, regs)) = split(v, *d) {
                    derivative(dst, regs.get(*a), *axis, *fine);
                }
            }
            Inst::UniformLoad { d, res, offset, idx, stride } => {
                let bytes = bindings.uniform(*res);
                match *d {
                    Dst::U(d) => {
                        let i = idx.map_or(0, |s| scalar(v, u, s).to_bits());
                        let at = u64::from(*offset) + u64::from(i) * u64::from(*stride);
                        if let Some(p) = u.get_mut(d as usize) {
                            *p = f32::from_bits(read_u32(bytes, at));
                        }
                    }
                    Dst::V(d) => {
                        let ix = idx.map_or(ZERO, |s| lanes(v, u, s));
                        if let Some(dst) = v.get_mut(d as usize) {
                            for l in 0..LANES {
                                let at = u64::from(*offset) + u64::from(ix[l].to_bits()) * u64::from(*stride);
                                dst[l] = f32::from_bits(read_u32(bytes, at));
                            }
                        }
                    }
                }
            }
            Inst::ArrayLength { d, res, offset, stride } => {
                let n = array_length(bindings.uniform(*res), *offset, *stride);
                match *d {
                    Dst::U(d) => {
                        if let Some(p) = u.get_mut(d as usize) {
                            *p = f32::from_bits(n);
                        }
                    }
                    Dst::V(d) => {
                        if let Some(dst) = v.get_mut(d as usize) {
                            *dst = [f32::from_bits(n); LANES];
                        }
                    }
                }
            }
            Inst::Texture(op) => texture_op::<FMA>(op, v, u, bindings, tex),
            Inst::TexQuery { d, res, query, level } => {
                let Some(tex) = bindings.texture(*res) else { continue };
                match *d {
                    Dst::U(d) => {
                        let lv = level.map_or(0, |s| scalar(v, u, s).to_bits());
                        if let Some(p) = u.get_mut(d as usize) {
                            *p = f32::from_bits(texture::query(tex, *query, lv));
                        }
                    }
                    Dst::V(d) => {
                        let lv = level.map_or(ZERO, |s| lanes(v, u, s));
                        if let Some(dst) = v.get_mut(d as usize) {
                            for l in 0..LANES {
                                dst[l] = f32::from_bits(texture::query(tex, *query, lv[l].to_bits()));
                            }
                        }
                    }
                }
            }
            Inst::Jump { to } => {
                if (*to as usize) < pc {
                    back_jumps += 1;
                    if back_jumps > MAX_BACK_JUMPS {
                        set_slot(m, KILL_SLOT, entry);
                        break;
                    }
                }
                pc = *to as usize;
            }
            Inst::JumpIf { cond, when, to } => {
                if (scalar(v, u, *cond).to_bits() != 0) == *when {
                    pc = *to as usize;
                }
            }
            Inst::JumpIfNoLanes { to } => {
                if exec == 0 {
                    pc = *to as usize;
                }
            }
            Inst::JumpIfAllKilled { to } => {
                if slot(m, ENTRY_SLOT) & !slot(m, KILL_SLOT) == 0 {
                    pc = *to as usize;
                }
            }
            Inst::IfV { cond, save, skip } => {
                set_slot(m, *save, exec);
                exec &= v.get(*cond as usize).map_or(0, mask_of);
                if exec == 0 {
                    pc = *skip as usize;
                }
            }
            Inst::ElseV { cond, save, exits, skip } => {
                let left = exits.iter().fold(0, |acc, &s| acc | slot(m, s));
                exec = slot(m, *save) & !v.get(*cond as usize).map_or(0, mask_of) & !left;
                if exec == 0 {
                    pc = *skip as usize;
                }
            }
            Inst::Restore { save, exits } => {
                let left = exits.iter().fold(0, |acc, &s| acc | slot(m, s));
                exec = slot(m, *save) & !left;
            }
            Inst::ExitLanes { slot: s } => {
                let x = slot(m, *s) | exec;
                set_slot(m, *s, x);
                exec = 0;
            }
            Inst::MaskZero { slot: s } => set_slot(m, *s, 0),
            Inst::MaskSave { slot: s } => set_slot(m, *s, exec),
            Inst::MergeLanes { slot: s } => exec |= slot(m, *s),
            Inst::SetExec { slot: s } => exec = slot(m, *s),
            Inst::BreakIf { cond, brk } => {
                let c = match *cond {
                    Src::V(r) => v.get(r as usize).map_or(0, mask_of),
                    Src::U(_) => {
                        if scalar(v, u, *cond).to_bits() != 0 {
                            u64::MAX
                        } else {
                            0
                        }
                    }
                };
                let leaving = exec & c;
                let x = slot(m, *brk) | leaving;
                set_slot(m, *brk, x);
                exec &= !leaving;
            }
            Inst::LoopBack { to } => {
                if exec != 0 {
                    back_jumps += 1;
                    if back_jumps > MAX_BACK_JUMPS {
                        set_slot(m, KILL_SLOT, entry);
                        break;
                    }
                    pc = *to as usize;
                }
            }
            Inst::CaseV { sel, value, values, save, carry, skip } => {
                let sel = lanes(v, u, *sel);
                let mut chosen = 0u64;
                for (l, x) in sel.iter().enumerate() {
                    let bits = x.to_bits();
                    let hit = match value {
                        Some(want) => bits == *want,
                        None => !values.contains(&bits),
                    };
                    chosen |= u64::from(hit) << l;
                }
                exec = (slot(m, *save) & chosen) | slot(m, *carry);
                if exec == 0 {
                    pc = *skip as usize;
                }
            }
            Inst::Carry { carry, fall } => set_slot(m, *carry, if *fall { exec } else { 0 }),
            Inst::Kill => {
                let x = slot(m, KILL_SLOT) | exec;
                set_slot(m, KILL_SLOT, x);
                exec = 0;
            }
            Inst::End => break,
        }
    }
}

#[inline(always)]
fn derivative(dst: &mut Lanes, a: &Lanes, axis: DerivAxis, fine: bool) {
    for q in 0..LANES / 4 {
        let i = 4 * q;
        let (p0, p1, p2, p3) = (a[i], a[i + 1], a[i + 2], a[i + 3]);
        let (dx_top, dx_bottom, dy_left, dy_right) =
            if fine { (p1 - p0, p3 - p2, p2 - p0, p3 - p1) } else { (p1 - p0, p1 - p0, p2 - p0, p2 - p0) };
        let dx = [dx_top, dx_top, dx_bottom, dx_bottom];
        let dy = [dy_left, dy_right, dy_left, dy_right];
        for k in 0..4 {
            dst[i + k] = match axis {
                DerivAxis::X => dx[k],
                DerivAxis::Y => dy[k],
                DerivAxis::Width => dx[k].abs() + dy[k].abs(),
            };
        }
    }
}

/// Scratch for texture instructions: uniform operands broadcast to lanes, the result, and
/// the sampler's arrays. Allocated with the executor; nothing is allocated per sample.
pub(crate) struct TexScratch {
    pool: Box<[Lanes; 12]>,
    out: [Lanes; 4],
    sample: Box<texture::SampleScratch>,
}

impl TexScratch {
    pub(crate) fn new() -> Self {
        Self { pool: Box::new([ZERO; 12]), out: [ZERO; 4], sample: texture::SampleScratch::new() }
    }
}

/// Runs a texture instruction. Varying operands are read in place; the result is written
/// to its registers only after sampling, so it may overwrite the operands.
#[inline(always)]
fn texture_op<const FMA: bool>(
    op: &super::ir::TexOp,
    v: &mut [Lanes],
    u: &[f32],
    bindings: &Bindings<'_>,
    scratch: &mut TexScratch,
) {
    use super::ir::LevelArg;
    let n = usize::from(op.dst_len).min(4);
    let TexScratch { pool, out, sample } = scratch;
    let Some(tex) = bindings.texture(op.texture) else {
        for &d in &op.dst[..n] {
            store(v, d, &ZERO);
        }
        return;
    };
    // Operand slots: 0-2 coordinates, 3 layer, 4 level/bias, 5 reference, 6-8 and 9-11
    // gradients.
    let mut srcs: [Option<Src>; 12] = [None; 12];
    srcs[..3].copy_from_slice(&op.coord.map(Some));
    srcs[3] = op.array_index;
    match &op.kind {
        TexKind::Sample { level, depth_ref, .. } => {
            match level {
                LevelArg::Exact(s) | LevelArg::Bias(s) => srcs[4] = Some(*s),
                LevelArg::Grad(x, y) => {
                    for i in 0..3 {
                        srcs[6 + i] = Some(x[i]);
                        srcs[9 + i] = Some(y[i]);
                    }
                }
                LevelArg::Auto | LevelArg::Zero => {}
            }
            srcs[5] = *depth_ref;
        }
        TexKind::Load { level } => srcs[4] = *level,
    }
    for (slot, s) in pool.iter_mut().zip(&srcs) {
        if let Some(Src::U(r)) = s {
            *slot = [u.get(*r as usize).copied().unwrap_or(0.0); LANES];
        }
    }
    {
        let v: &[Lanes] = v;
        let pool: &[Lanes; 12] = pool;
        let get = |i: usize| -> &Lanes {
            match srcs[i] {
                Some(Src::V(r)) => v.get(r as usize).unwrap_or(&ZERO),
                Some(Src::U(_)) => &pool[i],
                None => &ZERO,
            }
        };
        match &op.kind {
            TexKind::Sample { level, depth_ref, gather, clamp_to_edge, offset } => {
                let Some(samp) = bindings.sampler(op.sampler) else {
                    *out = [ZERO; 4];
                    return;
                };
                let lod = match level {
                    LevelArg::Auto => texture::Lod::Auto,
                    LevelArg::Zero => texture::Lod::Zero,
                    LevelArg::Exact(_) => texture::Lod::Exact(get(4)),
                    LevelArg::Bias(_) => texture::Lod::Bias(get(4)),
                    LevelArg::Grad(..) => {
                        texture::Lod::Grad([get(6), get(7), get(8)], [get(9), get(10), get(11)])
                    }
                };
                let input = texture::SampleIn {
                    coord: [get(0), get(1), get(2)],
                    layer: op.array_index.map(|_| get(3)),
                    lod,
                    depth_ref: depth_ref.map(|_| get(5)),
                    gather: *gather,
                    clamp_to_edge: *clamp_to_edge,
                    offset: *offset,
                };
                texture::sample::<FMA>(tex, samp, &input, sample, out, n);
            }
            TexKind::Load { level } => {
                texture::load::<FMA>(
                    tex,
                    [get(0), get(1)],
                    op.array_index.map(|_| get(3)),
                    level.map(|_| get(4)),
                    out,
                    n,
                );
            }
        }
    }
    for (k, &d) in op.dst[..n].iter().enumerate() {
        store(v, d, &out[k]);
    }
}
