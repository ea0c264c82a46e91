//! Linear algebra on chunked arrays (dask's `dask.array.linalg`, with NumPy's
//! `numpy.linalg` names): direct TSQR and the QR and SVD built on it, randomized
//! SVD, least squares, Cholesky, LU with partial pivoting, triangular and
//! general solves, inverses and norms. Every routine builds lazy block graphs
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

pub use decomp::{qr, sfqr, svd};
pub use lstsq::{Lstsq, lstsq};
pub use norm::{MatrixNorm, matrix_norm, vector_norm};
pub use randomized::{CompressedOptions, svd_compressed};
pub use solve::{cholesky, inv, lu, solve, solve_triangular};
pub use tsqr::{DEFAULT_MAX_DIRECT_CONDITION, Svd, Tsqr, TsqrOptions, tsqr};

/// Element types the dense kernels take: `f32` and `f64` (on the CPU by
/// faer, on a GPU by cuSOLVER and cuBLAS).
///
/// ```
/// use chunked_array::Array;
/// use chunked_linalg::Scalar;
/// fn largest_singular_value<T: Scalar>(a: &Array<T>) -> chunked_linalg::Result<T> {
///     chunked_linalg::svd(a)?.s.max(None)?.compute_scalar()
/// }
/// let a = Array::<f32>::from_vec(&[2, 2], vec![0.0, 2.0, 1.0, 0.0], 2).unwrap();
/// assert!((largest_singular_value(&a).unwrap() - 2.0).abs() < 1e-6);
/// ```
pub trait Scalar:
    chunked_array::Gemm + chunked_array::Float + faer::traits::RealField + chunked_gpu::SolverElement
{
}
impl Scalar for f32 {}
impl Scalar for f64 {}

/// The errors of linear algebra are the array crate's: malformed input is
/// [`Error::BadInput`]; a matrix that cannot be factored is
/// [`Error::NotPositiveDefinite`] or [`Error::Singular`] (with the block and
/// pivot) or [`Error::NoConvergence`] (with the kernel's report). One `?` takes
/// both crates'. In a run over several MPI ranks, the rank that hit the failure
/// returns that variant and the others an [`Error::Task`] naming that rank.
pub use chunked_array::{Error, Result};

/// The README's examples, compiled and run as doctests (here, where both
/// crates are in reach).
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The dask users' guide's examples, compiled as doctests.
#[doc = include_str!("../../docs/dask-users.md")]
#[cfg(doctest)]
pub struct DaskUsersGuideDoctests;
