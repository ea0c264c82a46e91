//! Between arrays and delayed values: an array's blocks as delayed ndarrays
//! (dask's `Array.to_delayed`) and a delayed ndarray as an array
//! (`da.from_delayed`).

use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::ArrayD;

use super::task::value_of;
use super::{Delayed, distinct_inputs};
use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};

impl<T: Element> Array<T> {
    /// One delayed `ndarray` per block, in C order of the block grid (dask's
    /// `x.to_delayed().ravel()`): custom code reads the blocks as values of
    /// the same graph, computing nothing until it is computed.
    ///
    /// ```
    /// use chunked_array::{delayed::fan_in, Array};
    /// let x = Array::<f64>::linspace(0.0, 9.0, 10, true, 4).unwrap(); // blocks of 4, 4, 2
    /// let blocks = x.to_delayed();
    /// let maxima = fan_in("block maxima", &blocks, |bs| bs.iter().map(|b| b[b.len() - 1]).collect::<Vec<_>>());
    /// assert_eq!(maxima.compute().unwrap(), vec![3.0, 7.0, 9.0]);
    /// ```
    pub fn to_delayed(&self) -> Vec<Delayed<ArrayD<T>>> {
        (0..self.node.chunks.num_blocks())
            .map(|block| Delayed { node: self.node.clone(), block, call: None, _t: PhantomData })
            .collect()
    }

    /// A one-block array of the ndarray `value` makes, of shape `shape`
    /// (dask's `da.from_delayed(value, shape, dtype)`); concatenate or
    /// stack several for a larger array.
    ///
    /// ```
    /// use chunked_array::{delayed::Delayed, Array};
    /// use chunked_array::ndarray::ArrayD;
    /// let d = Delayed::new("load", || ArrayD::from_shape_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap());
    /// let x = Array::from_delayed(&d, &[2, 2]).unwrap();
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 10.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a shape with more elements than memory
    /// holds; when computed, [`Error::ShapeMismatch`] if the value's shape is
    /// not `shape`.
    pub fn from_delayed(value: &Delayed<ArrayD<T>>, shape: &[usize]) -> Result<Array<T>> {
        let one_block: Vec<Vec<usize>> = shape.iter().map(|&n| vec![n]).collect();
        Self::from_delayed_blocks(std::slice::from_ref(value), &one_block)
    }

    /// An array whose blocks are the ndarrays `blocks` make, in C order of
    /// the block grid that `chunks` (the block lengths along each axis, as
    /// dask's `chunks=((2, 2), (3,))`) describes: dask's
    /// `da.block([[da.from_delayed(..), ..], ..])`.
    ///
    /// ```
    /// use chunked_array::{delayed::Delayed, Array};
    /// use chunked_array::ndarray::ArrayD;
    /// // Two files of two rows each, loaded by closures.
    /// let part = |k: f64| Delayed::new("load", move || ArrayD::from_elem(vec![2, 3], k));
    /// let x = Array::from_delayed_blocks(&[part(1.0), part(2.0)], &[vec![2, 2], vec![3]]).unwrap();
    /// assert_eq!(x.shape(), &[4, 3]);
    /// assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), 18.0);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the number of blocks is not the
    /// grid's, or for a shape with more elements than memory holds; when computed,
    /// [`Error::ShapeMismatch`] naming a block whose value has another shape.
    pub fn from_delayed_blocks(blocks: &[Delayed<ArrayD<T>>], chunks: &[Vec<usize>]) -> Result<Array<T>> {
        let grid: usize = chunks.iter().map(Vec::len).product();
        if grid != blocks.len() {
            return Err(Error::invalid(
                "blocks",
                blocks.len(),
                format!("the block grid of {chunks:?} has {grid} blocks: one delayed value per block"),
            ));
        }
        let (inputs, sources) = distinct_inputs(blocks.iter().map(|d| (&d.node, d.block)));
        let chunks = Chunks::from_lengths(chunks.to_vec());
        Array::built(Node::new("from_delayed", T::DTYPE, chunks, inputs, FromDelayed::<T> { sources, _t: PhantomData }))
    }
}

/// The layer of [`Array::from_delayed`] and [`Array::from_delayed_blocks`]:
/// block `b` is the delayed ndarray `sources[b]` (input, block of it).
struct FromDelayed<T> {
    sources: Vec<(usize, usize)>,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for FromDelayed<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push(self.sources[node.chunks.linear(idx)]);
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let value = value_of::<ArrayD<T>>(inputs[0], "from_delayed input")?;
        let shape = node.chunks.block_shape(idx);
        if value.shape() != shape.as_slice() {
            return Err(Error::shape("from_delayed", &shape, value.shape()));
        }
        if inputs[0].as_any().is::<ArrayD<T>>() {
            // An array's own block: shared, not copied.
            return Ok(inputs[0].clone());
        }
        Ok(Arc::new(value.clone()))
    }
}
