//! A system BLAS (OpenBLAS, or BLIS's CBLAS layer) loaded at run time through
//! its C interface: nothing links against it, so the crate builds and runs
//! on machines without one, and the library is used where it is installed.
//! Both integer widths are taken (LP64's `int`, ILP64's `int64_t`), with
//! the plain CBLAS names or the `scipy_` ones of the OpenBLAS that NumPy
//! and SciPy ship (`scipy-openblas32`, and `scipy-openblas64`, whose names
//! end in `64_`).

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

use libloading::Library;

use crate::element::{Complex32, Complex64};

/// The libraries tried, in order: Debian's OpenBLAS (`libopenblas0-pthread`
/// or `-openmp`), then BLIS (`libblis4-pthread`), whose CBLAS layer has the
/// same functions. `CHUNKED_BLAS_LIBRARY` names another file instead.
const LIBRARIES: [&str; 4] = ["libopenblas.so.0", "libopenblas.so", "libblis.so.4", "libblis.so"];

/// The symbol names tried in each library: `(prefix, suffix, ILP64)`.
const NAMINGS: [(&str, &str, bool); 4] =
    [("", "", false), ("scipy_", "", false), ("scipy_", "64_", true), ("", "64_", true)];

/// CBLAS's layout and transposition codes.
pub(super) const ROW_MAJOR: c_int = 101;
pub(super) const COL_MAJOR: c_int = 102;
pub(super) const NO_TRANS: c_int = 111;
pub(super) const TRANS: c_int = 112;
pub(super) const CONJ_TRANS: c_int = 113;

/// CBLAS's gemm of one element type: `T` the scalar argument (a value for
/// reals, a pointer for complex), `E` the element, `I` the integer width.
type GemmFn<T, E, I> = unsafe extern "C" fn(c_int, c_int, c_int, I, I, I, T, *const E, I, *const E, I, T, *mut E, I);

/// The four gemms of one integer width.
struct Gemms<I> {
    s: GemmFn<f32, f32, I>,
    d: GemmFn<f64, f64, I>,
    c: GemmFn<*const c_void, c_void, I>,
    z: GemmFn<*const c_void, c_void, I>,
}

enum Entries {
    Lp64(Gemms<c_int>),
    Ilp64(Gemms<i64>),
}

/// The loaded library's gemm entry points.
pub struct Blas {
    /// Which file was loaded, and the library's own description where it
    /// has one (OpenBLAS's `openblas_get_config`).
    pub(super) name: String,
    entries: Entries,
    /// Kept loaded for the process's life: the entry points point into it.
    _library: Library,
}

/// The system BLAS, loaded on first use; `None` where no library loads or
/// one lacks a gemm.
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
    let (prefix, suffix, wide) =
        NAMINGS.into_iter().find(|(p, s, _)| symbol::<*const c_void>(&library, p, "cblas_dgemm", s).is_some())?;
    let entries = match wide {
        false => Entries::Lp64(gemms(&library, prefix, suffix)?),
        true => Entries::Ilp64(gemms(&library, prefix, suffix)?),
    };
    // The scheduler runs one task per core: the library's own threads would
    // oversubscribe them.
    // SAFETY: OpenBLAS's and BLIS's thread-count setters, as declared
    // (OpenBLAS's takes an `int` in both widths).
    unsafe {
        if let Some(set) = symbol::<unsafe extern "C" fn(c_int)>(&library, prefix, "openblas_set_num_threads", suffix) {
            set(1);
        }
        if let Some(set) = symbol::<unsafe extern "C" fn(i64)>(&library, "", "bli_thread_set_num_threads", "") {
            set(1);
        }
    }
    let config = symbol::<unsafe extern "C" fn() -> *const c_char>(&library, prefix, "openblas_get_config", suffix)
        // SAFETY: openblas_get_config returns a static NUL-terminated string.
        .map(|config| unsafe { std::ffi::CStr::from_ptr(config()) }.to_string_lossy().trim().to_string());
    let name = match config {
        Some(config) => format!("{name} ({config})"),
        None => name.to_string(),
    };
    Some(Blas { name, entries, _library: library })
}

/// The symbol `prefix + name + suffix` of `library` as a `F`.
fn symbol<F: Copy>(library: &Library, prefix: &str, name: &str, suffix: &str) -> Option<F> {
    let full = format!("{prefix}{name}{suffix}\0");
    // SAFETY: the caller names a function whose C signature `F` spells out.
    unsafe { library.get::<F>(full.as_bytes()).ok().map(|s| *s) }
}

fn gemms<I>(library: &Library, prefix: &str, suffix: &str) -> Option<Gemms<I>> {
    Some(Gemms {
        s: symbol(library, prefix, "cblas_sgemm", suffix)?,
        d: symbol(library, prefix, "cblas_dgemm", suffix)?,
        c: symbol(library, prefix, "cblas_cgemm", suffix)?,
        z: symbol(library, prefix, "cblas_zgemm", suffix)?,
    })
}

/// One gemm call's arguments in CBLAS's terms: `c = alpha · op(a) · op(b) +
/// beta · c` with `c` of `m x n` in `layout`; sizes fit `c_int`.
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

/// Calls `f` with `g`'s arguments, its sizes in the library's integer
/// width and its scalars as `scalar` makes them.
macro_rules! call {
    ($f:expr, $g:expr, $int:ty, $scalar:expr, $ptr:expr) => {{
        let g = $g;
        let i = |v: c_int| v as $int;
        ($f)(
            g.layout,
            g.trans_a,
            g.trans_b,
            i(g.m),
            i(g.n),
            i(g.k),
            $scalar(&g.alpha),
            $ptr(g.a),
            i(g.lda),
            $ptr(g.b),
            i(g.ldb),
            $scalar(&g.beta),
            $ptr(g.c.cast_const()).cast_mut(),
            i(g.ldc),
        )
    }};
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

/// The impl for element `$t` through gemm field `$f`, its scalars passed as
/// `$scalar` makes them and its matrices as `$ptr` makes them.
macro_rules! blas_element {
    ($t:ty, $f:ident, $scalar:expr, $ptr:expr) => {
        impl BlasElement for $t {
            unsafe fn cblas_gemm(blas: &Blas, g: &GemmCall<Self>) {
                // SAFETY: the caller's contract.
                unsafe {
                    match &blas.entries {
                        Entries::Lp64(e) => call!(e.$f, g, c_int, $scalar, $ptr),
                        Entries::Ilp64(e) => call!(e.$f, g, i64, $scalar, $ptr),
                    }
                }
            }
        }
    };
}
// Reals: scalars by value, matrices as typed pointers.
blas_element!(f32, s, |v: &f32| *v, |p: *const f32| p);
blas_element!(f64, d, |v: &f64| *v, |p: *const f64| p);
// num-complex's types are #[repr(C)] pairs, CBLAS's complex layout: scalars
// and matrices by untyped address.
blas_element!(Complex32, c, |v: &Complex32| std::ptr::from_ref(v).cast::<c_void>(), |p: *const Complex32| p
    .cast::<c_void>());
blas_element!(Complex64, z, |v: &Complex64| std::ptr::from_ref(v).cast::<c_void>(), |p: *const Complex64| p
    .cast::<c_void>());
