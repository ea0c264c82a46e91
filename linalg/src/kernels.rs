//! Dense per-block kernels: thin wrappers over faer's low-level routines with an
//! explicit parallelism, so a task runs on one core (the scheduler runs blocks in
//! parallel) unless it is alone on the critical path.
//!
//! Blocks of elements travel as row-major `ndarray` arrays; faer prefers
//! column-major storage for factorizations, so kernels copy a block into a faer
//! `Mat` once, work there, and write results straight into row-major buffers.

use std::sync::Arc;

use chunked_array::runtime::Block;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::matmul::matmul;
use faer::reborrow::ReborrowMut;
use faer::{Accum, Mat, MatMut, MatRef, Par};
use ndarray::{ArrayD, IxDyn};

use crate::Scalar;

/// `BlockValue` for an intermediate block type: `$bytes` (with `$v` bound to
/// the value) counts what it holds; the `Any` conversions are always the same.
///
/// - `image`: the type's `spill_bytes` and `from_bytes` let it go to the disk
///   tier when memory is over the limit and travel between MPI ranks (its
///   `wire()`).
/// - `spill`: the same, with those two made from the type's `spill_mats` and
///   `from_spill_mats` (blocks that are a few matrices).
macro_rules! intermediate_block {
    (impl<$g:ident: $bound:path> for $ty:ty, |$v:ident| $bytes:expr, spill) => {
        impl<$g: $bound> $ty {
            /// The bytes of the block's spill image: its matrices.
            fn spill_bytes(&self) -> Vec<u8> {
                crate::kernels::mats_to_bytes(&self.spill_mats())
            }

            /// The block from the bytes of its spill image (in any process of
            /// the same program).
            fn from_bytes(bytes: &[u8]) -> Option<chunked_array::runtime::Block> {
                let mats = crate::kernels::mats_from_bytes(bytes)?;
                Some(std::sync::Arc::new(<$ty>::from_spill_mats(mats)?) as chunked_array::runtime::Block)
            }
        }
        crate::kernels::intermediate_block!(impl<$g: $bound> for $ty, |$v| $bytes, image);
    };
    (impl<$g:ident: $bound:path> for $ty:ty, |$v:ident| $bytes:expr, image) => {
        crate::kernels::intermediate_block!(impl<$g: $bound> for $ty, |$v| $bytes, with_image);
        impl<$g: $bound> $ty {
            /// How blocks of this type travel between MPI ranks: as their spill image.
            pub(crate) fn wire() -> chunked_array::runtime::Wire {
                chunked_array::runtime::Wire::spill_image(Self::from_bytes)
            }
        }
    };
    (impl for $ty:ty, |$v:ident| $bytes:expr, image) => {
        crate::kernels::intermediate_block!(impl for $ty, |$v| $bytes, with_image);
        impl $ty {
            /// How blocks of this type travel between MPI ranks: as their spill image.
            pub(crate) fn wire() -> chunked_array::runtime::Wire {
                chunked_array::runtime::Wire::spill_image(Self::from_bytes)
            }
        }
    };
    (impl$(<$g:ident: $bound:path>)? for $ty:ty, |$v:ident| $bytes:expr $(, $with_image:ident)?) => {
        impl$(<$g: $bound>)? chunked_array::runtime::BlockValue for $ty {
            fn nbytes(&self) -> usize {
                let $v = self;
                $bytes
            }
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }
            fn into_any(self: std::sync::Arc<Self>) -> std::sync::Arc<dyn std::any::Any + Send + Sync> {
                self
            }
            $(
            fn spill_image(&self) -> Option<chunked_array::runtime::SpillImage> {
                let _ = stringify!($with_image);
                Some(chunked_array::runtime::SpillImage { bytes: self.spill_bytes(), rebuild: <$ty>::from_bytes })
            }
            )?
        }
    };
}
pub(crate) use intermediate_block;

/// Matrices as bytes for the disk tier: per matrix its shape, then its columns.
pub(crate) fn mats_to_bytes<T: Scalar>(mats: &[MatRef<'_, T>]) -> Vec<u8> {
    let size = std::mem::size_of::<T>();
    let mut out = Vec::with_capacity(mats.iter().map(|m| 16 + m.nrows() * m.ncols() * size).sum());
    for m in mats {
        out.extend_from_slice(&(m.nrows() as u64).to_le_bytes());
        out.extend_from_slice(&(m.ncols() as u64).to_le_bytes());
        for j in 0..m.ncols() {
            let col = m.col(j);
            match col.try_as_col_major() {
                Some(c) => out.extend_from_slice(as_bytes(c.as_slice())),
                None => (0..m.nrows()).for_each(|i| out.extend_from_slice(as_bytes(std::slice::from_ref(&m[(i, j)])))),
            }
        }
    }
    out
}

/// The matrices [`mats_to_bytes`] wrote; `None` when the bytes do not parse.
pub(crate) fn mats_from_bytes<T: Scalar>(mut bytes: &[u8]) -> Option<Vec<Mat<T>>> {
    let size = std::mem::size_of::<T>();
    let mut mats = Vec::new();
    while !bytes.is_empty() {
        let take = |b: &mut &[u8]| -> Option<u64> {
            let (head, rest) = b.split_at_checked(8)?;
            *b = rest;
            Some(u64::from_le_bytes(head.try_into().ok()?))
        };
        let (r, c) = (usize::try_from(take(&mut bytes)?).ok()?, usize::try_from(take(&mut bytes)?).ok()?);
        // The shape comes from the bytes: it must fit in them before any allocation.
        if r.checked_mul(c)?.checked_mul(size)? > bytes.len() {
            return None;
        }
        let mut m = Mat::<T>::zeros(r, c);
        for j in 0..c {
            let (col, rest) = bytes.split_at_checked(r * size)?;
            bytes = rest;
            let dst = m.col_as_slice_mut(j);
            // SAFETY: T is a float or a complex of two floats (`repr(C)`, no
            // padding); the bytes were written from values of the same type by
            // this program.
            unsafe { std::ptr::copy_nonoverlapping(col.as_ptr(), dst.as_mut_ptr().cast::<u8>(), r * size) };
        }
        mats.push(m);
    }
    Some(mats)
}

fn as_bytes<T: Scalar>(v: &[T]) -> &[u8] {
    // SAFETY: T is a float or a complex of two floats (`repr(C)`): no padding.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

/// Bytes of a faer matrix's elements.
pub(crate) fn mat_bytes<T>(m: &Mat<T>) -> usize {
    m.nrows() * m.ncols() * std::mem::size_of::<T>()
}

/// faer's workspace for one call.
fn with_stack<R>(req: faer::dyn_stack::StackReq, f: impl FnOnce(&mut MemStack) -> R) -> R {
    let mut buf = MemBuffer::new(req);
    f(MemStack::new(&mut buf))
}

/// A row-major 2-d block as a faer view.
pub(crate) fn view<T: Scalar>(a: &ArrayD<T>) -> Option<MatRef<'_, T>> {
    if a.ndim() != 2 {
        return None;
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let s = a.strides();
    // SAFETY: the pointer and strides come from a live ndarray of this shape.
    Some(unsafe { MatRef::from_raw_parts(a.as_ptr(), m, n, s[0], s[1]) })
}

/// A row-major `ndarray` block filled by `fill` through a faer view.
pub(crate) fn row_major_block<T: Scalar>(m: usize, n: usize, fill: impl FnOnce(MatMut<'_, T>)) -> Block {
    let mut data = vec![T::ZERO; m * n];
    fill(MatMut::from_row_major_slice_mut(&mut data, m, n));
    Arc::new(ArrayD::from_shape_vec(IxDyn(&[m, n]), data).expect("m*n elements"))
}

/// `dst (+)= alpha · a · b`, where `a` and `b` may be conjugated views
/// (`adjoint()`, `conjugate()`).
pub(crate) fn gemm<T: Scalar>(
    dst: MatMut<'_, T>,
    accumulate: bool,
    a: MatRef<'_, impl faer::traits::Conjugate<Canonical = T>>,
    b: MatRef<'_, impl faer::traits::Conjugate<Canonical = T>>,
    alpha: T,
    par: Par,
) {
    match par {
        // One thread: the kernel layer's choice of faer or the system BLAS.
        Par::Seq => chunked_array::kernels::gemm(dst, accumulate, a, b, alpha),
        par => matmul(dst, if accumulate { Accum::Add } else { Accum::Replace }, a, b, alpha, par),
    }
}

/// The Householder QR of one matrix, kept factored: `qr` holds R on and above
/// the diagonal and the Householder vectors below it; `coeff` the block
/// reflector factors. `Q` is applied from these without ever being formed.
pub(crate) struct HouseholderQr<T: Scalar> {
    qr: Mat<T>,
    coeff: Mat<T>,
}

intermediate_block!(impl<T: Scalar> for HouseholderQr<T>, |f| mat_bytes(&f.qr) + mat_bytes(&f.coeff), spill);

impl<T: Scalar> HouseholderQr<T> {
    /// Its two matrices (the factored matrix, the block reflector factors).
    pub(crate) fn spill_mats(&self) -> Vec<MatRef<'_, T>> {
        vec![self.qr.as_ref(), self.coeff.as_ref()]
    }

    /// The factorization from the two matrices [`HouseholderQr::spill_mats`] gives.
    pub(crate) fn from_spill_mats(mats: Vec<Mat<T>>) -> Option<Self> {
        let [qr, coeff]: [Mat<T>; 2] = mats.try_into().ok()?;
        Some(HouseholderQr { qr, coeff })
    }

    /// Factors `a` in place.
    pub fn factor(mut a: Mat<T>, par: Par) -> Self {
        use faer::linalg::qr::no_pivoting::factor;
        let (m, n) = a.shape();
        let size = m.min(n);
        let block = factor::recommended_block_size::<T>(m, n).max(1);
        let mut coeff = Mat::zeros(block, size);
        if size > 0 {
            with_stack(factor::qr_in_place_scratch::<T>(m, n, block, par, Default::default()), |stack| {
                factor::qr_in_place(a.as_mut(), coeff.as_mut(), par, stack, Default::default());
            });
        }
        HouseholderQr { qr: a, coeff }
    }

    /// Rows of the factored matrix.
    pub fn nrows(&self) -> usize {
        self.qr.nrows()
    }

    /// `min(m, n)`: the rows of R and the columns of the thin Q.
    pub fn rank_bound(&self) -> usize {
        self.qr.nrows().min(self.qr.ncols())
    }

    /// The upper-trapezoidal R (`min(m, n)` × n) with explicit zeros below.
    pub fn r(&self) -> Mat<T> {
        let mut r = Mat::zeros(self.rank_bound(), self.qr.ncols());
        self.write_r(r.as_mut());
        r
    }

    /// Writes R into `dst` (`min(m, n)` × n, any layout).
    pub fn write_r(&self, mut dst: MatMut<'_, T>) {
        let n = self.qr.ncols();
        for i in 0..self.rank_bound() {
            for j in 0..n {
                dst[(i, j)] = if i <= j { self.qr[(i, j)] } else { T::ZERO };
            }
        }
    }

    /// `c ← Q · c` for `c` with m rows.
    pub fn apply_q(&self, c: MatMut<'_, T>, par: Par) {
        self.apply(c, false, par);
    }

    /// `c ← Qᴴ · c` for `c` with m rows (`Qᵀ` for the reals).
    pub fn apply_qh(&self, c: MatMut<'_, T>, par: Par) {
        self.apply(c, true, par);
    }

    fn apply(&self, c: MatMut<'_, T>, adjoint: bool, par: Par) {
        use faer::linalg::householder as hh;
        let size = self.rank_bound();
        if size == 0 {
            return;
        }
        let basis = self.qr.as_ref().get(.., ..size);
        let (m, block, k) = (self.qr.nrows(), self.coeff.nrows(), c.ncols());
        let factor = self.coeff.as_ref();
        if adjoint {
            let req = hh::apply_block_householder_sequence_transpose_on_the_left_in_place_scratch::<T>(m, block, k);
            with_stack(req, |stack| {
                hh::apply_block_householder_sequence_transpose_on_the_left_in_place_with_conj(
                    basis,
                    factor,
                    faer::Conj::Yes,
                    c,
                    par,
                    stack,
                )
            });
        } else {
            let req = hh::apply_block_householder_sequence_on_the_left_in_place_scratch::<T>(m, block, k);
            with_stack(req, |stack| {
                hh::apply_block_householder_sequence_on_the_left_in_place_with_conj(
                    basis,
                    factor,
                    faer::Conj::No,
                    c,
                    par,
                    stack,
                )
            });
        }
    }

    /// `dst ← Q · [w; 0]` (m × w.ncols()), for the `min(m, n)` × r matrix `w`.
    pub fn q_times(&self, w: MatRef<'_, T>, mut dst: MatMut<'_, T>, par: Par) {
        dst.fill(T::ZERO);
        dst.rb_mut().get_mut(..w.nrows(), ..).copy_from(w);
        self.apply_q(dst, par);
    }
}

/// Thin SVD `a = u · diag(s) · vᴴ` (u: m × k, s: k, v: n × k, k = min(m, n)).
/// The singular values are real, held as elements of `T` (faer's form) with
/// no imaginary part.
pub(crate) struct ThinSvd<T: Scalar> {
    pub u: Mat<T>,
    pub s: Vec<T>,
    pub v: Mat<T>,
}

intermediate_block!(impl<T: Scalar> for ThinSvd<T>, |f| mat_bytes(&f.u) + f.s.len() * std::mem::size_of::<T>() + mat_bytes(&f.v), spill);

impl<T: Scalar> ThinSvd<T> {
    fn spill_mats(&self) -> Vec<MatRef<'_, T>> {
        vec![self.u.as_ref(), MatRef::from_column_major_slice(&self.s, self.s.len(), 1), self.v.as_ref()]
    }

    fn from_spill_mats(mats: Vec<Mat<T>>) -> Option<Self> {
        let [u, s, v]: [Mat<T>; 3] = mats.try_into().ok()?;
        let s = (0..s.nrows()).map(|i| s[(i, 0)]).collect();
        Some(ThinSvd { u, s, v })
    }

    /// The SVD of `a`, signs fixed as [`ThinSvd::flip_signs`] says.
    pub fn new(a: MatRef<'_, T>, par: Par) -> Result<Self, String> {
        use faer::linalg::svd::{ComputeSvdVectors, svd, svd_scratch};
        let (m, n) = a.shape();
        let k = m.min(n);
        let mut u = Mat::zeros(m, k);
        let mut v = Mat::zeros(n, k);
        let mut s = faer::diag::Diag::zeros(k);
        if k > 0 {
            let req = svd_scratch::<T>(m, n, ComputeSvdVectors::Thin, ComputeSvdVectors::Thin, par, Default::default());
            with_stack(req, |stack| {
                svd(a, s.as_mut(), Some(u.as_mut()), Some(v.as_mut()), par, stack, Default::default())
            })
            .map_err(|e| format!("the SVD did not converge ({e:?})"))?;
        }
        let s = (0..k).map(|i| s[i]).collect();
        let mut out = ThinSvd { u, s, v };
        out.flip_signs();
        Ok(out)
    }

    /// Deterministic signs (dask's `svd_flip` with `u_based_decision=False`): the
    /// entry of largest magnitude in every right singular vector is positive
    /// (the first such entry on ties). For complex matrices, whose singular
    /// vectors are unique up to a unit phase, that entry is made real and
    /// positive: both vectors of the pair are multiplied by the conjugate of
    /// its phase, which leaves `u · diag(s) · vᴴ` unchanged.
    fn flip_signs(&mut self) {
        use chunked_array::Number;
        for j in 0..self.s.len() {
            let col = self.v.col(j);
            let mut best = 0;
            for i in 1..col.nrows() {
                if Number::abs(col[i]) > Number::abs(col[best]) {
                    best = i;
                }
            }
            if col.nrows() == 0 {
                continue;
            }
            let top = col[best];
            let magnitude = Number::abs(top);
            if magnitude == <T::RealPart as Number>::ZERO {
                continue;
            }
            // ±1 exactly for the reals.
            let undo = Number::conj(Number::div(top, faer::traits::math_utils::from_real::<T>(&magnitude)));
            if undo != T::ONE {
                self.v.col_mut(j).iter_mut().for_each(|x| *x = Number::mul(*x, undo));
                self.u.col_mut(j).iter_mut().for_each(|x| *x = Number::mul(*x, undo));
            }
        }
    }
}

/// The singular values of `a`, non-increasing, without the vectors.
pub(crate) fn singular_values<T: Scalar>(a: MatRef<'_, T>, par: Par) -> Result<Vec<T>, String> {
    use faer::linalg::svd::{ComputeSvdVectors, svd, svd_scratch};
    let k = a.nrows().min(a.ncols());
    let mut s = faer::diag::Diag::zeros(k);
    if k > 0 {
        let req = svd_scratch::<T>(
            a.nrows(),
            a.ncols(),
            ComputeSvdVectors::No,
            ComputeSvdVectors::No,
            par,
            Default::default(),
        );
        with_stack(req, |stack| svd(a, s.as_mut(), None, None, par, stack, Default::default()))
            .map_err(|e| format!("the SVD did not converge ({e:?})"))?;
    }
    Ok((0..k).map(|i| s[i]).collect())
}

/// Solves `t · x = b` in place for a triangular `t` (lower or upper).
pub(crate) fn solve_triangular_in_place<T: Scalar>(t: MatRef<'_, T>, lower: bool, b: MatMut<'_, T>, par: Par) {
    use faer::linalg::triangular_solve as ts;
    if lower {
        ts::solve_lower_triangular_in_place(t, b, par);
    } else {
        ts::solve_upper_triangular_in_place(t, b, par);
    }
}

/// Solves `x · tᴴ = b` in place for a lower-triangular `t` (`x = b · t⁻ᴴ`).
pub(crate) fn solve_right_lower_adjoint_in_place<T: Scalar>(t: MatRef<'_, T>, b: MatMut<'_, T>, par: Par) {
    // x tᴴ = b  <=>  conj(t) xᵀ = bᵀ.
    faer::linalg::triangular_solve::solve_lower_triangular_in_place_with_conj(
        t,
        faer::Conj::Yes,
        b.transpose_mut(),
        par,
    );
}

/// The lower Cholesky factor of `a` (upper part zeroed), or the index of the
/// first pivot that is not positive.
pub(crate) fn cholesky<T: Scalar>(a: MatRef<'_, T>, par: Par) -> Result<Mat<T>, usize> {
    use faer::linalg::cholesky::llt::factor;
    let n = a.nrows();
    let mut l = a.to_owned();
    let req = factor::cholesky_in_place_scratch::<T>(n, par, Default::default());
    with_stack(req, |stack| factor::cholesky_in_place(l.as_mut(), Default::default(), par, stack, Default::default()))
        .map_err(|e| match e {
            faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => index,
        })?;
    for j in 0..n {
        for i in 0..j {
            l[(i, j)] = T::ZERO;
        }
    }
    Ok(l)
}

/// LU with partial pivoting of a tall panel in place: afterwards `a` holds the
/// unit-lower L below the diagonal and U on and above it, and row `i` of the
/// pivoted panel is row `perm[i]` of the original.
pub(crate) fn lu_partial_pivoting<T: Scalar>(a: MatMut<'_, T>, par: Par) -> Vec<usize> {
    use faer::linalg::lu::partial_pivoting::factor;
    let (m, n) = a.shape();
    let mut perm = vec![0usize; m];
    let mut perm_inv = vec![0usize; m];
    let req = factor::lu_in_place_scratch::<usize, T>(m, n, par, Default::default());
    with_stack(req, |stack| {
        factor::lu_in_place(a, &mut perm, &mut perm_inv, par, stack, Default::default());
    });
    perm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_images_round_trip_and_refuse_shapes_past_their_bytes() {
        let m = Mat::<f64>::from_fn(3, 2, |i, j| i as f64 - 2.0 * j as f64);
        let bytes = mats_to_bytes(&[m.as_ref(), m.as_ref()]);
        let back = mats_from_bytes::<f64>(&bytes).unwrap();
        assert_eq!(back.len(), 2);
        assert!(back.iter().all(|b| b.as_ref() == m.as_ref()));
        // Headers that claim more than the bytes hold: no allocation, None.
        for (r, c) in [(1u64 << 40, 1u64 << 40), (u64::MAX, 2), (4, 2)] {
            let mut forged = r.to_le_bytes().to_vec();
            forged.extend_from_slice(&c.to_le_bytes());
            forged.extend_from_slice(&[0u8; 48]);
            assert!(mats_from_bytes::<f64>(&forged).is_none(), "{r} x {c}");
        }
        assert!(mats_from_bytes::<f64>(&bytes[..bytes.len() - 1]).is_none());
    }
}
