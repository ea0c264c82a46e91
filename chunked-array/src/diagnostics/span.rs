//! What the profiler keeps of a run: task spans and tier moves, and the JSON
//! string quoting its exports share.

use crate::events::TierEventKind;

/// One task as the profiler saw it.
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{diagnostics::Profiler, Array, Context};
/// let profiler = Profiler::new();
/// Array::<f64>::ones(&[6], 2)?.compute_on(&Context::sync().with_profiler(&profiler))?;
///
/// let spans = profiler.spans();
/// assert_eq!(spans.len(), 3);
/// assert!(spans.iter().all(|s| s.layer == "ones" && s.output_bytes == 16 && s.end >= s.start));
/// assert!(spans[0].key.starts_with("('ones-"));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The task key, e.g. `('add-12', [0, 3])`.
    pub key: String,
    /// The layer's name (`add`), which colours the task stream.
    pub layer: String,
    /// Worker thread that ran it (numbered within its rank).
    pub worker: usize,
    /// The rank (MPI process) that ran it: 0 in a one-process run. A profiler
    /// on rank 0 of an MPI run records every rank's tasks; one on another rank
    /// records that rank's own.
    pub rank: usize,
    /// Start, in seconds since the profiler was created.
    pub start: f64,
    /// End, in seconds since the profiler was created.
    pub end: f64,
    /// Bytes read.
    pub input_bytes: usize,
    /// Bytes produced.
    pub output_bytes: usize,
    /// Bytes held in blocks after the task.
    pub held_bytes: usize,
}

/// A block moving between memory tiers, as the profiler saw it.
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
/// assert_eq!(marks.len(), 4);
/// assert!(marks.iter().all(|m| m.bytes == 16 && m.key.starts_with("('ones-")));
/// assert!(marks.windows(2).all(|w| w[0].time <= w[1].time));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TierMark {
    /// The key of the task whose block moved.
    pub key: String,
    /// Spill, unspill, recompute, drop or regenerate (or a device move).
    pub kind: TierEventKind,
    /// Bytes of the block.
    pub bytes: usize,
    /// When, in seconds since the profiler was created.
    pub time: f64,
}

/// `s` as a JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
