//! `map_blocks`: a user function applied to every block.

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// Where a block sits, as dask's `block_info` tells a `map_blocks` function.
///
/// ```
/// use chunked_array::{Array, ndarray::ArrayD};
/// let x = Array::<i64>::zeros(&[5], 2).unwrap(); // blocks of 2, 2 and 1
/// // dask: x.map_blocks(f) where f takes block_info=
/// let y = x.map_blocks(|b, info| {
///     assert_eq!((info.grid, info.array_shape, info.halo), (&[3][..], &[5][..], &[(0, 0)][..]));
///     ArrayD::from_shape_fn(b.raw_dim(), |i| (10 * info.index[0] + info.start[0] + i[0]) as i64)
/// }, None).unwrap();
/// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[0, 1, 12, 13, 24]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockInfo<'a> {
    /// The block's multi-index in the grid.
    pub index: &'a [usize],
    /// Number of blocks along each axis.
    pub grid: &'a [usize],
    /// Global index of the block's first element (of the input block).
    pub start: &'a [usize],
    /// The whole input array's shape.
    pub array_shape: &'a [usize],
    /// The shape the function must return for this block.
    pub out_shape: &'a [usize],
    /// Per axis, how many positions of the block the function sees lie before
    /// and after the block's own: `map_overlap`'s halos (fewer at a
    /// `Boundary::None` edge); `(0, 0)` for `map_blocks`.
    pub halo: &'a [(usize, usize)],
}

/// The typed body of a `map_blocks` layer: its input blocks to its block.
pub(crate) type Body<U> = Arc<dyn Fn(&Node, &[&Block], &BlockInfo<'_>) -> Result<ArrayD<U>> + Send + Sync>;

/// `map_blocks` over one or more inputs cut on one grid: block `idx` reads
/// block `idx` of every input.
struct MapMany<U> {
    body: Body<U>,
}

impl<U: Element> BlockOp for MapMany<U> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.extend(node.inputs.iter().enumerate().map(|(k, input)| (k, input.chunks.linear(idx))));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let grid = &node.inputs[0].chunks;
        let out_shape = node.chunks.block_shape(idx);
        let info = BlockInfo {
            index: idx,
            grid: &grid.grid(),
            start: &grid.block_start(idx),
            array_shape: &grid.shape(),
            out_shape: &out_shape,
            halo: &vec![(0, 0); idx.len()],
        };
        let out = (self.body)(node, inputs, &info)?;
        if out.shape() != out_shape.as_slice() {
            return Err(Error::shape(
                "map_blocks result (declared block shape, returned shape)",
                &out_shape,
                out.shape(),
            ));
        }
        Ok(Arc::new(out))
    }
}

/// The `map_blocks` layer of `body` over `inputs` (cut on `grid`), its
/// blocks as `out_chunks` declares (default: `grid`).
pub(crate) fn map_many_layer<U: Element>(
    body: Body<U>,
    inputs: Vec<Arc<Node>>,
    grid: &Chunks,
    out_chunks: Option<ChunkSpec>,
) -> Result<Array<U>> {
    let out = match out_chunks {
        None => grid.clone(),
        Some(spec) => explicit_chunks(spec, grid, U::DTYPE)?,
    };
    Array::built(Node::new("map_blocks", U::DTYPE, out, inputs, MapMany { body }))
}

impl<T: Element> Array<T> {
    /// Applies `f` to every block (dask's `map_blocks`). `f` gets the block as an
    /// ndarray view and a [`BlockInfo`], and must return the block of the result.
    /// `out_chunks` declares the result's chunks (default: this array's); it must
    /// have the same number of blocks along every axis (and the same number of
    /// axes or not, as `f` decides).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::ones(&[6, 4], [3, 2]).unwrap();
    /// // Each block becomes its row sums, scaled by the block's row index.
    /// let y = x
    ///     .map_blocks(|b, info| b.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1)) * info.index[0] as f64,
    ///                 Some(vec![vec![3, 3], vec![1, 1]].into()))
    ///     .unwrap();
    /// assert_eq!(y.shape(), vec![6, 2]);
    /// assert_eq!(y.sum(None).unwrap().compute_scalar().unwrap(), 12.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when `out_chunks` has a different number of blocks;
    /// at compute time, [`Error::Task`] naming the block when `f` returns a block
    /// of another shape than declared.
    pub fn map_blocks<U, F>(&self, f: F, out_chunks: Option<ChunkSpec>) -> Result<Array<U>>
    where
        U: Element,
        F: Fn(ArrayViewD<'_, T>, &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
    {
        self.try_map_blocks(move |b, info| Ok(f(b, info)), out_chunks)
    }

    /// [`Array::map_blocks`] with a function that can fail: its `Err` is the
    /// task's error (naming the block), and the compute returns it.
    ///
    /// ```
    /// use chunked_array::{Array, Error};
    /// let x = Array::<f64>::from_vec(&[4], vec![1.0, 4.0, -1.0, 9.0], 2).unwrap();
    /// let roots = x.try_map_blocks(
    ///     |b, _| match b.iter().find(|v| **v < 0.0) {
    ///         Some(v) => Err(Error::InvalidArgument { name: "value".into(), value: v.to_string(), reason: "has no real square root".into() }),
    ///         None => Ok(b.mapv(f64::sqrt)),
    ///     },
    ///     None,
    /// ).unwrap();
    /// assert!(roots.compute().unwrap_err().to_string().contains("-1"));
    /// ```
    ///
    /// # Errors
    /// As [`Array::map_blocks`], and `f`'s errors at compute time.
    pub fn try_map_blocks<U, F>(&self, f: F, out_chunks: Option<ChunkSpec>) -> Result<Array<U>>
    where
        U: Element,
        F: Fn(ArrayViewD<'_, T>, &BlockInfo<'_>) -> Result<ArrayD<U>> + Send + Sync + 'static,
    {
        self.check()?;
        let body: Body<U> =
            Arc::new(move |node, blocks, info| f(block_as::<T>(blocks[0], node, "map_blocks")?.view(), info));
        map_many_layer(body, vec![self.node.clone()], self.chunks(), out_chunks)
    }
}

/// Declared output chunks: explicit per-axis lists whose block counts match the
/// input grid (axes beyond the input's must have one block).
fn explicit_chunks(spec: ChunkSpec, input: &Chunks, dtype: crate::element::DType) -> Result<Chunks> {
    let lists = spec.explicit_lists().ok_or_else(|| Error::BadChunks {
        axis: usize::MAX,
        message: "map_blocks needs explicit block lengths per axis for its output".into(),
    })?;
    let grid = input.grid();
    for (axis, l) in lists.iter().enumerate() {
        let want = grid.get(axis).copied().unwrap_or(1);
        if l.len() != want {
            return Err(Error::BadChunks {
                axis,
                message: format!("{} output blocks declared, the input has {want} along this axis", l.len()),
            });
        }
    }
    if lists.len() < grid.len() && grid[lists.len()..].iter().any(|&g| g != 1) {
        return Err(Error::BadChunks {
            axis: lists.len(),
            message: format!(
                "the output drops an axis of {} blocks; only one-block axes can be dropped",
                grid[lists.len()]
            ),
        });
    }
    // The usual validation of explicit lengths (each axis' lengths sum to it;
    // a block may be empty, as a filtering function's can be).
    let shape: Vec<usize> = lists.iter().map(|l| l.iter().sum()).collect();
    spec.resolve(&shape, dtype)
}

/// One input of [`blockwise`]: an array and its index letters (`"ij"`).
pub type Indexed<'a, T> = (&'a Array<T>, &'a str);

struct Blockwise<T, U, F> {
    /// Per input, per axis: the output axis its block index follows (None: the
    /// axis is contracted, one block).
    follow: Vec<Vec<Option<usize>>>,
    f: F,
    _t: std::marker::PhantomData<fn(T) -> U>,
}

impl<T: Element, U: Element, F> BlockOp for Blockwise<T, U, F>
where
    F: Fn(&[ArrayViewD<'_, T>]) -> ArrayD<U> + Send + Sync + 'static,
{
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        for (k, axes) in self.follow.iter().enumerate() {
            let b: Vec<usize> = axes.iter().map(|f| f.map_or(0, |o| idx[o])).collect();
            out.push((k, node.inputs[k].chunks.linear(&b)));
        }
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let views: Vec<ArrayViewD<'_, T>> =
            inputs.iter().map(|b| block_as::<T>(b, node, "blockwise").map(|a| a.view())).collect::<Result<_>>()?;
        let out = (self.f)(&views);
        let shape = node.chunks.block_shape(idx);
        if out.shape() != shape.as_slice() {
            return Err(Error::shape("blockwise result (declared block shape, returned shape)", &shape, out.shape()));
        }
        Ok(Arc::new(out))
    }
}

/// The general blockwise builder (dask's `blockwise` with `concatenate=True`):
/// index letters name axes; an output block combines the input blocks with the
/// same letters' block indices; letters absent from `out_index` are contracted,
/// and `f` sees those axes whole. `new_axes` gives the length of output letters
/// that no input has (one block each). Inputs are rechunked so that every letter
/// has one grid (the common refinement of what the inputs had).
///
/// ```
/// use chunked_array::{blockwise, Array};
/// // Row sums of a times column sums of b, as an outer product: out[i, j].
/// let a = Array::<f64>::ones(&[4, 3], 2).unwrap();
/// let b = Array::<f64>::ones(&[3, 6], [3, 2]).unwrap();
/// let out = blockwise(
///     |v| {
///         let r = v[0].sum_axis(ndarray::Axis(1));
///         let c = v[1].sum_axis(ndarray::Axis(0));
///         ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[r.len(), c.len()]), |i| r[[i[0]]] * c[[i[1]]])
///     },
///     "ij",
///     &[(&a, "ik"), (&b, "kj")],
///     &[],
/// ).unwrap();
/// assert_eq!(out.shape(), vec![4, 6]);
/// assert_eq!(out.sum(None).unwrap().compute_scalar().unwrap(), 4.0 * 6.0 * 9.0);
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for index strings that do not match the inputs'
/// dimensions, repeated output letters, or output letters with no length;
/// [`Error::ShapeMismatch`] when one letter has two lengths.
pub fn blockwise<T, U, F>(
    f: F,
    out_index: &str,
    inputs: &[Indexed<'_, T>],
    new_axes: &[(char, usize)],
) -> Result<Array<U>>
where
    T: Element,
    U: Element,
    F: Fn(&[ArrayViewD<'_, T>]) -> ArrayD<U> + Send + Sync + 'static,
{
    let out: Vec<char> = out_index.chars().collect();
    for (k, &c) in out.iter().enumerate() {
        if out[..k].contains(&c) {
            return Err(Error::invalid("out_index", out_index, format!("repeats '{c}'")));
        }
    }
    let mut length: std::collections::BTreeMap<char, (usize, Vec<usize>)> = Default::default();
    for (a, idx) in inputs {
        a.check()?;
        let letters: Vec<char> = idx.chars().collect();
        if letters.len() != a.ndim() {
            return Err(Error::invalid(
                "index",
                *idx,
                format!("names {} axes of an array with {}", letters.len(), a.ndim()),
            ));
        }
        for (ax, &c) in letters.iter().enumerate() {
            let n = a.shape()[ax];
            match length.get_mut(&c) {
                Some((m, bounds)) => {
                    if *m != n {
                        return Err(Error::shape(&format!("blockwise (letter '{c}')"), &[*m], &[n]));
                    }
                    let merged = crate::chunks::refine(&[bounds.as_slice(), a.chunks().boundaries(ax)]);
                    let mut acc = 0;
                    *bounds = std::iter::once(0)
                        .chain(merged.iter().map(|l| {
                            acc += l;
                            acc
                        }))
                        .collect();
                }
                None => {
                    length.insert(c, (n, a.chunks().boundaries(ax).to_vec()));
                }
            }
        }
    }
    let lengths_of = |c: char| -> Option<Vec<usize>> {
        length
            .get(&c)
            .map(|(_, b)| b.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>())
            .map(|v| if v.is_empty() { vec![0] } else { v })
    };
    let mut out_lengths = Vec::with_capacity(out.len());
    for &c in &out {
        match (lengths_of(c), new_axes.iter().find(|(l, _)| *l == c)) {
            (Some(l), _) => out_lengths.push(l),
            (None, Some(&(_, n))) => out_lengths.push(vec![n]),
            (None, None) => {
                return Err(Error::invalid(
                    "out_index",
                    out_index,
                    format!("letter '{c}' has no length: give it in new_axes"),
                ));
            }
        }
    }
    // Rechunk every input to the unified grid (contracted letters whole).
    let mut nodes = Vec::with_capacity(inputs.len());
    let mut follow = Vec::with_capacity(inputs.len());
    for (a, idx) in inputs {
        let letters: Vec<char> = idx.chars().collect();
        let spec: Vec<Vec<usize>> = letters
            .iter()
            .enumerate()
            .map(|(ax, &c)| if out.contains(&c) { lengths_of(c).expect("known letter") } else { vec![a.shape()[ax]] })
            .collect();
        let aligned = a.rechunk(ChunkSpec::from(spec))?;
        nodes.push(aligned.node.clone());
        follow.push(letters.iter().map(|c| out.iter().position(|o| o == c)).collect());
    }
    let op = Blockwise::<T, U, F> { follow, f, _t: std::marker::PhantomData };
    Array::built(Node::new("blockwise", U::DTYPE, Chunks::from_lengths(out_lengths), nodes, op))
}

/// A check of a block's values: `Err` makes the task fail with it.
type BlockCheck<T> = Arc<dyn Fn(&ArrayD<T>) -> Result<()> + Send + Sync>;

/// `a` with each block passed through `check` (the blocks themselves, not
/// copies), for errors that only the values show (an index out of range).
pub(crate) fn checked<T: Element>(
    a: &Array<T>,
    name: &str,
    check: impl Fn(&ArrayD<T>) -> Result<()> + Send + Sync + 'static,
) -> Result<Array<T>> {
    let op = Checked::<T>(Arc::new(check));
    Array::built(Node::new(name, T::DTYPE, a.chunks().clone(), vec![a.node.clone()], op))
}

struct Checked<T>(BlockCheck<T>);

impl<T: Element> BlockOp for Checked<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }

    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        (self.0)(block_as::<T>(inputs[0], node, "checked")?)?;
        Ok(inputs[0].clone())
    }
}
