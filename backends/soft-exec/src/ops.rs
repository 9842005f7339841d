//! The scalar operations of the executor, each written once and run two ways: on one value
//! (constant folding at compile time, uniform values once per batch) and across a batch of
//! lanes (varying values), from the same expression, so folding and running never disagree.
//!
//! Every value is a 32-bit pattern held in an `f32` slot: floats as themselves, integers as
//! their bits, booleans as the bit patterns 0 and 1. [`Lane`] converts both ways; the
//! conversions are bit casts, so the lane loops vectorise.
//!
//! Integer semantics are WGSL's: wrapping arithmetic, shift amounts taken modulo 32, division
//! by zero giving the dividend and remainder by zero giving 0 (as naga's generated helpers do
//! on every GPU backend), saturating float-to-integer conversion.

use super::LANES;
use super::fmath;

/// One register: a value per lane.
pub(crate) type Lanes = [f32; LANES];

/// A 32-bit value as stored in a lane slot.
pub(crate) trait Lane: Copy {
    /// Reads the value from its slot.
    fn get(x: f32) -> Self;
    /// Writes the value into a slot.
    fn put(self) -> f32;
}

impl Lane for f32 {
    #[inline(always)]
    fn get(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn put(self) -> f32 {
        self
    }
}

impl Lane for u32 {
    #[inline(always)]
    fn get(x: f32) -> Self {
        x.to_bits()
    }
    #[inline(always)]
    fn put(self) -> f32 {
        f32::from_bits(self)
    }
}

impl Lane for i32 {
    #[inline(always)]
    fn get(x: f32) -> Self {
        x.to_bits() as i32
    }
    #[inline(always)]
    fn put(self) -> f32 {
        f32::from_bits(self as u32)
    }
}

impl Lane for bool {
    #[inline(always)]
    fn get(x: f32) -> Self {
        x.to_bits() != 0
    }
    #[inline(always)]
    fn put(self) -> f32 {
        f32::from_bits(self as u32)
    }
}

/// An operand at run time: a register of lanes, or one value shared by every lane.
#[derive(Clone, Copy)]
pub(crate) enum Arg<'a> {
    /// A value per lane.
    V(&'a Lanes),
    /// One value for all lanes.
    S(f32),
}

impl Arg<'_> {
    /// The operand as a register, broadcasting a shared value into `tmp`.
    #[inline(always)]
    pub(crate) fn lanes<'b>(self, tmp: &'b mut Lanes) -> &'b Lanes
    where
        Self: 'b,
    {
        match self {
            Arg::V(v) => v,
            Arg::S(s) => {
                *tmp = [s; LANES];
                tmp
            }
        }
    }
}

#[inline(always)]
fn map1<A: Lane, R: Lane>(d: &mut Lanes, a: Arg<'_>, f: impl Fn(A) -> R) {
    match a {
        Arg::V(a) => {
            for i in 0..LANES {
                d[i] = f(A::get(a[i])).put();
            }
        }
        Arg::S(a) => *d = [f(A::get(a)).put(); LANES],
    }
}

#[inline(always)]
fn map2<A: Lane, B: Lane, R: Lane>(d: &mut Lanes, a: Arg<'_>, b: Arg<'_>, f: impl Fn(A, B) -> R) {
    match (a, b) {
        (Arg::V(a), Arg::V(b)) => {
            for i in 0..LANES {
                d[i] = f(A::get(a[i]), B::get(b[i])).put();
            }
        }
        (Arg::V(a), Arg::S(b)) => {
            let b = B::get(b);
            for i in 0..LANES {
                d[i] = f(A::get(a[i]), b).put();
            }
        }
        (Arg::S(a), Arg::V(b)) => {
            let a = A::get(a);
            for i in 0..LANES {
                d[i] = f(a, B::get(b[i])).put();
            }
        }
        (Arg::S(a), Arg::S(b)) => *d = [f(A::get(a), B::get(b)).put(); LANES],
    }
}

#[inline(always)]
fn map3<A: Lane, B: Lane, C: Lane, R: Lane>(
    d: &mut Lanes,
    a: Arg<'_>,
    b: Arg<'_>,
    c: Arg<'_>,
    f: impl Fn(A, B, C) -> R,
) {
    match (a, b, c) {
        (Arg::V(a), Arg::V(b), Arg::V(c)) => {
            for i in 0..LANES {
                d[i] = f(A::get(a[i]), B::get(b[i]), C::get(c[i])).put();
            }
        }
        (Arg::V(a), Arg::S(b), Arg::S(c)) => {
            let (b, c) = (B::get(b), C::get(c));
            for i in 0..LANES {
                d[i] = f(A::get(a[i]), b, c).put();
            }
        }
        (Arg::V(a), Arg::V(b), Arg::S(c)) => {
            let c = C::get(c);
            for i in 0..LANES {
                d[i] = f(A::get(a[i]), B::get(b[i]), c).put();
            }
        }
        (a, b, c) => {
            let (mut ta, mut tb, mut tc) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
            let (a, b, c) = (a.lanes(&mut ta), b.lanes(&mut tb), c.lanes(&mut tc));
            for i in 0..LANES {
                d[i] = f(A::get(a[i]), B::get(b[i]), C::get(c[i])).put();
            }
        }
    }
}

macro_rules! op_table {
    (@enum $(#[$meta:meta])* $Op:ident { $($(#[$doc:meta])* $name:ident)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub(crate) enum $Op {
            $($(#[$doc])* $name,)*
        }
    };
    (
        $(#[$meta:meta])* enum $Op:ident(1) {
            $($(#[$doc:meta])* $name:ident ($x:ident : $T:ty) -> $R:ty $body:block)*
        }
    ) => {
        op_table!(@enum $(#[$meta])* $Op { $($(#[$doc])* $name)* });
        impl $Op {
            /// The operation on one value (folding and uniform values).
            pub(crate) fn eval(self, a: f32) -> f32 {
                match self {
                    $($Op::$name => {
                        let $x: $T = Lane::get(a);
                        let r: $R = $body;
                        r.put()
                    })*
                }
            }

            /// The operation across a batch of lanes.
            #[inline(always)]
            pub(crate) fn run(self, d: &mut Lanes, a: Arg<'_>) {
                match self {
                    $($Op::$name => map1(d, a, #[inline(always)] |$x: $T| -> $R { $body }),)*
                }
            }
        }
    };
    (
        $(#[$meta:meta])* enum $Op:ident(2) {
            $($(#[$doc:meta])* $name:ident ($x:ident : $T:ty, $y:ident : $U:ty) -> $R:ty $body:block)*
        }
    ) => {
        op_table!(@enum $(#[$meta])* $Op { $($(#[$doc])* $name)* });
        impl $Op {
            /// The operation on one value (folding and uniform values).
            pub(crate) fn eval(self, a: f32, b: f32) -> f32 {
                match self {
                    $($Op::$name => {
                        let $x: $T = Lane::get(a);
                        let $y: $U = Lane::get(b);
                        let r: $R = $body;
                        r.put()
                    })*
                }
            }

            /// The operation across a batch of lanes.
            #[inline(always)]
            pub(crate) fn run(self, d: &mut Lanes, a: Arg<'_>, b: Arg<'_>) {
                match self {
                    $($Op::$name => map2(d, a, b, #[inline(always)] |$x: $T, $y: $U| -> $R { $body }),)*
                }
            }
        }
    };
    (
        $(#[$meta:meta])* enum $Op:ident(3) {
            $($(#[$doc:meta])* $name:ident ($x:ident : $T:ty, $y:ident : $U:ty, $z:ident : $V:ty) -> $R:ty $body:block)*
        }
    ) => {
        op_table!(@enum $(#[$meta])* $Op { $($(#[$doc])* $name)* });
        impl $Op {
            /// The operation on one value (folding and uniform values).
            pub(crate) fn eval(self, a: f32, b: f32, c: f32) -> f32 {
                match self {
                    $($Op::$name => {
                        let $x: $T = Lane::get(a);
                        let $y: $U = Lane::get(b);
                        let $z: $V = Lane::get(c);
                        let r: $R = $body;
                        r.put()
                    })*
                }
            }

            /// The operation across a batch of lanes.
            #[inline(always)]
            pub(crate) fn run(self, d: &mut Lanes, a: Arg<'_>, b: Arg<'_>, c: Arg<'_>) {
                match self {
                    $($Op::$name => map3(d, a, b, c, #[inline(always)] |$x: $T, $y: $U, $z: $V| -> $R { $body }),)*
                }
            }
        }
    };
}

#[inline(always)]
fn fmin(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

#[inline(always)]
fn fmax(a: f32, b: f32) -> f32 {
    if b > a { b } else { a }
}

#[inline(always)]
fn fclamp(x: f32, lo: f32, hi: f32) -> f32 {
    fmin(fmax(x, lo), hi)
}

#[inline(always)]
fn fsign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

fn frexp_parts(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (x, bias) = if x.abs() < f32::MIN_POSITIVE { (x * 8_388_608.0, 23) } else { (x, 0) };
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 126 - bias;
    (f32::from_bits((bits & 0x807f_ffff) | 0x3f00_0000), e)
}

fn ldexp(x: f32, e: i32) -> f32 {
    // Two steps keep intermediate powers of two representable.
    let e = e.clamp(-300, 300);
    let half = e / 2;
    let p = |k: i32| f32::from_bits(((k.clamp(-126, 127) + 127) as u32) << 23);
    x * p(half) * p(e - half)
}

fn quantize_f16(x: f32) -> f32 {
    f3d_hal::f16_to_f32(f3d_hal::f32_to_f16(x))
}

#[inline(always)]
fn sdiv(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) { a } else { a / b }
}

#[inline(always)]
fn smod(a: i32, b: i32) -> i32 {
    if b == 0 || (a == i32::MIN && b == -1) { 0 } else { a % b }
}

fn extract_bits(e: u32, offset: u32, count: u32, signed: bool) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    if c == 0 {
        return 0;
    }
    let shifted = e.checked_shr(o).unwrap_or(0);
    if c == 32 {
        return shifted;
    }
    let v = shifted & ((1u32 << c) - 1);
    if signed && (v >> (c - 1)) & 1 == 1 { v | (!0u32 << c) } else { v }
}

fn bit_mask(offset: u32, count: u32) -> u32 {
    let o = offset.min(32);
    let c = count.min(32 - o);
    let m = if c >= 32 { !0u32 } else { (1u32 << c) - 1 };
    m.checked_shl(o).unwrap_or(0)
}

fn byte_of(x: u32, i: u32) -> u32 {
    x.wrapping_shr((i & 3) * 8) & 0xff
}

fn half_of(x: u32, i: u32) -> u32 {
    x.wrapping_shr((i & 1) * 16) & 0xffff
}

op_table! {
    /// Operations of one operand.
    enum Op1(1) {
        /// `-x`
        FNeg(x: f32) -> f32 { -x }
        /// `abs`
        FAbs(x: f32) -> f32 { x.abs() }
        /// `sign`
        FSign(x: f32) -> f32 { fsign(x) }
        /// `sqrt`
        FSqrt(x: f32) -> f32 { x.sqrt() }
        /// `inverseSqrt`
        FRsqrt(x: f32) -> f32 { 1.0 / x.sqrt() }
        /// `floor`
        FFloor(x: f32) -> f32 { x.floor() }
        /// `ceil`
        FCeil(x: f32) -> f32 { x.ceil() }
        /// `trunc`
        FTrunc(x: f32) -> f32 { x.trunc() }
        /// `round` (half to even)
        FRound(x: f32) -> f32 { x.round_ties_even() }
        /// `fract`
        FFract(x: f32) -> f32 { x - x.floor() }
        /// `saturate`
        FSaturate(x: f32) -> f32 { if x > 0.0 { if x < 1.0 { x } else { 1.0 } } else { 0.0 } }
        /// `exp`
        FExp(x: f32) -> f32 { fmath::exp(x) }
        /// `exp2`
        FExp2(x: f32) -> f32 { fmath::exp2(x) }
        /// `log`
        FLog(x: f32) -> f32 { fmath::ln(x) }
        /// `log2`
        FLog2(x: f32) -> f32 { fmath::log2(x) }
        /// `sin`
        FSin(x: f32) -> f32 { x.sin() }
        /// `cos`
        FCos(x: f32) -> f32 { x.cos() }
        /// `tan`
        FTan(x: f32) -> f32 { x.tan() }
        /// `asin`
        FAsin(x: f32) -> f32 { x.asin() }
        /// `acos`
        FAcos(x: f32) -> f32 { x.acos() }
        /// `atan`
        FAtan(x: f32) -> f32 { x.atan() }
        /// `sinh`
        FSinh(x: f32) -> f32 { x.sinh() }
        /// `cosh`
        FCosh(x: f32) -> f32 { x.cosh() }
        /// `tanh`
        FTanh(x: f32) -> f32 { x.tanh() }
        /// `asinh`
        FAsinh(x: f32) -> f32 { x.asinh() }
        /// `acosh`
        FAcosh(x: f32) -> f32 { x.acosh() }
        /// `atanh`
        FAtanh(x: f32) -> f32 { x.atanh() }
        /// `quantizeToF16`
        FQuantizeF16(x: f32) -> f32 { quantize_f16(x) }
        /// `isnan`
        FIsNan(x: f32) -> bool { x.is_nan() }
        /// `isinf`
        FIsInf(x: f32) -> bool { x.is_infinite() }
        /// `frexp(x).fract`
        FFrexpFract(x: f32) -> f32 { frexp_parts(x).0 }
        /// `frexp(x).exp`
        FFrexpExp(x: f32) -> i32 { frexp_parts(x).1 }
        /// `i32(f)`, saturating
        F2I(x: f32) -> i32 { x as i32 }
        /// `u32(f)`, saturating
        F2U(x: f32) -> u32 { x as u32 }
        /// `f32(i)`
        I2F(x: i32) -> f32 { x as f32 }
        /// `f32(u)`
        U2F(x: u32) -> f32 { x as f32 }
        /// `bool(f)`
        F2B(x: f32) -> bool { x != 0.0 }
        /// `bool(i)`, `bool(u)`
        I2B(x: u32) -> bool { x != 0 }
        /// `f32(b)`
        B2F(x: bool) -> f32 { if x { 1.0 } else { 0.0 } }
        /// `i32(b)`, `u32(b)`
        B2I(x: bool) -> u32 { x as u32 }
        /// `-i`, wrapping
        INeg(x: i32) -> i32 { x.wrapping_neg() }
        /// `abs(i)`, wrapping at `i32::MIN`
        IAbs(x: i32) -> i32 { x.wrapping_abs() }
        /// `sign(i)`
        ISign(x: i32) -> i32 { x.signum() }
        /// `~x`
        INot(x: u32) -> u32 { !x }
        /// `!b`
        BNot(x: bool) -> bool { !x }
        /// `countOneBits`
        CountOnes(x: u32) -> u32 { x.count_ones() }
        /// `countLeadingZeros`
        CountLeadingZeros(x: u32) -> u32 { x.leading_zeros() }
        /// `countTrailingZeros`
        CountTrailingZeros(x: u32) -> u32 { x.trailing_zeros() }
        /// `reverseBits`
        ReverseBits(x: u32) -> u32 { x.reverse_bits() }
        /// `firstLeadingBit` on `u32`
        FirstLeadingBitU(x: u32) -> u32 { if x == 0 { !0 } else { 31 - x.leading_zeros() } }
        /// `firstLeadingBit` on `i32`
        FirstLeadingBitS(x: i32) -> u32 {
            let y = if x < 0 { !(x as u32) } else { x as u32 };
            if y == 0 { !0 } else { 31 - y.leading_zeros() }
        }
        /// `firstTrailingBit`
        FirstTrailingBit(x: u32) -> u32 { if x == 0 { !0 } else { x.trailing_zeros() } }
        /// One byte of `pack4x8unorm`.
        PackUnorm8(x: f32) -> u32 { (0.5 + 255.0 * fclamp(x, 0.0, 1.0)) as u32 & 0xff }
        /// One byte of `pack4x8snorm`.
        PackSnorm8(x: f32) -> u32 { ((0.5 + 127.0 * fclamp(x, -1.0, 1.0)).floor() as i32 as u32) & 0xff }
        /// One half of `pack2x16unorm`.
        PackUnorm16(x: f32) -> u32 { (0.5 + 65535.0 * fclamp(x, 0.0, 1.0)) as u32 & 0xffff }
        /// One half of `pack2x16snorm`.
        PackSnorm16(x: f32) -> u32 { ((0.5 + 32767.0 * fclamp(x, -1.0, 1.0)).floor() as i32 as u32) & 0xffff }
        /// One half of `pack2x16float`.
        PackF16(x: f32) -> u32 { u32::from(f3d_hal::f32_to_f16(x)) }
        /// One byte of `pack4xI8`.
        PackI8(x: u32) -> u32 { x & 0xff }
        /// One byte of `pack4xI8Clamp`.
        PackI8Clamp(x: i32) -> u32 { (x.clamp(-128, 127) as u32) & 0xff }
        /// One byte of `pack4xU8Clamp`.
        PackU8Clamp(x: u32) -> u32 { x.min(255) }
    }
}

op_table! {
    /// Operations of two operands.
    enum Op2(2) {
        /// `+`
        FAdd(x: f32, y: f32) -> f32 { x + y }
        /// `-`
        FSub(x: f32, y: f32) -> f32 { x - y }
        /// `*`
        FMul(x: f32, y: f32) -> f32 { x * y }
        /// `/`
        FDiv(x: f32, y: f32) -> f32 { x / y }
        /// `%` on floats: `x - y * trunc(x / y)`
        FMod(x: f32, y: f32) -> f32 { x - y * (x / y).trunc() }
        /// `min`
        FMin(x: f32, y: f32) -> f32 { fmin(x, y) }
        /// `max`
        FMax(x: f32, y: f32) -> f32 { fmax(x, y) }
        /// `pow`
        FPow(x: f32, y: f32) -> f32 { fmath::pow(x, y) }
        /// `atan2(y, x)`
        FAtan2(y: f32, x: f32) -> f32 { y.atan2(x) }
        /// `step(edge, x)`
        FStep(edge: f32, x: f32) -> f32 { if edge <= x { 1.0 } else { 0.0 } }
        /// `ldexp`
        FLdexp(x: f32, e: i32) -> f32 { ldexp(x, e) }
        /// `==`
        FEq(x: f32, y: f32) -> bool { x == y }
        /// `!=`
        FNe(x: f32, y: f32) -> bool { x != y }
        /// `<`
        FLt(x: f32, y: f32) -> bool { x < y }
        /// `<=`
        FLe(x: f32, y: f32) -> bool { x <= y }
        /// `>`
        FGt(x: f32, y: f32) -> bool { x > y }
        /// `>=`
        FGe(x: f32, y: f32) -> bool { x >= y }
        /// `+` on integers, wrapping
        IAdd(x: u32, y: u32) -> u32 { x.wrapping_add(y) }
        /// `-` on integers, wrapping
        ISub(x: u32, y: u32) -> u32 { x.wrapping_sub(y) }
        /// `*` on integers, wrapping
        IMul(x: u32, y: u32) -> u32 { x.wrapping_mul(y) }
        /// `/` on `i32`
        SDiv(x: i32, y: i32) -> i32 { sdiv(x, y) }
        /// `/` on `u32`
        UDiv(x: u32, y: u32) -> u32 { x.checked_div(y).unwrap_or(x) }
        /// `%` on `i32`
        SMod(x: i32, y: i32) -> i32 { smod(x, y) }
        /// `%` on `u32`
        UMod(x: u32, y: u32) -> u32 { x.checked_rem(y).unwrap_or(0) }
        /// `min` on `i32`
        SMin(x: i32, y: i32) -> i32 { x.min(y) }
        /// `max` on `i32`
        SMax(x: i32, y: i32) -> i32 { x.max(y) }
        /// `min` on `u32`
        UMin(x: u32, y: u32) -> u32 { x.min(y) }
        /// `max` on `u32`
        UMax(x: u32, y: u32) -> u32 { x.max(y) }
        /// `&`
        And(x: u32, y: u32) -> u32 { x & y }
        /// `|`
        Or(x: u32, y: u32) -> u32 { x | y }
        /// `^`
        Xor(x: u32, y: u32) -> u32 { x ^ y }
        /// `<<`, amount modulo 32
        Shl(x: u32, y: u32) -> u32 { x.wrapping_shl(y) }
        /// `>>` on `i32` (arithmetic), amount modulo 32
        SShr(x: i32, y: u32) -> i32 { x.wrapping_shr(y) }
        /// `>>` on `u32`, amount modulo 32
        UShr(x: u32, y: u32) -> u32 { x.wrapping_shr(y) }
        /// `==` on integers and booleans
        IEq(x: u32, y: u32) -> bool { x == y }
        /// `!=` on integers and booleans
        INe(x: u32, y: u32) -> bool { x != y }
        /// `<` on `i32`
        SLt(x: i32, y: i32) -> bool { x < y }
        /// `<=` on `i32`
        SLe(x: i32, y: i32) -> bool { x <= y }
        /// `>` on `i32`
        SGt(x: i32, y: i32) -> bool { x > y }
        /// `>=` on `i32`
        SGe(x: i32, y: i32) -> bool { x >= y }
        /// `<` on `u32`
        ULt(x: u32, y: u32) -> bool { x < y }
        /// `<=` on `u32`
        ULe(x: u32, y: u32) -> bool { x <= y }
        /// `>` on `u32`
        UGt(x: u32, y: u32) -> bool { x > y }
        /// `>=` on `u32`
        UGe(x: u32, y: u32) -> bool { x >= y }
        /// `dot4I8Packed`
        Dot4I8(x: u32, y: u32) -> i32 {
            (0..4).map(|i| (byte_of(x, i) as u8 as i8 as i32) * (byte_of(y, i) as u8 as i8 as i32)).sum::<i32>()
        }
        /// `dot4U8Packed`
        Dot4U8(x: u32, y: u32) -> u32 { (0..4).map(|i| byte_of(x, i) * byte_of(y, i)).sum::<u32>() }
        /// Byte `i` of `unpack4x8unorm(x)`.
        UnpackUnorm8(x: u32, i: u32) -> f32 { byte_of(x, i) as f32 / 255.0 }
        /// Byte `i` of `unpack4x8snorm(x)`.
        UnpackSnorm8(x: u32, i: u32) -> f32 { fmax(byte_of(x, i) as u8 as i8 as f32 / 127.0, -1.0) }
        /// Half `i` of `unpack2x16unorm(x)`.
        UnpackUnorm16(x: u32, i: u32) -> f32 { half_of(x, i) as f32 / 65535.0 }
        /// Half `i` of `unpack2x16snorm(x)`.
        UnpackSnorm16(x: u32, i: u32) -> f32 { fmax(half_of(x, i) as u16 as i16 as f32 / 32767.0, -1.0) }
        /// Half `i` of `unpack2x16float(x)`.
        UnpackF16(x: u32, i: u32) -> f32 { f3d_hal::f16_to_f32(half_of(x, i) as u16) }
        /// Byte `i` of `unpack4xI8(x)`.
        UnpackI8(x: u32, i: u32) -> i32 { byte_of(x, i) as u8 as i8 as i32 }
        /// Byte `i` of `unpack4xU8(x)`.
        UnpackU8(x: u32, i: u32) -> u32 { byte_of(x, i) }
        /// The field mask of `insertBits(_, _, offset, count)`.
        BitMask(offset: u32, count: u32) -> u32 { bit_mask(offset, count) }
        /// `x << y` that gives 0 for y >= 32 (the shift inside `insertBits`).
        ShlOrZero(x: u32, y: u32) -> u32 { x.checked_shl(y).unwrap_or(0) }
    }
}

op_table! {
    /// Operations of three operands.
    enum Op3(3) {
        /// `clamp` on floats: `min(max(x, lo), hi)`
        FClamp(x: f32, lo: f32, hi: f32) -> f32 { fclamp(x, lo, hi) }
        /// `clamp` on `i32`
        SClamp(x: i32, lo: i32, hi: i32) -> i32 { x.max(lo).min(hi) }
        /// `clamp` on `u32`
        UClamp(x: u32, lo: u32, hi: u32) -> u32 { x.max(lo).min(hi) }
        /// `mix(a, b, t) = a * (1 - t) + b * t`
        FMix(x: f32, y: f32, t: f32) -> f32 { x * (1.0 - t) + y * t }
        /// `smoothstep(lo, hi, x)`
        FSmoothStep(lo: f32, hi: f32, x: f32) -> f32 {
            let t = fclamp((x - lo) / (hi - lo), 0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        }
        /// `fma`, one rounding
        FFma(x: f32, y: f32, z: f32) -> f32 { x.mul_add(y, z) }
        /// `x * y + z`, two roundings (a product and a sum fused into one instruction)
        FMulAdd(x: f32, y: f32, z: f32) -> f32 { x * y + z }
        /// `select(f, t, c)`
        Select(f: u32, t: u32, c: bool) -> u32 { if c { t } else { f } }
        /// `extractBits` on `u32`
        ExtractBitsU(e: u32, o: u32, c: u32) -> u32 { extract_bits(e, o, c, false) }
        /// `extractBits` on `i32`
        ExtractBitsS(e: u32, o: u32, c: u32) -> u32 { extract_bits(e, o, c, true) }
        /// `(e & !mask) | (n & mask)`: the last step of `insertBits`
        InsertMasked(e: u32, n: u32, mask: u32) -> u32 { (e & !mask) | (n & mask) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_and_single_values_agree() {
        let a: Lanes = std::array::from_fn(|i| i as f32 * 0.37 - 9.0);
        let b: Lanes = std::array::from_fn(|i| (i as f32 * 1.3).sin() * 4.0);
        let mut d = [0.0; LANES];
        for op in [Op2::FAdd, Op2::FMod, Op2::FPow, Op2::FAtan2, Op2::FMin, Op2::FStep] {
            op.run(&mut d, Arg::V(&a), Arg::V(&b));
            for i in 0..LANES {
                let want = op.eval(a[i], b[i]);
                assert!(
                    d[i].to_bits() == want.to_bits() || (d[i].is_nan() && want.is_nan()),
                    "{op:?} lane {i}"
                );
            }
            op.run(&mut d, Arg::V(&a), Arg::S(2.5));
            assert_eq!(d[7].to_bits(), op.eval(a[7], 2.5).to_bits(), "{op:?} with a shared operand");
        }
    }

    #[test]
    fn integer_edge_cases_follow_wgsl() {
        let i = |x: i32| x.put();
        let u = |x: u32| x.put();
        assert_eq!(i32::get(Op2::SDiv.eval(i(7), i(0))), 7);
        assert_eq!(i32::get(Op2::SDiv.eval(i(i32::MIN), i(-1))), i32::MIN);
        assert_eq!(i32::get(Op2::SMod.eval(i(-7), i(3))), -1);
        assert_eq!(i32::get(Op2::SMod.eval(i(7), i(0))), 0);
        assert_eq!(u32::get(Op2::UDiv.eval(u(9), u(0))), 9);
        assert_eq!(u32::get(Op2::Shl.eval(u(1), u(33))), 2);
        assert_eq!(i32::get(Op2::SShr.eval(i(-8), u(1))), -4);
        assert_eq!(u32::get(Op2::UShr.eval(u(0x8000_0000), u(31))), 1);
        assert_eq!(u32::get(Op2::IAdd.eval(u(u32::MAX), u(2))), 1);
        assert_eq!(i32::get(Op1::F2I.eval(3e10)), i32::MAX);
        assert_eq!(u32::get(Op1::F2U.eval(-5.0)), 0);
        assert_eq!(i32::get(Op1::IAbs.eval(i(i32::MIN))), i32::MIN);
        assert_eq!(u32::get(Op3::ExtractBitsS.eval(u(0b1110_0000), u(5), u(3))), u32::MAX);
        assert_eq!(u32::get(Op3::ExtractBitsU.eval(u(0b1110_0000), u(5), u(3))), 7);
        assert_eq!(u32::get(Op1::FirstLeadingBitS.eval(i(-1))), u32::MAX);
        assert_eq!(u32::get(Op1::FirstLeadingBitS.eval(i(-2))), 0);
        assert_eq!(u32::get(Op1::FirstLeadingBitU.eval(u(0x10))), 4);
        assert_eq!(u32::get(Op2::BitMask.eval(u(4), u(4))), 0xf0);
        assert_eq!(u32::get(Op2::BitMask.eval(u(0), u(32))), u32::MAX);
    }
}
