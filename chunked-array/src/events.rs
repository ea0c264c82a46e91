//! What observers of a run hear: finished tasks and blocks moving between
//! memory tiers, with the clock that times them. Schedulers and the block
//! store report; the profiler and the progress bar listen.

use crate::graph::task::TaskGraph;

/// One finished task, as schedulers report it to a [`RunObserver`].
///
/// ```
/// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
/// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
/// use std::sync::Mutex;
/// use chunked_array::runtime::{RunObserver, TaskEvent};
/// struct OutputBytes(Mutex<Vec<usize>>);
/// impl RunObserver for OutputBytes {
///     fn task_done(&self, e: &TaskEvent) {
///         self.0.lock().unwrap().push(e.output_bytes);
///     }
/// }
/// # fn main() -> chunked_array::Result<()> {
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
/// # let memory = MemoryConfig::default();
/// let seen = OutputBytes(Mutex::new(Vec::new()));
/// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &seen, memory: &memory })?;
/// assert_eq!(*seen.0.lock().unwrap(), [16, 16, 16]); // three blocks of two f64
/// # Ok(()) }
/// ```
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
///
/// ```
/// use chunked_array::runtime::TierEventKind;
/// let kind = TierEventKind::Drop;
/// assert_eq!(kind.name(), "drop");
/// assert_ne!(kind, TierEventKind::Spill);
/// ```
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
    ///
    /// ```
    /// use chunked_array::runtime::TierEventKind;
    /// assert_eq!(TierEventKind::Spill.name(), "spill");
    /// assert_eq!(TierEventKind::DeviceUnspill.name(), "device-unspill");
    /// ```
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
///
/// ```
/// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
/// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
/// use std::sync::Mutex;
/// use chunked_array::runtime::{RunObserver, TierEvent, TierEventKind};
/// struct Kinds(Mutex<Vec<TierEventKind>>);
/// impl RunObserver for Kinds {
///     fn tier_event(&self, e: &TierEvent) {
///         self.0.lock().unwrap().push(e.kind);
///     }
/// }
/// # fn main() -> chunked_array::Result<()> {
/// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
/// // No room at all: each `ones` block is dropped, then made again for its reader.
/// let memory = MemoryConfig { memory_limit: 0, ..MemoryConfig::default() };
/// let kinds = Kinds(Mutex::new(Vec::new()));
/// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &kinds, memory: &memory })?;
/// let kinds = kinds.0.into_inner().unwrap();
/// assert_eq!(kinds.iter().filter(|&&k| k == TierEventKind::Drop).count(), 2);
/// assert_eq!(kinds.iter().filter(|&&k| k == TierEventKind::Regenerate).count(), 2);
/// # Ok(()) }
/// ```
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

/// Watches one run: the profiler's recorder and the progress bar. Schedulers
/// call it from their workers, so its hot path ([`RunObserver::task_done`])
/// stays cheap.
///
/// ```
/// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
/// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use chunked_array::runtime::{RunObserver, TaskEvent};
/// struct Count(AtomicUsize);
/// impl RunObserver for Count {
///     fn task_done(&self, _: &TaskEvent) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
/// # fn main() -> chunked_array::Result<()> {
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
/// # let memory = MemoryConfig::default();
/// let count = Count(AtomicUsize::new(0));
/// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &count, memory: &memory })?;
/// assert_eq!(count.0.load(Ordering::Relaxed), g.len());
/// # Ok(()) }
/// ```
pub trait RunObserver: Sync {
    /// Whether task start and end times are wanted (reading the clock costs a
    /// little per task, so schedulers skip it otherwise).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::Mutex;
    /// use chunked_array::runtime::{RunObserver, TaskEvent};
    /// struct Times(Mutex<Vec<(u64, u64)>>);
    /// impl RunObserver for Times {
    ///     fn wants_timing(&self) -> bool {
    ///         true
    ///     }
    ///     fn task_done(&self, e: &TaskEvent) {
    ///         self.0.lock().unwrap().push((e.start, e.end));
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
    /// # let memory = MemoryConfig::default();
    /// let times = Times(Mutex::new(Vec::new()));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &times, memory: &memory })?;
    /// assert!(times.0.lock().unwrap().iter().all(|&(start, end)| start > 0 && end >= start));
    /// # Ok(()) }
    /// ```
    fn wants_timing(&self) -> bool {
        false
    }
    /// Called once before the first task, with the number of workers.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::Mutex;
    /// use chunked_array::runtime::{RunObserver, TaskGraph};
    /// struct Started(Mutex<Option<(usize, usize)>>);
    /// impl RunObserver for Started {
    ///     fn run_started(&self, graph: &TaskGraph, workers: usize) {
    ///         *self.0.lock().unwrap() = Some((graph.len(), workers));
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
    /// # let memory = MemoryConfig::default();
    /// let started = Started(Mutex::new(None));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &started, memory: &memory })?;
    /// assert_eq!(*started.0.lock().unwrap(), Some((3, 1))); // 3 tasks, one worker
    /// # Ok(()) }
    /// ```
    fn run_started(&self, _graph: &TaskGraph, _workers: usize) {}
    /// Called after every task.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::Mutex;
    /// use chunked_array::runtime::{RunObserver, TaskEvent};
    /// struct Done(Mutex<Vec<usize>>);
    /// impl RunObserver for Done {
    ///     fn task_done(&self, e: &TaskEvent) {
    ///         self.0.lock().unwrap().push(e.task);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
    /// # let memory = MemoryConfig::default();
    /// let done = Done(Mutex::new(Vec::new()));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &done, memory: &memory })?;
    /// let order: Vec<usize> = g.order().iter().map(|&t| t as usize).collect();
    /// assert_eq!(*done.0.lock().unwrap(), order); // one at a time, in the static order
    /// # Ok(()) }
    /// ```
    fn task_done(&self, _event: &TaskEvent) {}
    /// Called when a block spills, comes back or is recomputed (rare: only
    /// under a memory limit).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use chunked_array::runtime::{RunObserver, TierEvent};
    /// struct Moved(AtomicUsize);
    /// impl RunObserver for Moved {
    ///     fn tier_event(&self, e: &TierEvent) {
    ///         self.0.fetch_add(e.bytes, Ordering::Relaxed);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let memory = MemoryConfig { memory_limit: 0, ..MemoryConfig::default() }; // no room
    /// let moved = Moved(AtomicUsize::new(0));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &moved, memory: &memory })?;
    /// assert_eq!(moved.0.load(Ordering::Relaxed), 4 * 16); // 2 blocks dropped and made again
    /// # Ok(()) }
    /// ```
    fn tier_event(&self, _event: &TierEvent) {}
    /// Called on rank 0 of a run over several processes (MPI) with the tasks
    /// another rank finished since its last report, so that rank 0's progress
    /// bar and profile show the whole job. Their `start` and `end` are
    /// nanoseconds since that rank's run started (0 when it took no times).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use chunked_array::runtime::{RunObserver, TaskEvent};
    /// struct Remote(AtomicUsize);
    /// impl RunObserver for Remote {
    ///     fn remote_tasks(&self, _rank: usize, events: &[TaskEvent]) {
    ///         self.0.fetch_add(events.len(), Ordering::Relaxed);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
    /// # let memory = MemoryConfig::default();
    /// let remote = Remote(AtomicUsize::new(0));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &remote, memory: &memory })?;
    /// assert_eq!(remote.0.load(Ordering::Relaxed), 0); // one process: no other ranks
    /// # Ok(()) }
    /// ```
    fn remote_tasks(&self, _rank: usize, _events: &[TaskEvent]) {}
    /// Called once after the run (also after a failed one).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use chunked_array::runtime::{RunObserver, TaskGraph};
    /// struct Finished(AtomicBool);
    /// impl RunObserver for Finished {
    ///     fn run_finished(&self, _: &TaskGraph) {
    ///         self.0.store(true, Ordering::Relaxed);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
    /// # let memory = MemoryConfig::default();
    /// let finished = Finished(AtomicBool::new(false));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &finished, memory: &memory })?;
    /// assert!(finished.0.load(Ordering::Relaxed));
    /// # Ok(()) }
    /// ```
    fn run_finished(&self, _graph: &TaskGraph) {}
}

/// An observer that watches nothing.
///
/// ```
/// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
/// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
/// use chunked_array::runtime::NoObserver;
/// # fn main() -> chunked_array::Result<()> {
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?; // 3 tasks
/// # let memory = MemoryConfig::default();
/// let stats = SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &NoObserver, memory: &memory })?;
/// assert_eq!(stats.tasks, 3);
/// # Ok(()) }
/// ```
pub struct NoObserver;
impl RunObserver for NoObserver {}

/// A cheap monotonic clock for task spans: the CPU's time-stamp counter on
/// x86-64 (a few ns to read; invariant on the CPUs this runs on), else `Instant`.
/// Ticks are converted to seconds with a rate measured over each run.
///
/// ```
/// use chunked_array::runtime::Clock;
/// let start = Clock::now();
/// let end = Clock::now();
/// assert!(end >= start);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Clock;

impl Clock {
    /// The current tick.
    ///
    /// ```
    /// use chunked_array::runtime::Clock;
    /// let before = Clock::now();
    /// std::thread::sleep(std::time::Duration::from_millis(1));
    /// assert!(Clock::now() > before); // it advances
    /// ```
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

/// The run an [`Observer`] is asked to watch.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{custom::Layer, diagnostics::{Profiler, Progress}, Array};
/// use chunked_array::runtime::{Observer, RunInfo};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
/// let info = RunInfo { graph: &g, label: "ones", rank: 0, memory_limit: 1 << 30 };
/// assert!(Profiler::new().observe(&info).is_some());
/// assert!(Progress::Never.observe(&info).is_none());
/// # Ok(()) }
/// ```
#[derive(Clone, Copy)]
pub struct RunInfo<'a> {
    /// The tasks of the run.
    pub graph: &'a TaskGraph,
    /// The first output's layer label (`sum-12`), as progress bars title the run.
    pub label: &'a str,
    /// This process's rank among the processes of the run (0 in one process).
    pub rank: usize,
    /// Host memory limit of the run, in bytes.
    pub memory_limit: usize,
}

/// Watches the runs of a [`crate::Context`]: asked at the start of each run, it
/// returns the [`RunObserver`] for that run (or none). The profiler and the
/// progress-bar setting are observers; anything else implementing this trait
/// can be attached with [`crate::Context::with_observer`].
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// use chunked_array::runtime::{Observer, RunInfo, RunObserver, TaskEvent};
/// use chunked_array::{Array, Context};
///
/// #[derive(Default)]
/// struct CountTasks(AtomicUsize);
/// impl RunObserver for CountTasks {
///     fn task_done(&self, _: &TaskEvent) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
/// impl Observer for CountTasks {
///     fn observe<'a>(&'a self, _run: &RunInfo<'_>) -> Option<Box<dyn RunObserver + 'a>> {
///         Some(Box::new(CountRef(self)))
///     }
/// }
/// struct CountRef<'a>(&'a CountTasks);
/// impl RunObserver for CountRef<'_> {
///     fn task_done(&self, e: &TaskEvent) {
///         self.0.task_done(e)
///     }
/// }
///
/// let counter = Arc::new(CountTasks::default());
/// let ctx = Context::sync().with_observer(counter.clone());
/// Array::<f64>::ones(&[10], 5).unwrap().sum(None).unwrap().compute_on(&ctx).unwrap();
/// assert!(counter.0.load(Ordering::Relaxed) >= 3);
/// ```
pub trait Observer: Send + Sync {
    /// The observer of the run `run`, or `None` to sit this run out.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{custom::Layer, diagnostics::{Profiler, Progress}, Array};
    /// use chunked_array::runtime::{Observer, RunInfo};
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
    /// let info = RunInfo { graph: &g, label: "ones", rank: 1, memory_limit: 1 << 30 };
    /// assert!(Progress::Always.observe(&info).is_none()); // rank 0 draws the bar
    /// assert!(Profiler::new().observe(&info).is_some()); // each rank records its tasks
    /// # Ok(()) }
    /// ```
    fn observe<'a>(&'a self, run: &RunInfo<'_>) -> Option<Box<dyn RunObserver + 'a>>;
}

/// Several observers as one.
pub(crate) struct Observers<'a>(pub Vec<Box<dyn RunObserver + 'a>>);

impl RunObserver for Observers<'_> {
    fn wants_timing(&self) -> bool {
        self.0.iter().any(|o| o.wants_timing())
    }
    fn run_started(&self, graph: &TaskGraph, workers: usize) {
        for o in &self.0 {
            o.run_started(graph, workers);
        }
    }
    #[inline]
    fn task_done(&self, event: &TaskEvent) {
        for o in &self.0 {
            o.task_done(event);
        }
    }
    fn tier_event(&self, event: &TierEvent) {
        for o in &self.0 {
            o.tier_event(event);
        }
    }
    fn remote_tasks(&self, rank: usize, events: &[TaskEvent]) {
        for o in &self.0 {
            o.remote_tasks(rank, events);
        }
    }
    fn run_finished(&self, graph: &TaskGraph) {
        for o in &self.0 {
            o.run_finished(graph);
        }
    }
}
