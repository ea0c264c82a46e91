//! The asynchronous runtime object store clients run on, shared by every
//! store in the process.

use std::sync::OnceLock;

/// The process's runtime: two threads drive every request's I/O; the
/// scheduler's workers wait on their own requests ([`block_on`]), so the
/// requests in flight are as many as the workers plus the queued uploads.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("chunked-object-store")
            .enable_all()
            .build()
            .expect("a runtime of two threads starts")
    })
}

/// Runs `future` to completion on the shared runtime, from a thread outside it
/// (a scheduler worker or the caller's).
pub(crate) fn block_on<F: std::future::Future>(future: F) -> F::Output {
    runtime().block_on(future)
}
