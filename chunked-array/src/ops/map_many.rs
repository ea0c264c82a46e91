//! `map_blocks` over several arrays of different element types (dask's
//! `map_blocks(f, a, b, ...)`): the arrays are broadcast together and cut on
//! the common refinement of their blocks, and `f` gets the matching blocks.

use std::sync::Arc;

use ndarray::{ArrayD, ArrayViewD};

use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::Result;
use crate::graph::block_as;
use crate::ops::blockwise::{BlockInfo, Body, map_many_layer};
use crate::ops::elementwise::broadcast_chunks;

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
/// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast;
/// [`crate::Error::BadChunks`] for `out_chunks` with another block count; at
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
    map_many_layer(body, vec![a.node.clone(), b.node.clone()], &chunks, out_chunks)
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
    map_many_layer(body, vec![a.node.clone(), b.node.clone(), c.node.clone()], &chunks, out_chunks)
}
