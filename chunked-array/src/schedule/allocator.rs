//! Keeping freed block memory for reuse.
//!
//! glibc serves allocations above a (dynamic) threshold with fresh `mmap`s and
//! returns freed memory at the top of its heaps to the kernel. Blocks are a few to
//! tens of MiB and are allocated and freed all the time, so every new block would
//! page-fault its memory in again: measured here, 8 MiB took 5.8 ms to allocate
//! and fill fresh against under 1 ms from reused memory. Raising both thresholds
//! once per process keeps block-sized memory in the heaps for the next block. The
//! threads' own arenas grow in 64 MiB heaps that cannot hold two 30 MiB blocks and
//! are unmapped when they empty, so all threads share the main heap (small
//! allocations still come from per-thread caches without locking).

use std::sync::Once;

static TUNE: Once = Once::new();

/// Blocks up to this size come from the heaps (glibc's ceiling for the setting).
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory at the top of the heap is kept (up to 2 GiB) rather than returned
/// and faulted in again: a reduction's held blocks rise and fall by hundreds of
/// MiB, and each fall used to return memory that the next rise faulted back in
/// (180 `brk` calls and 5.8 s of kernel time in one 20000x20000 benchmark). Call
/// [`release_memory`] to give it back.
const TRIM_THRESHOLD: i32 = i32::MAX;

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
            const M_ARENA_MAX: i32 = -8;
            // SAFETY: mallopt only changes glibc's allocation settings.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
                mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
                mallopt(M_ARENA_MAX, 1);
            }
        }
    });
}

/// Returns the memory freed by finished computations to the operating system
/// (glibc's `malloc_trim`); the next computation faults in what it needs again.
pub fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only releases free heap memory.
        unsafe {
            malloc_trim(0);
        }
    }
}
