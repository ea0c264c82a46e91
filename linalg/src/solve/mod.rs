//! Blocked factorizations and solves on square matrices with square blocks:
//! Cholesky (right-looking tiles), triangular solves (block substitution), LU
//! with partial pivoting over whole columns (right-looking column panels), and
//! `solve`/`inv` on top of LU.
//!
//! Each algorithm is one staged "work" layer whose blocks are indexed by
//! (step, block...) and read blocks of earlier steps of the same layer, plus
//! output layers that pick the finished blocks (sharing them, no copy). Only
//! the tasks the outputs need are built, and each block is released after its
//! last reader, as everywhere else.
//!
//! Files: [`blocks`] holds what the solvers share; [`cholesky`](mod@cholesky), [`triangular`]
//! and [`lu`](mod@lu) one algorithm each; [`general`] `solve` and `inv` on LU and the
//! triangular solves.

mod blocks;
mod cholesky;
mod general;
mod lu;
mod triangular;

pub use cholesky::cholesky;
pub use general::{inv, solve};
pub use lu::lu;
pub use triangular::solve_triangular;
