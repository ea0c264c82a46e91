//! The dense block kernels (gemm) on faer or on a system BLAS, chosen per
//! machine: at first use both multiply the same block and the faster one is
//! kept for the process ([`backend`]), unless `CHUNKED_BLAS=faer|blas` or
//! [`set_backend`] says which. faer is always there; the BLAS is loaded at
//! run time where the system has one (OpenBLAS, or BLIS), so builds need no
//! system package. Each call runs on the calling thread: the scheduler owns
//! the cores, and the library's own threads are set to one.

mod blas;
mod choice;

use std::ffi::c_int;

use faer::linalg::matmul::matmul;
use faer::reborrow::ReborrowMut;
use faer::traits::Conjugate;
use faer::traits::math_utils::{one, zero};
use faer::{Accum, MatMut, MatRef, Par};

use crate::element::{Complex32, Complex64};
pub use choice::{Backend, backend, describe, set_backend};
pub(crate) use choice::{check_available, with_backend};

/// The element types of the kernels: `f32`, `f64`, `Complex32` and
/// `Complex64` (faer's and BLAS's types both).
///
/// ```
/// use chunked_array::kernels::KernelElement;
/// fn takes<T: KernelElement>() {}
/// takes::<f32>();
/// takes::<chunked_array::Complex64>();
/// ```
pub trait KernelElement: faer::traits::ComplexField + blas::BlasElement + Send + Sync + 'static {}
impl KernelElement for f32 {}
impl KernelElement for f64 {}
impl KernelElement for Complex32 {}
impl KernelElement for Complex64 {}

/// `dst (+)= alpha · a · b` on the calling thread, by the [`backend`] in use:
/// `a` and `b` may be conjugated views (`adjoint()`, `conjugate()`).
///
/// ```
/// use chunked_array::kernels::gemm;
/// use faer::{Mat, mat};
/// let a = mat![[1.0, 2.0], [3.0, 4.0]];
/// let mut c = Mat::<f64>::ones(2, 2);
/// gemm(c.as_mut(), true, a.as_ref(), a.transpose(), 2.0); // c += 2 a aᵀ
/// assert_eq!(c, mat![[11.0, 23.0], [23.0, 51.0]]);
/// ```
pub fn gemm<T: KernelElement>(
    dst: MatMut<'_, T>,
    accumulate: bool,
    a: MatRef<'_, impl Conjugate<Canonical = T>>,
    b: MatRef<'_, impl Conjugate<Canonical = T>>,
    alpha: T,
) {
    gemm_on(backend(), dst, accumulate, a, b, alpha);
}

/// [`gemm`] by `backend`; returns the backend that ran it. The BLAS takes
/// matrices with one unit stride (row- or column-major, any leading
/// dimension); other views, a conjugate that is not also transposed, empty
/// products, and every product where no BLAS loads go to faer.
///
/// ```
/// use chunked_array::kernels::{Backend, gemm_on};
/// use faer::{Mat, mat};
/// let a = mat![[1.0f32, 2.0], [3.0, 4.0]];
/// let mut c = Mat::<f32>::zeros(2, 2);
/// let ran = gemm_on(Backend::Blas, c.as_mut(), false, a.as_ref(), a.as_ref(), 1.0);
/// assert_eq!(c, mat![[7.0, 10.0], [15.0, 22.0]]);
/// assert!(ran == Backend::Blas || chunked_array::kernels::blas_library().is_none());
/// ```
pub fn gemm_on<T: KernelElement>(
    backend: Backend,
    mut dst: MatMut<'_, T>,
    accumulate: bool,
    a: MatRef<'_, impl Conjugate<Canonical = T>>,
    b: MatRef<'_, impl Conjugate<Canonical = T>>,
    alpha: T,
) -> Backend {
    if backend == Backend::Blas && try_blas(dst.rb_mut(), accumulate, a, b, alpha) {
        return Backend::Blas;
    }
    let accum = if accumulate { Accum::Add } else { Accum::Replace };
    matmul(dst, accum, a, b, alpha, Par::Seq);
    Backend::Faer
}

/// The system BLAS that loaded (its file, and its own description where it
/// gives one), or `None`.
///
/// ```
/// if let Some(name) = chunked_array::kernels::blas_library() {
///     assert!(name.contains("blas") || name.contains("blis"));
/// }
/// ```
pub fn blas_library() -> Option<&'static str> {
    blas::blas().map(|b| b.name.as_str())
}

/// [`gemm`] by the system BLAS; `false` (and nothing done) where none
/// loads or it cannot take these matrices.
fn try_blas<T: KernelElement>(
    dst: MatMut<'_, T>,
    accumulate: bool,
    a: MatRef<'_, impl Conjugate<Canonical = T>>,
    b: MatRef<'_, impl Conjugate<Canonical = T>>,
    alpha: T,
) -> bool {
    let Some(library) = blas::blas() else { return false };
    let (ca, cb) = (!is_canonical(&a), !is_canonical(&b));
    let Some(call) = blas_call(dst, accumulate, a.canonical(), ca, b.canonical(), cb, alpha) else { return false };
    // SAFETY: blas_call describes `dst`, `a` and `b` as they lie in memory
    // (checked strides and sizes); `dst` is borrowed mutably, so it
    // overlaps neither operand.
    unsafe { T::cblas_gemm(library, &call) };
    true
}

/// Whether `x`'s elements are read as stored (not conjugated).
fn is_canonical<C: Conjugate>(_: &MatRef<'_, C>) -> bool {
    C::IS_CANONICAL
}

/// The CBLAS call computing `dst (+)= alpha · op(a) · op(b)`, or `None`
/// where a matrix has no unit stride, a size exceeds CBLAS's `int`, or a
/// product is empty (faer handles those).
fn blas_call<T: KernelElement>(
    dst: MatMut<'_, T>,
    accumulate: bool,
    a: MatRef<'_, T>,
    conj_a: bool,
    b: MatRef<'_, T>,
    conj_b: bool,
    alpha: T,
) -> Option<blas::GemmCall<T>> {
    let (m, n, k) = (dst.nrows(), dst.ncols(), a.ncols());
    if m == 0 || n == 0 || k == 0 {
        return None;
    }
    let (rs, cs) = (dst.row_stride(), dst.col_stride());
    let (layout, ldc) = if cs == 1 && rs >= n as isize {
        (blas::ROW_MAJOR, rs)
    } else if rs == 1 && cs >= m as isize {
        (blas::COL_MAJOR, cs)
    } else {
        return None;
    };
    let (trans_a, lda) = operand(layout, a.row_stride(), a.col_stride(), a.nrows(), a.ncols(), conj_a)?;
    let (trans_b, ldb) = operand(layout, b.row_stride(), b.col_stride(), b.nrows(), b.ncols(), conj_b)?;
    let int = |v: usize| c_int::try_from(v).ok();
    Some(blas::GemmCall {
        layout,
        trans_a,
        trans_b,
        m: int(m)?,
        n: int(n)?,
        k: int(k)?,
        alpha,
        a: a.as_ptr(),
        lda,
        b: b.as_ptr(),
        ldb,
        beta: if accumulate { one() } else { zero() },
        c: dst.as_ptr_mut(),
        ldc: c_int::try_from(ldc).ok()?,
    })
}

/// CBLAS's operation code and leading dimension for an operand of `rows x
/// cols` with strides `(rs, cs)` in `layout`: stored in the layout it is
/// taken as it is, stored the other way as the transpose of such a matrix.
/// `None` without a unit stride, or for a conjugate taken as it is (CBLAS
/// conjugates only with a transpose).
fn operand(layout: c_int, rs: isize, cs: isize, rows: usize, cols: usize, conj: bool) -> Option<(c_int, c_int)> {
    let (rows, cols) = (rows.max(1) as isize, cols.max(1) as isize);
    let row_major = cs == 1 && rs >= cols;
    let col_major = rs == 1 && cs >= rows;
    let (as_stored, ld) = match (layout == blas::ROW_MAJOR, row_major, col_major) {
        (true, true, _) => (true, rs),
        (true, false, true) => (false, cs),
        (false, _, true) => (true, cs),
        (false, true, false) => (false, rs),
        _ => return None,
    };
    let op = match (as_stored, conj) {
        (true, false) => blas::NO_TRANS,
        (false, false) => blas::TRANS,
        (false, true) => blas::CONJ_TRANS,
        (true, true) => return None,
    };
    Some((op, c_int::try_from(ld).ok()?))
}
