//! The block store of a run: every block a task produced and a later task still
//! needs, counted in bytes, in device memory, host memory or spilled to disk.
//!
//! Tiers, top down: device, host, disk. Over the device memory limit, the least
//! recently used device blocks that no running task holds are copied to host
//! memory (and come back to their device when a task reads them). Over the
//! host memory limit, the least recently used blocks that no running task
//! holds are written to the disk tier and read back when a task needs them. A
//! spilled block whose file is missing or damaged is recomputed from its lineage
//! (its task, from its own inputs, recursively), so a lost file costs time, not
//! the result. Blocks of sources that are cheaper to make again than to write
//! and read back (random, constants, ranges: [`TaskGraph::regenerates_cheaply`])
//! are dropped instead of spilled and made again when read. Blocks that are
//! neither arrays of elements nor have a spill image stay in memory.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::block::Block;
use crate::error::{Error, Result};
use crate::events::{Clock, RunObserver, TierEvent, TierEventKind};
use crate::graph::task::TaskGraph;
use crate::memory::MemoryConfig;
use crate::memory::spill::{DiskTier, SpilledBlock};
use chunked_gpu::Device;

mod eviction;
mod lineage;

/// Where a task's block is.
enum Slot {
    /// Not computed yet, or released after its last consumer.
    Empty,
    /// In memory: a device block, or a host block; `home` is the device a host
    /// block was moved down from (it goes back there when read).
    Held {
        block: Block,
        home: Option<Device>,
    },
    Disk {
        spilled: SpilledBlock,
        home: Option<Device>,
    },
    /// Dropped over the memory limit: a cheap source's block, made again when read.
    Dropped,
}

/// What the store did, for [`crate::schedule::RunStats`].
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{Array, Context};
/// let x = Array::<f64>::ones(&[100], 10)?;
/// let (_, stats) = x.sum(None)?.compute_stats(&Context::sync())?;
/// assert!(stats.tiers.peak_bytes > 0);
/// assert_eq!(stats.tiers.spilled, 0); // far under the memory limit
/// # Ok(()) }
/// ```
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
    /// Blocks of cheap sources dropped instead of spilled.
    pub dropped: usize,
    /// Their bytes.
    pub dropped_bytes: u64,
    /// Dropped blocks made again for a task.
    pub regenerated: usize,
    /// Most bytes held in one device's memory at once.
    pub device_peak_bytes: usize,
    /// Device blocks moved to host memory (device memory limit reached).
    pub device_spilled: usize,
    /// Of those, the blocks held in page-locked (pinned) host memory; the
    /// others went to pageable memory, the driver pinning no more.
    pub device_spilled_pinned: usize,
    /// Their bytes.
    pub device_spilled_bytes: u64,
    /// Blocks moved back to their device.
    pub device_unspilled: usize,
    /// Their bytes.
    pub device_unspilled_bytes: u64,
}

/// The blocks of one run, counted against the memory limit, spilled to disk
/// past it (see the module notes). Every scheduler keeps its blocks here, the
/// MPI scheduler included (one store per rank, with the rank's own limits).
///
/// ```
/// # use chunked_array::{custom::Layer, Array};
/// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
/// # fn main() -> chunked_array::Result<()> {
/// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
/// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
/// # use chunked_array::custom::block_array;
/// // Task 0 makes a block of ones; task 1 (its only reader) doubles it.
/// let ones = store.run_task(0, &[])?;
/// store.count(&ones);
/// store.insert(0, ones);
/// let input = store.input(0, 1)?;
/// let twice = store.run_task(1, &[&input])?;
/// drop(input);
/// store.release(0); // its last reader ran
/// assert_eq!(block_array::<f64>(&twice)?.as_slice().unwrap(), &[2.0, 2.0]);
/// assert_eq!(store.held(), 0);
/// # Ok(()) }
/// ```
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
    device: DeviceTier,
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
    dropped: AtomicUsize,
    dropped_bytes: AtomicU64,
    regenerated: AtomicUsize,
}

/// One device's share of the device tier: its blocks' bytes against its limit.
struct DeviceMemory {
    /// `None`: blocks of devices the graph does not place layers on (counted,
    /// never over a limit).
    device: Option<Device>,
    held: AtomicUsize,
    peak: AtomicUsize,
    limit: usize,
    low_water: usize,
}

/// The device tier: each device's memory (a process may drive several, as
/// dask-cuda runs one worker per GPU), and what moved in and out of it.
struct DeviceTier {
    devices: Vec<DeviceMemory>,
    spilled: AtomicUsize,
    spilled_pinned: AtomicUsize,
    spilled_bytes: AtomicU64,
    unspilled: AtomicUsize,
    unspilled_bytes: AtomicU64,
}

impl DeviceTier {
    fn new(devices: Vec<Device>, memory: &MemoryConfig) -> DeviceTier {
        let memory_of = |device: Option<Device>| {
            let limit = device.as_ref().map_or(usize::MAX, |d| memory.device_limit_for(d));
            DeviceMemory {
                device,
                held: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
                limit,
                low_water: limit / 10 * 9,
            }
        };
        let mut all: Vec<DeviceMemory> = devices.into_iter().map(|d| memory_of(Some(d))).collect();
        all.push(memory_of(None));
        DeviceTier {
            devices: all,
            spilled: AtomicUsize::new(0),
            spilled_pinned: AtomicUsize::new(0),
            spilled_bytes: AtomicU64::new(0),
            unspilled: AtomicUsize::new(0),
            unspilled_bytes: AtomicU64::new(0),
        }
    }

    /// The share of the device holding `device`'s blocks.
    fn of(&self, device: &Device) -> &DeviceMemory {
        self.devices
            .iter()
            .find(|m| m.device.as_ref().is_some_and(|d| d.same(device)))
            .unwrap_or_else(|| self.devices.last().expect("the catch-all share"))
    }

    fn over(&self) -> bool {
        self.devices.iter().any(|m| m.held.load(Ordering::Relaxed) > m.limit)
    }
}

fn lock(m: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<'g> BlockStore<'g> {
    /// An empty store for the tasks of `graph`, reporting tier events to `observer`.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// assert_eq!(store.held(), 0);
    /// assert_eq!(store.limit(), MemoryConfig::default().memory_limit);
    /// # Ok(()) }
    /// ```
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
            device: DeviceTier::new(graph.devices(), memory),
            disk: DiskTier::new(memory.spill_dir.clone(), memory.rank, memory.spill_limit),
            spilling: Mutex::new(()),
            over: AtomicBool::new(false),
            spilled: AtomicUsize::new(0),
            spilled_bytes: AtomicU64::new(0),
            unspilled: AtomicUsize::new(0),
            unspilled_bytes: AtomicU64::new(0),
            recomputed: AtomicUsize::new(0),
            dropped: AtomicUsize::new(0),
            dropped_bytes: AtomicU64::new(0),
            regenerated: AtomicUsize::new(0),
        }
    }

    /// Bytes of blocks in host memory.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// let block = g.run_task(0, &[])?;
    /// store.count(&block);
    /// assert_eq!(store.held(), 16); // two f64
    /// # Ok(()) }
    /// ```
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Bytes of blocks held in device memory, over every device.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[4], 2)?.layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// store.count(&g.run_task(0, &[])?); // a host block
    /// assert_eq!((store.held(), store.device_held()), (16, 0));
    /// # Ok(()) }
    /// ```
    pub fn device_held(&self) -> usize {
        self.device.devices.iter().map(|m| m.held.load(Ordering::Relaxed)).sum()
    }

    /// Bytes of spilled blocks on disk.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[Array::<f64>::ones(&[4], 2)?.layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// assert_eq!(store.disk_held(), 0); // nothing spilled
    /// # Ok(()) }
    /// ```
    pub fn disk_held(&self) -> usize {
        self.disk.used.load(Ordering::Relaxed) as usize
    }

    /// The memory limit in bytes.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig { memory_limit: 1 << 20, ..MemoryConfig::default() }, &NoObserver);
    /// assert_eq!(store.limit(), 1 << 20);
    /// # Ok(()) }
    /// ```
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether host memory or a device's memory is past its limit
    /// (schedulers hold back sources then).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig { memory_limit: 8, ..MemoryConfig::default() }, &NoObserver);
    /// let block = g.run_task(0, &[])?; // 16 bytes
    /// store.count(&block);
    /// assert!(store.over_limit());
    /// store.uncount(&block);
    /// assert!(!store.over_limit());
    /// # Ok(()) }
    /// ```
    pub fn over_limit(&self) -> bool {
        self.over.load(Ordering::Relaxed) || self.device.over()
    }

    /// Counts a new block (also one that is only handed to the sink) in its tier.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// let block = g.run_task(0, &[])?;
    /// store.count(&block);
    /// assert_eq!(store.held(), block.nbytes());
    /// # Ok(()) }
    /// ```
    pub fn count(&self, block: &Block) {
        let bytes = block.nbytes();
        if let Some(device) = block.device() {
            let memory = self.device.of(device);
            let now = memory.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
            memory.peak.fetch_max(now, Ordering::Relaxed);
            return;
        }
        let now = self.held.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        if now > self.limit {
            self.over.store(true, Ordering::Relaxed);
        }
    }

    /// Uncounts a block dropped without being stored.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// let block = g.run_task(1, &[&g.run_task(0, &[])?])?;
    /// store.count(&block); // an output block, handed to the sink and then dropped
    /// store.uncount(&block);
    /// assert_eq!(store.held(), 0);
    /// # Ok(()) }
    /// ```
    pub fn uncount(&self, block: &Block) {
        let bytes = block.nbytes();
        if let Some(device) = block.device() {
            self.device.of(device).held.fetch_sub(bytes, Ordering::Relaxed);
            return;
        }
        let now = self.held.fetch_sub(bytes, Ordering::Relaxed) - bytes;
        if now <= self.limit {
            self.over.store(false, Ordering::Relaxed);
        }
    }

    /// Keeps task `t`'s block (already counted) for its consumers.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// let block = g.run_task(0, &[])?;
    /// store.count(&block);
    /// store.insert(0, block);
    /// assert_eq!(store.input(0, 1)?.nbytes(), 16); // task 1 reads it
    /// # Ok(()) }
    /// ```
    pub fn insert(&self, t: usize, block: Block) {
        self.touch(t);
        *lock(&self.slots[t]) = Slot::Held { block, home: None };
    }

    fn touch(&self, t: usize) {
        self.last_use[t].store(self.tick.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
    }

    /// Task `t`'s block for task `reader`: from memory, from disk (back into
    /// memory), or recomputed when its spill file is lost. A block moved down
    /// from a device goes back to it when the reader runs on the device (a
    /// reader that works on host copies takes the host block as it is).
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// # use chunked_array::custom::block_array;
    /// let block = g.run_task(0, &[])?;
    /// store.count(&block);
    /// store.insert(0, block);
    /// let input = store.input(0, 1)?; // for task 1
    /// assert_eq!(block_array::<f64>(&input)?.as_slice().unwrap(), &[1.0, 1.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Task`] when the block is neither held nor recomputable.
    pub fn input(&self, t: usize, reader: usize) -> Result<Block> {
        self.touch(t);
        let mut slot = lock(&self.slots[t]);
        // A block moved down from a device goes back up for a reader that runs
        // on that device; other readers take the host copy as it is.
        let goes_up = |home: &Option<Device>| {
            home.as_ref().is_some_and(|h| {
                self.graph.reads_on_device(reader) && self.graph.task_device(reader).is_some_and(|d| d.same(h))
            })
        };
        // A pinned copy read by a host kernel becomes a plain host array.
        let to_plain = |b: &Block| b.is_pinned_copy() && !self.graph.reads_on_device(reader);
        let (block, home) = match &mut *slot {
            Slot::Held { block, home } if !goes_up(home) && !to_plain(block) => return Ok(block.clone()),
            Slot::Held { block, home } => (block.clone(), home.take()),
            Slot::Disk { spilled, home } => {
                let (spilled, home) = (*spilled, home.take());
                let block = match self.disk.read(&spilled) {
                    Ok(b) => {
                        self.unspilled.fetch_add(1, Ordering::Relaxed);
                        self.unspilled_bytes.fetch_add(spilled.nbytes as u64, Ordering::Relaxed);
                        self.report(t, TierEventKind::Unspill, spilled.nbytes);
                        b
                    }
                    Err(_) => {
                        self.disk.forget(&spilled);
                        self.recompute(t, 0)?
                    }
                };
                self.count(&block);
                (block, home)
            }
            Slot::Dropped => {
                let block = self.regenerate(t, 0)?;
                self.count(&block);
                (block, None)
            }
            Slot::Empty => unreachable!("task {t}'s block is read before it was computed or after it was released"),
        };
        if let Some(device) = home.as_ref().filter(|_| goes_up(&home) && block.device().is_none())
            && let Ok(up) = crate::block::device::to_device_block(block.clone(), device)
            && up.device().is_some()
        {
            self.uncount(&block);
            self.count(&up);
            self.device.unspilled.fetch_add(1, Ordering::Relaxed);
            self.device.unspilled_bytes.fetch_add(up.nbytes() as u64, Ordering::Relaxed);
            self.report(t, TierEventKind::DeviceUnspill, up.nbytes());
            *slot = Slot::Held { block: up.clone(), home: None };
            return Ok(up);
        }
        // Once (host kernels read arrays): it stays so for its other readers.
        let block = if to_plain(&block) {
            let host = crate::block::device::to_host_block(&block)?;
            self.uncount(&block);
            self.count(&host);
            host
        } else {
            block
        };
        // On the host, still marked as its device's (a device that cannot take
        // it back now gets it later).
        *slot = Slot::Held { block: block.clone(), home };
        Ok(block)
    }

    /// Task `t`'s last consumer ran: its block goes.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// let block = g.run_task(0, &[])?;
    /// store.count(&block);
    /// store.insert(0, block);
    /// store.release(0);
    /// assert_eq!(store.held(), 0);
    /// # Ok(()) }
    /// ```
    pub fn release(&self, t: usize) {
        let old = std::mem::replace(&mut *lock(&self.slots[t]), Slot::Empty);
        match old {
            Slot::Held { block, .. } => self.uncount(&block),
            Slot::Disk { spilled, .. } => self.disk.forget(&spilled),
            Slot::Empty | Slot::Dropped => {}
        }
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
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// # use chunked_array::TierStats;
    /// assert_eq!(store.stats(), TierStats::default()); // nothing yet
    /// let block = g.run_task(0, &[])?;
    /// store.count(&block);
    /// assert_eq!(store.stats().peak_bytes, 16);
    /// # Ok(()) }
    /// ```
    pub fn stats(&self) -> TierStats {
        TierStats {
            peak_bytes: self.peak.load(Ordering::Relaxed),
            spilled: self.spilled.load(Ordering::Relaxed),
            spilled_bytes: self.spilled_bytes.load(Ordering::Relaxed),
            unspilled: self.unspilled.load(Ordering::Relaxed),
            unspilled_bytes: self.unspilled_bytes.load(Ordering::Relaxed),
            recomputed: self.recomputed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            dropped_bytes: self.dropped_bytes.load(Ordering::Relaxed),
            regenerated: self.regenerated.load(Ordering::Relaxed),
            device_peak_bytes: self.device.devices.iter().map(|m| m.peak.load(Ordering::Relaxed)).max().unwrap_or(0),
            device_spilled: self.device.spilled.load(Ordering::Relaxed),
            device_spilled_pinned: self.device.spilled_pinned.load(Ordering::Relaxed),
            device_spilled_bytes: self.device.spilled_bytes.load(Ordering::Relaxed),
            device_unspilled: self.device.unspilled.load(Ordering::Relaxed),
            device_unspilled_bytes: self.device.unspilled_bytes.load(Ordering::Relaxed),
        }
    }
}
