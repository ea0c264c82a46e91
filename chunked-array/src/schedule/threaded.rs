//! The threaded scheduler: a pool of workers sharing a priority queue of ready tasks.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::block::Block;
use crate::error::{Error, Result};
use crate::events::{Clock, RunObserver, TaskEvent};
use crate::graph::task::TaskGraph;
use crate::memory::store::BlockStore;
use crate::schedule::{OutputSink, Run, RunStats, Scheduler};

/// Runs ready tasks on `threads` workers, lowest static-order number first, so the
/// parallel run stays close to the memory-friendly static order.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use std::sync::Arc;
/// use chunked_array::{Array, Context, ThreadedScheduler};
/// let ctx = Context::with_scheduler(Arc::new(ThreadedScheduler::new(2))); // as Context::threads(2)
/// let x = Array::<i64>::arange(0, 100, 1, 10)?;
/// assert_eq!(x.sum(None)?.compute_on(&ctx)?[[]], 4950);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ThreadedScheduler {
    threads: usize,
}

impl ThreadedScheduler {
    /// `threads` workers; 0 means one per core.
    ///
    /// ```
    /// use chunked_array::ThreadedScheduler;
    /// assert_eq!(ThreadedScheduler::new(3).threads(), 3);
    /// assert!(ThreadedScheduler::new(0).threads() >= 1); // one per core
    /// ```
    pub fn new(threads: usize) -> Self {
        ThreadedScheduler { threads }
    }

    /// The number of workers a run uses.
    ///
    /// ```
    /// use chunked_array::ThreadedScheduler;
    /// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    /// assert_eq!(ThreadedScheduler::new(0).threads(), cores);
    /// assert_eq!(ThreadedScheduler::new(2).threads(), 2);
    /// ```
    pub fn threads(&self) -> usize {
        if self.threads == 0 {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        } else {
            self.threads
        }
    }
}

impl Default for ThreadedScheduler {
    fn default() -> Self {
        Self::new(0)
    }
}

struct Queue {
    /// Ready tasks with inputs, (rank, task): the lowest static-order position first.
    ready: BinaryHeap<Reverse<(u32, u32)>>,
    /// Ready source tasks (no inputs), held back while memory is over the limit
    /// so that producers cannot outrun consumers.
    sources: BinaryHeap<Reverse<(u32, u32)>>,
    /// Tasks running now.
    running: usize,
    /// Workers waiting because the ready tasks are held back (memory).
    held_back: usize,
    /// Estimated bytes that running tasks will add (outputs and workspace),
    /// counted for tasks started near the memory limit.
    inflight: usize,
    /// Per task, its share of `inflight` while it runs.
    estimates: Vec<usize>,
    idle: usize,
    stop: bool,
}

impl Queue {
    fn push(&mut self, graph: &TaskGraph, t: u32) {
        let item = Reverse((graph.rank(t as usize), t));
        if graph.deps(t as usize).is_empty() { self.sources.push(item) } else { self.ready.push(item) }
    }

    /// The next task: the lowest rank of both heaps; only tasks with inputs while
    /// memory is over the limit and a running task will free some.
    fn pop(&mut self, over_limit: bool) -> Option<u32> {
        let hold_sources = over_limit && self.running > 0;
        let take_source = match (self.ready.peek(), self.sources.peek()) {
            (_, None) => false,
            (None, Some(_)) => !hold_sources,
            (Some(r), Some(s)) => !hold_sources && s.0 < r.0,
        };
        let next = if take_source { self.sources.pop() } else { self.ready.pop() };
        next.map(|Reverse((_, t))| t)
    }
}

struct Shared<'g> {
    graph: &'g TaskGraph,
    observer: &'g dyn RunObserver,
    timing: bool,
    queue: Mutex<Queue>,
    wake: Condvar,
    /// Inputs not yet computed, per task.
    waiting_on: Vec<AtomicU32>,
    /// Consumers not yet run, per task: at zero the block is released.
    readers_left: Vec<AtomicU32>,
    store: BlockStore<'g>,
    completed: AtomicUsize,
    failed: AtomicBool,
    error: Mutex<Option<Error>>,
}

impl Shared<'_> {
    fn fail(&self, e: Error) {
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.failed.store(true, Ordering::SeqCst);
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.stop = true;
        self.wake.notify_all();
    }

    fn next_task(&self) -> Option<usize> {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if q.stop {
                return None;
            }
            if let Some(t) = q.pop(self.store.over_limit()) {
                // Admission: near the limit, a task starts only when its output
                // and workspace fit beside what is held and what running tasks
                // will make, unless nothing runs (then it must, and spills).
                let limit = self.store.limit();
                let near = self.store.held() + q.inflight > limit / 2;
                let estimate = if near {
                    self.graph.estimated_bytes(t as usize) + self.graph.scratch_bytes(t as usize)
                } else {
                    0
                };
                if q.running == 0 || self.store.held() + q.inflight + estimate <= limit {
                    q.running += 1;
                    q.inflight += estimate;
                    q.estimates[t as usize] = estimate;
                    return Some(t as usize);
                }
                q.push(self.graph, t);
            }
            let held_back = !q.sources.is_empty() || !q.ready.is_empty();
            q.idle += 1;
            q.held_back += usize::from(held_back);
            q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
            q.held_back -= usize::from(held_back);
            q.idle -= 1;
        }
    }

    fn worker(&self, id: usize, sink: &OutputSink<'_>) {
        let g = self.graph;
        let mut inputs: Vec<Block> = Vec::new();
        let mut newly_ready: Vec<u32> = Vec::new();
        while let Some(t) = self.next_task() {
            inputs.clear();
            for &d in g.deps(t) {
                match self.store.input(d as usize, t) {
                    Ok(b) => inputs.push(b),
                    Err(e) => return self.fail(e),
                }
            }
            let refs: Vec<&Block> = inputs.iter().collect();
            let input_bytes = inputs.iter().map(|b| b.nbytes()).sum();
            let started = if self.timing { Clock::now() } else { 0 };
            let block = match self.store.run_task(t, &refs) {
                Ok(b) => b,
                Err(e) => return self.fail(e),
            };
            let ended = if self.timing { Clock::now() } else { 0 };
            drop(refs);
            inputs.clear();
            let bytes = block.nbytes();
            self.store.count(&block);
            if g.is_output(t)
                && let Err(e) = sink(t, &block)
            {
                return self.fail(e);
            }
            for &d in g.deps(t) {
                if self.readers_left[d as usize].fetch_sub(1, Ordering::AcqRel) == 1 {
                    self.store.release(d as usize);
                }
            }
            if g.consumers(t).is_empty() {
                self.store.uncount(&block);
            } else {
                self.store.insert(t, block);
            }
            if let Err(e) = self.store.make_room() {
                return self.fail(e);
            }
            let held_bytes = self.store.held();
            self.observer.task_done(&TaskEvent {
                task: t,
                worker: id,
                start: started,
                end: ended,
                input_bytes,
                output_bytes: bytes,
                held_bytes,
                device_bytes: self.store.device_held(),
                disk_bytes: self.store.disk_held(),
            });
            newly_ready.clear();
            for &c in g.consumers(t) {
                if self.waiting_on[c as usize].fetch_sub(1, Ordering::AcqRel) == 1 {
                    newly_ready.push(c);
                }
            }
            let done = self.completed.fetch_add(1, Ordering::AcqRel) + 1 == g.len();
            let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.running -= 1;
            q.inflight -= std::mem::take(&mut q.estimates[t]);
            for &c in &newly_ready {
                q.push(g, c);
            }
            if done {
                q.stop = true;
                self.wake.notify_all();
            } else if q.held_back > 0 {
                // Memory may have dropped below the limit, or no task runs any
                // more: held-back sources may go.
                self.wake.notify_all();
            } else if q.idle > 0 {
                for _ in 0..newly_ready.len().min(q.idle) {
                    self.wake.notify_one();
                }
            }
        }
    }
}

impl Scheduler for ThreadedScheduler {
    fn name(&self) -> &str {
        "threads"
    }

    fn workers(&self) -> usize {
        self.threads()
    }

    fn execute(&self, run: &Run<'_>) -> Result<RunStats> {
        let Run { graph, sink, observer, memory, .. } = *run;
        crate::block::alloc::tune_allocator();
        let start = Instant::now();
        let n = graph.len();
        if n == 0 {
            return Ok(RunStats { elapsed: start.elapsed(), ..RunStats::default() });
        }
        let sources: BinaryHeap<Reverse<(u32, u32)>> =
            (0..n).filter(|&t| graph.deps(t).is_empty()).map(|t| Reverse((graph.rank(t), t as u32))).collect();
        let shared = Shared {
            graph,
            observer,
            timing: observer.wants_timing(),
            queue: Mutex::new(Queue {
                ready: BinaryHeap::new(),
                sources,
                running: 0,
                held_back: 0,
                inflight: 0,
                estimates: vec![0; n],
                idle: 0,
                stop: false,
            }),
            wake: Condvar::new(),
            waiting_on: (0..n).map(|t| AtomicU32::new(graph.deps(t).len() as u32)).collect(),
            readers_left: (0..n).map(|t| AtomicU32::new(graph.consumers(t).len() as u32)).collect(),
            store: BlockStore::new(graph, memory, observer),
            completed: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
        };
        let workers = self.threads().min(n).max(1);
        // Tasks run under catch_unwind already; this guards the scheduler's own
        // code, so that a bug there stops every worker instead of leaving the
        // others waiting forever.
        let guarded = |id: usize| {
            if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shared.worker(id, sink))) {
                let message = crate::graph::task::panic_message(&*panic).unwrap_or_else(|| "worker panicked".into());
                shared.fail(Error::Task { key: "scheduler".into(), message });
            }
        };
        observer.run_started(graph, workers);
        std::thread::scope(|s| {
            for id in 1..workers {
                s.spawn(move || guarded(id));
            }
            guarded(0);
        });
        observer.run_finished(graph);
        if let Some(e) = shared.error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        Ok(RunStats { tasks: n, elapsed: start.elapsed(), tiers: shared.store.stats() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(ready: &[(u32, u32)], sources: &[(u32, u32)], running: usize) -> Queue {
        Queue {
            ready: ready.iter().map(|&x| Reverse(x)).collect(),
            sources: sources.iter().map(|&x| Reverse(x)).collect(),
            running,
            held_back: 0,
            inflight: 0,
            estimates: Vec::new(),
            idle: 0,
            stop: false,
        }
    }

    #[test]
    fn lowest_rank_first_when_memory_allows() {
        let mut q = queue(&[(5, 50)], &[(2, 20), (7, 70)], 1);
        assert_eq!(q.pop(false), Some(20));
        assert_eq!(q.pop(false), Some(50));
        assert_eq!(q.pop(false), Some(70));
        assert_eq!(q.pop(false), None);
    }

    #[test]
    fn sources_are_held_back_while_over_the_limit_and_a_task_runs() {
        // A source comes first by rank, but memory is over the limit: a task with
        // inputs goes instead, then nothing until a running task finishes.
        let mut q = queue(&[(5, 50)], &[(2, 20)], 1);
        assert_eq!(q.pop(true), Some(50));
        assert_eq!(q.pop(true), None);
        // With nothing running, holding back would never end: the source goes.
        q.running = 0;
        assert_eq!(q.pop(true), Some(20));
    }
}
