//! The store layer: one task per block writes that block to its target as soon as
//! it is computed, so a store streams and never holds the whole array.

use std::any::Any;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::array::{run_blocks, Array, Collector};
use crate::element::{DType, Element};
use crate::error::Result;
use crate::graph::{Block, BlockOp, BlockValue, Node};
use crate::schedule::{Context, RunStats};

/// What a store does when its target already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriteMode {
    /// Fail when the target exists (the default: data is never replaced by accident).
    #[default]
    Create,
    /// Replace an existing target of the same kind. A path that holds something
    /// else (a directory that is not a Zarr array, say) is never removed.
    Overwrite,
    /// Continue an interrupted store (Zarr only): chunks that an earlier run wrote
    /// completely are verified by decoding them and skipped; the others are
    /// computed and written. Creates the target when it does not exist.
    Resume,
}

/// What a store did.
#[derive(Debug, Clone, Default)]
pub struct StoreReport {
    /// Chunks computed and written by this run.
    pub chunks_written: usize,
    /// Chunks found complete from an earlier run and skipped ([`WriteMode::Resume`]).
    pub chunks_skipped: usize,
    /// Bytes written to storage (after compression).
    pub bytes_written: u64,
    /// The run's task count, peak bytes held in blocks and time.
    pub stats: RunStats,
}

/// Writes one block (which is exactly one stored chunk) to the target.
pub(crate) trait ChunkWriter: Send + Sync + 'static {
    /// Writes block `idx` and returns the bytes that reached storage.
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64>;
}

/// A store task's output: the bytes it wrote.
struct Written(u64);

impl BlockValue for Written {
    fn nbytes(&self) -> usize {
        std::mem::size_of::<u64>()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

struct StoreOp<W>(W);

impl<W: ChunkWriter> BlockOp for StoreOp<W> {
    fn deps(&self, node: &Node, idx: &[usize], out: &mut Vec<(usize, usize)>) {
        out.push((0, node.inputs[0].chunks.linear(idx)));
    }
    fn run(&self, _node: &Node, idx: &[usize], inputs: &[&Block]) -> Result<Block> {
        Ok(Arc::new(Written(self.0.write(idx, inputs[0])?)))
    }
}

#[derive(Default)]
struct Tally {
    chunks: AtomicUsize,
    bytes: AtomicU64,
}

impl Collector for Tally {
    fn accept(&self, _lin: usize, block: &Block) -> Result<()> {
        let bytes = block.as_any().downcast_ref::<Written>().map_or(0, |w| w.0);
        self.chunks.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }
}

/// Computes the listed blocks (C-order linear numbers) of `array` and hands each
/// to `writer` as soon as it is ready; `skipped` is reported as is.
pub(crate) fn store_blocks<T: Element>(
    array: &Array<T>,
    name: &str,
    writer: impl ChunkWriter,
    blocks: Vec<usize>,
    skipped: usize,
    ctx: &Context,
) -> Result<StoreReport> {
    array.check()?;
    if blocks.is_empty() {
        return Ok(StoreReport { chunks_skipped: skipped, ..StoreReport::default() });
    }
    let node = Node::new(name, DType::Intermediate, array.chunks().clone(), vec![array.node.clone()], StoreOp(writer));
    let tally = Tally::default();
    let stats = run_blocks(&[node], &[blocks], ctx, &[&tally])?;
    Ok(StoreReport {
        chunks_written: tally.chunks.load(Ordering::Relaxed),
        chunks_skipped: skipped,
        bytes_written: tally.bytes.load(Ordering::Relaxed),
        stats,
    })
}
