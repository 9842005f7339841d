//! Expressions: each naga expression becomes scalars (or a pointer, or a resource).

use naga::{BinaryOperator as B, Expression as E, Handle, ScalarKind as K, TypeInner as T};
use smallvec::smallvec;

use super::builder::Val;
use super::{Comps, Frame, LResult, Lowerer, Stop, Value, types};
use crate::ir::{DerivAxis, Inst};
use crate::ops::{Op1, Op2, Op3};

impl<'m> Lowerer<'m> {
    /// Lowers expression `h` of frame `f` (called once per expression, through `value`).
    pub(super) fn lower_expr(&mut self, f: &mut Frame<'m>, h: Handle<naga::Expression>) -> LResult<Value> {
        let Some(expr) = f.exprs.try_get(h).ok() else {
            return Err(self.unsupported("an expression handle out of range"));
        };
        let comps = |v: Comps| Ok(Value::Comps(v));
        match *expr {
            E::Literal(lit) => comps(smallvec![self.literal(lit)?]),
            E::Constant(c) => {
                let init = self.module.constants[c].init;
                comps(self.global_comps(init)?)
            }
            E::Override(o) => match self.module.overrides[o].init {
                Some(init) => comps(self.global_comps(init)?),
                None => Err(self.unsupported("a pipeline-overridable constant without a default")),
            },
            E::ZeroValue(ty) => {
                let n = types::flat_len(self.module, &self.module.types[ty].inner, &self.refuse)?;
                comps(smallvec![Val::C(0); n as usize])
            }
            E::Compose { ref components, .. } => {
                let mut out = Comps::new();
                for &c in components {
                    out.extend(self.comps(f, c)?);
                }
                comps(out)
            }
            E::Splat { size, value } => {
                let v = self.scalar(f, value)?;
                comps(smallvec![v; size as usize])
            }
            E::Swizzle { size, vector, pattern } => {
                let v = self.comps(f, vector)?;
                let pick = |i: usize| v.get(pattern[i] as usize).copied().unwrap_or(Val::C(0));
                comps((0..size as usize).map(pick).collect())
            }
            E::AccessIndex { base, index } => self.access_index(f, base, index),
            E::Access { base, index } => self.access(f, base, index),
            E::FunctionArgument(i) => {
                f.args.get(i as usize).cloned().ok_or_else(|| self.unsupported("a missing function argument"))
            }
            E::GlobalVariable(g) => self.global_variable(g),
            E::LocalVariable(l) => match f.locals.get(l.index()) {
                Some(&var) => {
                    Ok(Value::Ptr(super::Ptr { root: super::Root::Var(var), offset: 0, dynamic: None }))
                }
                None => Err(self.unsupported("a local variable used before its declaration")),
            },
            E::Load { pointer } => self.load(f, pointer),
            E::ImageSample {
                image,
                sampler,
                gather,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                clamp_to_edge,
            } => self.image_sample(
                f,
                super::image::SampleArgs {
                    image,
                    sampler,
                    gather,
                    coordinate,
                    array_index,
                    offset,
                    level,
                    depth_ref,
                    clamp_to_edge,
                },
            ),
            E::ImageLoad { image, coordinate, array_index, sample, level } => {
                self.image_load(f, image, coordinate, array_index, sample, level)
            }
            E::ImageQuery { image, query } => self.image_query(f, image, query),
            E::Unary { op, expr } => {
                let kind = types::scalar_kind(self.ty(f, expr));
                let op = match (op, kind) {
                    (naga::UnaryOperator::Negate, Some(K::Float)) => Op1::FNeg,
                    (naga::UnaryOperator::Negate, Some(K::Sint)) => Op1::INeg,
                    (naga::UnaryOperator::LogicalNot, Some(K::Bool)) => Op1::BNot,
                    (naga::UnaryOperator::BitwiseNot, Some(K::Bool)) => Op1::BNot,
                    (naga::UnaryOperator::BitwiseNot, Some(K::Sint | K::Uint)) => Op1::INot,
                    _ => return Err(self.unsupported(format!("the unary operator {op:?} on this type"))),
                };
                let v = self.comps(f, expr)?;
                comps(v.into_iter().map(|x| self.b.op1(op, x)).collect())
            }
            E::Binary { op, left, right } => self.binary(f, op, left, right),
            E::Select { condition, accept, reject } => {
                let cond = self.comps(f, condition)?;
                let a = self.comps(f, accept)?;
                let r = self.comps(f, reject)?;
                let mut out = Comps::with_capacity(a.len());
                for i in 0..a.len() {
                    let c = cond.get(i).or(cond.first()).copied().unwrap_or(Val::C(0));
                    let rej = r.get(i).copied().unwrap_or(Val::C(0));
                    out.push(self.b.op3(Op3::Select, rej, a[i], c));
                }
                comps(out)
            }
            E::Derivative { axis, ctrl, expr } => {
                if self.stage != f3d_hal::ShaderStage::Fragment {
                    return Err(self.unsupported("derivatives outside the fragment stage"));
                }
                let axis = match axis {
                    naga::DerivativeAxis::X => DerivAxis::X,
                    naga::DerivativeAxis::Y => DerivAxis::Y,
                    naga::DerivativeAxis::Width => DerivAxis::Width,
                };
                let fine = ctrl != naga::DerivativeControl::Coarse;
                let v = self.comps(f, expr)?;
                let mut out = Comps::with_capacity(v.len());
                for x in v {
                    out.push(match x {
                        Val::V(a) => {
                            let d = self.b.new_v();
                            self.b.push(Inst::Deriv { d, a, axis, fine });
                            Val::V(d)
                        }
                        _ => Val::f(0.0),
                    });
                }
                comps(out)
            }
            E::Relational { fun, argument } => {
                let v = self.comps(f, argument)?;
                match fun {
                    naga::RelationalFunction::All | naga::RelationalFunction::Any => {
                        let op = if fun == naga::RelationalFunction::All { Op2::And } else { Op2::Or };
                        let mut acc = v.first().copied().unwrap_or(Val::C(0));
                        for &x in v.iter().skip(1) {
                            acc = self.b.op2(op, acc, x);
                        }
                        comps(smallvec![acc])
                    }
                    naga::RelationalFunction::IsNan => {
                        comps(v.into_iter().map(|x| self.b.op1(Op1::FIsNan, x)).collect())
                    }
                    naga::RelationalFunction::IsInf => {
                        comps(v.into_iter().map(|x| self.b.op1(Op1::FIsInf, x)).collect())
                    }
                }
            }
            E::Math { fun, arg, arg1, arg2, arg3 } => {
                self.math(f, fun, arg, arg1, arg2, arg3).map(Value::Comps)
            }
            E::As { expr, kind, convert } => self.convert(f, expr, kind, convert),
            E::CallResult(_) => Err(self.unsupported("a call result used before its call")),
            E::ArrayLength(array) => self.array_length(f, array),
            E::AtomicResult { .. } => Err(self.unsupported("atomic operations")),
            E::WorkGroupUniformLoadResult { .. } => Err(self.unsupported("`workgroupUniformLoad`")),
            E::RayQueryVertexPositions { .. }
            | E::RayQueryProceedResult
            | E::RayQueryGetIntersection { .. } => Err(self.unsupported("ray queries")),
            E::SubgroupBallotResult | E::SubgroupOperationResult { .. } => {
                Err(self.unsupported("subgroup operations"))
            }
            E::CooperativeLoad { .. } | E::CooperativeMultiplyAdd { .. } => {
                Err(self.unsupported("cooperative matrices"))
            }
        }
    }

    fn literal(&self, lit: naga::Literal) -> LResult<Val> {
        use naga::Literal as L;
        Ok(match lit {
            L::F32(x) => Val::f(x),
            L::U32(x) => Val::C(x),
            L::I32(x) => Val::C(x as u32),
            L::Bool(b) => Val::C(b as u32),
            L::F16(_) => return Err(self.unsupported("f16 values")),
            L::F64(_) => return Err(self.unsupported("f64 values")),
            L::I64(_) | L::U64(_) => return Err(self.unsupported("64-bit integers")),
            L::I16(_) | L::U16(_) => return Err(self.unsupported("16-bit integers")),
            L::AbstractInt(_) | L::AbstractFloat(_) => {
                return Err(self.unsupported("abstract numeric literals"));
            }
        })
    }

    fn global_variable(&mut self, g: Handle<naga::GlobalVariable>) -> LResult<Value> {
        if let Some(&var) = self.privates.get(&g) {
            return Ok(Value::Ptr(super::Ptr { root: super::Root::Var(var), offset: 0, dynamic: None }));
        }
        let Some(&res) = self.resources.get(&g) else {
            return Err(self.unsupported("a global variable of this address space"));
        };
        let var = &self.module.global_variables[g];
        Ok(match (var.space, &self.module.types[var.ty].inner) {
            (naga::AddressSpace::Uniform | naga::AddressSpace::Storage { .. }, _) => {
                Value::Ptr(super::Ptr { root: super::Root::Uniform(res), offset: 0, dynamic: None })
            }
            (_, T::Image { .. }) => Value::Image(res),
            (_, T::Sampler { .. }) => Value::Sampler(res),
            _ => return Err(self.unsupported("a global variable of this type")),
        })
    }

    /// `Op2` for a componentwise binary operator on scalars of `kind`.
    fn binop(&self, op: B, kind: K) -> LResult<Op2> {
        use Op2 as O;
        let float = kind == K::Float;
        let signed = kind == K::Sint;
        let int = matches!(kind, K::Sint | K::Uint);
        Ok(match op {
            B::Add if float => O::FAdd,
            B::Add if int => O::IAdd,
            B::Subtract if float => O::FSub,
            B::Subtract if int => O::ISub,
            B::Multiply if float => O::FMul,
            B::Multiply if int => O::IMul,
            B::Divide if float => O::FDiv,
            B::Divide if signed => O::SDiv,
            B::Divide if int => O::UDiv,
            B::Modulo if float => O::FMod,
            B::Modulo if signed => O::SMod,
            B::Modulo if int => O::UMod,
            B::Equal if float => O::FEq,
            B::Equal => O::IEq,
            B::NotEqual if float => O::FNe,
            B::NotEqual => O::INe,
            B::Less if float => O::FLt,
            B::Less if signed => O::SLt,
            B::Less if int => O::ULt,
            B::LessEqual if float => O::FLe,
            B::LessEqual if signed => O::SLe,
            B::LessEqual if int => O::ULe,
            B::Greater if float => O::FGt,
            B::Greater if signed => O::SGt,
            B::Greater if int => O::UGt,
            B::GreaterEqual if float => O::FGe,
            B::GreaterEqual if signed => O::SGe,
            B::GreaterEqual if int => O::UGe,
            B::And | B::LogicalAnd if !float => O::And,
            B::InclusiveOr | B::LogicalOr if !float => O::Or,
            B::ExclusiveOr if !float => O::Xor,
            B::ShiftLeft if int => O::Shl,
            B::ShiftRight if signed => O::SShr,
            B::ShiftRight if int => O::UShr,
            _ => return Err(self.unsupported(format!("the operator {op:?} on {kind:?} values"))),
        })
    }

    fn binary(
        &mut self,
        f: &mut Frame<'m>,
        op: B,
        left: Handle<naga::Expression>,
        right: Handle<naga::Expression>,
    ) -> LResult<Value> {
        let (lt, rt) = (self.ty(f, left), self.ty(f, right));
        let a = self.comps(f, left)?;
        let b = self.comps(f, right)?;
        if op == B::Multiply {
            match (lt, rt) {
                (&T::Matrix { columns, rows, .. }, &T::Vector { .. }) => {
                    return Ok(Value::Comps(self.mat_vec(&a, columns as usize, rows as usize, &b)));
                }
                (&T::Vector { .. }, &T::Matrix { columns, rows, .. }) => {
                    let (c, r) = (columns as usize, rows as usize);
                    let out = (0..c).map(|j| self.dot(&b[j * r..(j + 1) * r], &a)).collect();
                    return Ok(Value::Comps(out));
                }
                (&T::Matrix { rows, .. }, &T::Matrix { columns: c2, rows: k, .. }) => {
                    let (r, k) = (rows as usize, k as usize);
                    let mut out = Comps::with_capacity(c2 as usize * r);
                    for j in 0..c2 as usize {
                        out.extend(self.mat_vec(&a, k, r, &b[j * k..(j + 1) * k]));
                    }
                    return Ok(Value::Comps(out));
                }
                _ => {}
            }
        }
        let kind = types::scalar_kind(lt)
            .ok_or_else(|| self.unsupported("a binary operator on a composite value"))?;
        let op2 = self.binop(op, kind)?;
        let n = a.len().max(b.len());
        let mut out = Comps::with_capacity(n);
        for i in 0..n {
            let x = if a.len() == 1 { a[0] } else { a.get(i).copied().unwrap_or(Val::C(0)) };
            let y = if b.len() == 1 { b[0] } else { b.get(i).copied().unwrap_or(Val::C(0)) };
            out.push(self.b.op2(op2, x, y));
        }
        Ok(Value::Comps(out))
    }

    /// A column-major `columns`x`rows` matrix times a vector of `columns` scalars.
    pub(super) fn mat_vec(&mut self, m: &[Val], columns: usize, rows: usize, v: &[Val]) -> Comps {
        (0..rows)
            .map(|r| {
                let mut acc = self.b.op2(Op2::FMul, m[r], v[0]);
                for c in 1..columns {
                    acc = self.b.op3(Op3::FMulAdd, m[c * rows + r], v[c], acc);
                }
                acc
            })
            .collect()
    }

    /// The dot product of two float vectors (products summed left to right).
    pub(super) fn dot(&mut self, a: &[Val], b: &[Val]) -> Val {
        let mut acc = self.b.op2(Op2::FMul, a[0], b[0]);
        for i in 1..a.len().min(b.len()) {
            acc = self.b.op3(Op3::FMulAdd, a[i], b[i], acc);
        }
        acc
    }

    fn convert(
        &mut self,
        f: &mut Frame<'m>,
        expr: Handle<naga::Expression>,
        to: K,
        convert: Option<u8>,
    ) -> LResult<Value> {
        let from = types::scalar_kind(self.ty(f, expr))
            .ok_or_else(|| self.unsupported("a conversion of a composite"))?;
        let v = self.comps(f, expr)?;
        if let Some(width) = convert
            && to != K::Bool
            && width != 4
        {
            crate::interface::scalar_type(naga::Scalar { kind: to, width }, &self.refuse)?;
        }
        let op = match (convert, from, to) {
            (None, _, _) => None,
            (_, a, b) if a == b => None,
            (_, K::Sint, K::Uint) | (_, K::Uint, K::Sint) => None,
            (_, K::Float, K::Sint) => Some(Op1::F2I),
            (_, K::Float, K::Uint) => Some(Op1::F2U),
            (_, K::Sint, K::Float) => Some(Op1::I2F),
            (_, K::Uint, K::Float) => Some(Op1::U2F),
            (_, K::Float, K::Bool) => Some(Op1::F2B),
            (_, K::Sint | K::Uint, K::Bool) => Some(Op1::I2B),
            (_, K::Bool, K::Float) => Some(Op1::B2F),
            (_, K::Bool, K::Sint | K::Uint) => Some(Op1::B2I),
            _ => return Err(self.unsupported(format!("conversion from {from:?} to {to:?}"))),
        };
        Ok(Value::Comps(match op {
            Some(op) => v.into_iter().map(|x| self.b.op1(op, x)).collect(),
            None => v,
        }))
    }

    /// An error for a construct met in a statement.
    pub(super) fn refuse_stmt(&self, what: &str) -> Stop {
        self.unsupported(what)
    }
}
