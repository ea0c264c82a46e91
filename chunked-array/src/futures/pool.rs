//! The client's threads: a queue of jobs taken in the order given.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// One piece of a client's work.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

struct Queue {
    jobs: VecDeque<Job>,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

/// Threads taking jobs from a shared queue, first given first taken; on
/// drop they finish every job given, then end.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Pool {
    pub fn new(workers: usize) -> Pool {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue { jobs: VecDeque::new(), closed: false }),
            ready: Condvar::new(),
        });
        let threads = (0..workers)
            .map(|i| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("chunked-client-{i}"))
                    .spawn(move || work(&shared))
                    .expect("spawning a client thread")
            })
            .collect();
        Pool { shared, threads }
    }

    pub fn workers(&self) -> usize {
        self.threads.len()
    }

    pub fn push(&self, job: Job) {
        self.shared.queue.lock().unwrap_or_else(|p| p.into_inner()).jobs.push_back(job);
        self.shared.ready.notify_one();
    }
}

/// A client thread: jobs until the queue is closed and empty.
fn work(shared: &Shared) {
    loop {
        let job = {
            let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                if q.closed {
                    return;
                }
                q = shared.ready.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        job();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.queue.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
        self.shared.ready.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
