//! Point-wise indexing: `vindex` and `vindex_at` (dask's `x.vindex[...]`,
//! NumPy's `x[i, j]` with integer arrays): the elements at `(i[p], j[p])` for
//! every point `p`.
//!
//! In two layers, so that no task holds more than one input block or one
//! output block: each input block first gives the points of one output block
//! that fall in it (a "piece", in point order), and each output block then puts
//! its pieces' rows in point order. Only the blocks holding points are read.
//!
//! The index arrays broadcast together (NumPy's rules) and their broadcast
//! shape leads the result, whichever axes they index (dask's rule; NumPy keeps
//! it in place when the indexed axes are adjacent). Output blocks are runs of
//! consecutive points in C order, so they tile the broadcast shape directly:
//! no reshape, no second copy.

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::slicing::Idx;

/// One entry of a point-wise index expression (dask's `x.vindex[...]`).
///
/// ```
/// use chunked_array::{Array, Idx, VIdx};
/// let x = Array::from_vec(&[3, 3], (0..9).collect(), 2).unwrap();
/// // dask: x.vindex[[0, 2], 1], the elements x[0, 1] and x[2, 1]
/// let rows: &[isize] = &[0, 2];
/// let y = x.vindex_at(&[VIdx::from(rows), VIdx::Basic(Idx::Index(1))]).unwrap();
/// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[1, 7]);
/// ```
#[derive(Debug, Clone)]
pub enum VIdx<'a> {
    /// Integer indices of any shape (negative ones count from the end). All
    /// such entries broadcast together, and their broadcast shape leads the
    /// result.
    Points(ArrayViewD<'a, isize>),
    /// A slice, an integer (which drops its axis) or an ellipsis, applied
    /// before the points are taken. New axes are not taken.
    Basic(Idx),
}

impl From<Idx> for VIdx<'_> {
    fn from(i: Idx) -> Self {
        VIdx::Basic(i)
    }
}
impl<'a> From<&'a [isize]> for VIdx<'a> {
    fn from(i: &'a [isize]) -> Self {
        VIdx::Points(ndarray::ArrayView1::from(i).into_dyn())
    }
}
impl<'a> From<&'a Vec<isize>> for VIdx<'a> {
    fn from(i: &'a Vec<isize>) -> Self {
        i.as_slice().into()
    }
}
impl<'a> From<&'a ArrayD<isize>> for VIdx<'a> {
    fn from(i: &'a ArrayD<isize>) -> Self {
        VIdx::Points(i.view())
    }
}
impl<'a> From<ArrayViewD<'a, isize>> for VIdx<'a> {
    fn from(i: ArrayViewD<'a, isize>) -> Self {
        VIdx::Points(i)
    }
}

/// The points of one output block that lie in one input block.
struct Piece {
    /// The input block's index along the indexed axes.
    block: Vec<usize>,
    /// Per point, its position inside that block along the indexed axes
    /// (`axes.len()` numbers each, point after point).
    local: Vec<usize>,
}

/// Which input axes the points index, and how an output block's index splits
/// into its run of points and its block along the other axes.
struct PointAxes {
    /// The indexed input axes, ascending.
    axes: Vec<usize>,
    /// How many leading output axes number the runs of points (the broadcast
    /// shape's axes; 1 for the pieces' own grid).
    lead: usize,
}

impl PointAxes {
    /// The run of points (C-order block number over the leading axes) and the
    /// block index along the other axes.
    fn split<'a>(&self, chunks: &Chunks, idx: &'a [usize]) -> (usize, &'a [usize]) {
        let grid = chunks.grid();
        let run = idx[..self.lead].iter().zip(&grid).fold(0, |acc, (&i, &g)| acc * g + i);
        (run, &idx[self.lead..])
    }

    /// The input block holding `indexed` along the indexed axes and `rest`
    /// along the others.
    fn input_block(&self, ndim: usize, indexed: &[usize], rest: &[usize]) -> Vec<usize> {
        let (mut i, mut r) = (indexed.iter(), rest.iter());
        (0..ndim)
            .map(|a| *if self.axes.contains(&a) { i.next() } else { r.next() }.expect("one index per axis"))
            .collect()
    }
}

/// Gathers each piece's points from its input block: output block
/// `(run, t...)` holds piece `run`'s rows for the other axes' block `t`.
struct GatherPoints<T> {
    at: PointAxes,
    pieces: Vec<Piece>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for GatherPoints<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let (run, rest) = self.at.split(&node.chunks, idx);
        let input = &node.inputs[0].chunks;
        out.push((0, input.linear(&self.at.input_block(input.ndim(), &self.pieces[run].block, rest))));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let block = block_as::<T>(inputs[0], node, "vindex")?;
        let block = block.as_standard_layout();
        let k = self.at.axes.len();
        let (run, _) = self.at.split(&node.chunks, idx);
        let piece = &self.pieces[run];
        let shape = node.chunks.block_shape(idx);
        let mut out = crate::block::alloc::block_vec::<T>(shape.iter().product());
        let data = block.as_slice().expect("standard layout");
        let dims = block.shape();
        let strides: Vec<usize> = (0..dims.len()).map(|a| dims[a + 1..].iter().product()).collect();
        let strides_at: Vec<usize> = self.at.axes.iter().map(|&a| strides[a]).collect();
        let row: usize = (0..dims.len()).filter(|a| !self.at.axes.contains(a)).map(|a| dims[a]).product();
        if self.at.axes.iter().enumerate().all(|(i, &a)| i == a) {
            // Leading indexed axes: in C order each point's row of the other
            // axes is one run of `row` elements.
            for local in piece.local.chunks_exact(k) {
                let at: usize = local.iter().zip(&strides_at).map(|(l, s)| l * s).sum();
                out.extend_from_slice(&data[at..at + row]);
            }
        } else {
            // Indexed axes after others: each point's row is at the same
            // offsets from the point's own position.
            let mut offsets = vec![0usize];
            for a in (0..dims.len()).filter(|a| !self.at.axes.contains(a)) {
                let stride = strides[a];
                offsets = offsets.iter().flat_map(|&o| (0..dims[a]).map(move |i| o + i * stride)).collect();
            }
            for local in piece.local.chunks_exact(k) {
                let at: usize = local.iter().zip(&strides_at).map(|(l, s)| l * s).sum();
                out.extend(offsets.iter().map(|&o| data[at + o]));
            }
        }
        Ok(Arc::new(
            ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| Error::invalid("block", idx, e.to_string()))?,
        ))
    }
}

/// Puts each output block's rows in point order: `order[o]` lists, per point
/// of output block `o`, (its piece among `first[o]..`, its row in the piece).
struct AssemblePoints<T> {
    at: PointAxes,
    first: Vec<usize>,
    count: Vec<usize>,
    order: Vec<Vec<(u32, u32)>>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for AssemblePoints<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let (run, rest) = self.at.split(&node.chunks, idx);
        let mut b = vec![0];
        b.extend_from_slice(rest);
        for q in self.first[run]..self.first[run] + self.count[run] {
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
                Ok(a.as_slice()
                    .map_or_else(|| a.iter().copied().collect::<Vec<_>>().into(), std::borrow::Cow::Borrowed))
            })
            .collect::<Result<_>>()?;
        let (run, _) = self.at.split(&node.chunks, idx);
        let shape = node.chunks.block_shape(idx);
        let row: usize = shape[self.at.lead..].iter().product();
        let mut out = crate::block::alloc::block_vec::<T>(shape.iter().product());
        for &(q, r) in &self.order[run] {
            let (q, r) = (q as usize, r as usize);
            out.extend_from_slice(&pieces[q][r * row..(r + 1) * row]);
        }
        Ok(Arc::new(
            ArrayD::from_shape_vec(IxDyn(&shape), out).map_err(|e| Error::invalid("block", idx, e.to_string()))?,
        ))
    }
}

/// NumPy's broadcast shape of the index arrays, or an `Err` naming their shapes.
fn broadcast_shape(arrays: &[ArrayViewD<'_, isize>]) -> Result<Vec<usize>> {
    let ndim = arrays.iter().map(|a| a.ndim()).max().unwrap_or(0);
    let mut shape = vec![1usize; ndim];
    for a in arrays {
        for (s, &n) in shape[ndim - a.ndim()..].iter_mut().zip(a.shape()) {
            if *s == 1 {
                *s = n;
            } else if n != 1 && n != *s {
                let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
                return Err(Error::invalid(
                    "index arrays",
                    format!("{shapes:?}"),
                    "have shapes that do not broadcast together",
                ));
            }
        }
    }
    Ok(shape)
}

/// Blocks of the broadcast shape `lead` that are runs of consecutive points in
/// C order, about `per_block` points each: one axis `j` carries the blocks,
/// the axes before it are cut into single rows and those after it kept whole.
fn point_runs(lead: &[usize], per_block: usize) -> Vec<Vec<usize>> {
    let inner = |j: usize| lead[j + 1..].iter().product::<usize>();
    // The last axis always qualifies (its inner size is 1); a 0-d shape has
    // no axes to cut.
    let Some(j) = (0..lead.len()).find(|&j| inner(j) <= per_block) else {
        return Vec::new();
    };
    let step = (per_block / inner(j).max(1)).max(1);
    lead.iter()
        .enumerate()
        .map(|(a, &n)| match a.cmp(&j) {
            std::cmp::Ordering::Less => vec![1; n],
            std::cmp::Ordering::Equal => {
                let mut v = vec![step; n / step];
                if !n.is_multiple_of(step) {
                    v.push(n % step);
                }
                v
            }
            std::cmp::Ordering::Greater => vec![n],
        })
        .collect()
}

impl<T: Element> Array<T> {
    /// The elements at points (dask's `x.vindex[i, j]`; NumPy's `x[i, j]` with
    /// 1-d integer arrays): `indices[a][p]` is point `p`'s index along axis `a`
    /// for the first `indices.len()` axes, so the result has shape
    /// `(points, shape[indices.len()..])`. Negative indices count from the end;
    /// a list of one index is repeated for every point (NumPy's broadcasting).
    /// [`Array::vindex_at`] takes index arrays of any shape, slices and
    /// integers.
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
        let ndim = self.ndim();
        if indices.is_empty() || indices.len() > ndim {
            return Err(Error::invalid(
                "indices",
                indices.len(),
                format!("need one index list per indexed axis, 1 to {ndim} of them"),
            ));
        }
        let index: Vec<VIdx<'_>> = indices.iter().map(|&l| l.into()).collect();
        self.vindex_at(&index)
    }

    /// Point-wise indexing with dask's whole `x.vindex[...]`: one entry per
    /// axis (an [`Idx::Ellipsis`] stands for the axes not named), each either
    /// index arrays ([`VIdx::Points`]: any shape, all of them broadcast
    /// together) or a basic index ([`VIdx::Basic`]: a slice, or an integer
    /// that drops its axis). The slices and integers are applied first; the
    /// result then has the broadcast shape first, followed by the axes not
    /// indexed by arrays, in order. (NumPy keeps the broadcast axes in place
    /// when the arrays index adjacent axes; dask, and this, always put them
    /// first.) Without index arrays this is [`Array::slice`].
    ///
    /// The index arrays are read once, when the graph is built, and the graph
    /// keeps 8 bytes per point per indexed axis. Output blocks are runs of
    /// consecutive points holding about as many points as an input block has
    /// positions along the indexed axes; only the input blocks holding points
    /// are read, and no task holds more than one input block or one output
    /// block.
    ///
    /// ```
    /// use chunked_array::{Array, Idx, VIdx};
    /// use ndarray::{arr2, ArrayD};
    /// let x = Array::<i64>::arange(0, 60, 1, 7).unwrap().reshape(&[3, 4, 5]).unwrap();
    /// // x[:, rows, cols] with 2 x 2 index arrays: shape (2, 2, 3).
    /// let rows: ArrayD<isize> = arr2(&[[0, 1], [2, 3]]).into_dyn();
    /// let cols: ArrayD<isize> = arr2(&[[4], [0]]).into_dyn();
    /// let y = x.vindex_at(&[Idx::FULL.into(), VIdx::from(&rows), VIdx::from(&cols)]).unwrap();
    /// assert_eq!(y.shape(), vec![2, 2, 3]);
    /// let y = y.compute().unwrap();
    /// assert_eq!(y[[1, 0, 2]], 2 * 20 + 2 * 5); // x[2, 2, 0]
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more entries than axes, more than one
    /// ellipsis, a new axis, index arrays whose shapes do not broadcast (naming
    /// them), an index out of range (naming it, its axis and its point), and
    /// the errors of [`Array::slice`] for the basic entries.
    pub fn vindex_at(&self, index: &[VIdx<'_>]) -> Result<Array<T>> {
        self.check()?;
        let ndim = self.ndim();
        let ellipses = index.iter().filter(|i| matches!(i, VIdx::Basic(Idx::Ellipsis))).count();
        let named = index.len() - ellipses;
        if ellipses > 1 || named > ndim {
            return Err(Error::invalid(
                "index",
                index.len(),
                format!(
                    "has {named} entries and {ellipses} ellipses for an array of {ndim} dimensions (at most one ellipsis)"
                ),
            ));
        }
        if index.iter().any(|i| matches!(i, VIdx::Basic(Idx::NewAxis))) {
            return Err(Error::invalid(
                "index",
                "NewAxis",
                "is not taken by vindex: add the axis to the result with expand_dims",
            ));
        }
        // Per input axis: the basic index to apply first, and the points (if any).
        let mut basic: Vec<Idx> = Vec::with_capacity(ndim);
        let mut points: Vec<(usize, ArrayViewD<'_, isize>)> = Vec::new();
        for entry in index {
            match entry {
                VIdx::Basic(Idx::Ellipsis) => {
                    basic.extend(std::iter::repeat_n(Idx::FULL, ndim - named));
                }
                VIdx::Basic(i) => {
                    basic.push(*i);
                }
                VIdx::Points(p) => {
                    // Axis numbers before slicing, for the error messages.
                    points.push((basic.len(), p.view()));
                    basic.push(Idx::FULL);
                }
            }
        }
        basic.resize(ndim, Idx::FULL);
        let sliced = if basic.iter().all(|&i| i == Idx::FULL) { self.clone() } else { self.slice(&basic)? };
        if points.is_empty() {
            return Ok(sliced);
        }
        // The indexed axes of the sliced array: integers before them dropped theirs.
        let axes: Vec<usize> =
            points.iter().map(|&(a, _)| a - basic[..a].iter().filter(|i| matches!(i, Idx::Index(_))).count()).collect();
        let arrays: Vec<ArrayViewD<'_, isize>> = points.iter().map(|(_, p)| p.view()).collect();
        let lead = broadcast_shape(&arrays)?;
        let lists: Vec<Vec<isize>> = arrays
            .iter()
            .map(|a| a.broadcast(IxDyn(&lead)).expect("broadcast shape checked").iter().copied().collect())
            .collect();
        let original: Vec<usize> = points.iter().map(|&(a, _)| a).collect();
        sliced.points(&axes, &original, &lists, &lead)
    }

    /// The rows at the points `lists[i][p]` along `axes[i]` (ascending), in
    /// C order of the broadcast shape `lead`; `original` names the axes in
    /// error messages.
    fn points(&self, axes: &[usize], original: &[usize], lists: &[Vec<isize>], lead: &[usize]) -> Result<Array<T>> {
        let shape = self.shape();
        let chunks = self.chunks();
        let k = axes.len();
        let count: usize = lead.iter().product();
        let rest: Vec<usize> = (0..shape.len()).filter(|a| !axes.contains(a)).collect();
        let rest_chunks: Vec<Vec<usize>> = rest.iter().map(|&a| chunks.lengths()[a].clone()).collect();
        if count == 0 {
            let mut spec: Vec<Vec<usize>> = lead.iter().map(|&n| vec![n]).collect();
            spec.extend(rest_chunks);
            let out_shape: Vec<usize> = lead.iter().copied().chain(rest.iter().map(|&a| shape[a])).collect();
            return Array::zeros(&out_shape, ChunkSpec::from(spec));
        }
        let at = locate_points(chunks, axes, original, lists, lead)?;
        // Points per output block: about as many as an input block has
        // positions along the indexed axes (at most 2^31, so that a row
        // number fits the order's u32s).
        let per_block = axes
            .iter()
            .map(|&a| chunks.lengths()[a].iter().copied().max().unwrap_or(1))
            .product::<usize>()
            .clamp(1, 1 << 31);
        let lead_chunks = point_runs(lead, per_block);
        let lead_grid = Chunks::from_lengths(lead_chunks.clone());
        let runs: Vec<usize> = (0..lead_grid.num_blocks())
            .map(|b| lead_grid.block_shape(&lead_grid.unravel(b)).iter().product())
            .collect();
        let grid = chunks.grid();
        let mut pieces: Vec<Piece> = Vec::new();
        let (mut first, mut counts, mut order) = (Vec::new(), Vec::new(), Vec::new());
        // The piece of each input block (by its linear index over the indexed
        // axes) in the output block being built.
        let mut piece_of: std::collections::HashMap<usize, usize> = Default::default();
        let mut start = 0;
        for &len in &runs {
            let end = start + len;
            let first_piece = pieces.len();
            piece_of.clear();
            let mut rows = Vec::with_capacity(len);
            for point in at[start * k..end * k].chunks_exact(k) {
                let key = point.iter().zip(axes).fold(0, |acc, (&(b, _), &a)| acc * grid[a] + b);
                let q = *piece_of.entry(key).or_insert_with(|| {
                    pieces.push(Piece { block: point.iter().map(|&(b, _)| b).collect(), local: Vec::new() });
                    pieces.len() - 1
                });
                let piece = &mut pieces[q];
                rows.push(((q - first_piece) as u32, (piece.local.len() / k) as u32));
                piece.local.extend(point.iter().map(|&(_, l)| l));
            }
            first.push(first_piece);
            counts.push(pieces.len() - first_piece);
            order.push(rows);
            start = end;
        }
        let mut out_lengths = lead_chunks;
        out_lengths.extend(rest_chunks.iter().cloned());
        // An output block read from one input block is its piece already.
        if counts.iter().all(|&c| c == 1) {
            let at = PointAxes { axes: axes.to_vec(), lead: lead.len() };
            let op = GatherPoints::<T> { at, pieces, _t: std::marker::PhantomData };
            return Array::built(Node::new(
                "vindex",
                T::DTYPE,
                Chunks::from_lengths(out_lengths),
                vec![self.node.clone()],
                op,
            ));
        }
        let mut piece_lengths = vec![pieces.iter().map(|p| p.local.len() / k).collect::<Vec<_>>()];
        piece_lengths.extend(rest_chunks);
        let gathered = Array::<T>::from_node(Node::new(
            "vindex-gather",
            T::DTYPE,
            Chunks::from_lengths(piece_lengths),
            vec![self.node.clone()],
            GatherPoints::<T> { at: PointAxes { axes: axes.to_vec(), lead: 1 }, pieces, _t: std::marker::PhantomData },
        ));
        let at = PointAxes { axes: axes.to_vec(), lead: lead.len() };
        let op = AssemblePoints::<T> { at, first, count: counts, order, _t: std::marker::PhantomData };
        Array::built(Node::new("vindex", T::DTYPE, Chunks::from_lengths(out_lengths), vec![gathered.node.clone()], op))
    }
}

/// Each point's place, checked: (input block, position in it) per indexed
/// axis, `axes.len()` entries per point in C order of `lead`; an index out of
/// range is an error naming the point (`original` numbers the axes).
fn locate_points(
    chunks: &Chunks,
    axes: &[usize],
    original: &[usize],
    lists: &[Vec<isize>],
    lead: &[usize],
) -> Result<Vec<(usize, usize)>> {
    let shape = chunks.shape();
    let count: usize = lead.iter().product();
    let k = axes.len();
    let at_point = |p: usize| -> String {
        if lead.len() == 1 {
            return format!("point {p}");
        }
        let mut i = vec![0; lead.len()];
        let mut r = p;
        for (a, &n) in lead.iter().enumerate().rev() {
            i[a] = r % n;
            r /= n;
        }
        format!("point {p}, at {i:?} of the broadcast index arrays")
    };
    let mut at: Vec<(usize, usize)> = Vec::with_capacity(count * k);
    for p in 0..count {
        for ((&a, list), &named) in axes.iter().zip(lists).zip(original) {
            let i = list[p];
            let n = shape[a] as isize;
            let g = if i < 0 { i + n } else { i };
            if !(0..n).contains(&g) {
                return Err(Error::invalid(
                    "index",
                    i,
                    format!("is out of range for axis {named} of length {n} ({})", at_point(p)),
                ));
            }
            let b = chunks.block_of(a, g as usize);
            at.push((b, g as usize - chunks.offset(a, b)));
        }
    }
    Ok(at)
}
