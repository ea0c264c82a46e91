//! Full-shape selections, whose lengths are known only once computed: `masked`
//! (NumPy's `x[mask]`), `argwhere` and `nonzero`.
//!
//! dask leaves such lengths unknown (NaN chunks) until `compute_chunk_sizes`.
//! Here the building call finds them, so that every later operation sees known
//! blocks. The array is made one block wide past its first axis (C order, as
//! dask's `ravel` does), and one run selects in every row block:
//! - when the whole selection fits in the block-size limit, that run's blocks
//!   are the result, held in memory (one pass in all: the common case of a
//!   sparse selection);
//! - past the limit the run stops, the per-block counts are taken from the mask
//!   alone, and the result is a lazy layer that selects again when computed
//!   (the mask is computed twice, and nothing larger than the limit is held).
//!
//! The building run uses the [`Context`] it is given (the `_with` forms take
//! one; the others use the default): its
//! scheduler, memory limit and observers, as any compute would. Over several
//! processes (MPI) every process builds the same graph and so needs the same
//! lengths: the processes count together, rank 0's counts are shared with all,
//! and the selection is always the lazy, counted layer (its blocks then live
//! where the scheduler runs them, not all on the building process).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks, DEFAULT_AUTO_BYTES};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::exec::Context;
use crate::exec::{Collector, Hold};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::slicing::Idx;

/// Each row block's selected elements, flattened in C order.
struct Masked<T> {
    /// Whether the layer's chunks are the counts (checked against what the
    /// mask gives now), or only bounds (the probing run).
    counted: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Masked<T> {
    fn deps(&self, _: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, idx[0]));
        out.push((1, idx[0]));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let x = block_as::<T>(inputs[0], node, "masked values")?;
        let m = block_as::<bool>(inputs[1], node, "mask")?;
        // Flat C-order slices: IxDyn iterators step an index per element.
        let (x, m) = (x.as_standard_layout(), m.as_standard_layout());
        let (values, keeps) = (x.as_slice().expect("standard layout"), m.as_slice().expect("standard layout"));
        let picked: Vec<T> = values.iter().zip(keeps).filter(|&(_, &keep)| keep).map(|(&v, _)| v).collect();
        let n = picked.len();
        check_count(self.counted, node, idx, n)?;
        Ok(Arc::new(ArrayD::from_shape_vec(IxDyn(&[n]), picked).expect("1-d")))
    }
}

/// The coordinates of each row block's trues, in C order, as rows of a
/// (count, ndim) block.
struct Coordinates {
    /// As [`Masked::counted`].
    counted: bool,
}

impl BlockOp for Coordinates {
    fn deps(&self, _: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, idx[0]));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let m = block_as::<bool>(inputs[0], node, "argwhere mask")?;
        let first_row = node.inputs[0].chunks.offset(0, idx[0]);
        let dims = m.shape();
        let mut coords: Vec<i64> = Vec::new();
        let mut push = |at: &[usize]| {
            coords.push((first_row + at[0]) as i64);
            coords.extend(at[1..].iter().map(|&i| i as i64));
        };
        // C-order memory (a copy only for a block in another layout, which
        // the elementwise `ne` before this layer never makes): scan 64 flags
        // at a time (a branch-free OR the compiler vectorizes) and turn only
        // the trues' flat offsets into coordinates, which a sparse mask makes
        // the rare case.
        let standard = m.as_standard_layout();
        let flat = standard.as_slice().expect("standard layout");
        let mut at = vec![0usize; dims.len()];
        const RUN: usize = 64;
        for (r, run) in flat.chunks(RUN).enumerate() {
            if !run.iter().fold(false, |any, &keep| any | keep) {
                continue;
            }
            for (k, _) in run.iter().enumerate().filter(|&(_, &keep)| keep) {
                let mut f = r * RUN + k;
                for a in (0..dims.len()).rev() {
                    at[a] = f % dims[a];
                    f /= dims[a];
                }
                push(&at);
            }
        }
        let n = coords.len() / dims.len();
        check_count(self.counted, node, idx, n)?;
        let out = ArrayD::from_shape_vec(IxDyn(&[n, dims.len()]), coords).expect("n rows of ndim");
        Ok(Arc::new(out))
    }
}

/// A counted layer's block must select as many elements as were counted: a
/// mask that changes between runs (a non-deterministic `from_fn`) is an error,
/// not a block of the wrong shape.
fn check_count(counted: bool, node: &Node, idx: &[usize], n: usize) -> Result<()> {
    let expected = node.chunks.lengths()[0][idx[0]];
    if counted && n != expected {
        return Err(Error::invalid(
            "selection block",
            idx,
            format!("selects {n} elements where the mask counted {expected}: the mask changed between runs"),
        ));
    }
    Ok(())
}

/// The chunk spec one block wide past axis 0, with row blocks from `rows` cut
/// so that a block of `bytes_per_element` elements stays under the limit (a
/// single row over it still makes one block).
fn row_blocks(rows: &[usize], shape: &[usize], bytes_per_element: usize, block_size_limit: usize) -> ChunkSpec {
    let row_bytes = shape[1..].iter().product::<usize>().saturating_mul(bytes_per_element.max(1));
    let max_rows = (block_size_limit / row_bytes.max(1)).max(1);
    let rows: Vec<usize> = rows.iter().flat_map(|&r| crate::chunks::even_pieces(r, max_rows)).collect();
    // Empty row blocks (a selection's blocks that selected nothing) are
    // dropped: they would only make empty tasks.
    let rows = if rows.is_empty() { vec![0] } else { rows };
    let mut lengths = vec![rows];
    lengths.extend(shape[1..].iter().map(|&n| vec![n]));
    ChunkSpec::from(lengths)
}

/// The number of trues in each row block of a row-blocked mask (one run of
/// the mask's graph in `ctx`), on every process of the run.
fn counts_of(m: &Array<bool>, ctx: &Context) -> Result<Vec<usize>> {
    let axes: Vec<isize> = (1..m.ndim() as isize).collect();
    let per_row = m.astype::<i64>().sum(crate::ops::reduce::ReduceOptions::axes(axes))?;
    let counts = per_row.compute_root(ctx)?.map(|per_row| {
        m.chunks()
            .boundaries(0)
            .windows(2)
            .map(|w| per_row.iter().skip(w[0]).take(w[1] - w[0]).sum::<i64>() as u64)
            .collect::<Vec<u64>>()
    });
    let counts = crate::exec::shared_from_root(
        ctx,
        counts,
        |c| c.iter().flat_map(|n| n.to_le_bytes()).collect(),
        |bytes| bytes.chunks_exact(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes"))).collect(),
    );
    let rows = m.chunks().lengths()[0].len();
    if counts.len() != rows {
        return Err(Error::invalid(
            "selection counts",
            counts.len(),
            format!("rank 0 shared counts for {rows} row blocks"),
        ));
    }
    counts
        .into_iter()
        .map(|n| usize::try_from(n).map_err(|_| Error::invalid("selection count", n, "past usize")))
        .collect()
}

/// How a selection whose length depends on the data ([`Array::masked_with`],
/// [`Array::argwhere_with`], [`Array::nonzero_with`]) is built.
///
/// ```
/// use chunked_array::{Array, Context, SelectOptions};
/// let x = Array::<i64>::arange(0, 100, 1, 10).unwrap();
/// // Counted on one thread, within 64 MiB, the selection kept if at most 1 MiB.
/// let opts = SelectOptions { block_size_limit: 1 << 20 };
/// let ctx = Context::sync().with_memory_limit(64 << 20);
/// let big = x.masked_with(&x.gt(89).unwrap(), &opts, &ctx).unwrap();
/// assert_eq!(big.compute().unwrap().iter().copied().collect::<Vec<_>>(), (90..100).collect::<Vec<_>>());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectOptions {
    /// The most bytes of one row block (the array is rechunked one block wide
    /// past its first axis), and of a selection computed and kept while
    /// building (default [`DEFAULT_AUTO_BYTES`], 128 MiB).
    pub block_size_limit: usize,
}

impl Default for SelectOptions {
    fn default() -> Self {
        SelectOptions { block_size_limit: DEFAULT_AUTO_BYTES }
    }
}

/// Holds a run's blocks (as `persist` does) while their bytes stay within a
/// budget; past it, stops the run (its error is recognised by `over`).
struct Bounded {
    budget: usize,
    bytes: AtomicUsize,
    over: AtomicBool,
    held: Hold,
}

impl Collector for Bounded {
    fn accept(&self, lin: usize, block: &Block) -> Result<()> {
        let total = self.bytes.fetch_add(block.nbytes(), Ordering::Relaxed) + block.nbytes();
        if total > self.budget {
            self.over.store(true, Ordering::Relaxed);
            return Err(Error::invalid(
                "selection bytes",
                total,
                "past the block-size limit: selected again when computed",
            ));
        }
        self.held.accept(lin, block)
    }
}

/// The selection layer over `inputs` (row-blocked; `mask` the row-blocked
/// mask among them): computed now when it fits in the block-size limit of
/// `opts`, else lazy with counted blocks. `per_row` is the result's shape past
/// its first axis.
fn select<E: Element, O: BlockOp>(
    name: &str,
    inputs: Vec<Arc<Node>>,
    mask: &Array<bool>,
    per_row: Vec<usize>,
    layer: impl Fn(bool) -> O,
    opts: &SelectOptions,
    ctx: &Context,
) -> Result<Array<E>> {
    let with_rows = |rows: Vec<usize>| {
        Chunks::from_lengths(std::iter::once(rows).chain(per_row.iter().map(|&n| vec![n])).collect())
    };
    let budget = opts.block_size_limit;
    let on_host = inputs.iter().all(|n| n.device.is_none());
    if ctx.scheduler().processes() == 1 && on_host {
        // Bounds: every element of a row block selected.
        let row_elements = mask.shape()[1..].iter().product::<usize>();
        let bounds = mask.chunks().lengths()[0].iter().map(|&r| r * row_elements).collect();
        let probe = Node::new(name, E::DTYPE, with_rows(bounds), inputs.clone(), layer(false));
        let n = probe.chunks.num_blocks();
        let kept = Bounded { budget, bytes: AtomicUsize::new(0), over: AtomicBool::new(false), held: Hold::new(n) };
        match crate::exec::run(&[probe], ctx, &[&kept]) {
            Ok(_) => {
                // In a one-process run `finish` has checked that every block is there.
                let blocks: Vec<Block> = kept.held.finish(ctx.scheduler())?.into_iter().flatten().collect();
                let rows = blocks
                    .iter()
                    .map(|b| b.as_any().downcast_ref::<ArrayD<E>>().map(|a| a.shape()[0]))
                    .collect::<Option<Vec<usize>>>()
                    .ok_or_else(|| Error::invalid(name, E::DTYPE, "a selection block of another element type"))?;
                return Ok(Array::from_computed(name, with_rows(rows), blocks));
            }
            Err(_) if kept.over.load(Ordering::Relaxed) => {}
            // The probe's blocks are sized as if everything were selected;
            // past the memory limit, count first instead.
            Err(Error::PlanExceedsMemory { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let counts = counts_of(mask, ctx)?;
    Array::built(Node::new(name, E::DTYPE, with_rows(counts), inputs, layer(true)))
}

impl<T: Element> Array<T> {
    /// The elements where a full-shape `mask` is true, in C order, as a 1-d array
    /// (NumPy's `x[mask]`). A mask over the leading `k` axes only selects whole
    /// sub-arrays, as in NumPy: the result's shape is `(count, shape[k..])`.
    /// The result has known block lengths: one block per
    /// block of `self` once the array is one block wide past its first axis
    /// (rechunked so, as dask's `ravel` does, to keep C order; row blocks are
    /// cut so that those blocks stay under the 128 MiB block-size limit). A
    /// selection of at most that limit is computed here, once; a larger one
    /// has its per-block counts computed here and is selected again when
    /// computed (see the module notes).
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<i64>::from_fn(&[3, 4], [2, 2], |i| (i[0] * 4 + i[1]) as i64).unwrap();
    /// let y = x.masked(&x.gt(6).unwrap()).unwrap();
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![7, 8, 9, 10, 11]);
    /// ```
    ///
    /// ```
    /// use chunked_array::Array;
    /// // Rows 0 and 2 of a (3, 2) array.
    /// let x = Array::<i64>::arange(0, 6, 1, 2).unwrap().reshape(&[3, 2]).unwrap();
    /// let rows = Array::from_ndarray(ndarray::arr1(&[true, false, true]), 2).unwrap();
    /// let y = x.masked(&rows).unwrap();
    /// assert_eq!(y.shape(), vec![2, 2]);
    /// assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![0, 1, 4, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the mask's shape is neither `self`'s nor
    /// its leading part; the compute errors of `self` and the mask.
    pub fn masked(&self, mask: &Array<bool>) -> Result<Array<T>> {
        self.masked_with(mask, &SelectOptions::default(), &Context::default())
    }

    /// [`Array::masked`] with the block-size limit (bytes) for the blocks made
    /// one block wide past the first axis and for the selection computed while
    /// building, and the context that building run computes in.
    ///
    /// ```
    /// use chunked_array::{Array, Context, SelectOptions};
    /// let x = Array::<i64>::arange(0, 10, 1, 3).unwrap();
    /// let opts = SelectOptions { block_size_limit: 16 };
    /// let big = x.masked_with(&x.gt(5).unwrap(), &opts, &Context::sync()).unwrap();
    /// assert_eq!(big.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![6, 7, 8, 9]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::masked`].
    pub fn masked_with(&self, mask: &Array<bool>, opts: &SelectOptions, ctx: &Context) -> Result<Array<T>> {
        self.check()?;
        mask.check()?;
        let shape = self.shape();
        let k = mask.ndim();
        if k >= 1 && k < shape.len() && mask.shape() == shape[..k] {
            // Whole sub-arrays: the mask repeated over the trailing axes selects
            // them in C order, `count` runs of shape[k..] each.
            let trailing: Vec<isize> = (k as isize..shape.len() as isize).collect();
            let full = mask.expand_dims_axes(&trailing)?.broadcast_to(&shape)?;
            let flat = self.masked_with(&full, opts, ctx)?;
            let per_row: usize = shape[k..].iter().product();
            let count = match flat.shape()[0].checked_div(per_row) {
                Some(count) => count,
                None => counts_of(mask, ctx)?.iter().sum(),
            };
            let new_shape: Vec<isize> =
                std::iter::once(count).chain(shape[k..].iter().copied()).map(|n| n as isize).collect();
            return flat.reshape(&new_shape);
        }
        if mask.shape() != shape {
            return Err(Error::shape("masked (values, mask)", &shape, &mask.shape()));
        }
        if shape.is_empty() {
            return self.expand_dims(0)?.masked_with(&mask.expand_dims(0)?, opts, ctx);
        }
        let spec = row_blocks(&self.chunks().lengths()[0], &shape, std::mem::size_of::<T>(), opts.block_size_limit);
        let x = self.rechunk(spec.clone())?;
        let m = mask.rechunk(spec)?;
        let layer = |counted| Masked::<T> { counted, _t: std::marker::PhantomData };
        select::<T, _>("masked", vec![x.node.clone(), m.node.clone()], &m, vec![], layer, opts, ctx)
    }

    /// The coordinates of the non-zero (true) elements in C order, one row
    /// each: a (count, ndim) array (NumPy's `argwhere`). Blocks and the
    /// selection computed while building as for [`Array::masked`]: one row
    /// block per row block of `self` made one block wide past its first axis.
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
    /// The compute errors of `self`.
    pub fn argwhere(&self) -> Result<Array<i64>> {
        self.argwhere_with(&SelectOptions::default(), &Context::default())
    }

    /// [`Array::argwhere`] with the block-size limit (bytes) for the row blocks
    /// (counted at `ndim` coordinates per element, the most a block can give)
    /// and for the selection computed while building, and the context that
    /// building run computes in.
    ///
    /// ```
    /// use chunked_array::{Array, Context, SelectOptions, ndarray::array};
    /// let x = Array::from_vec(&[4], vec![0, 5, 0, 7], 2).unwrap();
    /// // NumPy: np.argwhere(x), counted on one thread with 16-byte row blocks
    /// let w = x.argwhere_with(&SelectOptions { block_size_limit: 16 }, &Context::sync()).unwrap();
    /// assert_eq!(w.compute().unwrap(), array![[1], [3]].into_dyn());
    /// ```
    ///
    /// # Errors
    /// As [`Array::argwhere`].
    pub fn argwhere_with(&self, opts: &SelectOptions, ctx: &Context) -> Result<Array<i64>> {
        self.check()?;
        let nd = self.ndim();
        if nd == 0 {
            // NumPy: a 0-d array has one position and no coordinates.
            let rows = self.expand_dims(0)?.argwhere_with(opts, ctx)?;
            return rows.slice([Idx::FULL, Idx::range(0, 0)]);
        }
        let nonzero = self.ne(crate::ops::elementwise::Operand::Scalar(T::default()))?;
        let bytes = nd * std::mem::size_of::<i64>();
        let spec = row_blocks(&self.chunks().lengths()[0], &self.shape(), bytes, opts.block_size_limit);
        let m = nonzero.rechunk(spec)?;
        let layer = |counted| Coordinates { counted };
        select::<i64, _>("argwhere", vec![m.node.clone()], &m, vec![nd], layer, opts, ctx)
    }

    /// The indices of the non-zero (true) elements, one 1-d array per axis
    /// (NumPy's `nonzero`): the columns of [`Array::argwhere`], which all read
    /// the same layer.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::from_vec(&[2, 3], vec![0, 1, 2, 3, 0, 1], [1, 2]).unwrap();
    /// // NumPy: rows, cols = np.nonzero(x)
    /// let nz = x.nonzero().unwrap();
    /// assert_eq!(nz[0].compute().unwrap().as_slice().unwrap(), &[0, 0, 1, 1]);
    /// assert_eq!(nz[1].compute().unwrap().as_slice().unwrap(), &[1, 2, 0, 2]);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array (as NumPy 2); the compute
    /// errors of `self`.
    pub fn nonzero(&self) -> Result<Vec<Array<i64>>> {
        self.nonzero_with(&SelectOptions::default(), &Context::default())
    }

    /// [`Array::nonzero`] built as [`Array::argwhere_with`] is.
    ///
    /// ```
    /// use chunked_array::{Array, Context, SelectOptions};
    /// let x = Array::from_vec(&[5], vec![0, 3, 0, 0, 9], 2).unwrap();
    /// let opts = SelectOptions { block_size_limit: 16 };
    /// let nz = x.nonzero_with(&opts, &Context::sync()).unwrap();
    /// assert_eq!(nz.len(), 1); // one index array per axis
    /// assert_eq!(nz[0].compute().unwrap().as_slice().unwrap(), &[1, 4]);
    /// ```
    ///
    /// # Errors
    /// As [`Array::nonzero`].
    pub fn nonzero_with(&self, opts: &SelectOptions, ctx: &Context) -> Result<Vec<Array<i64>>> {
        self.check()?;
        if self.ndim() == 0 {
            return Err(Error::invalid("array shape", self.shape(), "nonzero needs at least one axis"));
        }
        let rows = self.argwhere_with(opts, ctx)?;
        (0..self.ndim() as isize).map(|a| rows.slice([Idx::FULL, Idx::Index(a)])).collect()
    }
}
