//! Peephole passes over the lowered stream (virtual registers), run before register
//! allocation:
//!
//! * **Copy propagation**: a copy of a variable made by a load is dropped when the variable
//!   cannot change before the copy's last use (lowering copies conservatively: naga's
//!   scoping tells it a store *may* follow, not that the value is still read after it).
//! * **Copy coalescing**: `t = a op b; x = t` becomes `x = a op b` when nothing reads or
//!   writes `x` in between.
//! * **Multiply-add**: `t = a * b; d = t + c` becomes one `d = a * b + c` instruction (still
//!   two roundings, so results do not change).
//!
//! All three look only at straight-line code between the two instructions, and check loops
//! that could carry a register's old value around.

use super::ir::{Dst, Inst, Reg, Role, Src};
use super::lower::Lowered;
use super::ops::{Op2, Op3};

/// Register identity across both kinds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    varying: bool,
    reg: Reg,
}

struct Facts {
    /// pcs writing each register (Def or Update).
    writes: PcLists,
    /// pcs reading each register.
    reads: PcLists,
    /// pcs that are jump targets.
    targets: Vec<bool>,
    n_v: usize,
}

/// A list of pcs per register, in increasing order, all in one buffer (register `i`'s are
/// `pcs[start[i]..start[i + 1]]`): the facts are rebuilt for every pass of every round, and a
/// `Vec` per register made that mostly allocation.
struct PcLists {
    start: Vec<u32>,
    pcs: Vec<u32>,
}

impl PcLists {
    /// From `(register, pc)` pairs in increasing pc order, for `n` registers (a counting
    /// sort, so each register's pcs stay in order).
    fn new(n: usize, pairs: &[(u32, u32)]) -> Self {
        let mut start = vec![0u32; n + 1];
        for &(r, _) in pairs {
            start[r as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut pcs = vec![0; pairs.len()];
        for &(r, pc) in pairs {
            pcs[next[r as usize] as usize] = pc;
            next[r as usize] += 1;
        }
        Self { start, pcs }
    }
}

impl std::ops::Index<usize> for PcLists {
    type Output = [u32];

    fn index(&self, i: usize) -> &[u32] {
        &self.pcs[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

impl Facts {
    fn index(&self, k: Key) -> usize {
        if k.varying { k.reg as usize } else { self.n_v + k.reg as usize }
    }

    /// The facts of `code` (mutable only because the register visitor hands out `&mut`;
    /// nothing is changed).
    fn new(code: &mut [Inst], n_v: usize, n_u: usize) -> Self {
        let mut targets = vec![false; code.len() + 1];
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        for (pc, inst) in code.iter_mut().enumerate() {
            if let Some(t) = inst.target_mut()
                && let Some(slot) = targets.get_mut(*t as usize)
            {
                *slot = true;
            }
            let pc = pc as u32;
            inst.visit_regs(|r| {
                let i = if r.varying { *r.reg as usize } else { n_v + *r.reg as usize };
                if i >= n_v + n_u {
                    return;
                }
                let i = i as u32;
                match r.role {
                    Role::Use => reads.push((i, pc)),
                    Role::Def => writes.push((i, pc)),
                    Role::Update => {
                        reads.push((i, pc));
                        writes.push((i, pc));
                    }
                }
            });
        }
        Facts {
            writes: PcLists::new(n_v + n_u, &writes),
            reads: PcLists::new(n_v + n_u, &reads),
            targets,
            n_v,
        }
    }
}

fn is_control(inst: &Inst) -> bool {
    !(inst.is_pure() || matches!(inst, Inst::Blend { .. } | Inst::Scatter { .. }))
}

/// Whether the code strictly between `from` and `to` is straight-line (no control
/// instructions, nothing jumps into it).
fn straight(code: &[Inst], facts: &Facts, from: u32, to: u32) -> bool {
    ((from + 1)..to).all(|pc| !is_control(&code[pc as usize]) && !facts.targets[pc as usize])
        && !facts.targets[to as usize]
}

fn dst_key(d: &Dst) -> Key {
    match *d {
        Dst::V(r) => Key { varying: true, reg: r },
        Dst::U(r) => Key { varying: false, reg: r },
    }
}

fn src_key(s: &Src) -> Key {
    match *s {
        Src::V(r) => Key { varying: true, reg: r },
        Src::U(r) => Key { varying: false, reg: r },
    }
}

/// Runs every pass; returns whether anything changed.
pub(crate) fn optimize(l: &mut Lowered) {
    let n_u = l.n_u as usize + l.consts.len();
    for _ in 0..16 {
        let mut changed = fuse_multiply_add(l, n_u);
        changed |= propagate_copies(l, n_u);
        changed |= coalesce_copies(l, n_u);
        if !changed {
            break;
        }
    }
}

/// The pure single-destination instruction's destination, if any.
fn single_dst(inst: &mut Inst) -> Option<&mut Dst> {
    match inst {
        Inst::Op1 { d, .. } | Inst::Op2 { d, .. } | Inst::Op3 { d, .. } | Inst::Copy { d, .. } => Some(d),
        _ => None,
    }
}

fn fuse_multiply_add(l: &mut Lowered, n_u: usize) -> bool {
    let facts = Facts::new(&mut l.code, l.n_v as usize, n_u);
    let mut changed = false;
    let mut consumed = vec![false; l.code.len()];
    for pc in 0..l.code.len() {
        let Inst::Op2 { op: Op2::FAdd, d, a, b } = l.code[pc] else { continue };
        for (t, other) in [(a, b), (b, a)] {
            let tk = src_key(&t);
            let ti = facts.index(tk);
            if facts.writes[ti].len() != 1 || facts.reads[ti].len() != 1 {
                continue;
            }
            let p = facts.writes[ti][0];
            if consumed[p as usize] {
                continue;
            }
            let Inst::Op2 { op: Op2::FMul, d: md, a: x, b: y } = l.code[p as usize] else { continue };
            if dst_key(&md) != tk || p as usize >= pc || !straight(&l.code, &facts, p, pc as u32) {
                continue;
            }
            // x and y must still hold their values at pc.
            let unchanged =
                |s: Src| facts.writes[facts.index(src_key(&s))].iter().all(|&w| w <= p || w >= pc as u32);
            if !unchanged(x) || !unchanged(y) {
                continue;
            }
            l.code[pc] = Inst::Op3 { op: Op3::FMulAdd, d, a: x, b: y, c: other };
            // The multiply is now dead; dead-code removal drops it. (Rewrites only move
            // reads, so the facts other candidates rely on, their writes, still hold.)
            consumed[p as usize] = true;
            changed = true;
            break;
        }
    }
    changed
}

/// Loops as (top, back) pcs that contain `pc`.
fn loops_containing(loops: &[(u32, u32)], pc: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
    loops.iter().copied().filter(move |&(t, b)| t <= pc && pc <= b)
}

fn propagate_copies(l: &mut Lowered, n_u: usize) -> bool {
    let facts = Facts::new(&mut l.code, l.n_v as usize, n_u);
    let mut renames: Vec<(usize, Key, Key)> = Vec::new(); // (copy pc, t, x)
    for pc in 0..l.code.len() {
        let Inst::Copy { d, a } = l.code[pc] else { continue };
        let (tk, xk) = (dst_key(&d), src_key(&a));
        if tk.varying != xk.varying || tk == xk {
            continue;
        }
        let (ti, xi) = (facts.index(tk), facts.index(xk));
        if facts.writes[ti].len() != 1 {
            continue;
        }
        let uses = &facts.reads[ti];
        if uses.iter().any(|&u| u <= pc as u32) {
            continue;
        }
        let last = uses.iter().copied().max().unwrap_or(pc as u32);
        // x keeps its value from the copy to the last use...
        let mut safe = facts.writes[xi].iter().all(|&w| w <= pc as u32 || w > last);
        // ...including around any loop that re-runs a use without re-running the copy.
        for &u in uses {
            for (top, back) in loops_containing(&l.loops, u) {
                if top > pc as u32 && facts.writes[xi].iter().any(|&w| w >= top && w <= back) {
                    safe = false;
                }
            }
        }
        if safe {
            renames.push((pc, tk, xk));
        }
    }
    if renames.is_empty() {
        return false;
    }
    // Apply one rename per register (chains resolve over later rounds).
    let mut map = std::collections::HashMap::new();
    for &(_, t, x) in &renames {
        map.entry(t).or_insert(x);
    }
    for inst in &mut l.code {
        inst.visit_regs(|r| {
            if r.role == Role::Use
                && let Some(x) = map.get(&Key { varying: r.varying, reg: *r.reg })
            {
                *r.reg = x.reg;
            }
        });
    }
    true
}

fn coalesce_copies(l: &mut Lowered, n_u: usize) -> bool {
    let facts = Facts::new(&mut l.code, l.n_v as usize, n_u);
    let mut changed = false;
    let mut done = vec![false; l.code.len()];
    for pc in 0..l.code.len() {
        let Inst::Copy { d, a } = l.code[pc] else { continue };
        let (xk, tk) = (dst_key(&d), src_key(&a));
        if xk.varying != tk.varying || xk == tk {
            continue;
        }
        let (ti, xi) = (facts.index(tk), facts.index(xk));
        if facts.writes[ti].len() != 1 || facts.reads[ti].len() != 1 {
            continue;
        }
        let p = facts.writes[ti][0];
        if p as usize >= pc || done[p as usize] || !straight(&l.code, &facts, p, pc as u32) {
            continue;
        }
        // Nothing between the definition and the copy touches x.
        let touches = |pcs: &[u32]| pcs.iter().any(|&q| q > p && q < pc as u32);
        if touches(&facts.writes[xi]) || touches(&facts.reads[xi]) {
            continue;
        }
        let def = &mut l.code[p as usize];
        let Some(dst) = single_dst(def) else { continue };
        if dst_key(dst) != tk {
            continue;
        }
        *dst = d;
        // The copy becomes a no-op the dead-code pass removes.
        l.code[pc] = Inst::Copy {
            d,
            a: match d {
                Dst::V(r) => Src::V(r),
                Dst::U(r) => Src::U(r),
            },
        };
        done[p as usize] = true;
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pc_lists_keep_each_registers_pcs_in_order() {
        let pairs = [(2, 0), (0, 1), (2, 1), (2, 3), (0, 5), (3, 7)];
        let lists = PcLists::new(5, &pairs);
        let got: Vec<&[u32]> = (0..5).map(|i| &lists[i]).collect();
        let want: [&[u32]; 5] = [&[1, 5], &[], &[0, 1, 3], &[7], &[]];
        assert_eq!(got, want);
    }
}
