//! Schedulers: run a [`TaskGraph`] and hand each output block to a sink.
//!
//! Every scheduler gives the same results for the same graph. Blocks are released
//! right after their last consumer ran, so the memory held is the frontier of the
//! static order, not the whole graph.

mod allocator;
mod sync;
mod threaded;

use std::sync::Arc;
use std::time::Duration;

pub use allocator::{release_memory, tune_allocator};
pub use sync::SyncScheduler;
pub use threaded::ThreadedScheduler;

use crate::error::Result;
use crate::graph::task::TaskGraph;
use crate::graph::Block;

/// Receives each output block as soon as it is computed: (task number, block).
pub type OutputSink<'a> = dyn Fn(usize, &Block) -> Result<()> + Sync + 'a;

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// Tasks run.
    pub tasks: usize,
    /// Largest number of bytes held in blocks at once (outputs included until sunk).
    pub peak_bytes: usize,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// Runs task graphs. Implemented by [`SyncScheduler`], [`ThreadedScheduler`] and,
/// in `chunked-distributed`, the MPI scheduler.
pub trait Scheduler: Send + Sync {
    /// A short name ("sync", "threads").
    fn name(&self) -> &str;
    /// Runs every task of `graph`, calling `sink` for each output task.
    ///
    /// # Errors
    /// The first task error ([`crate::Error::Task`] naming its key) or sink error;
    /// the run stops without hanging.
    fn execute(&self, graph: &TaskGraph, sink: &OutputSink<'_>) -> Result<RunStats>;
}

/// Execution resources: which scheduler runs the graph.
///
/// ```
/// use chunked_array::{Array, Context};
/// let x = Array::<f64>::ones(&[10], 3).unwrap();
/// let total = x.sum(None).unwrap().compute_with(&Context::sync()).unwrap();
/// assert_eq!(total[[]], 10.0);
/// ```
#[derive(Clone)]
pub struct Context {
    scheduler: Arc<dyn Scheduler>,
}

impl Context {
    /// A context that runs with the given scheduler.
    pub fn with_scheduler(scheduler: Arc<dyn Scheduler>) -> Self {
        Context { scheduler }
    }

    /// One thread, deterministic order (for debugging).
    pub fn sync() -> Self {
        Self::with_scheduler(Arc::new(SyncScheduler))
    }

    /// `threads` worker threads (0 means all cores).
    pub fn threads(threads: usize) -> Self {
        Self::with_scheduler(Arc::new(ThreadedScheduler::new(threads)))
    }

    /// The scheduler in use.
    pub fn scheduler(&self) -> &dyn Scheduler {
        &*self.scheduler
    }
}

impl Default for Context {
    /// The threaded scheduler on all cores.
    fn default() -> Self {
        Self::threads(0)
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Context({})", self.scheduler.name())
    }
}
