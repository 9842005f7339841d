//! WGSL's math builtins, as scalar operations on each component.

use naga::{Handle, MathFunction as M, ScalarKind as K};
use smallvec::smallvec;

use super::builder::Val;
use super::{Comps, Frame, LResult, Lowerer, types};
use crate::ops::{Op1, Op2, Op3};

/// Component `i` of `v`, or its only component when `v` is a scalar (WGSL and GLSL both mix
/// scalars into vector builtins).
fn at(v: &[Val], i: usize) -> Val {
    if v.len() == 1 { v[0] } else { v.get(i).copied().unwrap_or(Val::C(0)) }
}

impl<'m> Lowerer<'m> {
    fn map1(&mut self, op: Op1, a: &[Val]) -> Comps {
        a.iter().map(|&x| self.b.op1(op, x)).collect()
    }

    fn map2(&mut self, op: Op2, a: &[Val], b: &[Val]) -> Comps {
        let n = a.len().max(b.len());
        (0..n).map(|i| self.b.op2(op, at(a, i), at(b, i))).collect()
    }

    fn map3(&mut self, op: Op3, a: &[Val], b: &[Val], c: &[Val]) -> Comps {
        let n = a.len().max(b.len()).max(c.len());
        (0..n).map(|i| self.b.op3(op, at(a, i), at(b, i), at(c, i))).collect()
    }

    fn length(&mut self, v: &[Val]) -> Val {
        if v.len() == 1 {
            return self.b.op1(Op1::FAbs, v[0]);
        }
        let d = self.dot(v, v);
        self.b.op1(Op1::FSqrt, d)
    }

    /// The determinant of a column-major `n`x`n` matrix, by cofactor expansion.
    fn determinant(&mut self, m: &[Val], n: usize) -> Val {
        match n {
            1 => m[0],
            2 => {
                let ad = self.b.op2(Op2::FMul, m[0], m[3]);
                let bc = self.b.op2(Op2::FMul, m[2], m[1]);
                self.b.op2(Op2::FSub, ad, bc)
            }
            _ => {
                let mut acc = Val::f(0.0);
                // Expansion along column 0: m[r] is row r of column 0.
                for c in 0..n {
                    let minor = minor(m, n, c, 0);
                    let det = self.determinant(&minor, n - 1);
                    let term = self.b.op2(Op2::FMul, m[c], det);
                    acc = self.b.op2(if c % 2 == 0 { Op2::FAdd } else { Op2::FSub }, acc, term);
                }
                acc
            }
        }
    }

    fn inverse(&mut self, m: &[Val], n: usize) -> Comps {
        let det = self.determinant(m, n);
        let inv_det = self.b.op2(Op2::FDiv, Val::f(1.0), det);
        let mut out = smallvec![Val::C(0); n * n];
        if n == 1 {
            out[0] = inv_det;
            return out;
        }
        for c in 0..n {
            for r in 0..n {
                // inverse[c][r] = cofactor(row c, column r) / det: the adjugate is the cofactors' transpose.
                let minor = minor(m, n, c, r);
                let det_minor = self.determinant(&minor, n - 1);
                let signed = if (r + c) % 2 == 0 { det_minor } else { self.b.op1(Op1::FNeg, det_minor) };
                out[c * n + r] = self.b.op2(Op2::FMul, signed, inv_det);
            }
        }
        out
    }

    /// Packs one converted lane value per byte (or half) into a `u32`.
    fn pack(&mut self, op: Op1, v: &[Val], bits: u32) -> Val {
        let mut acc = Val::C(0);
        for (i, &x) in v.iter().enumerate() {
            let part = self.b.op1(op, x);
            let shifted = self.b.op2(Op2::Shl, part, Val::C(bits * i as u32));
            acc = self.b.op2(Op2::Or, acc, shifted);
        }
        acc
    }

    fn unpack(&mut self, op: Op2, x: Val, count: u32) -> Comps {
        (0..count).map(|i| self.b.op2(op, x, Val::C(i))).collect()
    }

    /// Lowers a math builtin.
    pub(super) fn math(
        &mut self,
        f: &mut Frame<'m>,
        fun: M,
        arg: Handle<naga::Expression>,
        arg1: Option<Handle<naga::Expression>>,
        arg2: Option<Handle<naga::Expression>>,
        arg3: Option<Handle<naga::Expression>>,
    ) -> LResult<Comps> {
        let t0 = self.ty(f, arg);
        let kind = types::scalar_kind(t0).unwrap_or(K::Float);
        let a = self.comps(f, arg)?;
        let mut get = |this: &mut Self, h: Option<Handle<naga::Expression>>| -> LResult<Comps> {
            match h {
                Some(h) => this.comps(f, h),
                None => Err(this.unsupported(format!("`{fun:?}` without all its arguments"))),
            }
        };
        let float = kind == K::Float;
        let signed = kind == K::Sint;
        let pick = |fl: Op1, s: Op1, u: Option<Op1>| {
            if float {
                Some(fl)
            } else if signed {
                Some(s)
            } else {
                u
            }
        };
        Ok(match fun {
            M::Abs => match pick(Op1::FAbs, Op1::IAbs, None) {
                Some(op) => self.map1(op, &a),
                None => a,
            },
            M::Min | M::Max => {
                let b = get(self, arg1)?;
                let op = match (fun, kind) {
                    (M::Min, K::Float) => Op2::FMin,
                    (M::Min, K::Sint) => Op2::SMin,
                    (M::Min, _) => Op2::UMin,
                    (_, K::Float) => Op2::FMax,
                    (_, K::Sint) => Op2::SMax,
                    _ => Op2::UMax,
                };
                self.map2(op, &a, &b)
            }
            M::Clamp => {
                let (lo, hi) = (get(self, arg1)?, get(self, arg2)?);
                let op = if float {
                    Op3::FClamp
                } else if signed {
                    Op3::SClamp
                } else {
                    Op3::UClamp
                };
                self.map3(op, &a, &lo, &hi)
            }
            M::Saturate => self.map1(Op1::FSaturate, &a),
            M::Cos => self.map1(Op1::FCos, &a),
            M::Cosh => self.map1(Op1::FCosh, &a),
            M::Sin => self.map1(Op1::FSin, &a),
            M::Sinh => self.map1(Op1::FSinh, &a),
            M::Tan => self.map1(Op1::FTan, &a),
            M::Tanh => self.map1(Op1::FTanh, &a),
            M::Acos => self.map1(Op1::FAcos, &a),
            M::Asin => self.map1(Op1::FAsin, &a),
            M::Atan => self.map1(Op1::FAtan, &a),
            M::Asinh => self.map1(Op1::FAsinh, &a),
            M::Acosh => self.map1(Op1::FAcosh, &a),
            M::Atanh => self.map1(Op1::FAtanh, &a),
            M::Atan2 => {
                let b = get(self, arg1)?;
                self.map2(Op2::FAtan2, &a, &b)
            }
            M::Radians => self.map2(Op2::FMul, &a, &[Val::f(std::f32::consts::PI / 180.0)]),
            M::Degrees => self.map2(Op2::FMul, &a, &[Val::f(180.0 / std::f32::consts::PI)]),
            M::Ceil => self.map1(Op1::FCeil, &a),
            M::Floor => self.map1(Op1::FFloor, &a),
            M::Round => self.map1(Op1::FRound, &a),
            M::Fract => self.map1(Op1::FFract, &a),
            M::Trunc => self.map1(Op1::FTrunc, &a),
            M::Modf => {
                let whole = self.map1(Op1::FTrunc, &a);
                let mut out = self.map2(Op2::FSub, &a, &whole);
                out.extend(whole);
                out
            }
            M::Frexp => {
                let mut out = self.map1(Op1::FFrexpFract, &a);
                out.extend(self.map1(Op1::FFrexpExp, &a));
                out
            }
            M::Ldexp => {
                let b = get(self, arg1)?;
                self.map2(Op2::FLdexp, &a, &b)
            }
            M::Exp => self.map1(Op1::FExp, &a),
            M::Exp2 => self.map1(Op1::FExp2, &a),
            M::Log => self.map1(Op1::FLog, &a),
            M::Log2 => self.map1(Op1::FLog2, &a),
            M::Pow => {
                let b = get(self, arg1)?;
                self.map2(Op2::FPow, &a, &b)
            }
            M::Dot => {
                let b = get(self, arg1)?;
                if float {
                    smallvec![self.dot(&a, &b)]
                } else {
                    let products = self.map2(Op2::IMul, &a, &b);
                    let mut acc = products[0];
                    for &p in &products[1..] {
                        acc = self.b.op2(Op2::IAdd, acc, p);
                    }
                    smallvec![acc]
                }
            }
            M::Dot4I8Packed => {
                let b = get(self, arg1)?;
                self.map2(Op2::Dot4I8, &a, &b)
            }
            M::Dot4U8Packed => {
                let b = get(self, arg1)?;
                self.map2(Op2::Dot4U8, &a, &b)
            }
            M::Outer => {
                let b = get(self, arg1)?;
                let mut out = Comps::with_capacity(a.len() * b.len());
                for &bj in &b {
                    out.extend(self.map2(Op2::FMul, &a, &[bj]));
                }
                out
            }
            M::Cross => {
                let b = get(self, arg1)?;
                if a.len() != 3 || b.len() != 3 {
                    return Err(self.unsupported("`cross` of vectors that are not vec3"));
                }
                let mut out = Comps::with_capacity(3);
                for (i, j) in [(1, 2), (2, 0), (0, 1)] {
                    let x = self.b.op2(Op2::FMul, a[i], b[j]);
                    let y = self.b.op2(Op2::FMul, a[j], b[i]);
                    out.push(self.b.op2(Op2::FSub, x, y));
                }
                out
            }
            M::Distance => {
                let b = get(self, arg1)?;
                let d = self.map2(Op2::FSub, &a, &b);
                smallvec![self.length(&d)]
            }
            M::Length => smallvec![self.length(&a)],
            M::Normalize => {
                let d = self.dot(&a, &a);
                let inv = self.b.op1(Op1::FRsqrt, d);
                self.map2(Op2::FMul, &a, &[inv])
            }
            M::FaceForward => {
                let (i, nref) = (get(self, arg1)?, get(self, arg2)?);
                let d = self.dot(&nref, &i);
                let neg = self.b.op2(Op2::FLt, d, Val::f(0.0));
                let flipped = self.map1(Op1::FNeg, &a);
                self.map3(Op3::Select, &flipped, &a, &[neg])
            }
            M::Reflect => {
                let n = get(self, arg1)?;
                let d = self.dot(&n, &a);
                let d2 = self.b.op2(Op2::FMul, d, Val::f(2.0));
                let scaled = self.map2(Op2::FMul, &n, &[d2]);
                self.map2(Op2::FSub, &a, &scaled)
            }
            M::Refract => {
                let (n, eta) = (get(self, arg1)?, get(self, arg2)?);
                let eta = eta[0];
                let d = self.dot(&n, &a);
                let dd = self.b.op2(Op2::FMul, d, d);
                let one_minus = self.b.op2(Op2::FSub, Val::f(1.0), dd);
                let ee = self.b.op2(Op2::FMul, eta, eta);
                let t = self.b.op2(Op2::FMul, ee, one_minus);
                let k = self.b.op2(Op2::FSub, Val::f(1.0), t);
                let sk = self.b.op1(Op1::FSqrt, k);
                let ed = self.b.op2(Op2::FMul, eta, d);
                let coef = self.b.op2(Op2::FAdd, ed, sk);
                let ei = self.map2(Op2::FMul, &a, &[eta]);
                let cn = self.map2(Op2::FMul, &n, &[coef]);
                let r = self.map2(Op2::FSub, &ei, &cn);
                let neg = self.b.op2(Op2::FLt, k, Val::f(0.0));
                self.map3(Op3::Select, &r, &[Val::f(0.0)], &[neg])
            }
            M::Sign => match pick(Op1::FSign, Op1::ISign, None) {
                Some(op) => self.map1(op, &a),
                None => return Err(self.unsupported("`sign` of unsigned integers")),
            },
            M::Fma => {
                let (b, c) = (get(self, arg1)?, get(self, arg2)?);
                self.map3(Op3::FFma, &a, &b, &c)
            }
            M::Mix => {
                let (b, t) = (get(self, arg1)?, get(self, arg2)?);
                self.map3(Op3::FMix, &a, &b, &t)
            }
            M::Step => {
                let x = get(self, arg1)?;
                self.map2(Op2::FStep, &a, &x)
            }
            M::SmoothStep => {
                let (hi, x) = (get(self, arg1)?, get(self, arg2)?);
                self.map3(Op3::FSmoothStep, &a, &hi, &x)
            }
            M::Sqrt => self.map1(Op1::FSqrt, &a),
            M::InverseSqrt => self.map1(Op1::FRsqrt, &a),
            M::Inverse | M::Transpose | M::Determinant => {
                let naga::TypeInner::Matrix { columns, rows, .. } = *t0 else {
                    return Err(self.unsupported(format!("`{fun:?}` of something that is not a matrix")));
                };
                let (c, r) = (columns as usize, rows as usize);
                match fun {
                    M::Transpose => {
                        let mut out = Comps::with_capacity(c * r);
                        for i in 0..r {
                            for j in 0..c {
                                out.push(a[j * r + i]);
                            }
                        }
                        out
                    }
                    _ if c != r => return Err(self.unsupported(format!("`{fun:?}` of a non-square matrix"))),
                    M::Determinant => smallvec![self.determinant(&a, c)],
                    _ => self.inverse(&a, c),
                }
            }
            M::QuantizeToF16 => self.map1(Op1::FQuantizeF16, &a),
            M::CountTrailingZeros => self.map1(Op1::CountTrailingZeros, &a),
            M::CountLeadingZeros => self.map1(Op1::CountLeadingZeros, &a),
            M::CountOneBits => self.map1(Op1::CountOnes, &a),
            M::ReverseBits => self.map1(Op1::ReverseBits, &a),
            M::ExtractBits => {
                let (o, c) = (get(self, arg1)?, get(self, arg2)?);
                self.map3(if signed { Op3::ExtractBitsS } else { Op3::ExtractBitsU }, &a, &o, &c)
            }
            M::InsertBits => {
                let (n, o, c) = (get(self, arg1)?, get(self, arg2)?, get(self, arg3)?);
                let mask = self.b.op2(Op2::BitMask, o[0], c[0]);
                let shifted = self.map2(Op2::ShlOrZero, &n, &o);
                self.map3(Op3::InsertMasked, &a, &shifted, &[mask])
            }
            M::FirstTrailingBit => self.map1(Op1::FirstTrailingBit, &a),
            M::FirstLeadingBit => {
                self.map1(if signed { Op1::FirstLeadingBitS } else { Op1::FirstLeadingBitU }, &a)
            }
            M::Pack4x8snorm => smallvec![self.pack(Op1::PackSnorm8, &a, 8)],
            M::Pack4x8unorm => smallvec![self.pack(Op1::PackUnorm8, &a, 8)],
            M::Pack2x16snorm => smallvec![self.pack(Op1::PackSnorm16, &a, 16)],
            M::Pack2x16unorm => smallvec![self.pack(Op1::PackUnorm16, &a, 16)],
            M::Pack2x16float => smallvec![self.pack(Op1::PackF16, &a, 16)],
            M::Pack4xI8 | M::Pack4xU8 => smallvec![self.pack(Op1::PackI8, &a, 8)],
            M::Pack4xI8Clamp => smallvec![self.pack(Op1::PackI8Clamp, &a, 8)],
            M::Pack4xU8Clamp => smallvec![self.pack(Op1::PackU8Clamp, &a, 8)],
            M::Unpack4x8snorm => self.unpack(Op2::UnpackSnorm8, a[0], 4),
            M::Unpack4x8unorm => self.unpack(Op2::UnpackUnorm8, a[0], 4),
            M::Unpack2x16snorm => self.unpack(Op2::UnpackSnorm16, a[0], 2),
            M::Unpack2x16unorm => self.unpack(Op2::UnpackUnorm16, a[0], 2),
            M::Unpack2x16float => self.unpack(Op2::UnpackF16, a[0], 2),
            M::Unpack4xI8 => self.unpack(Op2::UnpackI8, a[0], 4),
            M::Unpack4xU8 => self.unpack(Op2::UnpackU8, a[0], 4),
        })
    }
}

/// The column-major matrix `m` (`n`x`n`) without row `row` and column `col`.
fn minor(m: &[Val], n: usize, row: usize, col: usize) -> Comps {
    let mut out = Comps::with_capacity((n - 1) * (n - 1));
    for c in (0..n).filter(|&c| c != col) {
        for r in (0..n).filter(|&r| r != row) {
            out.push(m[c * n + r]);
        }
    }
    out
}
