//! Between arrays and delayed values: an array's blocks as delayed ndarrays
//! (dask's `Array.to_delayed`) and a delayed ndarray as an array
//! (`da.from_delayed`).

use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::ArrayD;

use super::Delayed;
use super::task::value_of;
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
        let chunks = Chunks::from_lengths(shape.iter().map(|&n| vec![n]).collect());
        let op = FromDelayed::<T> { block: value.block, _t: PhantomData };
        Array::built(Node::new("from_delayed", T::DTYPE, chunks, vec![value.node.clone()], op))
    }
}

/// The layer of [`Array::from_delayed`]: the delayed ndarray as its one block.
struct FromDelayed<T> {
    block: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for FromDelayed<T> {
    fn deps(&self, _: &Node, _: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, self.block));
    }
    fn run(&self, node: &Node, _: &[usize], inputs: &[&Block]) -> Result<Block> {
        let value = value_of::<ArrayD<T>>(inputs[0], "from_delayed input")?;
        let shape = node.shape();
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
