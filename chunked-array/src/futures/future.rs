//! [`Future`]: the handle of work a [`super::Client`] runs in the
//! background, and what waits on several of them ([`wait`],
//! [`as_completed`]).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::block::Block;
use crate::chunks::Chunks;
use crate::delayed::{Delayed, value_of};
use crate::element::DType;
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};

/// Where a future's work stands (dask's `Future.status`).
///
/// ```
/// use chunked_array::futures::{Client, Status};
/// use chunked_array::Context;
/// let client = Client::new(Context::sync());
/// let f = client.submit("two", || 2);
/// f.wait();
/// assert_eq!(f.status(), Status::Finished);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Queued, not started.
    Pending,
    /// Running now.
    Running,
    /// Done, with a value.
    Finished,
    /// Done, with an error (a task failed or panicked).
    Error,
    /// Cancelled before it finished.
    Cancelled,
}

enum State {
    Pending,
    Running,
    Done(Result<Block>),
}

/// Whom to tell when a future is done: a channel and the future's position
/// in an [`as_completed`] list.
type Listener = (Sender<usize>, usize);

/// The shared state of one future: its result once done, and who to tell.
pub(crate) struct Slot {
    label: String,
    state: Mutex<(State, Vec<Listener>)>,
    done: Condvar,
    /// Set by [`Future::cancel`]: the run's tasks not yet started fail.
    pub(crate) cancel: Arc<AtomicBool>,
}

impl Slot {
    pub(crate) fn new(label: &str) -> Arc<Slot> {
        Arc::new(Slot {
            label: label.to_string(),
            state: Mutex::new((State::Pending, Vec::new())),
            done: Condvar::new(),
            cancel: Arc::new(AtomicBool::new(false)),
        })
    }

    fn lock(&self) -> MutexGuard<'_, (State, Vec<Listener>)> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Marks the work started; `false` when it was cancelled first.
    pub(crate) fn start(&self) -> bool {
        let mut st = self.lock();
        if matches!(st.0, State::Pending) {
            st.0 = State::Running;
            true
        } else {
            false
        }
    }

    /// Records the result (the first one wins) and tells the waiters.
    pub(crate) fn finish(&self, result: Result<Block>) {
        let mut st = self.lock();
        if matches!(st.0, State::Done(_)) {
            return;
        }
        st.0 = State::Done(result);
        for (tx, index) in st.1.drain(..) {
            let _ = tx.send(index);
        }
        self.done.notify_all();
    }

    /// The result, once done.
    fn block(&self) -> Result<Block> {
        let mut st = self.lock();
        loop {
            if let State::Done(result) = &st.0 {
                return result.clone();
            }
            st = self.done.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Sends `index` on `tx` when done (now, if it is).
    fn notify(&self, tx: Sender<usize>, index: usize) {
        let mut st = self.lock();
        match st.0 {
            State::Done(_) => {
                let _ = tx.send(index);
            }
            _ => st.1.push((tx, index)),
        }
    }
}

/// A value a [`super::Client`] computes in the background (dask's
/// `distributed.Future`): ask for it with [`Future::result`], wait for it,
/// cancel it, or hand it to delayed tasks with [`Future::to_delayed`].
/// Cheap to clone (a shared handle).
///
/// ```
/// use chunked_array::futures::Client;
/// use chunked_array::Context;
/// let client = Client::new(Context::threads(2));
/// let f = client.submit("square", || 12 * 12);
/// assert_eq!(f.result().unwrap(), 144);
/// ```
pub struct Future<T> {
    pub(crate) slot: Arc<Slot>,
    _t: PhantomData<fn() -> T>,
}

impl<T> Clone for Future<T> {
    fn clone(&self) -> Self {
        Future { slot: self.slot.clone(), _t: PhantomData }
    }
}

impl<T> std::fmt::Debug for Future<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Future({}, {:?})", self.slot.label, self.status())
    }
}

impl<T> Future<T> {
    pub(crate) fn of(slot: Arc<Slot>) -> Future<T> {
        Future { slot, _t: PhantomData }
    }

    /// The label it was submitted with.
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// assert_eq!(Client::new(Context::sync()).submit("load", || 1).label(), "load");
    /// ```
    pub fn label(&self) -> &str {
        &self.slot.label
    }

    /// Where its work stands.
    ///
    /// ```
    /// use chunked_array::{futures::{Client, Status}, Context};
    /// let client = Client::new(Context::sync());
    /// let bad = client.submit("bad", || -> i32 { panic!("no") });
    /// bad.wait();
    /// assert_eq!(bad.status(), Status::Error);
    /// ```
    pub fn status(&self) -> Status {
        match &self.slot.lock().0 {
            State::Pending => Status::Pending,
            State::Running => Status::Running,
            State::Done(Ok(_)) => Status::Finished,
            State::Done(Err(Error::Cancelled { .. })) => Status::Cancelled,
            State::Done(Err(_)) => Status::Error,
        }
    }

    /// Whether it is done (finished, failed or cancelled).
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let f = Client::new(Context::sync()).scatter("x", 5);
    /// assert!(f.done());
    /// ```
    pub fn done(&self) -> bool {
        matches!(self.slot.lock().0, State::Done(_))
    }

    /// Blocks until it is done.
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let f = Client::new(Context::threads(2)).submit("sleepy", || std::thread::sleep(std::time::Duration::from_millis(5)));
    /// f.wait();
    /// assert!(f.done());
    /// ```
    pub fn wait(&self) {
        let _ = self.slot.block();
    }

    /// Cancels it: if it has not started, it never will; if it runs, its
    /// tasks not yet started do not start. Either way its result is
    /// [`Error::Cancelled`]. Returns whether it was cancelled (`false`: it had
    /// already finished).
    ///
    /// ```
    /// use chunked_array::{futures::{Client, Status}, Context, Error};
    /// let client = Client::new(Context::sync());
    /// let gate = std::sync::Arc::new(std::sync::Barrier::new(2));
    /// let g = gate.clone();
    /// let first = client.submit("first", move || { g.wait(); 1 });
    /// let second = client.submit("second", || 2); // queued behind `first`
    /// assert!(second.cancel());
    /// gate.wait();
    /// assert_eq!(first.result().unwrap(), 1);
    /// assert!(matches!(second.result(), Err(Error::Cancelled { .. })));
    /// assert_eq!(second.status(), Status::Cancelled);
    /// ```
    pub fn cancel(&self) -> bool {
        self.slot.cancel.store(true, Ordering::Relaxed);
        let pending = {
            let st = self.slot.lock();
            match st.0 {
                State::Done(_) => return false,
                State::Pending => true,
                State::Running => false,
            }
        };
        if pending {
            self.slot.finish(Err(Error::Cancelled { key: self.slot.label.clone() }));
        }
        true
    }
}

impl<T: Clone + Send + Sync + 'static> Future<T> {
    /// The value, waiting for it (dask's `Future.result()`).
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::default());
    /// let f = client.submit("words", || vec!["a", "b"]);
    /// assert_eq!(f.result().unwrap(), ["a", "b"]);
    /// ```
    ///
    /// # Errors
    /// The failing task's error (naming it), or [`Error::Cancelled`].
    pub fn result(&self) -> Result<T> {
        let block = self.slot.block()?;
        value_of::<T>(&block, &self.slot.label).cloned()
    }
}

impl<T: Send + Sync + 'static> Future<T> {
    /// A delayed value reading this future's value without a copy: delayed
    /// tasks built on it wait for it (dask passes futures to `delayed`
    /// functions). A value [`super::Client::scatter`]ed once is shared so
    /// by every task that reads it.
    ///
    /// ```
    /// use chunked_array::{futures::Client, Context};
    /// let client = Client::new(Context::threads(2));
    /// let table = client.scatter("table", vec![1.0, 2.0, 3.0]);
    /// let total = table.to_delayed().map("sum", |t| t.iter().sum::<f64>());
    /// assert_eq!(total.compute().unwrap(), 6.0);
    /// ```
    pub fn to_delayed(&self) -> Delayed<T> {
        let op = Arc::new(Held { slot: self.slot.clone() });
        let node = Node::placed(&self.slot.label, DType::Intermediate, Chunks::from_lengths(vec![]), vec![], op, None);
        Delayed::from_node(node, 0)
    }
}

/// The layer of [`Future::to_delayed`]: the future's block, once it is done.
struct Held {
    slot: Arc<Slot>,
}

impl BlockOp for Held {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, _: &Node, _: &[usize], _: &[&Block]) -> Result<Block> {
        self.slot.block()
    }
}

/// Blocks until every future is done (dask's `distributed.wait`).
///
/// ```
/// use chunked_array::{futures::{wait, Client}, Context};
/// let client = Client::new(Context::threads(2));
/// let fs = client.map("double", 0..4, |i| 2 * i);
/// wait(&fs).unwrap();
/// assert!(fs.iter().all(|f| f.done()));
/// ```
///
/// # Errors
/// Once all are done: the first failed one's error, in the order given.
pub fn wait<T>(futures: &[Future<T>]) -> Result<()> {
    let mut first = None;
    for f in futures {
        if let Err(e) = f.slot.block() {
            first.get_or_insert(e);
        }
    }
    first.map_or(Ok(()), Err)
}

/// The futures' results in the order they finish, each once, with its
/// position in `futures` (dask's `as_completed`).
///
/// ```
/// use chunked_array::{futures::{as_completed, Client}, Context};
/// let client = Client::new(Context::threads(2));
/// let fs = client.map("square", 1..=4, |i: u64| i * i);
/// let mut got: Vec<(usize, u64)> = as_completed(&fs).map(|(i, r)| (i, r.unwrap())).collect();
/// got.sort();
/// assert_eq!(got, [(0, 1), (1, 4), (2, 9), (3, 16)]);
/// ```
pub fn as_completed<T: Clone + Send + Sync + 'static>(futures: &[Future<T>]) -> AsCompleted<T> {
    let (tx, rx) = channel();
    for (i, f) in futures.iter().enumerate() {
        f.slot.notify(tx.clone(), i);
    }
    AsCompleted { futures: futures.to_vec(), rx, left: futures.len() }
}

/// The iterator of [`as_completed`]: `(position, result)` as each finishes.
///
/// ```
/// use chunked_array::{futures::{as_completed, AsCompleted, Client}, Context};
/// let client = Client::new(Context::sync());
/// let fs = client.map("id", 0..3, |i: i32| i);
/// let pending: AsCompleted<i32> = as_completed(&fs);
/// assert_eq!(pending.len(), 3);
/// assert_eq!(pending.map(|(i, r)| i as i32 - r.unwrap()).sum::<i32>(), 0);
/// ```
pub struct AsCompleted<T> {
    futures: Vec<Future<T>>,
    rx: Receiver<usize>,
    left: usize,
}

impl<T: Clone + Send + Sync + 'static> Iterator for AsCompleted<T> {
    type Item = (usize, Result<T>);
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        // Every slot holds a sender until it finishes, so this ends.
        let i = self.rx.recv().ok()?;
        self.left -= 1;
        Some((i, self.futures[i].result()))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T: Clone + Send + Sync + 'static> ExactSizeIterator for AsCompleted<T> {}
