//! Random arrays drawn element by element: each element's number is a sampler
//! applied to its own sequence ([`ElementDraws`]), so rejection samplers keep
//! the arrays chunking-invariant. Blocks are made on the host; a layer placed
//! on a device has them copied there.

use std::marker::PhantomData;
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

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
        Ok(Arc::new(self.block(&node.chunks, idx)))
    }
}

impl<T: Element, F: Sample<T>> Sampled<T, F> {
    fn block(&self, chunks: &Chunks, idx: &[usize]) -> ArrayD<T> {
        let shape = chunks.block_shape(idx);
        let total: usize = shape.iter().product();
        let mut out: Vec<T> = crate::block::alloc::block_vec(total);
        let spare = &mut out.spare_capacity_mut()[..total];
        let mut written = 0;
        super::for_each_run(chunks, idx, |g, run| {
            fill_elements(self.key, g, &mut spare[written..written + run], &self.sample);
            written += run;
        });
        assert_eq!(written, total, "the runs cover the block");
        // SAFETY: the runs above wrote every one of the `total` elements.
        unsafe { out.set_len(total) };
        ArrayD::from_shape_vec(IxDyn(&shape), out).expect("length matches shape")
    }
}

impl RandomState {
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
