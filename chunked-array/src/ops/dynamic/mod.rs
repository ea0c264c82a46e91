//! Arrays whose element type is known only at run time: [`AnyArray`], what
//! a file of unknown type reads as (`npy::from_npy_any`,
//! `zarr::from_zarr_any`). Its ufuncs are called by NumPy's names and are an
//! [`Error::UnsupportedDtype`] where the type has no such operation, as
//! NumPy raises a `TypeError`; typed code takes the `Array<T>` out with
//! [`AnyArray::downcast`]. Where NumPy converts before a ufunc (a float
//! ufunc of integers, arithmetic on bools), an `AnyArray` asks for the
//! conversion ([`AnyArray::astype`]), as the typed methods do.

mod dispatch;

use std::any::Any;

use crate::array::Array;
use crate::element::{Complex32, Complex64, DType, Element};
use crate::error::{Error, Result};

/// A chunked array of an element type known only at run time: one variant
/// per [`DType`], named as it.
///
/// ```
/// use chunked_array::{AnyArray, Array, DType};
/// let x = AnyArray::from(Array::from_vec(&[3], vec![1i32, -2, 3], 2).unwrap());
/// assert_eq!((x.dtype(), x.shape()), (DType::I32, vec![3]));
/// let y = x.astype(DType::F64).unwrap().unary("negative").unwrap();
/// assert_eq!(y.downcast::<f64>().unwrap().compute().unwrap().as_slice().unwrap(), &[-1.0, 2.0, -3.0]);
/// assert!(x.unary("floor").is_err()); // rounding has no meaning for int32 in chunked
/// ```
#[derive(Clone, Debug)]
#[allow(missing_docs)] // each variant is the DType of the same name
pub enum AnyArray {
    Bool(Array<bool>),
    I8(Array<i8>),
    I16(Array<i16>),
    I32(Array<i32>),
    I64(Array<i64>),
    U8(Array<u8>),
    U16(Array<u16>),
    U32(Array<u32>),
    U64(Array<u64>),
    F32(Array<f32>),
    F64(Array<f64>),
    Complex64(Array<Complex32>),
    Complex128(Array<Complex64>),
}

/// `$body` with `$a` bound to the typed array inside `$any`, whatever its type.
macro_rules! on_each {
    ($any:expr, $a:ident => $body:expr) => {
        match $any {
            AnyArray::Bool($a) => $body,
            AnyArray::I8($a) => $body,
            AnyArray::I16($a) => $body,
            AnyArray::I32($a) => $body,
            AnyArray::I64($a) => $body,
            AnyArray::U8($a) => $body,
            AnyArray::U16($a) => $body,
            AnyArray::U32($a) => $body,
            AnyArray::U64($a) => $body,
            AnyArray::F32($a) => $body,
            AnyArray::F64($a) => $body,
            AnyArray::Complex64($a) => $body,
            AnyArray::Complex128($a) => $body,
        }
    };
}
pub(crate) use on_each;

macro_rules! from_typed {
    ($($v:ident $t:ty),*) => {$(
        impl From<Array<$t>> for AnyArray {
            fn from(a: Array<$t>) -> AnyArray {
                AnyArray::$v(a)
            }
        }
    )*};
}
from_typed!(Bool bool, I8 i8, I16 i16, I32 i32, I64 i64, U8 u8, U16 u16, U32 u32, U64 u64, F32 f32, F64 f64,
    Complex64 Complex32, Complex128 Complex64);

impl AnyArray {
    /// The element type.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array, Complex64, DType};
    /// let z = AnyArray::from(Array::from_vec(&[1], vec![Complex64::new(1.0, 0.0)], 1).unwrap());
    /// assert_eq!(z.dtype(), DType::Complex128);
    /// ```
    pub fn dtype(&self) -> DType {
        on_each!(self, a => a.dtype())
    }

    /// The shape.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array};
    /// assert_eq!(AnyArray::from(Array::<u8>::zeros(&[2, 5], 2).unwrap()).shape(), vec![2, 5]);
    /// ```
    pub fn shape(&self) -> Vec<usize> {
        on_each!(self, a => a.shape())
    }

    /// The number of elements.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array};
    /// let x = AnyArray::from(Array::<i8>::zeros(&[3, 4], 2).unwrap());
    /// assert_eq!((x.len(), x.is_empty()), (12, false));
    /// ```
    pub fn len(&self) -> usize {
        self.shape().iter().product()
    }

    /// Whether it has no elements.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array};
    /// assert!(AnyArray::from(Array::<u8>::zeros(&[0, 4], 2).unwrap()).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The typed array, when it holds `T`.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array};
    /// let x = AnyArray::from(Array::<f32>::ones(&[3], 3).unwrap());
    /// assert!(x.downcast::<f64>().is_err());
    /// assert_eq!(x.downcast::<f32>().unwrap().compute().unwrap().sum(), 3.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::DtypeMismatch`] naming both types when it holds another.
    pub fn downcast<T: Element>(&self) -> Result<Array<T>> {
        let found = self.dtype();
        let boxed: Box<dyn Any> = on_each!(self, a => Box::new(a.clone()));
        boxed.downcast::<Array<T>>().map(|a| *a).map_err(|_| Error::DtypeMismatch {
            key: "AnyArray::downcast".into(),
            expected: T::DTYPE.to_string(),
            found: found.to_string(),
        })
    }

    /// The array converted to `T` elementwise (NumPy's `astype` with its
    /// default unsafe casting: floats truncate toward zero into integers,
    /// complex into a real type keeps the real part).
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array};
    /// let x = AnyArray::from(Array::from_vec(&[2], vec![2.75f64, -1.5], 1).unwrap());
    /// assert_eq!(x.cast::<i32>().compute().unwrap().as_slice().unwrap(), &[2, -1]);
    /// ```
    pub fn cast<T: Element>(&self) -> Array<T> {
        on_each!(self, a => a.astype::<T>())
    }

    /// The array converted to `dtype`, known at run time.
    ///
    /// ```
    /// use chunked_array::{AnyArray, Array, DType};
    /// let x = AnyArray::from(Array::from_vec(&[2], vec![1u8, 255], 1).unwrap());
    /// assert_eq!(x.astype(DType::I8).unwrap().cast::<i64>().compute().unwrap().as_slice().unwrap(), &[1, -1]);
    /// assert!(x.astype(DType::Intermediate).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::UnsupportedDtype`] for [`DType::Intermediate`], which no array holds.
    pub fn astype(&self, dtype: DType) -> Result<AnyArray> {
        fn cast_to<T: Element>(a: &AnyArray) -> Option<AnyArray>
        where
            AnyArray: From<Array<T>>,
        {
            Some(AnyArray::from(a.cast::<T>()))
        }
        crate::block::dispatch_dtype!(dtype, cast_to::<_>(self))
            .ok_or_else(|| Error::UnsupportedDtype { op: "astype".into(), dtype: dtype.to_string() })
    }
}
