//! Distributing chunked work over MPI ranks.
//!
//! So far: the deterministic placement every rank computes on its own (so no
//! central scheduler is needed): which rank owns each block of a layer. The
//! `MpiScheduler` (rsmpi) that runs task graphs over ranks comes with the
//! distributed issue.

mod placement;

pub use placement::{owner_of, owned_range};
