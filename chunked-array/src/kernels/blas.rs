//! A system BLAS (OpenBLAS, or BLIS's CBLAS layer) loaded at run time through
//! its C interface: nothing links against it, so the crate builds and runs
//! on machines without one, and the library is used where it is installed.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use libloading::Library;

use crate::element::{Complex32, Complex64};

/// The libraries tried, in order: Debian's OpenBLAS (`libopenblas0-pthread`
/// or `-openmp`), then BLIS (`libblis4-pthread`), whose CBLAS layer has the
/// same functions.
const LIBRARIES: [&str; 4] = ["libopenblas.so.0", "libopenblas.so", "libblis.so.4", "libblis.so"];

/// CBLAS's layout and transposition codes.
pub(super) const ROW_MAJOR: c_int = 101;
pub(super) const COL_MAJOR: c_int = 102;
pub(super) const NO_TRANS: c_int = 111;
pub(super) const TRANS: c_int = 112;
pub(super) const CONJ_TRANS: c_int = 113;

type RealGemm<T> = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    T,
    *const T,
    c_int,
    *const T,
    c_int,
    T,
    *mut T,
    c_int,
);
type ComplexGemm = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_void,
    *const c_void,
    c_int,
    *const c_void,
    c_int,
    *const c_void,
    *mut c_void,
    c_int,
);

/// The loaded library's gemm entry points.
pub struct Blas {
    /// Which file was loaded, and the library's own description where it
    /// has one (OpenBLAS's `openblas_get_config`).
    pub(super) name: String,
    sgemm: RealGemm<f32>,
    dgemm: RealGemm<f64>,
    cgemm: ComplexGemm,
    zgemm: ComplexGemm,
    /// Kept loaded for the process's life: the entry points point into it.
    _library: Library,
}

/// The system BLAS, loaded on first use; `None` where no library of
/// [`LIBRARIES`] loads or one lacks a gemm.
/// `CHUNKED_BLAS_LIBRARY` names another file to load instead.
pub(super) fn blas() -> Option<&'static Blas> {
    static BLAS: OnceLock<Option<Blas>> = OnceLock::new();
    BLAS.get_or_init(|| match std::env::var("CHUNKED_BLAS_LIBRARY") {
        Ok(name) => load(&name),
        Err(_) => LIBRARIES.iter().find_map(|name| load(name)),
    })
    .as_ref()
}

fn load(name: &str) -> Option<Blas> {
    // SAFETY: loading runs the library's initializers; OpenBLAS and BLIS
    // have none that touch our state.
    let library = unsafe { Library::new(name) }.ok()?;
    // SAFETY: the symbols are CBLAS's functions, whose C signatures the
    // types above spell out.
    unsafe {
        let sgemm = *library.get::<RealGemm<f32>>(b"cblas_sgemm\0").ok()?;
        let dgemm = *library.get::<RealGemm<f64>>(b"cblas_dgemm\0").ok()?;
        let cgemm = *library.get::<ComplexGemm>(b"cblas_cgemm\0").ok()?;
        let zgemm = *library.get::<ComplexGemm>(b"cblas_zgemm\0").ok()?;
        // The scheduler runs one task per core: the library's own threads
        // would oversubscribe them.
        if let Ok(set_threads) = library.get::<unsafe extern "C" fn(c_int)>(b"openblas_set_num_threads\0") {
            set_threads(1);
        }
        if let Ok(set_threads) = library.get::<unsafe extern "C" fn(i64)>(b"bli_thread_set_num_threads\0") {
            set_threads(1);
        }
        let config = library
            .get::<unsafe extern "C" fn() -> *const std::ffi::c_char>(b"openblas_get_config\0")
            .ok()
            .map(|config| std::ffi::CStr::from_ptr(config()).to_string_lossy().trim().to_string());
        let name = match config {
            Some(config) => format!("{name} ({config})"),
            None => name.to_string(),
        };
        Some(Blas { name, sgemm, dgemm, cgemm, zgemm, _library: library })
    }
}

/// One gemm call's arguments in CBLAS's terms: `c = alpha · op(a) · op(b) +
/// beta · c` with `c` of `m x n` in `layout`.
pub struct GemmCall<T> {
    pub(super) layout: c_int,
    pub(super) trans_a: c_int,
    pub(super) trans_b: c_int,
    pub(super) m: c_int,
    pub(super) n: c_int,
    pub(super) k: c_int,
    pub(super) alpha: T,
    pub(super) a: *const T,
    pub(super) lda: c_int,
    pub(super) b: *const T,
    pub(super) ldb: c_int,
    pub(super) beta: T,
    pub(super) c: *mut T,
    pub(super) ldc: c_int,
}

/// The element types the library multiplies.
pub trait BlasElement: Copy {
    /// Runs `call` through the library's gemm of this type.
    ///
    /// # Safety
    /// The pointers and leading dimensions of `call` describe matrices of
    /// the sizes it states, `c` writable and not overlapping `a` or `b`.
    unsafe fn cblas_gemm(blas: &Blas, call: &GemmCall<Self>);
}

macro_rules! real_gemm {
    ($t:ty, $f:ident) => {
        impl BlasElement for $t {
            unsafe fn cblas_gemm(blas: &Blas, g: &GemmCall<Self>) {
                // SAFETY: the caller's contract.
                unsafe {
                    (blas.$f)(
                        g.layout, g.trans_a, g.trans_b, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, g.c,
                        g.ldc,
                    )
                }
            }
        }
    };
}
real_gemm!(f32, sgemm);
real_gemm!(f64, dgemm);

macro_rules! complex_gemm {
    ($t:ty, $f:ident) => {
        impl BlasElement for $t {
            unsafe fn cblas_gemm(blas: &Blas, g: &GemmCall<Self>) {
                let (alpha, beta) = (&g.alpha as *const Self as *const c_void, &g.beta as *const Self as *const c_void);
                // SAFETY: the caller's contract; num-complex's types are
                // #[repr(C)] pairs, CBLAS's complex layout.
                unsafe {
                    (blas.$f)(
                        g.layout,
                        g.trans_a,
                        g.trans_b,
                        g.m,
                        g.n,
                        g.k,
                        alpha,
                        g.a.cast(),
                        g.lda,
                        g.b.cast(),
                        g.ldb,
                        beta,
                        g.c.cast(),
                        g.ldc,
                    )
                }
            }
        }
    };
}
complex_gemm!(Complex32, cgemm);
complex_gemm!(Complex64, zgemm);
