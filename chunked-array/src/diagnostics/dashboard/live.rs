//! One run as the dashboard hears it: the workers append finished tasks to
//! buffers of their own (an uncontended lock and a push per task), and the
//! publisher drains them a few times a second into a [`Batch`].

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::diagnostics::dashboard::clock::DashClock;
use crate::diagnostics::dashboard::state::{Batch, MemoryPoint, RunHeader, SpanRec, TierMark, Transfer};
use crate::events::{RunInfo, RunObserver, TaskEvent, TierEvent, TransferEvent};
use crate::graph::task::TaskGraph;

/// Buffers of local task events: a worker appends to buffer `worker % WORKER_BUFFERS`.
const WORKER_BUFFERS: usize = 64;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What one run reported and the publisher has not taken yet.
pub(crate) struct Feed {
    id: u64,
    /// This process's rank.
    rank: u32,
    /// Seconds (dashboard time) at the run's start, where other ranks' times count from.
    started: f64,
    /// The run's description, taken by the first drain.
    header: Mutex<Option<RunHeader>>,
    /// Per task, its layer's number in the header.
    task_layer: Box<[u32]>,
    workers: Box<[Mutex<Vec<TaskEvent>>]>,
    /// Other ranks' tasks, times in nanoseconds since their run started.
    remote: Mutex<Vec<(u32, TaskEvent)>>,
    marks: Mutex<Vec<TierMark>>,
    transfers: Mutex<Vec<Transfer>>,
    finished: AtomicBool,
}

impl Feed {
    /// The feed of run number `id`, described by `run`.
    pub fn new(id: u64, run: &RunInfo<'_>, clock: &DashClock) -> Feed {
        let graph = run.graph;
        let task_layer: Box<[u32]> = (0..graph.len()).map(|t| graph.task_layer_block(t).0).collect();
        let layers = graph.layers();
        let mut blocks = vec![0usize; layers.len()];
        for &l in task_layer.iter() {
            blocks[l as usize] += 1;
        }
        let header = RunHeader {
            id,
            label: run.label.to_string(),
            started: clock.seconds_now(),
            tasks: graph.len(),
            layers: layers.into_iter().zip(blocks).map(|((label, name, _), b)| (label, name, b)).collect(),
            edges: layer_edges(graph, &task_layer),
            host_limit: run.memory_limit,
            device_limit: run.device_memory_limit,
            disk_limit: run.spill_limit,
        };
        Feed {
            id,
            rank: run.rank as u32,
            started: header.started,
            header: Mutex::new(Some(header)),
            task_layer,
            workers: (0..WORKER_BUFFERS).map(|_| Mutex::new(Vec::new())).collect(),
            remote: Mutex::new(Vec::new()),
            marks: Mutex::new(Vec::new()),
            transfers: Mutex::new(Vec::new()),
            finished: AtomicBool::new(false),
        }
    }

    /// Moves what was reported since the last drain into `batch`; returns
    /// whether the run is over and fully drained.
    pub fn drain_into(&self, batch: &mut Batch, clock: &DashClock) -> bool {
        // Read before draining: whatever was reported before the run ended is
        // in the buffers by now.
        let finished = self.finished.load(Ordering::Acquire);
        if let Some(header) = lock(&self.header).take() {
            batch.begun.push(header);
        }
        let layer = |t: usize| self.task_layer.get(t).copied().unwrap_or(0);
        let mut samples = Samples::default();
        for buffer in self.workers.iter() {
            let events = std::mem::take(&mut *lock(buffer));
            for e in &events {
                let (start, end) = (clock.seconds(e.start), clock.seconds(e.end));
                batch.spans.push(self.span(e, layer(e.task), self.rank, start, end));
                samples.add(memory_point(end, self.rank, e));
            }
        }
        for (rank, e) in std::mem::take(&mut *lock(&self.remote)) {
            // A rank that took no times reports zeros: such tasks count, at the drain's time.
            let seconds = |ns: u64| if e.end == 0 { clock.seconds_now() } else { self.started + ns as f64 * 1e-9 };
            let (start, end) = (seconds(e.start), seconds(e.end).max(seconds(e.start)));
            batch.spans.push(self.span(&e, layer(e.task), rank, start, end));
            samples.add(memory_point(end, rank, &e));
        }
        samples.into_batch(batch);
        batch.marks.append(&mut lock(&self.marks));
        batch.transfers.append(&mut lock(&self.transfers));
        if finished {
            batch.finished.push((self.id, clock.seconds_now()));
        }
        finished
    }

    fn span(&self, e: &TaskEvent, layer: u32, rank: u32, start: f64, end: f64) -> SpanRec {
        SpanRec { run: self.id, rank, worker: e.worker as u32, layer, task: e.task as u32, start, end }
    }
}

/// Per rank, the memory at the end of the drain's busiest task (most bytes
/// over the tiers) and at the end of its last: a sample per tick that still
/// shows the peaks between ticks.
#[derive(Default)]
struct Samples(Vec<(MemoryPoint, MemoryPoint)>);

impl Samples {
    fn add(&mut self, point: MemoryPoint) {
        let total = |p: &MemoryPoint| p.host + p.device + p.disk;
        match self.0.iter_mut().find(|(peak, _)| peak.rank == point.rank) {
            Some((peak, last)) => {
                if total(&point) > total(peak) {
                    *peak = point;
                }
                if point.time >= last.time {
                    *last = point;
                }
            }
            None => self.0.push((point, point)),
        }
    }

    /// The samples in time order: the peak, then the last when it is later
    /// (the last is never earlier).
    fn into_batch(self, batch: &mut Batch) {
        for (peak, last) in self.0 {
            batch.memory.push(peak);
            if last.time != peak.time {
                batch.memory.push(last);
            }
        }
    }
}

fn memory_point(time: f64, rank: u32, e: &TaskEvent) -> MemoryPoint {
    MemoryPoint { time, rank, host: e.held_bytes, device: e.device_bytes, disk: e.disk_bytes }
}

/// The edges between layers: a layer feeds another when a task of the first
/// is an input of a task of the second.
fn layer_edges(graph: &TaskGraph, task_layer: &[u32]) -> Vec<(u32, u32)> {
    let layers = task_layer.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut edges = Vec::new();
    // A bit per pair of layers while that stays small, else a set.
    if layers <= 2048 {
        let mut seen = vec![0u64; (layers * layers).div_ceil(64)];
        for (t, &to) in task_layer.iter().enumerate() {
            for &d in graph.deps(t) {
                let from = task_layer[d as usize];
                let bit = from as usize * layers + to as usize;
                if from != to && seen[bit / 64] & (1 << (bit % 64)) == 0 {
                    seen[bit / 64] |= 1 << (bit % 64);
                    edges.push((from, to));
                }
            }
        }
    } else {
        let mut seen = HashSet::new();
        for (t, &to) in task_layer.iter().enumerate() {
            for &d in graph.deps(t) {
                let from = task_layer[d as usize];
                if from != to && seen.insert((from, to)) {
                    edges.push((from, to));
                }
            }
        }
    }
    edges.sort_unstable();
    edges
}

/// The observer of one run: hands what it hears to the run's [`Feed`].
pub(crate) struct LiveRun {
    pub feed: Arc<Feed>,
    pub clock: Arc<DashClock>,
}

impl RunObserver for LiveRun {
    fn wants_timing(&self) -> bool {
        true
    }

    #[inline]
    fn task_done(&self, event: &TaskEvent) {
        lock(&self.feed.workers[event.worker % WORKER_BUFFERS]).push(*event);
    }

    fn tier_event(&self, e: &TierEvent) {
        let feed = &self.feed;
        let mark =
            TierMark { time: self.clock.seconds(e.at), run: feed.id, rank: feed.rank, kind: e.kind, bytes: e.bytes };
        lock(&feed.marks).push(mark);
    }

    fn remote_tasks(&self, rank: usize, events: &[TaskEvent]) {
        lock(&self.feed.remote).extend(events.iter().map(|e| (rank as u32, *e)));
    }

    fn transfer(&self, e: &TransferEvent) {
        let sent = Transfer { time: self.clock.seconds(e.at), from: e.from as u32, to: e.to as u32, bytes: e.bytes };
        lock(&self.feed.transfers).push(sent);
    }

    fn remote_tier_events(&self, rank: usize, events: &[TierEvent]) {
        let feed = &self.feed;
        let marks = events.iter().map(|e| TierMark {
            time: feed.started + e.at as f64 * 1e-9,
            run: feed.id,
            rank: rank as u32,
            kind: e.kind,
            bytes: e.bytes,
        });
        lock(&feed.marks).extend(marks);
    }

    fn remote_transfers(&self, _rank: usize, events: &[TransferEvent]) {
        let started = self.feed.started;
        let sent = events.iter().map(|e| Transfer {
            time: started + e.at as f64 * 1e-9,
            from: e.from as u32,
            to: e.to as u32,
            bytes: e.bytes,
        });
        lock(&self.feed.transfers).extend(sent);
    }

    fn run_finished(&self, _graph: &TaskGraph) {
        self.feed.finished.store(true, Ordering::Release);
    }
}
