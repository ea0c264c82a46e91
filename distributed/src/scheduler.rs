//! The MPI scheduler: every rank runs the same graph's tasks that the placement
//! gives it, and sends each block it makes to the ranks that read it.
//!
//! There is no central process. Each rank knows from the placement alone which
//! blocks it will receive and which it must send, so it runs until its own
//! tasks are done and every block it expects has arrived. It then tells every
//! other rank it is closing and keeps draining messages until each of them has
//! closed too; only then does it wait for its own sends, which by then have all
//! been received. A failing rank first tells every other rank why, so that the
//! whole run ends with an error on every rank instead of ranks waiting for
//! blocks that will never come.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use chunked_array::runtime::{BlockStore, MemoryConfig, RunObserver, physical_memory};
use chunked_array::{Result, RunStats, Scheduler};
use mpi::topology::SimpleCommunicator;

use crate::UniverseHandle;
use crate::placement::{Gather, TransferStats, plan_run};
use crate::relay::Relay;
use crate::run::Run;
use crate::transport::{Outbox, run_tag};

/// Runs task graphs over the ranks of an MPI communicator (see the module notes).
/// Made by [`crate::Mpi::scheduler`]; every rank must run the same computations
/// in the same order, as in any SPMD program. Its examples are `no_run` (see
/// [`crate::Mpi`]).
///
/// Failures end the run on every rank: a task's error or panic, and a panic
/// on a worker outside its task (encoding or sizing a block), reach every rank
/// as the run's error; a panic on a rank's main thread aborts the job
/// (`MPI_Abort`). With `CHUNKED_MPI_TIMEOUT=<seconds>` in the environment, a
/// rank that has nothing to run and hears from no rank for that long prints
/// which rank waited for what and aborts the job, so a rank stuck in a task
/// or gone never keeps the others waiting forever; set it above the longest
/// task (unset, the default, waits without limit).
///
/// ```no_run
/// use chunked_array::{Array, Context};
/// use chunked_distributed::{Gather, Mpi};
/// let mpi = Mpi::init().unwrap();
/// let scheduler = mpi.scheduler(Gather::Root, 0);
/// let x = Array::<f64>::ones(&[100], 10).unwrap();
/// x.sum(None).unwrap().compute_root(&Context::with_scheduler(scheduler.clone())).unwrap();
/// println!("rank {} ran {} tasks", mpi.rank(), scheduler.last_transfers().tasks);
/// ```
pub struct MpiScheduler {
    comm: Mutex<Comm>,
    rank: usize,
    size: usize,
    /// Ranks sharing this rank's node: the default memory limit is split among them.
    local_ranks: usize,
    /// Worker threads that run this rank's tasks.
    threads: usize,
    gather: Gather,
    last: Mutex<TransferStats>,
    // Declared last: dropped after the communicator, which must be freed before
    // MPI is finalized.
    _universe: Arc<UniverseHandle>,
}

/// The scheduler's own communicator, and how many runs it has started.
struct Comm(SimpleCommunicator, u64);

// SAFETY: MPI was initialized with `Threading::Multiple` (checked in
// `Mpi::init`), and the mutex around the communicator lets one run at a time use it.
unsafe impl Send for Comm {}

impl MpiScheduler {
    /// `threads` 0: the node's cores shared among its ranks (at least one each).
    pub(crate) fn new(
        comm: SimpleCommunicator,
        local_ranks: usize,
        gather: Gather,
        threads: usize,
        universe: Arc<UniverseHandle>,
    ) -> MpiScheduler {
        use mpi::traits::Communicator;
        let (rank, size) = (comm.rank() as usize, comm.size() as usize);
        let local_ranks = local_ranks.max(1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = if threads == 0 { (cores / local_ranks).max(1) } else { threads };
        MpiScheduler {
            comm: Mutex::new(Comm(comm, 0)),
            rank,
            size,
            local_ranks,
            threads,
            gather,
            last: Mutex::new(TransferStats::default()),
            _universe: universe,
        }
    }

    /// Where `compute` gathers results.
    ///
    /// ```no_run
    /// use chunked_distributed::{Gather, Mpi};
    /// let mpi = Mpi::init().unwrap();
    /// assert_eq!(mpi.scheduler(Gather::All, 0).gather(), Gather::All);
    /// ```
    pub fn gather(&self) -> Gather {
        self.gather
    }

    /// Worker threads running this rank's tasks.
    ///
    /// ```no_run
    /// use chunked_distributed::{Gather, Mpi};
    /// let mpi = Mpi::init().unwrap();
    /// assert_eq!(mpi.scheduler(Gather::Root, 3).threads(), 3);
    /// assert!(mpi.scheduler(Gather::Root, 0).threads() >= 1); // the node's cores over its ranks
    /// ```
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// What this rank sent in the last run.
    ///
    /// ```no_run
    /// use chunked_array::{Array, Context};
    /// use chunked_distributed::{Gather, Mpi};
    /// let mpi = Mpi::init().unwrap();
    /// let scheduler = mpi.scheduler(Gather::Root, 0);
    /// let x = Array::<f64>::ones(&[100], 10).unwrap();
    /// x.sum(None).unwrap().compute_root(&Context::with_scheduler(scheduler.clone())).unwrap();
    /// let sent = scheduler.last_transfers();
    /// println!("rank {}: {} messages, {} bytes", mpi.rank(), sent.messages, sent.bytes);
    /// ```
    pub fn last_transfers(&self) -> TransferStats {
        *self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// This rank's memory limit: the context's, at most its share of 80% of the
    /// node's memory when several ranks share the node.
    fn rank_memory(&self, memory: &MemoryConfig) -> MemoryConfig {
        let mut mine = memory.clone();
        mine.rank = self.rank;
        if let Some(total) = physical_memory() {
            let share = (total as f64 * 0.8 / self.local_ranks as f64) as usize;
            mine.memory_limit = mine.memory_limit.min(share);
        }
        mine
    }
}

impl std::fmt::Debug for MpiScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MpiScheduler(rank {} of {}, {} threads, gather {:?})",
            self.rank, self.size, self.threads, self.gather
        )
    }
}

impl Scheduler for MpiScheduler {
    fn name(&self) -> &str {
        "mpi"
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn processes(&self) -> usize {
        self.size
    }

    fn receives_result(&self) -> bool {
        self.gather == Gather::All || self.rank == 0
    }

    fn share_from_root(&self, mut bytes: Vec<u8>) -> Vec<u8> {
        use mpi::traits::*;
        let comm = self.comm.lock().unwrap_or_else(|p| p.into_inner());
        let root = comm.0.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        // Open MPI refuses a broadcast of nothing from an empty vector's
        // dangling pointer (MPI_ERR_ARG); every rank knows the length.
        if len > 0 {
            root.broadcast_into(&mut bytes[..]);
        }
        bytes
    }

    fn first_failed(&self, ok: bool) -> Option<usize> {
        use mpi::collective::SystemOperation;
        use mpi::traits::*;
        let comm = self.comm.lock().unwrap_or_else(|p| p.into_inner());
        // Signed: MPICH's minimum of 64-bit unsigned values compares them as
        // signed, which makes u64::MAX the smallest.
        let mine: i64 = if ok { i64::MAX } else { self.rank as i64 };
        let mut first = i64::MAX;
        comm.0.all_reduce_into(&mine, &mut first, SystemOperation::min());
        (first != i64::MAX).then_some(first as usize)
    }

    fn execute(&self, request: &chunked_array::runtime::Run<'_>) -> Result<RunStats> {
        let chunked_array::runtime::Run { graph, deliver, sink, observer, memory } = *request;
        chunked_array::runtime::tune_allocator();
        let mut comm = self.comm.lock().unwrap_or_else(|p| p.into_inner());
        let tag = run_tag(comm.1);
        comm.1 += 1;
        let memory = self.rank_memory(memory);
        let start = Instant::now();
        let relay = Relay::new(observer, self.rank);
        let observer: &dyn RunObserver = &relay;
        let store = BlockStore::new(graph, &memory, observer);
        let plan = plan_run(graph, self.size, deliver, self.gather);
        let mut run = Run::new(graph, plan, (self.rank, self.size), self.threads, (&store, &relay), tag);
        observer.run_started(graph, 1);
        let mut outbox = Outbox::new(tag);
        let outcome = run.main_loop(&comm.0, &mut outbox, sink, observer);
        let outcome = run.close(&comm.0, &mut outbox, outcome, sink, observer);
        observer.run_finished(graph);
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) =
            TransferStats { tasks: run.tasks_run, messages: outbox.sent_messages, bytes: outbox.sent_bytes };
        outcome?;
        Ok(RunStats { tasks: run.tasks_run, elapsed: start.elapsed(), tiers: store.stats() })
    }
}
