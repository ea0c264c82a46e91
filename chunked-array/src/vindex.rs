//! Point-wise indexing: `vindex` (dask's `x.vindex[i, j]`, NumPy's `x[i, j]`
//! with integer arrays): the elements at `(i[p], j[p])` for every point `p`.
//!
//! In two layers, so that no task holds more than one input block or one
//! output block: each input block first gives the points of one output block
//! that fall in it (a "piece", in point order), and each output block then puts
//! its pieces' rows in point order. Only the blocks holding points are read.

use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{block_as, Block, BlockOp, Node};

/// The points of one output block that lie in one input block.
struct Piece {
    /// The input block's index along the indexed (leading) axes.
    block: Vec<usize>,
    /// Per point, its position inside that block along the indexed axes
    /// (`k` numbers each, point after point).
    local: Vec<usize>,
}

/// Gathers each piece's points from its input block: block `(q, t...)` holds
/// piece `q`'s rows for the trailing (not indexed) axes' block `t`.
struct GatherPoints<T> {
    /// Number of indexed (leading) axes.
    k: usize,
    pieces: Vec<Piece>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for GatherPoints<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut b = self.pieces[idx[0]].block.clone();
        b.extend_from_slice(&idx[1..]);
        out.push((0, node.inputs[0].chunks.linear(&b)));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let block = block_as::<T>(inputs[0], node, "vindex")?;
        let block = block.as_standard_layout();
        let data = block.as_slice().expect("standard layout");
        // In C order, each point's trailing rows are one run of `row` elements.
        let row: usize = block.shape()[self.k..].iter().product();
        let strides: Vec<usize> = (0..self.k).map(|a| block.shape()[a + 1..].iter().product()).collect();
        let piece = &self.pieces[idx[0]];
        let shape = node.chunks.block_shape(idx);
        let mut out = crate::schedule::block_vec::<T>(shape.iter().product());
        for local in piece.local.chunks_exact(self.k) {
            let at: usize = local.iter().zip(&strides).map(|(l, s)| l * s).sum();
            out.extend_from_slice(&data[at..at + row]);
        }
        Ok(Arc::new(ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| Error::invalid("block", idx, e.to_string()))?))
    }
}

/// Puts each output block's rows in point order: `order[o]` lists, per point
/// of output block `o`, (its piece among `first[o]..`, its row in the piece).
struct AssemblePoints<T> {
    first: Vec<usize>,
    count: Vec<usize>,
    order: Vec<Vec<(u32, u32)>>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for AssemblePoints<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let mut b = idx.to_vec();
        for q in self.first[idx[0]]..self.first[idx[0]] + self.count[idx[0]] {
            b[0] = q;
            out.push((0, node.inputs[0].chunks.linear(&b)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let pieces: Vec<std::borrow::Cow<'_, [T]>> = inputs
            .iter()
            .map(|b| {
                let a = block_as::<T>(b, node, "vindex")?;
                // Pieces are built in C order; a copy only if one came back otherwise.
                Ok(a.as_slice().map_or_else(|| a.iter().copied().collect::<Vec<_>>().into(), std::borrow::Cow::Borrowed))
            })
            .collect::<Result<_>>()?;
        let shape = node.chunks.block_shape(idx);
        let row: usize = shape[1..].iter().product();
        let mut out = crate::schedule::block_vec::<T>(shape.iter().product());
        for &(q, r) in &self.order[idx[0]] {
            let (q, r) = (q as usize, r as usize);
            out.extend_from_slice(&pieces[q][r * row..(r + 1) * row]);
        }
        Ok(Arc::new(ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| Error::invalid("block", idx, e.to_string()))?))
    }
}

impl<T: Element> Array<T> {
    /// The elements at points (dask's `x.vindex[i, j]`; NumPy's `x[i, j]` with
    /// 1-d integer arrays): `indices[a][p]` is point `p`'s index along axis `a`
    /// for the first `indices.len()` axes, so the result has shape
    /// `(points, shape[indices.len()..])`. Negative indices count from the end;
    /// a list of one index is repeated for every point (NumPy's broadcasting).
    ///
    /// Output blocks hold as many points as an input block has positions along
    /// the indexed axes; only the input blocks holding points are read, and no
    /// task holds more than one input block or one output block.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::arange(0, 20, 1, 3).unwrap().reshape(&[4, 5]).unwrap();
    /// let diagonal = x.vindex(&[&[0, 1, 2, 3], &[0, 1, 2, 3]]).unwrap();
    /// assert_eq!(diagonal.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![0, 6, 12, 18]);
    /// let rows = x.vindex(&[&[-1, 0]]).unwrap();
    /// assert_eq!(rows.shape(), vec![2, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no index lists or more lists than axes,
    /// lists of different lengths (other than 1), or an index out of range
    /// (naming it, its axis and its point).
    pub fn vindex(&self, indices: &[&[isize]]) -> Result<Array<T>> {
        self.check()?;
        let shape = self.shape();
        let k = indices.len();
        if k == 0 || k > shape.len() {
            return Err(Error::invalid("indices", k, format!("need one index list per indexed axis, 1 to {} of them", shape.len())));
        }
        let lengths: Vec<usize> = indices.iter().map(|i| i.len()).collect();
        let points = lengths.iter().copied().filter(|&l| l != 1).max().unwrap_or(1);
        if let Some(bad) = lengths.iter().position(|&l| l != 1 && l != points) {
            return Err(Error::invalid("indices", &lengths, format!("list {bad} has {} indices where another has {points}: lists must have one length (or 1)", lengths[bad])));
        }
        let chunks = self.chunks();
        let trailing: Vec<Vec<usize>> = chunks.lengths()[k..].to_vec();
        if points == 0 {
            let mut spec = vec![vec![0]];
            spec.extend(trailing);
            return Array::zeros(&[&[0][..], &shape[k..]].concat(), ChunkSpec::from(spec));
        }
        // Each point's position, checked: (input block, local position) per axis.
        let mut at: Vec<(usize, usize)> = Vec::with_capacity(points * k);
        for p in 0..points {
            for (a, list) in indices.iter().enumerate() {
                let i = list[if list.len() == 1 { 0 } else { p }];
                let n = shape[a] as isize;
                let g = if i < 0 { i + n } else { i };
                if !(0..n).contains(&g) {
                    return Err(Error::invalid("index", i, format!("is out of range for axis {a} of length {n} (point {p})")));
                }
                let b = chunks.block_of(a, g as usize);
                at.push((b, g as usize - chunks.offset(a, b)));
            }
        }
        // Points per output block: as many as an input block has positions
        // along the indexed axes.
        // (At most 2^31, so that a row number fits the order's u32s.)
        let per_block = (0..k).map(|a| chunks.lengths()[a].iter().copied().max().unwrap_or(1)).product::<usize>().clamp(1, 1 << 31);
        let grid = chunks.grid();
        let mut pieces: Vec<Piece> = Vec::new();
        let (mut first, mut count, mut order) = (Vec::new(), Vec::new(), Vec::new());
        // The piece of each input block (by its linear index over the indexed
        // axes) in the output block being built.
        let mut piece_of: std::collections::HashMap<usize, usize> = Default::default();
        for start in (0..points).step_by(per_block) {
            let end = (start + per_block).min(points);
            let first_piece = pieces.len();
            piece_of.clear();
            let mut rows = Vec::with_capacity(end - start);
            for point in at[start * k..end * k].chunks_exact(k) {
                let key = point.iter().zip(&grid).fold(0, |acc, (&(b, _), &g)| acc * g + b);
                let q = *piece_of.entry(key).or_insert_with(|| {
                    pieces.push(Piece { block: point.iter().map(|&(b, _)| b).collect(), local: Vec::new() });
                    pieces.len() - 1
                });
                let piece = &mut pieces[q];
                rows.push(((q - first_piece) as u32, (piece.local.len() / k) as u32));
                piece.local.extend(point.iter().map(|&(_, l)| l));
            }
            first.push(first_piece);
            count.push(pieces.len() - first_piece);
            order.push(rows);
        }
        let mut piece_lengths = vec![pieces.iter().map(|p| p.local.len() / k).collect::<Vec<_>>()];
        piece_lengths.extend(trailing.iter().cloned());
        let one_piece_each = count.iter().all(|&c| c == 1);
        let gathered = Array::from_node(Node::new(
            "vindex-gather",
            T::DTYPE,
            Chunks::from_lengths(piece_lengths),
            vec![self.node.clone()],
            GatherPoints::<T> { k, pieces, _t: std::marker::PhantomData },
        ));
        // An output block read from one input block is its piece already.
        if one_piece_each {
            return Ok(gathered);
        }
        let mut out_lengths = vec![order.iter().map(Vec::len).collect::<Vec<_>>()];
        out_lengths.extend(trailing);
        let op = AssemblePoints::<T> { first, count, order, _t: std::marker::PhantomData };
        Array::built(Node::new("vindex", T::DTYPE, Chunks::from_lengths(out_lengths), vec![gathered.node.clone()], op))
    }
}
