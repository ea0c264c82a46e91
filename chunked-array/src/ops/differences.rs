//! NumPy's `diff`, `trace`, `outer` and `cross`, built from slicing,
//! joining, diagonals, reductions and elementwise products.

use crate::array::Array;
use crate::element::Number;
use crate::error::{Error, Result};
use crate::ops::elementwise::binary;
use crate::ops::manip::{concatenate, stack};
use crate::ops::reduce::normalize_axes;
use crate::ops::slicing::Idx;

impl<T: Number> Array<T> {
    /// The `n`-th difference along `axis`, `x[1:] - x[:-1]` applied `n` times
    /// (NumPy's `np.diff(x, n, axis)`; integers wrap). The axis shrinks by `n`
    /// (to no element when `n` is at least its length).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_vec(&[5], vec![1, 2, 4, 7, 0], 2).unwrap();
    /// assert_eq!(x.diff(1, -1).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 3, -7]);
    /// assert_eq!(x.diff(2, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 1, -10]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis out of range; [`Error::InvalidArgument`]
    /// for a 0-dimensional array.
    pub fn diff(&self, n: usize, axis: isize) -> Result<Array<T>> {
        self.diff_with(n, axis, None, None)
    }

    /// [`Array::diff`] of `prepend`, `self` and `append` joined along `axis`
    /// (NumPy's `prepend=` and `append=`; their other axes match `self`'s).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[3], vec![1.0, 4.0, 9.0], 2).unwrap();
    /// let zero = Array::<f64>::zeros(&[1], 1).unwrap();
    /// let d = x.diff_with(1, 0, Some(&zero), None).unwrap(); // as np.diff(x, prepend=0)
    /// assert_eq!(d.compute().unwrap().as_slice().unwrap(), &[1.0, 3.0, 5.0]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::diff`], and [`Error::ShapeMismatch`] when `prepend` or
    /// `append` do not match along the other axes.
    pub fn diff_with(
        &self,
        n: usize,
        axis: isize,
        prepend: Option<&Array<T>>,
        append: Option<&Array<T>>,
    ) -> Result<Array<T>> {
        if self.ndim() == 0 {
            return Err(Error::invalid("array shape", self.shape(), "diff needs at least one axis"));
        }
        let axis = normalize_axes(&[axis], self.ndim())?[0];
        let parts: Vec<&Array<T>> = prepend.into_iter().chain([self]).chain(append).collect();
        let mut x = if parts.len() == 1 { self.clone() } else { concatenate(&parts, axis as isize)? };
        for _ in 0..n {
            let len = x.shape()[axis] as isize;
            if len == 0 {
                break;
            }
            let along = |start: isize, stop: isize| {
                let mut index = vec![Idx::Slice { start: None, stop: None, step: 1 }; x.ndim()];
                index[axis] = Idx::Slice { start: Some(start), stop: Some(stop), step: 1 };
                x.slice(&index)
            };
            x = binary("sub", &along(1, len)?, &along(0, len - 1)?, |a: T, b: T| a.sub(b))?;
        }
        Ok(x)
    }

    /// The sum along the diagonal at `offset` of the first two axes
    /// (NumPy's `np.trace`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[3, 3], (1..=9).collect(), 2).unwrap();
    /// assert_eq!(x.trace(0).unwrap().compute_scalar().unwrap(), 15);
    /// assert_eq!(x.trace(1).unwrap().compute_scalar().unwrap(), 8);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than two axes.
    pub fn trace(&self, offset: isize) -> Result<Array<T::Sum>> {
        self.diagonal(offset, 0, 1)?.sum(-1)
    }

    /// The outer product of the flattened `self` and `other`: element
    /// `[i, j]` is `self[i] * other[j]` (NumPy's `np.outer`).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::<f64>::from_vec(&[2], vec![1.0, 2.0], 1).unwrap();
    /// let b = Array::<f64>::from_vec(&[3], vec![1.0, 10.0, 100.0], 2).unwrap();
    /// assert_eq!(a.outer(&b).unwrap().compute().unwrap().as_slice().unwrap(), &[1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
    /// ```
    ///
    /// # Errors
    /// Deferred errors of either array.
    pub fn outer(&self, other: &Array<T>) -> Result<Array<T>> {
        let column = self.ravel()?.expand_dims(1)?;
        let row = other.ravel()?.expand_dims(0)?;
        binary("mul", &column, &row, |a: T, b: T| a.mul(b))
    }

    /// The cross product of vectors along `axis` (NumPy's `np.cross(a, b,
    /// axis=axis)`): 3-vectors give 3-vectors, 2-vectors their product's
    /// z-component (the axis dropped). The other axes broadcast.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 3], vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0], 1).unwrap();
    /// let y = Array::<f64>::from_vec(&[2, 3], vec![0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 1).unwrap();
    /// assert_eq!(x.cross(&y, -1).unwrap().compute().unwrap().as_slice().unwrap(), &[0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] unless both have 2 or
    /// 3 elements along the axis, the same number; [`Error::ShapeMismatch`]
    /// when the other axes do not broadcast.
    pub fn cross(&self, other: &Array<T>, axis: isize) -> Result<Array<T>> {
        let a_axis = normalize_axes(&[axis], self.ndim())?[0];
        let b_axis = normalize_axes(&[axis], other.ndim())?[0];
        let (n, m) = (self.shape()[a_axis], other.shape()[b_axis]);
        if n != m || !(2..=3).contains(&n) {
            return Err(Error::invalid("vector lengths", (n, m), "cross takes vectors of 2 or 3 elements, both alike"));
        }
        let part = |x: &Array<T>, axis: usize, k: isize| {
            let mut index = vec![Idx::FULL; x.ndim()];
            index[axis] = Idx::Index(k);
            x.slice(&index)
        };
        let a: Vec<Array<T>> = (0..n as isize).map(|k| part(self, a_axis, k)).collect::<Result<_>>()?;
        let b: Vec<Array<T>> = (0..n as isize).map(|k| part(other, b_axis, k)).collect::<Result<_>>()?;
        let term = |i: usize, j: usize| -> Result<Array<T>> {
            let plus = binary("mul", &a[i], &b[j], |x: T, y: T| x.mul(y))?;
            let minus = binary("mul", &a[j], &b[i], |x: T, y: T| x.mul(y))?;
            binary("sub", &plus, &minus, |x: T, y: T| x.sub(y))
        };
        if n == 2 {
            return term(0, 1);
        }
        let parts = [term(1, 2)?, term(2, 0)?, term(0, 1)?];
        let out_axis = a_axis.min(parts[0].ndim()) as isize;
        stack(&parts.iter().collect::<Vec<_>>(), out_axis)
    }
}
