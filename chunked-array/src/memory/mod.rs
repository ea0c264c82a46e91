//! Memory limits of a run: how many bytes of blocks the host tier may hold, where
//! blocks spill to past that, and how much the disk tier may take.
//!
//! Tiers, top down: device memory (arrays placed on a device, see
//! [`crate::device`]), host memory, then disk (the `spill` module). Each tier
//! moves its least recently used idle blocks one tier down past its limit.

pub(crate) mod spill;
mod spill_dir;
pub(crate) mod store;

pub use store::{BlockStore, TierStats};

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::graph::task::TaskGraph;

/// Memory limits, set on a [`Context`](crate::exec::Context).
///
/// ```
/// use chunked_array::{random::RandomState, Array, Context, RechunkOptions};
/// let ctx = Context::threads(2).with_memory_limit(2 << 20); // 2 MiB of blocks
/// let x: Array<f64> = RandomState::new(0).uniform(&[1000, 1000], [1000, 50]).unwrap();
/// let x = &x * 2.0; // 8 MB of data in tall blocks
/// let wide = x.rechunk_with([50, 1000], &RechunkOptions { block_size_limit: 1 << 20 }).unwrap();
/// let (sum, stats) = wide.sum(None).unwrap().compute_stats(&ctx).unwrap();
/// assert!((sum[[]] / 1e6 - 1.0).abs() < 1e-2);
/// assert!(stats.tiers.spilled > 0 && stats.tiers.peak_bytes < 4 << 20, "{stats:?}");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryConfig {
    /// Bytes of blocks the host tier may hold before the least recently used idle
    /// ones spill to disk. Default: 80% of physical memory.
    pub memory_limit: usize,
    /// Where spilled blocks go (each run makes and removes its own directory
    /// inside). Default: the system's temporary directory.
    pub spill_dir: PathBuf,
    /// The rank of the process whose runs these are: 0 in one process, set by
    /// the MPI scheduler to its own. Spill directories carry it with the host
    /// name and process id, so ranks sharing a spill directory never collide.
    pub rank: usize,
    /// Bytes the disk tier may hold at once; past it a run fails with
    /// [`crate::Error::ResourcesExhausted`]. Default: no cap.
    pub spill_limit: u64,
    /// Bytes of blocks the device tier may hold before the least recently used
    /// idle ones move to host memory, per device. `None` (the default): 80% of
    /// each device's memory, as dask-cuda's default.
    pub device_memory_limit: Option<usize>,
    /// Bytes of each device's memory kept in its pool for reuse once freed
    /// ([`chunked_gpu::Device::reserve_pool`]), reserved when a run on the
    /// device starts. `None` (the default): the driver's own pool, which hands
    /// freed memory back at each synchronization.
    pub device_pool: Option<usize>,
}

impl MemoryConfig {
    /// The device tier's limit on `device`: the configured one, else 80% of
    /// the device's memory.
    ///
    /// ```
    /// use chunked_array::{device::Device, runtime::MemoryConfig};
    /// let dev = Device::emulated(1000);
    /// assert_eq!(MemoryConfig::default().device_limit_for(&dev), 800); // 80%
    /// let set = MemoryConfig { device_memory_limit: Some(500), ..MemoryConfig::default() };
    /// assert_eq!(set.device_limit_for(&dev), 500);
    /// ```
    pub fn device_limit_for(&self, device: &chunked_gpu::Device) -> usize {
        self.device_memory_limit.unwrap_or(device.capacity() / 5 * 4)
    }
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            memory_limit: physical_memory().map_or(usize::MAX, |m| (m / 5 * 4) as usize),
            spill_dir: std::env::temp_dir(),
            rank: 0,
            spill_limit: u64::MAX,
            device_memory_limit: None,
            device_pool: None,
        }
    }
}

/// Bytes of physical memory (Linux: MemTotal), if known.
///
/// ```
/// use chunked_array::runtime::{physical_memory, MemoryConfig};
/// if let Some(bytes) = physical_memory() {
///     // The default memory limit is 80% of it.
///     assert_eq!(MemoryConfig::default().memory_limit as u64, bytes / 5 * 4);
/// }
/// ```
pub fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Reserves the configured pool on each device `graph` places blocks on.
///
/// # Errors
/// As [`chunked_gpu::Device::reserve_pool`].
pub(crate) fn reserve_device_pools(graph: &TaskGraph, memory: &MemoryConfig) -> Result<()> {
    if let Some(bytes) = memory.device_pool {
        for device in graph.devices() {
            device.reserve_pool(bytes)?;
        }
    }
    Ok(())
}

/// Refuses a plan in which one task cannot fit the memory limit: the blocks it
/// reads, the block it makes and its kernel's workspace must be in memory
/// together while it runs, whatever else is spilled.
///
/// # Errors
/// [`Error::PlanExceedsMemory`] naming the largest such task, its estimate, the
/// limit and a block size that would fit.
pub(crate) fn check_plan(graph: &TaskGraph, memory: &MemoryConfig) -> Result<()> {
    let mut worst: Option<(usize, usize, usize, &str)> = None;
    for t in 0..graph.len() {
        let estimate = graph.estimated_bytes(t)
            + graph.scratch_bytes(t)
            + graph.deps(t).iter().map(|&d| graph.estimated_bytes(d as usize)).sum::<usize>();
        // A task on a device holds its blocks in device memory.
        let (limit, tier) = match graph.task_device(t) {
            Some(device) => (memory.device_limit_for(device), "device memory limit"),
            None => (memory.memory_limit, "memory limit"),
        };
        if estimate > limit && worst.is_none_or(|(_, e, _, _)| estimate > e) {
            worst = Some((t, estimate, limit, tier));
        }
    }
    let Some((t, estimate, limit, tier)) = worst else {
        return Ok(());
    };
    // The biggest block of elements the task holds (its own or an input's)
    // shrinks by the factor that makes the whole task fit; intermediate values
    // (factorizations) follow the blocks they are made from.
    let parts = estimate.div_ceil(limit.max(1)).max(2);
    let biggest = std::iter::once(t)
        .chain(graph.deps(t).iter().map(|&d| d as usize))
        .filter(|&b| graph.holds_elements(b))
        .max_by_key(|&b| graph.estimated_bytes(b));
    let advice = match biggest {
        Some(b) => {
            let shape = graph.block_shape(b);
            let mut suggested = shape.clone();
            let mut left = parts;
            while left > 1 {
                let Some(axis) = (0..suggested.len())
                    .filter(|&a| suggested[a] > 1)
                    .max_by_key(|&a| (suggested[a], std::cmp::Reverse(a)))
                else {
                    break;
                };
                let cut = left.min(suggested[axis]);
                suggested[axis] = suggested[axis].div_ceil(cut);
                left = left.div_ceil(cut);
            }
            format!("{} has blocks of {shape:?}; about {suggested:?} would fit", graph.key(b).layer)
        }
        None => format!(
            "{} holds intermediate values made from blocks of the input: chunk the input more finely",
            graph.key(t).layer
        ),
    };
    Err(Error::PlanExceedsMemory {
        key: graph.key(t).to_string(),
        estimate: estimate as u64,
        limit: limit as u64,
        tier: tier.into(),
        suggestion: format!("use blocks about {parts}x smaller: {advice} (or raise the {tier})"),
    })
}
