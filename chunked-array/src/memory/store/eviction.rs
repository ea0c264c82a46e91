//! Making room: moving idle blocks down a tier (device to host, host to disk,
//! or dropping cheap sources' blocks) when memory is over its limit, and
//! retrying a task whose device allocation failed after moving blocks off it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{BlockStore, Slot, lock};
use crate::block::Block;
use crate::error::{Error, Result};
use crate::events::TierEventKind;
use chunked_gpu::Device;

impl<'g> BlockStore<'g> {
    /// Idle blocks on `device` (`None`: in host memory), least recently used first.
    fn idle_blocks(&self, device: Option<&Device>) -> Vec<usize> {
        let mut candidates: Vec<(u64, usize)> = Vec::new();
        for (t, m) in self.slots.iter().enumerate() {
            if let Ok(slot) = m.try_lock()
                && let Slot::Held { block, .. } = &*slot
                && match (block.device(), device) {
                    (None, None) => true,
                    (Some(on), Some(wanted)) => on.same(wanted),
                    _ => false,
                }
                && Arc::strong_count(block) == 1
                && block.nbytes() > 0
            {
                candidates.push((self.last_use[t].load(Ordering::Relaxed), t));
            }
        }
        candidates.sort_unstable();
        candidates.into_iter().map(|(_, t)| t).collect()
    }

    /// Moves least recently used idle blocks one tier down until each tier is
    /// under its limit's low-water mark, or nothing idle is left: device blocks
    /// to host memory, then host blocks to disk. One thread moves at a time.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig { memory_limit: 0, ..MemoryConfig::default() }, &NoObserver);
    /// # use chunked_array::custom::block_array;
    /// let twice = g.run_task(1, &[&g.run_task(0, &[])?])?;
    /// store.count(&twice);
    /// store.insert(1, twice); // the store holds the only reference: idle
    /// store.make_room()?; // over the limit: to disk
    /// assert_eq!((store.held(), store.stats().spilled), (0, 1));
    /// let back = store.input(1, 1)?; // read back from disk
    /// assert_eq!(block_array::<f64>(&back)?.sum(), 4.0);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::ResourcesExhausted`] when a block must spill and the disk tier
    /// is full (its cap) or unwritable, or when idle values that cannot spill
    /// (delayed values not `encoded()`) hold more than the limit by
    /// themselves; [`Error::Device`] when a copy from the device fails.
    pub fn make_room(&self) -> Result<()> {
        if self.held() <= self.limit && !self.device.over() {
            return Ok(());
        }
        let Ok(_one) = self.spilling.try_lock() else {
            return Ok(());
        };
        for memory in self.device.devices.iter().filter(|m| m.held.load(Ordering::Relaxed) > m.limit) {
            let Some(device) = &memory.device else { continue };
            self.demote_device_blocks(device, || memory.held.load(Ordering::Relaxed) <= memory.low_water)?;
        }
        if self.held() <= self.limit {
            return Ok(());
        }
        // Idle blocks that can neither spill nor be made again: the first
        // one's task, and their bytes.
        let mut stuck: (Option<usize>, usize) = (None, 0);
        for t in self.idle_blocks(None) {
            if self.held() <= self.low_water {
                break;
            }
            let mut slot = lock(&self.slots[t]);
            let Slot::Held { block, home } = &*slot else { continue };
            if Arc::strong_count(block) != 1 {
                continue; // a task took it meanwhile
            }
            let bytes = block.nbytes();
            if home.is_none() && self.graph.regenerates_cheaply(t) {
                let old = std::mem::replace(&mut *slot, Slot::Dropped);
                drop(slot);
                let Slot::Held { block, .. } = old else { unreachable!("matched above") };
                self.uncount(&block);
                self.dropped.fetch_add(1, Ordering::Relaxed);
                self.dropped_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
                self.report(t, TierEventKind::Drop, bytes);
                continue;
            }
            let used = self.disk.used.load(Ordering::Relaxed);
            if used.saturating_add(bytes as u64) > self.disk.limit {
                return Err(self.exhausted(bytes, format!("spill cap reached ({used} bytes on disk)")));
            }
            match self.disk.write(block) {
                Ok(Some(spilled)) => {
                    let block = std::mem::replace(&mut *slot, Slot::Empty);
                    let Slot::Held { block, home } = block else { unreachable!("matched above") };
                    *slot = Slot::Disk { spilled, home };
                    drop(slot);
                    self.uncount(&block);
                    self.spilled.fetch_add(1, Ordering::Relaxed);
                    self.spilled_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
                    self.report(t, TierEventKind::Spill, bytes);
                }
                Ok(None) => stuck = (stuck.0.or(Some(t)), stuck.1 + bytes),
                Err(e) => {
                    return Err(self.exhausted(bytes, format!("spill directory {}: {e}", self.disk.parent().display())));
                }
            }
        }
        match stuck {
            // Values that cannot leave memory hold more than the limit alone.
            (Some(t), bytes) if bytes > self.limit => Err(self.exhausted(
                bytes,
                format!(
                    "{bytes} bytes of idle values cannot spill, among them task {}'s (a delayed value spills once `encoded()`)",
                    self.graph.key(t)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Moves idle blocks of `device` to host memory, least recently used
    /// first, until `enough()` or none is idle; returns how many moved.
    fn demote_device_blocks(&self, device: &Device, enough: impl Fn() -> bool) -> Result<usize> {
        let mut moved = 0;
        for t in self.idle_blocks(Some(device)) {
            if enough() {
                break;
            }
            let mut slot = lock(&self.slots[t]);
            let Slot::Held { block, .. } = &*slot else { continue };
            if Arc::strong_count(block) != 1 {
                continue; // a task took it meanwhile
            }
            // Into page-locked memory, so that the copy down and the one
            // back up run at full speed; pageable memory when the driver
            // cannot pin more.
            let host = match crate::block::device::to_pinned_block(block) {
                Ok(pinned) => pinned,
                Err(_) => crate::block::device::to_host_block(block)?,
            };
            let pinned = host.is_pinned_copy();
            let bytes = block.nbytes();
            self.uncount(block);
            self.count(&host);
            *slot = Slot::Held { block: host, home: Some(device.clone()) };
            drop(slot);
            moved += 1;
            self.device.spilled.fetch_add(1, Ordering::Relaxed);
            if pinned {
                self.device.spilled_pinned.fetch_add(1, Ordering::Relaxed);
            }
            self.device.spilled_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
            self.report(t, TierEventKind::DeviceSpill, bytes);
        }
        Ok(moved)
    }

    /// Runs task `t` on `inputs` (as [`TaskGraph::run_task`](crate::graph::task::TaskGraph::run_task)). When its
    /// device runs out of memory (the device memory limit counts blocks
    /// between tasks, not what kernels allocate while they run), idle blocks
    /// of that device move to host memory until twice the allocation fits,
    /// and the task runs again, up to eight times; with nothing idle to move, it
    /// waits briefly for the other running tasks to free their memory.
    ///
    /// ```
    /// # use chunked_array::{custom::Layer, Array};
    /// # use chunked_array::runtime::{BlockStore, MemoryConfig, NoObserver};
    /// # fn main() -> chunked_array::Result<()> {
    /// let g = Layer::task_graph(&[(&Array::<f64>::ones(&[4], 2)? * 2.0).layer()])?;
    /// let store = BlockStore::new(&g, &MemoryConfig::default(), &NoObserver);
    /// let ones = store.run_task(0, &[])?;
    /// let twice = store.run_task(1, &[&ones])?;
    /// assert_eq!((ones.nbytes(), twice.nbytes()), (16, 16));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`TaskGraph::run_task`](crate::graph::task::TaskGraph::run_task); [`Error::Device`] when the device is still
    /// out of memory with nothing idle left to move.
    pub fn run_task(&self, t: usize, inputs: &[&Block]) -> Result<Block> {
        const RETRIES: usize = 8;
        let mut retries = 0;
        loop {
            match self.graph.run_task(t, inputs) {
                Err(e @ Error::Device(chunked_gpu::Error::OutOfMemory { requested, .. })) if retries < RETRIES => {
                    let Some(device) = self.graph.task_device(t) else {
                        return Err(e);
                    };
                    // Room for twice the request and a tenth of the device:
                    // tasks on other threads allocate meanwhile.
                    let room =
                        requested.saturating_mul(2).saturating_add(device.capacity() / 10).min(device.capacity());
                    let fits = || device.capacity().saturating_sub(device.in_use()) >= room;
                    let one = self.spilling.lock().unwrap_or_else(|p| p.into_inner());
                    if !fits() && self.demote_device_blocks(device, fits)? == 0 {
                        // Nothing idle to move: the memory in use belongs to
                        // tasks running on other threads, which free their
                        // workspace as they end. Wait for that (1, 2, 4, ...
                        // ms, 127 ms in all), unless the request can never fit.
                        if requested > device.capacity() || retries + 1 >= RETRIES {
                            return Err(e);
                        }
                        drop(one);
                        std::thread::sleep(std::time::Duration::from_millis(1 << retries));
                    }
                    retries += 1;
                }
                other => return other,
            }
        }
    }
}
