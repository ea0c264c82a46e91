//! Vector p-norms and matrix norms (NumPy's `linalg.norm`).

use chunked_array::{Array, Element, Operand};

use crate::{Error, Result, Scalar};

/// Vector norm of all elements of `x` (any shape, taken flat): `ord` = p for
/// `(Σ|x|^p)^(1/p)`, `f64::INFINITY` for max |x|, `f64::NEG_INFINITY` for min |x|,
/// `0` for the count of non-zeros. Returns a lazy 0-d array, real for complex
/// `x` (|x| is the modulus).
///
/// ```
/// use chunked_array::Array;
/// let x = Array::<f64>::from_ndarray(ndarray::arr1(&[3.0, -4.0]), 1).unwrap();
/// assert_eq!(chunked_linalg::vector_norm(&x, 2.0).unwrap().compute_scalar().unwrap(), 5.0);
/// ```
///
/// # Errors
/// [`Error::BadInput`] for NaN `ord`; errors carried by `x`.
pub fn vector_norm<T: Scalar>(x: &Array<T>, ord: f64) -> Result<Array<T::RealPart>> {
    if ord.is_nan() {
        return Err(Error::BadInput { routine: "vector_norm".into(), needs: "a non-NaN ord".into(), shape: x.shape() });
    }
    let a = x.abs();
    Ok(if ord == f64::INFINITY {
        a.max(None)?
    } else if ord == f64::NEG_INFINITY {
        a.min(None)?
    } else if ord == 0.0 {
        a.ne(Operand::Scalar(T::RealPart::from_f64(0.0)))?.astype::<T::RealPart>().sum(None)?
    } else if ord == 1.0 {
        a.sum(None)?
    } else if ord == 2.0 {
        (&a * &a).sum(None)?.sqrt()
    } else {
        let p = T::RealPart::from_f64(ord);
        a.pow(Operand::Scalar(p))?.sum(None)?.pow(Operand::Scalar(T::RealPart::from_f64(1.0 / ord)))?
    })
}

/// Which matrix norm [`matrix_norm`] computes (NumPy's `ord` of
/// `linalg.norm` for 2-d arrays: `'fro'`, `1`, `inf`, `2`).
///
/// ```
/// use chunked_array::Array;
/// use chunked_linalg::{matrix_norm, MatrixNorm};
/// let x = Array::<f64>::from_vec(&[2, 2], vec![1.0, -2.0, 3.0, 4.0], 1).unwrap();
/// let norm = |ord| matrix_norm(&x, ord).unwrap().compute_scalar().unwrap();
/// assert_eq!(norm(MatrixNorm::One), 6.0); // column sums of |x|: 4, 6
/// assert_eq!(norm(MatrixNorm::Inf), 7.0); // row sums of |x|: 3, 7
/// assert_eq!(norm(MatrixNorm::Frobenius), 30f64.sqrt());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixNorm {
    /// sqrt(Σ |x|²)
    Frobenius,
    /// Largest column sum of |x|.
    One,
    /// Largest row sum of |x|.
    Inf,
    /// Largest singular value (through [`crate::svd`], so the smaller dimension
    /// must fit a block).
    Two,
}

/// Norm of a 2-d array. Returns a lazy 0-d array, real for complex `x`.
///
/// ```
/// use chunked_array::Array;
/// use chunked_linalg::{matrix_norm, MatrixNorm};
/// let x = Array::<f64>::from_vec(&[2, 2], vec![3.0, 0.0, 0.0, -4.0], 2).unwrap();
/// let two = matrix_norm(&x, MatrixNorm::Two).unwrap().compute_scalar().unwrap();
/// assert!((two - 4.0).abs() < 1e-12); // the largest singular value
/// ```
///
/// # Errors
/// [`Error::BadInput`] when `x` is not 2-d, and as [`crate::svd`] for
/// [`MatrixNorm::Two`].
pub fn matrix_norm<T: Scalar>(x: &Array<T>, ord: MatrixNorm) -> Result<Array<T::RealPart>> {
    if x.ndim() != 2 {
        return Err(Error::BadInput { routine: "matrix_norm".into(), needs: "a 2-d array".into(), shape: x.shape() });
    }
    let a = x.abs();
    Ok(match ord {
        MatrixNorm::Frobenius => (&a * &a).sum(None)?.sqrt(),
        MatrixNorm::One => a.sum(0)?.max(None)?,
        MatrixNorm::Inf => a.sum(1)?.max(None)?,
        MatrixNorm::Two => crate::svd(x)?.s.max(None)?,
    })
}
