//! [`Context`]: the scheduler, memory limits and observers a run uses.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::diagnostics::{Dashboard, DashboardOptions, Profiler, Progress, ReportTimes};
use crate::error::{Error, Result};
use crate::events::Observer;
use crate::kernels::Backend;
use crate::memory::MemoryConfig;
use crate::schedule::{Scheduler, SyncScheduler, ThreadedScheduler};

/// Execution resources: the scheduler that runs the graph, the memory limits,
/// and the observers (profilers, progress bar) that watch each run.
///
/// ```
/// use chunked_array::{Array, Context};
/// let x = Array::<f64>::ones(&[10], 3).unwrap();
/// let total = x.sum(None).unwrap().compute_on(&Context::sync()).unwrap();
/// assert_eq!(total[[]], 10.0);
/// ```
#[derive(Clone)]
pub struct Context {
    scheduler: Arc<dyn Scheduler>,
    memory: MemoryConfig,
    /// The progress-bar setting, an observer of its own so that
    /// [`Context::with_progress`] replaces it.
    progress: Arc<dyn Observer>,
    observers: Vec<Arc<dyn Observer>>,
    /// Set to cancel the runs of this context (a client's future).
    cancel: Option<Arc<AtomicBool>>,
    /// The dashboard this context started (rank 0 only).
    dashboard: Option<Dashboard>,
    /// The dense kernels' backend for its runs' tasks, where it names one.
    kernel_backend: Option<Backend>,
}

impl Context {
    /// A context that runs with the given scheduler.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use std::sync::Arc;
    /// use chunked_array::{Array, Context, ThreadedScheduler};
    /// let ctx = Context::with_scheduler(Arc::new(ThreadedScheduler::new(2)));
    /// assert_eq!(ctx.scheduler().name(), "threads");
    /// assert_eq!(Array::<f64>::ones(&[6], 2)?.sum(None)?.compute_on(&ctx)?[[]], 6.0);
    /// # Ok(()) }
    /// ```
    pub fn with_scheduler(scheduler: Arc<dyn Scheduler>) -> Self {
        Context {
            scheduler,
            memory: MemoryConfig::default(),
            progress: Arc::new(Progress::Auto),
            observers: Vec::new(),
            cancel: None,
            dashboard: None,
            kernel_backend: None,
        }
    }

    /// Bytes of blocks that may be held in memory; past it, the least recently
    /// used idle blocks spill to disk (see [`MemoryConfig`]). A plan with a single
    /// task larger than this is refused before it runs.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{Array, Context, Error};
    /// let ctx = Context::sync().with_memory_limit(1 << 10); // 1 KiB of blocks
    /// assert_eq!(ctx.memory().memory_limit, 1 << 10);
    /// let big = Array::<f64>::ones(&[1000], 1000)?; // one 8 KB block
    /// assert!(matches!(big.compute_on(&ctx), Err(Error::PlanExceedsMemory { .. })));
    /// # Ok(()) }
    /// ```
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory.memory_limit = bytes;
        self
    }

    /// Bytes of device blocks that may be held in device memory (dask-cuda's
    /// `device_memory_limit`); past it, the least recently used idle ones move
    /// to host memory. Default: 80% of the device's memory.
    ///
    /// ```
    /// use chunked_array::Context;
    /// let ctx = Context::sync().with_device_memory_limit(1 << 20);
    /// assert_eq!(ctx.memory().device_memory_limit, Some(1 << 20));
    /// assert_eq!(Context::sync().memory().device_memory_limit, None);
    /// ```
    pub fn with_device_memory_limit(mut self, bytes: usize) -> Self {
        self.memory.device_memory_limit = Some(bytes);
        self
    }

    /// Bytes of each device's memory to keep in a pool for reuse (dask-cuda's
    /// `rmm_pool_size`), reserved when a run on the device starts: blocks
    /// made and dropped task after task then reuse the pool's memory instead
    /// of asking the driver each time. Default: the driver's own pool, which
    /// hands freed memory back at each synchronization.
    ///
    /// ```
    /// use chunked_array::{device::Device, random::RandomState, Context};
    /// # fn main() -> chunked_array::Result<()> {
    /// let dev = Device::emulated(1 << 24);
    /// let ctx = Context::sync().with_device_pool(1 << 20);
    /// let x = RandomState::new(0).on_device(&dev).uniform::<f64>(&[1000], 100)?;
    /// x.sum(None)?.compute_on(&ctx)?;
    /// assert_eq!(dev.pool_reserved(), 1 << 20);
    /// let too_big = Context::sync().with_device_pool(1 << 30); // more than the device has
    /// assert!(x.sum(None)?.compute_on(&too_big).is_err());
    /// # Ok(()) }
    /// ```
    pub fn with_device_pool(mut self, bytes: usize) -> Self {
        self.memory.device_pool = Some(bytes);
        self
    }

    /// Where blocks spill to (default: the system's temporary directory).
    ///
    /// ```
    /// use chunked_array::Context;
    /// let dir = std::env::temp_dir().join("chunked-spill-example");
    /// let ctx = Context::sync().with_spill_dir(&dir);
    /// assert_eq!(ctx.memory().spill_dir, dir);
    /// ```
    pub fn with_spill_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.memory.spill_dir = dir.into();
        self
    }

    /// The most bytes the spill directory may hold at once (default: no cap).
    ///
    /// ```
    /// use chunked_array::Context;
    /// let ctx = Context::sync().with_spill_limit(1 << 30);
    /// assert_eq!(ctx.memory().spill_limit, 1 << 30);
    /// assert_eq!(Context::sync().memory().spill_limit, u64::MAX);
    /// ```
    pub fn with_spill_limit(mut self, bytes: u64) -> Self {
        self.memory.spill_limit = bytes;
        self
    }

    /// The memory limits.
    ///
    /// ```
    /// use chunked_array::{runtime::MemoryConfig, Context};
    /// assert_eq!(Context::sync().memory(), &MemoryConfig::default());
    /// assert_eq!(Context::sync().with_memory_limit(100).memory().memory_limit, 100);
    /// ```
    pub fn memory(&self) -> &MemoryConfig {
        &self.memory
    }

    /// Records every task of the runs of this context in `profiler`.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// let ctx = Context::sync().with_profiler(&profiler);
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&ctx)?;
    /// assert_eq!(profiler.spans().len(), 3); // a task per block
    /// # Ok(()) }
    /// ```
    pub fn with_profiler(self, profiler: &Profiler) -> Self {
        self.with_observer(Arc::new(profiler.clone()))
    }

    /// Starts a live [`Dashboard`] on `addr` (`host:port`, or a bare port on
    /// loopback, `127.0.0.1:PORT`; port 0 takes a free one) that shows every
    /// run of this context while it goes, and prints its URL on stderr. It
    /// serves until the context and its clones are dropped.
    ///
    /// Over several processes (MPI) rank 0 serves the dashboard for every
    /// rank (the others report to it over the scheduler's own messages), and
    /// every rank gets the same answer: an address rank 0 cannot bind is an
    /// error on all of them, before any work.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{Array, Context};
    /// let ctx = Context::threads(2).with_dashboard("127.0.0.1:0")?;
    /// let url = ctx.dashboard().unwrap().url(); // open it in a browser
    /// assert!(url.starts_with("http://127.0.0.1:"));
    /// Array::<f64>::ones(&[100], 10)?.sum(None)?.compute_on(&ctx)?;
    /// // Not an address, or one in use: an error naming it, nothing started.
    /// let taken = ctx.dashboard().unwrap().address().to_string();
    /// assert!(Context::sync().with_dashboard(&taken).unwrap_err().to_string().contains(&taken));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `addr` when it is not an address or
    /// cannot be bound on rank 0.
    pub fn with_dashboard(self, addr: &str) -> Result<Self> {
        self.with_dashboard_options(addr, &DashboardOptions::default())
    }

    /// [`Context::with_dashboard`] with options (a token for shared machines,
    /// how many browsers).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::DashboardOptions, Context};
    /// let options = DashboardOptions { token: Some("k3y".into()), ..DashboardOptions::default() };
    /// let ctx = Context::sync().with_dashboard_options("127.0.0.1:0", &options)?;
    /// assert!(ctx.dashboard().unwrap().url().ends_with("?token=k3y"));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`Context::with_dashboard`]; also a token a URL would have to escape.
    pub fn with_dashboard_options(mut self, addr: &str, options: &DashboardOptions) -> Result<Self> {
        let scheduler = self.scheduler();
        let started = (scheduler.rank() == 0).then(|| Dashboard::start_with(addr, options));
        if scheduler.processes() > 1 {
            let failure = match &started {
                Some(Err(e)) => e.to_string().into_bytes(),
                _ => Vec::new(),
            };
            let failure = scheduler.share_from_root(failure);
            if started.is_none() && !failure.is_empty() {
                let reason = format!("rank 0 could not serve it: {}", String::from_utf8_lossy(&failure));
                return Err(Error::invalid("dashboard address", addr, reason));
            }
        }
        match started {
            Some(dashboard) => {
                let dashboard = dashboard?;
                eprintln!("chunked dashboard: {}", dashboard.url());
                self.observers.push(Arc::new(dashboard.clone()));
                self.dashboard = Some(dashboard);
            }
            None => self.observers.push(Arc::new(ReportTimes)),
        }
        Ok(self)
    }

    /// The dashboard [`Context::with_dashboard`] started (`None` before, and
    /// on ranks other than 0).
    ///
    /// ```
    /// use chunked_array::Context;
    /// assert!(Context::sync().dashboard().is_none());
    /// ```
    pub fn dashboard(&self) -> Option<&Dashboard> {
        self.dashboard.as_ref()
    }

    /// When to show a progress bar (default: when stderr is a terminal).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Progress, Array, Context};
    /// let ctx = Context::sync().with_progress(Progress::Never);
    /// assert_eq!(Array::<f64>::ones(&[6], 2)?.sum(None)?.compute_on(&ctx)?[[]], 6.0);
    /// assert_eq!(ctx.observers().count(), 1); // replaced, not added
    /// # Ok(()) }
    /// ```
    pub fn with_progress(mut self, progress: Progress) -> Self {
        self.progress = Arc::new(progress);
        self
    }

    /// Adds an observer of every run of this context (see [`Observer`]).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use std::sync::Arc;
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// let ctx = Context::sync().with_observer(Arc::new(profiler.clone()));
    /// Array::<f64>::ones(&[4], 2)?.compute_on(&ctx)?;
    /// assert_eq!(profiler.spans().len(), 2);
    /// assert_eq!(ctx.observers().count(), 2); // the progress setting, then the profiler
    /// # Ok(()) }
    /// ```
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        self.observers.push(observer);
        self
    }

    /// The observers of each run: the progress setting, then the others in the
    /// order they were added.
    ///
    /// ```
    /// use chunked_array::{diagnostics::Profiler, Context};
    /// assert_eq!(Context::sync().observers().count(), 1); // the progress setting
    /// let ctx = Context::sync().with_profiler(&Profiler::new()).with_profiler(&Profiler::new());
    /// assert_eq!(ctx.observers().count(), 3);
    /// ```
    pub fn observers(&self) -> impl Iterator<Item = &dyn Observer> {
        std::iter::once(&*self.progress).chain(self.observers.iter().map(|o| &**o))
    }

    /// One thread, deterministic order (for debugging).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{Array, Context};
    /// let ctx = Context::sync();
    /// assert_eq!(ctx.scheduler().name(), "sync");
    /// let x = Array::<f64>::arange(0.0, 4.0, 1.0, 2)?;
    /// assert_eq!(x.sum(None)?.compute_on(&ctx)?[[]], 6.0);
    /// # Ok(()) }
    /// ```
    pub fn sync() -> Self {
        Self::with_scheduler(Arc::new(SyncScheduler))
    }

    /// `threads` worker threads (0 means all cores).
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{Array, Context};
    /// let ctx = Context::threads(2);
    /// assert_eq!(ctx.scheduler().name(), "threads");
    /// assert_eq!(Array::<i32>::ones(&[8], 2)?.sum(None)?.compute_on(&ctx)?[[]], 8);
    /// # Ok(()) }
    /// ```
    pub fn threads(threads: usize) -> Self {
        Self::with_scheduler(Arc::new(ThreadedScheduler::new(threads)))
    }

    /// This context, its runs cancelled when `flag` is set (tasks not yet
    /// started fail with [`crate::Error::Cancelled`]).
    pub(crate) fn cancelled_by(mut self, flag: Arc<AtomicBool>) -> Self {
        self.cancel = Some(flag);
        self
    }

    /// This context with another scheduler.
    pub(crate) fn on_scheduler(mut self, scheduler: Arc<dyn Scheduler>) -> Self {
        self.scheduler = scheduler;
        self
    }

    pub(crate) fn cancel_flag(&self) -> Option<Arc<AtomicBool>> {
        self.cancel.clone()
    }

    /// Runs the dense block kernels (gemm) of this context's tasks on
    /// `backend`, over the process's choice ([`crate::kernels::backend`]:
    /// `set_backend`, `CHUNKED_BLAS`, or the measurement at first use);
    /// other contexts keep theirs.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::kernels::{Backend, backend};
    /// use chunked_array::{Array, Context};
    /// let ctx = Context::threads(2).with_kernel_backend(Backend::Faer)?;
    /// let a = Array::<f64>::ones(&[4, 4], 2)?;
    /// // Each task sees the context's backend.
    /// let seen = a.map_blocks(|b, _| b.mapv(|_| f64::from(backend() == Backend::Faer)), None)?;
    /// assert_eq!(seen.sum(None)?.compute_on(&ctx)?[[]], 16.0);
    /// assert_eq!(a.matmul(&a)?.compute_on(&ctx)?[[0, 0]], 4.0);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for [`Backend::Blas`] where no
    /// system BLAS loads.
    pub fn with_kernel_backend(mut self, backend: Backend) -> Result<Self> {
        crate::kernels::check_available(backend)?;
        self.kernel_backend = Some(backend);
        Ok(self)
    }

    /// The backend [`Context::with_kernel_backend`] named, if any.
    pub(crate) fn kernel_backend(&self) -> Option<Backend> {
        self.kernel_backend
    }

    /// The scheduler in use.
    ///
    /// ```
    /// use chunked_array::Context;
    /// let ctx = Context::sync();
    /// assert_eq!(ctx.scheduler().name(), "sync");
    /// assert_eq!(ctx.scheduler().processes(), 1);
    /// ```
    pub fn scheduler(&self) -> &dyn Scheduler {
        &*self.scheduler
    }
}

/// A value computed on the processes that received a run's result (`Some`:
/// rank 0 always among them), made the same on every process of `ctx`'s runs
/// (rank 0's, through [`Scheduler::share_from_root`]; a one-process
/// run keeps its own).
pub(crate) fn shared_from_root<V>(
    ctx: &Context,
    here: Option<V>,
    encode: impl Fn(&V) -> Vec<u8>,
    decode: impl Fn(&[u8]) -> V,
) -> V {
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
