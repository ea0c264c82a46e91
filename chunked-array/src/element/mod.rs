//! Element types an [`Array`](crate::Array) can hold, and the per-element arithmetic
//! they share.
//!
//! Integer arithmetic follows Rust's wrapping semantics and never panics: `x / 0`
//! and `x % 0` give `0` (NumPy gives 0 with a warning), overflow wraps.

use std::fmt::{Debug, Display};

mod impls;
mod wire;
pub use wire::WireValue;

/// The element type of an array, as a value (dask's `dtype`).
///
/// ```
/// use chunked_array::{Array, DType, Element};
/// let a = Array::<i32>::zeros(&[4], [2]).unwrap();
/// assert_eq!(a.dtype(), DType::I32);
/// assert_eq!(<f32 as Element>::DTYPE, DType::F32);
/// assert_eq!(DType::F64.to_string(), "float64");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `bool`
    Bool,
    /// A reduction's intermediate (never the dtype of a user-visible array).
    Intermediate,
}

impl DType {
    /// Bytes per element (0 for intermediates, whose size is not fixed).
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert_eq!(DType::F64.size(), 8);
    /// assert_eq!(DType::I32.size(), 4);
    /// assert_eq!(DType::Bool.size(), 1);
    /// ```
    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
            DType::U8 | DType::Bool => 1,
            DType::Intermediate => 0,
        }
    }

    /// NumPy's name for the type.
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert_eq!(DType::F32.name(), "float32");
    /// assert_eq!(DType::U8.name(), "uint8");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::Bool => "bool",
            DType::Intermediate => "intermediate",
        }
    }
}

impl Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for u8 {}
    impl Sealed for bool {}
}

/// A type an array can hold: `f32`, `f64`, `i32`, `i64`, `u8` or `bool`.
///
/// Generic code over arrays bounds its element type by `Element`:
///
/// ```
/// use chunked_array::{DType, Element};
/// fn dtype_of<T: Element>(_: &[T]) -> DType {
///     T::DTYPE
/// }
/// assert_eq!(dtype_of(&[1u8, 2]), DType::U8);
/// assert!(<f64 as Element>::IS_FLOAT && !<i64 as Element>::IS_FLOAT);
/// ```
pub trait Element:
    sealed::Sealed + WireValue + Copy + Send + Sync + Default + PartialEq + PartialOrd + Debug + Display + 'static
{
    /// The dtype value of this type.
    const DTYPE: DType;
    /// Whether the type is a floating-point type.
    const IS_FLOAT: bool;
    /// Type that `sum`/`prod`/`cumsum` accumulate into (NumPy's rules: integers and
    /// bools widen to `i64`).
    type Sum: Number;
    /// Type of `mean`, `var` and `std` (`f32` for `f32`, `f64` otherwise).
    type Mean: Float;
    /// Converts to `f64` (`true` is 1).
    ///
    /// ```
    /// use chunked_array::Element;
    /// assert_eq!(true.to_f64(), 1.0);
    /// assert_eq!(7i32.to_f64(), 7.0);
    /// ```
    fn to_f64(self) -> f64;
    /// Converts to `i64` (floats truncate toward zero and saturate, NaN is 0).
    ///
    /// ```
    /// use chunked_array::Element;
    /// assert_eq!((-2.7f64).to_i64(), -2);
    /// assert_eq!(f64::NAN.to_i64(), 0);
    /// assert_eq!(1e300f64.to_i64(), i64::MAX);
    /// ```
    fn to_i64(self) -> i64;
    /// Converts from `f64` (to integers: truncation, saturating; to bool: `!= 0`).
    ///
    /// ```
    /// use chunked_array::Element;
    /// assert_eq!(<u8 as Element>::from_f64(300.0), 255);
    /// assert_eq!(<i32 as Element>::from_f64(-1.9), -1);
    /// assert!(<bool as Element>::from_f64(0.5));
    /// ```
    fn from_f64(v: f64) -> Self;
    /// Converts from `i64` (to smaller integers: wrapping, as NumPy's astype).
    ///
    /// ```
    /// use chunked_array::Element;
    /// assert_eq!(<u8 as Element>::from_i64(257), 1);
    /// assert_eq!(<f64 as Element>::from_i64(-3), -3.0);
    /// ```
    fn from_i64(v: i64) -> Self;
    /// Converts to another element type with NumPy `astype` semantics (integer to
    /// integer wraps; float to integer truncates).
    ///
    /// ```
    /// use chunked_array::Element;
    /// assert_eq!(300i32.cast::<u8>(), 44);
    /// assert_eq!(2.9f64.cast::<i64>(), 2);
    /// assert_eq!(1u8.cast::<bool>(), true);
    /// ```
    #[inline]
    fn cast<U: Element>(self) -> U {
        if Self::IS_FLOAT || U::IS_FLOAT { U::from_f64(self.to_f64()) } else { U::from_i64(self.to_i64()) }
    }
    /// Whether the value is NaN (always false for integers and bools).
    ///
    /// ```
    /// use chunked_array::Element;
    /// assert!(Element::is_nan(f32::NAN));
    /// assert!(!Element::is_nan(1.0f64));
    /// assert!(!Element::is_nan(0i32));
    /// ```
    #[inline]
    fn is_nan(self) -> bool {
        false
    }
    /// Widens to the accumulator type.
    ///
    /// ```
    /// use chunked_array::Element;
    /// let s: i64 = 200u8.to_sum();
    /// assert_eq!(s, 200);
    /// let t: f32 = 1.5f32.to_sum();
    /// assert_eq!(t, 1.5);
    /// ```
    #[inline]
    fn to_sum(self) -> Self::Sum {
        self.cast()
    }
    /// Converts to the mean type.
    ///
    /// ```
    /// use chunked_array::Element;
    /// let m: f64 = 3i32.to_mean();
    /// assert_eq!(m, 3.0);
    /// let n: f32 = 0.5f32.to_mean();
    /// assert_eq!(n, 0.5);
    /// ```
    #[inline]
    fn to_mean(self) -> Self::Mean {
        self.cast()
    }
}

/// Element types with arithmetic (all but `bool`).
///
/// ```
/// use chunked_array::Number;
/// fn dot<T: Number>(a: &[T], b: &[T]) -> T {
///     a.iter().zip(b).fold(T::ZERO, |acc, (&x, &y)| acc.add(x.mul(y)))
/// }
/// assert_eq!(dot(&[1i64, 2, 3], &[4, 5, 6]), 32);
/// assert_eq!(dot(&[0.5f64, 2.0], &[2.0, 0.25]), 1.5);
/// ```
pub trait Number: Element {
    /// 0
    const ZERO: Self;
    /// 1
    const ONE: Self;
    /// Smallest value (−∞ for floats).
    const MIN: Self;
    /// Largest value (+∞ for floats).
    const MAX: Self;
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
    /// `a % b` with the sign of `a` (Rust's `%`; integers: `x % 0 == 0`).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::rem(-7i32, 3), -1);
    /// assert_eq!(Number::rem(7i64, 0), 0);
    /// assert_eq!(Number::rem(5.5f64, 2.0), 1.5);
    /// ```
    fn rem(self, b: Self) -> Self;
    /// `-a` (wrapping for integers).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::neg(3i32), -3);
    /// assert_eq!(Number::neg(i32::MIN), i32::MIN);
    /// ```
    fn neg(self) -> Self;
    /// `|a|` (wrapping for `MIN`).
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::abs(-4i64), 4);
    /// assert_eq!(Number::abs(-1.5f32), 1.5);
    /// assert_eq!(Number::abs(i64::MIN), i64::MIN);
    /// ```
    fn abs(self) -> Self;
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
    /// The smaller of two values; NaN propagates.
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::min_nan(3i32, -2), -2);
    /// assert!(Number::min_nan(1.0f64, f64::NAN).is_nan());
    /// ```
    fn min_nan(self, b: Self) -> Self;
    /// The larger of two values; NaN propagates.
    ///
    /// ```
    /// use chunked_array::Number;
    /// assert_eq!(Number::max_nan(3u8, 9), 9);
    /// assert!(Number::max_nan(f32::NAN, 1.0).is_nan());
    /// ```
    fn max_nan(self, b: Self) -> Self;
}

/// Floating-point element types (`f32`, `f64`).
///
/// ```
/// use chunked_array::Float;
/// fn hypot<T: Float>(a: T, b: T) -> T {
///     a.mul(a).add(b.mul(b)).sqrt()
/// }
/// assert_eq!(hypot(3.0f64, 4.0), 5.0);
/// assert!(<f32 as Float>::NAN.is_nan());
/// ```
pub trait Float: Number {
    /// NaN
    const NAN: Self;
    /// Square root.
    ///
    /// ```
    /// use chunked_array::Float;
    /// assert_eq!(Float::sqrt(9.0f64), 3.0);
    /// assert!(Float::sqrt(-1.0f32).is_nan());
    /// ```
    fn sqrt(self) -> Self;
    /// e^x
    ///
    /// ```
    /// use chunked_array::Float;
    /// assert_eq!(Float::exp(0.0f64), 1.0);
    /// assert!((Float::exp(1.0f64) - std::f64::consts::E).abs() < 1e-15);
    /// ```
    fn exp(self) -> Self;
    /// Natural logarithm.
    ///
    /// ```
    /// use chunked_array::Float;
    /// assert_eq!(Float::ln(1.0f32), 0.0);
    /// assert!((Float::ln(std::f64::consts::E) - 1.0).abs() < 1e-15);
    /// ```
    fn ln(self) -> Self;
    /// Sine.
    ///
    /// ```
    /// use chunked_array::Float;
    /// assert_eq!(Float::sin(0.0f64), 0.0);
    /// assert!((Float::sin(std::f64::consts::FRAC_PI_2) - 1.0).abs() < 1e-15);
    /// ```
    fn sin(self) -> Self;
    /// Cosine.
    ///
    /// ```
    /// use chunked_array::Float;
    /// assert_eq!(Float::cos(0.0f32), 1.0);
    /// assert!((Float::cos(std::f64::consts::PI) + 1.0).abs() < 1e-15);
    /// ```
    fn cos(self) -> Self;
    /// Hyperbolic tangent.
    ///
    /// ```
    /// use chunked_array::Float;
    /// assert_eq!(Float::tanh(0.0f64), 0.0);
    /// assert!((Float::tanh(50.0f64) - 1.0).abs() < 1e-15);
    /// ```
    fn tanh(self) -> Self;
}
