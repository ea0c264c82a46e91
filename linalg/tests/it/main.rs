//! chunked-linalg's integration tests, one binary (one link of chunked-array,
//! faer and their dependencies instead of one per file).

mod common;
mod complex;
mod decompositions;
mod device;
mod norms;
mod solvers;
mod tsqr;
