//! Advanced indexing: `take` (integer indices along an axis) and masks along
//! one axis (`compress`). Full-shape masks are in `selection`.
//!
//! Unknown block lengths: a mask's result has as many elements as the mask has
//! `true`s, which dask leaves unknown (NaN chunks) until `compute_chunk_sizes`.
//! Here the building call computes what is needed to know them, once, and
//! returns an array with known blocks: a 1-d mask along an axis is computed when
//! given as an array. Every other operation can then rely on known shapes.

use std::sync::Arc;

use ndarray::{ArrayD, Axis, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{BlockSizeOptions, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::exec::Context;
use crate::graph::{BlockOp, Node, block_as};

/// Gathers positions `picks[block]` along `axis`: each output block along the
/// axis lists (input block, local index) per position.
struct Take<T> {
    axis: usize,
    picks: Vec<Vec<(usize, usize)>>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> Take<T> {
    /// The distinct input blocks along `axis` that output block `i` reads, in order.
    fn sources(&self, i: usize) -> Vec<usize> {
        let mut s: Vec<usize> = self.picks[i].iter().map(|p| p.0).collect();
        s.sort_unstable();
        s.dedup();
        s
    }
}

impl<T: Element> BlockOp for Take<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let input = &node.inputs[0].chunks;
        let mut b = idx.to_vec();
        for s in self.sources(idx[self.axis]) {
            b[self.axis] = s;
            out.push((0, input.linear(&b)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let sources = self.sources(idx[self.axis]);
        let blocks: Vec<&ArrayD<T>> = inputs.iter().map(|b| block_as::<T>(b, node, "take")).collect::<Result<_>>()?;
        let picks = &self.picks[idx[self.axis]];
        let views: Vec<_> = picks
            .iter()
            .map(|&(b, local)| {
                let k = sources.binary_search(&b).expect("a source of this block");
                blocks[k].index_axis(Axis(self.axis), local)
            })
            .collect();
        let shape = node.chunks.block_shape(idx);
        let out = if views.is_empty() {
            ArrayD::from_shape_vec(IxDyn(&shape), vec![]).map_err(|e| Error::invalid("block", idx, e.to_string()))?
        } else {
            ndarray::stack(Axis(self.axis), &views).map_err(|e| Error::invalid("block", idx, e.to_string()))?
        };
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// Elements at `indices` along `axis` (NumPy's `take`): unsorted, repeated
    /// and negative indices allowed. Output blocks along the axis hold as many
    /// positions as the input's largest block.
    ///
    /// An output block whose positions come from input blocks holding more
    /// than the 128 MiB block-size limit together (scattered indices) is not
    /// gathered from them at once: each input block first gives the pieces
    /// that output blocks need from it, and each output block then orders its
    /// own pieces (dask's shuffle-based `take`), so no task holds more than an
    /// input block or an output block's pieces.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 10, 1, 4).unwrap();
    /// let y = x.take(&[9, 0, 0, -2, 5], 0).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![9, 0, 0, 8, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`]; [`Error::InvalidArgument`] for an index out of range.
    pub fn take(&self, indices: &[isize], axis: isize) -> Result<Array<T>> {
        self.take_with(indices, axis, &BlockSizeOptions::default())
    }

    /// [`Array::take`] with the block-size limit (bytes) past which an output
    /// block's input blocks are split into pieces first.
    ///
    /// ```
    /// use chunked_array::{Array, BlockSizeOptions};
    /// let x = Array::from_vec(&[6], vec![10, 11, 12, 13, 14, 15], 2).unwrap();
    /// // Scattered picks past 8 bytes of input per output block are gathered in pieces.
    /// let y = x.take_with(&[5, 0, 3], 0, &BlockSizeOptions { block_size_limit: 8 }).unwrap();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[15, 10, 13]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::take`].
    pub fn take_with(&self, indices: &[isize], axis: isize, options: &BlockSizeOptions) -> Result<Array<T>> {
        let block_size_limit = options.block_size_limit;
        self.check()?;
        let axis = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let chunks = self.chunks();
        let n = self.shape()[axis] as isize;
        let mut positions = Vec::with_capacity(indices.len());
        for &i in indices {
            let p = if i < 0 { i + n } else { i };
            if p < 0 || p >= n {
                return Err(Error::invalid("index", i, format!("is out of range for axis {axis} of length {n}")));
            }
            let b = chunks.block_of(axis, p as usize);
            positions.push((b, p as usize - chunks.offset(axis, b)));
        }
        let per_block = chunks.lengths()[axis].iter().copied().max().unwrap_or(1).max(1);
        let mut picks: Vec<Vec<(usize, usize)>> = positions.chunks(per_block).map(<[_]>::to_vec).collect();
        if picks.is_empty() {
            picks.push(Vec::new());
        }
        // Whether an output block would read several input blocks holding more
        // than the limit together (one block is read whole either way).
        let lengths = &chunks.lengths()[axis];
        let across: usize = chunks
            .lengths()
            .iter()
            .enumerate()
            .filter(|&(a, _)| a != axis)
            .map(|(_, l)| l.iter().copied().max().unwrap_or(0))
            .product();
        let too_wide = |p: &Vec<(usize, usize)>| {
            let mut s: Vec<usize> = p.iter().map(|q| q.0).collect();
            s.sort_unstable();
            s.dedup();
            s.len() > 1
                && s.iter()
                    .map(|&b| lengths[b])
                    .sum::<usize>()
                    .saturating_mul(across)
                    .saturating_mul(std::mem::size_of::<T>())
                    > block_size_limit
        };
        if !picks.iter().any(too_wide) {
            return Ok(self.gather(axis, picks));
        }
        // Pieces: per output block, its positions grouped by input block (in
        // block order), each piece read from one input block.
        let mut pieces: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut reorder: Vec<Vec<(usize, usize)>> = Vec::with_capacity(picks.len());
        for p in &picks {
            let first = pieces.len();
            let mut sources: Vec<usize> = p.iter().map(|q| q.0).collect();
            sources.sort_unstable();
            sources.dedup();
            pieces.extend(sources.iter().map(|_| Vec::new()));
            let mut order = Vec::with_capacity(p.len());
            for &(b, local) in p {
                let k = first + sources.binary_search(&b).expect("a source of this block");
                order.push((k, pieces[k].len()));
                pieces[k].push((b, local));
            }
            reorder.push(order);
        }
        Ok(self.gather(axis, pieces).gather(axis, reorder))
    }

    /// The gather node: block `i` along `axis` stacks the positions `picks[i]`,
    /// each (input block, index within it).
    fn gather(&self, axis: usize, picks: Vec<Vec<(usize, usize)>>) -> Array<T> {
        let mut lengths = self.chunks().lengths().to_vec();
        lengths[axis] = picks.iter().map(Vec::len).collect();
        let op = Take::<T> { axis, picks, _t: std::marker::PhantomData };
        Array::from_node(Node::new("take", T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], op))
    }

    /// The positions along `axis` where `mask` is true (NumPy's `compress`; with
    /// a mask of the axis' length, `x[:, mask]`). As in NumPy, a shorter mask
    /// leaves the positions past its end out, and a longer one may only be
    /// false past the axis.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 6, 1, 4).unwrap();
    /// let y = x.compress(&[false, true, true], 0).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![1, 2]);
    /// assert!(x.compress(&[false; 6].iter().copied().chain([true]).collect::<Vec<_>>(), 0).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the mask is true past the axis' length;
    /// [`Error::BadAxis`].
    pub fn compress(&self, mask: &[bool], axis: isize) -> Result<Array<T>> {
        self.check()?;
        let a = crate::ops::reduce::normalize_axes(&[axis], self.ndim())?[0];
        let n = self.shape()[a];
        if let Some(past) = mask.iter().skip(n).position(|&m| m) {
            return Err(Error::invalid(
                "compress mask",
                format!("true at position {}", n + past),
                format!("past the end of axis {a} of length {n} (the mask has length {})", mask.len()),
            ));
        }
        let idx: Vec<isize> = mask.iter().take(n).enumerate().filter(|&(_, &m)| m).map(|(i, _)| i as isize).collect();
        self.take(&idx, a as isize)
    }

    /// [`Array::compress`] with a lazy 1-d mask, which is computed first (see the
    /// module notes on unknown block lengths).
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6], [1, 2]).unwrap();
    /// let keep = x.sum(0).unwrap().gt(6i64).unwrap(); // column sums 5, 7, 9
    /// // NumPy: x[:, x.sum(0) > 6]
    /// let y = x.compress_array(&keep, 1).unwrap();
    /// assert_eq!(y.compute().unwrap(), array![[2, 3], [5, 6]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// As [`Array::compress`], and the mask's compute errors.
    pub fn compress_array(&self, mask: &Array<bool>, axis: isize) -> Result<Array<T>> {
        self.compress_array_on(mask, axis, &Context::default())
    }

    /// [`Array::compress_array`] with the mask computed in `ctx`. Over several
    /// processes (MPI) the mask is computed by all of them and rank 0's copy
    /// is shared with every process, which all build the same graph.
    ///
    /// ```
    /// use chunked_array::{Array, Context};
    /// let x = Array::from_vec(&[4], vec![1, 2, 3, 4], 2).unwrap();
    /// // The mask is computed on one thread.
    /// let y = x.compress_array_on(&x.ge(3).unwrap(), 0, &Context::sync()).unwrap();
    /// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[3, 4]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::compress_array`].
    pub fn compress_array_on(&self, mask: &Array<bool>, axis: isize, ctx: &Context) -> Result<Array<T>> {
        if mask.ndim() != 1 {
            return Err(Error::invalid("mask", mask.shape(), "a mask along one axis is 1-d"));
        }
        let here = mask.compute_root(ctx)?.map(|m| m.iter().copied().collect::<Vec<bool>>());
        let m = crate::exec::shared_from_root(
            ctx,
            here,
            |m| m.iter().map(|&b| u8::from(b)).collect(),
            |bytes| bytes.iter().map(|&b| b != 0).collect(),
        );
        self.compress(&m, axis)
    }
}
