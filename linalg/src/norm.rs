//! Vector p-norms and matrix norms (NumPy's `linalg.norm`).

use chunked_array::{Array, Element, Float, Operand};

use crate::{Error, Result};

/// Vector norm of all elements of `x` (any shape, taken flat): `ord` = p for
/// `(Σ|x|^p)^(1/p)`, `f64::INFINITY` for max |x|, `f64::NEG_INFINITY` for min |x|,
/// `0` for the count of non-zeros. Returns a lazy 0-d array.
///
/// ```
/// use chunked_array::Array;
/// let x = Array::<f64>::from_ndarray(ndarray::arr1(&[3.0, -4.0]), 1).unwrap();
/// assert_eq!(chunked_linalg::vector_norm(&x, 2.0).unwrap().compute_scalar().unwrap(), 5.0);
/// ```
///
/// # Errors
/// [`Error::BadInput`] for NaN `ord`; errors carried by `x`.
pub fn vector_norm<T: Float + Element<Sum = T>>(x: &Array<T>, ord: f64) -> Result<Array<T>> {
    if ord.is_nan() {
        return Err(Error::BadInput { routine: "vector_norm".into(), needs: "a non-NaN ord".into(), shape: x.shape() });
    }
    let a = x.abs();
    Ok(if ord == f64::INFINITY {
        a.max(None)?
    } else if ord == f64::NEG_INFINITY {
        a.min(None)?
    } else if ord == 0.0 {
        a.ne(Operand::Scalar(T::from_f64(0.0)))?.astype::<T>().sum(None)?
    } else if ord == 1.0 {
        a.sum(None)?
    } else if ord == 2.0 {
        (&a * &a).sum(None)?.sqrt()
    } else {
        let p = T::from_f64(ord);
        a.pow(Operand::Scalar(p))?.sum(None)?.pow(Operand::Scalar(T::from_f64(1.0 / ord)))?
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
    /// sqrt(Σ x²)
    Frobenius,
    /// Largest column sum of |x|.
    One,
    /// Largest row sum of |x|.
    Inf,
    /// Largest singular value (through [`crate::svd`], so the smaller dimension
    /// must fit a block).
    Two,
}

/// Norm of a 2-d array. Returns a lazy 0-d array.
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
pub fn matrix_norm<T: crate::Scalar>(x: &Array<T>, ord: MatrixNorm) -> Result<Array<T>> {
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
