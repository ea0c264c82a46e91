//! The kernels for complex numbers: num-complex's principal branches, with
//! NumPy's `expm1` and `log1p`.

use num_complex::Complex;

use super::{InexactMath, NumberMath, vector_libm};
use crate::element::Number;

macro_rules! complex_math {
    ($f:ident) => {
        impl NumberMath for Complex<$f> {
            #[inline]
            fn square(self) -> Self {
                self * self
            }
            #[inline(always)]
            fn reciprocal(self) -> Self {
                Self::ONE.div(self)
            }
            #[inline]
            fn sign(self) -> Self {
                let m = Number::abs(self);
                if m == 0.0 { Self::ZERO } else { Complex::new(self.re / m, self.im / m) }
            }
            #[inline]
            fn is_finite(self) -> bool {
                self.re.is_finite() && self.im.is_finite()
            }
            #[inline]
            fn is_inf(self) -> bool {
                self.re.is_infinite() || self.im.is_infinite()
            }
        }
        impl InexactMath for Complex<$f> {
            #[inline]
            fn sqrt(self) -> Self {
                Complex::sqrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                Complex::exp(self)
            }
            #[inline]
            fn exp2(self) -> Self {
                Complex::exp2(self)
            }
            /// NumPy's: `expm1(x)·cos(y) − 2·sin²(y/2)` keeps the real part
            /// accurate near 0.
            #[inline]
            fn expm1(self) -> Self {
                let (x, y) = (self.re, self.im);
                let h = (y / 2.0).sin();
                Complex::new(x.exp_m1() * y.cos() - 2.0 * h * h, x.exp() * y.sin())
            }
            #[inline]
            fn ln(self) -> Self {
                Complex::ln(self)
            }
            #[inline]
            fn log2(self) -> Self {
                Complex::log2(self)
            }
            #[inline]
            fn log10(self) -> Self {
                Complex::log10(self)
            }
            /// NumPy's: `ln|1 + z| + i·arg(1 + z)` (in f64, with the
            /// branch-free forms).
            #[inline(always)]
            fn log1p(self) -> Self {
                let (x, y) = (f64::from(self.re + 1.0), f64::from(self.im));
                Complex::new(vector_libm::ln(vector_libm::hypot(x, y)) as $f, vector_libm::atan2(y, x) as $f)
            }
            #[inline]
            fn sin(self) -> Self {
                Complex::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                Complex::cos(self)
            }
            #[inline]
            fn tan(self) -> Self {
                Complex::tan(self)
            }
            #[inline]
            fn asin(self) -> Self {
                Complex::asin(self)
            }
            #[inline]
            fn acos(self) -> Self {
                Complex::acos(self)
            }
            #[inline]
            fn atan(self) -> Self {
                Complex::atan(self)
            }
            #[inline]
            fn sinh(self) -> Self {
                Complex::sinh(self)
            }
            #[inline]
            fn cosh(self) -> Self {
                Complex::cosh(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                Complex::tanh(self)
            }
            #[inline]
            fn asinh(self) -> Self {
                Complex::asinh(self)
            }
            #[inline]
            fn acosh(self) -> Self {
                Complex::acosh(self)
            }
            #[inline]
            fn atanh(self) -> Self {
                Complex::atanh(self)
            }
        }
    };
}
complex_math!(f32);
complex_math!(f64);
