//! Rechunking: the same array on another block grid.
//!
//! A source whose blocks depend only on their position (random, constants,
//! ranges, in-memory arrays) is simply built again on the new grid: no data moves.
//! Otherwise each new block is assembled from the old blocks it overlaps. When one
//! such task would hold more than the block-size limit, the rechunk goes in two
//! steps through an intermediate grid (dask's `plan_rechunk` does the same with
//! its own heuristics): the common refinement of the two grids, with the pieces
//! of one new block merged along an axis as long as the old blocks a piece
//! overlaps fit in half the limit. Step 1 builds each piece from the few old
//! blocks it overlaps; step 2 assembles each new block from exactly its pieces.
//! So no task holds more than the limit (unless a single old block, or two new
//! ones, already do), and the graph stays small where one grid is much finer
//! than the other: (n, 1) -> (1, n) blocks would otherwise go through n² pieces.
//!
//! A graph shaped for several processes ([`crate::runtime::process_count`])
//! goes through the exact common refinement instead, where it has at most
//! [`PIECES_PER_BLOCK`] times as many pieces as the finer grid has blocks and
//! neither step's tasks hold more than the limit: each piece lies in one
//! old block (so it is made where that block is) and in one new block (so it
//! travels at most once, to the rank assembling that block). Between ranks
//! this is dask's all-to-all "p2p" rechunk without its trip through disk:
//! every element that changes rank moves once, and only those do, where a
//! new block reading whole old blocks would take every overlapping old block
//! across whole.

use std::sync::Arc;

use ndarray::Slice;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{BlockSizeOptions, ChunkSpec, Chunks, for_each_in_box, refine};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// [`BlockSizeOptions`] under the name dask users look for with `rechunk`.
pub type RechunkOptions = BlockSizeOptions;

/// The most pieces a rechunk over several processes goes through, per block
/// of the grid with more blocks (see the module doc); beyond it the two grids
/// are so different in shape that the refinement's tasks would cost more than
/// the bytes they save.
pub(crate) const PIECES_PER_BLOCK: usize = 16;

/// Per axis, the old blocks that new block `i` overlaps: `ranges[axis][i]`.
fn overlaps(old: &Chunks, new: &Chunks) -> Vec<Vec<(usize, usize)>> {
    (0..new.ndim())
        .map(|a| {
            (0..new.lengths()[a].len())
                .map(|i| {
                    let (lo, hi) = (new.offset(a, i), new.offset(a, i + 1));
                    let first = old.block_of(a, lo);
                    let last = if hi > lo { old.block_of(a, hi - 1) } else { first };
                    (first, last + 1)
                })
                .collect()
        })
        .collect()
}

struct Rechunk<T> {
    ranges: Vec<Vec<(usize, usize)>>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> Rechunk<T> {
    /// The first old block (per axis) new block `idx` overlaps.
    fn first_source(&self, idx: &[usize]) -> Vec<usize> {
        idx.iter().enumerate().map(|(a, &i)| self.ranges[a][i].0).collect()
    }

    fn for_each_source(&self, idx: &[usize], f: impl FnMut(&[usize])) {
        let hi: Vec<usize> = idx.iter().enumerate().map(|(a, &i)| self.ranges[a][i].1).collect();
        for_each_in_box(&self.first_source(idx), &hi, f);
    }
}

impl<T: Element> BlockOp for Rechunk<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let old = &node.inputs[0].chunks;
        self.for_each_source(idx, |b| out.push((0, old.linear(b))));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let old = &node.inputs[0].chunks;
        let shape = node.chunks.block_shape(idx);
        let start = node.chunks.block_start(idx);
        let first = self.first_source(idx);
        if inputs.len() == 1 && old.block_start(&first) == start && old.block_shape(&first) == shape {
            return Ok(inputs[0].clone());
        }
        let mut out = crate::block::alloc::uninit_block::<T>(&shape);
        let mut k = 0;
        let mut written = 0usize;
        let mut result = Ok(());
        self.for_each_source(idx, |b| {
            if result.is_err() {
                return;
            }
            let src = match block_as::<T>(inputs[k], node, "rechunk") {
                Ok(s) => s,
                Err(e) => {
                    result = Err(e);
                    return;
                }
            };
            k += 1;
            let bstart = old.block_start(b);
            let bshape = old.block_shape(b);
            // The overlap of this old block with the new one, in global coordinates.
            let lo: Vec<usize> = (0..shape.len()).map(|a| start[a].max(bstart[a])).collect();
            let hi: Vec<usize> = (0..shape.len()).map(|a| (start[a] + shape[a]).min(bstart[a] + bshape[a])).collect();
            let from = src.slice_each_axis(|ax| {
                let a = ax.axis.index();
                Slice::from(lo[a] - bstart[a]..hi[a] - bstart[a])
            });
            let mut to = out.slice_each_axis_mut(|ax| {
                let a = ax.axis.index();
                Slice::from(lo[a] - start[a]..hi[a] - start[a])
            });
            from.assign_to(&mut to);
            written += to.len();
        });
        result?;
        // The old blocks are disjoint, so their overlaps filling as many
        // elements as the block holds means every element was written: checked,
        // so that a tiling bug is an error here, not uninitialised memory read.
        if written != out.len() {
            return Err(Error::invalid("rechunk", node.label(), format!("wrote {written} of {} elements", out.len())));
        }
        // SAFETY: every element was written (the count above).
        let out = unsafe { out.assume_init() };
        Ok(Arc::new(out))
    }
}

fn direct<T: Element>(x: &Array<T>, chunks: Chunks) -> Array<T> {
    let ranges = overlaps(x.chunks(), &chunks);
    let op = Rechunk::<T> { ranges, _t: std::marker::PhantomData };
    Array::from_node(Node::new("rechunk", T::DTYPE, chunks, vec![x.node.clone()], op))
}

/// Bytes the largest direct rechunk task holds: its new block and the old
/// blocks it overlaps.
fn largest_task_bytes(old: &Chunks, new: &Chunks, itemsize: usize) -> usize {
    let ranges = overlaps(old, new);
    let mut worst = 1usize;
    for ((new_lengths, old_lengths), axis_ranges) in new.lengths().iter().zip(old.lengths()).zip(&ranges) {
        // Per axis, the largest new block plus the old blocks it overlaps.
        let along = new_lengths
            .iter()
            .zip(axis_ranges)
            .map(|(&n, &(f, l))| n + old_lengths[f..l].iter().sum::<usize>())
            .max()
            .unwrap_or(0);
        worst = worst.saturating_mul(along.max(1));
    }
    worst.saturating_mul(itemsize)
}

impl<T: Element> Array<T> {
    /// The same array on another grid (dask's `rechunk`), with the default
    /// 128 MiB limit on what one task holds.
    ///
    /// ```
    /// use chunked_array::Array;
    /// let x = Array::<f64>::from_fn(&[6, 6], [6, 1], |i| (i[0] * 6 + i[1]) as f64).unwrap();
    /// let y = (&x + 0.0).rechunk([1, 6]).unwrap();
    /// assert_eq!(y.chunks().lengths()[0], vec![1; 6]);
    /// assert_eq!(y.compute().unwrap(), x.compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::BadChunks`] when the spec does not fit the shape.
    pub fn rechunk(&self, chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        self.rechunk_with(chunks, &BlockSizeOptions::default())
    }

    /// [`Array::rechunk`] with options.
    ///
    /// ```
    /// use chunked_array::{Array, BlockSizeOptions};
    /// let x = Array::<f64>::from_fn(&[4, 4], [4, 1], |i| (i[0] * 4 + i[1]) as f64).unwrap();
    /// // dask: x.rechunk((1, 4), block_size_limit=64); here no task holds over 64 bytes
    /// let opts = BlockSizeOptions { block_size_limit: 64 };
    /// let y = (&x + 0.0).rechunk_with([1, 4], &opts).unwrap();
    /// assert_eq!(y.chunks().lengths(), &[vec![1; 4], vec![4]]);
    /// assert_eq!(y.compute().unwrap(), x.compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`Array::rechunk`].
    pub fn rechunk_with(&self, chunks: impl Into<ChunkSpec>, options: &BlockSizeOptions) -> Result<Array<T>> {
        self.check()?;
        let new = chunks.into().resolve(&self.shape(), T::DTYPE)?;
        let old = self.chunks();
        if &new == old {
            return Ok(self.clone());
        }
        if self.node.inputs.is_empty() && self.node.op.position_only() {
            return Array::built(self.node.regrid(new));
        }
        let itemsize = std::mem::size_of::<T>();
        if crate::schedule::spread::process_count() > 1
            && let Some(refined) = refinement_between_ranks(old, &new)
            && largest_task_bytes(old, &refined, itemsize) <= options.block_size_limit
            && largest_task_bytes(&refined, &new, itemsize) <= options.block_size_limit
        {
            let split = if &refined == old { self.clone() } else { direct(self, refined.clone()) };
            return Ok(if refined == new { split } else { direct(&split, new) });
        }
        if largest_task_bytes(old, &new, itemsize) <= options.block_size_limit {
            return Ok(direct(self, new));
        }
        let middle = middle_grid(old, &new, itemsize, options.block_size_limit);
        let split = if &middle == old { self.clone() } else { direct(self, middle.clone()) };
        if middle == new {
            return Ok(split);
        }
        Ok(direct(&split, new))
    }
}

/// The exact common refinement of `old` and `new` when it has at most
/// [`PIECES_PER_BLOCK`] pieces per block of the grid with more blocks (see
/// the module doc).
fn refinement_between_ranks(old: &Chunks, new: &Chunks) -> Option<Chunks> {
    let refined: Vec<Vec<usize>> = (0..new.ndim()).map(|a| refine(&[old.boundaries(a), new.boundaries(a)])).collect();
    let refined = Chunks::from_lengths(refined);
    let most = old.num_blocks().max(new.num_blocks()).saturating_mul(PIECES_PER_BLOCK);
    (refined.num_blocks() <= most).then_some(refined)
}

/// The intermediate grid of a two-step rechunk (see the module doc): the common
/// refinement of `old` and `new`, whose pieces within one new block are merged
/// along each axis while the old blocks a merged piece overlaps stay within a
/// per-axis share of half the limit.
fn middle_grid(old: &Chunks, new: &Chunks, itemsize: usize, limit: usize) -> Chunks {
    let ndim = new.ndim();
    let refined: Vec<Vec<usize>> = (0..ndim).map(|a| refine(&[old.boundaries(a), new.boundaries(a)])).collect();
    // Axes where some new block holds several pieces: only there can pieces merge.
    let mergeable: Vec<usize> = (0..ndim).filter(|&a| refined[a].len() > new.lengths()[a].len()).collect();
    if mergeable.is_empty() {
        return Chunks::from_lengths(refined);
    }
    // Along an axis that does not merge, a piece reads at most the longest old block.
    let longest_old = |a: usize| old.lengths()[a].iter().copied().max().unwrap_or(1).max(1);
    let fixed: f64 = (0..ndim).filter(|a| !mergeable.contains(a)).map(|a| longest_old(a) as f64).product();
    // A step-1 task holds its old blocks and its piece (no larger than they are).
    let mut budget = (limit / 2 / itemsize.max(1)) as f64 / fixed;
    let mut lengths = refined;
    // The budget is shared out one axis at a time, longest old blocks first: an
    // axis's cap is never less than one old block (read unmerged anyway), and
    // what it takes is what the remaining axes cannot.
    let mut order = mergeable;
    order.sort_by_key(|&a| std::cmp::Reverse(longest_old(a)));
    for (i, &a) in order.iter().enumerate() {
        let share = budget.max(1.0).powf(1.0 / (order.len() - i) as f64);
        let cap = (share as usize).max(longest_old(a));
        budget /= cap as f64;
        lengths[a] = merge_pieces(old, new, a, &lengths[a], cap);
    }
    Chunks::from_lengths(lengths)
}

/// Consecutive `pieces` along axis `a`, merged while they lie in one new block
/// and the old blocks they overlap span at most `cap` elements.
fn merge_pieces(old: &Chunks, new: &Chunks, a: usize, pieces: &[usize], cap: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    // The merged piece being built: its start and length.
    let (mut start, mut len) = (0usize, 0usize);
    let mut pos = 0usize;
    for &l in pieces {
        if len > 0 {
            let same_new_block = new.block_of(a, pos) == new.block_of(a, start);
            let old_first = old.offset(a, old.block_of(a, start));
            let old_end = old.offset(a, old.block_of(a, pos + l - 1) + 1);
            if same_new_block && old_end - old_first <= cap {
                len += l;
                pos += l;
                continue;
            }
            out.push(len);
        }
        (start, len) = (pos, l);
        pos += l;
    }
    out.push(len);
    out
}
