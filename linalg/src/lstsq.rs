//! Least squares through TSQR: `a = Q R`, `R = U_R Σ Vᴴ`, so
//! `x = V Σ⁺ (Q U_R)ᴴ b` with singular values below `rcond · σ_max` treated as
//! zero. That is the minimum-norm solution NumPy's `lstsq` gives, also for
//! rank-deficient `a`, at the cost of one TSQR and one pass over `b`.

use std::sync::Arc;

use chunked_array::custom::{Deps, Layer, LayerOp, block_array};
use chunked_array::runtime::Block;
use chunked_array::{Array, ChunkSpec, Chunks, DType};
use faer::Par;

use chunked_array::{Element, Number};
use faer::traits::math_utils::from_real;

use crate::decomp::{adjoint, svd};
use crate::kernels::{gemm, row_major_block, view};
use crate::{Error, RealScalar, Result, Scalar};

/// The result of [`lstsq`], as lazy arrays (NumPy's tuple).
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_vec(&[3, 2], vec![1.0, 0.0, 0.0, 2.0, 0.0, 0.0], [3, 2]).unwrap();
/// let b = Array::<f64>::from_vec(&[3], vec![1.0, 4.0, 3.0], 3).unwrap();
/// let fit = chunked_linalg::lstsq(&a, &b, None).unwrap();
/// assert!((fit.residuals.compute_scalar().unwrap() - 9.0).abs() < 1e-12); // the 3 left over
/// assert_eq!(fit.rank.compute_scalar().unwrap(), 2);
/// let s = fit.s.compute().unwrap();
/// assert!((s[0] - 2.0).abs() < 1e-12 && (s[1] - 1.0).abs() < 1e-12);
/// ```
#[derive(Clone)]
pub struct Lstsq<T: Scalar> {
    /// The solution, n (× k when `b` is 2-d).
    pub x: Array<T>,
    /// Squared 2-norm of `b - a·x` per column of `b` (0-d for a 1-d `b`), real.
    pub residuals: Array<T::RealPart>,
    /// Numerical rank of `a` (0-d).
    pub rank: Array<i64>,
    /// Singular values of `a`, non-increasing, real.
    pub s: Array<T::RealPart>,
}

/// Threshold of the singular values kept, `rcond · σ_max`.
fn cutoff<R: RealScalar>(s: &ndarray::ArrayD<R>, rcond: f64) -> R {
    let max = s.iter().copied().fold(R::ZERO, |m, x| if x > m { x } else { m });
    R::from_f64(max.to_f64() * rcond)
}

/// `x_j = V · diag(1/σ, kept) · (uᴴ b)_j` for column block j.
struct PseudoInverse<T> {
    rcond: f64,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for PseudoInverse<T> {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
        deps.push(1, &[0, 0]);
        deps.push(2, &[0, idx[1]]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let s = block_array::<T::RealPart>(inputs[0])?;
        let vt = view(block_array::<T>(inputs[1])?).expect("2-d");
        let utb = block_array::<T>(inputs[2])?;
        let cut = cutoff(s, self.rcond);
        let mut scaled = view(utb).expect("2-d").to_owned();
        let zero = <T::RealPart as Number>::ZERO;
        for (i, &si) in s.iter().enumerate() {
            let inv = if si > cut && si > zero { <T::RealPart as Number>::ONE / si } else { zero };
            let inv = from_real::<T>(&inv);
            scaled.row_mut(i).iter_mut().for_each(|x| *x *= inv);
        }
        Ok(row_major_block::<T>(vt.ncols(), scaled.ncols(), |dst| {
            gemm(dst, false, vt.adjoint(), scaled.as_ref(), T::ONE, Par::Seq)
        }))
    }
}

/// Counts the singular values above the cutoff.
struct Rank<T> {
    rcond: f64,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for Rank<T> {
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let s = block_array::<T::RealPart>(inputs[0])?;
        let cut = cutoff(s, self.rcond);
        let rank = s.iter().filter(|&&x| x > cut && x > <T::RealPart as Number>::ZERO).count() as i64;
        Ok(Arc::new(ndarray::arr0(rank).into_dyn()))
    }
}

/// Least-squares solution of `a · x ≈ b` for a tall-skinny or short-fat `a`
/// (m × n with min(m, n) columns fitting a block) and `b` of m rows (1-d or
/// 2-d). `rcond` (None: `max(m, n) · eps`, NumPy's default) sets which singular
/// values count as zero; the solution is the minimum-norm one.
///
/// ```
/// use chunked_array::Array;
/// let a = Array::<f64>::from_fn(&[100, 2], [25, 2], |i| if i[1] == 0 { 1.0 } else { i[0] as f64 }).unwrap();
/// let b = Array::<f64>::from_fn(&[100], 25, |i| 3.0 + 0.5 * i[0] as f64).unwrap();
/// let fit = chunked_linalg::lstsq(&a, &b, None).unwrap();
/// let x = fit.x.compute().unwrap();
/// assert!((x[0] - 3.0).abs() < 1e-10 && (x[1] - 0.5).abs() < 1e-12);
/// assert_eq!(fit.rank.compute_scalar().unwrap(), 2);
/// ```
///
/// # Errors
/// [`Error::BadInput`] when `a` is not 2-d or `b` is not 1-d/2-d with m rows;
/// errors of [`crate::svd`].
pub fn lstsq<T: Scalar>(a: &Array<T>, b: &Array<T>, rcond: Option<f64>) -> Result<Lstsq<T>> {
    a.check()?;
    b.check()?;
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 2 {
        return Err(Error::BadInput { routine: "lstsq".into(), needs: "a 2-d a".into(), shape: sa });
    }
    if !(1..=2).contains(&sb.len()) || sb[0] != sa[0] {
        return Err(Error::BadInput {
            routine: "lstsq".into(),
            needs: format!("b with {} rows, 1-d or 2-d", sa[0]),
            shape: sb,
        });
    }
    let rcond = rcond.unwrap_or(sa[0].max(sa[1]) as f64 * faer::traits::math_utils::eps::<T::RealPart>().to_f64());
    if !(rcond >= 0.0 && rcond.is_finite()) {
        return Err(Error::BadInput {
            routine: "lstsq".into(),
            needs: format!("a finite rcond >= 0 (got {rcond})"),
            shape: sa,
        });
    }
    let one_d = sb.len() == 1;
    let b2 = if one_d { b.expand_dims(1)? } else { b.clone() };
    let f = svd(a)?;
    let utb = adjoint(&f.u).matmul(&b2)?;
    let n = sa[1];
    let cols = utb.chunks().lengths()[1].clone();
    let phantom = std::marker::PhantomData;
    let inputs = [
        f.s.layer(),
        f.vt.rechunk(ChunkSpec::from(f.vt.shape().iter().map(|&l| vec![l]).collect::<Vec<_>>()))?.layer(),
        utb.rechunk(ChunkSpec::from(vec![vec![f.s.len()], cols.clone()]))?.layer(),
    ];
    let x2: Array<T> = Layer::new(
        "lstsq-x",
        T::DTYPE,
        Chunks::from_lengths(vec![vec![n], cols]),
        &inputs,
        PseudoInverse::<T> { rcond, _t: phantom },
    )
    .into_array()?;
    let resid = (&b2 - &a.matmul(&x2)?).abs();
    let residuals = (&resid * &resid).sum(0)?;
    let rank = Layer::new(
        "lstsq-rank",
        DType::I64,
        Chunks::from_lengths(vec![]),
        &[f.s.layer()],
        Rank::<T> { rcond, _t: phantom },
    )
    .into_array()?;
    let (x, residuals) =
        if one_d { (x2.squeeze(Some(&[1]))?, residuals.squeeze(Some(&[0]))?) } else { (x2, residuals) };
    Ok(Lstsq { x, residuals, rank, s: f.s })
}
