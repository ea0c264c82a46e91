//! The single-threaded scheduler: tasks in static order, one at a time.

use std::time::Instant;

use crate::block::Block;
use crate::error::Result;
use crate::events::{Clock, TaskEvent};
use crate::memory::store::BlockStore;
use crate::schedule::{Run, RunStats, Scheduler};

/// Runs tasks one after another in the graph's static order
/// ([`TaskGraph::order`](crate::graph::task::TaskGraph::order)). Deterministic; the
/// reference every other scheduler must agree with.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use std::sync::Arc;
/// use chunked_array::{Array, Context, SyncScheduler};
/// let ctx = Context::with_scheduler(Arc::new(SyncScheduler)); // as Context::sync()
/// let x = Array::<i64>::arange(0, 10, 1, 3)?;
/// assert_eq!(x.sum(None)?.compute_on(&ctx)?[[]], 45);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncScheduler;

impl Scheduler for SyncScheduler {
    fn name(&self) -> &str {
        "sync"
    }

    fn execute(&self, run: &Run<'_>) -> Result<RunStats> {
        let Run { graph, sink, observer, memory, .. } = *run;
        crate::block::alloc::tune_allocator();
        let start = Instant::now();
        let n = graph.len();
        let store = BlockStore::new(graph, memory, observer);
        let mut left: Vec<u32> = (0..n).map(|t| graph.consumers(t).len() as u32).collect();
        let mut inputs: Vec<Block> = Vec::new();
        let timing = observer.wants_timing();
        observer.run_started(graph, 1);
        let result = (|| -> Result<()> {
            for &t in graph.order() {
                let t = t as usize;
                inputs.clear();
                for &d in graph.deps(t) {
                    inputs.push(store.input(d as usize, t)?);
                }
                let refs: Vec<&Block> = inputs.iter().collect();
                let input_bytes = inputs.iter().map(|b| b.nbytes()).sum();
                let started = if timing { Clock::now() } else { 0 };
                let block = store.run_task(t, &refs)?;
                let ended = if timing { Clock::now() } else { 0 };
                drop(refs);
                inputs.clear();
                let output_bytes = block.nbytes();
                store.count(&block);
                if graph.is_output(t) {
                    sink(t, &block)?;
                }
                for &d in graph.deps(t) {
                    let d = d as usize;
                    left[d] -= 1;
                    if left[d] == 0 {
                        store.release(d);
                    }
                }
                if left[t] > 0 {
                    store.insert(t, block);
                } else {
                    store.uncount(&block);
                }
                store.make_room()?;
                observer.task_done(&TaskEvent {
                    task: t,
                    worker: 0,
                    start: started,
                    end: ended,
                    input_bytes,
                    output_bytes,
                    held_bytes: store.held(),
                    device_bytes: store.device_held(),
                    disk_bytes: store.disk_held(),
                });
            }
            Ok(())
        })();
        observer.run_finished(graph);
        result?;
        Ok(RunStats { tasks: n, elapsed: start.elapsed(), tiers: store.stats() })
    }
}
