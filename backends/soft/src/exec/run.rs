//! The interpreter: runs a program's instructions over one batch of lanes.
//!
//! Each instruction does its work for all 64 lanes in a tight loop the compiler vectorises,
//! or once for a uniform result, so dispatch costs one branch per 64 lanes. Lanes outside
//! `exec` still compute (their values are never stored into variables or outputs), which
//! keeps every loop branch-free and gives derivatives their helper lanes.
//!
//! On x86-64 CPUs with AVX2 the same code is compiled a second time with AVX2 and FMA
//! enabled and chosen at run time; results are bit-identical (no contraction of separate
//! multiplies and adds happens on either path).

use super::ir::{DerivAxis, Dst, ENTRY_SLOT, Inst, KILL_SLOT, NO_SLOT, Src, TexKind};
use super::ops::{Arg, Lanes};
use super::texture::{self, Bindings};
use super::{LANES, Program};

const ZERO: Lanes = [0.0; LANES];

/// Loop back-jumps allowed per batch before the batch is abandoned (a GPU's watchdog would
/// reset the device; here the batch's lanes are reported as discarded).
pub(crate) const MAX_BACK_JUMPS: u64 = 1 << 24;

/// The mutable state of one batch.
pub(crate) struct State {
    pub(crate) v: Vec<Lanes>,
    pub(crate) u: Vec<f32>,
    pub(crate) m: Vec<u64>,
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
    if s != NO_SLOT {
        if let Some(p) = m.get_mut(usize::from(s)) {
            *p = x;
        }
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
    interpret(program, st, bindings, entry);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2(program: &Program, st: &mut State, bindings: &Bindings<'_>, entry: u64) {
    interpret(program, st, bindings, entry);
}

#[inline(always)]
fn interpret(program: &Program, st: &mut State, bindings: &Bindings<'_>, entry: u64) {
    let code = &program.code[..];
    let State { v, u, m } = st;
    let (v, u, m) = (&mut v[..], &mut u[..], &mut m[..]);
    m.fill(0);
    set_slot(m, ENTRY_SLOT, entry);
    let mut exec = entry;
    let mut pc = 0usize;
    let mut back_jumps = 0u64;
    while let Some(inst) = code.get(pc) {
        pc += 1;
        match inst {
            Inst::Op1 { op, d, a } => match *d {
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
                    if let Some((dst, regs)) = split(v, d) {
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
                        let i = (u64::from(scalar(v, u, *idx).to_bits()) + u64::from(*add)).min(last) as usize;
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
            Inst::Texture(op) => texture_op(op, v, u, bindings),
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
        let (dx_top, dx_bottom, dy_left, dy_right) = if fine {
            (p1 - p0, p3 - p2, p2 - p0, p3 - p1)
        } else {
            (p1 - p0, p1 - p0, p2 - p0, p2 - p0)
        };
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

/// Runs a texture instruction: operands are copied out first, so results may overwrite them.
#[inline(always)]
fn texture_op(op: &super::ir::TexOp, v: &mut [Lanes], u: &[f32], bindings: &Bindings<'_>) {
    let n = usize::from(op.dst_len).min(4);
    let mut out = [ZERO; 4];
    if let Some(tex) = bindings.texture(op.texture) {
        let c0 = lanes(v, u, op.coord[0]);
        let c1 = lanes(v, u, op.coord[1]);
        let layer = op.array_index.map(|s| lanes(v, u, s));
        match &op.kind {
            TexKind::Sample { level, depth_ref, gather, clamp_to_edge, offset } => {
                if let Some(samp) = bindings.sampler(op.sampler) {
                    let c2 = lanes(v, u, op.coord[2]);
                    let level_lanes = match level {
                        super::ir::LevelArg::Exact(s) | super::ir::LevelArg::Bias(s) => lanes(v, u, *s),
                        _ => ZERO,
                    };
                    let (gx, gy) = match level {
                        super::ir::LevelArg::Grad(x, y) => (x.map(|s| lanes(v, u, s)), y.map(|s| lanes(v, u, s))),
                        _ => ([ZERO; 3], [ZERO; 3]),
                    };
                    let reference = depth_ref.map(|s| lanes(v, u, s));
                    let lod = match level {
                        super::ir::LevelArg::Auto => texture::Lod::Auto,
                        super::ir::LevelArg::Zero => texture::Lod::Zero,
                        super::ir::LevelArg::Exact(_) => texture::Lod::Exact(&level_lanes),
                        super::ir::LevelArg::Bias(_) => texture::Lod::Bias(&level_lanes),
                        super::ir::LevelArg::Grad(..) => {
                            texture::Lod::Grad([&gx[0], &gx[1], &gx[2]], [&gy[0], &gy[1], &gy[2]])
                        }
                    };
                    let input = texture::SampleIn {
                        coord: [&c0, &c1, &c2],
                        layer: layer.as_ref(),
                        lod,
                        depth_ref: reference.as_ref(),
                        gather: *gather,
                        clamp_to_edge: *clamp_to_edge,
                        offset: *offset,
                    };
                    texture::sample(tex, samp, &input, &mut out, n);
                }
            }
            TexKind::Load { level } => {
                let lv = level.map(|s| lanes(v, u, s));
                texture::load(tex, [&c0, &c1], layer.as_ref(), lv.as_ref(), &mut out, n);
            }
        }
    }
    for (k, &d) in op.dst[..n].iter().enumerate() {
        if let Some(reg) = v.get_mut(d as usize) {
            *reg = out[k];
        }
    }
}
