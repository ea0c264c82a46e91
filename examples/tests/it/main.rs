//! The examples run end to end, one test binary (each file a module).

mod gpu_svd;
mod mpi_jobs;
mod notebook_001;
mod pair_regressions;
mod seed;
mod support;
