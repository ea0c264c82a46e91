//! Deterministic block placement: contiguous, balanced ranges of C-order block
//! numbers per rank, so that neighbouring blocks (which reductions and TSQR trees
//! combine first) share a rank.

use std::ops::Range;

/// The block numbers rank `rank` of `ranks` owns among `blocks`: a contiguous range,
/// the first `blocks % ranks` ranks holding one extra block.
///
/// ```
/// use chunked_distributed::owned_range;
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
/// # Panics
/// When `ranks` is 0 or `block >= blocks`.
pub fn owner_of(block: usize, blocks: usize, ranks: usize) -> usize {
    assert!(ranks > 0 && block < blocks, "block {block} of {blocks} over {ranks} ranks");
    let base = blocks / ranks;
    let extra = blocks % ranks;
    let big = extra * (base + 1);
    if block < big { block / (base + 1) } else { extra + (block - big) / base.max(1) }
}
