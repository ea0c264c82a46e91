//! Schedulers: run a [`TaskGraph`] and hand each output block to a sink.
//!
//! Every scheduler gives the same results for the same graph. Blocks are released
//! right after their last consumer ran, so the memory held is the frontier of the
//! static order, not the whole graph.

pub(crate) mod spread;
mod sync;
mod threaded;

use std::time::Duration;

pub use sync::SyncScheduler;
pub use threaded::ThreadedScheduler;

use crate::block::Block;
use crate::error::Result;
use crate::events::RunObserver;
use crate::graph::task::TaskGraph;
use crate::memory::{MemoryConfig, TierStats};

/// Receives each output block as soon as it is computed: (task number, block).
pub type OutputSink<'a> = dyn Fn(usize, &Block) -> Result<()> + Sync + 'a;

/// What a run did: tasks run, wall time, and what the memory tiers saw.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{Array, Context};
/// let (_, stats) = Array::<f64>::ones(&[6], 2)?.compute_stats(&Context::sync())?;
/// assert_eq!(stats.tasks, 3); // one per block
/// assert_eq!(stats.tiers.spilled, 0);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunStats {
    /// Tasks run.
    pub tasks: usize,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Peaks, spills, drops and device moves of the run's blocks.
    pub tiers: TierStats,
}

/// Where the output blocks of a run go when it spans several processes (MPI
/// ranks); one process gets them all either way.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use std::sync::Mutex;
/// use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
/// use chunked_array::runtime::{Block, Deliver, MemoryConfig, NoObserver, Run};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
/// let got = Mutex::new(Vec::new());
/// let sink = |t: usize, _: &Block| -> chunked_array::Result<()> {
///     got.lock().unwrap().push(t);
///     Ok(())
/// };
///
/// let memory = MemoryConfig::default();
/// let run = Run { graph: &g, deliver: Deliver::Owners, sink: &sink, observer: &NoObserver, memory: &memory };
/// SyncScheduler.execute(&run)?;
/// assert_eq!(got.into_inner().unwrap().len(), 3); // one process owns every block
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deliver {
    /// To the processes that receive results (`compute`): rank 0, or every
    /// rank, as the scheduler is set up.
    Result,
    /// Each output block to the process that owns it in the even spread of the
    /// output's blocks over the processes (`persist`, `store`): block `b` of `n`
    /// to the process [`crate::runtime::owner_of`]`(b, n, processes)`, which is
    /// also where a later run's source task for it is placed.
    Owners,
}

/// One run handed to a [`Scheduler`]: the tasks, where outputs go, who
/// watches, and the memory limits.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use std::sync::Mutex;
/// use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
/// use chunked_array::runtime::{Block, Deliver, MemoryConfig, NoObserver, Run};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
/// let got = Mutex::new(Vec::new());
/// let sink = |t: usize, _: &Block| -> chunked_array::Result<()> {
///     got.lock().unwrap().push(t);
///     Ok(())
/// };
///
/// let memory = MemoryConfig::default();
/// let run = Run { graph: &g, deliver: Deliver::Result, sink: &sink, observer: &NoObserver, memory: &memory };
/// let stats = SyncScheduler.execute(&run)?;
/// let mut got = got.into_inner().unwrap();
/// got.sort();
/// assert_eq!((stats.tasks, got), (3, vec![0, 1, 2])); // every task makes an output
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct Run<'a> {
    /// The tasks to run.
    pub graph: &'a TaskGraph,
    /// Where output blocks go in a run over several processes.
    pub deliver: Deliver,
    /// Receives each output block delivered to this process.
    pub sink: &'a OutputSink<'a>,
    /// Hears every task run here and every block moving between tiers.
    pub observer: &'a dyn RunObserver,
    /// The memory limits of this process.
    pub memory: &'a MemoryConfig,
}

/// Runs task graphs. Implemented by [`SyncScheduler`], [`ThreadedScheduler`] and,
/// in `chunked-distributed`, the MPI scheduler.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use chunked_array::{runtime::Run, Array, Context, Result, RunStats, Scheduler, SyncScheduler};
/// /// Counts its runs, and runs them as the sync scheduler does.
/// #[derive(Default)]
/// struct Counting(AtomicUsize);
/// impl Scheduler for Counting {
///     fn name(&self) -> &str {
///         "counting"
///     }
///     fn execute(&self, run: &Run<'_>) -> Result<RunStats> {
///         self.0.fetch_add(1, Ordering::Relaxed);
///         SyncScheduler.execute(run)
///     }
/// }
/// let counting = Arc::new(Counting::default());
/// let ctx = Context::with_scheduler(counting.clone());
/// assert_eq!(Array::<f64>::ones(&[4], 2)?.sum(None)?.compute_on(&ctx)?[[]], 4.0);
/// assert_eq!(counting.0.load(Ordering::Relaxed), 1);
/// # Ok(()) }
/// ```
pub trait Scheduler: Send + Sync {
    /// A short name ("sync", "threads").
    ///
    /// ```
    /// use chunked_array::{Context, Scheduler, SyncScheduler, ThreadedScheduler};
    /// assert_eq!(SyncScheduler.name(), "sync");
    /// assert_eq!(ThreadedScheduler::new(2).name(), "threads");
    /// assert_eq!(Context::default().scheduler().name(), "threads");
    /// ```
    fn name(&self) -> &str;
    /// Runs every task of `run.graph` within the memory limits of `run.memory`,
    /// calling `run.sink` for each output task delivered to this process (see
    /// [`Deliver`]; all of them in a one-process run) and reporting every task
    /// run here to `run.observer`.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use std::sync::Mutex;
    /// use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// use chunked_array::runtime::{Block, Deliver, MemoryConfig, NoObserver, Run};
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
    /// let got = Mutex::new(Vec::new());
    /// let sink = |t: usize, _: &Block| -> chunked_array::Result<()> {
    ///     got.lock().unwrap().push(t);
    ///     Ok(())
    /// };
    ///
    /// let memory = MemoryConfig::default();
    /// let run = Run { graph: &g, deliver: Deliver::Result, sink: &sink, observer: &NoObserver, memory: &memory };
    /// let stats = SyncScheduler.execute(&run)?;
    /// assert_eq!(stats.tasks, g.len());
    /// assert_eq!(got.into_inner().unwrap().len(), 3);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// The first task error ([`crate::Error::Task`] naming its key, or the
    /// task's own `Io`, `Device` or numerical error), sink error or
    /// [`crate::Error::ResourcesExhausted`]; the run stops without hanging.
    fn execute(&self, run: &Run<'_>) -> Result<RunStats>;
    /// Threads that run tasks in this process (1 unless the scheduler runs
    /// tasks in parallel): how many single-task runs a
    /// [`crate::futures::Client`] keeps going at once.
    ///
    /// ```
    /// use chunked_array::{Scheduler, SyncScheduler, ThreadedScheduler};
    /// assert_eq!(SyncScheduler.workers(), 1);
    /// assert_eq!(ThreadedScheduler::new(3).workers(), 3);
    /// ```
    fn workers(&self) -> usize {
        1
    }
    /// This process's number among the processes that run each graph together
    /// (the MPI rank; 0 for one-process schedulers).
    ///
    /// ```
    /// use chunked_array::{Scheduler, SyncScheduler, ThreadedScheduler};
    /// assert_eq!(SyncScheduler.rank(), 0);
    /// assert_eq!(ThreadedScheduler::new(2).rank(), 0);
    /// ```
    fn rank(&self) -> usize {
        0
    }
    /// How many processes run each graph together (1 for one-process schedulers).
    ///
    /// ```
    /// use chunked_array::{Context, Scheduler, SyncScheduler};
    /// assert_eq!(SyncScheduler.processes(), 1);
    /// assert_eq!(Context::threads(2).scheduler().processes(), 1);
    /// ```
    fn processes(&self) -> usize {
        1
    }
    /// Whether this process receives the results of [`Deliver::Result`] runs.
    ///
    /// ```
    /// use chunked_array::{Scheduler, SyncScheduler, ThreadedScheduler};
    /// assert!(SyncScheduler.receives_result());
    /// assert!(ThreadedScheduler::new(2).receives_result());
    /// ```
    fn receives_result(&self) -> bool {
        true
    }
    /// Rank 0's `bytes`, on every process of the run (a collective call: every
    /// process makes it, in the same order as its runs). One-process schedulers
    /// return them as they are. Used where one process must decide for all,
    /// as when rank 0 prepares a store.
    ///
    /// ```
    /// use chunked_array::{Scheduler, SyncScheduler};
    /// assert_eq!(SyncScheduler.share_from_root(vec![1, 2, 3]), vec![1, 2, 3]); // one process: as it is
    /// ```
    fn share_from_root(&self, bytes: Vec<u8>) -> Vec<u8> {
        bytes
    }
    /// The first process whose `ok` is false, on every process (a collective
    /// call, as [`Scheduler::share_from_root`]); `None` when every one's is
    /// true. Used before a collective step, so that an error on one process
    /// ends the step on all instead of leaving the others waiting for it.
    ///
    /// ```
    /// use chunked_array::{Scheduler, SyncScheduler};
    /// assert_eq!(SyncScheduler.first_failed(true), None);
    /// assert_eq!(SyncScheduler.first_failed(false), Some(0)); // one process: itself
    /// ```
    fn first_failed(&self, ok: bool) -> Option<usize> {
        (!ok).then_some(0)
    }
}
