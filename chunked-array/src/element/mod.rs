//! Element types an [`Array`](crate::Array) can hold, and the per-element arithmetic
//! they share: NumPy's bool, int8..int64, uint8..uint64, float32, float64,
//! complex64 and complex128.
//!
//! The traits follow NumPy's type hierarchy: [`Element`] (every type),
//! [`Number`] (arithmetic: all but bool), [`Real`] (ordered numbers: all but
//! complex), [`Integer`], [`Float`] and [`ComplexFloat`]. An array operation
//! is defined for the types whose trait it names, so an operation without a
//! meaning for a type (bitwise on floats, ordering of complex) does not compile.
//!
//! Integer arithmetic follows Rust's wrapping semantics and never panics: `x / 0`
//! and `x % 0` give `0` (NumPy gives 0 with a warning), overflow wraps.
//!
//! `float16` is not an element type: NumPy computes it through `float32`, Rust
//! has no native arithmetic for it (the `half` crate converts to `f32` for
//! every operation), and neither faer nor cuBLAS's generic paths take it; read
//! such data with `astype` after loading it as `f32`.

use std::fmt::{Debug, Display};

pub use num_complex::{Complex, Complex32, Complex64};

mod complex;
mod impls;
pub(crate) mod math;
mod number;
mod promote;
mod wire;
pub use number::{ComplexFloat, Float, Inexact, Integer, Number, Real};
pub use promote::Promote;
pub use wire::WireValue;

/// The element type of an array, as a value (dask's `dtype`).
///
/// ```
/// use chunked_array::{Array, DType, Element};
/// let a = Array::<i32>::zeros(&[4], [2]).unwrap();
/// assert_eq!(a.dtype(), DType::I32);
/// assert_eq!(<f32 as Element>::DTYPE, DType::F32);
/// assert_eq!(DType::F64.to_string(), "float64");
/// assert_eq!(DType::Complex128.size(), 16);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// NumPy's `complex64`: [`Complex32`], two `f32`.
    Complex64,
    /// NumPy's `complex128`: [`Complex64`], two `f64`.
    Complex128,
    /// A reduction's intermediate (never the dtype of a user-visible array).
    Intermediate,
}

impl DType {
    /// Every element type (not intermediates), in NumPy's order of kinds.
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert_eq!(DType::ALL.len(), 13);
    /// assert!(DType::ALL.iter().all(|d| d.size() > 0));
    /// ```
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F32,
        DType::F64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// Bytes per element (0 for intermediates, whose size is not fixed).
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert_eq!(DType::F64.size(), 8);
    /// assert_eq!(DType::I32.size(), 4);
    /// assert_eq!(DType::Bool.size(), 1);
    /// assert_eq!(DType::Complex64.size(), 8);
    /// ```
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
            DType::Intermediate => 0,
        }
    }

    /// NumPy's name for the type.
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert_eq!(DType::F32.name(), "float32");
    /// assert_eq!(DType::U8.name(), "uint8");
    /// assert_eq!(DType::Complex128.name(), "complex128");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U8 => "uint8",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
            DType::Intermediate => "intermediate",
        }
    }

    /// Whether the type is complex.
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert!(DType::Complex64.is_complex() && !DType::F64.is_complex());
    /// ```
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }
}

impl Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
    macro_rules! sealed {
        ($($t:ty),*) => {$(impl Sealed for $t {})*};
    }
    sealed!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, super::Complex32, super::Complex64);
}

/// A type an array can hold: `bool`, `i8`, `i16`, `i32`, `i64`, `u8`, `u16`,
/// `u32`, `u64`, `f32`, `f64`, [`Complex32`] or [`Complex64`].
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
    sealed::Sealed + WireValue + Copy + Send + Sync + Default + PartialEq + Debug + Display + 'static
{
    /// The dtype value of this type.
    const DTYPE: DType;
    /// Whether the type is a real floating-point type.
    const IS_FLOAT: bool;
    /// Whether the type is complex.
    const IS_COMPLEX: bool = false;
    /// Type that `sum`/`prod`/`cumsum` accumulate into (NumPy's rules: signed
    /// integers and bools widen to `i64`, unsigned integers to `u64`).
    type Sum: Number;
    /// Type of `mean` (`f32` for `f32`, complex for complex, `f64` otherwise).
    type Mean: Number;
    /// Type of true division `/` (NumPy's `true_divide`: `f64` for integers
    /// and bools, the type itself for floats and complex).
    type Quotient: Number;
    /// Converts to `f64` (`true` is 1; complex: the real part).
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
    /// Converts to a complex value (real types: imaginary part 0).
    ///
    /// ```
    /// use chunked_array::{Complex64, Element};
    /// assert_eq!(2i8.to_complex(), Complex64::new(2.0, 0.0));
    /// ```
    #[inline]
    fn to_complex(self) -> Complex64 {
        Complex64::new(self.to_f64(), 0.0)
    }
    /// Converts from a complex value (real types: the real part, as NumPy's
    /// `astype` with its `ComplexWarning`).
    ///
    /// ```
    /// use chunked_array::{Complex64, Element};
    /// assert_eq!(<f32 as Element>::from_complex(Complex64::new(1.5, 9.0)), 1.5);
    /// ```
    #[inline]
    fn from_complex(v: Complex64) -> Self {
        Self::from_f64(v.re)
    }
    /// Converts to another element type with NumPy `astype` semantics (integer to
    /// integer wraps; float to integer truncates; complex to real drops the
    /// imaginary part).
    ///
    /// ```
    /// use chunked_array::{Complex32, Element};
    /// assert_eq!(300i32.cast::<u8>(), 44);
    /// assert_eq!(2.9f64.cast::<i64>(), 2);
    /// assert_eq!(1u8.cast::<bool>(), true);
    /// assert_eq!((-1i16).cast::<u64>(), u64::MAX);
    /// assert_eq!(0.5f64.cast::<Complex32>(), Complex32::new(0.5, 0.0));
    /// ```
    #[inline]
    fn cast<U: Element>(self) -> U {
        if Self::IS_COMPLEX || U::IS_COMPLEX {
            U::from_complex(self.to_complex())
        } else if Self::IS_FLOAT || U::IS_FLOAT {
            U::from_f64(self.to_f64())
        } else {
            U::from_i64(self.to_i64())
        }
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
    /// let s: u64 = 200u8.to_sum();
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
