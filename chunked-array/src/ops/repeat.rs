//! Repetition: `repeat` (each element several times along an axis) and `tile`
//! (the whole array several times along each axis).

use std::sync::Arc;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{BlockSizeOptions, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::manip::concatenate;

/// Output position `p` along `axis` is input position `p / repeats`; every
/// output block lies inside the image of one input block.
struct Repeat<T> {
    axis: usize,
    repeats: usize,
    /// Per output block along `axis`: the input block it reads.
    source: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Repeat<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut src = idx.to_vec();
        src[self.axis] = self.source[idx[self.axis]];
        out.push((0, node.inputs[0].chunks.linear(&src)));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "repeat")?;
        let start = node.chunks.offset(self.axis, idx[self.axis]);
        let len = node.chunks.lengths()[self.axis][idx[self.axis]];
        let input_start = node.inputs[0].chunks.offset(self.axis, self.source[idx[self.axis]]);
        // As (outer, axis, inner) in C order: every output row of `inner`
        // elements is one contiguous copy of an input row.
        let a = a.as_standard_layout();
        let data = a.as_slice().expect("standard layout");
        let shape = a.shape();
        let outer: usize = shape[..self.axis].iter().product();
        let inner: usize = shape[self.axis + 1..].iter().product();
        let along = shape[self.axis];
        let mut out: Vec<T> = crate::block::alloc::block_vec(outer * len * inner);
        let r = self.repeats;
        let end = start + len;
        for o in 0..outer {
            // Input position q fills output positions r*q..r*(q+1), clipped to the block.
            for q in start / r..end.div_ceil(r) {
                let copies = (r * (q + 1)).min(end) - (r * q).max(start);
                let from = (o * along + q - input_start) * inner;
                let row = &data[from..from + inner];
                if inner == 1 {
                    out.extend(std::iter::repeat_n(row[0], copies));
                } else {
                    for _ in 0..copies {
                        out.extend_from_slice(row);
                    }
                }
            }
        }
        let mut out_shape = shape.to_vec();
        out_shape[self.axis] = len;
        let out = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&out_shape), out)
            .map_err(|e| Error::invalid("block", idx, e.to_string()))?;
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// Repeats each element `repeats` times along `axis`, next to itself
    /// (NumPy's `repeat` with one count, as dask supports it): `[a, b]` with 2
    /// gives `[a, a, b, b]`. Output blocks stay under 128 MiB where a single
    /// slice across the other axes allows.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 3, 1, 2).unwrap();
    /// let r = x.repeat(2, 0).unwrap().compute().unwrap();
    /// assert_eq!(r.iter().cloned().collect::<Vec<_>>(), vec![0, 0, 1, 1, 2, 2]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`].
    pub fn repeat(&self, repeats: usize, axis: isize) -> Result<Array<T>> {
        self.repeat_with(repeats, axis, &BlockSizeOptions::default())
    }

    /// [`Array::repeat`] with the block-size limit (bytes) that each input
    /// block's repeated image is cut under (one repeat gives the array itself).
    ///
    /// ```
    /// use chunked_array::{Array, BlockSizeOptions};
    /// let x = Array::from_vec(&[2], vec![1, 2], 2).unwrap();
    /// // Each element 4 times, in blocks of at most 8 bytes (two i32).
    /// let r = x.repeat_with(4, 0, &BlockSizeOptions { block_size_limit: 8 }).unwrap();
    /// assert_eq!(r.chunks().lengths()[0], vec![2, 2, 2, 2]);
    /// assert_eq!(r.compute().unwrap().as_slice().unwrap(), &[1, 1, 1, 1, 2, 2, 2, 2]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::repeat`]; [`Error::InvalidArgument`] when the output's size
    /// overflows or it would have more blocks than a grid may.
    pub fn repeat_with(&self, repeats: usize, axis: isize, options: &BlockSizeOptions) -> Result<Array<T>> {
        let block_size_limit = options.block_size_limit;
        self.check()?;
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        if repeats == 1 {
            return Ok(self.clone());
        }
        let chunks = self.chunks();
        let shape = self.shape();
        let n = shape[axis];
        let elements = shape.iter().enumerate().try_fold(1usize, |acc, (a, &len)| {
            acc.checked_mul(if a == axis { len.checked_mul(repeats)? } else { len })
        });
        if elements.is_none() {
            return Err(Error::invalid(
                "repeats",
                repeats,
                format!("times the axis length {n} overflows (shape {shape:?})"),
            ));
        }
        // Bytes of one position along `axis` in the widest block.
        let slab: usize = chunks
            .lengths()
            .iter()
            .enumerate()
            .filter(|&(a, _)| a != axis)
            .map(|(_, l)| l.iter().copied().max().unwrap_or(0))
            .product::<usize>()
            .saturating_mul(std::mem::size_of::<T>());
        let max_len = (block_size_limit / slab.max(1)).max(1);
        // Refuse a grid that could not be held rather than failing to allocate it.
        let pieces: usize =
            chunks.lengths()[axis].iter().map(|&len| (len * repeats).div_ceil(max_len)).fold(0, usize::saturating_add);
        let others: usize = chunks.grid().iter().enumerate().filter(|&(a, _)| a != axis).map(|(_, &g)| g).product();
        if pieces.saturating_mul(others) > crate::chunks::MAX_BLOCKS {
            return Err(Error::invalid(
                "repeats",
                repeats,
                format!(
                    "cut under the block-size limit of {block_size_limit} bytes, the result has more than {} blocks",
                    crate::chunks::MAX_BLOCKS
                ),
            ));
        }
        let mut lengths_along = Vec::new();
        let mut source = Vec::new();
        for (b, &len) in chunks.lengths()[axis].iter().enumerate() {
            for piece in crate::chunks::even_pieces(len * repeats, max_len) {
                lengths_along.push(piece);
                source.push(b);
            }
        }
        if lengths_along.is_empty() {
            lengths_along.push(0);
            source.push(0);
        }
        let mut lengths = chunks.lengths().to_vec();
        lengths[axis] = lengths_along;
        let op = Repeat::<T> { axis, repeats: repeats.max(1), source, _t: std::marker::PhantomData };
        Array::built(Node::new("repeat", T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], op))
    }

    /// The whole array `reps[a]` times along each axis (NumPy's `tile`): with
    /// more `reps` than axes the array gains leading length-1 axes; with fewer,
    /// the leading axes are repeated once. Every copy shares the input's
    /// blocks.
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[2], vec![1, 2], 1).unwrap();
    /// // NumPy: np.tile(x, 2) and np.tile(x, (2, 1))
    /// assert_eq!(x.tile(&[2]).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2, 1, 2]);
    /// assert_eq!(x.tile(&[2, 1]).unwrap().compute().unwrap(), array![[1, 2], [1, 2]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the result's size overflows or it would
    /// have more blocks than a grid may.
    pub fn tile(&self, reps: &[usize]) -> Result<Array<T>> {
        self.check()?;
        let nd = self.ndim().max(reps.len());
        let mut a = self.clone();
        while a.ndim() < nd {
            a = a.expand_dims(0)?;
        }
        let reps: Vec<usize> = std::iter::repeat_n(1, nd - reps.len()).chain(reps.iter().copied()).collect();
        let shape = a.shape();
        let too_many = |what: &str| Error::invalid("reps", &reps, format!("make an array of shape {shape:?} {what}"));
        // An empty axis stays empty: tiling it needs no copies.
        let reps: Vec<usize> = reps.iter().zip(&shape).map(|(&r, &n)| if n == 0 { r.min(1) } else { r }).collect();
        let elements = shape.iter().zip(&reps).try_fold(1usize, |acc, (&n, &r)| acc.checked_mul(n.checked_mul(r)?));
        if elements.is_none() {
            return Err(too_many("hold more elements than a usize counts"));
        }
        let grid = a.chunks().grid();
        let blocks = grid.iter().zip(&reps).try_fold(1usize, |acc, (&g, &r)| acc.checked_mul(g.checked_mul(r.max(1))?));
        if blocks.is_none_or(|b| b > crate::chunks::MAX_BLOCKS) {
            return Err(too_many(&format!(
                "in more than {} blocks; rechunk to larger blocks first",
                crate::chunks::MAX_BLOCKS
            )));
        }
        for (axis, &r) in reps.iter().enumerate() {
            a = match r {
                1 => a,
                0 => a.span(axis, 0, 0)?,
                _ => concatenate(&vec![&a; r], axis as isize)?,
            };
        }
        Ok(a)
    }
}
