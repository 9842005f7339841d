//! Lowering: one naga entry point (and every function it calls, inlined) into the
//! executor's instruction stream.
//!
//! ```text
//! naga IR ──lower──▶ instructions over virtual registers ──regalloc──▶ Program
//!   (expr.rs, math.rs: values; access.rs: pointers; flow.rs: statements and masks)
//! ```
//!
//! **Uniformity.** A value is uniform when it cannot differ between lanes: constants, uniform
//! block loads, storage buffer loads at uniform indices, `arrayLength`, texture sizes, and
//! anything computed only from those. Local variables, private globals and call results are
//! uniform until lowering meets a store that could make lanes disagree (a varying value, or a
//! store under divergent control flow); loops are uniform (plain jumps) until a
//! `break`/`continue`/`return` under divergent control shows they need lane masks. Each such
//! discovery is recorded and lowering starts again with it (a pass that finds a varying
//! variable goes on to its end and records every one it finds; one that finds a varying loop
//! stops there); facts only ever move from uniform to varying, so this ends. The result: loop
//! counters and lighting loops over uniform light counts run once per batch, not once per lane.

mod access;
pub(crate) mod builder;
mod expr;
mod flow;
mod image;
mod math;
pub(crate) mod types;

use std::collections::{HashMap, HashSet};

use naga::{Arena, Block, Expression, Function, Handle, Module, TypeInner};
use smallvec::smallvec;

use self::builder::{Builder, Label, Val};
use super::ExecError;
use super::interface::{Interface, IoSlot, Refuse, ResourceInfo, io_leaves, resource_of};
use super::ir::{Inst, Reg, Slot};

/// Why lowering stopped early.
pub(crate) enum Stop {
    /// The entry point cannot run here.
    Error(ExecError),
    /// An assumption about uniformity was wrong; it has been recorded, start again.
    Restart,
}

impl From<ExecError> for Stop {
    fn from(e: ExecError) -> Self {
        Stop::Error(e)
    }
}

pub(crate) type LResult<T> = Result<T, Stop>;

/// Identifies a variable across restarts (inlined instances are numbered in lowering order,
/// which is the same on every pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum VarKey {
    /// A function's local variable, in inlined instance `instance`.
    Local { instance: u32, handle: u32 },
    /// A `var<private>` global.
    Private(u32),
    /// The result of inlined call `instance`.
    Result(u32),
    /// The entry point's outputs.
    Outputs,
}

/// What earlier passes learned: which variables and loops are varying.
#[derive(Default)]
struct Facts {
    varying_vars: HashSet<VarKey>,
    varying_loops: HashSet<u32>,
}

/// A variable: a register per flattened scalar, all uniform or all varying.
pub(crate) struct Var {
    pub(crate) key: VarKey,
    pub(crate) regs: Comps,
    pub(crate) uniform: bool,
}

/// A value's flattened scalars: up to a `vec4` inline, so lowering an expression (and
/// reusing its value) allocates nothing for the common case; matrices and arrays spill.
pub(crate) type Comps = smallvec::SmallVec<[Val; 4]>;

/// A lowered naga value.
#[derive(Clone, Debug)]
pub(crate) enum Value {
    /// Flattened scalars.
    Comps(Comps),
    /// A pointer.
    Ptr(Ptr),
    /// A texture resource.
    Image(u16),
    /// A sampler resource.
    Sampler(u16),
}

/// A pointer: into a variable's registers (offset in scalars) or a uniform block or storage
/// buffer (offset in bytes), with an optional dynamic part in the same unit (already clamped
/// and scaled).
#[derive(Clone, Debug)]
pub(crate) struct Ptr {
    pub(crate) root: Root,
    pub(crate) offset: u32,
    pub(crate) dynamic: Option<Val>,
}

/// What a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    /// Variable `vars[i]`.
    Var(usize),
    /// Uniform block or read-only storage buffer resource `i` (both are bytes, read alike).
    Uniform(u16),
}

/// Where expression types come from.
#[derive(Clone, Copy)]
enum Types<'m> {
    Function(&'m naga::valid::FunctionInfo),
    Global(&'m naga::valid::ModuleInfo),
}

/// One function being lowered (an inlined instance), or the module's global expressions.
pub(crate) struct Frame<'m> {
    exprs: &'m Arena<Expression>,
    types: Types<'m>,
    fun: Option<&'m Function>,
    values: Vec<Option<Value>>,
    args: Vec<Value>,
    locals: Vec<usize>,
    result: Option<usize>,
    instance: u32,
}

/// A construct that `break`, `continue` and `return` leave.
#[derive(Clone, Copy, Debug)]
enum ConstructKind {
    Function { ret: Slot, end: Label },
    Loop { uniform: bool, key: u32, brk: Slot, cont: Slot, end: Label, cont_label: Label },
    Switch { uniform: bool, brk: Slot, end: Label },
}

#[derive(Clone, Copy, Debug)]
struct Construct {
    kind: ConstructKind,
    /// `varying_depth` inside the construct's body.
    depth: u32,
    /// Some lanes left it under divergent control: the rest of it is divergent.
    taint: bool,
    /// Some lanes left it through its mask slot (returns: the slot must be merged at the end).
    slot_used: bool,
}

/// The result of lowering, before register allocation.
pub(crate) struct Lowered {
    pub(crate) code: Vec<Inst>,
    pub(crate) consts: Vec<f32>,
    pub(crate) n_v: u32,
    pub(crate) n_u: u32,
    pub(crate) n_slots: Slot,
    pub(crate) loops: Vec<(u32, u32)>,
    pub(crate) interface: Interface,
    /// Virtual registers of each input slot's components.
    pub(crate) input_regs: Vec<Vec<Reg>>,
    /// Virtual registers of each output slot's components.
    pub(crate) output_regs: Vec<Vec<Reg>>,
    /// How many lowering passes the uniformity analysis took (for the unit tests).
    #[cfg_attr(not(test), expect(dead_code, reason = "only the unit tests read it"))]
    pub(crate) passes: u32,
}

/// How many times lowering may start again before giving up.
const MAX_PASSES: usize = 4096;
/// Deepest inlined call chain.
const MAX_CALL_DEPTH: u32 = 64;

/// Lowers entry point `ep_index` of `module`.
pub(crate) fn lower(
    module: &f3d_hal::ValidatedModule,
    ep_index: usize,
    refuse: &Refuse,
) -> Result<Lowered, ExecError> {
    let mut facts = Facts::default();
    for pass in 1..=MAX_PASSES as u32 {
        let mut l = Lowerer::new(module.module(), module.info(), refuse.clone(), &facts);
        let result = l.entry_point(ep_index);
        // A pass that learned a variable varies went on under a wrong assumption: its result,
        // lowered program or error, is not the answer; the next pass, knowing more, gives it.
        let learned_vars = !l.learned.varying_vars.is_empty();
        match result {
            Ok(lowered) if !learned_vars => return Ok(Lowered { passes: pass, ..lowered }),
            Err(Stop::Error(e)) if !learned_vars => return Err(e),
            Ok(_) | Err(Stop::Error(_) | Stop::Restart) => {
                let learned = l.learned;
                let before = facts.varying_vars.len() + facts.varying_loops.len();
                facts.varying_vars.extend(learned.varying_vars);
                facts.varying_loops.extend(learned.varying_loops);
                if facts.varying_vars.len() + facts.varying_loops.len() == before {
                    return Err(refuse.unsupported("control flow the uniformity analysis cannot settle"));
                }
            }
        }
    }
    Err(refuse.too_large(format!("uniformity analysis did not settle in {MAX_PASSES} passes")))
}

pub(crate) struct Lowerer<'m> {
    module: &'m Module,
    info: &'m naga::valid::ModuleInfo,
    refuse: Refuse,
    b: Builder,
    facts: &'m Facts,
    learned: Facts,
    vars: Vec<Var>,
    constructs: Vec<Construct>,
    varying_depth: u32,
    instances: u32,
    loops_seen: u32,
    call_depth: u32,
    resources: HashMap<Handle<naga::GlobalVariable>, u16>,
    resource_info: Vec<ResourceInfo>,
    privates: HashMap<Handle<naga::GlobalVariable>, usize>,
    global_frame: Option<Frame<'m>>,
    /// The statement being lowered in each enclosing block of the current function, with the
    /// loop's continuing block when the block is a loop body (for load aliasing).
    cursor: Vec<(&'m Block, usize, Option<&'m Block>)>,
    stage: f3d_hal::ShaderStage,
}

impl<'m> Lowerer<'m> {
    fn new(module: &'m Module, info: &'m naga::valid::ModuleInfo, refuse: Refuse, facts: &'m Facts) -> Self {
        let global_frame = Frame {
            exprs: &module.global_expressions,
            types: Types::Global(info),
            fun: None,
            values: vec![None; module.global_expressions.len()],
            args: Vec::new(),
            locals: Vec::new(),
            result: None,
            instance: u32::MAX,
        };
        Self {
            module,
            info,
            stage: refuse.stage,
            refuse,
            b: Builder::new(),
            facts,
            learned: Facts::default(),
            vars: Vec::new(),
            constructs: Vec::new(),
            varying_depth: 0,
            instances: 0,
            loops_seen: 0,
            call_depth: 0,
            resources: HashMap::new(),
            resource_info: Vec::new(),
            privates: HashMap::new(),
            global_frame: Some(global_frame),
            cursor: Vec::new(),
        }
    }

    fn unsupported(&self, construct: impl Into<String>) -> Stop {
        Stop::Error(self.refuse.unsupported(construct))
    }

    /// The type of expression `h` of frame `f`.
    fn ty(&self, f: &Frame<'m>, h: Handle<Expression>) -> &'m TypeInner {
        match f.types {
            Types::Function(info) => info[h].ty.inner_with(&self.module.types),
            Types::Global(info) => info[h].inner_with(&self.module.types),
        }
    }

    /// Makes a variable of `len` scalars, uniform unless an earlier pass showed otherwise.
    fn new_var(&mut self, key: VarKey, len: u32) -> usize {
        let uniform = key != VarKey::Outputs && !self.facts.varying_vars.contains(&key);
        let regs =
            (0..len).map(|_| if uniform { Val::U(self.b.new_u()) } else { Val::V(self.b.new_v()) }).collect();
        self.vars.push(Var { key, regs, uniform });
        self.vars.len() - 1
    }

    /// Records that variable `var` varies, for the next pass, and gives it varying registers
    /// for the rest of this one. The pass goes on, so that it learns every variable it can
    /// reach, through chains of them too (a fragment shader with a hundred lighting
    /// temporaries settles in a few passes, not a hundred); its code is thrown away. What it
    /// learns is sound: it takes as varying only values that do vary, so it can miss varying
    /// stores (the next pass finds them) but never invents one.
    fn var_varies(&mut self, var: usize) {
        let Some(v) = self.vars.get(var) else { return };
        self.learned.varying_vars.insert(v.key);
        let regs = (0..v.regs.len()).map(|_| Val::V(self.b.new_v())).collect();
        self.vars[var].regs = regs;
        self.vars[var].uniform = false;
    }

    /// Whether control may have diverged anywhere on the way here (stores must then be
    /// masked, and make variables varying).
    fn divergent(&self) -> bool {
        self.varying_depth > 0 || self.constructs.iter().any(|c| c.taint)
    }

    /// Whether control may have diverged since construct `i` began.
    fn divergent_since(&self, i: usize) -> bool {
        self.constructs.get(i).is_some_and(|c| self.varying_depth > c.depth)
            || self.constructs[i.min(self.constructs.len())..].iter().any(|c| c.taint)
    }

    /// Writes `value` into variable `var` at scalar `offset` (+ `dynamic`), checking the
    /// variable's uniformity assumption.
    fn store_var(&mut self, var: usize, offset: u32, dynamic: Option<Val>, value: &[Val]) -> LResult<()> {
        let divergent = self.divergent();
        let Some(v) = self.vars.get(var) else { return Ok(()) };
        if v.uniform
            && (divergent || value.iter().any(|x| x.varying()) || dynamic.is_some_and(|d| d.varying()))
        {
            self.var_varies(var);
        }
        let Some(v) = self.vars.get(var) else { return Ok(()) };
        let regs = v.regs.clone();
        match dynamic {
            None => {
                for (i, &x) in value.iter().enumerate() {
                    if let Some(&d) = regs.get(offset as usize + i) {
                        self.b.write(d, x, divergent);
                    }
                }
            }
            Some(idx) => {
                let list: Box<[_]> = regs.iter().map(|&r| self.b.src(r)).collect();
                let idx = self.b.src(idx);
                for (i, &x) in value.iter().enumerate() {
                    let a = self.b.src(x);
                    self.b.push(Inst::Scatter {
                        list: list.clone(),
                        idx,
                        add: offset + i as u32,
                        a,
                        masked: divergent,
                    });
                }
            }
        }
        Ok(())
    }

    /// Lowers the entry point and everything it calls.
    fn entry_point(&mut self, ep_index: usize) -> LResult<Lowered> {
        let module = self.module;
        let ep = &module.entry_points[ep_index];
        let ep_info = self.info.get_entry_point(ep_index);
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .map_err(|e| self.unsupported(format!("a type naga cannot lay out ({e})")))?;

        // Resources, sorted by group and binding.
        let mut found = Vec::new();
        for (g, _) in module.global_variables.iter() {
            if ep_info[g].is_empty() {
                continue;
            }
            if let Some(info) = resource_of(module, &layouter, g, &self.refuse)? {
                found.push((g, info));
            } else if module.global_variables[g].space == naga::AddressSpace::Private {
                let len = types::flat_len(
                    module,
                    &module.types[module.global_variables[g].ty].inner,
                    &self.refuse,
                )?;
                let var = self.new_var(VarKey::Private(g.index() as u32), len);
                self.privates.insert(g, var);
            }
        }
        found.sort_by_key(|(_, info)| (info.group, info.binding));
        for (i, (g, info)) in found.into_iter().enumerate() {
            self.resources.insert(g, i as u16);
            self.resource_info.push(info);
        }

        // Inputs: each argument is its bound leaves' registers, concatenated.
        let mut inputs = Vec::new();
        let mut input_regs = Vec::new();
        let mut args = Vec::new();
        for arg in &ep.function.arguments {
            let leaves = io_leaves(
                module,
                arg.ty,
                arg.binding.as_ref(),
                arg.name.as_deref(),
                self.stage,
                true,
                &self.refuse,
            )?;
            let mut comps = Comps::new();
            for leaf in leaves {
                let regs: Vec<Reg> = (0..leaf.slot.components).map(|_| self.b.new_v()).collect();
                comps.extend(regs.iter().map(|&r| Val::V(r)));
                inputs.push(leaf.slot);
                input_regs.push(regs);
            }
            args.push(Value::Comps(comps));
        }

        // Outputs: the result's bound leaves; the entry point's returns store into them.
        let mut outputs: Vec<IoSlot> = Vec::new();
        let mut output_regs = Vec::new();
        let mut result = None;
        if let Some(res) = &ep.function.result {
            let leaves =
                io_leaves(module, res.ty, res.binding.as_ref(), None, self.stage, false, &self.refuse)?;
            let total: u32 = leaves.iter().map(|l| l.slot.components).sum();
            let var = self.new_var(VarKey::Outputs, total);
            let mut at = 0usize;
            for leaf in leaves {
                let n = leaf.slot.components as usize;
                let regs = self.vars[var].regs[at..at + n]
                    .iter()
                    .map(|v| match *v {
                        Val::V(r) => r,
                        _ => 0,
                    })
                    .collect();
                at += n;
                outputs.push(leaf.slot);
                output_regs.push(regs);
            }
            result = Some(var);
        }

        // Private globals start from their initialisers.
        let mut privates: Vec<_> = self.privates.iter().map(|(&g, &v)| (g, v)).collect();
        privates.sort_by_key(|(g, _)| g.index());
        for (g, var) in privates {
            let init = match module.global_variables[g].init {
                Some(init) => self.global_comps(init)?,
                None => smallvec![Val::C(0); self.vars[var].regs.len()],
            };
            self.init_var(var, &init);
        }

        let mut frame = Frame {
            exprs: &ep.function.expressions,
            types: Types::Function(ep_info),
            fun: Some(&ep.function),
            values: vec![None; ep.function.expressions.len()],
            args,
            locals: Vec::new(),
            result,
            instance: self.instances,
        };
        self.instances += 1;
        self.function_body(&mut frame, &ep.function)?;
        self.b.push(Inst::End);

        if self.b.code.len() > builder::MAX_INSTRUCTIONS {
            return Err(Stop::Error(
                self.refuse.too_large(format!("more than {} instructions", builder::MAX_INSTRUCTIONS)),
            ));
        }
        let consts = self.b.finish();
        Ok(Lowered {
            code: std::mem::take(&mut self.b.code),
            consts,
            n_v: self.b.n_v,
            n_u: self.b.n_u,
            n_slots: self.b.n_slots,
            loops: std::mem::take(&mut self.b.loops),
            interface: Interface {
                stage: self.stage,
                inputs,
                outputs,
                resources: std::mem::take(&mut self.resource_info),
                may_discard: ep_info.may_kill,
            },
            input_regs,
            output_regs,
            passes: 0,
        })
    }

    /// Writes a variable's initial value in every lane.
    fn init_var(&mut self, var: usize, init: &[Val]) {
        let regs = self.vars[var].regs.clone();
        for (&d, &x) in regs.iter().zip(init) {
            self.b.write(d, x, false);
        }
    }

    /// Lowers a function body in `frame`: its locals, its statements, and the end label its
    /// returns jump to.
    fn function_body(&mut self, frame: &mut Frame<'m>, fun: &'m Function) -> LResult<()> {
        let end = self.b.label();
        let ret = self.b.slot();
        self.constructs.push(Construct {
            kind: ConstructKind::Function { ret, end },
            depth: self.varying_depth,
            taint: false,
            slot_used: false,
        });
        self.b.push(Inst::MaskZero { slot: ret });
        for (h, local) in fun.local_variables.iter() {
            let len = types::flat_len(self.module, &self.module.types[local.ty].inner, &self.refuse)?;
            let key = VarKey::Local { instance: frame.instance, handle: h.index() as u32 };
            let var = self.new_var(key, len);
            frame.locals.push(var);
            let init = match local.init {
                Some(init) => self.comps(frame, init)?,
                None => smallvec![Val::C(0); len as usize],
            };
            self.init_var(var, &init);
        }
        self.block(frame, &fun.body, None)?;
        self.b.bind(end);
        let construct = self.constructs.pop();
        if construct.is_some_and(|c| c.slot_used) {
            self.b.push(Inst::MergeLanes { slot: ret });
        }
        Ok(())
    }

    /// The value of global (constant) expression `h`.
    fn global_comps(&mut self, h: Handle<Expression>) -> LResult<Comps> {
        let Some(mut g) = self.global_frame.take() else {
            return Err(self.unsupported("constants that refer to themselves"));
        };
        let r = self.comps(&mut g, h);
        self.global_frame = Some(g);
        r
    }

    /// The value of expression `h`, lowering it on first use.
    fn value(&mut self, f: &mut Frame<'m>, h: Handle<Expression>) -> LResult<Value> {
        if let Some(Some(v)) = f.values.get(h.index()) {
            return Ok(v.clone());
        }
        let v = self.lower_expr(f, h)?;
        if let Some(slot) = f.values.get_mut(h.index()) {
            *slot = Some(v.clone());
        }
        Ok(v)
    }

    /// The scalars of expression `h` (which must not be a pointer or a handle).
    fn comps(&mut self, f: &mut Frame<'m>, h: Handle<Expression>) -> LResult<Comps> {
        match self.value(f, h)? {
            Value::Comps(c) => Ok(c),
            Value::Ptr(_) => Err(self.unsupported("a pointer used as a value")),
            Value::Image(_) | Value::Sampler(_) => {
                Err(self.unsupported("a texture or sampler used as a value"))
            }
        }
    }

    /// The single scalar of expression `h`.
    fn scalar(&mut self, f: &mut Frame<'m>, h: Handle<Expression>) -> LResult<Val> {
        let c = self.comps(f, h)?;
        c.first().copied().ok_or_else(|| self.unsupported("an empty value where a scalar is expected"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of locals, each first set to a constant (uniform) and then to a value made from
    /// the varying input: lowering must learn them all in one pass, not one per pass.
    #[test]
    fn one_pass_learns_every_varying_variable() {
        let mut src = String::from("@fragment fn fs(@location(0) x: f32) -> @location(0) vec4<f32> {\n");
        src.push_str("    var v0 = 0.0;\n    v0 = x;\n");
        for i in 1..40 {
            src.push_str(&format!("    var v{i} = 1.0;\n    v{i} = v{} * 1.5 + 0.25;\n", i - 1));
        }
        src.push_str("    return vec4<f32>(v39, v20, v1, 1.0);\n}\n");
        let module = naga::front::wgsl::parse_str(&src).expect("parses");
        let module = f3d_hal::ValidatedModule::new(module).expect("validates");
        let refuse = Refuse { stage: f3d_hal::ShaderStage::Fragment, entry_point: "fs".into() };
        let lowered = lower(&module, 0, &refuse).unwrap_or_else(|_| panic!("lowers"));
        // The first pass learns all 40 variables; the second lowers them as varying.
        assert_eq!(lowered.passes, 2);
    }
}
