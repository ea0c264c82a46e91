//! `Element` and `Number` for the complex types (NumPy's `complex64` and
//! `complex128`), with NumPy's division and power.

use super::{Complex, Complex64, DType, Element, Inexact, Number};

macro_rules! complex_element {
    ($f:ident, $dt:expr) => {
        impl Element for Complex<$f> {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = false;
            const IS_COMPLEX: bool = true;
            type Sum = Self;
            type Mean = Self;
            type Quotient = Self;
            #[inline]
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self.re as i64
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                Complex::new(v as $f, 0.0)
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                Complex::new(v as $f, 0.0)
            }
            #[inline]
            fn to_complex(self) -> Complex64 {
                Complex64::new(self.re as f64, self.im as f64)
            }
            #[inline]
            fn from_complex(v: Complex64) -> Self {
                Complex::new(v.re as $f, v.im as $f)
            }
            #[inline]
            fn is_nan(self) -> bool {
                self.re.is_nan() || self.im.is_nan()
            }
        }
        impl Number for Complex<$f> {
            type RealPart = $f;
            const ZERO: Self = Complex::new(0.0, 0.0);
            const ONE: Self = Complex::new(1.0, 0.0);
            #[inline]
            fn add(self, b: Self) -> Self {
                self + b
            }
            #[inline]
            fn sub(self, b: Self) -> Self {
                self - b
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                self * b
            }
            /// Smith's algorithm, as NumPy divides: no overflow of `|b|²`.
            /// Both of its cases are one computation with the operands
            /// swapped, chosen by selects, so that the tile loops vectorize
            /// it (the same operations in the same order as either case).
            #[inline(always)]
            fn div(self, b: Self) -> Self {
                let (ar, ai, br, bi) = (self.re, self.im, b.re, b.im);
                let real_larger = br.abs() >= bi.abs();
                let (p, q) = if real_larger { (br, bi) } else { (bi, br) };
                let (x1, x2) = if real_larger { (ar, ai) } else { (ai, ar) };
                let rat = q / p;
                let scl = 1.0 / (p + q * rat);
                let re = (x1 + x2 * rat) * scl;
                let (minuend, subtrahend) = if real_larger { (x2, x1 * rat) } else { (x1 * rat, x2) };
                let im = (minuend - subtrahend) * scl;
                let by_zero = br == 0.0 && bi == 0.0;
                let (re, im) = if by_zero { (ar / br.abs(), ai / br.abs()) } else { (re, im) };
                Complex::new(re, im)
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn abs(self) -> $f {
                super::math::vector_libm::hypot(f64::from(self.re), f64::from(self.im)) as $f
            }
            /// NumPy's `npy_cpow`: exact for small integer exponents.
            #[inline]
            fn pow(self, b: Self) -> Self {
                if b.re == 0.0 && b.im == 0.0 {
                    return Self::ONE;
                }
                if self.re == 0.0 && self.im == 0.0 {
                    return if b.re > 0.0 && b.im == 0.0 { Self::ZERO } else { Complex::new($f::NAN, $f::NAN) };
                }
                if b.im == 0.0 && b.re == b.re.trunc() && b.re.abs() < 100.0 {
                    let n = b.re.abs() as u32;
                    let (mut acc, mut base, mut k) = (Self::ONE, self, n);
                    while k > 0 {
                        if k & 1 == 1 {
                            acc *= base;
                        }
                        base = base * base;
                        k >>= 1;
                    }
                    return if b.re < 0.0 { Self::ONE.div(acc) } else { acc };
                }
                self.powc(b)
            }
            #[inline]
            fn re(self) -> $f {
                self.re
            }
            #[inline]
            fn im(self) -> $f {
                self.im
            }
            #[inline]
            fn conj(self) -> Self {
                Complex::new(self.re, -self.im)
            }
        }
        impl Inexact for Complex<$f> {}
    };
}
complex_element!(f32, DType::Complex64);
complex_element!(f64, DType::Complex128);
