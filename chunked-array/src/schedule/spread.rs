//! The even spread of a layer's blocks over the processes of a job (MPI
//! ranks), which the MPI placement starts from, and the process count graphs
//! are shaped for: a TSQR groups each process's leaves into a subtree of its
//! own, so that only one R factor per process travels up the tree.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

static PROCESS_COUNT: AtomicUsize = AtomicUsize::new(1);

/// The number of processes graphs are shaped for: 1, or the MPI world's size
/// once `chunked_distributed::Mpi::init` has run (see [`set_process_count`]).
/// Only the shape of some graphs depends on it (which blocks a TSQR tree
/// combines first), never their values.
///
/// ```
/// use chunked_array::runtime::process_count;
/// assert!(process_count() >= 1);
/// ```
pub fn process_count() -> usize {
    PROCESS_COUNT.load(Ordering::Relaxed)
}

/// Sets [`process_count`] (0 counts as 1). A scheduler spanning several
/// processes sets it before graphs are built; a benchmark may set it to
/// plan the graph of a job larger than the machine.
///
/// ```
/// use chunked_array::runtime::{process_count, set_process_count};
/// let before = process_count();
/// set_process_count(4);
/// assert_eq!(process_count(), 4);
/// set_process_count(before);
/// ```
pub fn set_process_count(processes: usize) {
    PROCESS_COUNT.store(processes.max(1), Ordering::Relaxed);
}

/// The block numbers rank `rank` of `ranks` owns among `blocks`: a contiguous range,
/// the first `blocks % ranks` ranks holding one extra block.
///
/// ```
/// use chunked_array::runtime::owned_range;
/// assert_eq!(owned_range(10, 3, 0), 0..4);
/// assert_eq!(owned_range(10, 3, 2), 7..10);
/// ```
///
/// # Panics
/// When `ranks` is 0 or `rank >= ranks` (an MPI communicator never gives either).
pub fn owned_range(blocks: usize, ranks: usize, rank: usize) -> Range<usize> {
    assert!(ranks > 0 && rank < ranks, "rank {rank} of {ranks}");
    let base = blocks / ranks;
    let extra = blocks % ranks;
    let start = rank * base + rank.min(extra);
    start..start + base + usize::from(rank < extra)
}

/// The rank that owns block `block` of `blocks` over `ranks` (the inverse of
/// [`owned_range`]).
///
/// ```
/// use chunked_array::runtime::owner_of;
/// // 10 blocks over 3 ranks: 0..4, 4..7, 7..10.
/// let owners: Vec<usize> = (0..10).map(|b| owner_of(b, 10, 3)).collect();
/// assert_eq!(owners, [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
/// ```
///
/// # Panics
/// When `ranks` is 0 or `block >= blocks`.
pub fn owner_of(block: usize, blocks: usize, ranks: usize) -> usize {
    assert!(ranks > 0 && block < blocks, "block {block} of {blocks} over {ranks} ranks");
    let base = blocks / ranks;
    let extra = blocks % ranks;
    let big = extra * (base + 1);
    if block < big { block / (base + 1) } else { extra + (block - big) / base.max(1) }
}
