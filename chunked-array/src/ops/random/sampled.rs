//! Random arrays drawn element by element: each element's number is a sampler
//! applied to its own sequence ([`ElementDraws`]), so rejection samplers keep
//! the arrays chunking-invariant. Blocks are made on the host; a layer placed
//! on a device has them copied there.

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::ChunkSpec;
use crate::element::Element;
use crate::error::Result;
use crate::graph::{BlockOp, Node};
use crate::ops::random::RandomState;
use crate::ops::random::element_draws::{ElementDraws, element_key, fill_elements};

/// A sampler: element `i`'s value from element `i`'s draws.
pub(crate) trait Sample<T>: Fn(&mut ElementDraws) -> T + Send + Sync + 'static {}
impl<T, F: Fn(&mut ElementDraws) -> T + Send + Sync + 'static> Sample<T> for F {}

struct Sampled<T, F> {
    key: [u32; 2],
    sample: F,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element, F: Sample<T>> BlockOp for Sampled<T, F> {
    fn position_only(&self) -> bool {
        true
    }

    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let block = super::fill_block(&node.chunks, idx, |g, out| fill_elements(self.key, g, out, &self.sample));
        Ok(Arc::new(block))
    }
}

/// A layer whose blocks are filled run by run: `fill(start, out)` writes the
/// elements from global index `start` on (samplers that work on many
/// elements at once).
struct Filled<T, F> {
    fill: F,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element, F: Fn(u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static> BlockOp for Filled<T, F> {
    fn position_only(&self) -> bool {
        true
    }

    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        Ok(Arc::new(super::fill_block(&node.chunks, idx, &self.fill)))
    }
}

impl RandomState {
    /// An array of `shape` whose runs of elements `fill` writes (see [`Filled`]).
    pub(crate) fn filled<T: Element>(
        &self,
        name: &str,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        fill: impl Fn(u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static,
    ) -> Result<Array<T>> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        Ok(Array::source(name, chunks, Filled { fill, _t: PhantomData }).to_devices(&self.devices))
    }

    /// An array of `shape` whose element `i` is `sample` of element `i`'s draws.
    pub(crate) fn sampled<T: Element>(
        &self,
        name: &str,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        sample: impl Sample<T>,
    ) -> Result<Array<T>> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        let op = Sampled { key: element_key(self.seed, self.stream), sample, _t: PhantomData };
        Ok(Array::source(name, chunks, op).to_devices(&self.devices))
    }
}
