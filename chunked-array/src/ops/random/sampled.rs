//! Random arrays drawn element by element: each element's number is a sampler
//! applied to its own sequence ([`ElementDraws`]), so rejection samplers keep
//! the arrays chunking-invariant. Blocks are made on the host; a layer placed
//! on a device has them copied there.

use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::Result;
use crate::graph::{BlockOp, Node};
use crate::ops::random::RandomState;
use crate::ops::random::element_draws::{ElementDraws, element_key, fill_elements};

/// A sampler: element `i`'s value from element `i`'s draws.
pub(crate) trait Sample<T>: Fn(&mut ElementDraws) -> T + Send + Sync + 'static {}
impl<T, F: Fn(&mut ElementDraws) -> T + Send + Sync + 'static> Sample<T> for F {}

/// A layer whose blocks are filled run by run: `fill(start, out)` writes the
/// elements from global index `start` on. Per-element samplers, samplers of
/// many elements at once and vector samplers are all such fills.
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
    /// An array of `shape` whose runs of elements `fill` writes.
    pub(crate) fn filled<T: Element>(
        &self,
        name: &str,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        fill: impl Fn(u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static,
    ) -> Result<Array<T>> {
        Ok(self.filled_on(name, chunks.into().resolve(shape, T::DTYPE)?, fill))
    }

    /// [`RandomState::filled`] on resolved `chunks`.
    pub(crate) fn filled_on<T: Element>(
        &self,
        name: &str,
        chunks: Chunks,
        fill: impl Fn(u64, &mut [MaybeUninit<T>]) + Send + Sync + 'static,
    ) -> Array<T> {
        Array::source(name, chunks, Filled { fill, _t: PhantomData }).to_devices(&self.devices)
    }

    /// An array of `shape` whose element `i` is `sample` of element `i`'s draws.
    pub(crate) fn sampled<T: Element>(
        &self,
        name: &str,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
        sample: impl Sample<T>,
    ) -> Result<Array<T>> {
        let key = element_key(self.seed, self.stream);
        self.filled(name, shape, chunks, move |first, out| fill_elements(key, first, out, &|_, d| sample(d)))
    }
}
