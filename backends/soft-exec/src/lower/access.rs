//! Pointers, indexing, loads and stores.
//!
//! A pointer into a variable names scalar registers; a pointer into a uniform block or a
//! read-only storage buffer names bytes. Constant indices move the pointer's offset; a
//! dynamic index is clamped to the composite (WGSL lets an out-of-range index read any
//! element, and a clamp never faults) and added to the pointer's dynamic part. A
//! runtime-sized array's length is known only once a buffer is bound, so any index into it,
//! constant or not, is clamped at run time to the elements the buffer holds.
//!
//! **Load aliasing.** Loading a variable normally needs no copy: the load's value *is* the
//! variable's registers, as long as nothing stores to the variable while the loaded value
//! can still be used. naga scopes an expression to the rest of its block (and, in a loop
//! body, the continuing block), so a load copies only when such a store follows.

use std::borrow::Cow;

use naga::{Block, Expression as E, Handle, Statement as S, TypeInner as T};
use smallvec::smallvec;

use super::builder::Val;
use super::{Comps, Frame, LResult, Lowerer, Ptr, Root, Value, types};
use crate::ir::{Dst, Inst};
use crate::ops::Op2;

/// The variable a pointer expression starts from, as seen inside one function.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RootKey {
    Local(Handle<naga::LocalVariable>),
    Argument(u32),
    Global(Handle<naga::GlobalVariable>),
}

fn root_key(exprs: &naga::Arena<naga::Expression>, mut h: Handle<naga::Expression>) -> Option<RootKey> {
    loop {
        match *exprs.try_get(h).ok()? {
            E::Access { base, .. } | E::AccessIndex { base, .. } => h = base,
            E::LocalVariable(l) => return Some(RootKey::Local(l)),
            E::FunctionArgument(i) => return Some(RootKey::Argument(i)),
            E::GlobalVariable(g) => return Some(RootKey::Global(g)),
            _ => return None,
        }
    }
}

/// The element stride of a runtime-sized array type.
fn runtime_stride(inner: &T) -> Option<u32> {
    match *inner {
        T::Array { size: naga::ArraySize::Dynamic, stride, .. } => Some(stride),
        _ => None,
    }
}

impl<'m> Lowerer<'m> {
    /// Whether a statement may store through a pointer rooted at `root`.
    fn may_store(&self, fun: &naga::Function, stmt: &S, root: RootKey) -> bool {
        let roots = |p: Handle<naga::Expression>| root_key(&fun.expressions, p) == Some(root);
        match stmt {
            S::Store { pointer, .. } => roots(*pointer),
            S::Call { function, arguments, .. } => {
                arguments.iter().any(|&a| roots(a))
                    || match root {
                        RootKey::Global(g) => self.info[*function][g].contains(naga::valid::GlobalUse::WRITE),
                        _ => false,
                    }
            }
            S::Block(b) => self.block_may_store(fun, b, root),
            S::If { accept, reject, .. } => {
                self.block_may_store(fun, accept, root) || self.block_may_store(fun, reject, root)
            }
            S::Switch { cases, .. } => cases.iter().any(|c| self.block_may_store(fun, &c.body, root)),
            S::Loop { body, continuing, .. } => {
                self.block_may_store(fun, body, root) || self.block_may_store(fun, continuing, root)
            }
            // Anything else that writes memory is refused before it runs.
            _ => false,
        }
    }

    fn block_may_store(&self, fun: &naga::Function, block: &Block, root: RootKey) -> bool {
        block.iter().any(|s| self.may_store(fun, s, root))
    }

    /// Whether the variable behind `pointer` may be stored to while a value loaded from it
    /// now is still in scope.
    fn stored_later(&self, f: &Frame<'m>, pointer: Handle<naga::Expression>) -> bool {
        let (Some(fun), Some(root)) = (f.fun, root_key(f.exprs, pointer)) else { return true };
        let Some(&(block, at, continuing)) = self.cursor.last() else { return true };
        block.get(at + 1..).is_some_and(|rest| rest.iter().any(|s| self.may_store(fun, s, root)))
            || continuing.is_some_and(|c| self.block_may_store(fun, c, root))
    }

    /// `base.index` (constant index).
    pub(super) fn access_index(
        &mut self,
        f: &mut Frame<'m>,
        base: Handle<naga::Expression>,
        index: u32,
    ) -> LResult<Value> {
        let bt = self.ty(f, base);
        match self.value(f, base)? {
            Value::Comps(v) => {
                let (start, len) = types::component_range(self.module, bt, index, &self.refuse)?;
                Ok(Value::Comps(
                    v.get(start as usize..(start + len) as usize).map(Comps::from_slice).unwrap_or_default(),
                ))
            }
            Value::Ptr(p) => {
                let pointee = self.pointee(bt)?;
                if let Some(stride) = runtime_stride(&pointee) {
                    return Ok(Value::Ptr(self.runtime_element(p, Val::C(index), stride)?));
                }
                let step = match p.root {
                    Root::Var(_) => types::component_range(self.module, &pointee, index, &self.refuse)?.0,
                    Root::Uniform(_) => types::byte_range(self.module, &pointee, index, &self.refuse)?,
                };
                Ok(Value::Ptr(Ptr { offset: p.offset + step, ..p }))
            }
            _ => Err(self.unsupported("indexing a texture or sampler (binding arrays)")),
        }
    }

    /// `base[index]` (dynamic index).
    pub(super) fn access(
        &mut self,
        f: &mut Frame<'m>,
        base: Handle<naga::Expression>,
        index: Handle<naga::Expression>,
    ) -> LResult<Value> {
        let idx = self.scalar(f, index)?;
        if let Val::C(i) = idx {
            return self.access_index(f, base, i);
        }
        let bt = self.ty(f, base);
        match self.value(f, base)? {
            Value::Comps(v) => {
                let (count, stride) = types::dynamic_shape(self.module, bt, &self.refuse)?;
                let mut out = Comps::with_capacity(stride as usize);
                for c in 0..stride {
                    let list: Comps =
                        (0..count).filter_map(|k| v.get((k * stride + c) as usize).copied()).collect();
                    out.push(self.b.gather(&list, idx, 0));
                }
                Ok(Value::Comps(out))
            }
            Value::Ptr(p) => {
                let pointee = self.pointee(bt)?;
                if let Some(stride) = runtime_stride(&pointee) {
                    return Ok(Value::Ptr(self.runtime_element(p, idx, stride)?));
                }
                let (count, stride) = match p.root {
                    Root::Var(_) => types::dynamic_shape(self.module, &pointee, &self.refuse)?,
                    Root::Uniform(_) => types::byte_shape(&pointee, &self.refuse)?,
                };
                let clamped = self.b.op2(Op2::UMin, idx, Val::C(count.saturating_sub(1)));
                let scaled = self.b.op2(Op2::IMul, clamped, Val::C(stride));
                let dynamic = Some(match p.dynamic {
                    Some(d) => self.b.op2(Op2::IAdd, d, scaled),
                    None => scaled,
                });
                Ok(Value::Ptr(Ptr { dynamic, ..p }))
            }
            _ => Err(self.unsupported("indexing a texture or sampler (binding arrays)")),
        }
    }

    /// Element `idx` of the runtime-sized array `p` points at (in a storage buffer), with
    /// elements `stride` bytes apart. The index is clamped to the last element the bound
    /// buffer holds, as constant-sized arrays clamp to theirs; when it holds none, element 0
    /// is read, and whatever of it lies past the buffer's end reads as 0.
    fn runtime_element(&mut self, p: Ptr, idx: Val, stride: u32) -> LResult<Ptr> {
        let Root::Uniform(res) = p.root else {
            return Err(self.unsupported("runtime-sized arrays outside storage buffers"));
        };
        let len = self.array_length_at(res, &p, stride)?;
        let at_least_one = self.b.op2(Op2::UMax, len, Val::C(1));
        let last = self.b.op2(Op2::ISub, at_least_one, Val::C(1));
        let clamped = self.b.op2(Op2::UMin, idx, last);
        let scaled = self.b.op2(Op2::IMul, clamped, Val::C(stride));
        let dynamic = Some(match p.dynamic {
            Some(d) => self.b.op2(Op2::IAdd, d, scaled),
            None => scaled,
        });
        Ok(Ptr { dynamic, ..p })
    }

    /// The element count of the runtime-sized array `p` points at in storage buffer `res`: a
    /// uniform value, computed from the bound buffer's length.
    fn array_length_at(&mut self, res: u16, p: &Ptr, stride: u32) -> LResult<Val> {
        if p.dynamic.is_some() {
            // WGSL puts a runtime-sized array only at a fixed place in its buffer.
            return Err(self.unsupported("a runtime-sized array at a dynamic offset"));
        }
        let r = self.b.new_u();
        self.b.push(Inst::ArrayLength { d: Dst::U(r), res, offset: p.offset, stride });
        Ok(Val::U(r))
    }

    /// `arrayLength(array)`.
    pub(super) fn array_length(
        &mut self,
        f: &mut Frame<'m>,
        array: Handle<naga::Expression>,
    ) -> LResult<Value> {
        let ty = self.ty(f, array);
        let Value::Ptr(p) = self.value(f, array)? else {
            return Err(self.unsupported("`arrayLength` of something that is not a pointer"));
        };
        let pointee = self.pointee(ty)?;
        let (Root::Uniform(res), Some(stride)) = (p.root, runtime_stride(&pointee)) else {
            return Err(self.unsupported("`arrayLength` of something that is not a runtime-sized array"));
        };
        Ok(Value::Comps(smallvec![self.array_length_at(res, &p, stride)?]))
    }

    /// The type a pointer type points at.
    fn pointee(&self, ptr_ty: &'m T) -> LResult<Cow<'m, T>> {
        match *ptr_ty {
            T::Pointer { base, .. } => Ok(Cow::Borrowed(&self.module.types[base].inner)),
            // A pointer to a matrix column.
            T::ValuePointer { size: Some(size), scalar, .. } => Ok(Cow::Owned(T::Vector { size, scalar })),
            _ => Err(self.unsupported("indexing through a pointer to a scalar")),
        }
    }

    /// `*pointer`.
    pub(super) fn load(&mut self, f: &mut Frame<'m>, pointer: Handle<naga::Expression>) -> LResult<Value> {
        let Value::Ptr(p) = self.value(f, pointer)? else {
            return Err(self.unsupported("a load through something that is not a pointer"));
        };
        let loaded_ty = match *self.ty(f, pointer) {
            T::Pointer { base, .. } => &self.module.types[base].inner,
            T::ValuePointer { size: None, scalar, .. } => {
                types::check_scalar(scalar, &self.refuse)?;
                return self.load_scalars(f, pointer, &p, 1);
            }
            T::ValuePointer { size: Some(size), scalar, .. } => {
                types::check_scalar(scalar, &self.refuse)?;
                return self.load_scalars(f, pointer, &p, size as u32);
            }
            _ => return Err(self.unsupported("a load through something that is not a pointer")),
        };
        match p.root {
            Root::Var(_) => {
                let len = types::flat_len(self.module, loaded_ty, &self.refuse)?;
                self.load_scalars(f, pointer, &p, len)
            }
            Root::Uniform(res) => {
                let mut offsets = Vec::new();
                types::byte_offsets(self.module, loaded_ty, p.offset, &mut offsets, &self.refuse)?;
                Ok(Value::Comps(offsets.into_iter().map(|o| self.uniform_load(res, o, p.dynamic)).collect()))
            }
        }
    }

    fn load_scalars(
        &mut self,
        f: &mut Frame<'m>,
        pointer: Handle<naga::Expression>,
        p: &Ptr,
        len: u32,
    ) -> LResult<Value> {
        match p.root {
            Root::Uniform(res) => Ok(Value::Comps(
                (0..len).map(|i| self.uniform_load(res, p.offset + 4 * i, p.dynamic)).collect(),
            )),
            Root::Var(var) => {
                let (regs, uniform) = match self.vars.get(var) {
                    Some(v) => (v.regs.clone(), v.uniform),
                    None => return Err(self.unsupported("a load from an unknown variable")),
                };
                if let Some(idx) = p.dynamic {
                    return Ok(Value::Comps(
                        (0..len).map(|i| self.b.gather(&regs, idx, p.offset + i)).collect(),
                    ));
                }
                let start = p.offset as usize;
                let Some(slice) = regs.get(start..start + len as usize) else {
                    return Err(self.unsupported("a load past the end of a variable"));
                };
                if !self.stored_later(f, pointer) {
                    return Ok(Value::Comps(Comps::from_slice(slice)));
                }
                Ok(Value::Comps(slice.iter().map(|&r| self.b.copy(r, !uniform)).collect()))
            }
        }
    }

    fn uniform_load(&mut self, res: u16, offset: u32, dynamic: Option<Val>) -> Val {
        let (d, v) = match dynamic {
            Some(Val::V(_)) => {
                let r = self.b.new_v();
                (Dst::V(r), Val::V(r))
            }
            _ => {
                let r = self.b.new_u();
                (Dst::U(r), Val::U(r))
            }
        };
        let (offset, idx) = match dynamic {
            Some(Val::C(c)) => (offset.wrapping_add(c), None),
            Some(d) => (offset, Some(self.b.src(d))),
            None => (offset, None),
        };
        self.b.push(Inst::UniformLoad { d, res, offset, idx, stride: 1 });
        v
    }

    /// `*pointer = value`.
    pub(super) fn store(
        &mut self,
        f: &mut Frame<'m>,
        pointer: Handle<naga::Expression>,
        value: Handle<naga::Expression>,
    ) -> LResult<()> {
        let Value::Ptr(p) = self.value(f, pointer)? else {
            return Err(self.unsupported("a store through something that is not a pointer"));
        };
        let v = self.comps(f, value)?;
        match p.root {
            Root::Var(var) => self.store_var(var, p.offset, p.dynamic, &v),
            Root::Uniform(res) => {
                let storage = matches!(
                    self.resource_info.get(usize::from(res)).map(|r| r.kind),
                    Some(crate::ResourceKind::StorageBuffer { .. })
                );
                Err(self.unsupported(if storage {
                    "stores to a storage buffer"
                } else {
                    "stores to a uniform block"
                }))
            }
        }
    }
}
