//! `broadcast_to`: an array stretched to a larger shape (NumPy's rules), each
//! output block a broadcast view of one input block.

use std::sync::Arc;

use ndarray::IxDyn;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node, block_as};

/// Broadcasts a block to the output block's shape.
struct Broadcast<T> {
    lead: usize,
    /// Per input axis: whether it is stretched from length 1.
    stretched: Vec<bool>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Element> BlockOp for Broadcast<T> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        let src: Vec<usize> =
            self.stretched.iter().enumerate().map(|(a, &s)| if s { 0 } else { idx[a + self.lead] }).collect();
        out.push((0, node.inputs[0].chunks.linear(&src)));
    }
    fn run(&self, node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        let a = block_as::<T>(inputs[0], node, "broadcast_to")?;
        let shape = node.chunks.block_shape(idx);
        let view = a.broadcast(IxDyn(&shape)).ok_or_else(|| Error::shape("broadcast_to block", a.shape(), &shape))?;
        Ok(Arc::new(crate::block::alloc::owned_block(view)))
    }
}

impl<T: Element> Array<T> {
    /// Broadcasts to `shape` (NumPy's `broadcast_to`). Axes that are new or
    /// stretched from length 1 are one block each.
    ///
    /// ```
    /// use chunked_array::{Array, ndarray::array};
    /// let x = Array::from_vec(&[3], vec![1, 2, 3], 2).unwrap();
    /// // NumPy: np.broadcast_to(x, (2, 3))
    /// let y = x.broadcast_to(&[2, 3]).unwrap();
    /// assert_eq!(y.compute().unwrap(), array![[1, 2, 3], [1, 2, 3]].into_dyn());
    /// assert!(x.broadcast_to(&[2, 4]).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shape does not broadcast.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array<T>> {
        self.broadcast_to_chunks(shape, &vec![None; shape.len()])
    }

    /// [`Array::broadcast_to`] with the block lengths of the new and stretched
    /// axes given (`chunks[axis]`; `None`: one block), so that a long stretched
    /// axis can follow the blocks of the array it is combined with.
    pub(crate) fn broadcast_to_chunks(&self, shape: &[usize], chunks: &[Option<Vec<usize>>]) -> Result<Array<T>> {
        self.check()?;
        let own = self.shape();
        if own.len() > shape.len() {
            return Err(Error::shape("broadcast_to", &own, shape));
        }
        let made = |axis: usize| -> Result<Vec<usize>> {
            match chunks.get(axis).cloned().flatten() {
                Some(c) if c.iter().sum::<usize>() == shape[axis] => Ok(c),
                Some(c) => Err(Error::invalid(
                    "chunks",
                    c,
                    format!("do not add up to the length {} of axis {axis}", shape[axis]),
                )),
                None => Ok(vec![shape[axis]]),
            }
        };
        let lead = shape.len() - own.len();
        let mut stretched = Vec::with_capacity(own.len());
        let mut lengths: Vec<Vec<usize>> = (0..lead).map(made).collect::<Result<_>>()?;
        for (a, &n) in own.iter().enumerate() {
            let target = shape[a + lead];
            if n == target {
                stretched.push(false);
                lengths.push(self.chunks().lengths()[a].clone());
            } else if n == 1 {
                stretched.push(true);
                lengths.push(made(a + lead)?);
            } else {
                return Err(Error::shape("broadcast_to", &own, shape));
            }
        }
        let op = Broadcast::<T> { lead, stretched, _t: std::marker::PhantomData };
        Array::built(Node::new("broadcast_to", T::DTYPE, Chunks::from_lengths(lengths), vec![self.node.clone()], op))
    }
}
