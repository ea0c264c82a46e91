//! Diagonals and triangles: `tril`/`triu`, `diagonal` and `diag`.
//!
//! Blocks wholly outside the kept part are zeros made without reading their
//! input block (dask does the same), and blocks wholly inside are shared
//! without a copy.

use std::sync::Arc;

use ndarray::{ArrayD, Axis, Ix3};

use crate::array::Array;
use crate::block::Block;
use crate::block::alloc::{full_block, owned_block};
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// Where a block of a matrix (the last two axes) lies against the `k`-th diagonal.
enum Side {
    Kept,
    Zero,
    Cut,
}

/// Keeps `col - row <= k` (lower) or `col - row >= k` (upper) on the last two axes.
struct Triangle<T> {
    lower: bool,
    k: isize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T> Triangle<T> {
    fn side(&self, node: &Node, idx: &[usize]) -> Side {
        let nd = idx.len();
        let shape = node.chunks.block_shape(idx);
        let start = node.chunks.block_start(idx);
        let (rows, cols) = (shape[nd - 2] as isize, shape[nd - 1] as isize);
        if rows == 0 || cols == 0 {
            return Side::Kept;
        }
        let (r0, c0) = (start[nd - 2] as isize, start[nd - 1] as isize);
        // The least and greatest `col - row` inside the block.
        let (least, most) = (c0 - (r0 + rows - 1), (c0 + cols - 1) - r0);
        let (all, none) = if self.lower { (most <= self.k, least > self.k) } else { (least >= self.k, most < self.k) };
        if all {
            Side::Kept
        } else if none {
            Side::Zero
        } else {
            Side::Cut
        }
    }
}

impl<T: Element> BlockOp for Triangle<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        if !matches!(self.side(node, idx), Side::Zero) {
            out.push((0, node.inputs[0].chunks.linear(idx)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        match self.side(node, idx) {
            Side::Kept => Ok(inputs[0].clone()),
            Side::Zero => Ok(Arc::new(full_block(&shape, T::default()))),
            Side::Cut => {
                let a = block_as::<T>(inputs[0], node, "triangle")?;
                let nd = shape.len();
                let (rows, cols) = (shape[nd - 2], shape[nd - 1]);
                let start = node.chunks.block_start(idx);
                let (r0, c0) = (start[nd - 2] as isize, start[nd - 1] as isize);
                let mut out = owned_block(a.view());
                let batch = out.len() / (rows * cols);
                let mut m = out
                    .view_mut()
                    .into_shape_with_order((batch, rows, cols))
                    .map_err(|e| Error::invalid("block", idx, e.to_string()))?
                    .into_dimensionality::<Ix3>()
                    .map_err(|e| Error::invalid("block", idx, e.to_string()))?;
                for mut matrix in m.outer_iter_mut() {
                    for (i, mut row) in matrix.outer_iter_mut().enumerate() {
                        // Local columns whose `col - row` equals k: `c = k + row - c0`.
                        let edge = self.k + r0 + i as isize - c0;
                        let zeroed = if self.lower {
                            (edge + 1).clamp(0, cols as isize) as usize..cols
                        } else {
                            0..edge.clamp(0, cols as isize) as usize
                        };
                        row.slice_mut(ndarray::s![zeroed]).fill(T::default());
                    }
                }
                Ok(Arc::new(out))
            }
        }
    }
}

/// The diagonal of axes `axis1`, `axis2`, cut where either axis's blocks end,
/// so that every output block reads one input block.
struct Diagonal<T> {
    axis1: usize,
    axis2: usize,
    /// Where the diagonal starts: element `t` is at (`first.0 + t`, `first.1 + t`).
    first: (usize, usize),
    /// Per output block along the diagonal: its input block along each axis.
    pieces: Vec<(usize, usize)>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> Diagonal<T> {
    fn source(&self, node: &Node, idx: &[usize]) -> Vec<usize> {
        let nd_in = node.inputs[0].chunks.grid().len();
        let mut src = Vec::with_capacity(nd_in);
        let mut rest = idx[..idx.len() - 1].iter();
        let (b1, b2) = self.pieces[idx[idx.len() - 1]];
        for a in 0..nd_in {
            src.push(if a == self.axis1 {
                b1
            } else if a == self.axis2 {
                b2
            } else {
                *rest.next().expect("one output axis per other input axis")
            });
        }
        src
    }
}

impl<T: Element> BlockOp for Diagonal<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let src = self.source(node, idx);
        out.push((0, node.inputs[0].chunks.linear(&src)));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "diagonal")?;
        let input = &node.inputs[0].chunks;
        let src = self.source(node, idx);
        let nd_in = src.len();
        let last = idx.len() - 1;
        let t0 = node.chunks.offset(last, idx[last]);
        let local1 = self.first.0 + t0 - input.offset(self.axis1, src[self.axis1]);
        let local2 = self.first.1 + t0 - input.offset(self.axis2, src[self.axis2]);
        // The other axes in order, then axis1 and axis2.
        let mut perm: Vec<usize> = (0..nd_in).filter(|&a| a != self.axis1 && a != self.axis2).collect();
        perm.extend([self.axis1, self.axis2]);
        let view = a.view().permuted_axes(perm);
        let shape = node.chunks.block_shape(idx);
        let mut out = ArrayD::from_elem(shape.clone(), T::default());
        for t in 0..shape[last] {
            let element = view.index_axis(Axis(nd_in - 1), local2 + t);
            let element = element.index_axis(Axis(nd_in - 2), local1 + t);
            out.index_axis_mut(Axis(last), t).assign(&element);
        }
        Ok(Arc::new(out))
    }
}

/// Builds a 2-d array with a vector on its `k`-th diagonal: the vector's
/// blocks are the diagonal blocks, and extra blocks of `|k|` rows (or
/// columns) in all hold the shift.
struct DiagFrom<T> {
    /// Per row block and per column block: the vector's input block it covers
    /// (None: a block of the shift).
    rows: Vec<Option<usize>>,
    cols: Vec<Option<usize>>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T> DiagFrom<T> {
    fn source(&self, idx: &[usize]) -> Option<usize> {
        match (self.rows[idx[0]], self.cols[idx[1]]) {
            (Some(r), Some(c)) if r == c => Some(r),
            _ => None,
        }
    }
}

impl<T: Element> BlockOp for DiagFrom<T> {
    fn deps(&self, _: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        if let Some(b) = self.source(idx) {
            out.push((0, b));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let shape = node.chunks.block_shape(idx);
        let mut out = full_block(&shape, T::default());
        if self.source(idx).is_some() {
            let v = block_as::<T>(inputs[0], node, "diag")?;
            for (t, &x) in v.iter().enumerate() {
                out[[t, t].as_slice()] = x;
            }
        }
        Ok(Arc::new(out))
    }
}

impl<T: Element> Array<T> {
    /// The lower triangle of the last two axes: elements with
    /// `col - row <= k` kept, the others zero (NumPy's `tril`). A 1-d array
    /// of length n is first repeated as the n rows of an (n, n) matrix, as in
    /// NumPy.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let v = Array::<i64>::arange(1, 4, 1, 2).unwrap();
    /// // [[1, 0, 0], [1, 2, 0], [1, 2, 3]]
    /// let t = v.tril(0).unwrap().compute().unwrap();
    /// assert_eq!(t.iter().copied().collect::<Vec<_>>(), vec![1, 0, 0, 1, 2, 0, 1, 2, 3]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array.
    pub fn tril(&self, k: isize) -> Result<Array<T>> {
        self.triangle("tril", true, k)
    }

    /// The upper triangle of the last two axes: elements with
    /// `col - row >= k` kept, the others zero (NumPy's `triu`); a 1-d array
    /// as for [`Array::tril`].
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[3, 3], (1..=9).collect(), 2).unwrap();
    /// // NumPy: np.triu(x, 1)
    /// let u = x.triu(1).unwrap();
    /// assert_eq!(u.compute().unwrap(), array![[0, 2, 3], [0, 0, 6], [0, 0, 0]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array.
    pub fn triu(&self, k: isize) -> Result<Array<T>> {
        self.triangle("triu", false, k)
    }

    fn triangle(&self, name: &str, lower: bool, k: isize) -> Result<Array<T>> {
        self.check()?;
        if self.ndim() == 1 {
            // NumPy broadcasts the vector against the (n, n) triangle mask.
            let n = self.shape()[0];
            let rows = self.chunks().lengths()[0].clone();
            return self.broadcast_to_chunks(&[n, n], &[Some(rows), None])?.triangle(name, lower, k);
        }
        if self.ndim() < 2 {
            return Err(Error::invalid("array shape", self.shape(), format!("{name} needs at least one axis")));
        }
        let op = Triangle::<T> { lower, k, _t: std::marker::PhantomData };
        Array::built(Node::new(name, T::DTYPE, self.chunks().clone(), vec![self.node.clone()], op))
    }

    /// The `offset`-th diagonal of axes `axis1` and `axis2` (NumPy's
    /// `diagonal`): those axes are removed and the diagonal becomes the last
    /// axis; a positive offset is above the main diagonal.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 9, 1, 4).unwrap().reshape(&[3, 3]).unwrap();
    /// let d = x.diagonal(1, 0, 1).unwrap().compute().unwrap();
    /// assert_eq!(d.iter().cloned().collect::<Vec<_>>(), vec![1, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadAxis`] for an axis out of range or the same axis twice;
    /// [`Error::InvalidArgument`] for fewer than two axes.
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Array<T>> {
        self.check()?;
        let nd = self.ndim();
        if nd < 2 {
            return Err(Error::invalid("array shape", self.shape(), "diagonal needs at least two axes"));
        }
        let axes = crate::ops::reduce::normalize_axes(&[axis1, axis2], nd)?;
        let (axis1, axis2) = (axes[0], axes[1]);
        let shape = self.shape();
        let first = (offset.min(0).unsigned_abs(), offset.max(0) as usize);
        let len = shape[axis1].saturating_sub(first.0).min(shape[axis2].saturating_sub(first.1));
        let chunks = self.chunks();
        // Cut the diagonal wherever a block of either axis ends.
        let mut cuts: Vec<usize> = chunks.boundaries(axis1).iter().filter_map(|&b| b.checked_sub(first.0)).collect();
        cuts.extend(chunks.boundaries(axis2).iter().filter_map(|&b| b.checked_sub(first.1)));
        cuts.retain(|&c| c > 0 && c < len);
        cuts.extend([0, len]);
        cuts.sort_unstable();
        cuts.dedup();
        let (mut along, mut pieces) = (Vec::new(), Vec::new());
        for w in cuts.windows(2) {
            along.push(w[1] - w[0]);
            pieces.push((chunks.block_of(axis1, first.0 + w[0]), chunks.block_of(axis2, first.1 + w[0])));
        }
        if along.is_empty() {
            along.push(0);
            pieces.push((0, 0));
        }
        let mut lengths: Vec<Vec<usize>> =
            (0..nd).filter(|&a| a != axis1 && a != axis2).map(|a| chunks.lengths()[a].clone()).collect();
        lengths.push(along);
        let op = Diagonal::<T> { axis1, axis2, first, pieces, _t: std::marker::PhantomData };
        Array::built(Node::new("diagonal", T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], op))
    }

    /// NumPy's `diag`: for a 1-d array, the 2-d array with it on the `k`-th
    /// diagonal and zeros elsewhere; for a 2-d array, its `k`-th diagonal.
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let v = Array::from_vec(&[2], vec![1, 2], 1).unwrap();
    /// // NumPy: np.diag(v, 1)
    /// let m = v.diag(1).unwrap();
    /// assert_eq!(m.compute().unwrap(), array![[0, 1, 0], [0, 0, 2], [0, 0, 0]].into_dyn());
    /// // and back: np.diag(m, 1)
    /// assert_eq!(m.diag(1).unwrap().compute().unwrap().as_slice().unwrap(), &[1, 2]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for other numbers of axes, or a `k` whose
    /// matrix has more elements than a `usize` counts.
    pub fn diag(&self, k: isize) -> Result<Array<T>> {
        self.check()?;
        match self.ndim() {
            2 => self.diagonal(k, 0, 1),
            1 => {
                // The vector's non-empty blocks: their lengths and input block numbers.
                let (vector, blocks): (Vec<usize>, Vec<Option<usize>>) = self.chunks().lengths()[0]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &l)| l > 0)
                    .map(|(b, &l)| (l, Some(b)))
                    .unzip();
                let shift = k.unsigned_abs();
                let side = self.shape()[0].checked_add(shift);
                if side.and_then(|s| s.checked_mul(s)).is_none() {
                    return Err(Error::invalid(
                        "k",
                        k,
                        format!("puts a vector of length {} on a matrix too large to count", self.shape()[0]),
                    ));
                }
                let (mut rows, mut cols) = ((vector.clone(), blocks.clone()), (vector.clone(), blocks));
                // Element t is at (t, t + k) for k >= 0 and (t - k, t) below.
                let (before, after) = if k >= 0 { (&mut cols, &mut rows) } else { (&mut rows, &mut cols) };
                if shift > 0 {
                    // The shift in blocks no longer than the vector's, or than a
                    // square zero block under the block-size limit.
                    let square = (crate::chunks::DEFAULT_AUTO_BYTES / std::mem::size_of::<T>().max(1)).isqrt();
                    let piece = vector.iter().copied().max().unwrap_or(0).max(square).max(1);
                    let pieces: Vec<usize> = crate::chunks::even_pieces(shift, piece).collect();
                    let count = pieces.len();
                    before.0.splice(0..0, pieces.iter().copied());
                    before.1.splice(0..0, std::iter::repeat_n(None, count));
                    after.0.extend(&pieces);
                    after.1.extend(std::iter::repeat_n(None, count));
                }
                for axis in [&mut rows, &mut cols] {
                    if axis.0.is_empty() {
                        axis.0.push(0);
                        axis.1.push(None);
                    }
                }
                let op = DiagFrom::<T> { rows: rows.1, cols: cols.1, _t: std::marker::PhantomData };
                let chunks = Chunks::from_lengths(vec![rows.0, cols.0]);
                Array::built(Node::new("diag", T::DTYPE, chunks, vec![self.node.clone()], op))
            }
            _ => Err(Error::invalid("array shape", self.shape(), "diag needs one or two axes")),
        }
    }
}
