//! The per-element kernels of the ufuncs, one trait per numeric kind, with
//! NumPy's semantics for NaN, infinities, signed zeros and integer overflow.
//!
//! They are supertraits of the public numeric traits but cannot be named
//! outside the crate: a program computes scalars with std and num-complex,
//! and arrays with the `Array` methods built on these. Every kernel is a plain
//! `#[inline]` function, so a fused tile loop over one is monomorphized and
//! vectorizable, with no dispatch per element.

mod complex;
mod real;
mod vector_exp;
mod vector_inverse_hyperbolic;
pub(super) mod vector_libm;

/// Kernels of every number (NumPy's `number`).
pub trait NumberMath: Copy {
    /// `x * x` (wrapping for integers).
    fn square(self) -> Self;
    /// `1 / x` (integers: as NumPy, 1 / x truncated; `1 / 0` is 0 here as `x / 0` is).
    fn reciprocal(self) -> Self;
    /// -1, 0 or 1 (NaN stays NaN; complex: `z / |z|`, 0 for 0).
    fn sign(self) -> Self;
    /// Neither infinite nor NaN (integers: always).
    fn is_finite(self) -> bool;
    /// Infinite (complex: either part).
    fn is_inf(self) -> bool;
}

/// Kernels of ordered numbers (integers and real floats).
pub trait RealMath: Copy {
    /// `(floor(a / b), the remainder with the sign of b)`, as NumPy's `divmod`
    /// (integers: `x // 0` and `x % 0` are 0, `MIN // -1` wraps to `MIN`).
    fn divmod(self, b: Self) -> (Self, Self);
    /// `floor(a / b)` (NumPy's `floor_divide`).
    #[inline]
    fn floor_div(self, b: Self) -> Self {
        self.divmod(b).0
    }
    /// The remainder with the sign of `b` (NumPy's `remainder`, Python's `%`).
    #[inline]
    fn modulo(self, b: Self) -> Self {
        self.divmod(b).1
    }
    /// The larger, ignoring a NaN (NumPy's `fmax`).
    fn fmax(self, b: Self) -> Self;
    /// The smaller, ignoring a NaN (NumPy's `fmin`).
    fn fmin(self, b: Self) -> Self;
    /// Whether the sign bit is set (`-0.0` has it; integers: negative).
    fn signbit(self) -> bool;
}

/// Kernels of integers.
pub trait IntegerMath: Copy {
    /// `a & b`
    fn bit_and(self, b: Self) -> Self;
    /// `a | b`
    fn bit_or(self, b: Self) -> Self;
    /// `a ^ b`
    fn bit_xor(self, b: Self) -> Self;
    /// `!a` (NumPy's `invert`)
    fn bit_not(self) -> Self;
    /// `a << b`; a shift by the width or more (or a negative one) gives 0.
    fn shl(self, b: Self) -> Self;
    /// `a >> b` (arithmetic for signed types); a shift by the width or more
    /// (or a negative one) fills with the sign.
    fn shr(self, b: Self) -> Self;
    /// The greatest common divisor, non-negative (`gcd(0, 0) == 0`).
    fn gcd(self, b: Self) -> Self;
    /// The least common multiple, non-negative (0 when either is 0).
    fn lcm(self, b: Self) -> Self;
}

/// Kernels of real floats and complex numbers (NumPy's `inexact`).
pub trait InexactMath: Copy {
    /// Square root (complex: the principal one).
    fn sqrt(self) -> Self;
    /// e^x
    fn exp(self) -> Self;
    /// 2^x
    fn exp2(self) -> Self;
    /// e^x - 1, accurate near 0.
    fn expm1(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// ln(1 + x), accurate near 0.
    fn log1p(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Inverse sine.
    fn asin(self) -> Self;
    /// Inverse cosine.
    fn acos(self) -> Self;
    /// Inverse tangent.
    fn atan(self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Inverse hyperbolic sine.
    fn asinh(self) -> Self;
    /// Inverse hyperbolic cosine.
    fn acosh(self) -> Self;
    /// Inverse hyperbolic tangent.
    fn atanh(self) -> Self;
}

/// Kernels of real floats.
pub trait FloatMath: Copy {
    /// Rounds down.
    fn floor(self) -> Self;
    /// Rounds up.
    fn ceil(self) -> Self;
    /// Rounds toward zero.
    fn trunc(self) -> Self;
    /// Rounds to the nearest integer, ties to even (NumPy's `rint`).
    fn rint(self) -> Self;
    /// Rounds to `decimals` decimal places, ties to even, as NumPy's `round`
    /// (negative `decimals` round to tens, hundreds, ...).
    fn round_to(self, decimals: i32) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// `sqrt(a² + b²)` without undue overflow.
    fn hypot(self, b: Self) -> Self;
    /// The angle of the point `(b, self)` (NumPy's `arctan2(y, x)` with `self` as `y`).
    fn atan2(self, b: Self) -> Self;
    /// `|a|` with the sign of `b`.
    fn copysign(self, b: Self) -> Self;
    /// The next representable value after `a` toward `b`.
    fn nextafter(self, b: Self) -> Self;
    /// `ln(e^a + e^b)` without overflow.
    fn logaddexp(self, b: Self) -> Self;
    /// `log2(2^a + 2^b)` without overflow.
    fn logaddexp2(self, b: Self) -> Self;
    /// 0 below 0, `h0` at 0, 1 above (NaN stays NaN).
    fn heaviside(self, h0: Self) -> Self;
    /// Radians to degrees.
    fn to_degrees(self) -> Self;
    /// Degrees to radians.
    fn to_radians(self) -> Self;
    /// The remainder with the sign of `a` (C's `fmod`).
    fn fmod(self, b: Self) -> Self;
    /// The largest finite value for +∞, the lowest for −∞, else the value.
    fn clamp_finite(self) -> Self;
}
