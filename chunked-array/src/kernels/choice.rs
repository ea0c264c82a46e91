//! Which backend runs the kernels: a context's choice for its tasks
//! (`Context::with_kernel_backend`), else [`set_backend`]'s, else
//! `CHUNKED_BLAS`, else a measurement at first use.

use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use faer::Mat;
use faer::linalg::matmul::matmul;
use faer::{Accum, Par};

use super::blas;
use crate::error::{Error, Result};

/// Where the dense block kernels run.
///
/// ```
/// use chunked_array::kernels::{Backend, backend};
/// assert!(matches!(backend(), Backend::Faer | Backend::Blas));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// faer's kernels, built in.
    Faer,
    /// The system BLAS (OpenBLAS or BLIS), one thread per call.
    Blas,
}

/// The side of the measured product: as large as the blocks whose products
/// differ between kernels (on small ones neither is consistently faster),
/// small enough to cost a tenth of a second once.
const CALIBRATION_SIZE: usize = 1024;

/// Rounds of the measurement, faer and the BLAS alternating.
const CALIBRATION_ROUNDS: usize = 2;

/// The BLAS is kept only when this much faster, so that noise does not
/// move off faer, the one always there.
const BLAS_MARGIN: f64 = 0.97;

/// The choice made at first use, and why.
struct Choice {
    backend: Backend,
    why: String,
}

/// [`set_backend`]'s choice: 0 for none, else 1 + the backend's index.
static CHOSEN_BY_CALLER: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// The backend of the task this thread runs, where its context names
    /// one ([`with_backend`]).
    static TASK_BACKEND: Cell<Option<Backend>> = const { Cell::new(None) };
}

/// The backend the kernels use now.
///
/// ```
/// use chunked_array::kernels::{Backend, backend, set_backend};
/// set_backend(Backend::Faer).unwrap();
/// assert_eq!(backend(), Backend::Faer);
/// ```
pub fn backend() -> Backend {
    if let Some(task_backend) = TASK_BACKEND.get() {
        return task_backend;
    }
    match CHOSEN_BY_CALLER.load(Ordering::Relaxed) {
        1 => Backend::Faer,
        2 => Backend::Blas,
        _ => choice().backend,
    }
}

/// Makes `backend` run the kernels from now on, in this process (over the
/// environment's `CHUNKED_BLAS` and the measurement).
///
/// ```
/// use chunked_array::kernels::{Backend, backend, set_backend};
/// if set_backend(Backend::Blas).is_ok() {
///     assert_eq!(backend(), Backend::Blas);
/// }
/// set_backend(Backend::Faer).unwrap();
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for [`Backend::Blas`] when no system BLAS
/// loads.
pub fn set_backend(backend: Backend) -> Result<()> {
    check_available(backend)?;
    CHOSEN_BY_CALLER.store(1 + backend as u8, Ordering::Relaxed);
    Ok(())
}

/// Runs `f` with `backend` (where `Some`) as the calling thread's
/// backend, over [`set_backend`]'s and the measured choice: a context's
/// choice for the tasks of its runs. The thread's previous backend is
/// restored afterwards, unwinding included.
pub(crate) fn with_backend<R>(backend: Option<Backend>, f: impl FnOnce() -> R) -> R {
    /// Puts the previous backend back when dropped.
    struct Restore(Option<Backend>);
    impl Drop for Restore {
        fn drop(&mut self) {
            TASK_BACKEND.set(self.0);
        }
    }
    if backend.is_none() {
        return f();
    }
    let _restore = Restore(TASK_BACKEND.replace(backend));
    f()
}

/// [`Error::InvalidArgument`] for [`Backend::Blas`] where no system BLAS
/// loads.
pub(crate) fn check_available(backend: Backend) -> Result<()> {
    if backend == Backend::Blas && blas::blas().is_none() {
        return Err(Error::invalid("backend", backend, "no system BLAS loads (Debian: libopenblas0-pthread)"));
    }
    Ok(())
}

/// One line naming the backend in use and why it was chosen, for a
/// program's log.
///
/// ```
/// let line = chunked_array::kernels::describe();
/// assert!(line.contains("faer") || line.contains("BLAS"));
/// ```
pub fn describe() -> String {
    let library = super::blas_library().unwrap_or("none");
    match CHOSEN_BY_CALLER.load(Ordering::Relaxed) {
        0 => format!("gemm kernels: {:?} ({}; system BLAS: {library})", backend(), choice().why),
        _ => format!("gemm kernels: {:?} (set by the program; system BLAS: {library})", backend()),
    }
}

fn choice() -> &'static Choice {
    static CHOICE: OnceLock<Choice> = OnceLock::new();
    CHOICE.get_or_init(|| {
        let asked = std::env::var("CHUNKED_BLAS").unwrap_or_default();
        let loaded = blas::blas().is_some();
        match (asked.as_str(), loaded) {
            ("faer", _) => Choice { backend: Backend::Faer, why: "CHUNKED_BLAS=faer".into() },
            ("blas", true) => Choice { backend: Backend::Blas, why: "CHUNKED_BLAS=blas".into() },
            ("blas", false) => Choice { backend: Backend::Faer, why: "CHUNKED_BLAS=blas, but no BLAS loads".into() },
            (_, false) => Choice { backend: Backend::Faer, why: "no system BLAS loads".into() },
            (_, true) => measured(),
        }
    })
}

/// The faster of the two on one `CALIBRATION_SIZE`³ f64 product, best of
/// [`CALIBRATION_ROUNDS`] each.
fn measured() -> Choice {
    let n = CALIBRATION_SIZE;
    let a = Mat::<f64>::from_fn(n, n, |i, j| ((i * 7 + j * 3) % 11) as f64 - 5.0);
    let mut c = Mat::<f64>::zeros(n, n);
    let (mut faer_best, mut blas_best) = (Duration::MAX, Duration::MAX);
    for _ in 0..CALIBRATION_ROUNDS {
        let t = Instant::now();
        matmul(c.as_mut(), Accum::Replace, a.as_ref(), a.as_ref(), 1.0, Par::Seq);
        faer_best = faer_best.min(t.elapsed());
        let t = Instant::now();
        super::try_blas(c.as_mut(), false, a.as_ref(), a.as_ref(), 1.0);
        blas_best = blas_best.min(t.elapsed());
    }
    let backend =
        if blas_best.as_secs_f64() < BLAS_MARGIN * faer_best.as_secs_f64() { Backend::Blas } else { Backend::Faer };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let why = format!("measured on a {n}³ f64 product: BLAS {:.2} ms, faer {:.2} ms", ms(blas_best), ms(faer_best));
    Choice { backend, why }
}
