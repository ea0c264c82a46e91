//! Branch-free f64 forms of `asinh`, `acosh` and `atanh`, glibc's (fdlibm's)
//! forms written as [`vector_libm`](super::vector_libm)'s are: the forms'
//! arguments and reductions are selected, then one log kernel and at most
//! one division of their own are written for every element. (For `asinh`
//! and `acosh`, LLVM turns the selects back into a division, and for
//! `acosh` a square root, per form; `atanh` keeps its one.) The device
//! kernels' C forms (`vl_asinh`, `vl_acosh`, `vl_atanh`) repeat them step
//! for step.

use super::vector_libm::{ln_of_split, log1p, log1p_split, split_at_sqrt2};

/// 2^-28, below which `asinh` and `atanh` of `x` are `x`.
const TINY: f64 = f64::from_bits(0x3E30_0000_0000_0000);
/// 2^28, from which `asinh` and `acosh` are `ln|x| + ln 2`.
const HUGE: f64 = 268_435_456.0;
/// The least double whose upper word exceeds 2's: glibc takes the forms for
/// large arguments from there (it compares upper words).
const PAST_TWO: f64 = f64::from_bits(0x4000_0001_0000_0000);

/// `ln(1 + v)` where `log1p_form`, else `ln(v)` for a positive normal `v`:
/// the two reductions are selected, and one kernel takes the logarithm.
#[inline(always)]
fn log_or_log1p(v: f64, log1p_form: bool) -> f64 {
    let (dk1, f1, c1) = log1p_split(v);
    let (dk2, m) = split_at_sqrt2(v);
    let (dk, f, c) = if log1p_form { (dk1, f1, c1) } else { (dk2, m - 1.0, 0.0) };
    ln_of_split(dk, f, c)
}

/// The inverse hyperbolic sine (glibc's forms): with `a = |x|` and `t = a²`,
/// `log1p(a + t/(1 + √(1 + t)))` up to 2, `ln(2a + 1/(√(t + 1) + a))` past
/// it, `ln a + ln 2` from 2^28, `x` below 2^-28; one division serves the
/// first two.
#[inline(always)]
pub(crate) fn asinh(x: f64) -> f64 {
    let a = x.abs();
    let t = a * a;
    let root = (1.0 + t).sqrt();
    let small = a < PAST_TWO;
    let huge = a > HUGE;
    let q = (if small { t } else { 1.0 }) / (if small { 1.0 + root } else { root + a });
    let v = if small {
        a + q
    } else if huge {
        a
    } else {
        2.0 * a + q
    };
    let w = log_or_log1p(v, small);
    let w = if huge { w + std::f64::consts::LN_2 } else { w };
    // ±inf, NaN and tiny values are their own.
    let w = if a < TINY || !a.is_finite() { a } else { w };
    if x.is_nan() { x } else { w.copysign(x) }
}

/// The inverse hyperbolic cosine (glibc's forms): with `t = x - 1`,
/// `log1p(t + √(2t + t²))` up to 2, `ln(2x - 1/(x + √(x² - 1)))` past it,
/// `ln x + ln 2` from 2^28; NaN below 1.
#[inline(always)]
pub(crate) fn acosh(x: f64) -> f64 {
    let t = x - 1.0;
    let small = x < PAST_TWO;
    let huge = x >= HUGE;
    let root = (if small { 2.0 * t + t * t } else { x * x - 1.0 }).sqrt();
    let v = if small {
        t + root
    } else if huge {
        x
    } else {
        2.0 * x - 1.0 / (x + root)
    };
    let w = log_or_log1p(v, small);
    let w = if huge { w + std::f64::consts::LN_2 } else { w };
    let w = if x == f64::INFINITY { x } else { w };
    if x < 1.0 || x.is_nan() { f64::NAN } else { w }
}

/// The inverse hyperbolic tangent (fdlibm's, as glibc's): with `a = |x|`,
/// `log1p(2a + 2a·a/(1 - a))/2` below 1/2 and `log1p(2a/(1 - a))/2` from
/// there, one division serving both; below 2^-28 `x` itself.
#[inline(always)]
pub(crate) fn atanh(x: f64) -> f64 {
    let a = x.abs();
    let t = a + a;
    let small = a < 0.5;
    // The sums are written as lead + quotient so that the quotient's
    // numerator stays a select (LLVM splits a selected division otherwise).
    let q = (if small { t * a } else { t }) / (1.0 - a);
    let y = 0.5 * log1p((if small { t } else { 0.0 }) + q);
    // |x| > 1 gives log1p of less than -1 (NaN); |x| = 1 gives log1p(∞).
    let y = if a < TINY { a } else { y };
    y.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::super::vector_libm::tests::{ulps, worst};
    use super::*;

    unsafe extern "C" {
        /// glibc's `asinh`, `acosh` and `atanh` (std's are formulas of its own).
        #[link_name = "asinh"]
        fn libm_asinh(x: f64) -> f64;
        #[link_name = "acosh"]
        fn libm_acosh(x: f64) -> f64;
        #[link_name = "atanh"]
        fn libm_atanh(x: f64) -> f64;
    }

    fn glibc_asinh(x: f64) -> f64 {
        // SAFETY: a pure function of its argument.
        unsafe { libm_asinh(x) }
    }

    fn glibc_acosh(x: f64) -> f64 {
        // SAFETY: as above.
        unsafe { libm_acosh(x) }
    }

    fn glibc_atanh(x: f64) -> f64 {
        // SAFETY: as above.
        unsafe { libm_atanh(x) }
    }

    /// Asserts `f` within `max_ulps` of `oracle` at `xs`.
    fn near(name: &str, f: fn(f64) -> f64, oracle: fn(f64) -> f64, xs: impl Iterator<Item = f64>, max_ulps: u64) {
        for x in xs {
            assert!(ulps(f(x), oracle(x)) <= max_ulps, "{name}({x:e}): {} against {}", f(x), oracle(x));
        }
    }

    #[test]
    fn asinh_and_acosh_are_within_an_ulp_of_glibcs_forms() {
        let (u, x) = worst(asinh, glibc_asinh);
        assert!(u <= 1, "asinh({x:e}): {} against {}, {u} ulps", asinh(x), glibc_asinh(x));
        let (u, x) = worst(acosh, glibc_acosh);
        assert!(u <= 1, "acosh({x:e}): {} against {}, {u} ulps", acosh(x), glibc_acosh(x));
        // Across the switches of forms at 2 and 2^28, and near acosh's 1.
        let across = |at: f64| (0..4000).map(move |i| at * (1.0 + (i as f64 - 2000.0) * 1e-7));
        for at in [2.0, HUGE, 1.0 + 1e-3, 1.5] {
            near("asinh", asinh, glibc_asinh, across(at).chain(across(-at)), 1);
            near("acosh", acosh, glibc_acosh, across(at), 1);
        }
        near("acosh", acosh, glibc_acosh, (0..4000).map(|i| 1.0 + i as f64 * f64::EPSILON), 1);
        for x in [0.0, -0.0, 5e-324, -1e-300, f64::INFINITY, f64::NEG_INFINITY, f64::MAX, f64::MIN] {
            assert_eq!(asinh(x).to_bits(), glibc_asinh(x).to_bits(), "asinh({x})");
        }
        assert_eq!((acosh(1.0).to_bits(), acosh(f64::INFINITY)), (0, f64::INFINITY));
        assert_eq!(acosh(f64::MAX), glibc_acosh(f64::MAX));
        for x in [0.999_999_999_999_9, -1.0, 0.0, f64::NEG_INFINITY, f64::NAN] {
            assert!(acosh(x).is_nan(), "acosh({x})");
        }
        assert!(asinh(f64::NAN).is_nan());
    }

    #[test]
    fn atanh_is_within_an_ulp_of_glibcs_form() {
        let (u, x) = worst(atanh, glibc_atanh);
        assert!(u <= 1, "atanh({x:e}): {} against {}, {u} ulps", atanh(x), glibc_atanh(x));
        // Near ±1 and across the switch of forms at 1/2.
        for i in 1..20_000 {
            for x in [1.0 - i as f64 * 2.5e-5, 0.5 + (i as f64 - 10_000.0) * 1e-9] {
                assert!(ulps(atanh(x), glibc_atanh(x)) <= 1, "atanh({x}): {} against {}", atanh(x), glibc_atanh(x));
                assert_eq!(atanh(-x).to_bits(), (-atanh(x)).to_bits(), "atanh is odd at {x}");
            }
        }
        assert_eq!(
            (atanh(1.0), atanh(-1.0), atanh(-0.0).to_bits()),
            (f64::INFINITY, f64::NEG_INFINITY, (-0.0f64).to_bits())
        );
        assert_eq!(atanh(-5e-324), -5e-324);
        assert!(atanh(1.0 + f64::EPSILON).is_nan() && atanh(-f64::INFINITY).is_nan() && atanh(f64::NAN).is_nan());
    }
}
