//! Sorting along an axis: `sort`, `argsort` (stable), `partition` and
//! `argpartition`, dask's `topk` and `argtopk`; `searchsorted` in a sorted
//! chunked array. NaN sorts last, as NumPy's.
//!
//! A lane that fits a sixteenth of the block-size limit is sorted whole: the
//! array is rechunked so that the axis is whole in every block, each lane is
//! sorted (or selected) in its block, and the result is rechunked back to the
//! input's blocks. Longer lanes on an axis of several blocks go through the
//! sample sort of [`sample`], whose tasks hold about a block each; `topk` is a
//! tree reduction ([`top`]) whatever the lane's length.

pub(crate) mod keys;
pub(crate) mod lanes;
mod sample;
mod search;
mod top;
mod vectorized;

use std::cmp::Ordering;

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

use crate::array::Array;
use crate::chunks::{AxisChunks, BlockSizeOptions, ChunkSpec};
use crate::element::{Element, Real};
use crate::error::{Error, Result};
use crate::ops::reduce::normalize_axes;

/// NumPy's order: numbers ascending, NaN after them (and equal to each other).
pub(crate) fn nan_last<T: Real>(a: &T, b: &T) -> Ordering {
    match (a.partial_cmp(b), a.partial_cmp(a).is_none(), b.partial_cmp(b).is_none()) {
        (Some(o), _, _) => o,
        (None, true, true) => Ordering::Equal,
        (None, true, false) => Ordering::Greater,
        (None, false, _) => Ordering::Less,
    }
}

impl<T: Real> Array<T> {
    /// The number of the axis to sort along.
    fn sort_axis(&self, axis: isize) -> Result<usize> {
        if self.ndim() == 0 {
            return Err(Error::invalid("array shape", self.shape(), "sorting needs at least one axis"));
        }
        Ok(normalize_axes(&[axis], self.ndim())?[0])
    }

    /// This array with `axis` whole in every block, and the axis's number.
    fn axis_whole(&self, axis: isize) -> Result<(Array<T>, usize)> {
        let axis = self.sort_axis(axis)?;
        let mut spec = vec![AxisChunks::Auto; self.ndim()];
        spec[axis] = AxisChunks::Whole;
        Ok((self.rechunk(ChunkSpec::per_axis(spec))?, axis))
    }

    /// Each lane along `axis` made by `lane_op` from the lane's values, in
    /// blocks with that axis whole.
    fn per_lane<U: Element>(
        &self,
        axis: isize,
        lane_op: impl Fn(&[T], &mut [U]) + Send + Sync + 'static,
    ) -> Result<Array<U>> {
        let (whole, axis) = self.axis_whole(axis)?;
        let mut out_chunks = whole.chunks().lengths().to_vec();
        let len = whole.shape()[axis];
        out_chunks[axis] = vec![len];
        whole.map_blocks(
            move |block: ArrayViewD<'_, T>, _| {
                let mut shape = block.shape().to_vec();
                shape[axis] = len;
                let mut out = ArrayD::from_elem(IxDyn(&shape), U::default());
                let mut values = Vec::with_capacity(block.shape()[axis]);
                let mut result = vec![U::default(); len];
                for (lane, mut dest) in block.lanes(Axis(axis)).into_iter().zip(out.lanes_mut(Axis(axis))) {
                    values.clear();
                    values.extend(lane.iter().copied());
                    lane_op(&values, &mut result);
                    dest.iter_mut().zip(&result).for_each(|(d, r)| *d = *r);
                }
                out
            },
            Some(out_chunks.into()),
        )
    }

    /// The array sorted along `axis` (NumPy's `np.sort(x, axis)`; NaN last),
    /// in the input's blocks.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[2, 4], vec![3.0, f64::NAN, 1.0, 2.0, 0.5, -1.0, 9.0, 4.0], 2).unwrap();
    /// let s = x.sort(1).unwrap().compute().unwrap();
    /// assert_eq!(s.as_slice().unwrap()[4..], [-1.0, 0.5, 4.0, 9.0]);
    /// assert_eq!(s.as_slice().unwrap()[..3], [1.0, 2.0, 3.0]); // then NaN
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis out of range; [`Error::InvalidArgument`]
    /// for a 0-dimensional array.
    pub fn sort(&self, axis: isize) -> Result<Array<T>> {
        self.sort_with(axis, &BlockSizeOptions::default())
    }

    /// [`Array::sort`] with a block-size limit: a lane longer than a
    /// sixteenth of `options.block_size_limit`, on an axis of several blocks,
    /// is sorted by a sample sort across its blocks (see the module's docs),
    /// whose tasks hold about a block each.
    ///
    /// ```
    /// use chunked_array::{Array, BlockSizeOptions};
    /// let x = Array::<i64>::from_vec(&[8], vec![5, -1, 7, 3, 3, 0, 9, 2], 3).unwrap();
    /// let small = BlockSizeOptions { block_size_limit: 16 }; // every lane is long
    /// let s = x.sort_with(0, &small).unwrap();
    /// assert_eq!(s.chunks(), x.chunks());
    /// assert_eq!(s.compute().unwrap().as_slice().unwrap(), &[-1, 0, 2, 3, 3, 5, 7, 9]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sort`].
    pub fn sort_with(&self, axis: isize, options: &BlockSizeOptions) -> Result<Array<T>> {
        if let Some(axis) = self.long_lanes(axis, options)? {
            return Array::built(sample::sample_sort(self, axis, false, options.block_size_limit)?)?
                .rechunk(self.chunks());
        }
        let sorted = self.per_lane(axis, |values, out: &mut [T]| {
            out.copy_from_slice(values);
            sample::sort_values(out);
        })?;
        sorted.rechunk(self.chunks())
    }

    /// The axis's number when its lanes are long enough for the sample sort
    /// (see [`Array::sort_with`]).
    fn long_lanes(&self, axis: isize, options: &BlockSizeOptions) -> Result<Option<usize>> {
        let axis = self.sort_axis(axis)?;
        let lane_bytes = self.shape()[axis].saturating_mul(std::mem::size_of::<T>());
        let blocks = self.chunks().lengths()[axis].len();
        Ok((blocks > 1 && lane_bytes > options.block_size_limit / 16).then_some(axis))
    }

    /// The indices that sort each lane along `axis` (NumPy's
    /// `np.argsort(x, axis, kind="stable")`: equal values keep their order).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[5], vec![3, 1, 3, 0, 1], 2).unwrap();
    /// assert_eq!(x.argsort(0).unwrap().compute().unwrap().as_slice().unwrap(), &[3, 1, 4, 0, 2]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::sort`].
    pub fn argsort(&self, axis: isize) -> Result<Array<i64>> {
        self.argsort_with(axis, &BlockSizeOptions::default())
    }

    /// [`Array::argsort`] with a block-size limit, as [`Array::sort_with`].
    ///
    /// ```
    /// use chunked_array::{Array, BlockSizeOptions};
    /// let x = Array::<f64>::from_vec(&[6], vec![2.0, 1.0, 2.0, f64::NAN, 1.0, 0.0], 2).unwrap();
    /// let small = BlockSizeOptions { block_size_limit: 16 };
    /// let i = x.argsort_with(0, &small).unwrap().compute().unwrap();
    /// assert_eq!(i.as_slice().unwrap(), &[5, 1, 4, 0, 2, 3]); // stable, NaN last
    /// ```
    ///
    /// # Errors
    /// As [`Array::sort`].
    pub fn argsort_with(&self, axis: isize, options: &BlockSizeOptions) -> Result<Array<i64>> {
        if let Some(axis) = self.long_lanes(axis, options)? {
            return Array::built(sample::sample_sort(self, axis, true, options.block_size_limit)?)?
                .rechunk(self.chunks());
        }
        let order = self.per_lane(axis, |values, out: &mut [i64]| {
            let mut idx: Vec<usize> = (0..values.len()).collect();
            idx.sort_by(|&a, &b| nan_last(&values[a], &values[b]));
            out.iter_mut().zip(idx).for_each(|(o, i)| *o = i as i64);
        })?;
        order.rechunk(self.chunks())
    }

    /// The `k` largest values along `axis`, largest first; `k < 0`: the
    /// `|k|` smallest, smallest first (dask's `topk`). NaN counts as the
    /// largest value.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_vec(&[6], vec![5, 1, 9, 3, 7, 2], 4).unwrap();
    /// assert_eq!(x.topk(2, -1).unwrap().compute().unwrap().as_slice().unwrap(), &[9, 7]);
    /// assert_eq!(x.topk(-3, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 3]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `k = 0` or `|k|` beyond the axis's
    /// length; as [`Array::sort`].
    pub fn topk(&self, k: isize, axis: isize) -> Result<Array<T>> {
        let n = self.check_k(k, axis)?;
        Array::built(top::top(self, k, n, normalize_axes(&[axis], self.ndim())?[0], false)?)
    }

    /// The indices of [`Array::topk`]'s values along `axis` (dask's
    /// `argtopk`); among equal values the first comes first.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![0.5, 3.0, -1.0, 3.0, 2.0], 2).unwrap();
    /// assert_eq!(x.argtopk(3, 0).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 3, 4]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::topk`].
    pub fn argtopk(&self, k: isize, axis: isize) -> Result<Array<i64>> {
        let n = self.check_k(k, axis)?;
        Array::built(top::top(self, k, n, normalize_axes(&[axis], self.ndim())?[0], true)?)
    }

    /// The array partly sorted along `axis` (NumPy's `np.partition(x,
    /// kth, axis)`): each position in `kth` (negative from the end) holds
    /// the value a sort would put there, smaller or equal values before it
    /// and larger or equal after (in no particular order). NaN sorts last.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_vec(&[6], vec![7, 1, 9, 3, 5, 2], 4).unwrap();
    /// let p = x.partition(&[2], 0).unwrap().compute().unwrap();
    /// assert_eq!(p[[2]], 3);
    /// assert!(p.iter().take(2).all(|v| *v <= 3) && p.iter().skip(3).all(|v| *v >= 3));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a `kth` outside the axis, or a
    /// 0-dimensional array; [`Error::BadAxis`].
    pub fn partition(&self, kth: &[isize], axis: isize) -> Result<Array<T>> {
        let kth = self.check_kth(kth, axis)?;
        // A sort is a partition at every position.
        if self.long_lanes(axis, &BlockSizeOptions::default())?.is_some() {
            return self.sort(axis);
        }
        let out = self.per_lane(axis, move |values, out: &mut [T]| {
            out.copy_from_slice(values);
            partition_at(out, &kth, |a, b| nan_last(a, b));
        })?;
        out.rechunk(self.chunks())
    }

    /// The indices that partition each lane along `axis` (NumPy's
    /// `np.argpartition`): `x.take_along_axis(&x.argpartition(kth, axis)?,
    /// axis)` is a partition.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![4.0, 0.5, 3.0, -1.0, 2.0], 2).unwrap();
    /// let i = x.argpartition(&[0, -1], 0).unwrap().compute().unwrap();
    /// assert_eq!((i[[0]], i[[4]]), (3, 0)); // the smallest and the largest
    /// ```
    ///
    /// # Errors
    /// As [`Array::partition`].
    pub fn argpartition(&self, kth: &[isize], axis: isize) -> Result<Array<i64>> {
        let kth = self.check_kth(kth, axis)?;
        if self.long_lanes(axis, &BlockSizeOptions::default())?.is_some() {
            return self.argsort(axis);
        }
        let out = self.per_lane(axis, move |values, out: &mut [i64]| {
            let mut idx: Vec<usize> = (0..values.len()).collect();
            partition_at(&mut idx, &kth, |&a, &b| nan_last(&values[a], &values[b]));
            out.iter_mut().zip(idx).for_each(|(o, i)| *o = i as i64);
        })?;
        out.rechunk(self.chunks())
    }

    /// The positions `kth` along `axis`, from the end when negative, sorted.
    fn check_kth(&self, kth: &[isize], axis: isize) -> Result<Vec<usize>> {
        let len = self.shape().get(normalize_axes(&[axis], self.ndim().max(1))?[0]).copied().unwrap_or(0);
        let mut out = Vec::with_capacity(kth.len());
        for &k in kth {
            let pos = if k < 0 { k + len as isize } else { k };
            if pos < 0 || pos >= len as isize {
                return Err(Error::invalid("kth", k, format!("is out of range for an axis of length {len}")));
            }
            out.push(pos as usize);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// `|k|`, checked against the axis.
    fn check_k(&self, k: isize, axis: isize) -> Result<usize> {
        let len = self.shape().get(normalize_axes(&[axis], self.ndim().max(1))?[0]).copied().unwrap_or(0);
        let n = k.unsigned_abs();
        if k == 0 || n > len {
            return Err(Error::invalid("k", k, format!("topk needs 0 < |k| <= {len}, the axis's length")));
        }
        Ok(n)
    }
}

/// Reorders `values` so that every position of `kth` (sorted) holds the
/// element a sort by `order` would put there, each between its neighbours.
fn partition_at<V>(values: &mut [V], kth: &[usize], order: impl Fn(&V, &V) -> Ordering) {
    let mut from = 0;
    for &k in kth {
        values[from..].select_nth_unstable_by(k - from, &order);
        from = k + 1;
    }
}
