//! What the profiler keeps of a run: task spans and tier moves, and the JSON
//! string quoting its exports share.

use crate::events::TierEventKind;

/// One task as the profiler saw it.
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
