//! The observers of runs: what one run's observer hears ([`RunObserver`]), and a
//! context's observer of its runs ([`Observer`]).

use crate::events::{TaskEvent, TierEvent, TransferEvent};
use crate::graph::task::TaskGraph;

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
    /// Called on a rank of a run over several processes (MPI) when it sends
    /// a block to another rank.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use chunked_array::runtime::{RunObserver, TransferEvent};
    /// struct Sent(AtomicUsize);
    /// impl RunObserver for Sent {
    ///     fn transfer(&self, e: &TransferEvent) {
    ///         self.0.fetch_add(e.bytes, Ordering::Relaxed);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
    /// # let memory = MemoryConfig::default();
    /// let sent = Sent(AtomicUsize::new(0));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &sent, memory: &memory })?;
    /// assert_eq!(sent.0.load(Ordering::Relaxed), 0); // one process: nothing travels
    /// # Ok(()) }
    /// ```
    fn transfer(&self, _event: &TransferEvent) {}
    /// Called on rank 0 of a run over several processes with the blocks
    /// another rank moved between its memory tiers since its last report
    /// (`at` in nanoseconds since that rank's run started).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use chunked_array::runtime::{RunObserver, TierEvent};
    /// struct Remote(AtomicUsize);
    /// impl RunObserver for Remote {
    ///     fn remote_tier_events(&self, _rank: usize, events: &[TierEvent]) {
    ///         self.0.fetch_add(events.len(), Ordering::Relaxed);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
    /// # let memory = MemoryConfig::default();
    /// let remote = Remote(AtomicUsize::new(0));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &remote, memory: &memory })?;
    /// assert_eq!(remote.0.load(Ordering::Relaxed), 0); // one process: no other ranks
    /// # Ok(()) }
    /// ```
    fn remote_tier_events(&self, _rank: usize, _events: &[TierEvent]) {}
    /// Called on rank 0 of a run over several processes with the blocks
    /// another rank sent since its last report (`at` in nanoseconds since
    /// that rank's run started).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array, Scheduler, SyncScheduler};
    /// # use chunked_array::runtime::{Deliver, MemoryConfig, Run};
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use chunked_array::runtime::{RunObserver, TransferEvent};
    /// struct Remote(AtomicUsize);
    /// impl RunObserver for Remote {
    ///     fn remote_transfers(&self, _rank: usize, events: &[TransferEvent]) {
    ///         self.0.fetch_add(events.len(), Ordering::Relaxed);
    ///     }
    /// }
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
    /// # let memory = MemoryConfig::default();
    /// let remote = Remote(AtomicUsize::new(0));
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &remote, memory: &memory })?;
    /// assert_eq!(remote.0.load(Ordering::Relaxed), 0); // one process: no other ranks
    /// # Ok(()) }
    /// ```
    fn remote_transfers(&self, _rank: usize, _events: &[TransferEvent]) {}
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

/// The run an [`Observer`] is asked to watch.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{custom::Layer, diagnostics::{Profiler, Progress}, Array};
/// use chunked_array::runtime::{Observer, RunInfo};
/// let g = Layer::task_graph(&[Array::<f64>::ones(&[6], 2)?.layer()])?;
/// let info = RunInfo { graph: &g, label: "ones", rank: 0, memory_limit: 1 << 30, device_memory_limit: None, spill_limit: u64::MAX };
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
    /// Device memory limit of the run, in bytes (`None`: 80% of each device).
    pub device_memory_limit: Option<usize>,
    /// The most bytes the run may spill to disk (`u64::MAX`: no cap).
    pub spill_limit: u64,
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
    /// let info = RunInfo { graph: &g, label: "ones", rank: 1, memory_limit: 1 << 30, device_memory_limit: None, spill_limit: u64::MAX };
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
    fn transfer(&self, event: &TransferEvent) {
        for o in &self.0 {
            o.transfer(event);
        }
    }
    fn remote_tier_events(&self, rank: usize, events: &[TierEvent]) {
        for o in &self.0 {
            o.remote_tier_events(rank, events);
        }
    }
    fn remote_transfers(&self, rank: usize, events: &[TransferEvent]) {
        for o in &self.0 {
            o.remote_transfers(rank, events);
        }
    }
    fn run_finished(&self, graph: &TaskGraph) {
        for o in &self.0 {
            o.run_finished(graph);
        }
    }
}
