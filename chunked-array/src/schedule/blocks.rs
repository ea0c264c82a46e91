//! The block store of a run: every block a task produced and a later task still
//! needs, counted in bytes, in host memory or spilled to disk.
//!
//! Over the memory limit, the least recently used blocks that no running task
//! holds are written to the disk tier and read back when a task needs them. A
//! spilled block whose file is missing or damaged is recomputed from its lineage
//! (its task, from its own inputs, recursively), so a lost file costs time, not
//! the result. Blocks that are not arrays of elements (reduction partials,
//! factorizations) stay in memory.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::memory::MemoryConfig;
use super::spill::{DiskTier, SpilledBlock};
use super::{Clock, RunObserver, TierEvent, TierEventKind};
use crate::error::{Error, Result};
use crate::graph::task::TaskGraph;
use crate::graph::Block;

/// Where a task's block is.
enum Slot {
    /// Not computed yet, or released after its last consumer.
    Empty,
    Host(Block),
    Disk(SpilledBlock),
}

/// What the store did, for [`super::RunStats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TierStats {
    /// Most bytes held in memory at once.
    pub peak_bytes: usize,
    /// Blocks written to disk.
    pub spilled: usize,
    /// Their bytes.
    pub spilled_bytes: u64,
    /// Blocks read back.
    pub unspilled: usize,
    /// Their bytes.
    pub unspilled_bytes: u64,
    /// Tasks run again because their spilled block was lost or damaged.
    pub recomputed: usize,
}

/// The blocks of one run, counted against the memory limit, spilled to disk
/// past it (see the module notes). Every scheduler keeps its blocks here, the
/// MPI scheduler included (one store per rank, with the rank's own limits).
pub struct BlockStore<'g> {
    graph: &'g TaskGraph,
    observer: &'g dyn RunObserver,
    slots: Vec<Mutex<Slot>>,
    /// Per task, the tick of the last use of its block (least recently used first).
    last_use: Vec<AtomicU64>,
    tick: AtomicU64,
    held: AtomicUsize,
    peak: AtomicUsize,
    limit: usize,
    /// Spill down to this, so that spilling happens in batches.
    low_water: usize,
    disk: DiskTier,
    spilling: Mutex<()>,
    over: AtomicBool,
    spilled: AtomicUsize,
    spilled_bytes: AtomicU64,
    unspilled: AtomicUsize,
    unspilled_bytes: AtomicU64,
    recomputed: AtomicUsize,
}

fn lock(m: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<'g> BlockStore<'g> {
    /// An empty store for the tasks of `graph`, reporting tier events to `observer`.
    pub fn new(graph: &'g TaskGraph, memory: &MemoryConfig, observer: &'g dyn RunObserver) -> BlockStore<'g> {
        let n = graph.len();
        BlockStore {
            graph,
            observer,
            slots: (0..n).map(|_| Mutex::new(Slot::Empty)).collect(),
            last_use: (0..n).map(|_| AtomicU64::new(0)).collect(),
            tick: AtomicU64::new(1),
            held: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            limit: memory.memory_limit,
            low_water: memory.memory_limit / 10 * 9,
            disk: DiskTier::new(memory.spill_dir.clone(), memory.spill_limit),
            spilling: Mutex::new(()),
            over: AtomicBool::new(false),
            spilled: AtomicUsize::new(0),
            spilled_bytes: AtomicU64::new(0),
            unspilled: AtomicUsize::new(0),
            unspilled_bytes: AtomicU64::new(0),
            recomputed: AtomicUsize::new(0),
        }
    }

    /// Bytes of blocks in host memory.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// The memory limit in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether host memory is past the limit (schedulers hold back sources then).
    pub fn over_limit(&self) -> bool {
        self.over.load(Ordering::Relaxed)
    }

    /// Counts `bytes` of a new block (also one that is only handed to the sink).
    pub fn count(&self, bytes: usize) {
        let now = self.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        if now > self.limit {
            self.over.store(true, Ordering::Relaxed);
        }
    }

    /// Uncounts `bytes` of a block dropped without being stored.
    pub fn uncount(&self, bytes: usize) {
        let now = self.held.fetch_sub(bytes, Ordering::Relaxed) - bytes;
        if now <= self.limit {
            self.over.store(false, Ordering::Relaxed);
        }
    }

    /// Keeps task `t`'s block (already counted) for its consumers.
    pub fn insert(&self, t: usize, block: Block) {
        self.touch(t);
        *lock(&self.slots[t]) = Slot::Host(block);
    }

    fn touch(&self, t: usize) {
        self.last_use[t].store(self.tick.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Task `t`'s block for a consumer: from memory, from disk (back into
    /// memory), or recomputed when its spill file is lost.
    ///
    /// # Errors
    /// [`Error::Task`] when the block is neither held nor recomputable.
    pub fn input(&self, t: usize) -> Result<Block> {
        self.touch(t);
        let mut slot = lock(&self.slots[t]);
        match &*slot {
            Slot::Host(b) => Ok(b.clone()),
            Slot::Disk(spilled) => {
                let block = match self.disk.read(spilled) {
                    Ok(b) => {
                        self.unspilled.fetch_add(1, Ordering::Relaxed);
                        self.unspilled_bytes.fetch_add(spilled.nbytes as u64, Ordering::Relaxed);
                        self.report(t, TierEventKind::Unspill, spilled.nbytes);
                        b
                    }
                    Err(_) => {
                        self.disk.forget(spilled);
                        self.recompute(t)?
                    }
                };
                self.count(block.nbytes());
                *slot = Slot::Host(block.clone());
                Ok(block)
            }
            Slot::Empty => unreachable!("task {t}'s block is read before it was computed or after it was released"),
        }
    }

    /// Runs task `t` again from its inputs, recomputing those that were
    /// released or lost too (lineage).
    fn recompute(&self, t: usize) -> Result<Block> {
        let mut inputs = Vec::with_capacity(self.graph.deps(t).len());
        for &d in self.graph.deps(t) {
            let d = d as usize;
            let held = {
                let slot = lock(&self.slots[d]);
                match &*slot {
                    Slot::Host(b) => Some(b.clone()),
                    _ => None,
                }
            };
            inputs.push(match held {
                Some(b) => b,
                None => self.read_or_recompute(d)?,
            });
        }
        let refs: Vec<&Block> = inputs.iter().collect();
        let block = self.graph.run_task(t, &refs)?;
        self.recomputed.fetch_add(1, Ordering::Relaxed);
        self.report(t, TierEventKind::Recompute, block.nbytes());
        Ok(block)
    }

    /// A block for a recomputation, without keeping it: from disk if spilled
    /// (its record stays for its own consumers), else recomputed.
    fn read_or_recompute(&self, d: usize) -> Result<Block> {
        let spilled = match &*lock(&self.slots[d]) {
            Slot::Disk(s) => Some(*s),
            _ => None,
        };
        if let Some(s) = spilled
            && let Ok(b) = self.disk.peek(&s)
        {
            return Ok(b);
        }
        self.recompute(d)
    }

    /// Task `t`'s last consumer ran: its block goes.
    pub fn release(&self, t: usize) {
        let old = std::mem::replace(&mut *lock(&self.slots[t]), Slot::Empty);
        match old {
            Slot::Host(b) => self.uncount(b.nbytes()),
            Slot::Disk(s) => self.disk.forget(&s),
            Slot::Empty => {}
        }
    }

    /// Spills least recently used idle blocks until memory is under the limit's
    /// low-water mark, or nothing idle is left. One thread spills at a time.
    ///
    /// # Errors
    /// [`Error::ResourcesExhausted`] when a block must spill and the disk tier
    /// is full (its cap) or unwritable.
    pub fn make_room(&self) -> Result<()> {
        if self.held() <= self.limit {
            return Ok(());
        }
        let Ok(_one) = self.spilling.try_lock() else { return Ok(()) };
        let mut candidates: Vec<(u64, usize)> = Vec::new();
        for (t, m) in self.slots.iter().enumerate() {
            if let Ok(slot) = m.try_lock()
                && let Slot::Host(b) = &*slot
                && Arc::strong_count(b) == 1
                && b.nbytes() > 0
            {
                candidates.push((self.last_use[t].load(Ordering::Relaxed), t));
            }
        }
        candidates.sort_unstable();
        for (_, t) in candidates {
            if self.held() <= self.low_water {
                break;
            }
            let mut slot = lock(&self.slots[t]);
            let Slot::Host(b) = &*slot else { continue };
            if Arc::strong_count(b) != 1 {
                continue; // a task took it meanwhile
            }
            let bytes = b.nbytes();
            let used = self.disk.used.load(Ordering::Relaxed);
            if used.saturating_add(bytes as u64) > self.disk.limit {
                return Err(self.exhausted(bytes, format!("spill cap reached ({used} bytes on disk)")));
            }
            match self.disk.write(b) {
                Ok(Some(spilled)) => {
                    *slot = Slot::Disk(spilled);
                    drop(slot);
                    self.uncount(bytes);
                    self.spilled.fetch_add(1, Ordering::Relaxed);
                    self.spilled_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
                    self.report(t, TierEventKind::Spill, bytes);
                }
                Ok(None) => {}
                Err(e) => return Err(self.exhausted(bytes, format!("spill directory {}: {e}", self.disk.parent().display()))),
            }
        }
        Ok(())
    }

    fn report(&self, task: usize, kind: TierEventKind, bytes: usize) {
        self.observer.tier_event(&TierEvent { task, kind, bytes, at: Clock::now() });
    }

    fn exhausted(&self, requested: usize, detail: String) -> Error {
        Error::ResourcesExhausted {
            tier: "host memory and disk".into(),
            requested: requested as u64,
            limit: self.limit as u64,
            detail: format!("memory limit {} bytes reached, {} bytes held; {detail}", self.limit, self.held()),
        }
    }

    /// What the store did so far.
    pub fn stats(&self) -> TierStats {
        TierStats {
            peak_bytes: self.peak.load(Ordering::Relaxed),
            spilled: self.spilled.load(Ordering::Relaxed),
            spilled_bytes: self.spilled_bytes.load(Ordering::Relaxed),
            unspilled: self.unspilled.load(Ordering::Relaxed),
            unspilled_bytes: self.unspilled_bytes.load(Ordering::Relaxed),
            recomputed: self.recomputed.load(Ordering::Relaxed),
        }
    }
}
