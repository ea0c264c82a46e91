//! Schedulers: run a [`TaskGraph`] and hand each output block to a sink.
//!
//! Every scheduler gives the same results for the same graph. Blocks are released
//! right after their last consumer ran, so the memory held is the frontier of the
//! static order, not the whole graph.

mod allocator;
mod blocks;
pub mod memory;
mod spill;
mod sync;
mod threaded;

use std::sync::Arc;
use std::time::Duration;

pub use allocator::{block_vec, full_block, owned_block, release_memory, set_huge_pages, tune_allocator, uninit_block, HUGE_PAGE_MIN_BYTES};
pub use blocks::{BlockStore, TierStats};
pub use memory::MemoryConfig;
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
    /// Blocks written to the disk tier (memory limit reached).
    pub spilled: usize,
    /// Bytes of the blocks written to disk.
    pub spilled_bytes: u64,
    /// Blocks read back from disk.
    pub unspilled: usize,
    /// Bytes of the blocks read back.
    pub unspilled_bytes: u64,
    /// Tasks run again because a spilled block was lost or damaged.
    pub recomputed: usize,
    /// Blocks of cheap sources (random, constants, ranges) dropped over the
    /// memory limit instead of spilled.
    pub dropped: usize,
    /// Their bytes.
    pub dropped_bytes: u64,
    /// Dropped blocks made again for a task.
    pub regenerated: usize,
    /// Largest number of bytes held in one device's memory at once.
    pub device_peak_bytes: usize,
    /// Device blocks moved to host memory (device memory limit reached).
    pub device_spilled: usize,
    /// Of those, the blocks held in page-locked (pinned) host memory; the
    /// others went to pageable memory, the driver pinning no more.
    pub device_spilled_pinned: usize,
    /// Their bytes.
    pub device_spilled_bytes: u64,
    /// Blocks moved back to their device for a task.
    pub device_unspilled: usize,
    /// Their bytes.
    pub device_unspilled_bytes: u64,
}

impl RunStats {
    /// The statistics of a run from its task count, time and block store.
    pub fn from_tiers(tasks: usize, elapsed: Duration, tiers: TierStats) -> RunStats {
        RunStats {
            tasks,
            peak_bytes: tiers.peak_bytes,
            elapsed,
            spilled: tiers.spilled,
            spilled_bytes: tiers.spilled_bytes,
            unspilled: tiers.unspilled,
            unspilled_bytes: tiers.unspilled_bytes,
            recomputed: tiers.recomputed,
            dropped: tiers.dropped,
            dropped_bytes: tiers.dropped_bytes,
            regenerated: tiers.regenerated,
            device_peak_bytes: tiers.device_peak_bytes,
            device_spilled: tiers.device_spilled,
            device_spilled_pinned: tiers.device_spilled_pinned,
            device_spilled_bytes: tiers.device_spilled_bytes,
            device_unspilled: tiers.device_unspilled,
            device_unspilled_bytes: tiers.device_unspilled_bytes,
        }
    }
}

/// One finished task, as schedulers report it to a [`RunObserver`].
#[derive(Debug, Clone, Copy)]
pub struct TaskEvent {
    /// The task number in the graph.
    pub task: usize,
    /// The worker (thread or rank) that ran it.
    pub worker: usize,
    /// Start and end, in [`Clock`] ticks (0 when the observer wants no timing).
    pub start: u64,
    /// End in [`Clock`] ticks.
    pub end: u64,
    /// Bytes of the task's input blocks.
    pub input_bytes: usize,
    /// Bytes of its output block.
    pub output_bytes: usize,
    /// Bytes held in blocks after the task (outputs included until sunk).
    pub held_bytes: usize,
}

/// What happened to a block in the memory tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TierEventKind {
    /// Written to disk (memory over the limit).
    Spill,
    /// Read back from disk for a task.
    Unspill,
    /// Recomputed from its inputs (its spill file was lost or damaged).
    Recompute,
    /// Dropped over the memory limit (a cheap source's block).
    Drop,
    /// A dropped block made again for a task.
    Regenerate,
    /// Moved from device memory to host memory (device memory over its limit).
    DeviceSpill,
    /// Moved back to its device for a task.
    DeviceUnspill,
}

impl TierEventKind {
    /// "spill", "unspill", "recompute", "drop", "regenerate", "device-spill"
    /// or "device-unspill".
    pub fn name(self) -> &'static str {
        match self {
            TierEventKind::Spill => "spill",
            TierEventKind::Unspill => "unspill",
            TierEventKind::Recompute => "recompute",
            TierEventKind::Drop => "drop",
            TierEventKind::Regenerate => "regenerate",
            TierEventKind::DeviceSpill => "device-spill",
            TierEventKind::DeviceUnspill => "device-unspill",
        }
    }
}

/// A block moving between memory tiers, as the block store reports it.
#[derive(Debug, Clone, Copy)]
pub struct TierEvent {
    /// The task whose block moved.
    pub task: usize,
    /// What happened.
    pub kind: TierEventKind,
    /// Bytes of the block (in memory).
    pub bytes: usize,
    /// When, in [`Clock`] ticks.
    pub at: u64,
}

/// Watches a run: the profiler and the progress bar.
pub trait RunObserver: Sync {
    /// Whether task start and end times are wanted (reading the clock costs a
    /// little per task, so schedulers skip it otherwise).
    fn wants_timing(&self) -> bool {
        false
    }
    /// Called once before the first task, with the number of workers.
    fn run_started(&self, _graph: &TaskGraph, _workers: usize) {}
    /// Called after every task.
    fn task_done(&self, _event: &TaskEvent) {}
    /// Called when a block spills, comes back or is recomputed (rare: only
    /// under a memory limit).
    fn tier_event(&self, _event: &TierEvent) {}
    /// Called on rank 0 of a run over several processes (MPI) with the tasks
    /// another rank finished since its last report, so that rank 0's progress
    /// bar and profile show the whole job. Their `start` and `end` are
    /// nanoseconds since that rank's run started (0 when it took no times).
    fn remote_tasks(&self, _rank: usize, _events: &[TaskEvent]) {}
    /// Called once after the run (also after a failed one).
    fn run_finished(&self, _graph: &TaskGraph) {}
}

/// An observer that watches nothing.
pub struct NoObserver;
impl RunObserver for NoObserver {}

/// A cheap monotonic clock for task spans: the CPU's time-stamp counter on
/// x86-64 (a few ns to read; invariant on the CPUs this runs on), else `Instant`.
/// Ticks are converted to seconds with a rate measured over each run.
#[derive(Debug, Clone, Copy)]
pub struct Clock;

impl Clock {
    /// The current tick.
    #[inline]
    pub fn now() -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: rdtsc has no preconditions.
            unsafe { std::arch::x86_64::_rdtsc() }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
            ORIGIN.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64
        }
    }
}

/// Where the output blocks of a run go when it spans several processes (MPI
/// ranks); one process gets them all either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deliver {
    /// To the processes that receive results (`compute`): rank 0, or every
    /// rank, as the scheduler is set up.
    Result,
    /// Each output block to the process that owns it in the even spread of the
    /// output's blocks over the processes (`persist`, `store`): block `b` of `n`
    /// to the process `chunked_distributed::owner_of(b, n, processes)`, which is
    /// also where a later run's source task for it is placed.
    Owners,
}

/// Runs task graphs. Implemented by [`SyncScheduler`], [`ThreadedScheduler`] and,
/// in `chunked-distributed`, the MPI scheduler.
pub trait Scheduler: Send + Sync {
    /// A short name ("sync", "threads").
    fn name(&self) -> &str;
    /// Runs every task of `graph` within the memory limits of `memory`, calling
    /// `sink` for each output task delivered to this process (see [`Deliver`];
    /// all of them in a one-process run) and reporting every task run here to
    /// `observer`.
    ///
    /// # Errors
    /// The first task error ([`crate::Error::Task`] naming its key), sink error or
    /// [`crate::Error::ResourcesExhausted`]; the run stops without hanging.
    fn execute(&self, graph: &TaskGraph, deliver: Deliver, sink: &OutputSink<'_>, observer: &dyn RunObserver, memory: &MemoryConfig) -> Result<RunStats>;
    /// This process's number among the processes that run each graph together
    /// (the MPI rank; 0 for one-process schedulers).
    fn rank(&self) -> usize {
        0
    }
    /// How many processes run each graph together (1 for one-process schedulers).
    fn processes(&self) -> usize {
        1
    }
    /// Whether this process receives the results of [`Deliver::Result`] runs.
    fn receives_result(&self) -> bool {
        true
    }
    /// Rank 0's `bytes`, on every process of the run (a collective call: every
    /// process makes it, in the same order as its runs). One-process schedulers
    /// return them as they are. Used where one process must decide for all,
    /// as when rank 0 prepares a store.
    fn share_from_root(&self, bytes: Vec<u8>) -> Vec<u8> {
        bytes
    }
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
    profilers: Vec<crate::diagnostics::Profiler>,
    progress: crate::diagnostics::Progress,
    memory: MemoryConfig,
}

impl Context {
    /// A context that runs with the given scheduler.
    pub fn with_scheduler(scheduler: Arc<dyn Scheduler>) -> Self {
        Context { scheduler, profilers: Vec::new(), progress: crate::diagnostics::Progress::Auto, memory: MemoryConfig::default() }
    }

    /// Bytes of blocks that may be held in memory; past it, the least recently
    /// used idle blocks spill to disk (see [`MemoryConfig`]). A plan with a single
    /// task larger than this is refused before it runs.
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory.memory_limit = bytes;
        self
    }

    /// Bytes of device blocks that may be held in device memory (dask-cuda's
    /// `device_memory_limit`); past it, the least recently used idle ones move
    /// to host memory. Default: 80% of the device's memory.
    pub fn with_device_memory_limit(mut self, bytes: usize) -> Self {
        self.memory.device_memory_limit = Some(bytes);
        self
    }

    /// Where blocks spill to (default: the system's temporary directory).
    pub fn with_spill_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.memory.spill_dir = dir.into();
        self
    }

    /// The most bytes the spill directory may hold at once (default: no cap).
    pub fn with_spill_limit(mut self, bytes: u64) -> Self {
        self.memory.spill_limit = bytes;
        self
    }

    /// The memory limits.
    pub fn memory(&self) -> &MemoryConfig {
        &self.memory
    }

    /// Records every task of the runs of this context in `profiler`.
    pub fn with_profiler(mut self, profiler: &crate::diagnostics::Profiler) -> Self {
        self.profilers.push(profiler.clone());
        self
    }

    /// When to show a progress bar (default: when stderr is a terminal).
    pub fn with_progress(mut self, progress: crate::diagnostics::Progress) -> Self {
        self.progress = progress;
        self
    }

    /// The profilers attached.
    pub fn profilers(&self) -> &[crate::diagnostics::Profiler] {
        &self.profilers
    }

    /// The progress-bar setting.
    pub fn progress(&self) -> crate::diagnostics::Progress {
        self.progress
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

/// A value computed on the processes that received a run's result (`Some`:
/// rank 0 always among them), made the same on every process of `ctx`'s runs
/// (rank 0's, through [`crate::Scheduler::share_from_root`]; a one-process
/// run keeps its own).
pub(crate) fn shared_from_root<V>(ctx: &Context, here: Option<V>, encode: impl Fn(&V) -> Vec<u8>, decode: impl Fn(&[u8]) -> V) -> V {
    let scheduler = ctx.scheduler();
    match here {
        Some(v) if scheduler.processes() == 1 => v,
        here => decode(&scheduler.share_from_root(here.as_ref().map(&encode).unwrap_or_default())),
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
