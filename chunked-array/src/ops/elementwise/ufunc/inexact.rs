//! The transcendental ufuncs, on real floats and complex numbers.

use crate::array::Array;
use crate::element::Inexact;
use crate::element::math::InexactMath;
use crate::ops::elementwise::ufunc::unary_ufuncs;

unary_ufuncs! { impl<T: Inexact> {
    /// Square root (complex: the principal root; a negative real is NaN).
    fn sqrt -> T = InexactMath::sqrt;
    example f64 [1.0, 4.0, 9.0] => [1.0, 2.0, 3.0];
    /// e^x.
    fn exp -> T = InexactMath::exp;
    example f64 [0.0, 1.0, -2.5] => (exp);
    /// 2^x.
    fn exp2 -> T = InexactMath::exp2;
    example f64 [0.0, 3.0, -1.0] => [1.0, 8.0, 0.5];
    /// e^x - 1, accurate for small x.
    fn expm1 -> T = InexactMath::expm1;
    example f64 [0.0, 1e-10, 2.0] => (exp_m1);
    /// Natural logarithm (NumPy's `log`).
    fn log -> T = InexactMath::ln;
    example f64 [1.0, 2.0, 10.0] => [0.0, std::f64::consts::LN_2, std::f64::consts::LN_10];
    /// Base-2 logarithm.
    fn log2 -> T = InexactMath::log2;
    example f64 [1.0, 8.0, 0.5] => [0.0, 3.0, -1.0];
    /// Base-10 logarithm.
    fn log10 -> T = InexactMath::log10;
    example f64 [1.0, 1000.0, 0.01] => [0.0, 3.0, -2.0];
    /// ln(1 + x), accurate for small x.
    fn log1p -> T = InexactMath::log1p;
    example f64 [0.0, 1e-10, 1.5] => (ln_1p);
    /// Sine.
    fn sin -> T = InexactMath::sin;
    example f64 [0.0, 1.0, -2.0] => (sin);
    /// Cosine.
    fn cos -> T = InexactMath::cos;
    example f64 [0.0, 1.0, -2.0] => (cos);
    /// Tangent.
    fn tan -> T = InexactMath::tan;
    example f64 [0.0, 1.0, -2.0] => (tan);
    /// Inverse sine (NaN outside [-1, 1] for reals).
    fn arcsin -> T = InexactMath::asin;
    example f64 [0.0, 1.0, -1.0] => [0.0, std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_2];
    /// Inverse cosine.
    fn arccos -> T = InexactMath::acos;
    example f64 [1.0, 0.0, -1.0] => [0.0, std::f64::consts::FRAC_PI_2, std::f64::consts::PI];
    /// Inverse tangent.
    fn arctan -> T = InexactMath::atan;
    example f64 [0.0, 1.0, -1.0] => [0.0, std::f64::consts::FRAC_PI_4, -std::f64::consts::FRAC_PI_4];
    /// Hyperbolic sine.
    fn sinh -> T = InexactMath::sinh;
    example f64 [0.0, 1.0, -2.0] => (sinh);
    /// Hyperbolic cosine.
    fn cosh -> T = InexactMath::cosh;
    example f64 [0.0, 1.0, -2.0] => (cosh);
    /// Hyperbolic tangent.
    fn tanh -> T = InexactMath::tanh;
    example f64 [0.0, -50.0, 50.0] => [0.0, -1.0, 1.0];
    /// Inverse hyperbolic sine.
    fn arcsinh -> T = InexactMath::asinh;
    example f64 [0.0, 1.0, -2.0] => (asinh);
    /// Inverse hyperbolic cosine (NaN below 1 for reals).
    fn arccosh -> T = InexactMath::acosh;
    example f64 [1.0, 2.0, 10.0] => (acosh);
    /// Inverse hyperbolic tangent.
    fn arctanh -> T = InexactMath::atanh;
    example f64 [0.0, 0.5, -0.5] => (atanh);
}}
