//! Futures (dask.distributed's `Client` API, in one process): work started
//! now and run in the background, each piece a run of the same graph
//! machinery as `compute` (the context's scheduler, memory limits and
//! observers).
//!
//! A [`Client`] submits closures ([`Client::submit`], [`Client::map`]),
//! computes delayed values and arrays ([`Client::compute`]), persists several
//! arrays at once ([`Client::persist`]) and shares a value with many tasks
//! without copies ([`Client::scatter`]); each gives a [`Future`] to wait on,
//! gather, cancel or feed to delayed tasks. [`wait`] and [`as_completed`]
//! wait on several.
//!
//! ```
//! use chunked_array::futures::{as_completed, Client};
//! use chunked_array::Context;
//! // dask: futures = client.map(score, range(8)); for f in as_completed(futures): ...
//! let client = Client::new(Context::threads(2));
//! let futures = client.map("score", 0..8, |i: u64| i * i);
//! let total: u64 = as_completed(&futures).map(|(_, r)| r.unwrap()).sum();
//! assert_eq!(total, 140);
//! assert_eq!(client.gather(&futures).unwrap()[3], 9);
//! ```
//!
//! Under MPI every rank makes the same calls (SPMD, as the MPI scheduler
//! runs arrays): a client with more than one process runs its work one piece
//! at a time in the order submitted, each piece a collective run, and the
//! results arrive on rank 0 (other ranks' futures hold
//! [`crate::Error::ResultElsewhere`]).

mod future;
mod pool;

use std::sync::{Arc, Mutex};

use ndarray::ArrayD;

pub use future::{AsCompleted, Future, Status, as_completed, wait};

use crate::array::{Array, Persistable};
use crate::block::Block;
use crate::delayed::{Delayed, Measure, Value};
use crate::diagnostics::Progress;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::exec::Context;
use crate::graph::task::panic_message;
use crate::schedule::SyncScheduler;
use future::Slot;
use pool::Pool;

/// Runs work in the background and hands out [`Future`]s (dask's
/// `distributed.Client`, in process). Work runs on the client's threads, as
/// many as the context's scheduler has workers (one for `Context::sync()`,
/// which keeps the order of submission), in the order submitted.
///
/// Each piece of work is one run with the context's memory limits, so that
/// runs going on at once may together hold up to that many times the limit;
/// a single closure ([`Client::submit`], [`Client::map`]) runs as a one-task
/// graph on a client thread, without a progress bar.
///
/// Dropping the client waits for the work it was given.
///
/// ```
/// use chunked_array::{futures::Client, Array, Context};
/// let client = Client::new(Context::threads(2));
/// let x = Array::<f64>::ones(&[1000], 100).unwrap();
/// let total = client.compute(&x.sum(None).unwrap()); // runs in the background
/// let answer = client.submit("answer", || 42);
/// assert_eq!(answer.result().unwrap(), 42);
/// assert_eq!(total.result().unwrap()[[]], 1000.0);
/// ```
pub struct Client {
    ctx: Context,
    /// The context of one-closure runs: the sync scheduler in one process
    /// (the client thread is the worker), no progress bar.
    single: Context,
    pool: Pool,
}

/// What a client can compute in the background: an [`Array`] (to an
/// `ndarray::ArrayD`) or a [`Delayed`] value.
///
/// ```
/// use chunked_array::{delayed::Delayed, futures::Client, Context};
/// let client = Client::new(Context::sync());
/// let d = Delayed::new("seven", || 7u8);
/// assert_eq!(client.compute(&d).result().unwrap(), 7);
/// ```
pub trait Lazy: Clone + Send + 'static {
    /// The computed value.
    type Output: Send + Sync + 'static;
    /// Computes it with `ctx` into a block holding the value.
    #[doc(hidden)]
    fn compute_block(&self, ctx: &Context) -> Result<Block>;
    /// The name of its layer, for its future.
    #[doc(hidden)]
    fn layer_label(&self) -> String;
}

impl<T: Element> Lazy for Array<T> {
    type Output = ArrayD<T>;
    fn compute_block(&self, ctx: &Context) -> Result<Block> {
        Ok(Value::block(self.compute_on(ctx)?, Measure::of_size()))
    }
    fn layer_label(&self) -> String {
        self.node.label()
    }
}

impl<T: Send + Sync + 'static> Lazy for Delayed<T> {
    type Output = T;
    fn compute_block(&self, ctx: &Context) -> Result<Block> {
        self.compute_block_on(ctx)
    }
    fn layer_label(&self) -> String {
        self.label()
    }
}

impl Client {
    /// A client running work with `ctx` (its scheduler, memory limits and
    /// observers).
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::threads(4));
    /// assert_eq!(client.workers(), 4);
    /// assert_eq!(Client::new(Context::sync()).workers(), 1);
    /// ```
    pub fn new(ctx: Context) -> Client {
        let scheduler = ctx.scheduler();
        let (workers, single) = if scheduler.processes() > 1 {
            (1, ctx.clone())
        } else {
            (scheduler.workers().max(1), ctx.clone().on_scheduler(Arc::new(SyncScheduler)))
        };
        Client { single: single.with_progress(Progress::Never), ctx, pool: Pool::new(workers) }
    }

    /// Threads running the client's work.
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// assert_eq!(Client::new(Context::threads(3)).workers(), 3);
    /// ```
    pub fn workers(&self) -> usize {
        self.pool.workers()
    }

    /// Queues `job` under `label`, run with `ctx` (cancellable through the
    /// future).
    fn start<T>(
        &self,
        label: &str,
        ctx: &Context,
        job: impl FnOnce(&Context) -> Result<Block> + Send + 'static,
    ) -> Future<T> {
        let slot = Slot::new(label);
        let ctx = ctx.clone().cancelled_by(slot.cancel.clone());
        let (run, name) = (slot.clone(), label.to_string());
        self.pool.push(Box::new(move || {
            if !run.start() {
                return;
            }
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&ctx))).unwrap_or_else(|p| {
                let message = panic_message(&*p).unwrap_or_else(|| "panic with a non-string payload".into());
                Err(Error::Task { key: name, message: format!("panicked: {message}") })
            });
            run.finish(result);
        }));
        Future::of(slot)
    }

    /// Runs `f()` in the background as one task named `label` (dask's
    /// `client.submit(f, *args)`; the closure captures its arguments). A
    /// panic in `f` is the future's error, naming `label`.
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::threads(2));
    /// let data = vec![3.0, 4.0];
    /// let norm = client.submit("norm", move || data.iter().map(|v| v * v).sum::<f64>().sqrt());
    /// assert_eq!(norm.result().unwrap(), 5.0);
    /// let bad = client.submit("bad", || -> f64 { panic!("singular") });
    /// assert!(bad.result().unwrap_err().to_string().contains("bad"));
    /// ```
    pub fn submit<T: Send + Sync + 'static>(&self, label: &str, f: impl FnOnce() -> T + Send + 'static) -> Future<T> {
        // A task's closure is `Fn`; this one runs once, in the one run.
        let once = Mutex::new(Some(f));
        let task = Delayed::try_new(label, move || {
            let f = once.lock().unwrap_or_else(|p| p.into_inner()).take();
            f.map(|f| f()).ok_or("ran twice")
        });
        self.start(label, &self.single, move |ctx| task.compute_block_on(ctx))
    }

    /// `f(item)` for every item, each in the background as its own task
    /// (dask's `client.map(f, items)`), futures in the items' order.
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::threads(2));
    /// let lengths = client.map("len", ["a", "bb", "ccc"], |s: &str| s.len());
    /// assert_eq!(client.gather(&lengths).unwrap(), [1, 2, 3]);
    /// ```
    pub fn map<I: Send + 'static, T: Send + Sync + 'static>(
        &self,
        label: &str,
        items: impl IntoIterator<Item = I>,
        f: impl Fn(I) -> T + Send + Sync + 'static,
    ) -> Vec<Future<T>> {
        let f = Arc::new(f);
        items
            .into_iter()
            .map(|item| {
                let f = f.clone();
                self.submit(label, move || f(item))
            })
            .collect()
    }

    /// Computes an array or a delayed value in the background with the
    /// client's context (dask's `client.compute(x)`).
    ///
    /// ```
    /// use chunked_array::{futures::Client, Array, Context};
    /// let client = Client::new(Context::default());
    /// let x = Array::<i64>::arange(0, 10, 1, 5).unwrap();
    /// let f = client.compute(&x.sum(None).unwrap());
    /// assert_eq!(f.result().unwrap()[[]], 45);
    /// ```
    pub fn compute<L: Lazy>(&self, lazy: &L) -> Future<L::Output> {
        let lazy = lazy.clone();
        self.start(&lazy.layer_label(), &self.ctx, move |ctx| lazy.compute_block(ctx))
    }

    /// Persists several arrays in one background run (dask's
    /// `u, s, v = client.persist([u, s, v])`); the future's value is the
    /// persisted arrays, their blocks held.
    ///
    /// ```
    /// use chunked_array::{futures::{wait, Client}, Array, Context};
    /// let client = Client::new(Context::threads(2));
    /// let x = Array::<f64>::ones(&[8], 4).unwrap();
    /// let (u, s) = (&x * 2.0, x.sum(None).unwrap());
    /// let held = client.persist((u, s));
    /// wait(std::slice::from_ref(&held)).unwrap();
    /// let (u, s) = held.result().unwrap();
    /// assert_eq!((u.num_tasks(), s.compute_scalar().unwrap()), (2, 8.0));
    /// ```
    pub fn persist<P>(&self, arrays: P) -> Future<P::Output>
    where
        P: Persistable + Send + 'static,
        P::Output: Send + Sync + 'static,
    {
        self.start("persist", &self.ctx, move |ctx| Ok(Value::block(arrays.persist_on(ctx)?, Measure::of_size())))
    }

    /// A future already holding `value` (dask's `client.scatter`): tasks
    /// reading it through [`Future::to_delayed`] share the one value,
    /// without copies.
    ///
    /// ```
    /// use chunked_array::{delayed::fan_in, futures::Client, Context};
    /// let client = Client::new(Context::threads(2));
    /// let big = client.scatter("features", vec![1.0f64; 1 << 16]).to_delayed();
    /// let sums: Vec<_> = (0..4).map(|k| big.map("part", move |v| v[k * 100..(k + 1) * 100].iter().sum::<f64>())).collect();
    /// assert_eq!(fan_in("total", &sums, |s| s.iter().copied().sum::<f64>()).compute().unwrap(), 400.0);
    /// ```
    pub fn scatter<T: Send + Sync + 'static>(&self, label: &str, value: T) -> Future<T> {
        let slot = Slot::new(label);
        slot.start();
        slot.finish(Ok(Value::block(value, Measure::of_size())));
        Future::of(slot)
    }

    /// The values of `futures`, waiting for each (dask's `client.gather`).
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::sync());
    /// let fs = client.map("inc", 0..3, |i: i32| i + 1);
    /// assert_eq!(client.gather(&fs).unwrap(), [1, 2, 3]);
    /// ```
    ///
    /// # Errors
    /// The first failed future's error, in the order given.
    pub fn gather<T: Clone + Send + Sync + 'static>(&self, futures: &[Future<T>]) -> Result<Vec<T>> {
        futures.iter().map(Future::result).collect()
    }

    /// Cancels every future (see [`Future::cancel`]).
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::sync());
    /// let done = client.scatter("done", 1);
    /// client.cancel(std::slice::from_ref(&done));
    /// assert_eq!(done.result().unwrap(), 1); // finished before: kept
    /// ```
    pub fn cancel<T>(&self, futures: &[Future<T>]) {
        for f in futures {
            f.cancel();
        }
    }
}
