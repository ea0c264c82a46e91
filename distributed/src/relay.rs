//! The run's observer as a rank's run loop sees it: on ranks other than 0 it
//! also keeps the tier moves the block store reports, which go to rank 0
//! with the rank's next report.

use std::sync::Mutex;

use chunked_array::runtime::{RunObserver, TaskEvent, TaskGraph, TierEvent, TransferEvent};

/// The run's observer, and on ranks other than 0 a buffer of the tier moves
/// the block store reports, which go to rank 0 with the next report.
pub(crate) struct Relay<'o> {
    inner: &'o dyn RunObserver,
    tiers: Option<Mutex<Vec<TierEvent>>>,
}

impl<'o> Relay<'o> {
    /// Relays `inner`'s events; on a rank other than 0 also keeps the tier moves.
    pub fn new(inner: &'o dyn RunObserver, me: usize) -> Relay<'o> {
        Relay { inner, tiers: (me != 0).then(|| Mutex::new(Vec::new())) }
    }

    /// The tier moves kept since the last call.
    pub fn take_tiers(&self) -> Vec<TierEvent> {
        self.tiers
            .as_ref()
            .map(|t| std::mem::take(&mut *t.lock().unwrap_or_else(|p| p.into_inner())))
            .unwrap_or_default()
    }
}

impl RunObserver for Relay<'_> {
    fn wants_timing(&self) -> bool {
        self.inner.wants_timing()
    }
    fn run_started(&self, graph: &TaskGraph, workers: usize) {
        self.inner.run_started(graph, workers)
    }
    fn task_done(&self, event: &TaskEvent) {
        self.inner.task_done(event)
    }
    fn tier_event(&self, event: &TierEvent) {
        self.inner.tier_event(event);
        if let Some(tiers) = &self.tiers {
            tiers.lock().unwrap_or_else(|p| p.into_inner()).push(*event);
        }
    }
    fn remote_tasks(&self, rank: usize, events: &[TaskEvent]) {
        self.inner.remote_tasks(rank, events)
    }
    fn transfer(&self, event: &TransferEvent) {
        self.inner.transfer(event)
    }
    fn remote_tier_events(&self, rank: usize, events: &[TierEvent]) {
        self.inner.remote_tier_events(rank, events)
    }
    fn remote_transfers(&self, rank: usize, events: &[TransferEvent]) {
        self.inner.remote_transfers(rank, events)
    }
    fn run_finished(&self, graph: &TaskGraph) {
        self.inner.run_finished(graph)
    }
}
