//! Linear algebra on chunked arrays: direct TSQR and the QR and SVD built on it,
//! randomized SVD, least squares, Cholesky, LU with partial pivoting, triangular
//! and general solves, inverses and norms. Every routine builds lazy block graphs
//! (dense per-block kernels by faer) that run on any scheduler.

mod decomp;
mod device_kernels;
mod kernels;
mod lstsq;
mod norm;
mod pair_qr;
mod randomized;
mod solve;
mod tsqr;

pub use norm::{matrix_norm, vector_norm, MatrixNorm};
pub use decomp::{qr, sfqr, svd};
pub use lstsq::{lstsq, Lstsq};
pub use solve::{cholesky, inv, lu, solve, solve_triangular};
pub use randomized::{svd_compressed, CompressedOptions};
pub use tsqr::{tsqr, Svd, Tsqr, TsqrOptions, DEFAULT_MAX_DIRECT_CONDITION};

/// Element types the dense kernels take: `f32` and `f64` (on the CPU by
/// faer, on a GPU by cuSOLVER and cuBLAS).
pub trait Scalar: chunked_array::Gemm + faer::traits::RealField + chunked_gpu::SolverElement {}
impl Scalar for f32 {}
impl Scalar for f64 {}

/// Errors of `chunked-linalg`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error of the underlying arrays.
    #[error(transparent)]
    Array(#[from] chunked_array::Error),
    /// The input is not of the kind the routine needs.
    #[error("{routine} needs {needs}, got shape {shape:?}")]
    BadInput {
        /// The routine.
        routine: String,
        /// What it needs.
        needs: String,
        /// The shape given.
        shape: Vec<usize>,
    },
}

/// A numerical failure inside a task (no convergence, a matrix that is not
/// positive definite), as the array error a task returns.
pub(crate) fn numerical(routine: &str, what: &str, reason: impl Into<String>) -> chunked_array::Error {
    chunked_array::Error::InvalidArgument { name: routine.into(), value: what.into(), reason: reason.into() }
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
