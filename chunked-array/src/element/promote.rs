//! NumPy's type promotion, decided at compile time: the element type of a
//! mixed operation such as `&a_i32 + &b_f64`.
//!
//! [`Promote`] is `np.result_type` for two arrays. A scalar combines with an
//! array of its own type (a literal takes the array's type, `&x_f32 * 2.0`
//! stays `f32`, as NumPy keeps the array's type for a Python number of its
//! kind); a scalar of another type is converted first. The tests check every
//! pair against NumPy's own table (`tests/data/numpy_promotion.txt`).
//!
//! | with | bool | int8..64 | uint8..64 | float32 | float64 | complex |
//! |---|---|---|---|---|---|---|
//! | **int** | int | larger | larger signed; `u64` with signed: `f64` | `f32` up to 16 bits, else `f64` | `f64` | complex of the float rule |
//! | **float** | float | as left | as left | `f32` | `f64` | `complex64` from `f32`, else `complex128` |

use super::{Complex32, Complex64, DType, Element};

/// The element type of an operation between an array of `Self` and one of
/// `B` (NumPy's `np.result_type`).
///
/// ```
/// use chunked_array::{Array, Promote};
/// fn sum_of<A: Promote<B>, B: chunked_array::Element>(a: &Array<A>, b: &Array<B>) -> Array<A::Output>
/// where
///     A::Output: chunked_array::Number,
/// {
///     a + b
/// }
/// let a = Array::from_vec(&[2], vec![1i32, 2], 1).unwrap();
/// let b = Array::from_vec(&[2], vec![0.5f64, 0.25], 1).unwrap();
/// let c: Array<f64> = sum_of(&a, &b);
/// assert_eq!(c.compute().unwrap().as_slice().unwrap(), &[1.5, 2.25]);
/// ```
pub trait Promote<B: Element>: Element {
    /// The promoted type.
    type Output: Element;
}

macro_rules! promote {
    ($a:ty: $($b:ty => $o:ty),*) => {$(
        impl Promote<$b> for $a {
            type Output = $o;
        }
    )*};
}

promote!(bool: bool => bool, i8 => i8, i16 => i16, i32 => i32, i64 => i64, u8 => u8, u16 => u16, u32 => u32, u64 => u64, f32 => f32, f64 => f64, Complex32 => Complex32, Complex64 => Complex64);
promote!(i8: bool => i8, i8 => i8, i16 => i16, i32 => i32, i64 => i64, u8 => i16, u16 => i32, u32 => i64, u64 => f64, f32 => f32, f64 => f64, Complex32 => Complex32, Complex64 => Complex64);
promote!(i16: bool => i16, i8 => i16, i16 => i16, i32 => i32, i64 => i64, u8 => i16, u16 => i32, u32 => i64, u64 => f64, f32 => f32, f64 => f64, Complex32 => Complex32, Complex64 => Complex64);
promote!(i32: bool => i32, i8 => i32, i16 => i32, i32 => i32, i64 => i64, u8 => i32, u16 => i32, u32 => i64, u64 => f64, f32 => f64, f64 => f64, Complex32 => Complex64, Complex64 => Complex64);
promote!(i64: bool => i64, i8 => i64, i16 => i64, i32 => i64, i64 => i64, u8 => i64, u16 => i64, u32 => i64, u64 => f64, f32 => f64, f64 => f64, Complex32 => Complex64, Complex64 => Complex64);
promote!(u8: bool => u8, i8 => i16, i16 => i16, i32 => i32, i64 => i64, u8 => u8, u16 => u16, u32 => u32, u64 => u64, f32 => f32, f64 => f64, Complex32 => Complex32, Complex64 => Complex64);
promote!(u16: bool => u16, i8 => i32, i16 => i32, i32 => i32, i64 => i64, u8 => u16, u16 => u16, u32 => u32, u64 => u64, f32 => f32, f64 => f64, Complex32 => Complex32, Complex64 => Complex64);
promote!(u32: bool => u32, i8 => i64, i16 => i64, i32 => i64, i64 => i64, u8 => u32, u16 => u32, u32 => u32, u64 => u64, f32 => f64, f64 => f64, Complex32 => Complex64, Complex64 => Complex64);
promote!(u64: bool => u64, i8 => f64, i16 => f64, i32 => f64, i64 => f64, u8 => u64, u16 => u64, u32 => u64, u64 => u64, f32 => f64, f64 => f64, Complex32 => Complex64, Complex64 => Complex64);
promote!(f32: bool => f32, i8 => f32, i16 => f32, i32 => f64, i64 => f64, u8 => f32, u16 => f32, u32 => f64, u64 => f64, f32 => f32, f64 => f64, Complex32 => Complex32, Complex64 => Complex64);
promote!(f64: bool => f64, i8 => f64, i16 => f64, i32 => f64, i64 => f64, u8 => f64, u16 => f64, u32 => f64, u64 => f64, f32 => f64, f64 => f64, Complex32 => Complex64, Complex64 => Complex64);
promote!(Complex32: bool => Complex32, i8 => Complex32, i16 => Complex32, i32 => Complex64, i64 => Complex64, u8 => Complex32, u16 => Complex32, u32 => Complex64, u64 => Complex64, f32 => Complex32, f64 => Complex64, Complex32 => Complex32, Complex64 => Complex64);
promote!(Complex64: bool => Complex64, i8 => Complex64, i16 => Complex64, i32 => Complex64, i64 => Complex64, u8 => Complex64, u16 => Complex64, u32 => Complex64, u64 => Complex64, f32 => Complex64, f64 => Complex64, Complex32 => Complex64, Complex64 => Complex64);

/// `Promote` at run time: `$a`, `$b` DType values; `Some(result)`, `None` for
/// the graph's intermediate type.
macro_rules! result_type_table {
    ($a:expr, $b:expr; $(($t:ty, $v:ident)),*) => {
        result_type_table!(@outer $a, $b; [$(($t, $v)),*]; $(($t, $v)),*)
    };
    (@outer $a:expr, $b:expr; $all:tt; $(($t:ty, $v:ident)),*) => {
        match $a { $(DType::$v => result_type_table!(@inner $t, $b; $all),)* DType::Intermediate => None }
    };
    (@inner $t:ty, $b:expr; [$(($u:ty, $w:ident)),*]) => {
        match $b { $(DType::$w => Some(<<$t as Promote<$u>>::Output as Element>::DTYPE),)* DType::Intermediate => None }
    };
}

impl DType {
    /// NumPy's `np.result_type` of two element types known at run time (the
    /// [`Promote`] table); `None` when either is [`DType::Intermediate`].
    ///
    /// ```
    /// use chunked_array::DType;
    /// assert_eq!(DType::I32.result_type(DType::F32), Some(DType::F64));
    /// assert_eq!(DType::U64.result_type(DType::I8), Some(DType::F64));
    /// assert_eq!(DType::F32.result_type(DType::Complex128), Some(DType::Complex128));
    /// ```
    pub fn result_type(self, other: DType) -> Option<DType> {
        result_type_table!(self, other;
            (bool, Bool), (i8, I8), (i16, I16), (i32, I32), (i64, I64), (u8, U8), (u16, U16), (u32, U32),
            (u64, U64), (f32, F32), (f64, F64), (Complex32, Complex64), (Complex64, Complex128))
    }
}
