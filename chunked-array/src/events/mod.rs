//! What observers of a run hear: finished tasks and blocks moving between
//! memory tiers, with the clock that times them. Schedulers and the block
//! store report, the MPI scheduler reports blocks sent between ranks; the
//! profiler, the progress bar and the dashboard listen.

mod observer;

pub(crate) use observer::Observers;
pub use observer::{NoObserver, Observer, RunInfo, RunObserver};

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
    /// Bytes held in blocks in host memory after the task (outputs included
    /// until sunk).
    pub held_bytes: usize,
    /// Bytes held in blocks in device memory after the task.
    pub device_bytes: usize,
    /// Bytes of spilled blocks on disk after the task.
    pub disk_bytes: usize,
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
    /// Every kind, in the order of [`TierEventKind::index`].
    ///
    /// ```
    /// use chunked_array::runtime::TierEventKind;
    /// assert!(TierEventKind::ALL.iter().enumerate().all(|(i, k)| k.index() == i));
    /// ```
    pub const ALL: [TierEventKind; 7] = [
        TierEventKind::Spill,
        TierEventKind::Unspill,
        TierEventKind::Recompute,
        TierEventKind::Drop,
        TierEventKind::Regenerate,
        TierEventKind::DeviceSpill,
        TierEventKind::DeviceUnspill,
    ];

    /// This kind's place in [`TierEventKind::ALL`] (how it travels between
    /// processes, and where tables per kind keep it).
    ///
    /// ```
    /// use chunked_array::runtime::TierEventKind;
    /// assert_eq!(TierEventKind::ALL[TierEventKind::Drop.index()], TierEventKind::Drop);
    /// ```
    pub fn index(self) -> usize {
        self as usize
    }

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

/// A block sent from one rank to another (a run over several processes).
///
/// ```
/// use chunked_array::runtime::{Clock, TransferEvent};
/// let sent = TransferEvent { task: 7, from: 1, to: 0, bytes: 800, at: Clock::now() };
/// assert_ne!(sent.from, sent.to);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TransferEvent {
    /// The task whose block travels.
    pub task: usize,
    /// The sending rank.
    pub from: usize,
    /// The receiving rank.
    pub to: usize,
    /// Bytes sent (the block's wire form).
    pub bytes: usize,
    /// When it was handed to the transport, in [`Clock`] ticks (in a report
    /// from another rank: nanoseconds since that rank's run started).
    pub at: u64,
}

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
