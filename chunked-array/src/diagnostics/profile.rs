//! The profiler: per-task spans and memory over time, kept across runs.

use std::sync::Mutex;
use std::time::Instant;

use crate::chunks::Chunks;
use crate::diagnostics::span::{Span, TierMark, json_string};
use crate::error::{Error, Result};
use crate::events::{Clock, Observer, RunInfo, RunObserver, TaskEvent, TierEvent};
use crate::graph::task::TaskGraph;

/// One record per task of the current run, set once (a task reported twice
/// keeps its first record) and read without a lock: no lock on the hot path,
/// and safe whatever order an observer's callers report and read in.
struct Slots(Box<[std::sync::OnceLock<Raw>]>);

/// A task as recorded in the hot path: numbers only; keys are made on export.
/// `end == 0` marks a slot whose task never ran (a failed run).
#[derive(Clone, Copy, Default)]
struct Raw {
    task: u32,
    worker: u32,
    rank: u32,
    start: u64,
    end: u64,
    input_bytes: usize,
    output_bytes: usize,
    held_bytes: usize,
}

/// A finished run: its tasks and how to name them and place them in time.
struct Run {
    layers: Vec<(String, String, Chunks)>,
    task_layer_block: Vec<(u32, usize)>,
    raws: Vec<Raw>,
    tier_events: Vec<TierEvent>,
    memory_limit: usize,
    /// The rank of the process that recorded it (its own tasks' rank).
    rank: usize,
    /// Clock ticks at the run's start, and seconds per tick.
    tick0: u64,
    t0: f64,
    seconds_per_tick: f64,
}

/// Records every task of the computations it observes.
///
/// ```
/// use chunked_array::{diagnostics::Profiler, Array, Context};
/// let profiler = Profiler::new();
/// let x = Array::<f64>::ones(&[100], 10).unwrap();
/// x.sum(None).unwrap().compute_on(&Context::default().with_profiler(&profiler)).unwrap();
/// let spans = profiler.spans();
/// assert_eq!(spans.len(), x.sum(None).unwrap().num_tasks());
/// assert!(profiler.chrome_trace().contains("\"traceEvents\""));
/// ```
#[derive(Clone)]
pub struct Profiler {
    inner: std::sync::Arc<Inner>,
}

struct Inner {
    created: Instant,
    limit: Mutex<Option<usize>>,
    runs: Mutex<Vec<Run>>,
}

impl Default for Profiler {
    fn default() -> Self {
        Self::new()
    }
}

impl Profiler {
    /// An empty profiler; its times count from now.
    ///
    /// ```
    /// use chunked_array::diagnostics::Profiler;
    /// let profiler = Profiler::new();
    /// assert!(profiler.spans().is_empty() && profiler.tier_marks().is_empty());
    /// ```
    pub fn new() -> Self {
        let inner = Inner { created: Instant::now(), limit: Mutex::new(None), runs: Mutex::new(Vec::new()) };
        Profiler { inner: std::sync::Arc::new(inner) }
    }

    /// Sets the memory limit drawn on the memory chart.
    ///
    /// ```
    /// use chunked_array::diagnostics::Profiler;
    /// let profiler = Profiler::new();
    /// profiler.set_memory_limit(Some(1 << 20));
    /// assert_eq!(profiler.memory_limit(), Some(1 << 20));
    /// ```
    pub fn set_memory_limit(&self, bytes: Option<usize>) {
        *self.inner.limit.lock().unwrap_or_else(|p| p.into_inner()) = bytes;
    }

    /// The memory limit drawn on the memory chart: the one set, else the
    /// smallest limit of the recorded runs.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// assert_eq!(profiler.memory_limit(), None); // nothing set or recorded
    /// let ctx = Context::sync().with_memory_limit(1 << 20).with_profiler(&profiler);
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&ctx)?;
    /// assert_eq!(profiler.memory_limit(), Some(1 << 20));
    /// # Ok(()) }
    /// ```
    pub fn memory_limit(&self) -> Option<usize> {
        let set = *self.inner.limit.lock().unwrap_or_else(|p| p.into_inner());
        set.or_else(|| self.inner.runs.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|r| r.memory_limit).min())
    }

    /// Every recorded move between tiers (spill, unspill, recompute, drop,
    /// regenerate, device moves), in time order.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{custom::Layer, diagnostics::Profiler, Array, Scheduler, SyncScheduler};
    /// use chunked_array::runtime::{Deliver, MemoryConfig, Observer, Run, RunInfo, TierEventKind};
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let profiler = Profiler::new();
    /// let recorder = profiler.observe(&RunInfo { graph: &g, label: "mul", rank: 0, memory_limit: 0, device_memory_limit: None, spill_limit: u64::MAX }).unwrap();
    /// // No room at all: each `ones` block is dropped, then made again for its reader.
    /// let memory = MemoryConfig { memory_limit: 0, ..MemoryConfig::default() };
    /// SyncScheduler.execute(&Run { graph: &g, deliver: Deliver::Result, sink: &|_, _| Ok(()), observer: &*recorder, memory: &memory })?;
    ///
    /// let marks = profiler.tier_marks();
    /// assert_eq!(marks.iter().filter(|m| m.kind == TierEventKind::Drop).count(), 2);
    /// assert_eq!(marks.iter().filter(|m| m.kind == TierEventKind::Regenerate).count(), 2);
    /// # Ok(()) }
    /// ```
    pub fn tier_marks(&self) -> Vec<TierMark> {
        let runs = self.inner.runs.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        let mut idx = Vec::new();
        for run in runs.iter() {
            for e in &run.tier_events {
                let (layer, block) = run.task_layer_block[e.task];
                let (label, _, chunks) = &run.layers[layer as usize];
                chunks.unravel_into(block, &mut idx);
                out.push(TierMark {
                    key: format!("('{label}', {idx:?})"),
                    kind: e.kind,
                    bytes: e.bytes,
                    time: run.t0 + e.at.saturating_sub(run.tick0) as f64 * run.seconds_per_tick,
                });
            }
        }
        out.sort_by(|a, b| a.time.total_cmp(&b.time));
        out
    }

    /// Every recorded task, runs in order, tasks by start time.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&Context::sync().with_profiler(&profiler))?;
    ///
    /// let spans = profiler.spans();
    /// assert_eq!(spans.len(), 3);
    /// assert!(spans.windows(2).all(|w| w[0].start <= w[1].start));
    /// # Ok(()) }
    /// ```
    pub fn spans(&self) -> Vec<Span> {
        let runs = self.inner.runs.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        for run in runs.iter() {
            let mut idx = Vec::new();
            let mut spans: Vec<Span> = run
                .raws
                .iter()
                .map(|r| {
                    let (layer, block) = run.task_layer_block[r.task as usize];
                    let (label, name, chunks) = &run.layers[layer as usize];
                    chunks.unravel_into(block, &mut idx);
                    let time = |tick: u64| run.t0 + tick.saturating_sub(run.tick0) as f64 * run.seconds_per_tick;
                    Span {
                        key: format!("('{label}', {idx:?})"),
                        layer: name.clone(),
                        worker: r.worker as usize,
                        rank: r.rank as usize,
                        start: time(r.start),
                        end: time(r.end),
                        input_bytes: r.input_bytes,
                        output_bytes: r.output_bytes,
                        held_bytes: r.held_bytes,
                    }
                })
                .collect();
            spans.sort_by(|a, b| a.start.total_cmp(&b.start));
            out.extend(spans);
        }
        out
    }

    /// The record as Chrome-trace JSON ("X" events per task, a "C" counter for
    /// memory), which Perfetto and chrome://tracing open.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&Context::sync().with_profiler(&profiler))?;
    ///
    /// let trace = profiler.chrome_trace();
    /// assert!(trace.starts_with("{\"traceEvents\":["));
    /// assert_eq!(trace.matches("\"ph\":\"X\"").count(), 3); // a span per task
    /// # Ok(()) }
    /// ```
    pub fn chrome_trace(&self) -> String {
        let spans = self.spans();
        let mut events = Vec::with_capacity(2 * spans.len() + 1);
        for s in &spans {
            events.push(format!(
                r#"{{"name":{},"cat":{},"ph":"X","ts":{:.3},"dur":{:.3},"pid":{},"tid":{},"args":{{"input_bytes":{},"output_bytes":{}}}}}"#,
                json_string(&s.key),
                json_string(&s.layer),
                s.start * 1e6,
                (s.end - s.start).max(0.0) * 1e6,
                s.rank,
                s.worker,
                s.input_bytes,
                s.output_bytes
            ));
            // One memory counter per rank (process), as Perfetto shows them.
            events.push(format!(
                r#"{{"name":"memory","ph":"C","ts":{:.3},"pid":{},"args":{{"held_bytes":{}}}}}"#,
                s.end * 1e6,
                s.rank,
                s.held_bytes
            ));
        }
        for m in self.tier_marks() {
            events.push(format!(
                r#"{{"name":"{}","cat":"memory tiers","ph":"i","s":"g","ts":{:.3},"pid":0,"tid":0,"args":{{"key":{},"bytes":{}}}}}"#,
                m.kind.name(),
                m.time * 1e6,
                json_string(&m.key),
                m.bytes
            ));
        }
        format!("{{\"traceEvents\":[{}],\"displayTimeUnit\":\"ms\"}}", events.join(","))
    }

    /// The record as one self-contained HTML page: a task stream (a row per
    /// worker, coloured by layer) and memory over time with the limit drawn.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&Context::sync().with_profiler(&profiler))?;
    ///
    /// let page = profiler.html_report("six ones");
    /// assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<title>six ones</title>"));
    /// # Ok(()) }
    /// ```
    pub fn html_report(&self, title: &str) -> String {
        crate::diagnostics::html::report(title, &self.spans(), &self.tier_marks(), self.memory_limit(), self.own_rank())
    }

    /// The rank of the process that recorded (0 when nothing was recorded).
    fn own_rank(&self) -> usize {
        self.inner.runs.lock().unwrap_or_else(|p| p.into_inner()).first().map_or(0, |r| r.rank)
    }

    /// Writes [`Profiler::html_report`] to `path`.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&Context::sync().with_profiler(&profiler))?;
    ///
    /// let path = std::env::temp_dir().join(format!("profile-example-{}.html", std::process::id()));
    /// profiler.write_html(&path, "six ones")?;
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), profiler.html_report("six ones"));
    /// std::fs::remove_file(&path).unwrap();
    /// assert!(profiler.write_html(std::path::Path::new("/no/such/dir/p.html"), "x").is_err());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the path when it cannot be written.
    pub fn write_html(&self, path: &std::path::Path, title: &str) -> Result<()> {
        std::fs::write(path, self.html_report(title))
            .map_err(|e| Error::invalid("path", path.display().to_string(), e.to_string()))
    }

    /// Writes [`Profiler::chrome_trace`] to `path`.
    ///
    /// ```
    /// # fn main() -> chunked_array::Result<()> {
    /// use chunked_array::{diagnostics::Profiler, Array, Context};
    /// let profiler = Profiler::new();
    /// Array::<f64>::ones(&[6], 2)?.compute_on(&Context::sync().with_profiler(&profiler))?;
    ///
    /// let path = std::env::temp_dir().join(format!("trace-example-{}.json", std::process::id()));
    /// profiler.write_chrome_trace(&path)?;
    /// assert_eq!(std::fs::read_to_string(&path).unwrap(), profiler.chrome_trace());
    /// std::fs::remove_file(&path).unwrap();
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the path when it cannot be written.
    pub fn write_chrome_trace(&self, path: &std::path::Path) -> Result<()> {
        std::fs::write(path, self.chrome_trace())
            .map_err(|e| Error::invalid("path", path.display().to_string(), e.to_string()))
    }
}

/// Each run gets its own recorder (runs may overlap), which hands the run to
/// the profiler when it finishes.
impl Observer for Profiler {
    fn observe<'a>(&'a self, run: &RunInfo<'_>) -> Option<Box<dyn RunObserver + 'a>> {
        Some(Box::new(Recorder {
            profiler: self.clone(),
            slots: Slots((0..run.graph.len()).map(|_| std::sync::OnceLock::new()).collect()),
            started: (Clock::now(), Instant::now()),
            tier_events: Mutex::new(Vec::new()),
            remote: Mutex::new(Vec::new()),
            memory_limit: run.memory_limit,
            rank: run.rank,
        }))
    }
}

/// Records one run; hands it to its profiler when the run finishes.
struct Recorder {
    profiler: Profiler,
    slots: Slots,
    /// Clock ticks and wall time when the run started.
    started: (u64, Instant),
    /// Rare (only under a memory limit), so a lock is fine.
    tier_events: Mutex<Vec<TierEvent>>,
    /// Other ranks' tasks (times in nanoseconds since their run started), a
    /// batch every 100 ms per rank.
    remote: Mutex<Vec<(usize, TaskEvent)>>,
    memory_limit: usize,
    rank: usize,
}

impl RunObserver for Recorder {
    fn wants_timing(&self) -> bool {
        true
    }

    #[inline]
    fn task_done(&self, e: &TaskEvent) {
        let raw = Raw {
            task: e.task as u32,
            worker: e.worker as u32,
            rank: self.rank as u32,
            start: e.start,
            end: e.end,
            input_bytes: e.input_bytes,
            output_bytes: e.output_bytes,
            held_bytes: e.held_bytes,
        };
        if let Some(slot) = self.slots.0.get(e.task) {
            let _ = slot.set(raw);
        }
    }

    fn tier_event(&self, event: &TierEvent) {
        self.tier_events.lock().unwrap_or_else(|p| p.into_inner()).push(*event);
    }

    fn remote_tasks(&self, rank: usize, events: &[TaskEvent]) {
        self.remote.lock().unwrap_or_else(|p| p.into_inner()).extend(events.iter().map(|e| (rank, *e)));
    }

    fn run_finished(&self, graph: &TaskGraph) {
        let (tick0, instant0) = self.started;
        let (tick1, instant1) = (Clock::now(), Instant::now());
        let seconds = instant1.duration_since(instant0).as_secs_f64();
        let seconds_per_tick = if tick1 > tick0 { seconds / (tick1 - tick0) as f64 } else { 0.0 };
        let mut raws: Vec<Raw> =
            self.slots.0.iter().filter_map(|slot| slot.get().copied()).filter(|r| r.end != 0).collect();
        // Other ranks' tasks: nanoseconds since their run started, placed on
        // this run's clock as if the runs started together (they start within
        // the skew of the ranks reaching the same compute call).
        let ticks = |ns: u64| {
            if seconds_per_tick > 0.0 { tick0 + (ns as f64 * 1e-9 / seconds_per_tick) as u64 } else { tick0 }
        };
        for (rank, e) in std::mem::take(&mut *self.remote.lock().unwrap_or_else(|p| p.into_inner())) {
            if e.end == 0 {
                continue; // taken without times
            }
            raws.push(Raw {
                task: e.task as u32,
                worker: e.worker as u32,
                rank: rank as u32,
                start: ticks(e.start),
                end: ticks(e.end).max(ticks(e.start) + 1),
                input_bytes: e.input_bytes,
                output_bytes: e.output_bytes,
                held_bytes: e.held_bytes,
            });
        }
        let run = Run {
            layers: graph.layers(),
            task_layer_block: (0..graph.len()).map(|t| graph.task_layer_block(t)).collect(),
            raws,
            tier_events: std::mem::take(&mut *self.tier_events.lock().unwrap_or_else(|p| p.into_inner())),
            memory_limit: self.memory_limit,
            rank: self.rank,
            tick0,
            t0: instant0.duration_since(self.profiler.inner.created).as_secs_f64(),
            seconds_per_tick,
        };
        self.profiler.inner.runs.lock().unwrap_or_else(|p| p.into_inner()).push(run);
    }
}
