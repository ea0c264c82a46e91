//! Assignment with NumPy's semantics, lazily: `set` (`x[index] = value` with
//! basic indices), `set_mask` (`x[mask] = value`) and `set_mask_axis`
//! (`x[:, mask] = value`). The original array is unchanged: each returns a
//! new array, as dask's `__setitem__` builds a new graph.
//!
//! The selected positions along each axis are ascending runs with a step
//! (a slice, an integer, or a mask's positions). The value is broadcast to
//! the selection's shape and cut along each axis where the array's blocks
//! cut the selection, so block `b` of the result reads block `b` of the
//! array and the matching block of the value; blocks the selection misses
//! are the array's own blocks, not copies.

use std::sync::Arc;

use ndarray::{ArrayViewMutD, Axis, Slice};

use crate::array::Array;
use crate::block::Block;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::elementwise::{Operand, where_};
use crate::ops::slicing::{Idx, expand_index, index_position, normalize};

/// The positions assigned along one axis, ascending.
#[derive(Debug, Clone)]
enum Picks {
    /// `first, first + step, ...`, `count` of them.
    Run { first: usize, step: usize, count: usize },
    /// Any ascending positions (a mask's).
    List(Vec<usize>),
}

impl Picks {
    fn count(&self) -> usize {
        match self {
            Picks::Run { count, .. } => *count,
            Picks::List(p) => p.len(),
        }
    }

    /// The picks inside `[lo, hi)`, as local positions from `lo`.
    fn within(&self, lo: usize, hi: usize) -> Picks {
        match *self {
            Picks::Run { first, step, count } => {
                let index_at = |x: usize| if x <= first { 0 } else { (x - first).div_ceil(step).min(count) };
                let (j0, j1) = (index_at(lo), index_at(hi));
                Picks::Run { first: (first + j0 * step).saturating_sub(lo), step, count: j1 - j0 }
            }
            Picks::List(ref p) => {
                let (a, b) = (p.partition_point(|&x| x < lo), p.partition_point(|&x| x < hi));
                Picks::List(p[a..b].iter().map(|x| x - lo).collect())
            }
        }
    }
}

/// The picks of every block, and the scalar to write there (else the
/// value's blocks, input 1).
struct Assign<T> {
    /// Per axis, per block along it: the local picks.
    picks: Vec<Vec<Picks>>,
    scalar: Option<T>,
}

impl<T> Assign<T> {
    fn block_picks(&self, idx: &[usize]) -> Vec<&Picks> {
        self.picks.iter().zip(idx).map(|(axis, &b)| &axis[b]).collect()
    }
}

impl<T: Element> BlockOp for Assign<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let b = node.chunks.linear(idx);
        out.push((0, b));
        if self.scalar.is_none() && self.block_picks(idx).iter().all(|p| p.count() > 0) {
            out.push((1, b));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let picks = self.block_picks(idx);
        if picks.iter().any(|p| p.count() == 0) {
            return Ok(inputs[0].clone()); // untouched: the array's own block
        }
        let mut out = block_as::<T>(inputs[0], node, "array")?.clone();
        let value = match self.scalar {
            Some(_) => None,
            None => Some(block_as::<T>(inputs[1], node, "value")?),
        };
        write_picks(
            out.view_mut(),
            &picks,
            &|mut dest: ArrayViewMutD<'_, T>, at: &[usize]| match (self.scalar, value) {
                (Some(v), _) => dest.fill(v),
                (None, Some(value)) => {
                    let mut src = value.view();
                    for (a, &j) in at.iter().enumerate() {
                        if j != usize::MAX {
                            src.collapse_axis(Axis(a), j);
                        }
                    }
                    dest.assign(&src);
                }
                (None, None) => unreachable!("a value block without a scalar"),
            },
        );
        Ok(Arc::new(out))
    }
}

/// Writes through `write` into the picks of `view`: runs as strided slices;
/// an axis with a list of positions one position at a time (`at[a]` the
/// value's index along it, `usize::MAX` for runs, which the slice covers).
fn write_picks<T: Element>(
    mut view: ArrayViewMutD<'_, T>,
    picks: &[&Picks],
    write: &dyn Fn(ArrayViewMutD<'_, T>, &[usize]),
) {
    let mut lists = Vec::new();
    for (a, p) in picks.iter().enumerate() {
        match **p {
            Picks::Run { first, step, count } => {
                let end = first + (count - 1) * step + 1;
                view.slice_axis_inplace(Axis(a), Slice::new(first as isize, Some(end as isize), step as isize));
            }
            Picks::List(ref positions) => lists.push((a, positions)),
        }
    }
    match lists[..] {
        [] => write(view, &vec![usize::MAX; picks.len()]),
        [(a, positions)] => {
            for (j, &p) in positions.iter().enumerate() {
                let mut at = vec![usize::MAX; picks.len()];
                at[a] = j;
                let mut one = view.view_mut();
                one.collapse_axis(Axis(a), p);
                write(one, &at);
            }
        }
        _ => unreachable!("at most one axis is picked by a mask"),
    }
}

impl<T: Element> Array<T> {
    /// This array with `value` written at `index` (NumPy's `x[index] =
    /// value` with basic indices: ranges with steps, negative ones too,
    /// integers, new axes, an ellipsis). `value` is a scalar or an array that
    /// broadcasts to the selection's shape (`x.slice(index)`'s). `self` is
    /// unchanged; blocks the index misses are shared, not copied.
    ///
    /// ```
    /// use chunked_array::{Array, s};
    /// let x = Array::<i64>::zeros(&[3, 4], 2).unwrap();
    /// let y = x.set(s![1, ..;2], 7).unwrap(); // x[1, ::2] = 7
    /// let row = Array::from_vec(&[4], vec![1, 2, 3, 4], 4).unwrap();
    /// let z = y.set(s![2, ..;-1], &row).unwrap(); // x[2, ::-1] = row
    /// assert_eq!(z.compute().unwrap().as_slice().unwrap(), &[0, 0, 0, 0, 7, 0, 7, 0, 4, 3, 2, 1]);
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 0); // unchanged
    /// ```
    ///
    /// # Errors
    /// As [`Array::slice`] for the index; [`Error::ShapeMismatch`] for a
    /// value that does not broadcast to the selection.
    pub fn set<'a>(&self, index: impl AsRef<[Idx]>, value: impl Into<Operand<'a, T>>) -> Result<Array<T>> {
        self.check()?;
        let shape = self.shape();
        let (mut picks, mut selection, mut reversed) = (Vec::new(), Vec::new(), Vec::new());
        for i in expand_index(index.as_ref(), shape.len())? {
            let axis = picks.len();
            match i {
                Idx::NewAxis => selection.push(1),
                Idx::Index(k) => {
                    picks.push(Picks::Run { first: index_position(k, shape[axis], axis)?, step: 1, count: 1 })
                }
                Idx::Slice { start, stop, step } => {
                    if step == 0 {
                        return Err(Error::invalid("step", step, format!("must be non-zero (axis {axis})")));
                    }
                    let s = normalize(start, stop, step, shape[axis]);
                    // Ascending positions: a negative step's last position first.
                    let first = if step > 0 || s.len == 0 { s.start } else { s.start + (s.len as isize - 1) * step };
                    picks.push(Picks::Run { first: first.max(0) as usize, step: step.unsigned_abs(), count: s.len });
                    if step < 0 {
                        reversed.push(axis as isize);
                    }
                    selection.push(s.len);
                }
                Idx::Ellipsis => unreachable!("expanded"),
            }
        }
        self.assign(picks, &selection, &reversed, value.into())
    }

    /// This array with `value` where `mask` is true (NumPy's `x[mask] =
    /// value`). A mask of this array's shape takes a scalar or an array that
    /// broadcasts to this array's shape, as dask's `__setitem__` does (it is
    /// `where_(mask, value, x)`); a 1-D mask along axis 0 is
    /// [`Array::set_mask_axis`] on axis 0.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_vec(&[5], vec![1.0, -2.0, 3.0, -4.0, 5.0], 2).unwrap();
    /// let clipped = x.set_mask(&x.lt(0.0).unwrap(), 0.0).unwrap(); // x[x < 0] = 0
    /// assert_eq!(clipped.compute().unwrap().as_slice().unwrap(), &[1.0, 0.0, 3.0, 0.0, 5.0]);
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for a mask of another shape (neither this
    /// array's nor its first axis's) or a value that does not broadcast; the
    /// compute errors of a 1-D mask.
    pub fn set_mask<'a>(&self, mask: &Array<bool>, value: impl Into<Operand<'a, T>>) -> Result<Array<T>> {
        self.check()?;
        if mask.shape() == self.shape() {
            return where_(mask, value, self);
        }
        if mask.ndim() == 1 && self.ndim() > 1 && mask.shape()[0] == self.shape()[0] {
            return self.set_mask_axis(mask, 0, value);
        }
        Err(Error::shape("set_mask (array, mask)", &self.shape(), &mask.shape()))
    }

    /// This array with `value` written in the positions along `axis` where
    /// the 1-D `mask` is true (NumPy's `x[:, mask] = value` for axis 1).
    /// `value` broadcasts to the selection (this array's shape with the
    /// axis's length the count of true). The mask is computed when called,
    /// with the default context: its positions decide the blocks.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i32>::zeros(&[2, 4], 2).unwrap();
    /// let cols = Array::from_vec(&[4], vec![true, false, false, true], 4).unwrap();
    /// let col_values = Array::from_vec(&[2], vec![5, 6], 2).unwrap(); // one per selected column
    /// let y = x.set_mask_axis(&cols, 1, &col_values).unwrap();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[5, 0, 0, 6, 5, 0, 0, 6]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::ShapeMismatch`] for a mask that is not
    /// 1-D of the axis's length, or a value that does not broadcast; the
    /// mask's compute errors.
    pub fn set_mask_axis<'a>(
        &self,
        mask: &Array<bool>,
        axis: isize,
        value: impl Into<Operand<'a, T>>,
    ) -> Result<Array<T>> {
        self.check()?;
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let shape = self.shape();
        if mask.shape() != [shape[axis]] {
            return Err(Error::shape(&format!("set_mask_axis (axis {axis}, mask)"), &[shape[axis]], &mask.shape()));
        }
        let positions: Vec<usize> = mask.compute()?.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i).collect();
        let mut selection = shape.clone();
        selection[axis] = positions.len();
        let picks = (0..shape.len())
            .map(|a| {
                if a == axis {
                    Picks::List(positions.clone())
                } else {
                    Picks::Run { first: 0, step: 1, count: shape[a] }
                }
            })
            .collect();
        self.assign(picks, &selection, &[], value.into())
    }

    /// The layer writing `value` at `picks` (one per axis); `selection` is
    /// the shape the value broadcasts to, `reversed` the axes it runs
    /// backwards along.
    fn assign(
        &self,
        picks: Vec<Picks>,
        selection: &[usize],
        reversed: &[isize],
        value: Operand<'_, T>,
    ) -> Result<Array<T>> {
        let chunks = self.chunks();
        let per_block: Vec<Vec<Picks>> = picks
            .iter()
            .enumerate()
            .map(|(a, p)| chunks.boundaries(a).windows(2).map(|w| p.within(w[0], w[1])).collect())
            .collect();
        let (scalar, inputs) = match value {
            Operand::Scalar(v) => (Some(v), vec![self.node.clone()]),
            Operand::Array(v) => {
                (None, vec![self.node.clone(), aligned_value(v, selection, reversed, &per_block)?.node])
            }
            Operand::Owned(v) => {
                (None, vec![self.node.clone(), aligned_value(&v, selection, reversed, &per_block)?.node])
            }
        };
        let op = Assign { picks: per_block, scalar };
        Array::built(Node::new("setitem", T::DTYPE, chunks.clone(), inputs, op))
    }
}

/// `value` broadcast to `selection`, with one axis per array axis (an
/// integer index's of length 1), `reversed` axes flipped, and cut where the
/// array's blocks cut the selection.
fn aligned_value<T: Element>(
    value: &Array<T>,
    selection: &[usize],
    reversed: &[isize],
    per_block: &[Vec<Picks>],
) -> Result<Array<T>> {
    let broadcast = value
        .broadcast_to(selection)
        .map_err(|_| Error::shape("assigned value (selection, value)", selection, &value.shape()))?;
    let lengths: Vec<Vec<usize>> = per_block.iter().map(|axis| axis.iter().map(Picks::count).collect()).collect();
    let shape: Vec<isize> = lengths.iter().map(|l| l.iter().sum::<usize>() as isize).collect();
    let mut v = broadcast.reshape(&shape)?;
    for &a in reversed {
        v = v.flip(a)?;
    }
    v.rechunk(lengths)
}
