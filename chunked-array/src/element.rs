//! Element types an [`Array`](crate::Array) can hold, and the per-element arithmetic
//! they share.
//!
//! Integer arithmetic follows Rust's wrapping semantics and never panics: `x / 0`
//! and `x % 0` give `0` (NumPy gives 0 with a warning), overflow wraps.

use std::fmt::{Debug, Display};

/// The element type of an array, as a value (dask's `dtype`).
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
    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 => 8,
            DType::U8 | DType::Bool => 1,
            DType::Intermediate => 0,
        }
    }

    /// NumPy's name for the type.
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
    fn to_f64(self) -> f64;
    /// Converts to `i64` (floats truncate toward zero and saturate, NaN is 0).
    fn to_i64(self) -> i64;
    /// Converts from `f64` (to integers: truncation, saturating; to bool: `!= 0`).
    fn from_f64(v: f64) -> Self;
    /// Converts from `i64` (to smaller integers: wrapping, as NumPy's astype).
    fn from_i64(v: i64) -> Self;
    /// Converts to another element type with NumPy `astype` semantics (integer to
    /// integer wraps; float to integer truncates).
    #[inline]
    fn cast<U: Element>(self) -> U {
        if Self::IS_FLOAT || U::IS_FLOAT { U::from_f64(self.to_f64()) } else { U::from_i64(self.to_i64()) }
    }
    /// Whether the value is NaN (always false for integers and bools).
    #[inline]
    fn is_nan(self) -> bool {
        false
    }
    /// Widens to the accumulator type.
    #[inline]
    fn to_sum(self) -> Self::Sum {
        self.cast()
    }
    /// Converts to the mean type.
    #[inline]
    fn to_mean(self) -> Self::Mean {
        self.cast()
    }
}

/// Element types with arithmetic (all but `bool`).
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
    fn add(self, b: Self) -> Self;
    /// `a - b` (wrapping for integers).
    fn sub(self, b: Self) -> Self;
    /// `a * b` (wrapping for integers).
    fn mul(self, b: Self) -> Self;
    /// `a / b` (integers: truncating, `x / 0 == 0`).
    fn div(self, b: Self) -> Self;
    /// `a % b` with the sign of `a` (Rust's `%`; integers: `x % 0 == 0`).
    fn rem(self, b: Self) -> Self;
    /// `-a` (wrapping for integers).
    fn neg(self) -> Self;
    /// `|a|` (wrapping for `MIN`).
    fn abs(self) -> Self;
    /// `a ** b`. Integers: a negative exponent gives `0` unless `|a| == 1`.
    fn pow(self, b: Self) -> Self;
    /// The smaller of two values; NaN propagates.
    fn min_nan(self, b: Self) -> Self;
    /// The larger of two values; NaN propagates.
    fn max_nan(self, b: Self) -> Self;
}

/// Floating-point element types (`f32`, `f64`).
pub trait Float: Number {
    /// NaN
    const NAN: Self;
    /// Square root.
    fn sqrt(self) -> Self;
    /// e^x
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
}

macro_rules! float_element {
    ($t:ty, $dt:expr, $mean:ty) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = true;
            type Sum = $t;
            type Mean = $mean;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
        impl Number for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const MIN: Self = <$t>::NEG_INFINITY;
            const MAX: Self = <$t>::INFINITY;
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
            #[inline]
            fn div(self, b: Self) -> Self {
                self / b
            }
            #[inline]
            fn rem(self, b: Self) -> Self {
                self % b
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn pow(self, b: Self) -> Self {
                self.powf(b)
            }
            #[inline]
            fn min_nan(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if b < self {
                    b
                } else {
                    self
                }
            }
            #[inline]
            fn max_nan(self, b: Self) -> Self {
                if self.is_nan() || b.is_nan() {
                    <$t>::NAN
                } else if b > self {
                    b
                } else {
                    self
                }
            }
        }
        impl Float for $t {
            const NAN: Self = <$t>::NAN;
            #[inline]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline]
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            #[inline]
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline]
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
        }
    };
}
float_element!(f32, DType::F32, f32);
float_element!(f64, DType::F64, f64);

macro_rules! int_element {
    ($t:ty, $dt:expr, signed = $signed:expr) => {
        impl Element for $t {
            const DTYPE: DType = $dt;
            const IS_FLOAT: bool = false;
            type Sum = i64;
            type Mean = f64;
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
        }
        impl Number for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            #[inline]
            fn add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            #[inline]
            fn sub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            #[inline]
            fn mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            #[inline]
            fn div(self, b: Self) -> Self {
                if b == 0 { 0 } else { self.wrapping_div(b) }
            }
            #[inline]
            fn rem(self, b: Self) -> Self {
                if b == 0 { 0 } else { self.wrapping_rem(b) }
            }
            #[inline]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline]
            fn abs(self) -> Self {
                if $signed { (self as i64).wrapping_abs() as $t } else { self }
            }
            #[inline]
            fn pow(self, b: Self) -> Self {
                if (b as i64) < 0 {
                    match self as i64 {
                        1 => 1,
                        -1 => {
                            if (b as i64) % 2 == 0 {
                                1
                            } else {
                                self
                            }
                        }
                        _ => 0,
                    }
                } else {
                    self.wrapping_pow((b as u64).min(u32::MAX as u64) as u32)
                }
            }
            #[inline]
            fn min_nan(self, b: Self) -> Self {
                Ord::min(self, b)
            }
            #[inline]
            fn max_nan(self, b: Self) -> Self {
                Ord::max(self, b)
            }
        }
    };
}
int_element!(i32, DType::I32, signed = true);
int_element!(i64, DType::I64, signed = true);
int_element!(u8, DType::U8, signed = false);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    const IS_FLOAT: bool = false;
    type Sum = i64;
    type Mean = f64;
    #[inline]
    fn to_f64(self) -> f64 {
        if self { 1.0 } else { 0.0 }
    }
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v != 0
    }
}

/// A plain value that travels as a fixed number of little-endian bytes.
pub trait WireValue: Copy + Send + Sync + 'static {
    /// Bytes of one value.
    const SIZE: usize;
    /// Appends the value's bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// The value from its `SIZE` bytes; `None` when they are not one.
    fn get(bytes: &[u8]) -> Option<Self>;
}

macro_rules! wire_number {
    ($($t:ty),*) => {$(
        impl WireValue for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn get(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
        }
    )*};
}
wire_number!(f32, f64, i32, i64, u8, u64);

impl WireValue for bool {
    const SIZE: usize = 1;
    fn put(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        match bytes {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }
}

impl<A: WireValue, B: WireValue> WireValue for (A, B) {
    const SIZE: usize = A::SIZE + B::SIZE;
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out);
    }
    fn get(bytes: &[u8]) -> Option<Self> {
        Some((A::get(&bytes[..A::SIZE])?, B::get(&bytes[A::SIZE..])?))
    }
}
