//! `searchsorted` in a sorted chunked array.

use std::cmp::Ordering;
use std::sync::Arc;

use ndarray::Axis;

use super::nan_last;
use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{DType, Real};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

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
