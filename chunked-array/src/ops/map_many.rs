//! `map_blocks` over several arrays of different element types (dask's
//! `map_blocks(f, a, b, ...)`): the arrays are broadcast together and cut on
//! the common refinement of their blocks, and `f` gets the matching blocks.

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};
use crate::ops::blockwise::{BlockInfo, explicit_chunks};
use crate::ops::elementwise::broadcast_chunks;

/// The typed body of a layer over several inputs: their blocks to the block.
type Body<U> = Arc<dyn Fn(&Node, &[&Block], &BlockInfo<'_>) -> Result<ArrayD<U>> + Send + Sync>;

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

/// `x` broadcast to `chunks`' shape and cut on its grid.
fn align<T: Element>(x: &Array<T>, chunks: &Chunks) -> Result<Array<T>> {
    let shape = chunks.shape();
    let x = if x.shape() == shape {
        x.clone()
    } else {
        let lengths: Vec<Option<Vec<usize>>> = chunks.lengths().iter().cloned().map(Some).collect();
        x.broadcast_to_chunks(&shape, &lengths)?
    };
    x.rechunk(chunks.lengths().to_vec())
}

/// The layer of `body` over `inputs` (aligned on `chunks`), its blocks as
/// `out_chunks` declares (default: `chunks`).
fn build<U: Element>(
    body: Body<U>,
    inputs: Vec<Arc<Node>>,
    chunks: &Chunks,
    out_chunks: Option<ChunkSpec>,
) -> Result<Array<U>> {
    let out = match out_chunks {
        None => chunks.clone(),
        Some(spec) => explicit_chunks(spec, chunks, U::DTYPE)?,
    };
    Array::built(Node::new("map_blocks", U::DTYPE, out, inputs, MapMany { body }))
}

/// `f` of the matching blocks of `a` and `b`, arrays of any two element
/// types (dask's `map_blocks(f, a, b)`): they broadcast together and are
/// cut on the common refinement of their blocks; `out_chunks` declares the
/// result's blocks (default: that grid's), as [`Array::map_blocks`] does.
///
/// ```
/// use chunked_array::{map_blocks2, Array};
/// let values = Array::<f32>::from_vec(&[4], vec![1.5, -2.0, 3.0, 0.5], 2).unwrap();
/// let keep = Array::from_vec(&[4], vec![true, false, true, true], 3).unwrap();
/// let masked = map_blocks2(
///     |v, k, _| ndarray::Zip::from(&v).and(&k).map_collect(|&v, &k| if k { v as f64 } else { 0.0 }),
///     &values, &keep, None,
/// ).unwrap();
/// assert_eq!(masked.compute().unwrap().as_slice().unwrap(), &[1.5, 0.0, 3.0, 0.5]);
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when the shapes do not broadcast;
/// [`Error::BadChunks`] for `out_chunks` with another block count; at
/// compute time, a block of another shape than declared.
pub fn map_blocks2<A, B, U, F>(f: F, a: &Array<A>, b: &Array<B>, out_chunks: Option<ChunkSpec>) -> Result<Array<U>>
where
    A: Element,
    B: Element,
    U: Element,
    F: Fn(ArrayViewD<'_, A>, ArrayViewD<'_, B>, &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
{
    a.check()?;
    b.check()?;
    let chunks = broadcast_chunks("map_blocks", &[&a.node, &b.node])?;
    let (a, b) = (align(a, &chunks)?, align(b, &chunks)?);
    let body: Body<U> = Arc::new(move |node, blocks, info| {
        let (x, y) = (block_as::<A>(blocks[0], node, "first")?, block_as::<B>(blocks[1], node, "second")?);
        Ok(f(x.view(), y.view(), info))
    });
    build(body, vec![a.node.clone(), b.node.clone()], &chunks, out_chunks)
}

/// [`map_blocks2`] over three arrays of any element types.
///
/// ```
/// use chunked_array::{map_blocks3, Array};
/// let x = Array::<f64>::from_vec(&[3], vec![1.0, 2.0, 3.0], 2).unwrap();
/// let n = Array::<i32>::from_vec(&[3], vec![2, 0, 1], 1).unwrap();
/// let on = Array::<bool>::from_vec(&[3], vec![true, true, false], 3).unwrap();
/// let y = map_blocks3(
///     |x, n, on, _| ndarray::Zip::from(&x).and(&n).and(&on).map_collect(|&x, &n, &on| if on { x.powi(n) } else { -1.0 }),
///     &x, &n, &on, None,
/// ).unwrap();
/// assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[1.0, 1.0, -1.0]);
/// ```
///
/// # Errors
/// As [`map_blocks2`].
pub fn map_blocks3<A, B, C, U, F>(
    f: F,
    a: &Array<A>,
    b: &Array<B>,
    c: &Array<C>,
    out_chunks: Option<ChunkSpec>,
) -> Result<Array<U>>
where
    A: Element,
    B: Element,
    C: Element,
    U: Element,
    F: Fn(ArrayViewD<'_, A>, ArrayViewD<'_, B>, ArrayViewD<'_, C>, &BlockInfo<'_>) -> ArrayD<U> + Send + Sync + 'static,
{
    a.check()?;
    b.check()?;
    c.check()?;
    let chunks = broadcast_chunks("map_blocks", &[&a.node, &b.node, &c.node])?;
    let (a, b, c) = (align(a, &chunks)?, align(b, &chunks)?, align(c, &chunks)?);
    let body: Body<U> = Arc::new(move |node, blocks, info| {
        let x = block_as::<A>(blocks[0], node, "first")?;
        let y = block_as::<B>(blocks[1], node, "second")?;
        let z = block_as::<C>(blocks[2], node, "third")?;
        Ok(f(x.view(), y.view(), z.view(), info))
    });
    build(body, vec![a.node.clone(), b.node.clone(), c.node.clone()], &chunks, out_chunks)
}
