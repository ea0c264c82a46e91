//! Basic indexing with NumPy semantics: ranges with negative and stepped bounds
//! (negative steps too), integers (which drop the axis), new axes and an ellipsis.
//!
//! Each output block reads exactly one input block: along an axis, the elements a
//! slice takes from one input block form one output block. Only the blocks a slice
//! touches are computed, since the task graph is built for the needed blocks only.

use std::sync::Arc;

use ndarray::{ArrayD, IxDyn, SliceInfo, SliceInfoElem};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

mod idx;
pub use idx::{Idx, IndexValue, RangeEnd, SliceRange};

/// A normalized slice of one axis: `len` elements `start, start + step, ...`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AxisSlice {
    pub start: isize,
    pub len: usize,
}

/// NumPy's `slice.indices(n)` followed by the element count.
pub(crate) fn normalize(start: Option<isize>, stop: Option<isize>, step: isize, n: usize) -> AxisSlice {
    let n = n as isize;
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let fix = |v: isize| if v < 0 { v + n } else { v };
    let (start, stop) = if step > 0 {
        (start.map_or(0, |s| clamp(fix(s), 0, n)), stop.map_or(n, |s| clamp(fix(s), 0, n)))
    } else {
        (start.map_or(n - 1, |s| clamp(fix(s), -1, n - 1)), stop.map_or(-1, |s| clamp(fix(s), -1, n - 1)))
    };
    // Unsigned arithmetic: any step, even isize::MIN, without overflow.
    let len = if step > 0 && stop > start {
        (stop - start - 1) as usize / step.unsigned_abs() + 1
    } else if step < 0 && start > stop {
        (start - stop - 1) as usize / step.unsigned_abs() + 1
    } else {
        0
    };
    AxisSlice { start, len }
}

/// `index` with its ellipsis (or the missing trailing axes) expanded into
/// full slices, for an array of `ndim` axes.
pub(crate) fn expand_index(index: &[Idx], ndim: usize) -> Result<Vec<Idx>> {
    let consuming = index.iter().filter(|i| !matches!(i, Idx::NewAxis | Idx::Ellipsis)).count();
    let ellipses = index.iter().filter(|i| matches!(i, Idx::Ellipsis)).count();
    if ellipses > 1 {
        return Err(Error::invalid("index", index, "has more than one ellipsis"));
    }
    if consuming > ndim {
        return Err(Error::invalid(
            "index",
            index,
            format!("has {consuming} indices for an array of {ndim} dimensions"),
        ));
    }
    let mut full: Vec<Idx> = Vec::with_capacity(index.len() + ndim);
    for &i in index {
        if i == Idx::Ellipsis {
            full.extend(std::iter::repeat_n(Idx::FULL, ndim - consuming));
        } else {
            full.push(i);
        }
    }
    if ellipses == 0 {
        full.extend(std::iter::repeat_n(Idx::FULL, ndim - consuming));
    }
    Ok(full)
}

/// The position of integer index `k` on an axis of length `n` (negative
/// from the end).
pub(crate) fn index_position(k: isize, n: usize, axis: usize) -> Result<usize> {
    let n = n as isize;
    let pos = if k < 0 { k + n } else { k };
    if pos < 0 || pos >= n {
        return Err(Error::invalid("index", k, format!("is out of range for axis {axis} of length {n}")));
    }
    Ok(pos as usize)
}

/// Per output axis, where its values come from.
#[derive(Debug, Clone)]
enum OutAxis {
    /// A new axis of length 1.
    New,
    /// A slice of input axis `axis`; per output block: (input block, local first
    /// index, count).
    Sliced { axis: usize, step: isize, blocks: Vec<(usize, usize, usize)> },
}

struct SliceOp<T> {
    out: Vec<OutAxis>,
    /// Input axes indexed by an integer: (axis, input block, local index).
    picked: Vec<(usize, usize, usize)>,
    ndim_in: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> SliceOp<T> {
    fn input_block(&self, idx: &[usize]) -> Vec<usize> {
        let mut b = vec![0; self.ndim_in];
        for &(axis, block, _) in &self.picked {
            b[axis] = block;
        }
        for (a, o) in self.out.iter().enumerate() {
            if let OutAxis::Sliced { axis, blocks, .. } = o {
                b[*axis] = blocks[idx[a]].0;
            }
        }
        b
    }
}

impl<T: Element> BlockOp for SliceOp<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(&self.input_block(idx))));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "slice")?;
        let mut per_input: Vec<Option<SliceInfoElem>> = vec![None; self.ndim_in];
        for &(axis, _, local) in &self.picked {
            per_input[axis] = Some(SliceInfoElem::Index(local as isize));
        }
        // Output axes in order; new axes are placed between the input axes they
        // follow, which SliceInfo expresses by position.
        let mut elems: Vec<SliceInfoElem> = Vec::with_capacity(self.out.len() + self.picked.len());
        let mut next_in = 0;
        let flush_picked = |elems: &mut Vec<SliceInfoElem>, next_in: &mut usize, upto: usize| {
            while *next_in < upto {
                elems.push(per_input[*next_in].expect("an input axis before a sliced one is picked"));
                *next_in += 1;
            }
        };
        for (o, axis_out) in self.out.iter().enumerate() {
            match axis_out {
                OutAxis::New => elems.push(SliceInfoElem::NewAxis),
                OutAxis::Sliced { axis, step, blocks } => {
                    flush_picked(&mut elems, &mut next_in, *axis);
                    let (_, first, count) = blocks[idx[o]];
                    let (first, count) = (first as isize, count as isize);
                    elems.push(if count == 0 {
                        SliceInfoElem::Slice { start: 0, end: Some(0), step: 1 }
                    } else if *step > 0 {
                        SliceInfoElem::Slice { start: first, end: Some(first + (count - 1) * step + 1), step: *step }
                    } else {
                        // ndarray walks a negative step back from the end of the range.
                        let last = first + (count - 1) * step;
                        SliceInfoElem::Slice { start: last, end: Some(first + 1), step: *step }
                    });
                    next_in = axis + 1;
                }
            }
        }
        flush_picked(&mut elems, &mut next_in, self.ndim_in);
        let info = SliceInfo::<Vec<SliceInfoElem>, IxDyn, IxDyn>::try_from(elems)
            .map_err(|e| Error::invalid("slice", idx, e.to_string()))?;
        let view = a.slice(info);
        let out: ArrayD<T> = crate::block::alloc::owned_block(view);
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// Basic indexing with NumPy semantics (`x[i, a:b:s, None, ...]`).
    ///
    /// ```
    /// use chunked_array::{Array, Idx};
    /// let x = Array::<i64>::arange(0, 10, 1, 3).unwrap();
    /// let y = x.slice(&[Idx::stepped(Some(-2), None, -3)]).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![8, 5, 2]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an integer index out of range, a zero step,
    /// more than one ellipsis, or more indices than axes.
    pub fn slice(&self, index: impl AsRef<[Idx]>) -> Result<Array<T>> {
        self.check()?;
        let shape = self.shape();
        let chunks = self.chunks();
        let full = expand_index(index.as_ref(), shape.len())?;
        let mut out = Vec::new();
        let mut out_lengths = Vec::new();
        let mut picked = Vec::new();
        let mut axis = 0;
        for i in full {
            match i {
                Idx::NewAxis => {
                    out.push(OutAxis::New);
                    out_lengths.push(vec![1]);
                }
                Idx::Index(k) => {
                    let pos = index_position(k, shape[axis], axis)?;
                    let b = chunks.block_of(axis, pos);
                    picked.push((axis, b, pos - chunks.offset(axis, b)));
                    axis += 1;
                }
                Idx::Slice { start, stop, step } => {
                    if step == 0 {
                        return Err(Error::invalid("step", step, format!("must be non-zero (axis {axis})")));
                    }
                    let s = normalize(start, stop, step, shape[axis]);
                    let mut blocks: Vec<(usize, usize, usize)> = Vec::new();
                    let mut k = 0usize;
                    while k < s.len {
                        let pos = (s.start + k as isize * step) as usize;
                        let b = chunks.block_of(axis, pos);
                        let (lo, hi) = (chunks.offset(axis, b) as isize, chunks.offset(axis, b + 1) as isize);
                        // How many of the remaining elements fall in block b.
                        let room =
                            if step > 0 { (hi - 1 - pos as isize) as usize } else { (pos as isize - lo) as usize }
                                / step.unsigned_abs()
                                + 1;
                        let count = room.min(s.len - k);
                        blocks.push((b, pos - lo as usize, count));
                        k += count;
                    }
                    let lengths: Vec<usize> =
                        if blocks.is_empty() { vec![0] } else { blocks.iter().map(|b| b.2).collect() };
                    if blocks.is_empty() {
                        // An empty result still reads one (empty) selection of block 0.
                        blocks.push((0, 0, 0));
                    }
                    out_lengths.push(lengths);
                    out.push(OutAxis::Sliced { axis, step, blocks });
                    axis += 1;
                }
                Idx::Ellipsis => unreachable!("expanded above"),
            }
        }
        let op = SliceOp::<T> { out, picked, ndim_in: shape.len(), _t: std::marker::PhantomData };
        Array::built(Node::new("getitem", T::DTYPE, Chunks::from_lengths(out_lengths), vec![self.node.clone()], op))
    }
}
