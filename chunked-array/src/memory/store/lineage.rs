//! Blocks made again from their lineage: a task run again from its inputs,
//! which are read where held or spilled, or made again themselves.

use std::sync::atomic::Ordering;

use super::{BlockStore, Slot, lock};
use crate::block::Block;
use crate::error::{Error, Result};
use crate::events::TierEventKind;

/// The most tasks a recomputation goes down through lost blocks (each level a
/// few stack frames on a worker thread).
const MAX_LINEAGE_DEPTH: usize = 512;

impl BlockStore<'_> {
    /// Runs task `t` again from its inputs, recomputing those that were
    /// released or lost too (lineage), `depth` tasks below the first.
    pub(super) fn recompute(&self, t: usize, depth: usize) -> Result<Block> {
        let block = self.run_again(t, depth)?;
        self.recomputed.fetch_add(1, Ordering::Relaxed);
        self.report(t, TierEventKind::Recompute, block.nbytes());
        Ok(block)
    }

    /// A dropped block made again.
    pub(super) fn regenerate(&self, t: usize, depth: usize) -> Result<Block> {
        let block = self.run_again(t, depth)?;
        self.regenerated.fetch_add(1, Ordering::Relaxed);
        self.report(t, TierEventKind::Regenerate, block.nbytes());
        Ok(block)
    }

    /// Task `t` run again from its inputs, which are read, or themselves run
    /// again when released, lost or dropped: a recursion, bounded by
    /// [`MAX_LINEAGE_DEPTH`] so that a long lost chain is an error, not a
    /// stack overflow.
    fn run_again(&self, t: usize, depth: usize) -> Result<Block> {
        if depth >= MAX_LINEAGE_DEPTH {
            let key = self.graph.key(t);
            return Err(Error::invalid("lineage depth", MAX_LINEAGE_DEPTH, format!("is passed recomputing {key}")));
        }
        let mut inputs = Vec::with_capacity(self.graph.deps(t).len());
        for &d in self.graph.deps(t) {
            let d = d as usize;
            let held = {
                let slot = lock(&self.slots[d]);
                match &*slot {
                    Slot::Held { block, .. } => Some(block.clone()),
                    _ => None,
                }
            };
            inputs.push(match held {
                Some(b) => b,
                None => self.read_or_recompute(d, depth + 1)?,
            });
        }
        let refs: Vec<&Block> = inputs.iter().collect();
        self.run_task(t, &refs)
    }

    /// A block for a recomputation, without keeping it: from disk if spilled
    /// (its record stays for its own consumers), made again if dropped, else
    /// recomputed.
    fn read_or_recompute(&self, d: usize, depth: usize) -> Result<Block> {
        let spilled = match &*lock(&self.slots[d]) {
            Slot::Disk { spilled, .. } => Some(*spilled),
            Slot::Dropped => return self.regenerate(d, depth),
            _ => None,
        };
        if let Some(s) = spilled
            && let Ok(b) = self.disk.peek(&s)
        {
            return Ok(b);
        }
        self.recompute(d, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::MAX_LINEAGE_DEPTH;
    use crate::array::Array;
    use crate::events::NoObserver;
    use crate::graph::task::TaskGraph;
    use crate::memory::{BlockStore, MemoryConfig};
    use crate::ops::custom::Layer;

    /// `links` blockwise layers (which do not fuse) after a block of ones.
    fn chain(links: usize) -> TaskGraph {
        let mut x = Array::<f64>::ones(&[4], 4).unwrap();
        for _ in 0..links {
            x = x.map_blocks(|b, _| b.mapv(|v| v + 1.0), None).unwrap();
        }
        Layer::task_graph(&[x.layer()]).unwrap()
    }

    #[test]
    fn a_lost_chain_is_made_again_down_to_the_depth_bound_and_no_further() {
        // A fresh store holds nothing: the last block comes back from the
        // whole chain, one level per link, on a thread with the default stack
        // (as the scheduler's workers have).
        // The deepest chain allowed: its first block is MAX_LINEAGE_DEPTH - 1 below.
        let short = chain(MAX_LINEAGE_DEPTH - 1);
        assert_eq!(short.len(), MAX_LINEAGE_DEPTH);
        let last = short.output_tasks()[0][0] as usize;
        let store = BlockStore::new(&short, &MemoryConfig::default(), &NoObserver);
        let block = std::thread::scope(|s| s.spawn(|| store.recompute(last, 0)).join().unwrap()).unwrap();
        let values = block.as_any().downcast_ref::<ndarray::ArrayD<f64>>().unwrap();
        assert!(values.iter().all(|&v| v == MAX_LINEAGE_DEPTH as f64), "{values}");
        // One link more: an error naming the bound, not a stack overflow.
        let long = chain(MAX_LINEAGE_DEPTH);
        let last = long.output_tasks()[0][0] as usize;
        let store = BlockStore::new(&long, &MemoryConfig::default(), &NoObserver);
        let result = std::thread::scope(|s| s.spawn(|| store.recompute(last, 0).map(drop)).join().unwrap());
        let err = result.unwrap_err();
        assert!(err.to_string().contains("lineage depth") && err.to_string().contains("512"), "{err}");
    }
}
