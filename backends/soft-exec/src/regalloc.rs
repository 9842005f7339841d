//! Dead code removal and register allocation over the lowered instruction stream.
//!
//! Lowering makes a fresh virtual register for every value. Here each register's live range
//! is the span of instructions from its first to its last mention, stretched to the end of
//! any loop it is live into (the loop jumps back to code that reads it); ranges that do not
//! overlap share a physical register (linear scan, lowest free first), which keeps the
//! register file of a 64-lane batch small enough to stay in L1. Inputs, outputs and
//! constants are pinned: inputs and outputs contiguous from register 0 so callers read and
//! write them in place, constants first in the uniform file.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::ir::{Inst, Reg, Role};
use super::lower::Lowered;

/// Register counts after allocation.
pub(crate) struct Allocated {
    /// Physical varying registers.
    pub(crate) n_v: u32,
    /// Physical uniform registers (constants first).
    pub(crate) n_u: u32,
    /// The first physical register of each input slot.
    pub(crate) input_base: Vec<u32>,
    /// The first physical register of each output slot.
    pub(crate) output_base: Vec<u32>,
}

/// Removes dead instructions, then allocates registers in place.
pub(crate) fn allocate(l: &mut Lowered) -> Allocated {
    remove_dead(l);
    let n_const = l.consts.len() as u32;

    // Pinned varying registers: inputs, then outputs, contiguous per slot.
    let mut pin_v = vec![None; l.n_v as usize];
    let mut next = 0u32;
    let mut input_base = Vec::new();
    for regs in &l.input_regs {
        input_base.push(next);
        for &r in regs {
            if let Some(p) = pin_v.get_mut(r as usize) {
                *p = Some(next);
            }
            next += 1;
        }
    }
    let mut output_base = Vec::new();
    for regs in &l.output_regs {
        output_base.push(next);
        for &r in regs {
            if let Some(p) = pin_v.get_mut(r as usize) {
                *p = Some(next);
            }
            next += 1;
        }
    }
    let pinned_v = next;

    // Uniform registers: virtual 0..n_u are temporaries, n_u.. are constants, pinned first.
    let n_u_virtual = l.n_u + n_const;
    let mut pin_u = vec![None; n_u_virtual as usize];
    for k in 0..n_const {
        pin_u[(l.n_u + k) as usize] = Some(k);
    }

    let (map_v, n_v) = scan(&l.code, &l.loops, true, &pin_v, pinned_v);
    let (map_u, n_u) = scan(&l.code, &l.loops, false, &pin_u, n_const);
    for inst in &mut l.code {
        inst.visit_regs(|r| {
            let map = if r.varying { &map_v } else { &map_u };
            *r.reg = map.get(*r.reg as usize).copied().unwrap_or(0);
        });
    }
    Allocated { n_v: n_v.max(pinned_v), n_u: n_u.max(n_const), input_base, output_base }
}

/// Live ranges and linear scan for one register kind. Returns the virtual-to-physical map and
/// the number of physical registers.
fn scan(
    code: &[Inst],
    loops: &[(u32, u32)],
    varying: bool,
    pinned: &[Option<u32>],
    first_free: u32,
) -> (Vec<u32>, u32) {
    let n = pinned.len();
    let mut start = vec![u32::MAX; n];
    let mut end = vec![0u32; n];
    let mut updates: Vec<(u32, usize)> = Vec::new();
    for (pc, inst) in code.iter().enumerate() {
        let pc = pc as u32;
        let mut inst = inst.clone();
        inst.visit_regs(|r| {
            if r.varying == varying
                && let Some(s) = start.get_mut(*r.reg as usize)
            {
                *s = (*s).min(pc);
                end[*r.reg as usize] = end[*r.reg as usize].max(pc);
                if r.role == Role::Update {
                    updates.push((pc, *r.reg as usize));
                }
            }
        });
    }
    // A register live into a loop from before it stays live to the loop's back jump; one
    // written in only some lanes inside a loop keeps the other lanes' values from earlier
    // iterations, so it lives across the whole loop.
    let mut changed = true;
    while changed {
        changed = false;
        for &(top, back) in loops {
            for r in 0..n {
                if start[r] < top && end[r] >= top && end[r] < back {
                    end[r] = back;
                    changed = true;
                }
            }
            for &(pc, r) in &updates {
                if pc >= top && pc <= back && (start[r] > top || end[r] < back) {
                    start[r] = start[r].min(top);
                    end[r] = end[r].max(back);
                    changed = true;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&r| start[r] != u32::MAX && pinned[r].is_none()).collect();
    order.sort_by_key(|&r| (start[r], r));
    let mut map: Vec<u32> = pinned.iter().map(|p| p.unwrap_or(0)).collect();
    let mut free: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    let mut active: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new(); // (end, phys)
    let mut count = first_free;
    for r in order {
        while let Some(&Reverse((e, phys))) = active.peek() {
            if e >= start[r] {
                break;
            }
            active.pop();
            free.push(Reverse(phys));
        }
        let phys = match free.pop() {
            Some(Reverse(p)) => p,
            None => {
                count += 1;
                count - 1
            }
        };
        map[r] = phys;
        active.push(Reverse((end[r], phys)));
    }
    (map, count)
}

/// Whether an instruction only writes registers (so it can go when nothing reads them).
fn removable(inst: &Inst) -> bool {
    inst.is_pure() || matches!(inst, Inst::Blend { .. } | Inst::Scatter { .. })
}

/// Removes instructions whose results nothing reads, then closes the gaps (jump targets and
/// loop ranges follow).
fn remove_dead(l: &mut Lowered) {
    let n_u_all = l.n_u as usize + l.consts.len();
    let n_v = l.n_v as usize;
    let index = |varying: bool, r: Reg| if varying { r as usize } else { n_v + r as usize };
    let total = n_v + n_u_all;
    let mut uses = vec![0u32; total];
    let mut writers: Vec<Vec<u32>> = vec![Vec::new(); total];
    for (pc, inst) in l.code.iter_mut().enumerate() {
        inst.visit_regs(|r| {
            let i = index(r.varying, *r.reg);
            if i >= total {
                return;
            }
            match r.role {
                Role::Use => uses[i] += 1,
                Role::Def | Role::Update => writers[i].push(pc as u32),
            }
        });
    }
    for regs in &l.output_regs {
        for &r in regs {
            if let Some(u) = uses.get_mut(r as usize) {
                *u += 1;
            }
        }
    }
    let mut removed = vec![false; l.code.len()];
    // Copies of a register onto itself (left by coalescing) do nothing.
    for (pc, inst) in l.code.iter().enumerate() {
        let self_copy = match inst {
            Inst::Copy { d: super::ir::Dst::V(d), a: super::ir::Src::V(a) } => d == a,
            Inst::Copy { d: super::ir::Dst::U(d), a: super::ir::Src::U(a) } => d == a,
            Inst::Blend { d, a: super::ir::Src::V(a) } => d == a,
            _ => false,
        };
        if self_copy {
            removed[pc] = true;
            let mut inst = inst.clone();
            inst.visit_regs(|r| {
                let i = index(r.varying, *r.reg);
                if r.role == Role::Use && i < total {
                    uses[i] -= 1;
                }
            });
        }
    }
    let mut work: Vec<u32> = (0..l.code.len() as u32).collect();
    while let Some(pc) = work.pop() {
        let pcu = pc as usize;
        if removed[pcu] || !removable(&l.code[pcu]) {
            continue;
        }
        let mut inst = l.code[pcu].clone();
        let mut live = false;
        inst.visit_regs(|r| {
            let i = index(r.varying, *r.reg);
            if r.role != Role::Use && i < total && uses[i] > 0 {
                live = true;
            }
        });
        if live {
            continue;
        }
        removed[pcu] = true;
        inst.visit_regs(|r| {
            let i = index(r.varying, *r.reg);
            if r.role == Role::Use && i < total {
                uses[i] -= 1;
                if uses[i] == 0 {
                    work.extend(writers[i].iter().copied());
                }
            }
        });
    }
    // Compact: old pc -> new pc (a removed instruction maps to the next kept one).
    let mut new_pc = vec![0u32; l.code.len() + 1];
    let mut kept = 0u32;
    for pc in 0..l.code.len() {
        new_pc[pc] = kept;
        if !removed[pc] {
            kept += 1;
        }
    }
    new_pc[l.code.len()] = kept;
    let code = std::mem::take(&mut l.code);
    l.code = code
        .into_iter()
        .zip(removed)
        .filter(|(_, r)| !r)
        .map(|(mut inst, _)| {
            if let Some(t) = inst.target_mut() {
                *t = new_pc.get(*t as usize).copied().unwrap_or(kept);
            }
            inst
        })
        .collect();
    for (top, back) in &mut l.loops {
        *top = new_pc.get(*top as usize).copied().unwrap_or(kept);
        *back = new_pc.get(*back as usize).copied().unwrap_or(kept);
    }
}

/// Checks the invariants the interpreter relies on (every register in range; no instruction
/// writes a varying register it also reads). A failure is a lowering bug, reported instead
/// of run.
pub(crate) fn verify(code: &[Inst], n_v: u32, n_u: u32) -> Result<(), String> {
    for (pc, inst) in code.iter().enumerate() {
        let mut inst = inst.clone();
        let mut uses = Vec::new();
        let mut defs = Vec::new();
        let mut bad = None;
        inst.visit_regs(|r| {
            let limit = if r.varying { n_v } else { n_u };
            if *r.reg >= limit {
                bad = Some(format!("instruction {pc} names register {} of {limit}", *r.reg));
            }
            if r.varying {
                match r.role {
                    Role::Use => uses.push(*r.reg),
                    _ => defs.push(*r.reg),
                }
            }
        });
        if let Some(b) = bad {
            return Err(b);
        }
        // Element-wise instructions may read the register they write (the interpreter saves
        // the operand first); the others may not.
        let may_alias = matches!(
            inst,
            Inst::Texture(_)
                | Inst::Op1 { .. }
                | Inst::Op2 { .. }
                | Inst::Op3 { .. }
                | Inst::Copy { .. }
                | Inst::Blend { .. }
        );
        if !may_alias && defs.iter().any(|d| uses.contains(d)) {
            return Err(format!("instruction {pc} ({inst:?}) reads the register it writes"));
        }
        if let Some(t) = inst.clone().target_mut()
            && *t as usize > code.len()
        {
            return Err(format!("instruction {pc} jumps to {t}, past the end"));
        }
    }
    Ok(())
}
