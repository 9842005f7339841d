//! Branch-free f32 math the compiler can vectorise across lanes.
//!
//! `f32::exp2`, `ln`, `powf` call libm once per lane, which costs more than the rest of a
//! Blinn-Phong shader; these versions are straight-line arithmetic and selects, so a lane
//! loop over them becomes SIMD. Accuracy is a few ULP over the whole range (tests hold it),
//! inside what WGSL allows (`exp2`/`log2`: 3 + 2|x| ULP; `pow` inherits from them).

/// 1.5 * 2^23: adding it to a float of magnitude below 2^22 leaves the float rounded to an
/// integer (half to even) and that integer in the low mantissa bits.
const ROUNDER: f32 = 12_582_912.0;

/// `x` rounded to an integer (half to even), as a float and as an `i32`, for |x| < 2^22.
/// Written with bit arithmetic because `f32 as i32` saturates, which compilers cannot
/// vectorise on x86.
#[inline(always)]
pub(crate) fn round_small(x: f32) -> (f32, i32) {
    let m = x + ROUNDER;
    (m - ROUNDER, (m.to_bits() as i32).wrapping_sub(ROUNDER.to_bits() as i32))
}

/// 2^x.
#[inline(always)]
pub(crate) fn exp2(x: f32) -> f32 {
    // Outside [-150, 129] the result is 0 or infinity; NaN fails both tests and stays NaN.
    let x = if x > 129.0 { 129.0 } else { x };
    let x = if x < -150.0 { -150.0 } else { x };
    let (xf, xi) = round_small(x);
    let f = x - xf; // in [-0.5, 0.5]
    // Taylor series of e^(f ln 2) to degree 7: error below 1e-8 on [-0.5, 0.5].
    let t = f * std::f32::consts::LN_2;
    let p = 1.0
        + t * (1.0
            + t * (0.5
                + t * (1.0 / 6.0
                    + t * (1.0 / 24.0 + t * (1.0 / 120.0 + t * (1.0 / 720.0 + t * (1.0 / 5040.0)))))));
    // 2^xi as two normal powers of two, so results near the ends of the range (infinity,
    // denormals) round as they should.
    let half = xi >> 1;
    let pow2 = |e: i32| f32::from_bits((e.wrapping_add(127).clamp(1, 254) as u32) << 23);
    p * pow2(half) * pow2(xi.wrapping_sub(half))
}

/// log2(x): -inf at 0, NaN below 0, inf at inf.
#[inline(always)]
pub(crate) fn log2(x: f32) -> f32 {
    let bits = x.to_bits();
    // Scale denormals into the normal range first.
    let denormal = bits < 0x0080_0000;
    let xs = if denormal { x * 8_388_608.0 } else { x };
    let bits = xs.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 127 - if denormal { 23 } else { 0 };
    // Mantissa in [1, 2), then moved to [sqrt(1/2), sqrt(2)) for a symmetric series.
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > std::f32::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    // ln(m) = 2 atanh(t) = 2(t + t^3/3 + t^5/5 + t^7/7 + t^9/9); |t| <= 0.172.
    let ln_m = 2.0 * t * (1.0 + t2 * (1.0 / 3.0 + t2 * (1.0 / 5.0 + t2 * (1.0 / 7.0 + t2 * (1.0 / 9.0)))));
    let r = e as f32 + ln_m * std::f32::consts::LOG2_E;
    if x == 0.0 {
        f32::NEG_INFINITY
    } else if x < 0.0 || x.is_nan() {
        f32::NAN
    } else if x == f32::INFINITY {
        f32::INFINITY
    } else {
        r
    }
}

/// e^x.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    exp2(x * std::f32::consts::LOG2_E)
}

/// ln(x).
#[inline(always)]
pub(crate) fn ln(x: f32) -> f32 {
    log2(x) * std::f32::consts::LN_2
}

/// x^y as WGSL defines it: exp2(y * log2(x)) (so x < 0 gives NaN, 0^y is 0 or inf).
#[inline(always)]
pub(crate) fn pow(x: f32, y: f32) -> f32 {
    exp2(y * log2(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f32, b: f32) -> u32 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
    }

    #[test]
    fn exp2_matches_std_within_a_few_ulp() {
        let mut x = -149.0f32;
        while x < 127.99 {
            let (got, want) = (exp2(x), x.exp2());
            let denormal_ok = want < f32::MIN_POSITIVE && (got - want).abs() <= 2.0 * f32::from_bits(1);
            assert!(ulps(got, want) <= 4 || denormal_ok, "exp2({x}) = {got}, std {want}");
            x += 0.0137;
        }
        assert_eq!(exp2(200.0), f32::INFINITY);
        assert_eq!(exp2(-200.0), 0.0);
        assert!(exp2(f32::NAN).is_nan());
        assert_eq!(exp2(0.0), 1.0);
        assert_eq!(exp2(10.0), 1024.0);
    }

    #[test]
    fn log2_matches_std_within_a_few_ulp() {
        for i in 1..200_000u32 {
            let x = f32::from_bits(i.wrapping_mul(21_474) % 0x7f00_0000 + 1);
            let (got, want) = (log2(x), x.log2());
            let abs_ok = (got - want).abs() <= 2e-7;
            assert!(ulps(got, want) <= 4 || abs_ok, "log2({x}) = {got}, std {want}");
        }
        assert_eq!(log2(0.0), f32::NEG_INFINITY);
        assert!(log2(-1.0).is_nan());
        assert_eq!(log2(f32::INFINITY), f32::INFINITY);
        assert_eq!(log2(1.0), 0.0);
        assert_eq!(log2(8.0), 3.0);
    }

    #[test]
    fn pow_exp_ln_agree_with_std() {
        for &(x, y) in &[(2.0f32, 10.0f32), (0.5, 32.0), (0.9, 64.0), (3.7, 1.3), (0.01, 0.4545)] {
            let (got, want) = (pow(x, y), x.powf(y));
            assert!((got - want).abs() <= want.abs() * 2e-6, "pow({x}, {y}) = {got}, std {want}");
        }
        assert_eq!(pow(0.0, 2.0), 0.0);
        for &x in &[-5.0f32, -0.3, 0.0, 0.7, 4.0, 20.0] {
            assert!((exp(x) - x.exp()).abs() <= x.exp() * 2e-6, "exp({x})");
        }
        for &x in &[1e-3f32, 0.5, 1.0, 2.7, 1e6] {
            assert!((ln(x) - x.ln()).abs() <= 2e-6 * x.ln().abs().max(1.0), "ln({x})");
        }
    }
}
