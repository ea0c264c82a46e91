//! Rechunking: the same array on another block grid.
//!
//! A source whose blocks depend only on their position (random, constants,
//! ranges, in-memory arrays) is simply built again on the new grid: no data moves.
//! Otherwise each new block is assembled from the old blocks it overlaps. When one
//! such task would hold more than the block-size limit, the rechunk goes through
//! the common refinement of the two grids: first every old block is split (a task
//! reads one old block), then the pieces are merged (a task reads exactly the
//! pieces of one new block), so no task holds more than one old block or two new
//! ones, whatever the two chunkings are.

use std::sync::Arc;

use ndarray::{ArrayD, IxDyn, Slice};

use crate::array::Array;
use crate::chunks::{for_each_in_box, refine, ChunkSpec, Chunks, DEFAULT_AUTO_BYTES};
use crate::element::Element;
use crate::error::Result;
use crate::graph::{block_as, Block, BlockOp, Node};

/// Options of [`Array::rechunk_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RechunkOptions {
    /// Most bytes one rechunk task may hold (its output and inputs); default
    /// 128 MiB, as dask's `array.chunk-size`.
    pub block_size_limit: usize,
}

impl Default for RechunkOptions {
    fn default() -> Self {
        RechunkOptions { block_size_limit: DEFAULT_AUTO_BYTES }
    }
}

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
        let mut out = ArrayD::<T>::uninit(IxDyn(&shape));
        let mut k = 0;
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
        });
        result?;
        // SAFETY: the overlapped old blocks tile the new block, so every element
        // was written above.
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
    for a in 0..new.ndim() {
        // Per axis, the largest new block plus the old blocks it overlaps.
        let along = (0..new.lengths()[a].len())
            .map(|i| {
                let (f, l) = ranges[a][i];
                new.lengths()[a][i] + (f..l).map(|b| old.lengths()[a][b]).sum::<usize>()
            })
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
        self.rechunk_with(chunks, RechunkOptions::default())
    }

    /// [`Array::rechunk`] with options.
    ///
    /// # Errors
    /// As [`Array::rechunk`].
    pub fn rechunk_with(&self, chunks: impl Into<ChunkSpec>, options: RechunkOptions) -> Result<Array<T>> {
        self.check()?;
        let new = chunks.into().resolve(&self.shape(), T::DTYPE)?;
        let old = self.chunks();
        if &new == old {
            return Ok(self.clone());
        }
        if self.node.inputs.is_empty() && self.node.op.position_only() {
            return Ok(Array::from_node(self.node.regrid(new)));
        }
        let itemsize = std::mem::size_of::<T>();
        if largest_task_bytes(old, &new, itemsize) <= options.block_size_limit {
            return Ok(direct(self, new));
        }
        let lengths: Vec<Vec<usize>> = (0..new.ndim()).map(|a| refine(&[old.boundaries(a), new.boundaries(a)])).collect();
        let middle = Chunks::from_lengths(lengths);
        let split = if &middle == old { self.clone() } else { direct(self, middle) };
        Ok(direct(&split, new))
    }
}
