//! `map_blocks`: a user function applied to every block.

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{block_as, Block, BlockOp, Node};

/// Where a block sits, as dask's `block_info` tells a `map_blocks` function.
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
}

struct MapBlocks<T, U, F> {
    f: F,
    _t: std::marker::PhantomData<fn(T) -> U>,
}

impl<T: Element, U: Element, F> BlockOp for MapBlocks<T, U, F>
where
    F: Fn(ArrayViewD<'_, T>, &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
{
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }

    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let input = &node.inputs[0];
        let a = block_as::<T>(inputs[0], node, "map_blocks")?;
        let out_shape = node.chunks.block_shape(idx);
        let info = BlockInfo {
            index: idx,
            grid: &input.chunks.grid(),
            start: &input.chunks.block_start(idx),
            array_shape: &input.shape(),
            out_shape: &out_shape,
        };
        let out = (self.f)(a.view(), &info);
        if out.shape() != out_shape.as_slice() {
            return Err(Error::shape("map_blocks result (declared block shape, returned shape)", &out_shape, out.shape()));
        }
        Ok(Arc::new(out))
    }
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
        self.check()?;
        let chunks = match out_chunks {
            None => self.chunks().clone(),
            Some(spec) => explicit_chunks(spec, self.chunks())?,
        };
        let op = MapBlocks::<T, U, F> { f, _t: std::marker::PhantomData };
        Ok(Array::from_node(Node::new("map_blocks", U::DTYPE, chunks, vec![self.node.clone()], op)))
    }
}

/// Declared output chunks: explicit per-axis lists whose block counts match the
/// input grid (axes beyond the input's must have one block).
fn explicit_chunks(spec: ChunkSpec, input: &Chunks) -> Result<Chunks> {
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
            message: format!("the output drops an axis of {} blocks; only one-block axes can be dropped", grid[lists.len()]),
        });
    }
    Ok(Chunks::from_lengths(lists))
}
