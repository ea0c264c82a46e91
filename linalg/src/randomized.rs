//! Randomized SVD (Halko, Martinsson and Tropp, 2011) on matrices chunked any
//! way: a Gaussian sketch of the range, optional power iterations
//! re-orthonormalized with TSQR, and the exact SVD of the small projection.

use chunked_array::random::RandomState;
use chunked_array::{Array, ChunkSpec, Idx};

use crate::decomp::{adjoint, svd};
use crate::tsqr::{Svd, TsqrOptions, tsqr};
use crate::{Error, Result, Scalar};

/// Options of [`svd_compressed`] (dask's defaults).
///
/// ```
/// use chunked_array::Array;
/// use chunked_linalg::{svd_compressed, CompressedOptions};
/// let options = CompressedOptions { n_power_iter: 1, ..CompressedOptions::default() };
/// assert_eq!((options.n_oversamples, options.seed), (10, 0));
/// let a = Array::<f64>::ones(&[20, 10], 5).unwrap(); // rank 1, singular value sqrt(200)
/// let s = svd_compressed(&a, 1, &options).unwrap().s.compute().unwrap();
/// assert!((s[0] - 200f64.sqrt()).abs() < 1e-10);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressedOptions {
    /// Extra sketch columns beyond k (the sketch has k + n_oversamples columns).
    pub n_oversamples: usize,
    /// Power iterations `(A Aᴴ)^q A Ω`, each re-orthonormalized: more accuracy
    /// for slowly decaying spectra at two more passes over A each.
    pub n_power_iter: usize,
    /// Seed of the Gaussian test matrix (results are reproducible for a seed,
    /// whatever the chunking).
    pub seed: u64,
}

impl Default for CompressedOptions {
    fn default() -> Self {
        CompressedOptions { n_oversamples: 10, n_power_iter: 0, seed: 0 }
    }
}

/// Orthonormal basis of the columns of `y` (tall-skinny, one column block).
fn orthonormalize<T: Scalar>(y: &Array<T>) -> Result<Array<T>> {
    Ok(tsqr(y, &TsqrOptions::default())?.q)
}

/// The k leading singular triplets of `a` (any chunking) by randomized SVD:
/// u (m × k, chunked along rows like `a`), s (k), vt (k × n, chunked along
/// columns), with [`crate::svd`]'s sign convention. The test matrix is real
/// Gaussian for complex `a` too (as dask's), which sketches its range as well.
///
/// ```
/// use chunked_array::random::RandomState;
/// use chunked_linalg::{svd_compressed, CompressedOptions};
/// // A rank-5 matrix is recovered exactly.
/// let rng = RandomState::new(1);
/// let l = rng.standard_normal::<f64>(&[500, 5], [100, 5]).unwrap();
/// let r = rng.with_stream(1).standard_normal::<f64>(&[5, 300], [5, 100]).unwrap();
/// let a = l.matmul(&r).unwrap();
/// let f = svd_compressed(&a, 5, &CompressedOptions::default()).unwrap();
/// let back = f.u.matmul(&(&f.vt * &f.s.reshape(&[5, 1]).unwrap())).unwrap();
/// assert!((&back - &a).abs().max(None).unwrap().compute_scalar().unwrap() < 1e-10);
/// ```
///
/// # Errors
/// [`Error::BadInput`] when `a` is not 2-d or `k` is 0 or above min(m, n).
pub fn svd_compressed<T: Scalar>(a: &Array<T>, k: usize, options: &CompressedOptions) -> Result<Svd<T>> {
    a.check()?;
    let shape = a.shape();
    if shape.len() != 2 {
        return Err(Error::BadInput { routine: "svd_compressed".into(), needs: "a 2-d array".into(), shape });
    }
    let (m, n) = (shape[0], shape[1]);
    if k == 0 || k > m.min(n) {
        return Err(Error::BadInput {
            routine: "svd_compressed".into(),
            needs: format!("1 <= k <= min(m, n) = {} (got k = {k})", m.min(n)),
            shape,
        });
    }
    let l = (k + options.n_oversamples).min(m.min(n));
    let col_chunks = a.chunks().lengths()[1].clone();
    let omega = RandomState::new(options.seed)
        .standard_normal::<T::RealPart>(&[n, l], ChunkSpec::from(vec![col_chunks, vec![l]]))?
        .astype::<T>();
    let at = adjoint(a);
    let mut y = a.matmul(&omega)?;
    for _ in 0..options.n_power_iter {
        let z = at.matmul(&orthonormalize(&y)?)?;
        y = a.matmul(&orthonormalize(&z)?)?;
    }
    let q = orthonormalize(&y)?;
    // B = Qᴴ A is l × n, short-fat: its SVD goes through the transpose.
    let b = adjoint(&q).matmul(a)?;
    let small = svd(&b)?;
    let keep = [Idx::range(0, k as isize), Idx::stepped(None, None, 1)];
    let u = q.matmul(&small.u)?.slice([Idx::stepped(None, None, 1), Idx::range(0, k as isize)])?;
    let s = small.s.slice(&keep[..1])?;
    let vt = small.vt.slice(keep)?;
    Ok(Svd { u, s, vt })
}
