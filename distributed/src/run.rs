//! One run of a graph on this rank: which tasks it runs, which blocks it
//! expects and sends, the loop that hands tasks to worker threads and takes in
//! messages, and the closing protocol (see the scheduler's module notes).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use chunked_array::runtime::Block;
use chunked_array::runtime::{BlockStore, Clock, OutputSink, RunObserver, TaskEvent, TaskGraph, TransferEvent};
use chunked_array::{Error, Result};
use mpi::topology::SimpleCommunicator;

use crate::placement::RunPlan;
use crate::relay::Relay;
use crate::transport::{Message, Outbox, Report, receive};

/// How often the other ranks tell rank 0 their progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// How long a rank with nothing to run waits for any message before it ends
/// the job: `CHUNKED_MPI_TIMEOUT` seconds (read once), unset for no limit.
pub(crate) fn progress_timeout() -> Option<Duration> {
    static TIMEOUT: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *TIMEOUT.get_or_init(|| {
        let seconds = std::env::var("CHUNKED_MPI_TIMEOUT").ok()?.trim().parse::<f64>().ok()?;
        (seconds.is_finite() && seconds > 0.0).then(|| Duration::from_secs_f64(seconds))
    })
}

/// The `Done` of task `t` whose worker panicked outside the task's own code.
fn panicked(graph: &TaskGraph, t: usize, worker: usize, panic: &(dyn std::any::Any + Send)) -> Done {
    let text = chunked_array::runtime::panic_message(panic).unwrap_or_default();
    let message = format!("panicked outside the task (encoding or sizing its block): {text}");
    let block = Err(Error::Task { key: graph.key(t).to_string(), message });
    Done { task: t, worker, block, encoded: None, start: 0, end: 0, input_bytes: 0 }
}

/// The state of one run on this rank.
pub(crate) struct Run<'a> {
    graph: &'a TaskGraph,
    /// This run's message tag.
    tag: i32,
    store: &'a BlockStore<'a>,
    me: usize,
    ranks: usize,
    owner: Vec<u32>,
    /// Per task, the ranks besides its owner that need its block (shared with
    /// the workers, which encode the blocks that travel).
    destinations: Arc<[Vec<u32>]>,
    /// Per task, whether its block is delivered to this rank's sink.
    delivered_here: Vec<bool>,
    /// Per task, consumers on this rank that have not run yet (with multiplicity).
    readers_left: Vec<u32>,
    /// Per task of this rank, inputs not here yet (with multiplicity).
    inputs_missing: Vec<u32>,
    /// Ready tasks of this rank, first by [`ReadyKey`].
    ready: BinaryHeap<Reverse<ReadyKey>>,
    /// Per task, whether it starts before the static order says ([`ReadyKey`]).
    urgent: Vec<bool>,
    own_left: usize,
    expected: usize,
    received: usize,
    closed: Vec<bool>,
    /// Whether another rank reported a failure (this rank then only closes).
    remote_failed: bool,
    /// Worker threads.
    threads: usize,
    /// What this rank did and has not yet reported to rank 0.
    unreported: Report,
    relay: &'a Relay<'a>,
    last_report: Instant,
    /// The clock at this run's start (ticks and time), for reported times.
    origin: (u64, Instant),
    /// Tasks this rank ran.
    pub tasks_run: usize,
}

impl<'a> Run<'a> {
    /// The run of `graph` by `plan` on rank `me` of `ranks`, on `threads` worker threads.
    pub fn new(
        graph: &'a TaskGraph,
        plan: RunPlan,
        (me, ranks): (usize, usize),
        threads: usize,
        (store, relay): (&'a BlockStore<'a>, &'a Relay<'a>),
        tag: i32,
    ) -> Run<'a> {
        let n = graph.len();
        let RunPlan { owner, destinations: all_destinations, delivered } = plan;
        let mut delivered_here = vec![false; n];
        let mut readers_left = vec![0u32; n];
        let mut inputs_missing = vec![0u32; n];
        let mut ready = BinaryHeap::new();
        let (mut own_left, mut expected) = (0, 0);
        let urgent = urgent_tasks(graph, &owner);
        for t in 0..n {
            readers_left[t] = graph.consumers(t).iter().filter(|&&c| owner[c as usize] as usize == me).count() as u32;
            delivered_here[t] = delivered[t].contains(&(me as u32));
            let dest = &all_destinations[t];
            if owner[t] as usize == me {
                own_left += 1;
                inputs_missing[t] = graph.deps(t).len() as u32;
                if inputs_missing[t] == 0 {
                    ready.push(Reverse(ReadyKey::of(graph, &urgent, t)));
                }
            } else if dest.contains(&(me as u32)) {
                expected += 1;
            }
        }
        let closed = (0..ranks).map(|r| r == me).collect();
        let destinations = all_destinations.into();
        Run {
            graph,
            tag,
            store,
            me,
            ranks,
            owner,
            destinations,
            delivered_here,
            readers_left,
            inputs_missing,
            ready,
            urgent,
            own_left,
            expected,
            received: 0,
            closed,
            remote_failed: false,
            threads,
            unreported: Report::default(),
            relay,
            last_report: Instant::now(),
            origin: (Clock::now(), Instant::now()),
            tasks_run: 0,
        }
    }

    /// Runs this rank's tasks on `threads` worker threads and takes in the
    /// blocks it needs, until both are done. This thread does all MPI calls,
    /// hands out tasks in priority order and finishes them (sends, sink, store);
    /// the workers only compute (and encode what must travel).
    pub fn main_loop(
        &mut self,
        comm: &SimpleCommunicator,
        outbox: &mut Outbox,
        sink: &OutputSink<'_>,
        observer: &dyn RunObserver,
    ) -> Result<()> {
        let timing = observer.wants_timing();
        let (graph, store, destinations) = (self.graph, self.store, self.destinations.clone());
        let destinations = &destinations[..];
        let (job_tx, job_rx) = mpsc::channel::<usize>();
        let job_rx = Mutex::new(job_rx);
        let (done_tx, done_rx) = mpsc::channel::<Done>();
        std::thread::scope(|scope| {
            for worker in 0..self.threads {
                let (job_rx, done_tx) = (&job_rx, done_tx.clone());
                scope.spawn(move || {
                    let mut inputs: Vec<Block> = Vec::new();
                    loop {
                        let job = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        let Ok(t) = job else { return };
                        // A panic outside the task itself (encoding its block for
                        // another rank, sizing it) is this task's error: the
                        // worker lives on and the run ends on every rank.
                        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            compute(graph, store, destinations, t, worker, timing, &mut inputs)
                        }))
                        .unwrap_or_else(|panic| panicked(graph, t, worker, panic.as_ref()));
                        if done_tx.send(done).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(done_tx);
            let mut in_flight = 0;
            let outcome = (|| -> Result<()> {
                loop {
                    let mut progressed = false;
                    while let Some((from, message)) = receive(comm, self.tag) {
                        self.take(from, message, sink, observer)?;
                        progressed = true;
                    }
                    while let Ok(done) = done_rx.try_recv() {
                        in_flight -= 1;
                        self.finish_task(done, comm, outbox, sink, observer)?;
                        progressed = true;
                    }
                    outbox.progress();
                    while in_flight < self.threads
                        && let Some(Reverse(ReadyKey { task: t, .. })) = self.ready.pop()
                    {
                        job_tx.send(t as usize).expect("workers wait for tasks");
                        in_flight += 1;
                        progressed = true;
                    }
                    if self.own_left == 0 && self.received == self.expected {
                        return Ok(());
                    }
                    if progressed {
                        continue;
                    }
                    if in_flight > 0 {
                        // Wait for a worker, looking at MPI again now and then: a
                        // message cannot start a task while every worker is busy
                        // (but MPI must still be called to move large sends on),
                        // so the wait is long then and short otherwise. The
                        // wake-ups cost next to nothing against block tasks.
                        let wait = if in_flight == self.threads {
                            Duration::from_millis(1)
                        } else {
                            Duration::from_micros(100)
                        };
                        if let Ok(done) = done_rx.recv_timeout(wait) {
                            in_flight -= 1;
                            self.finish_task(done, comm, outbox, sink, observer)?;
                        }
                        continue;
                    }
                    if self.closed.iter().all(|&c| c) {
                        return Err(Error::Task {
                            key: format!("rank {}", self.me),
                            message: format!(
                                "every other rank closed with {} of {} expected blocks received and {} tasks blocked",
                                self.received, self.expected, self.own_left
                            ),
                        });
                    }
                    // Nothing runs here until a block arrives: wait for one.
                    let (received, expected) = (self.received, self.expected);
                    let waiting = || format!("{received} of {expected} blocks from other ranks received");
                    let (from, message) = wait_for_message(comm, self.tag, outbox, self.me, waiting);
                    self.take(from, message, sink, observer)?;
                }
            })();
            // Let the workers finish what they hold (on an error too) and stop.
            drop(job_tx);
            for _ in 0..in_flight {
                let _ = done_rx.recv();
            }
            outcome
        })
    }

    /// A task a worker finished: release its inputs, send its block where it
    /// is read, and take it in here.
    fn finish_task(
        &mut self,
        done: Done,
        comm: &SimpleCommunicator,
        outbox: &mut Outbox,
        sink: &OutputSink<'_>,
        observer: &dyn RunObserver,
    ) -> Result<()> {
        let graph = self.graph;
        let Done { task: t, worker, block, encoded, start, end, input_bytes } = done;
        let block = block?;
        self.own_left -= 1;
        self.tasks_run += 1;
        for &d in graph.deps(t) {
            let d = d as usize;
            self.readers_left[d] -= 1;
            if self.readers_left[d] == 0 {
                self.store.release(d);
            }
        }
        let output_bytes = block.nbytes();
        if let Some(bytes) = encoded {
            let ranks: Vec<usize> = self.destinations[t].iter().map(|&r| r as usize).collect();
            let bytes = bytes?;
            let at = Clock::now();
            for &to in &ranks {
                let sent = TransferEvent { task: t, from: self.me, to, bytes: bytes.len(), at };
                observer.transfer(&sent);
                if self.me != 0 {
                    self.unreported.transfers.push(sent);
                }
            }
            outbox
                .send_block(comm, &ranks, t, bytes)
                .map_err(|message| Error::Task { key: graph.key(t).to_string(), message })?;
        }
        self.arrive(t, block, sink)?;
        let store = self.store;
        let (held_bytes, device_bytes, disk_bytes) = (store.held(), store.device_held(), store.disk_held());
        let event =
            TaskEvent { task: t, worker, start, end, input_bytes, output_bytes, held_bytes, device_bytes, disk_bytes };
        observer.task_done(&event);
        if self.me != 0 {
            self.unreported.tasks.push(event);
            if self.last_report.elapsed() >= PROGRESS_EVERY {
                self.report_progress(comm, outbox);
            }
        }
        Ok(())
    }

    /// Tells rank 0 what this rank did since its last report, times turned
    /// from clock ticks into nanoseconds since this run started (ticks mean
    /// nothing on another node).
    fn report_progress(&mut self, comm: &SimpleCommunicator, outbox: &mut Outbox) {
        self.unreported.tiers.extend(self.relay.take_tiers());
        if !self.unreported.is_empty() {
            let (tick0, instant0) = self.origin;
            let ticks = Clock::now().saturating_sub(tick0).max(1) as f64;
            let ns_per_tick = instant0.elapsed().as_nanos() as f64 / ticks;
            let ns = |tick: u64| {
                if tick == 0 { 0 } else { (tick.saturating_sub(tick0) as f64 * ns_per_tick) as u64 }
            };
            let Report { tasks, tiers, transfers } = &mut self.unreported;
            for e in tasks {
                (e.start, e.end) = (ns(e.start), ns(e.end));
            }
            for e in tiers {
                e.at = ns(e.at).max(1);
            }
            for e in transfers {
                e.at = ns(e.at).max(1);
            }
            let _ = outbox.send_progress(comm, 0, &self.unreported);
            self.unreported = Report::default();
        }
        self.last_report = Instant::now();
    }

    /// Task `t`'s block is here (made or received): hand it to the sink if it is
    /// delivered here, keep it for local readers, wake them.
    fn arrive(&mut self, t: usize, block: Block, sink: &OutputSink<'_>) -> Result<()> {
        self.store.count(&block);
        if self.delivered_here[t] {
            sink(t, &block)?;
        }
        if self.readers_left[t] > 0 {
            self.store.insert(t, block);
        } else {
            self.store.uncount(&block);
        }
        self.store.make_room()?;
        for &c in self.graph.consumers(t) {
            let c = c as usize;
            if self.owner[c] as usize == self.me {
                self.inputs_missing[c] -= 1;
                if self.inputs_missing[c] == 0 {
                    self.ready.push(Reverse(ReadyKey::of(self.graph, &self.urgent, c)));
                }
            }
        }
        Ok(())
    }

    /// Takes in one message.
    fn take(
        &mut self,
        from: usize,
        message: std::result::Result<Message, String>,
        sink: &OutputSink<'_>,
        observer: &dyn RunObserver,
    ) -> Result<()> {
        let remote = |message: String| Error::Task { key: format!("rank {from}"), message };
        match message.map_err(remote)? {
            Message::Block { task, bytes } => {
                let expected = task < self.graph.len()
                    && self.owner[task] as usize == from
                    && self.destinations[task].contains(&(self.me as u32));
                if !expected {
                    return Err(remote(format!(
                        "sent task {task}'s block, which this rank did not expect (do all ranks run the same program?)"
                    )));
                }
                let block = self.graph.decode_block(task, &bytes)?;
                drop(bytes);
                self.received += 1;
                self.arrive(task, block, sink)
            }
            Message::Failed(text) => {
                self.remote_failed = true;
                Err(remote(text))
            }
            Message::Closed => {
                self.closed[from] = true;
                Ok(())
            }
            Message::Progress(report) => {
                let n = self.graph.len();
                let foreign = report.tasks.iter().any(|e| e.task >= n)
                    || report.tiers.iter().any(|e| e.task >= n)
                    || report.transfers.iter().any(|e| e.task >= n || e.to >= self.ranks);
                if foreign {
                    return Err(remote(
                        "reported a task or rank this run does not have (do all ranks run the same program?)".into(),
                    ));
                }
                observer.remote_tasks(from, &report.tasks);
                if !report.tiers.is_empty() {
                    observer.remote_tier_events(from, &report.tiers);
                }
                if !report.transfers.is_empty() {
                    observer.remote_transfers(from, &report.transfers);
                }
                Ok(())
            }
        }
    }

    /// Ends the run on this rank: tells the others it failed (if it did) and is
    /// closing, drains their messages until each has closed, and waits for its
    /// own sends. Returns the run's outcome: this rank's error, else the first
    /// error another rank reported.
    pub fn close(
        &mut self,
        comm: &SimpleCommunicator,
        outbox: &mut Outbox,
        outcome: Result<()>,
        sink: &OutputSink<'_>,
        observer: &dyn RunObserver,
    ) -> Result<()> {
        if self.me != 0 {
            self.report_progress(comm, outbox);
        }
        let others: Vec<usize> = (0..self.ranks).filter(|&r| r != self.me).collect();
        if let Err(e) = &outcome
            && !self.remote_failed
        {
            let _ = outbox.send_failed(comm, &others, &format!("{e}"));
        }
        let _ = outbox.send_closed(comm, &others);
        let mut outcome = outcome;
        while self.closed.iter().any(|c| !c) {
            let waiting = || {
                let open: Vec<usize> = (0..self.ranks).filter(|&r| !self.closed[r]).collect();
                format!("the closing messages of ranks {open:?}")
            };
            let (from, message) = wait_for_message(comm, self.tag, outbox, self.me, waiting);
            // Blocks are no longer taken in (this rank has all it expected, or
            // failed); every other message is taken as during the run.
            let taken = match message {
                Ok(Message::Block { .. }) => Err(Error::Task {
                    key: format!("rank {from}"),
                    message: "sent a block after this rank finished (do all ranks run the same program?)".into(),
                }),
                other => self.take(from, other, sink, observer),
            };
            if let Err(e) = taken
                && outcome.is_ok()
            {
                outcome = Err(e);
            }
        }
        outbox.finish();
        outcome
    }
}

/// The order in which a rank starts its ready tasks: urgent ones first (see
/// [`urgent_tasks`]), then by the graph's static order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ReadyKey {
    /// False first.
    not_urgent: bool,
    static_rank: u32,
    task: u32,
}

impl ReadyKey {
    fn of(graph: &TaskGraph, urgent: &[bool], t: usize) -> ReadyKey {
        ReadyKey { not_urgent: !urgent[t], static_rank: graph.rank(t), task: t as u32 }
    }
}

/// Per task, whether its rank starts it as soon as it is ready: it lies on a
/// path from a block received from another rank to a block another rank
/// reads. The static order is one process's: it finishes one subtree before
/// the next, so the cheap steps that carry a tree's result down to another
/// rank would wait behind this rank's own long tasks while that rank idles.
/// Tasks that no received block leads to (sources and what only they feed)
/// keep the static order, which bounds the memory they take: a rank does not
/// make every block another rank reads before using its own.
fn urgent_tasks(graph: &TaskGraph, owner: &[u32]) -> Vec<bool> {
    let n = graph.len();
    let mut after_remote = vec![false; n];
    for &t in graph.order() {
        let t = t as usize;
        after_remote[t] = graph.deps(t).iter().any(|&d| owner[d as usize] != owner[t] || after_remote[d as usize]);
    }
    let mut urgent = vec![false; n];
    for &t in graph.order().iter().rev() {
        let t = t as usize;
        urgent[t] =
            after_remote[t] && graph.consumers(t).iter().any(|&c| owner[c as usize] != owner[t] || urgent[c as usize]);
    }
    urgent
}

/// A task a worker ran.
struct Done {
    task: usize,
    worker: usize,
    block: Result<Block>,
    /// The block as bytes, when other ranks read it.
    encoded: Option<Result<Vec<u8>>>,
    start: u64,
    end: u64,
    input_bytes: usize,
}

/// Runs task `t` on a worker thread: its inputs from the store, the kernel, and
/// the block's encoding when it travels.
fn compute(
    graph: &TaskGraph,
    store: &BlockStore<'_>,
    destinations: &[Vec<u32>],
    t: usize,
    worker: usize,
    timing: bool,
    inputs: &mut Vec<Block>,
) -> Done {
    let (mut start, mut end) = (0, 0);
    inputs.clear();
    let gathered = graph.deps(t).iter().try_for_each(|&d| {
        inputs.push(store.input(d as usize, t)?);
        Ok(())
    });
    let block = gathered.and_then(|()| {
        let refs: Vec<&Block> = inputs.iter().collect();
        start = if timing { Clock::now() } else { 0 };
        let block = store.run_task(t, &refs);
        end = if timing { Clock::now() } else { 0 };
        block
    });
    let input_bytes = inputs.iter().map(|b| b.nbytes()).sum();
    inputs.clear();
    let encoded = match &block {
        Ok(b) if !destinations[t].is_empty() => Some(graph.encode_block(t, b)),
        _ => None,
    };
    Done { task: t, worker, block, encoded, start, end, input_bytes }
}

/// The next message of this run, waiting without spinning: MPI libraries
/// busy-poll inside blocking calls, which on a node with as many ranks as cores
/// takes a core from the ranks that still compute. Polls with a backoff from 10
/// µs up to 0.5 ms instead (the latency this adds is small against block tasks),
/// moving this rank's own sends on meanwhile.
///
/// With nothing to run, a rank that hears nothing for [`progress_timeout`]
/// ends the whole job (`MPI_Abort`, after printing which rank waited for
/// what): a rank stuck or gone would otherwise keep every other one waiting.
fn wait_for_message(
    comm: &SimpleCommunicator,
    tag: i32,
    outbox: &mut Outbox,
    me: usize,
    waiting: impl Fn() -> String,
) -> (usize, std::result::Result<Message, String>) {
    let mut pause = Duration::from_micros(10);
    let since = Instant::now();
    loop {
        if let Some(got) = receive(comm, tag) {
            return got;
        }
        if let Some(limit) = progress_timeout()
            && since.elapsed() >= limit
        {
            eprintln!(
                "chunked: rank {me} heard from no rank for {:.1} s while waiting for {} \
                 (CHUNKED_MPI_TIMEOUT); ending the MPI job",
                limit.as_secs_f64(),
                waiting()
            );
            // SAFETY: MPI is initialized for the whole run; MPI_Abort on the
            // world communicator ends every rank and does not return.
            unsafe { mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, 71) };
            std::process::exit(71);
        }
        outbox.progress();
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_micros(500));
    }
}
