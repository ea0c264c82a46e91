//! Advanced indexing: `take` (integer indices along an axis), boolean masks, and
//! `broadcast_to`.
//!
//! Unknown block lengths: a mask's result has as many elements as the mask has
//! `true`s, which dask leaves unknown (NaN chunks) until `compute_chunk_sizes`.
//! Here the building call computes what is needed to know them, once, and
//! returns an array with known blocks: a 1-d mask along an axis is computed when
//! given as an array; a full-shape mask has its per-block counts computed (one
//! run of the mask's graph). Every other operation can then rely on known shapes.

use std::sync::Arc;

use ndarray::{ArrayD, Axis, IxDyn};

use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks, DEFAULT_AUTO_BYTES};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{block_as, Block, BlockOp, Node};
use crate::slicing::Idx;

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

/// Each input block's selected elements, flattened in C order.
struct Masked<T> {
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Masked<T> {
    fn deps(&self, _: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, idx[0]));
        out.push((1, idx[0]));
    }
    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let x = block_as::<T>(inputs[0], node, "masked values")?;
        let m = block_as::<bool>(inputs[1], node, "mask")?;
        let picked: Vec<T> = x.iter().zip(m.iter()).filter(|&(_, &keep)| keep).map(|(&v, _)| v).collect();
        let n = picked.len();
        Ok(Arc::new(ArrayD::from_shape_vec(IxDyn(&[n]), picked).expect("1-d")))
    }
}

/// How a full-shape selection is laid out: the chunk spec one block wide past
/// axis 0 (row blocks from `rows`, cut so that a block of `bytes_per_element`
/// elements stays under `block_size_limit`), the mask rechunked to it, and the
/// number of trues in each of its row blocks (computed here: one run of the
/// mask's graph).
fn selection_layout(
    rows: &[usize],
    mask: &Array<bool>,
    bytes_per_element: usize,
    block_size_limit: usize,
) -> Result<(ChunkSpec, Array<bool>, Vec<usize>)> {
    let shape = mask.shape();
    let row_bytes = shape[1..].iter().product::<usize>().saturating_mul(bytes_per_element.max(1));
    let max_rows = (block_size_limit / row_bytes.max(1)).max(1);
    let rows: Vec<usize> = rows
        .iter()
        .flat_map(|&r| {
            let pieces = r.div_ceil(max_rows).max(1);
            (0..pieces).map(move |p| r / pieces + usize::from(p < r % pieces))
        })
        .collect();
    let mut lengths = vec![rows];
    lengths.extend(shape[1..].iter().map(|&n| vec![n]));
    let spec = ChunkSpec::from(lengths);
    let m = mask.rechunk(spec.clone())?;
    // Per row, the number of trues; summed over each row block.
    let axes: Vec<isize> = (1..shape.len() as isize).collect();
    let per_row = m.astype::<i64>().sum(crate::reduce::ReduceOptions::axes(axes))?.compute()?;
    let counts = m
        .chunks()
        .boundaries(0)
        .windows(2)
        .map(|w| per_row.iter().skip(w[0]).take(w[1] - w[0]).sum::<i64>() as usize)
        .collect();
    Ok((spec, m, counts))
}

/// The coordinates of each row block's trues, in C order, as rows of a
/// (count, ndim) block.
struct Coordinates;

impl BlockOp for Coordinates {
    fn deps(&self, _: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, idx[0]));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let m = block_as::<bool>(inputs[0], node, "argwhere mask")?;
        let first_row = node.inputs[0].chunks.offset(0, idx[0]);
        let shape = node.chunks.block_shape(idx);
        let mut coords: Vec<i64> = crate::schedule::block_vec(shape[0] * shape[1]);
        // `iter` walks the block in C order; an odometer tracks the position.
        let dims = m.shape();
        let mut at = vec![0usize; dims.len()];
        for &keep in m.iter() {
            if keep {
                coords.push((first_row + at[0]) as i64);
                coords.extend(at[1..].iter().map(|&i| i as i64));
            }
            for a in (0..at.len()).rev() {
                at[a] += 1;
                if at[a] < dims[a] {
                    break;
                }
                at[a] = 0;
            }
        }
        let out = ArrayD::from_shape_vec(IxDyn(&shape), coords).map_err(|e| Error::invalid("argwhere block", idx, e.to_string()))?;
        Ok(Arc::new(out))
    }
}

/// Broadcasts a block to the output block's shape.
struct Broadcast<T> {
    lead: usize,
    /// Per input axis: whether it is stretched from length 1.
    stretched: Vec<bool>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Broadcast<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let src: Vec<usize> = self.stretched.iter().enumerate().map(|(a, &s)| if s { 0 } else { idx[a + self.lead] }).collect();
        out.push((0, node.inputs[0].chunks.linear(&src)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "broadcast_to")?;
        let shape = node.chunks.block_shape(idx);
        let view = a.broadcast(IxDyn(&shape)).ok_or_else(|| Error::shape("broadcast_to block", a.shape(), &shape))?;
        Ok(Arc::new(crate::schedule::owned_block(view)))
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
        self.take_with(indices, axis, DEFAULT_AUTO_BYTES)
    }

    /// [`Array::take`] with the block-size limit (bytes) past which an output
    /// block's input blocks are split into pieces first.
    ///
    /// # Errors
    /// As [`Array::take`].
    pub fn take_with(&self, indices: &[isize], axis: isize, block_size_limit: usize) -> Result<Array<T>> {
        self.check()?;
        let axis = crate::reduce::normalize_axes(&[axis], self.ndim())?[0];
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
        let across: usize = chunks.lengths().iter().enumerate().filter(|&(a, _)| a != axis).map(|(_, l)| l.iter().copied().max().unwrap_or(0)).product();
        let too_wide = |p: &Vec<(usize, usize)>| {
            let mut s: Vec<usize> = p.iter().map(|q| q.0).collect();
            s.sort_unstable();
            s.dedup();
            s.len() > 1 && s.iter().map(|&b| lengths[b]).sum::<usize>() * across * std::mem::size_of::<T>() > block_size_limit
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

    /// The positions along `axis` where `mask` is true (NumPy's `compress`, or
    /// `x[:, mask]`). `mask` has the axis' length.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the mask's length differs; [`Error::BadAxis`].
    pub fn compress(&self, mask: &[bool], axis: isize) -> Result<Array<T>> {
        self.check()?;
        let a = crate::reduce::normalize_axes(&[axis], self.ndim())?[0];
        if mask.len() != self.shape()[a] {
            return Err(Error::shape("compress (mask, axis)", &[mask.len()], &[self.shape()[a]]));
        }
        let idx: Vec<isize> = mask.iter().enumerate().filter(|&(_, &m)| m).map(|(i, _)| i as isize).collect();
        self.take(&idx, a as isize)
    }

    /// [`Array::compress`] with a lazy 1-d mask, which is computed first (see the
    /// module notes on unknown block lengths).
    ///
    /// # Errors
    /// As [`Array::compress`], and the mask's compute errors.
    pub fn compress_array(&self, mask: &Array<bool>, axis: isize) -> Result<Array<T>> {
        if mask.ndim() != 1 {
            return Err(Error::invalid("mask", mask.shape(), "a mask along one axis is 1-d"));
        }
        let m: Vec<bool> = mask.compute()?.iter().copied().collect();
        self.compress(&m, axis)
    }

    /// The elements where a full-shape `mask` is true, in C order, as a 1-d array
    /// (NumPy's `x[mask]`). The mask's per-block counts are computed first (one
    /// run of its graph), so the result has known block lengths: one block per
    /// block of `self` once the array is one block wide past its first axis
    /// (rechunked so, as dask's `ravel` does, to keep C order; row blocks are
    /// cut so that those blocks stay under the 128 MiB block-size limit).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_fn(&[3, 4], [2, 2], |i| (i[0] * 4 + i[1]) as i64).unwrap();
    /// let y = x.masked(&x.gt(6).unwrap()).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![7, 8, 9, 10, 11]);
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes differ; the mask's compute errors.
    pub fn masked(&self, mask: &Array<bool>) -> Result<Array<T>> {
        self.masked_with(mask, DEFAULT_AUTO_BYTES)
    }

    /// [`Array::masked`] with the block-size limit (bytes) for the blocks made
    /// one block wide past the first axis (a single row wider than the limit
    /// still makes one block).
    ///
    /// # Errors
    /// As [`Array::masked`].
    pub fn masked_with(&self, mask: &Array<bool>, block_size_limit: usize) -> Result<Array<T>> {
        self.check()?;
        mask.check()?;
        if mask.shape() != self.shape() {
            return Err(Error::shape("masked (values, mask)", &self.shape(), &mask.shape()));
        }
        let shape = self.shape();
        if shape.is_empty() {
            return self.expand_dims(0)?.masked_with(&mask.expand_dims(0)?, block_size_limit);
        }
        let (spec, m, out) = selection_layout(&self.chunks().lengths()[0], mask, std::mem::size_of::<T>(), block_size_limit)?;
        let x = self.rechunk(spec)?;
        let chunks = Chunks::from_lengths(vec![out]);
        let op = Masked::<T> { _t: std::marker::PhantomData };
        Ok(Array::from_node(Node::new("masked", T::DTYPE, chunks, vec![x.node.clone(), m.node.clone()], op)))
    }

    /// The coordinates of the non-zero (true) elements in C order, one row
    /// each: a (count, ndim) array (NumPy's `argwhere`). As [`Array::masked`],
    /// the per-block counts are computed first, so the result's blocks are
    /// known: one row block per row block of `self` made one block wide past
    /// its first axis (cut under the 128 MiB block-size limit).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_fn(&[2, 3], [1, 2], |i| (i[0] * 3 + i[1]) as i64 % 4).unwrap();
    /// // [[0, 1, 2], [3, 0, 1]]
    /// let w = x.argwhere().unwrap().compute().unwrap();
    /// assert_eq!(w.iter().cloned().collect::<Vec<_>>(), vec![0, 1, 0, 2, 1, 0, 1, 2]);
    /// ```
    ///
    /// # Errors
    /// The compute errors of `self` (its non-zero pattern is computed here).
    pub fn argwhere(&self) -> Result<Array<i64>> {
        self.argwhere_with(DEFAULT_AUTO_BYTES)
    }

    /// [`Array::argwhere`] with the block-size limit (bytes) for the row blocks
    /// (counted at `ndim` coordinates per element, the most a block can give).
    ///
    /// # Errors
    /// As [`Array::argwhere`].
    pub fn argwhere_with(&self, block_size_limit: usize) -> Result<Array<i64>> {
        self.check()?;
        let nd = self.ndim();
        if nd == 0 {
            // NumPy: a 0-d array has one position and no coordinates.
            let rows = self.expand_dims(0)?.argwhere_with(block_size_limit)?;
            return rows.slice(&[Idx::FULL, Idx::range(0, 0)]);
        }
        let nonzero = self.ne(crate::Operand::Scalar(T::default()))?;
        let bytes = nd * std::mem::size_of::<i64>();
        let (_, m, counts) = selection_layout(&self.chunks().lengths()[0], &nonzero, bytes, block_size_limit)?;
        let chunks = Chunks::from_lengths(vec![counts, vec![nd]]);
        Ok(Array::from_node(Node::new("argwhere", crate::element::DType::I64, chunks, vec![m.node.clone()], Coordinates)))
    }

    /// The indices of the non-zero (true) elements, one 1-d array per axis
    /// (NumPy's `nonzero`): the columns of [`Array::argwhere`], which all read
    /// the same layer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array (as NumPy 2); the compute
    /// errors of `self`.
    pub fn nonzero(&self) -> Result<Vec<Array<i64>>> {
        self.check()?;
        if self.ndim() == 0 {
            return Err(Error::invalid("array shape", self.shape(), "nonzero needs at least one axis"));
        }
        let rows = self.argwhere()?;
        (0..self.ndim() as isize).map(|a| rows.slice(&[Idx::FULL, Idx::Index(a)])).collect()
    }

    /// Broadcasts to `shape` (NumPy's `broadcast_to`). Axes that are new or
    /// stretched from length 1 are one block each.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shape does not broadcast.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array<T>> {
        self.check()?;
        let own = self.shape();
        if own.len() > shape.len() {
            return Err(Error::shape("broadcast_to", &own, shape));
        }
        let lead = shape.len() - own.len();
        let mut stretched = Vec::with_capacity(own.len());
        let mut lengths: Vec<Vec<usize>> = shape[..lead].iter().map(|&n| vec![n]).collect();
        for (a, &n) in own.iter().enumerate() {
            let target = shape[a + lead];
            if n == target {
                stretched.push(false);
                lengths.push(self.chunks().lengths()[a].clone());
            } else if n == 1 {
                stretched.push(true);
                lengths.push(vec![target]);
            } else {
                return Err(Error::shape("broadcast_to", &own, shape));
            }
        }
        let op = Broadcast::<T> { lead, stretched, _t: std::marker::PhantomData };
        Ok(Array::from_node(Node::new("broadcast_to", T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], op)))
    }
}
