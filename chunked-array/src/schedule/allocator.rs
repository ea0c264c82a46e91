//! Keeping freed block memory for reuse.
//!
//! glibc serves allocations above a (dynamic) threshold with fresh `mmap`s and
//! returns freed memory at the top of its heaps to the kernel. Blocks are a few to
//! tens of MiB and are allocated and freed all the time, so every new block would
//! page-fault its memory in again: measured here, 8 MiB took 5.8 ms to allocate
//! and fill fresh against under 1 ms from reused memory. Raising both thresholds
//! once per process keeps block-sized memory in the heaps for the next block.

use std::sync::Once;

static TUNE: Once = Once::new();

/// Blocks up to this size come from the heaps (glibc's ceiling for the setting).
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory kept at the top of a heap before it is returned to the kernel.
const TRIM_THRESHOLD: i32 = 512 << 20;

/// Tunes the process allocator for block-sized allocations (glibc only; a no-op
/// elsewhere). Called by the schedulers before their first run.
pub fn tune_allocator() {
    TUNE.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        {
            unsafe extern "C" {
                fn mallopt(param: i32, value: i32) -> i32;
            }
            const M_TRIM_THRESHOLD: i32 = -1;
            const M_MMAP_THRESHOLD: i32 = -3;
            // SAFETY: mallopt only changes glibc's allocation thresholds.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
                mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
            }
        }
    });
}
