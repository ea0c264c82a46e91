//! What the dashboard knows: the recent runs (their layers, progress and
//! graph collapsed per layer), a bounded history of task spans, memory per
//! rank and tier, tier moves and transfers between ranks. The publisher folds
//! each tick's [`Batch`] in and sends it to the browsers as a delta; a browser
//! that connects gets the whole state as a snapshot first.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write;

use crate::diagnostics::span::json_string;
use crate::events::TierEventKind;

/// Task spans kept for the task stream (over all recent runs).
pub(crate) const MAX_SPANS: usize = 100_000;
/// Runs kept (the current one and those before it).
const MAX_RUNS: usize = 16;
/// Tier moves and transfers kept, each.
const MAX_MARKS: usize = 5_000;
/// Memory samples kept (one per rank per tick while tasks finish).
const MAX_MEMORY_POINTS: usize = 20_000;

/// The layer colours of the dashboard's page: the first layer name it sees
/// gets the first colour, the next new name the next, and so on round.
///
/// ```
/// use chunked_array::diagnostics::LAYER_COLOURS;
/// assert_eq!(LAYER_COLOURS[0], "#1f77b4");
/// ```
pub const PALETTE: [&str; 12] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#393b79",
    "#637939", "#843c39",
];

/// How a tier move is named on the page (dask's task names for the disk
/// tier: `disk-write`, `disk-read`).
pub(crate) fn tier_name(kind: TierEventKind) -> &'static str {
    match kind {
        TierEventKind::Spill => "disk-write",
        TierEventKind::Unspill => "disk-read",
        TierEventKind::Recompute => "recompute",
        TierEventKind::Drop => "drop",
        TierEventKind::Regenerate => "regenerate",
        TierEventKind::DeviceSpill => "device->host",
        TierEventKind::DeviceUnspill => "host->device",
    }
}

/// A finished task, its times in seconds since the dashboard started.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpanRec {
    pub run: u64,
    pub rank: u32,
    pub worker: u32,
    /// The layer's number within its run.
    pub layer: u32,
    pub task: u32,
    pub start: f64,
    pub end: f64,
}

/// Bytes one rank holds in each tier at a time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MemoryPoint {
    pub time: f64,
    pub rank: u32,
    pub host: usize,
    pub device: usize,
    pub disk: usize,
}

/// A block that moved between tiers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TierMark {
    pub time: f64,
    pub run: u64,
    pub rank: u32,
    pub kind: TierEventKind,
    pub bytes: usize,
}

/// A block sent between ranks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transfer {
    pub time: f64,
    pub from: u32,
    pub to: u32,
    pub bytes: usize,
}

/// What a run is: its layers, the edges between them, its limits.
#[derive(Clone, Debug)]
pub(crate) struct RunHeader {
    pub id: u64,
    pub label: String,
    pub started: f64,
    pub tasks: usize,
    /// Per layer: label (`sum-12`), name (`sum`), blocks (tasks) in this run.
    pub layers: Vec<(String, String, usize)>,
    /// Layer `a` feeds layer `b`.
    pub edges: Vec<(u32, u32)>,
    pub host_limit: usize,
    pub device_limit: Option<usize>,
    pub disk_limit: u64,
}

/// One publisher tick's news.
#[derive(Default, Debug)]
pub(crate) struct Batch {
    pub begun: Vec<RunHeader>,
    pub spans: Vec<SpanRec>,
    pub memory: Vec<MemoryPoint>,
    pub marks: Vec<TierMark>,
    pub transfers: Vec<Transfer>,
    /// Runs that ended, and when.
    pub finished: Vec<(u64, f64)>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.begun.is_empty()
            && self.spans.is_empty()
            && self.memory.is_empty()
            && self.marks.is_empty()
            && self.transfers.is_empty()
            && self.finished.is_empty()
    }
}

struct RunView {
    header: RunHeader,
    colours: Vec<usize>,
    done: Vec<usize>,
    tasks_done: usize,
    finished: Option<f64>,
}

/// The dashboard's whole record.
#[derive(Default)]
pub(crate) struct State {
    seq: u64,
    colours: HashMap<String, usize>,
    runs: VecDeque<RunView>,
    spans: VecDeque<SpanRec>,
    memory: VecDeque<MemoryPoint>,
    marks: VecDeque<TierMark>,
    tier_totals: [(u64, u64); 7],
    transfers: VecDeque<Transfer>,
    transfer_totals: BTreeMap<(u32, u32), u64>,
}

fn push_bounded<T>(queue: &mut VecDeque<T>, items: impl IntoIterator<Item = T>, cap: usize) {
    queue.extend(items);
    let excess = queue.len().saturating_sub(cap);
    queue.drain(..excess);
}

impl State {
    /// Folds `batch` in; returns the runs whose progress it moved.
    pub fn apply(&mut self, batch: &Batch) -> Vec<u64> {
        self.seq += 1;
        for header in &batch.begun {
            // New names take colours in the order data flows: sources first.
            let mut colours = vec![0; header.layers.len()];
            for l in flow_order(header) {
                let next = self.colours.len();
                colours[l] = *self.colours.entry(header.layers[l].1.clone()).or_insert(next) % PALETTE.len();
            }
            let done = vec![0; header.layers.len()];
            self.runs.push_back(RunView { header: header.clone(), colours, done, tasks_done: 0, finished: None });
            if self.runs.len() > MAX_RUNS {
                self.runs.pop_front();
            }
        }
        let mut moved = Vec::new();
        for s in &batch.spans {
            if let Some(run) = self.runs.iter_mut().find(|r| r.header.id == s.run) {
                if let Some(d) = run.done.get_mut(s.layer as usize) {
                    *d += 1;
                }
                run.tasks_done += 1;
                if !moved.contains(&s.run) {
                    moved.push(s.run);
                }
            }
        }
        for &(id, at) in &batch.finished {
            if let Some(run) = self.runs.iter_mut().find(|r| r.header.id == id) {
                run.finished = Some(at);
            }
            if !moved.contains(&id) {
                moved.push(id);
            }
        }
        for m in &batch.marks {
            let i = m.kind.index();
            self.tier_totals[i].0 += 1;
            self.tier_totals[i].1 += m.bytes as u64;
        }
        for t in &batch.transfers {
            *self.transfer_totals.entry((t.from, t.to)).or_default() += t.bytes as u64;
        }
        push_bounded(&mut self.spans, batch.spans.iter().copied(), MAX_SPANS);
        push_bounded(&mut self.memory, batch.memory.iter().copied(), MAX_MEMORY_POINTS);
        push_bounded(&mut self.marks, batch.marks.iter().copied(), MAX_MARKS);
        push_bounded(&mut self.transfers, batch.transfers.iter().copied(), MAX_MARKS);
        moved
    }

    /// Everything, as the `snapshot` event and `/state.json` send it.
    pub fn snapshot_json(&self, now: f64) -> String {
        let mut out = String::with_capacity(64 * self.spans.len() + 4096);
        let palette: Vec<String> = PALETTE.iter().map(|c| json_string(c)).collect();
        let _ = write!(
            out,
            "{{\"kind\":\"snapshot\",\"seq\":{},\"now\":{now:.6},\"palette\":[{}],",
            self.seq,
            palette.join(",")
        );
        out.push_str("\"runs\":[");
        for (i, run) in self.runs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            run_json(&mut out, run);
        }
        out.push_str("],");
        self.common_json(&mut out, self.spans.iter(), self.memory.iter(), self.marks.iter(), self.transfers.iter());
        out.push('}');
        out
    }

    /// The news of `batch` (already applied), with the progress of the runs
    /// in `moved`, as the `delta` event sends it.
    pub fn delta_json(&self, batch: &Batch, moved: &[u64], now: f64) -> String {
        let mut out = String::with_capacity(64 * batch.spans.len() + 1024);
        let _ = write!(out, "{{\"kind\":\"delta\",\"seq\":{},\"now\":{now:.6},\"runs\":[", self.seq);
        let begun: Vec<u64> = batch.begun.iter().map(|h| h.id).collect();
        let mut first = true;
        for run in self.runs.iter().filter(|r| begun.contains(&r.header.id)) {
            if !first {
                out.push(',');
            }
            first = false;
            run_json(&mut out, run);
        }
        out.push_str("],\"progress\":[");
        let mut first = true;
        for run in self.runs.iter().filter(|r| moved.contains(&r.header.id)) {
            if !first {
                out.push(',');
            }
            first = false;
            let _ = write!(
                out,
                "{{\"id\":{},\"tasks_done\":{},\"done\":{:?},\"finished\":",
                run.header.id, run.tasks_done, run.done
            );
            option_json(&mut out, run.finished);
            out.push('}');
        }
        out.push_str("],");
        self.common_json(&mut out, batch.spans.iter(), batch.memory.iter(), batch.marks.iter(), batch.transfers.iter());
        out.push('}');
        out
    }

    fn common_json<'a>(
        &self,
        out: &mut String,
        spans: impl Iterator<Item = &'a SpanRec>,
        memory: impl Iterator<Item = &'a MemoryPoint>,
        marks: impl Iterator<Item = &'a TierMark>,
        transfers: impl Iterator<Item = &'a Transfer>,
    ) {
        out.push_str("\"spans\":[");
        for (i, s) in spans.enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(
                out,
                "{comma}[{},{},{},{},{},{:.6},{:.6}]",
                s.run, s.rank, s.worker, s.layer, s.task, s.start, s.end
            );
        }
        out.push_str("],\"memory\":[");
        for (i, m) in memory.enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(out, "{comma}[{:.6},{},{},{},{}]", m.time, m.rank, m.host, m.device, m.disk);
        }
        out.push_str("],\"marks\":[");
        for (i, m) in marks.enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(out, "{comma}[{:.6},{},{},\"{}\",{}]", m.time, m.run, m.rank, tier_name(m.kind), m.bytes);
        }
        out.push_str("],\"transfers\":[");
        for (i, t) in transfers.enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(out, "{comma}[{:.6},{},{},{}]", t.time, t.from, t.to, t.bytes);
        }
        out.push_str("],\"tier_totals\":{");
        for (i, (kind, (count, bytes))) in TierEventKind::ALL.iter().zip(&self.tier_totals).enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(out, "{comma}\"{}\":[{count},{bytes}]", tier_name(*kind));
        }
        out.push_str("},\"transfer_totals\":[");
        for (i, ((from, to), bytes)) in self.transfer_totals.iter().enumerate() {
            let comma = if i > 0 { "," } else { "" };
            let _ = write!(out, "{comma}[{from},{to},{bytes}]");
        }
        out.push(']');
    }
}

/// The layers of a run by their depth from its sources (longest path), then
/// by number.
fn flow_order(header: &RunHeader) -> Vec<usize> {
    let n = header.layers.len();
    let mut depth = vec![0usize; n];
    // Edges are few (a handful per layer): relax them until nothing moves,
    // at most once per layer.
    for _ in 0..n {
        let mut moved = false;
        for &(a, b) in &header.edges {
            let (a, b) = (a as usize, b as usize);
            if a < n && b < n && depth[b] < depth[a] + 1 {
                depth[b] = depth[a] + 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&l| (depth[l], l));
    order
}

fn option_json(out: &mut String, value: Option<f64>) {
    match value {
        Some(v) => {
            let _ = write!(out, "{v:.6}");
        }
        None => out.push_str("null"),
    }
}

fn run_json(out: &mut String, run: &RunView) {
    let h = &run.header;
    let _ =
        write!(out, "{{\"id\":{},\"label\":{},\"started\":{:.6},\"finished\":", h.id, json_string(&h.label), h.started);
    option_json(out, run.finished);
    let _ = write!(
        out,
        ",\"tasks\":{},\"tasks_done\":{},\"host_limit\":{},\"device_limit\":",
        h.tasks, run.tasks_done, h.host_limit
    );
    match h.device_limit {
        Some(v) => {
            let _ = write!(out, "{v}");
        }
        None => out.push_str("null"),
    }
    out.push_str(",\"disk_limit\":");
    if h.disk_limit == u64::MAX {
        out.push_str("null");
    } else {
        let _ = write!(out, "{}", h.disk_limit);
    }
    out.push_str(",\"layers\":[");
    for (i, (label, name, blocks)) in h.layers.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(
            out,
            "{comma}{{\"label\":{},\"name\":{},\"blocks\":{blocks},\"done\":{},\"colour\":{}}}",
            json_string(label),
            json_string(name),
            run.done[i],
            run.colours[i]
        );
    }
    let edges: Vec<[u32; 2]> = h.edges.iter().map(|&(a, b)| [a, b]).collect();
    let _ = write!(out, "],\"edges\":{edges:?}}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(id: u64) -> RunHeader {
        RunHeader {
            id,
            label: "sum-\"1\"".into(),
            started: 0.5,
            tasks: 3,
            layers: vec![("ones-1".into(), "ones".into(), 2), ("sum-1".into(), "sum".into(), 1)],
            edges: vec![(0, 1)],
            host_limit: 100,
            device_limit: None,
            disk_limit: u64::MAX,
        }
    }

    fn span(run: u64, layer: u32, task: u32) -> SpanRec {
        SpanRec { run, rank: 0, worker: 1, layer, task, start: 1.0, end: 1.5 }
    }

    #[test]
    fn progress_counts_spans_per_layer_and_bounds_history() {
        let mut state = State::default();
        let batch = Batch { begun: vec![header(1)], spans: vec![span(1, 0, 0), span(1, 0, 1)], ..Batch::default() };
        assert_eq!(state.apply(&batch), vec![1]);
        let finished = Batch { spans: vec![span(1, 1, 2)], finished: vec![(1, 2.0)], ..Batch::default() };
        state.apply(&finished);
        let run = &state.runs[0];
        assert_eq!((run.done.clone(), run.tasks_done, run.finished), (vec![2, 1], 3, Some(2.0)));
        let many = Batch { spans: (0..MAX_SPANS as u32 + 10).map(|t| span(9, 0, t)).collect(), ..Batch::default() };
        state.apply(&many);
        assert_eq!(state.spans.len(), MAX_SPANS);
        assert_eq!(state.spans[0].task, 10); // the oldest went first
    }

    #[test]
    fn snapshot_and_delta_are_json() {
        let mut state = State::default();
        let batch = Batch {
            begun: vec![header(4)],
            spans: vec![span(4, 0, 0)],
            marks: vec![TierMark { time: 1.0, run: 4, rank: 0, kind: TierEventKind::Spill, bytes: 8 }],
            transfers: vec![Transfer { time: 1.0, from: 1, to: 0, bytes: 80 }],
            ..Batch::default()
        };
        let moved = state.apply(&batch);
        let delta = state.delta_json(&batch, &moved, 1.25);
        let snapshot = state.snapshot_json(1.25);
        #[cfg(feature = "zarr")]
        for text in [&delta, &snapshot] {
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(v["runs"][0]["label"], "sum-\"1\"");
            assert_eq!(v["tier_totals"]["disk-write"], serde_json::json!([1, 8]));
            assert_eq!(v["transfer_totals"], serde_json::json!([[1, 0, 80]]));
            assert_eq!(v["spans"][0], serde_json::json!([4, 0, 1, 0, 0, 1.0, 1.5]));
        }
        assert!(delta.contains("\"progress\":[{\"id\":4,\"tasks_done\":1,\"done\":[1, 0],\"finished\":null}]"));
        assert!(snapshot.starts_with("{\"kind\":\"snapshot\""));
    }
}
