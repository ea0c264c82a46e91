//! Linear algebra on chunked arrays (dask's `dask.array.linalg`, with NumPy's
//! `numpy.linalg` names): direct TSQR and the QR and SVD built on it, randomized
//! SVD, least squares, Cholesky, LU with partial pivoting, triangular and
//! general solves, inverses and norms, of real and complex matrices. Every
//! routine builds lazy block graphs (dense per-block kernels by faer) that run
//! on any scheduler.

mod decomp;
mod device_dispatch;
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

/// Element types the dense kernels take: `f32`, `f64`, [`Complex32`] and
/// [`Complex64`] (NumPy's complex64 and complex128). On the CPU every routine
/// takes all four (faer's kernels); a device array (real only) goes through
/// cuSOLVER and cuBLAS. Where NumPy's results are real (singular values,
/// norms, residuals) they are arrays of [`chunked_array::Number::RealPart`],
/// the type itself for the reals; a transpose in a formula is the conjugate
/// transpose (`Qᴴ`, `Lᴴ`, `Vᴴ`), which is the transpose for the reals.
///
/// [`Complex32`]: chunked_array::Complex32
/// [`Complex64`]: chunked_array::Complex64
///
/// ```
/// use chunked_array::{Array, Complex64};
/// use chunked_linalg::Scalar;
/// fn largest_singular_value<T: Scalar>(a: &Array<T>) -> chunked_linalg::Result<T::RealPart> {
///     chunked_linalg::svd(a)?.s.max(None)?.compute_scalar()
/// }
/// let a = Array::<f32>::from_vec(&[2, 2], vec![0.0, 2.0, 1.0, 0.0], 2).unwrap();
/// assert!((largest_singular_value(&a).unwrap() - 2.0).abs() < 1e-6);
/// let i = Complex64::new(0.0, 1.0);
/// let z = Array::from_vec(&[2, 2], vec![i * 3.0, i, i, i * 3.0], 2).unwrap(); // i [[3, 1], [1, 3]]
/// assert!((largest_singular_value(&z).unwrap() - 4.0).abs() < 1e-12);
/// ```
pub trait Scalar:
    chunked_array::Gemm
    + chunked_array::Inexact
    + chunked_array::Number<RealPart: RealScalar>
    + faer::traits::ComplexField<Real = <Self as chunked_array::Number>::RealPart>
    + device_dispatch::DeviceDispatch
{
}
impl<T: RealScalar> Scalar for T {}
impl Scalar for chunked_array::Complex32 {}
impl Scalar for chunked_array::Complex64 {}

/// The real [`Scalar`]s, `f32` and `f64` (every `RealScalar` is a `Scalar`):
/// the singular values, norms and residuals of every `Scalar`, and the
/// element types a device runs.
///
/// ```
/// use chunked_array::Array;
/// use chunked_linalg::RealScalar;
/// fn relative_residual<T: RealScalar>(a: &Array<T>, b: &Array<T>) -> chunked_linalg::Result<T> {
///     let x = chunked_linalg::solve(a, b)?;
///     let r = chunked_linalg::vector_norm(&(&a.matmul(&x)? - b), 2.0)?;
///     (&r / &chunked_linalg::vector_norm(b, 2.0)?).compute_scalar()
/// }
/// let a = Array::<f64>::from_vec(&[2, 2], vec![2.0, 1.0, 1.0, 3.0], 1).unwrap();
/// let b = Array::<f64>::ones(&[2], 1).unwrap();
/// assert!(relative_residual(&a, &b).unwrap() < 1e-15);
/// ```
pub trait RealScalar:
    chunked_array::Gemm
    + chunked_array::Float
    + device_dispatch::DeviceDispatch
    + faer::traits::RealField
    + chunked_gpu::SolverElement
    + chunked_array::random::RandomFloat
{
}
impl RealScalar for f32 {}
impl RealScalar for f64 {}

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
