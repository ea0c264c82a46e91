//! chunked-distributed's integration tests that run in one process, one
//! binary. `mpirun.rs` is a test binary of its own (`--test mpirun`, no
//! harness): it launches itself under `mpirun` as the ranks of its jobs.

mod placement;
