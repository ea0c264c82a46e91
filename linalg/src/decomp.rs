//! QR and SVD of any 2-d chunked matrix: tall-skinny through [`tsqr`](fn@crate::tsqr),
//! short-fat through [`sfqr`] (QR) or the transpose (SVD). Unlike dask, a matrix
//! chunked along both axes is rechunked to one column of blocks when its columns
//! fit a block; wider matrices get an error that points to
//! [`crate::svd_compressed`].

use std::sync::Arc;

use chunked_array::custom::{Deps, Layer, LayerOp, block_array, block_value};
use chunked_array::runtime::Block;
use chunked_array::{Array, ChunkSpec, Chunks, DEFAULT_AUTO_BYTES, DType};
use faer::Par;

use crate::kernels::{HouseholderQr, row_major_block, view};
use crate::tsqr::{Svd, TsqrOptions, row_owners, tsqr_with_owners};
use crate::{Error, Result, Scalar};

/// Leaves of at least this many times n rows: a square leaf spends as much on
/// its own QR as on the tree above it, a leaf of 5n rows keeps the tree cheap
/// (leaf sizes from n to 20n are timed in BENCHMARKS.md; 5n and 10n are the
/// fastest). Of those two, 5n halves what a task holds (a row block of A, its
/// block of U and a leaf's factor on the Householder path), so a tall SVD fits
/// a memory limit of a quarter of A.
const LEAF_ROWS_PER_COLUMN: usize = 5;

fn require_2d<T: Scalar>(a: &Array<T>, routine: &str) -> Result<(usize, usize)> {
    a.check()?;
    let s = a.shape();
    if s.len() != 2 {
        return Err(Error::BadInput { routine: routine.into(), needs: "a 2-d array".into(), shape: s });
    }
    Ok((s[0], s[1]))
}

/// Row lengths for TSQR leaves: the input's row blocks merged until a leaf has
/// `LEAF_ROWS_PER_COLUMN · n` rows, and split where one would exceed the block
/// byte limit.
fn leaf_rows(rows: &[usize], n: usize, elem: usize) -> Vec<usize> {
    let cap = (DEFAULT_AUTO_BYTES / (n.max(1) * elem)).max(1);
    let target = (LEAF_ROWS_PER_COLUMN * n).clamp(1, cap);
    let mut out = Vec::new();
    let mut acc = 0usize;
    for &r in rows {
        if acc > 0 && (acc >= target || acc + r > cap) {
            out.push(acc);
            acc = 0;
        }
        acc += r;
        while acc > cap {
            out.push(cap);
            acc -= cap;
        }
    }
    if acc > 0 || out.is_empty() {
        out.push(acc);
    }
    out
}

/// The conjugate transpose `aᴴ` of a 2-d array (the transpose for the reals).
pub(crate) fn adjoint<T: Scalar>(a: &Array<T>) -> Array<T> {
    if T::IS_COMPLEX { a.t().conj() } else { a.t() }
}

/// `a` (m >= n) on a grid TSQR takes: one column of blocks, tall leaves, each
/// made of row blocks of one of `processes` ranks (so that no row block
/// travels to be merged under MPI, and every rank has leaves while the ranks
/// are at most the row blocks); with the rank that holds each leaf.
fn tall_grid<T: Scalar>(a: &Array<T>, routine: &str, processes: usize) -> Result<(Array<T>, Vec<usize>)> {
    let (_, n) = require_2d(a, routine)?;
    let elem = std::mem::size_of::<T>();
    if n.saturating_mul(n).saturating_mul(elem) > DEFAULT_AUTO_BYTES {
        return Err(Error::BadInput {
            routine: routine.into(),
            needs: format!(
                "at most {} columns for one column of blocks (an n x n block must fit {} MiB); use svd_compressed for a low-rank approximation of wider matrices",
                ((DEFAULT_AUTO_BYTES / elem) as f64).sqrt() as usize,
                DEFAULT_AUTO_BYTES >> 20
            ),
            shape: a.shape(),
        });
    }
    let row_lengths = &a.chunks().lengths()[0];
    let owners_in = row_owners(a, processes);
    let (mut rows, mut owners) = (Vec::new(), Vec::new());
    let mut start = 0;
    while start < row_lengths.len() {
        let end = start + owners_in[start..].iter().take_while(|&&o| o == owners_in[start]).count();
        let leaves = leaf_rows(&row_lengths[start..end], n, elem);
        owners.extend(std::iter::repeat_n(owners_in[start], leaves.len()));
        rows.extend(leaves);
        start = end;
    }
    if rows.is_empty() {
        // No row blocks: the empty matrix's one empty leaf.
        (rows, owners) = (vec![0], vec![0]);
    }
    if *row_lengths == rows && a.chunks().grid()[1] == 1 {
        return Ok((a.clone(), owners));
    }
    Ok((a.rechunk(ChunkSpec::from(vec![rows, vec![n]]))?, owners))
}

/// QR decomposition `a = q · r` (reduced: q is m × k, r is k × n, k = min(m, n)).
/// Tall-skinny matrices go through [`tsqr`](fn@crate::tsqr) (row blocks merged into leaves of at
/// least 5n rows; q comes out on that row grid), short-fat ones through
/// [`sfqr`].
///
/// ```
/// use chunked_array::random::RandomState;
/// let a = RandomState::new(2).standard_normal::<f64>(&[300, 20], [100, 10]).unwrap();
/// let (q, r) = chunked_linalg::qr(&a).unwrap();
/// let err = (&q.matmul(&r).unwrap() - &a).abs().max(None).unwrap().compute_scalar().unwrap();
/// assert!(err < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadInput`] for arrays that are not 2-d, and for matrices whose
/// smaller dimension is too large for one block of it (see
/// [`crate::svd_compressed`]).
pub fn qr<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let (m, n) = require_2d(a, "qr")?;
    if m < n {
        return sfqr(a);
    }
    let (tall, owners) = tall_grid(a, "qr", chunked_array::runtime::process_count())?;
    let f = tsqr_with_owners(&tall, &TsqrOptions::default(), &owners)?;
    Ok((f.q, f.r))
}

/// Thin SVD `a = u · diag(s) · vt`, with signs fixed on the small factor (dask's
/// `svd_flip`): the largest entry of every row of vt is positive for a tall `a`,
/// of every column of u for a wide one (for complex `a`: real and positive,
/// the singular vectors' phases fixed). Tall-skinny matrices go through
/// [`tsqr`](fn@crate::tsqr) with the SVD of R folded into the assembly of u; short-fat ones
/// through the conjugate transpose. The singular values are real for complex
/// `a` too.
///
/// ```
/// use chunked_array::random::RandomState;
/// let a = RandomState::new(2).uniform::<f64>(&[400, 30], [100, 30]).unwrap();
/// let svd = chunked_linalg::svd(&a).unwrap();
/// let s = svd.s.compute().unwrap();
/// assert!((1..s.len()).all(|i| s[i - 1] >= s[i]));
/// ```
///
/// # Errors
/// As [`qr`].
pub fn svd<T: Scalar>(a: &Array<T>) -> Result<Svd<T>> {
    let (m, n) = require_2d(a, "svd")?;
    if m < n {
        // a = (aᴴ)ᴴ = (u' s vt')ᴴ = vt'ᴴ s u'ᴴ.
        let t = svd(&adjoint(a))?;
        return Ok(Svd { u: adjoint(&t.vt), s: t.s, vt: adjoint(&t.u) });
    }
    let (tall, owners) = tall_grid(a, "svd", chunked_array::runtime::process_count())?;
    let f = tsqr_with_owners(&tall, &TsqrOptions { compute_svd: true, ..TsqrOptions::default() }, &owners)?;
    Ok(f.svd.expect("asked for the SVD"))
}

/// QR of the first column block (m × c0, c0 >= m).
struct FirstBlockQr<T> {
    /// Shape of the first column block (m × c0), which the factor holds.
    rows: usize,
    cols: usize,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for FirstBlockQr<T> {
    fn wire(&self) -> Option<chunked_array::runtime::Wire> {
        Some(HouseholderQr::<T>::wire())
    }
    fn output_bytes(&self, _: &[usize]) -> Option<usize> {
        Some(self.rows * self.cols * std::mem::size_of::<T>())
    }
    fn deps(&self, _: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0, 0]);
    }
    fn run(&self, _: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let a = view(block_array::<T>(inputs[0])?).expect("2-d block").to_owned();
        Ok(Arc::new(HouseholderQr::factor(a, Par::rayon(0))))
    }
}

/// q (m × m) or block j of r = Qᴴ A_j (R itself for j = 0, exactly triangular).
struct SfqrPart<T> {
    q: bool,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T: Scalar> LayerOp for SfqrPart<T> {
    fn deps(&self, idx: &[usize], deps: &mut Deps<'_>) {
        deps.push(0, &[0]);
        if !self.q && idx[1] > 0 {
            deps.push(1, &[0, idx[1]]);
        }
    }
    fn run(&self, idx: &[usize], inputs: &[&Block]) -> chunked_array::Result<Block> {
        let f = block_value::<HouseholderQr<T>>(inputs[0])?;
        let m = f.nrows();
        if self.q {
            let eye = faer::Mat::<T>::from_fn(m, m, |i, j| if i == j { T::ONE } else { T::ZERO });
            return Ok(row_major_block::<T>(m, m, |dst| f.q_times(eye.as_ref(), dst, Par::Seq)));
        }
        if idx[1] == 0 {
            let r = f.r();
            return Ok(row_major_block::<T>(m, r.ncols(), |mut dst| dst.copy_from(&r)));
        }
        let a = view(block_array::<T>(inputs[1])?).expect("2-d block");
        Ok(row_major_block::<T>(m, a.ncols(), |mut dst| {
            dst.copy_from(a);
            f.apply_qh(dst, Par::Seq);
        }))
    }
}

/// QR of a short-fat matrix (m <= n): the QR of the first m columns gives q
/// (m × m) and the rest of r is qᴴ times the other column blocks. `a` is
/// rechunked to one row of blocks whose first block has at least m columns.
///
/// ```
/// use chunked_array::random::RandomState;
/// let a = RandomState::new(3).standard_normal::<f64>(&[10, 40], [10, 20]).unwrap();
/// let (q, r) = chunked_linalg::sfqr(&a).unwrap();
/// assert_eq!((q.shape(), r.shape()), (vec![10, 10], vec![10, 40]));
/// let err = (&q.matmul(&r).unwrap() - &a).abs().max(None).unwrap().compute_scalar().unwrap();
/// assert!(err < 1e-12);
/// ```
///
/// # Errors
/// [`Error::BadInput`] when `a` is not 2-d, is taller than wide, or has too
/// many rows for an m × m block.
pub fn sfqr<T: Scalar>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let (m, n) = require_2d(a, "sfqr")?;
    if m > n {
        return Err(Error::BadInput {
            routine: "sfqr".into(),
            needs: "a short-fat matrix (rows <= columns); use qr or tsqr".into(),
            shape: vec![m, n],
        });
    }
    // The transposed leaf rule gives column blocks of >= m columns (>= 10m).
    // Merged over all ranks: the first block must hold at least m columns,
    // which a rank's own columns may not.
    let t = tall_grid(&a.t(), "sfqr", 1)?.0.t();
    let cols = t.chunks().lengths()[1].clone();
    let factor = Layer::new(
        "sfqr-qr",
        DType::Intermediate,
        Chunks::from_lengths(vec![vec![1]]),
        &[t.layer()],
        FirstBlockQr::<T> { rows: m, cols: cols[0], _t: std::marker::PhantomData },
    );
    let q = Layer::new(
        "sfqr-q",
        T::DTYPE,
        Chunks::from_lengths(vec![vec![m], vec![m]]),
        std::slice::from_ref(&factor),
        SfqrPart::<T> { q: true, _t: std::marker::PhantomData },
    )
    .into_array()?;
    let r = Layer::new(
        "sfqr-r",
        T::DTYPE,
        Chunks::from_lengths(vec![vec![m], cols]),
        &[factor, t.layer()],
        SfqrPart::<T> { q: false, _t: std::marker::PhantomData },
    )
    .into_array()?;
    Ok((q, r))
}

#[cfg(test)]
mod tests {
    use super::leaf_rows;

    #[test]
    fn leaves_merge_to_five_n_and_split_at_the_byte_cap() {
        assert_eq!(leaf_rows(&[1000; 100], 1000, 8), vec![5_000; 20]);
        assert_eq!(leaf_rows(&[5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5], 10, 8), vec![50, 5]);
        assert_eq!(leaf_rows(&[0], 10, 8), vec![0]);
        // 128 MiB / (4096 * 8) = 4096 rows per block at most.
        assert_eq!(leaf_rows(&[10_000], 4096, 8), vec![4096, 4096, 1808]);
    }
}
