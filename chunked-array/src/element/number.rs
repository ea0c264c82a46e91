//! The numeric traits: NumPy's `number`, the ordered reals, `integer`,
//! `inexact`, `floating` and `complexfloating`.

use super::math::{FloatMath, InexactMath, IntegerMath, NumberMath, RealMath};
use super::{Complex, Element, Promote};

/// Element types with arithmetic (all but `bool`; NumPy's `number`).
///
/// ```
/// use chunked_array::Number;
/// fn dot<T: Number>(a: &[T], b: &[T]) -> T {
///     a.iter().zip(b).fold(T::ZERO, |acc, (&x, &y)| acc.add(x.mul(y)))
/// }
/// assert_eq!(dot(&[1i64, 2, 3], &[4, 5, 6]), 32);
/// assert_eq!(dot(&[0.5f64, 2.0], &[2.0, 0.25]), 1.5);
/// ```
pub trait Number: Element + NumberMath + Promote<Self, Output = Self> {
    /// The type of the real and imaginary parts and of `abs` (the type itself
    /// for reals).
    type RealPart: Real;
    /// 0
    const ZERO: Self;
    /// 1
    const ONE: Self;
    /// `a + b` (wrapping for integers).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::add(2i32, 3), 5);
    /// assert_eq!(Number::add(u8::MAX, 1), 0);
    /// ```
    fn add(self, b: Self) -> Self;
    /// `a - b` (wrapping for integers).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::sub(5.5f64, 2.0), 3.5);
    /// assert_eq!(Number::sub(0u8, 1), 255);
    /// ```
    fn sub(self, b: Self) -> Self;
    /// `a * b` (wrapping for integers).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::mul(6i64, 7), 42);
    /// assert_eq!(Number::mul(16u8, 16), 0);
    /// ```
    fn mul(self, b: Self) -> Self;
    /// `a / b` (integers: truncating, `x / 0 == 0`).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::div(-7i32, 2), -3);
    /// assert_eq!(Number::div(5i32, 0), 0);
    /// assert_eq!(Number::div(1.0f64, 4.0), 0.25);
    /// ```
    fn div(self, b: Self) -> Self;
    /// `-a` (wrapping for integers).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::neg(3i32), -3);
    /// assert_eq!(Number::neg(i32::MIN), i32::MIN);
    /// ```
    fn neg(self) -> Self;
    /// `|a|` (wrapping for `MIN`; complex: the modulus, a real).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::abs(-4i64), 4);
    /// assert_eq!(Number::abs(-1.5f32), 1.5);
    /// assert_eq!(Number::abs(i64::MIN), i64::MIN);
    /// ```
    fn abs(self) -> Self::RealPart;
    /// `a ** b`. Integers: a negative exponent gives `0` unless `|a| == 1`.
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::pow(2i32, 10), 1024);
    /// assert_eq!(Number::pow(2i32, -1), 0);
    /// assert_eq!(Number::pow(-1i32, -3), -1);
    /// assert_eq!(Number::pow(4.0f64, 0.5), 2.0);
    /// ```
    fn pow(self, b: Self) -> Self;
    /// The real part (the value itself for reals).
    ///
    /// ```
    /// use chunked_array::{Complex64, Number};
    /// assert_eq!(Number::re(Complex64::new(1.0, 2.0)), 1.0);
    /// assert_eq!(Number::re(-3i8), -3);
    /// ```
    fn re(self) -> Self::RealPart;
    /// The imaginary part (0 for reals).
    ///
    /// ```
    /// use chunked_array::{Complex64, Number};
    /// assert_eq!(Number::im(Complex64::new(1.0, 2.0)), 2.0);
    /// assert_eq!(Number::im(5u16), 0);
    /// ```
    fn im(self) -> Self::RealPart;
    /// The complex conjugate (the value itself for reals).
    ///
    /// ```
    /// use chunked_array::{Complex32, Number};
    /// assert_eq!(Number::conj(Complex32::new(1.0, 2.0)), Complex32::new(1.0, -2.0));
    /// assert_eq!(Number::conj(4.5f64), 4.5);
    /// ```
    fn conj(self) -> Self;
}

/// Ordered numbers: integers and real floats (all but bool and complex).
///
/// ```
/// use chunked_array::Real;
/// fn largest<T: Real>(v: &[T]) -> T {
///     v.iter().fold(T::MIN, |m, &x| m.max_nan(x))
/// }
/// assert_eq!(largest(&[3u16, 9, 2]), 9);
/// assert_eq!(largest(&[-1.5f32]), -1.5);
/// ```
pub trait Real: Number<RealPart = Self> + PartialOrd + RealMath {
    /// Smallest value (−∞ for floats).
    const MIN: Self;
    /// Largest value (+∞ for floats).
    const MAX: Self;
    /// `a % b` with the sign of `a` (Rust's `%`; integers: `x % 0 == 0`).
    ///
    /// ```
    /// use chunked_array::Real;
    /// assert_eq!(Real::rem(-7i32, 3), -1);
    /// assert_eq!(Real::rem(7i64, 0), 0);
    /// assert_eq!(Real::rem(5.5f64, 2.0), 1.5);
    /// ```
    fn rem(self, b: Self) -> Self;
    /// The smaller of two values; NaN propagates.
    ///
    /// ```
    /// use chunked_array::Real;
    /// assert_eq!(Real::min_nan(3i32, -2), -2);
    /// assert!(Real::min_nan(1.0f64, f64::NAN).is_nan());
    /// ```
    fn min_nan(self, b: Self) -> Self;
    /// The larger of two values; NaN propagates.
    ///
    /// ```
    /// use chunked_array::Real;
    /// assert_eq!(Real::max_nan(3u8, 9), 9);
    /// assert!(Real::max_nan(f32::NAN, 1.0).is_nan());
    /// ```
    fn max_nan(self, b: Self) -> Self;
}

/// Integer element types (NumPy's `integer`): the bitwise operations, shifts,
/// `gcd` and `lcm` are theirs.
///
/// ```
/// use chunked_array::{Array, Integer, Operand};
/// fn low_bits<T: Integer>(a: &Array<T>, mask: T) -> Array<T> {
///     a.bitwise_and(Operand::Scalar(mask)).unwrap()
/// }
/// let x = Array::from_vec(&[3], vec![0xF1u16, 0x0F, 0x30], 2).unwrap();
/// assert_eq!(low_bits(&x, 0x0F).compute().unwrap().as_slice().unwrap(), &[1, 15, 0]);
/// ```
pub trait Integer: Real + Ord + Eq + std::hash::Hash + IntegerMath {
    /// Bits per value.
    const BITS: u32;
    /// Whether the type is signed.
    const SIGNED: bool;
}

/// Floating-point and complex element types (NumPy's `inexact`): the
/// transcendental functions are theirs.
///
/// ```
/// use chunked_array::{Array, Complex64, Inexact};
/// fn exp_of<T: Inexact>(a: &Array<T>) -> Array<T> {
///     a.exp()
/// }
/// let z = Array::from_vec(&[1], vec![Complex64::new(0.0, std::f64::consts::PI)], 1).unwrap();
/// let e = exp_of(&z).compute().unwrap();
/// assert!((e[0] - Complex64::new(-1.0, 0.0)).norm() < 1e-15);
/// ```
pub trait Inexact: Number + InexactMath {}

/// Real floating-point element types (`f32`, `f64`).
///
/// ```
/// use chunked_array::{Array, Float};
/// fn hypot<T: Float>(a: &Array<T>, b: &Array<T>) -> Array<T> {
///     a.hypot(b).unwrap()
/// }
/// let a = Array::from_vec(&[2], vec![3.0f64, 5.0], 1).unwrap();
/// let b = Array::from_vec(&[2], vec![4.0f64, 12.0], 1).unwrap();
/// assert_eq!(hypot(&a, &b).compute().unwrap().as_slice().unwrap(), &[5.0, 13.0]);
/// assert!(<f32 as Float>::NAN.is_nan());
/// ```
pub trait Float: Real + Inexact + FloatMath + Element<Quotient = Self, Mean = Self> {
    /// NaN
    const NAN: Self;
    /// +∞
    const INFINITY: Self;
    /// The largest finite value.
    const MAX_FINITE: Self;
    /// The difference between 1 and the next larger value.
    const EPSILON: Self;
}

/// Complex element types ([`Complex32`](super::Complex32) for NumPy's
/// `complex64`, [`Complex64`](super::Complex64) for `complex128`).
///
/// ```
/// use chunked_array::{ComplexFloat, Complex64};
/// fn magnitude<T: ComplexFloat>(z: T) -> T::RealPart {
///     chunked_array::Number::abs(z)
/// }
/// assert_eq!(magnitude(Complex64::new(3.0, 4.0)), 5.0);
/// assert_eq!(<Complex64 as ComplexFloat>::from_parts(1.0, 2.0), Complex64::new(1.0, 2.0));
/// ```
pub trait ComplexFloat: Inexact + Element<Quotient = Self, Mean = Self, Sum = Self> {
    /// The value with real part `re` and imaginary part `im`.
    ///
    /// ```
    /// use chunked_array::{ComplexFloat, Complex32};
    /// assert_eq!(Complex32::from_parts(0.5, -1.0).im, -1.0);
    /// ```
    fn from_parts(re: Self::RealPart, im: Self::RealPart) -> Self;
}

impl<F> ComplexFloat for Complex<F>
where
    Complex<F>: Inexact + Element<Quotient = Self, Mean = Self, Sum = Self> + Number<RealPart = F>,
    F: Float,
{
    #[inline]
    fn from_parts(re: F, im: F) -> Self {
        Complex::new(re, im)
    }
}
