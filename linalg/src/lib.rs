//! Linear algebra on chunked arrays.
//!
//! So far: vector and matrix norms, built from the chunked reductions (so they run
//! as block trees on any scheduler). TSQR, QR, SVD, randomized SVD and the solvers
//! come with the linear-algebra issue; the matrix 2-norm needs the SVD and comes
//! with it.

mod norm;

pub use norm::{matrix_norm, vector_norm, MatrixNorm};

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

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
