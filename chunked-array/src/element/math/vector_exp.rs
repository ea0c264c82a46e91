//! Branch-free f64 forms of `exp`, `exp2`, `logaddexp`, `logaddexp2`, `sinh`,
//! `cosh` and `tanh`, written as [`vector_libm`](super::vector_libm)'s are:
//! straight-line arithmetic with the special cases chosen by selects, no fused multiply-add,
//! so the tile loops compile them to SIMD and the device kernels' C forms
//! (`chunked_gpu::kernels::ELEMENTWISE_HELPERS`) compute the same bits.
//!
//! `exp` reduces as fdlibm's does, `x = k·ln2 + r` with `|r| ≤ ln2/2`, takes
//! `exp(r)` from `expm1`'s Taylor series (so that only the final sum rounds
//! noticeably: about half an ulp, and `exp(1)` is `e`), and scales by `2^k`
//! in two halves, so that results in the subnormal range are rounded once.
//! `exp2` reduces `x = k + f` and takes `f·ln2` as an exact two-double
//! product into the same kernel. `sinh`, `cosh` and `tanh` are fdlibm's
//! forms over `expm1` and `e^|x|/2`, both from one reduction of `|x|`.

use super::vector_libm::{
    ROUNDING_SHIFT, expm1, expm1_of_reduced, expm1_parts, ln2_reduction, log1p, shifted_integer, two_to,
};

/// ln 2 rounded to a double, and what the rounding lost.
const LN2: f64 = f64::from_bits(0x3FE6_2E42_FEFA_39EF);
const LN2_TAIL: f64 = f64::from_bits(0x3C7A_BC9E_3B39_803F);
/// 2^27 + 1: Veltkamp's splitting constant for doubles.
const SPLITTER: f64 = 134_217_729.0;

/// `2^k · exp(hi - lo)` for `|hi - lo| ≤ ln2/2 + ε` and `k` in
/// [-1080, 1025], `lo` carrying the reduction's error: `1 + r + tail` with
/// `1 + r` compensated (Fast2Sum), so that the result is rounded about once.
#[inline(always)]
fn scaled_exp(hi: f64, lo: f64, k: i64) -> f64 {
    let (r, tail) = expm1_parts(hi, lo);
    scaled_exp_of_reduced(r, tail, k)
}

/// `2^k · (1 + r + tail)`, `r + tail` being `expm1` of the reduced argument.
#[inline(always)]
fn scaled_exp_of_reduced(r: f64, tail: f64, k: i64) -> f64 {
    let lead = 1.0 + r;
    let y = lead + (((1.0 - lead) + r) + tail);
    // Two halves of the scale, each a normal power of two: y·2^k1 is exact,
    // and the second product rounds once, also into the subnormals.
    let k1 = k >> 1;
    (y * two_to(k1)) * two_to(k - k1)
}

/// `e^x`, within an ulp.
#[inline(always)]
pub(crate) fn exp(x: f64) -> f64 {
    // Past these bounds the result is 0 or +inf; clamping keeps k in range.
    let (hi, lo, k) = ln2_reduction(x.clamp(-746.0, 710.0));
    let y = scaled_exp(hi, lo, k);
    if x.is_nan() { x } else { y }
}

/// `(p, e)` with `p + e = a·b` exactly (Dekker's product, no FMA).
#[inline(always)]
fn exact_product(a: f64, b: f64) -> (f64, f64) {
    let split = |v: f64| {
        let c = SPLITTER * v;
        let high = c - (c - v);
        (high, v - high)
    };
    let p = a * b;
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// `2^x`, within an ulp, and exact at integers.
#[inline(always)]
pub(crate) fn exp2(x: f64) -> f64 {
    let xc = x.clamp(-1080.0, 1025.0);
    let t = xc + ROUNDING_SHIFT;
    let kf = t - ROUNDING_SHIFT;
    // f is exact (|f| ≤ 1/2), and f·ln2 = hi + e + f·LN2_TAIL to 2^-106.
    let f = xc - kf;
    let (hi, e) = exact_product(f, LN2);
    let y = scaled_exp(hi, -(e + f * LN2_TAIL), shifted_integer(t));
    if x.is_nan() { x } else { y }
}

/// `ln(e^a + e^b)` without overflow, as NumPy's `logaddexp`: equal values
/// (equal infinities included) give `a + ln 2`, a NaN difference propagates.
#[inline(always)]
pub(crate) fn logaddexp(a: f64, b: f64) -> f64 {
    let d = a - b;
    let larger = if d > 0.0 { a } else { b };
    let y = larger + log1p(exp(-d.abs()));
    let y = if d.is_nan() { d } else { y };
    if a == b { a + std::f64::consts::LN_2 } else { y }
}

/// `log2(2^a + 2^b)` without overflow, as NumPy's `logaddexp2`.
#[inline(always)]
pub(crate) fn logaddexp2(a: f64, b: f64) -> f64 {
    let d = a - b;
    let larger = if d > 0.0 { a } else { b };
    let y = larger + log1p(exp2(-d.abs())) * std::f64::consts::LOG2_E;
    let y = if d.is_nan() { d } else { y };
    if a == b { a + 1.0 } else { y }
}

/// `(r, tail, k)` with `|x| = k·ln2 + r` and `r + tail = expm1(r)`, `|x|`
/// clamped where `e^|x| / 2` overflows (NaN goes to the clamp too).
#[inline(always)]
fn reduced_magnitude(a: f64) -> (f64, f64, i64) {
    let (hi, lo, k) = ln2_reduction(a.min(711.0));
    let (r, tail) = expm1_parts(hi, lo);
    (r, tail, k)
}

/// The hyperbolic sine (fdlibm's forms, as accurate as glibc's): with `t =
/// expm1(|x|)`, `(2t - t²/(t + 1)) / 2` below 1, `(t + t/(t + 1)) / 2`
/// below 22, and `e^|x| / 2`, rounded once, above.
#[inline(always)]
pub(crate) fn sinh(x: f64) -> f64 {
    let a = x.abs();
    let (r, tail, k) = reduced_magnitude(a);
    // Past 22 this t is not used (nor finite for the largest k).
    let t = expm1_of_reduced(r, tail, k);
    // One division serves both forms: -t²/(t + 1) below 1, t/(t + 1) above,
    // each added to its lead (see `tanh` on why not selected after).
    let small = a < 1.0;
    let q = (if small { -(t * t) } else { t }) / (t + 1.0);
    let y = (if small { 2.0 * t } else { t }) + q;
    let y = if a < 22.0 { 0.5 * y } else { scaled_exp_of_reduced(r, tail, k - 1) };
    if x.is_nan() { x } else { y.copysign(x) }
}

/// The hyperbolic cosine (fdlibm's forms, as accurate as glibc's):
/// `1 + t²/(2(1 + t))` with `t = expm1(|x|)` up to ln2/2 (the reduction's
/// `k` is 0 there), `e^|x|/2 + 1/(2e^|x|)` above it.
#[inline(always)]
pub(crate) fn cosh(x: f64) -> f64 {
    let (r, tail, k) = reduced_magnitude(x.abs());
    let t = r + tail;
    let w = 1.0 + t;
    let half = scaled_exp_of_reduced(r, tail, k - 1);
    // One division serves both forms: t²/(2w) near 0, 1/(4·half) beyond.
    let (lead, numerator, denominator) = if k == 0 { (1.0, t * t, w + w) } else { (half, 0.25, half) };
    let y = lead + numerator / denominator;
    if x.is_nan() { x } else { y }
}

/// The hyperbolic tangent (fdlibm's forms from one `expm1`, as accurate as
/// glibc's): with `t = expm1(2|x|)`, `1 - 2/(t + 2)` from 1, `t/(t + 2)`
/// below 1 (fdlibm's `-u/(u + 2)` with `u = expm1(-2|x|)`, rewritten so that
/// one `expm1` serves both forms: LLVM computes an `expm1` of a selected
/// argument for both arguments), and 1 from 22.
#[inline(always)]
pub(crate) fn tanh(x: f64) -> f64 {
    let a = x.abs();
    let from_one = a >= 1.0;
    let t = expm1(2.0 * a.min(22.0));
    // `1 - 2/(t + 2)` as `1 + (-2)/(t + 2)`: with the forms written as lead
    // + quotient, LLVM keeps one division (it splits a division whose
    // result is selected on the numerator's condition).
    let q = (if from_one { -2.0 } else { t }) / (t + 2.0);
    let y = (if from_one { 1.0 } else { 0.0 }) + q;
    let y = if a >= 22.0 { 1.0 } else { y };
    if x.is_nan() { x } else { y.copysign(x) }
}

#[cfg(test)]
mod tests {
    use super::super::vector_libm::tests::{samples, ulps, worst};
    use super::*;

    /// Asserts that `f` is within `max_ulps` of glibc's `oracle` everywhere,
    /// and its value bit for bit at all but `percent_differing` of the samples
    /// in [lo, hi] (glibc's `exp` and `exp2` are within 0.502 ulp, and these
    /// round their last sum once).
    fn close_to_glibc(
        name: &str,
        f: fn(f64) -> f64,
        oracle: fn(f64) -> f64,
        (lo, hi): (f64, f64),
        max_ulps: u64,
        percent_differing: usize,
    ) {
        let (u, x) = worst(f, oracle);
        assert!(u <= max_ulps, "{name}({x:e}): {} against {}, {u} ulps", f(x), oracle(x));
        let xs: Vec<f64> = samples().into_iter().map(|x| x.clamp(lo, hi)).collect();
        let differing = xs.iter().filter(|&&x| f(x).to_bits() != oracle(x).to_bits()).count();
        assert!(
            differing * 100 < xs.len() * percent_differing,
            "{name}: {differing} of {} differ from glibc's",
            xs.len()
        );
    }

    #[test]
    fn exp_is_within_an_ulp_of_glibc_and_exact_at_its_edges() {
        close_to_glibc("exp", exp, f64::exp, (-745.0, 709.0), 1, 1);
        assert_eq!((exp(0.0), exp(-0.0), exp(1.0)), (1.0, 1.0, std::f64::consts::E));
        assert_eq!((exp(f64::INFINITY), exp(f64::NEG_INFINITY)), (f64::INFINITY, 0.0));
        assert_eq!((exp(709.78), exp(709.79), exp(-745.2)), (709.78f64.exp(), f64::INFINITY, 0.0));
        assert_eq!(exp(-745.1), 5e-324);
        // The subnormal range, rounded once as glibc's.
        for k in 0..2000 {
            let x = -708.0 - k as f64 * 0.0185;
            assert!(ulps(exp(x), x.exp()) <= 1, "exp({x}): {} against {}", exp(x), x.exp());
        }
    }

    #[test]
    fn exp2_is_within_an_ulp_of_glibc_and_exact_at_integers() {
        close_to_glibc("exp2", exp2, f64::exp2, (-1074.0, 1023.0), 1, 1);
        for k in -1074..=1023 {
            let power = if k < -1022 { f64::from_bits(1 << (k + 1074)) } else { two_to(k.into()) };
            assert_eq!(exp2(k as f64), power, "2^{k}");
        }
        assert_eq!((exp2(1024.0), exp2(-1075.0), exp2(f64::NEG_INFINITY)), (f64::INFINITY, 0.0, 0.0));
        assert!(exp2(f64::NAN).is_nan());
    }

    /// fdlibm's forms are within an ulp or two of the exact values (measured
    /// against mpmath), glibc's as ours: where the two `expm1`s differ by an
    /// ulp, the results may differ by two or three. `tanh` below 1 is
    /// `t/(t + 2)` over `expm1(2|x|)`, not fdlibm's `-u/(u + 2)` over
    /// `expm1(-2|x|)`: the same three roundings at other places, so its bits
    /// differ from glibc's more often (13% of samples), its error not (2.1
    /// ulps at most, glibc's 2.0).
    #[test]
    fn hyperbolic_functions_are_glibcs_forms() {
        type Form = (&'static str, fn(f64) -> f64, fn(f64) -> f64, u64, usize);
        let forms: [Form; 3] =
            [("sinh", sinh, f64::sinh, 2, 2), ("cosh", cosh, f64::cosh, 2, 2), ("tanh", tanh, f64::tanh, 3, 15)];
        for (name, f, oracle, max_ulps, percent_differing) in forms {
            close_to_glibc(name, f, oracle, (-30.0, 30.0), max_ulps, percent_differing);
            // Across the branch points and overflow, in steps that are not binary.
            for i in 0..20_000 {
                let x = -711.0 + i as f64 * 0.0711;
                assert!(ulps(f(x), oracle(x)) <= max_ulps, "{name}({x}): {} against {}", f(x), oracle(x));
            }
        }
        for x in [0.0, -0.0, 5e-324, -1e-300, 1e-20, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(sinh(x).to_bits(), x.sinh().to_bits(), "sinh({x})");
            assert_eq!(tanh(x).to_bits(), x.tanh().to_bits(), "tanh({x})");
            assert_eq!(cosh(x), x.cosh(), "cosh({x})");
        }
        assert!(sinh(f64::NAN).is_nan() && cosh(f64::NAN).is_nan() && tanh(f64::NAN).is_nan());
        // glibc's rounds twice near overflow (`e^(x/2)/2 · e^(x/2)`), these once.
        assert!(ulps(sinh(710.47), 710.47f64.sinh()) <= 1 && ulps(cosh(710.47), 710.47f64.cosh()) <= 1);
        assert_eq!((sinh(710.48), sinh(-710.48), cosh(-710.48)), (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn logaddexp_is_numpys_formula_within_two_ulps() {
        let xs = samples();
        let numpy = |a: f64, b: f64, exp: fn(f64) -> f64, scale: f64, same: f64| {
            let d = a - b;
            if a == b {
                a + same
            } else if d > 0.0 {
                a + exp(-d).ln_1p() * scale
            } else if d <= 0.0 {
                b + exp(d).ln_1p() * scale
            } else {
                d
            }
        };
        let natural = |a, b| numpy(a, b, f64::exp, 1.0, std::f64::consts::LN_2);
        let binary = |a, b| numpy(a, b, f64::exp2, std::f64::consts::LOG2_E, 1.0);
        // Where the larger operand and the log1p term cancel, both forms are
        // within two ulps of the operands' size rather than the result's.
        let close = |got: f64, want: f64, a: f64, b: f64| {
            ulps(got, want) <= 2 || (got - want).abs() <= 2.0 * f64::EPSILON * a.abs().max(b.abs())
        };
        for (&a, &b) in xs.iter().zip(xs.iter().skip(3)).step_by(3) {
            let (a, b) = (a.clamp(-1e3, 1e3) * 0.7, b.clamp(-1e3, 1e3));
            assert!(close(logaddexp(a, b), natural(a, b), a, b), "logaddexp({a:e}, {b:e})");
            assert!(close(logaddexp2(a, b), binary(a, b), a, b), "logaddexp2({a:e}, {b:e})");
        }
        let special = [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e308, -1e308];
        for a in special {
            for b in special {
                let (got, want) = (logaddexp(a, b), natural(a, b));
                assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "logaddexp({a}, {b})");
                let (got, want) = (logaddexp2(a, b), binary(a, b));
                assert!(got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan(), "logaddexp2({a}, {b})");
            }
        }
    }
}
