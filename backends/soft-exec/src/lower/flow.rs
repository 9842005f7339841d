//! Statements and structured control flow over lane masks.
//!
//! `exec` is the set of lanes running. Uniform branches and loops are plain jumps (every lane
//! goes the same way). Varying ones save `exec` in a mask slot, narrow it, and restore it at
//! the end, minus the lanes that left in between:
//!
//! ```text
//! if (c)   IfV    save = exec; exec &= c; (none left? go to else)
//!   A        A
//! else     ElseV  exec = save & !c & !exits; (none left? go to end)
//!   B        B
//!          Restore exec = save & !exits
//! ```
//!
//! `exits` are the slots lanes leave through: the innermost loop's or switch's `break`
//! slot, the loop's `continue` slot, the function's `return` slot and the `discard` slot.
//! A varying loop runs until no lane is left in it, then takes back the lanes that broke.
//! `discard` kills lanes for the rest of the invocation (naga emits `OpKill`, which
//! terminates them on the GPU too).

use naga::{Block, Statement as S};

use super::builder::{Label, Val};
use super::{Construct, ConstructKind, Frame, LResult, Lowerer, Stop, Value, types};
use crate::ir::{Exits, Inst, KILL_SLOT, NO_SLOT};
use crate::ops::Op2;

/// Whether the rest of a block can still run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    /// It can.
    Next,
    /// Every lane that reached the end of the statement left (break, continue, return,
    /// discard): the rest of the block is dead code.
    Left,
}

impl<'m> Lowerer<'m> {
    /// Lowers the statements of `block`; `continuing` is the loop's continuing block when
    /// `block` is a loop body.
    pub(super) fn block(
        &mut self,
        f: &mut Frame<'m>,
        block: &'m Block,
        continuing: Option<&'m Block>,
    ) -> LResult<Flow> {
        self.cursor.push((block, 0, continuing));
        let mut flow = Flow::Next;
        for (i, stmt) in block.iter().enumerate() {
            if let Some(top) = self.cursor.last_mut() {
                top.1 = i;
            }
            if self.statement(f, stmt)? == Flow::Left {
                flow = Flow::Left;
                break;
            }
        }
        self.cursor.pop();
        Ok(flow)
    }

    fn statement(&mut self, f: &mut Frame<'m>, stmt: &'m S) -> LResult<Flow> {
        match stmt {
            S::Emit(range) => {
                for h in range.clone() {
                    self.value(f, h)?;
                }
                Ok(Flow::Next)
            }
            S::Block(b) => self.block(f, b, None),
            S::If { condition, accept, reject } => self.if_(f, *condition, accept, reject),
            S::Switch { selector, cases } => self.switch(f, *selector, cases),
            S::Loop { body, continuing, break_if } => self.loop_(f, body, continuing, *break_if),
            S::Break => self.break_(),
            S::Continue => self.continue_(),
            S::Return { value } => self.return_(f, *value),
            S::Kill => {
                if self.stage != f3d_hal::ShaderStage::Fragment {
                    return Err(self.unsupported("`discard` outside the fragment stage"));
                }
                self.b.push(Inst::Kill);
                let end = self.entry_end();
                self.b.push(Inst::JumpIfAllKilled { to: end.0 });
                Ok(Flow::Left)
            }
            S::Store { pointer, value } => {
                self.store(f, *pointer, *value)?;
                Ok(Flow::Next)
            }
            S::Call { function, arguments, result } => {
                self.call(f, *function, arguments, *result)?;
                Ok(Flow::Next)
            }
            S::ControlBarrier(_) | S::MemoryBarrier(_) => Err(self.refuse_stmt("barriers")),
            S::ImageStore { .. } => Err(self.refuse_stmt("storage textures (`textureStore`)")),
            S::Atomic { .. } | S::ImageAtomic { .. } => Err(self.refuse_stmt("atomic operations")),
            S::WorkGroupUniformLoad { .. } => Err(self.refuse_stmt("`workgroupUniformLoad`")),
            S::RayQuery { .. } => Err(self.refuse_stmt("ray queries")),
            S::RayPipelineFunction(_) => Err(self.refuse_stmt("ray tracing pipelines")),
            S::SubgroupBallot { .. } | S::SubgroupGather { .. } | S::SubgroupCollectiveOperation { .. } => {
                Err(self.refuse_stmt("subgroup operations"))
            }
            S::CooperativeStore { .. } => Err(self.refuse_stmt("cooperative matrices")),
        }
    }

    /// The index of the innermost function construct.
    fn function_index(&self) -> usize {
        self.constructs.iter().rposition(|c| matches!(c.kind, ConstructKind::Function { .. })).unwrap_or(0)
    }

    /// The entry point's end (the outermost function).
    fn entry_end(&self) -> Label {
        match self.constructs.first().map(|c| c.kind) {
            Some(ConstructKind::Function { end, .. }) => end,
            _ => Label(u32::MAX),
        }
    }

    /// Slots lanes may have left through since the innermost loop, switch and function began.
    fn exits(&self, skip_switch_break: bool) -> Exits {
        let fi = self.function_index();
        let mut brk = None;
        let mut cont = None;
        for c in self.constructs[fi..].iter().rev() {
            match c.kind {
                ConstructKind::Loop { brk: b, cont: k, .. } => {
                    brk.get_or_insert(b);
                    cont.get_or_insert(k);
                }
                ConstructKind::Switch { brk: b, .. } => {
                    if !skip_switch_break {
                        brk.get_or_insert(b);
                    }
                }
                ConstructKind::Function { .. } => {}
            }
        }
        let ret = match self.constructs.get(fi).map(|c| c.kind) {
            Some(ConstructKind::Function { ret, .. }) => ret,
            _ => NO_SLOT,
        };
        [brk.unwrap_or(NO_SLOT), cont.unwrap_or(NO_SLOT), ret, KILL_SLOT]
    }

    fn if_(
        &mut self,
        f: &mut Frame<'m>,
        condition: naga::Handle<naga::Expression>,
        accept: &'m Block,
        reject: &'m Block,
    ) -> LResult<Flow> {
        let cond = self.scalar(f, condition)?;
        match cond {
            Val::C(c) => self.block(f, if c != 0 { accept } else { reject }, None),
            Val::U(_) => {
                let else_l = self.b.label();
                let end = self.b.label();
                self.b.jump_if(cond, false, else_l);
                let a = self.block(f, accept, None)?;
                if a == Flow::Next && !reject.is_empty() {
                    self.b.jump(end);
                }
                self.b.bind(else_l);
                let r = self.block(f, reject, None)?;
                self.b.bind(end);
                Ok(if a == Flow::Left && r == Flow::Left { Flow::Left } else { Flow::Next })
            }
            Val::V(c) => {
                let save = self.b.slot();
                let else_l = self.b.label();
                let end = self.b.label();
                self.b.push(Inst::IfV { cond: c, save, skip: else_l.0 });
                self.varying_depth += 1;
                let a = self.block(f, accept, None);
                let r = a.and_then(|a| {
                    self.b.bind(else_l);
                    if reject.is_empty() {
                        return Ok((a, Flow::Next));
                    }
                    let exits = self.exits(false);
                    self.b.push(Inst::ElseV { cond: c, save, exits, skip: end.0 });
                    Ok((a, self.block(f, reject, None)?))
                });
                self.varying_depth -= 1;
                let (a, r) = r?;
                self.b.bind(end);
                let exits = self.exits(false);
                self.b.push(Inst::Restore { save, exits });
                Ok(if a == Flow::Left && r == Flow::Left { Flow::Left } else { Flow::Next })
            }
        }
    }

    fn switch(
        &mut self,
        f: &mut Frame<'m>,
        selector: naga::Handle<naga::Expression>,
        cases: &'m [naga::SwitchCase],
    ) -> LResult<Flow> {
        let sel = self.scalar(f, selector)?;
        let value_of = |c: &naga::SwitchCase| match c.value {
            naga::SwitchValue::I32(v) => Some(v as u32),
            naga::SwitchValue::U32(v) => Some(v),
            naga::SwitchValue::Default => None,
        };
        let save = self.b.slot();
        let brk = self.b.slot();
        let end = self.b.label();
        self.b.push(Inst::MaskSave { slot: save });
        self.b.push(Inst::MaskZero { slot: brk });
        let uniform = !sel.varying();
        if uniform {
            let labels: Vec<Label> = cases.iter().map(|_| self.b.label()).collect();
            let mut default = None;
            for (c, &l) in cases.iter().zip(&labels) {
                match value_of(c) {
                    Some(v) => {
                        let hit = self.b.op2(Op2::IEq, sel, Val::C(v));
                        self.b.jump_if(hit, true, l);
                    }
                    None => default = Some(l),
                }
            }
            self.b.jump(default.unwrap_or(end));
            self.constructs.push(Construct {
                kind: ConstructKind::Switch { uniform: true, brk, end },
                depth: self.varying_depth,
                taint: false,
                slot_used: false,
            });
            let mut result = Ok(());
            for (c, &l) in cases.iter().zip(&labels) {
                self.b.bind(l);
                match self.block(f, &c.body, None) {
                    Ok(Flow::Next) if !c.fall_through => self.b.jump(end),
                    Ok(_) => {}
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            self.constructs.pop();
            result?;
        } else {
            let carry = self.b.slot();
            self.b.push(Inst::MaskZero { slot: carry });
            let values: Box<[u32]> = cases.iter().filter_map(value_of).collect();
            let sel_src = self.b.src(sel);
            self.varying_depth += 1;
            self.constructs.push(Construct {
                kind: ConstructKind::Switch { uniform: false, brk, end },
                depth: self.varying_depth,
                taint: false,
                slot_used: false,
            });
            let mut result = Ok(());
            for c in cases {
                let skip = self.b.label();
                self.b.push(Inst::CaseV {
                    sel: sel_src,
                    value: value_of(c),
                    values: values.clone(),
                    save,
                    carry,
                    skip: skip.0,
                });
                if let Err(e) = self.block(f, &c.body, None) {
                    result = Err(e);
                    break;
                }
                self.b.bind(skip);
                self.b.push(Inst::Carry { carry, fall: c.fall_through });
            }
            self.constructs.pop();
            self.varying_depth -= 1;
            result?;
        }
        self.b.bind(end);
        let exits = self.exits(false);
        self.b.push(Inst::Restore { save, exits });
        Ok(Flow::Next)
    }

    fn loop_(
        &mut self,
        f: &mut Frame<'m>,
        body: &'m Block,
        continuing: &'m Block,
        break_if: Option<naga::Handle<naga::Expression>>,
    ) -> LResult<Flow> {
        let key = self.loops_seen;
        self.loops_seen += 1;
        let uniform = !self.facts.varying_loops.contains(&key);
        let top = self.b.label();
        let end = self.b.label();
        let cont_label = self.b.label();
        let (brk, cont) = if uniform { (NO_SLOT, NO_SLOT) } else { (self.b.slot(), self.b.slot()) };
        if uniform {
            self.b.push(Inst::JumpIfNoLanes { to: end.0 });
        } else {
            self.b.push(Inst::MaskZero { slot: brk });
            self.varying_depth += 1;
        }
        let top_pc = self.b.pc();
        self.b.bind(top);
        if !uniform {
            self.b.push(Inst::MaskZero { slot: cont });
        }
        self.constructs.push(Construct {
            kind: ConstructKind::Loop { uniform, key, brk, cont, end, cont_label },
            depth: self.varying_depth,
            taint: false,
            slot_used: false,
        });
        let result = (|| -> LResult<()> {
            self.block(f, body, Some(continuing))?;
            self.b.bind(cont_label);
            if !uniform {
                self.b.push(Inst::MergeLanes { slot: cont });
            }
            self.block(f, continuing, None)?;
            if let Some(cond) = break_if {
                let c = self.scalar(f, cond)?;
                if uniform {
                    if c.varying() {
                        self.learned.varying_loops.insert(key);
                        return Err(Stop::Restart);
                    }
                    self.b.jump_if(c, true, end);
                } else {
                    let cond = self.b.src(c);
                    self.b.push(Inst::BreakIf { cond, brk });
                }
            }
            Ok(())
        })();
        self.constructs.pop();
        if !uniform {
            self.varying_depth -= 1;
        }
        result?;
        if uniform {
            let dead = self.entry_end();
            self.b.push(Inst::JumpIfAllKilled { to: dead.0 });
            self.b.jump(top);
        } else {
            self.b.push(Inst::LoopBack { to: top.0 });
        }
        let back_pc = self.b.pc() - 1;
        self.b.loops.push((top_pc, back_pc));
        self.b.bind(end);
        if !uniform {
            self.b.push(Inst::SetExec { slot: brk });
        }
        Ok(Flow::Next)
    }

    /// Marks every uniform loop from construct `from` inwards as varying; true if any was
    /// uniform (so a new pass is needed).
    fn loops_vary_from(&mut self, from: usize) -> bool {
        let mut changed = false;
        for c in &self.constructs[from.min(self.constructs.len())..] {
            if let ConstructKind::Loop { uniform: true, key, .. } = c.kind {
                self.learned.varying_loops.insert(key);
                changed = true;
            }
        }
        changed
    }

    fn break_(&mut self) -> LResult<Flow> {
        let fi = self.function_index();
        let Some(i) = (fi..self.constructs.len()).rev().find(|&i| {
            matches!(self.constructs[i].kind, ConstructKind::Loop { .. } | ConstructKind::Switch { .. })
        }) else {
            return Err(self.unsupported("`break` outside a loop or switch"));
        };
        let divergent = self.divergent_since(i);
        match self.constructs[i].kind {
            ConstructKind::Loop { uniform: true, end, .. }
            | ConstructKind::Switch { uniform: true, end, .. }
                if !divergent =>
            {
                self.b.jump(end);
            }
            ConstructKind::Loop { uniform: true, .. } => {
                self.loops_vary_from(i);
                return Err(Stop::Restart);
            }
            ConstructKind::Loop { brk, .. } | ConstructKind::Switch { brk, .. } => {
                if self.loops_vary_from(i + 1) {
                    return Err(Stop::Restart);
                }
                self.b.push(Inst::ExitLanes { slot: brk });
                self.constructs[i].taint = true;
            }
            ConstructKind::Function { .. } => {}
        }
        Ok(Flow::Left)
    }

    fn continue_(&mut self) -> LResult<Flow> {
        let fi = self.function_index();
        let Some(i) = (fi..self.constructs.len())
            .rev()
            .find(|&i| matches!(self.constructs[i].kind, ConstructKind::Loop { .. }))
        else {
            return Err(self.unsupported("`continue` outside a loop"));
        };
        let divergent = self.divergent_since(i);
        match self.constructs[i].kind {
            ConstructKind::Loop { uniform: true, cont_label, .. } if !divergent => self.b.jump(cont_label),
            ConstructKind::Loop { uniform: true, .. } => {
                self.loops_vary_from(i);
                return Err(Stop::Restart);
            }
            ConstructKind::Loop { cont, .. } => {
                if self.loops_vary_from(i + 1) {
                    return Err(Stop::Restart);
                }
                self.b.push(Inst::ExitLanes { slot: cont });
                self.constructs[i].taint = true;
            }
            _ => {}
        }
        Ok(Flow::Left)
    }

    fn return_(&mut self, f: &mut Frame<'m>, value: Option<naga::Handle<naga::Expression>>) -> LResult<Flow> {
        if let (Some(value), Some(var)) = (value, f.result) {
            let v = self.comps(f, value)?;
            self.store_var(var, 0, None, &v)?;
        }
        let fi = self.function_index();
        let ConstructKind::Function { ret, end } = self.constructs[fi].kind else {
            return Err(self.unsupported("`return` outside a function"));
        };
        if !self.divergent_since(fi) {
            self.b.jump(end);
        } else {
            if self.loops_vary_from(fi) {
                return Err(Stop::Restart);
            }
            self.b.push(Inst::ExitLanes { slot: ret });
            self.constructs[fi].taint = true;
            self.constructs[fi].slot_used = true;
        }
        Ok(Flow::Left)
    }

    fn call(
        &mut self,
        f: &mut Frame<'m>,
        function: naga::Handle<naga::Function>,
        arguments: &[naga::Handle<naga::Expression>],
        result: Option<naga::Handle<naga::Expression>>,
    ) -> LResult<()> {
        if self.call_depth >= super::MAX_CALL_DEPTH {
            return Err(Stop::Error(
                self.refuse.too_large(format!("calls nested deeper than {}", super::MAX_CALL_DEPTH)),
            ));
        }
        let mut args = Vec::with_capacity(arguments.len());
        for &a in arguments {
            args.push(self.value(f, a)?);
        }
        let module = self.module;
        let callee = module
            .functions
            .try_get(function)
            .map_err(|_| self.unsupported("a call to an unknown function"))?;
        let instance = self.instances;
        self.instances += 1;
        let result_var = match &callee.result {
            Some(r) => {
                let len = types::flat_len(module, &module.types[r.ty].inner, &self.refuse)?;
                Some(self.new_var(super::VarKey::Result(instance), len))
            }
            None => None,
        };
        let mut frame = Frame {
            exprs: &callee.expressions,
            types: super::Types::Function(&self.info[function]),
            fun: Some(callee),
            values: vec![None; callee.expressions.len()],
            args,
            locals: Vec::new(),
            result: result_var,
            instance,
        };
        self.call_depth += 1;
        let r = self.function_body(&mut frame, callee);
        self.call_depth -= 1;
        r?;
        if let (Some(h), Some(var)) = (result, result_var) {
            let regs = self.vars[var].regs.clone();
            if let Some(slot) = f.values.get_mut(h.index()) {
                *slot = Some(Value::Comps(regs));
            }
        }
        Ok(())
    }
}
