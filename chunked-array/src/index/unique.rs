//! `unique`: the sorted distinct values of an array (NumPy's `np.unique`),
//! with each value's first index, the inverse and the counts on request.
//!
//! As with the selections, the result's length is known only once computed,
//! so the building call computes the distinct values (in the context it is
//! given): each block gives its sorted distinct values with their counts and
//! first flat indices, and a tree merges them [`MERGE_ARITY`] at a time. A
//! task holds one block or a few tables of distinct values, never the whole
//! array. The inverse is lazy: each block looks its values up in the table.

use std::cmp::Ordering;
use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::delayed::{Delayed, fan_in};
use crate::element::Real;
use crate::error::Result;
use crate::exec::Context;
use crate::ops::sorting::nan_last;

/// Tables of distinct values merged by one task.
const MERGE_ARITY: usize = 8;

/// What [`Array::unique_with`] returns besides the values (NumPy's
/// `return_index`, `return_inverse`, `return_counts`).
///
/// ```
/// use chunked_array::{Array, Context, UniqueOptions};
/// let x = Array::<i64>::from_vec(&[6], vec![3, 1, 3, 2, 1, 3], 4).unwrap();
/// let opts = UniqueOptions { return_counts: true, ..Default::default() };
/// let u = x.unique_with(&opts, &Context::default()).unwrap();
/// assert_eq!(u.counts.unwrap().compute().unwrap().as_slice().unwrap(), &[2, 1, 3]);
/// assert!(u.index.is_none() && u.inverse.is_none());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UniqueOptions {
    /// The flat index (C order) of each value's first occurrence.
    pub return_index: bool,
    /// For each element, the position of its value among the distinct
    /// values (the input's shape, as NumPy 2 gives it).
    pub return_inverse: bool,
    /// How many times each value occurs.
    pub return_counts: bool,
}

/// The result of [`Array::unique_with`]: the distinct values, and what the
/// options asked for.
///
/// ```
/// use chunked_array::{Array, Context, UniqueOptions};
/// let x = Array::<f64>::from_vec(&[4], vec![2.0, f64::NAN, 2.0, f64::NAN], 2).unwrap();
/// let opts = UniqueOptions { return_index: true, ..Default::default() };
/// let u = x.unique_with(&opts, &Context::default()).unwrap();
/// assert_eq!(u.values.shape(), vec![2]); // 2.0 and one NaN, as NumPy's equal_nan
/// assert_eq!(u.index.unwrap().compute().unwrap().as_slice().unwrap(), &[0, 1]);
/// ```
#[derive(Debug, Clone)]
pub struct Unique<T: Real> {
    /// The sorted distinct values (NaN last, all NaN as one).
    pub values: Array<T>,
    /// See [`UniqueOptions::return_index`].
    pub index: Option<Array<i64>>,
    /// See [`UniqueOptions::return_inverse`].
    pub inverse: Option<Array<i64>>,
    /// See [`UniqueOptions::return_counts`].
    pub counts: Option<Array<i64>>,
}

/// Sorted distinct values, each with its count and first flat index.
#[derive(Clone)]
struct Table<T> {
    values: Vec<T>,
    counts: Vec<i64>,
    first: Vec<i64>,
}

impl<T: Real> Table<T> {
    /// The table of one block whose element at local C-order position `p`
    /// has flat index `flat(p)`; first indices only `with_first`.
    fn of_block(block: ArrayViewD<'_, T>, flat: impl Fn(usize) -> i64, with_first: bool) -> Table<T> {
        let mut sorted: Vec<T> = block.iter().copied().collect();
        sorted.sort_unstable_by(nan_last);
        let mut table = Table { values: Vec::new(), counts: Vec::new(), first: Vec::new() };
        for v in sorted {
            match table.values.last() {
                Some(last) if nan_last(last, &v) == Ordering::Equal => *table.counts.last_mut().expect("a count") += 1,
                _ => {
                    table.values.push(v);
                    table.counts.push(1);
                }
            }
        }
        table.first = vec![i64::MAX; table.values.len()];
        if with_first {
            for (p, v) in block.iter().enumerate() {
                let i = table.values.binary_search_by(|t| nan_last(t, v)).expect("every value is in the table");
                let at = flat(p);
                if at < table.first[i] {
                    // The value that occurs first stands for its equals (0.0 or -0.0).
                    (table.first[i], table.values[i]) = (at, *v);
                }
            }
        }
        table
    }

    /// One table of `parts`' values: counts summed, the earliest first index
    /// (and the value that occurred there) kept.
    fn merge(parts: &[&Table<T>]) -> Table<T> {
        let mut rows: Vec<(T, i64, i64)> = parts
            .iter()
            .flat_map(|t| t.values.iter().zip(&t.counts).zip(&t.first).map(|((&v, &c), &f)| (v, c, f)))
            .collect();
        rows.sort_by(|a, b| nan_last(&a.0, &b.0).then(a.2.cmp(&b.2)));
        let mut table = Table { values: Vec::new(), counts: Vec::new(), first: Vec::new() };
        for (v, c, f) in rows {
            match table.values.last() {
                Some(last) if nan_last(last, &v) == Ordering::Equal => *table.counts.last_mut().expect("a count") += c,
                _ => {
                    table.values.push(v);
                    table.counts.push(c);
                    table.first.push(f);
                }
            }
        }
        table
    }
}

impl<T: Real> Array<T> {
    /// The sorted distinct values (NumPy's `np.unique`; NaN last, all NaN as
    /// one), computed when called, with the default context.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::from_vec(&[2, 3], vec![5, 1, 5, 3, 1, 1], [1, 2]).unwrap();
    /// assert_eq!(x.unique().unwrap().compute().unwrap().as_slice().unwrap(), &[1, 3, 5]);
    /// ```
    ///
    /// # Errors
    /// The compute errors of `self`.
    pub fn unique(&self) -> Result<Array<T>> {
        Ok(self.unique_with(&UniqueOptions::default(), &Context::default())?.values)
    }

    /// [`Array::unique`] with the first indices, the inverse and the counts
    /// `opts` asks for, computing the distinct values in `ctx`.
    ///
    /// ```
    /// use chunked_array::{Array, Context, UniqueOptions};
    /// let x = Array::<i64>::from_vec(&[2, 2], vec![7, 3, 3, 9], 1).unwrap();
    /// let opts = UniqueOptions { return_index: true, return_inverse: true, return_counts: true };
    /// let u = x.unique_with(&opts, &Context::default()).unwrap();
    /// assert_eq!(u.values.compute().unwrap().as_slice().unwrap(), &[3, 7, 9]);
    /// assert_eq!(u.index.unwrap().compute().unwrap().as_slice().unwrap(), &[1, 0, 3]);
    /// assert_eq!(u.inverse.unwrap().compute().unwrap().as_slice().unwrap(), &[1, 0, 0, 2]);
    /// assert_eq!(u.counts.unwrap().compute().unwrap().as_slice().unwrap(), &[2, 1, 1]);
    /// ```
    ///
    /// # Errors
    /// The compute errors of `self`.
    pub fn unique_with(&self, opts: &UniqueOptions, ctx: &Context) -> Result<Unique<T>> {
        self.check()?;
        let table = self.distinct(opts.return_index).compute_on(ctx)?;
        let k = table.values.len();
        let one_block = k.max(1);
        let as_array = |v: Vec<i64>| Array::from_vec(&[k], v, one_block);
        let values = Arc::new(table.values);
        let inverse = match opts.return_inverse {
            false => None,
            true => {
                let values = values.clone();
                Some(self.map_blocks(
                    move |block: ArrayViewD<'_, T>, _| -> ArrayD<i64> {
                        block.mapv(|v| values.binary_search_by(|t| nan_last(t, &v)).map_or(-1, |i| i as i64))
                    },
                    None,
                )?)
            }
        };
        Ok(Unique {
            values: Array::from_vec(&[k], values.to_vec(), one_block)?,
            index: opts.return_index.then(|| as_array(table.first)).transpose()?,
            inverse,
            counts: opts.return_counts.then(|| as_array(table.counts)).transpose()?,
        })
    }

    /// The table of distinct values, as a delayed tree over the blocks.
    fn distinct(&self, with_first: bool) -> Delayed<Table<T>> {
        let chunks = self.chunks().clone();
        let shape = self.shape();
        let mut level: Vec<Delayed<Table<T>>> = self
            .to_delayed()
            .iter()
            .enumerate()
            .map(|(b, block)| {
                let start = chunks.block_start(&chunks.unravel(b));
                let block_shape = chunks.block_shape(&chunks.unravel(b));
                let shape = shape.clone();
                block.map("unique-block", move |a: &ArrayD<T>| {
                    let flat = |p: usize| flat_index(p, &block_shape, &start, &shape);
                    Table::of_block(a.view(), flat, with_first)
                })
            })
            .collect();
        while level.len() > 1 {
            level = level.chunks(MERGE_ARITY).map(|group| fan_in("unique-merge", group, Table::merge)).collect();
        }
        level.pop().unwrap_or_else(|| Delayed::new("unique-empty", || Table::merge(&[])))
    }
}

/// The flat index (C order) in an array of `shape` of the element at C-order
/// position `p` of the block of `block_shape` starting at `start`.
fn flat_index(mut p: usize, block_shape: &[usize], start: &[usize], shape: &[usize]) -> i64 {
    let (mut flat, mut stride) = (0, 1);
    for a in (0..shape.len()).rev() {
        let local = p % block_shape[a].max(1);
        p /= block_shape[a].max(1);
        flat += (start[a] + local) * stride;
        stride *= shape[a];
    }
    flat as i64
}
