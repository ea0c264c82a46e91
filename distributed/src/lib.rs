//! Distributing chunked work over MPI ranks: the same program under
//! `mpirun -np N`.
//!
//! SPMD, as `mpirun` jobs are: every rank builds the same arrays; [`Mpi`] gives
//! each rank a [`Context`] whose [`MpiScheduler`] runs the rank's share of every
//! graph. A deterministic placement ([`place_tasks`]) gives each task an owner
//! rank, computed alike on every rank, so no central scheduler exists and no
//! rank waits on one: sources are spread evenly, other tasks run where most of
//! their input bytes are, and each block is sent (non-blocking point-to-point)
//! to the ranks that read it. Reductions and TSQR thus become trees over ranks
//! in which only partials and R factors travel.
//!
//! - `compute` gathers the result on rank 0 ([`Gather::Root`], with
//!   [`Array::compute_root`](chunked_array::Array::compute_root)) or on every rank
//!   ([`Gather::All`]).
//! - `persist` keeps each block on its owner; later runs read it there.
//! - `store` to Zarr writes each chunk from the rank that computed it, and is
//!   resumable as on one process.
//! - Each rank keeps its blocks within its own memory limit (the context's, at
//!   most its share of the node) and spills to its own directory.
//! - A task error on one rank ends the run with an error on every rank; a panic
//!   outside a task, or a rank that dies, ends the whole job (`MPI_Abort`, or
//!   `mpirun` itself), never a hang.
//!
//! ```no_run
//! use chunked_array::random::RandomState;
//! use chunked_distributed::Mpi;
//! let mpi = Mpi::init().unwrap();
//! let x = RandomState::new(42).standard_normal::<f64>(&[100_000, 100], [10_000, 100]).unwrap();
//! let total = x.sum(None).unwrap().compute_root(&mpi.context()).unwrap();
//! if let Some(total) = total {
//!     println!("sum over {} ranks: {}", mpi.size(), total[[]]);
//! }
//! ```

mod panics;
mod placement;
mod relay;
mod run;
mod scheduler;
mod transport;

use std::sync::Arc;

use chunked_array::{Context, Error, Result};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

pub use chunked_array::runtime::{owned_range, owner_of};
pub use placement::{
    Gather, RunPlan, TransferStats, place_tasks, place_tasks_for, plan_run, rechunk_least_bytes, traffic,
};
pub use scheduler::MpiScheduler;

/// Keeps MPI initialized while any scheduler uses it (finalized on drop).
pub(crate) struct UniverseHandle(#[allow(dead_code)] mpi::environment::Universe);

// SAFETY: the universe is only dropped (finalizing MPI) once every scheduler
// holding it is gone; MPI runs with `Threading::Multiple`.
unsafe impl Send for UniverseHandle {}
unsafe impl Sync for UniverseHandle {}

/// This process's place in the MPI job, and the contexts that run graphs over
/// all its ranks. The examples on it are `no_run`: MPI initializes once per
/// process, and they are meant to run under `mpirun -np N`.
///
/// ```no_run
/// use chunked_array::Array;
/// use chunked_distributed::Mpi;
/// let mpi = Mpi::init().unwrap();
/// let x = Array::<f64>::ones(&[1000], 100).unwrap();
/// // Every rank gets the sum (Gather::All); each computed its own blocks.
/// let total = x.sum(None).unwrap().compute_on(&mpi.context_gather_all()).unwrap()[[]];
/// assert_eq!(total, 1000.0);
/// ```
pub struct Mpi {
    universe: Arc<UniverseHandle>,
    rank: usize,
    size: usize,
    local_rank: usize,
    local_ranks: usize,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mpi(rank {} of {}, {} of {} on this node)", self.rank, self.size, self.local_rank, self.local_ranks)
    }
}

impl Mpi {
    /// Initializes MPI (with `MPI_THREAD_MULTIPLE`), installs the panic hook
    /// that aborts the job when a rank panics outside a task, and sets
    /// [`chunked_array::runtime::process_count`] to the world's size (a TSQR
    /// built afterwards reduces each rank's rows first). Also works without
    /// `mpirun`, as a job of one rank.
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// assert!(mpi.rank() < mpi.size());
    /// assert!(chunked_distributed::Mpi::init().is_err()); // once per process
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when MPI was already initialized in this
    /// process or cannot give multi-threaded support.
    pub fn init() -> Result<Mpi> {
        let refuse = |reason: String| Error::InvalidArgument { name: "MPI".into(), value: "init".into(), reason };
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Multiple)
            .ok_or_else(|| refuse("MPI is already initialized in this process (call Mpi::init once)".into()))?;
        if threading != mpi::Threading::Multiple {
            return Err(refuse(format!("the MPI library gives {threading:?} threading, not Multiple")));
        }
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        let node = world.split_shared(rank as i32);
        let (local_rank, local_ranks) = (node.rank() as usize, node.size() as usize);
        panics::install_abort_hook(rank);
        // Graphs built from here on are shaped for this many ranks.
        chunked_array::runtime::set_process_count(size);
        Ok(Mpi { universe: Arc::new(UniverseHandle(universe)), rank, size, local_rank, local_ranks })
    }

    /// This process's rank.
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// println!("rank {} of {}", mpi.rank(), mpi.size());
    /// assert!(mpi.rank() < mpi.size());
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of ranks in the job.
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// assert!(mpi.size() >= 1); // `mpirun -np 4`: 4
    /// assert!(mpi.local_ranks() <= mpi.size());
    /// ```
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether this is rank 0 (the one that prints, and receives results).
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// assert_eq!(mpi.is_root(), mpi.rank() == 0);
    /// if mpi.is_root() {
    ///     println!("{} ranks", mpi.size());
    /// }
    /// ```
    pub fn is_root(&self) -> bool {
        self.rank == 0
    }

    /// Ranks on this process's node.
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// assert!((1..=mpi.size()).contains(&mpi.local_ranks()));
    /// ```
    pub fn local_ranks(&self) -> usize {
        self.local_ranks
    }

    /// This process's number among the ranks on its node (0..local_ranks):
    /// with one GPU per rank, the device this rank uses (as dask-cuda gives one
    /// worker per visible GPU).
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// assert!(mpi.local_rank() < mpi.local_ranks());
    /// ```
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// This rank's GPU: visible CUDA device `local_rank % devices`, so that
    /// the ranks on a node take one device each (dask-cuda's one worker per
    /// GPU). Arrays moved there with [`chunked_array::Array::to_device`] keep
    /// their blocks on it; blocks that travel to another rank go through host
    /// memory, and each rank's device tier spills under its own
    /// `device_memory_limit`.
    ///
    /// ```no_run
    /// // Needs a CUDA device on each node.
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// let gpu = mpi.device().unwrap();
    /// assert!(!gpu.is_emulated());
    /// println!("rank {} on {}", mpi.rank(), gpu.describe());
    /// ```
    ///
    /// # Errors
    /// [`chunked_array::Error::Device`] with no CUDA driver or device.
    pub fn device(&self) -> Result<chunked_array::device::Device, chunked_array::Error> {
        Ok(chunked_array::device::Device::for_local_rank(self.local_rank)?)
    }

    /// The world communicator, for the program's own MPI calls.
    ///
    /// ```no_run
    /// use mpi::traits::*;
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// let world = mpi.world();
    /// assert_eq!((world.rank() as usize, world.size() as usize), (mpi.rank(), mpi.size()));
    /// ```
    pub fn world(&self) -> SimpleCommunicator {
        SimpleCommunicator::world()
    }

    /// Waits until every rank gets here.
    ///
    /// ```no_run
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// // ... rank 0 writes a file ...
    /// mpi.barrier(); // now every rank may read it
    /// ```
    pub fn barrier(&self) {
        self.world().barrier();
    }

    /// A scheduler over every rank, gathering results as `gather` says. Every
    /// rank must make its schedulers in the same order (each has its own
    /// communicator, made collectively).
    ///
    /// `threads` worker threads run this rank's tasks; 0: the node's cores
    /// shared among the ranks on it (one rank per node uses every core).
    ///
    /// ```no_run
    /// use chunked_array::{Array, Context};
    /// use chunked_distributed::{Gather, Mpi};
    /// let mpi = Mpi::init().unwrap();
    /// let scheduler = mpi.scheduler(Gather::All, 2);
    /// assert_eq!((scheduler.gather(), scheduler.threads()), (Gather::All, 2));
    /// let x = Array::<i64>::arange(0, 10, 1, 5).unwrap();
    /// assert_eq!(x.compute_on(&Context::with_scheduler(scheduler)).unwrap().len(), 10);
    /// ```
    pub fn scheduler(&self, gather: Gather, threads: usize) -> Arc<MpiScheduler> {
        Arc::new(MpiScheduler::new(self.world().duplicate(), self.local_ranks, gather, threads, self.universe.clone()))
    }

    /// A context that runs graphs over every rank and gathers results on rank 0.
    ///
    /// ```no_run
    /// use chunked_array::Array;
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// let x = Array::<i64>::arange(0, 10, 1, 5).unwrap();
    /// let got = x.compute_root(&mpi.context()).unwrap(); // Some on rank 0, None elsewhere
    /// assert_eq!(got.is_some(), mpi.is_root());
    /// ```
    pub fn context(&self) -> Context {
        Context::with_scheduler(self.scheduler(Gather::Root, 0))
    }

    /// A context that runs graphs over every rank and gives results to every rank.
    ///
    /// ```no_run
    /// use chunked_array::Array;
    /// let mpi = chunked_distributed::Mpi::init().unwrap();
    /// let x = Array::<i64>::arange(0, 10, 1, 5).unwrap();
    /// let sum = x.sum(None).unwrap().compute_on(&mpi.context_gather_all()).unwrap()[[]];
    /// assert_eq!(sum, 45); // on every rank
    /// ```
    pub fn context_gather_all(&self) -> Context {
        Context::with_scheduler(self.scheduler(Gather::All, 0))
    }
}
