//! Sorting along an axis: `sort`, `argsort` (stable), `partition` and
//! `argpartition`, dask's `topk` and `argtopk`; `searchsorted` in a sorted
//! chunked array. The array is rechunked so that the axis is whole in every block
//! (the other axes chunked to the automatic block size), each lane is sorted
//! (or selected) in its block, and a sorted array is rechunked back to the
//! input's blocks. NaN sorts last, as NumPy's.

use std::cmp::Ordering;

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, Axis, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{AxisChunks, ChunkSpec, Chunks};
use crate::element::{DType, Element, Real};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
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
    /// This array with `axis` whole in every block, and the axis's number.
    fn axis_whole(&self, axis: isize) -> Result<(Array<T>, usize)> {
        if self.ndim() == 0 {
            return Err(Error::invalid("array shape", self.shape(), "sorting needs at least one axis"));
        }
        let axis = normalize_axes(&[axis], self.ndim())?[0];
        let mut spec = vec![AxisChunks::Auto; self.ndim()];
        spec[axis] = AxisChunks::Whole;
        Ok((self.rechunk(ChunkSpec::per_axis(spec))?, axis))
    }

    /// Each lane along `axis` made by `lane_op` from the lane's values, in a
    /// block with that axis of length `len`.
    fn per_lane<U: Element>(
        &self,
        axis: isize,
        len: Option<usize>,
        lane_op: impl Fn(&[T], &mut [U]) + Send + Sync + 'static,
    ) -> Result<(Array<U>, usize)> {
        let (whole, axis) = self.axis_whole(axis)?;
        let mut out_chunks = whole.chunks().lengths().to_vec();
        let len = len.unwrap_or(whole.shape()[axis]);
        out_chunks[axis] = vec![len];
        let out = whole.map_blocks(
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
        )?;
        Ok((out, axis))
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
        let (sorted, _) = self.per_lane(axis, None, |values, out: &mut [T]| {
            out.copy_from_slice(values);
            // NaN moved to the end first, so that the rest sorts by a total
            // order without NaN's cases in every comparison.
            let mut end = out.len();
            let mut i = 0;
            while i < end {
                if out[i].partial_cmp(&out[i]).is_none() {
                    end -= 1;
                    out.swap(i, end);
                } else {
                    i += 1;
                }
            }
            out[..end].sort_unstable_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
        })?;
        sorted.rechunk(self.chunks())
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
        let (order, _) = self.per_lane(axis, None, |values, out: &mut [i64]| {
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
        Ok(self
            .per_lane(axis, Some(n), move |values, out: &mut [T]| {
                let idx = top_indices(values, k, n);
                out.iter_mut().zip(idx).for_each(|(o, i)| *o = values[i]);
            })?
            .0)
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
        Ok(self
            .per_lane(axis, Some(n), move |values, out: &mut [i64]| {
                let idx = top_indices(values, k, n);
                out.iter_mut().zip(idx).for_each(|(o, i)| *o = i as i64);
            })?
            .0)
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
        let (out, _) = self.per_lane(axis, None, move |values, out: &mut [T]| {
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
        let (out, _) = self.per_lane(axis, None, move |values, out: &mut [i64]| {
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

/// The positions of the `n` largest values (`k > 0`, largest first) or
/// smallest (`k < 0`, smallest first), ties in order of position.
fn top_indices<T: Real>(values: &[T], k: isize, n: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    if k > 0 {
        idx.sort_by(|&a, &b| nan_last(&values[b], &values[a]));
    } else {
        idx.sort_by(|&a, &b| nan_last(&values[a], &values[b]));
    }
    idx.truncate(n);
    idx
}

impl<T: Real> Array<T> {
    /// Where each of `values` would go in this sorted 1-D array to keep it
    /// sorted (NumPy's `np.searchsorted(a, v, side)`): the count of elements
    /// below each value (`right`: not above it), NaN sorting last. The result
    /// has `values`' shape and blocks; each block of this array counts in
    /// each block of `values`, and the counts are summed.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let a = Array::<f64>::from_vec(&[5], vec![1.0, 2.0, 2.0, 3.0, 5.0], 2).unwrap();
    /// let v = Array::<f64>::from_vec(&[4], vec![0.0, 2.0, 4.0, 9.0], 3).unwrap();
    /// assert_eq!(a.searchsorted(&v, false).unwrap().compute().unwrap().as_slice().unwrap(), &[0, 1, 4, 5]);
    /// assert_eq!(a.searchsorted(&v, true).unwrap().compute().unwrap().as_slice().unwrap(), &[0, 3, 4, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when this array is not 1-D. An array that
    /// is not sorted gives NumPy's unspecified positions, not an error.
    pub fn searchsorted(&self, values: &Array<T>, right: bool) -> Result<Array<i64>> {
        if self.ndim() != 1 {
            return Err(Error::invalid("array shape", self.shape(), "searchsorted needs a sorted 1-D array"));
        }
        values.check()?;
        let blocks = self.chunks().lengths()[0].len();
        let mut lengths = vec![vec![1; blocks]];
        lengths.extend(values.chunks().lengths().iter().cloned());
        let op = SearchCounts::<T> { right, _t: std::marker::PhantomData };
        let inputs = vec![self.node.clone(), values.node.clone()];
        let counts: Array<i64> =
            Array::built(Node::new("searchsorted", DType::I64, Chunks::from_lengths(lengths), inputs, op))?;
        counts.sum(0)
    }
}

/// Per block of the sorted array and block of values: how many of that
/// block's elements sort before each value.
struct SearchCounts<T> {
    right: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Real> BlockOp for SearchCounts<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, idx[0]));
        out.push((1, node.inputs[1].chunks.linear(&idx[1..])));
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let sorted = block_as::<T>(inputs[0], node, "sorted array")?;
        let sorted = sorted.as_standard_layout();
        let sorted = sorted.as_slice().expect("standard layout");
        let values = block_as::<T>(inputs[1], node, "values")?;
        let counts = values.mapv(|v| {
            let before = |a: &T| match nan_last(a, &v) {
                Ordering::Less => true,
                Ordering::Equal => self.right,
                Ordering::Greater => false,
            };
            sorted.partition_point(before) as i64
        });
        Ok(Arc::new(counts.insert_axis(Axis(0))))
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
