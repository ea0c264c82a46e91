//! Positions added or removed along an axis: `insert`, `delete`, `append`
//! (NumPy's and dask's). All are slices and concatenations, so whole blocks
//! that survive are shared, not copied.

use crate::array::Array;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::manip::concatenate;

impl<T: Element> Array<T> {
    /// `values` as a slab to join along `axis`: the same number of axes, or one
    /// fewer (the axis is added with length 1).
    fn slab(&self, op: &str, values: &Array<T>, axis: usize) -> Result<Array<T>> {
        let slab = if values.ndim() + 1 == self.ndim() { values.expand_dims(axis as isize)? } else { values.clone() };
        let (own, theirs) = (self.shape(), slab.shape());
        if own.len() != theirs.len() || (0..own.len()).any(|a| a != axis && own[a] != theirs[a]) {
            return Err(Error::shape(&format!("{op} (array, values) along axis {axis}"), &own, &values.shape()));
        }
        Ok(slab)
    }

    /// Removes the positions `indices` along `axis` (NumPy's `delete`;
    /// negative indices count from the end, repeats are removed once).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 6, 1, 4).unwrap();
    /// let y = x.delete(&[1, -1, 1], 0).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![0, 2, 3, 4]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] naming an index out of range.
    pub fn delete(&self, indices: &[isize], axis: isize) -> Result<Array<T>> {
        self.check()?;
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let n = self.shape()[axis];
        let mut gone = Vec::with_capacity(indices.len());
        for &i in indices {
            let p = if i < 0 { i + n as isize } else { i };
            if p < 0 || p >= n as isize {
                return Err(Error::invalid("index", i, format!("out of range for axis {axis} of length {n}")));
            }
            gone.push(p as usize);
        }
        gone.sort_unstable();
        gone.dedup();
        let mut kept = Vec::new();
        let mut start = 0;
        for g in gone.into_iter().chain([n]) {
            if g > start {
                kept.push(self.span(axis, start, g)?);
            }
            start = g + 1;
        }
        if kept.is_empty() {
            return self.span(axis, 0, 0);
        }
        concatenate(&kept.iter().collect::<Vec<_>>(), axis as isize)
    }

    /// Inserts `values` before position `index` along `axis` (`index` may be
    /// the axis length, and negative counts from the end). `values` has the
    /// array's number of axes and its lengths off `axis` (NumPy's `insert`
    /// with the index given as a list, `[index]`, which inserts the values as
    /// they are), or one axis fewer for a single slab (NumPy's scalar index).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// let v = Array::from_vec(&[2], vec![8, 9], 2).unwrap();
    /// // NumPy: np.insert(x, [1], v)
    /// assert_eq!(x.insert(1, &v, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 8, 9, 2, 3, 4]);
    /// let m = Array::from_vec(&[2, 2], vec![1, 2, 3, 4], 1).unwrap();
    /// // NumPy: np.insert(m, 1, v, axis=0), a single row of one axis fewer
    /// assert_eq!(m.insert(1, &v, 0).unwrap().compute().unwrap(), array![[1, 2], [8, 9], [3, 4]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] for an index outside
    /// `-n..=n`; [`Error::ShapeMismatch`] when `values` does not fit.
    pub fn insert(&self, index: isize, values: &Array<T>, axis: isize) -> Result<Array<T>> {
        self.check()?;
        values.check()?;
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let n = self.shape()[axis];
        let at = if index < 0 { index + n as isize } else { index };
        if at < 0 || at > n as isize {
            return Err(Error::invalid(
                "index",
                index,
                format!("out of range for inserting along axis {axis} of length {n}"),
            ));
        }
        let at = at as usize;
        let slab = self.slab("insert", values, axis)?;
        concatenate(&[&self.span(axis, 0, at)?, &slab, &self.span(axis, at, n)?], axis as isize)
    }

    /// `values` joined after the end along `axis` (NumPy's `append` with an
    /// axis); `values` as for [`Array::insert`].
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let m = Array::from_vec(&[2, 2], vec![1, 2, 3, 4], 1).unwrap();
    /// let col = Array::from_vec(&[2], vec![5, 6], 2).unwrap();
    /// // NumPy: np.append(m, col[:, None], axis=1)
    /// assert_eq!(m.append(&col, 1).unwrap().compute().unwrap(), array![[1, 2, 5], [3, 4, 6]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::ShapeMismatch`] when `values` does not fit.
    pub fn append(&self, values: &Array<T>, axis: isize) -> Result<Array<T>> {
        self.check()?;
        values.check()?;
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        concatenate(&[self, &self.slab("append", values, axis)?], axis as isize)
    }
}
