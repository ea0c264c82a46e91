//! Diagnostics without a server: a progress bar on long computations, and a
//! profiler whose record exports as Chrome-trace JSON (Perfetto opens it) and as
//! one self-contained HTML page with a task stream and a memory chart, like the
//! dask dashboard.

mod html;
mod profile;
mod progress;

pub use profile::{Profiler, Span, TierMark};
pub(crate) use profile::Recorder;
pub use progress::Progress;
pub(crate) use progress::ProgressBar;

use crate::graph::task::TaskGraph;
use crate::schedule::{RunObserver, TaskEvent, TierEvent};

/// Several observers as one.
pub(crate) struct Observers<'a>(pub Vec<&'a dyn RunObserver>);

impl RunObserver for Observers<'_> {
    fn wants_timing(&self) -> bool {
        self.0.iter().any(|o| o.wants_timing())
    }
    fn run_started(&self, graph: &TaskGraph, workers: usize) {
        for o in &self.0 {
            o.run_started(graph, workers);
        }
    }
    #[inline]
    fn task_done(&self, event: &TaskEvent) {
        for o in &self.0 {
            o.task_done(event);
        }
    }
    fn tier_event(&self, event: &TierEvent) {
        for o in &self.0 {
            o.tier_event(event);
        }
    }
    fn remote_tasks(&self, rank: usize, events: &[TaskEvent]) {
        for o in &self.0 {
            o.remote_tasks(rank, events);
        }
    }
    fn run_finished(&self, graph: &TaskGraph) {
        for o in &self.0 {
            o.run_finished(graph);
        }
    }
}
