//! Cholesky factorization by right-looking tiles.

use chunked_array::custom::{Deps, Layer, LayerOp};
use chunked_array::runtime::Block;
use chunked_array::{Array, Chunks, DType};
use faer::Par;

use super::blocks::{mat_of, pick, square_blocks};
use crate::decomp::adjoint;
use crate::kernels::{self, gemm, row_major_block};
use crate::{Error, Result, Scalar};

/// Work blocks (p, i, j), j <= i: p >= 1 is A^(p)_ij = A^(p-1)_ij - L_i,p-1 L_j,p-1ᴴ
/// (A^(0) the input); p = 0 is the finished L_ij.
struct CholeskyWork<T> {
    /// Block lengths (the same on both axes).
    lens: Vec<usize>,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for CholeskyWork<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(chunked_array::runtime::Wire::elements::<T>())
    }
    fn output_bytes(&self, idx: &[usize]) -> Option<usize> {
        Some(self.lens[idx[1]] * self.lens[idx[2]] * std::mem::size_of::<T>())
    }
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        let (p, i, j) = (idx[0], idx[1], idx[2]);
        if p >= 1 {
            if p == 1 {
                deps.push(0, &[i, j])
            } else {
                deps.push_self(&[p - 1, i, j])
            }
            deps.push_self(&[0, i, p - 1]);
            deps.push_self(&[0, j, p - 1]);
        } else {
            if j == 0 {
                deps.push(0, &[i, j])
            } else {
                deps.push_self(&[j, i, j])
            }
            if i > j {
                deps.push_self(&[0, j, j]);
            }
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let (p, i, j) = (idx[0], idx[1], idx[2]);
        let a = mat_of::<T>(inputs[0])?;
        if p >= 1 {
            let (li, lj) = (mat_of::<T>(inputs[1])?, mat_of::<T>(inputs[2])?);
            return Ok(row_major_block::<T>(a.nrows(), a.ncols(), |mut dst| {
                dst.copy_from(a);
                gemm(dst, true, li, lj.adjoint(), -T::ONE, Par::Seq);
            }));
        }
        if i == j {
            let l = kernels::cholesky(a, Par::Seq).map_err(|pivot| Error::NotPositiveDefinite {
                routine: "cholesky".into(),
                block: format!("diagonal block ({j}, {j})"),
                pivot,
            })?;
            return Ok(row_major_block::<T>(l.nrows(), l.ncols(), |mut dst| dst.copy_from(&l)));
        }
        let ljj = mat_of::<T>(inputs[1])?;
        Ok(row_major_block::<T>(a.nrows(), a.ncols(), |mut dst| {
            dst.copy_from(a);
            kernels::solve_right_lower_adjoint_in_place(ljj, dst, Par::Seq);
        }))
    }
}

/// Cholesky factor of a Hermitian (for the reals, symmetric) positive
/// definite matrix with square blocks: `a = l · lᴴ` with `l` lower triangular
/// (or `u = lᴴ` upper with `lower = false`, dask's default). Only the lower
/// triangle of `a` is read.
///
/// ```
/// use chunked_array::{Array, Complex64};
/// let a = Array::<f64>::from_fn(&[6, 6], 2, |i| if i[0] == i[1] { 4.0 } else { 1.0 }).unwrap();
/// let l = chunked_linalg::cholesky(&a, true).unwrap();
/// let back = l.matmul(&l.t()).unwrap();
/// assert!((&back - &a).abs().max(None).unwrap().compute_scalar().unwrap() < 1e-12);
/// // Hermitian: [[2, i], [-i, 2]] = u^H u.
/// let i = Complex64::new(0.0, 1.0);
/// let h = Array::from_vec(&[2, 2], vec![i * 0.0 + 2.0, i, -i, i * 0.0 + 2.0], 1).unwrap();
/// let u = chunked_linalg::cholesky(&h, false).unwrap();
/// let back = u.t().conj().matmul(&u).unwrap();
/// assert!((&back - &h).abs().max(None).unwrap().compute_scalar().unwrap() < 1e-15);
/// ```
///
/// # Errors
/// [`Error::BadInput`] for a matrix that is not square with square blocks; at
/// compute time, an error naming the diagonal block where the matrix turned out
/// not positive definite.
pub fn cholesky<T: Scalar>(a: &Array<T>, lower: bool) -> Result<Array<T>> {
    let lens = square_blocks(a, "cholesky")?;
    let nb = lens.len();
    let work = Layer::new(
        "cholesky-work",
        DType::Intermediate,
        Chunks::from_lengths(vec![vec![1; nb], vec![1; nb], vec![1; nb]]),
        &[a.layer()],
        CholeskyWork::<T> { lens: lens.clone(), _t: std::marker::PhantomData },
    );
    let l = pick::<T>("cholesky", &work, a.chunks(), |i, j| (i >= j).then(|| vec![0, i, j]))?;
    Ok(if lower { l } else { adjoint(&l) })
}
