//! cuSOLVER's routines per element type (`D…` for f64, `S…` for f32), bound
//! once so that the factorizations are written once for both.

use std::ffi::c_int;

use cudarc::cusolver::sys::{self as cusolver_sys, cusolverDnHandle_t, cusolverStatus_t};

/// cuSOLVER's routines for one element type (`D…` for f64, `S…` for f32).
#[allow(clippy::too_many_arguments, clippy::missing_safety_doc)]
pub trait Routines: Sized {
    unsafe fn geqrf_size(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    unsafe fn geqrf(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        tau: *mut Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    unsafe fn orgqr_size(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
        lwork: *mut c_int,
    ) -> cusolverStatus_t;
    unsafe fn orgqr(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *mut Self,
        lda: c_int,
        tau: *const Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
    unsafe fn gesvd_size(h: cusolverDnHandle_t, m: c_int, n: c_int, lwork: *mut c_int) -> cusolverStatus_t;
    unsafe fn gesvd(
        h: cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self,
        u: *mut Self,
        ldu: c_int,
        vt: *mut Self,
        ldvt: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> cusolverStatus_t;
}

macro_rules! routines {
    ($t:ty, $geqrf_size:ident, $geqrf:ident, $orgqr_size:ident, $orgqr:ident, $gesvd_size:ident, $gesvd:ident) => {
        impl Routines for $t {
            unsafe fn geqrf_size(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                unsafe { cusolver_sys::$geqrf_size(h, m, n, a, lda, lwork) }
            }
            unsafe fn geqrf(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                tau: *mut Self,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                unsafe { cusolver_sys::$geqrf(h, m, n, a, lda, tau, work, lwork, info) }
            }
            unsafe fn orgqr_size(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const Self,
                lda: c_int,
                tau: *const Self,
                lwork: *mut c_int,
            ) -> cusolverStatus_t {
                unsafe { cusolver_sys::$orgqr_size(h, m, n, k, a, lda, tau, lwork) }
            }
            unsafe fn orgqr(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *mut Self,
                lda: c_int,
                tau: *const Self,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                unsafe { cusolver_sys::$orgqr(h, m, n, k, a, lda, tau, work, lwork, info) }
            }
            unsafe fn gesvd_size(h: cusolverDnHandle_t, m: c_int, n: c_int, lwork: *mut c_int) -> cusolverStatus_t {
                unsafe { cusolver_sys::$gesvd_size(h, m, n, lwork) }
            }
            unsafe fn gesvd(
                h: cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                s: *mut Self,
                u: *mut Self,
                ldu: c_int,
                vt: *mut Self,
                ldvt: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> cusolverStatus_t {
                // 'S': the first min(m, n) columns of U and rows of Vᵀ; no rwork
                // (used only by the complex routines and for unconverged values).
                unsafe {
                    cusolver_sys::$gesvd(
                        h,
                        b'S' as _,
                        b'S' as _,
                        m,
                        n,
                        a,
                        lda,
                        s,
                        u,
                        ldu,
                        vt,
                        ldvt,
                        work,
                        lwork,
                        std::ptr::null_mut(),
                        info,
                    )
                }
            }
        }
    };
}

routines!(
    f64,
    cusolverDnDgeqrf_bufferSize,
    cusolverDnDgeqrf,
    cusolverDnDorgqr_bufferSize,
    cusolverDnDorgqr,
    cusolverDnDgesvd_bufferSize,
    cusolverDnDgesvd
);
routines!(
    f32,
    cusolverDnSgeqrf_bufferSize,
    cusolverDnSgeqrf,
    cusolverDnSorgqr_bufferSize,
    cusolverDnSorgqr,
    cusolverDnSgesvd_bufferSize,
    cusolverDnSgesvd
);
