//! Keeping freed block memory for reuse.
//!
//! glibc serves allocations above a (dynamic) threshold with fresh `mmap`s and
//! returns freed memory at the top of its heaps to the kernel. Blocks are a few to
//! tens of MiB and are allocated and freed all the time, so every new block would
//! page-fault its memory in again, several times slower than reusing memory
//! (BENCHMARKS.md, "Figures behind constants"). Raising both thresholds
//! once per process keeps block-sized memory in the heaps for the next block. The
//! threads' own arenas grow in 64 MiB heaps that cannot hold two 30 MiB blocks and
//! are unmapped when they empty, so all threads share the main heap (small
//! allocations still come from per-thread caches without locking).
//!
//! Block buffers of [`HUGE_PAGE_MIN_BYTES`] or more are also advised onto
//! transparent huge pages ([`block_vec`]), as numpy does for its large arrays:
//! block products take fewer TLB misses on the strided rows of their panels,
//! and fresh memory faults in a 2 MiB page at a time instead of 4 KiB (figures
//! in BENCHMARKS.md). Memory reused from the heap keeps the pages it was
//! faulted in with, so the advice takes effect as the heap grows.

use std::mem::MaybeUninit;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use ndarray::{ArrayD, ArrayViewD, IxDyn};

static TUNE: Once = Once::new();

/// Blocks up to this size come from the heaps (glibc's ceiling for the setting).
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory at the top of the heap is kept (up to 2 GiB) rather than returned
/// and faulted in again: a reduction's held blocks rise and fall by hundreds of
/// MiB, and returning each fall's memory makes the next rise fault it back in
/// (kernel time that dominates a large reduction). Call [`release_memory`] to
/// give it back.
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
const TRIM_THRESHOLD: i32 = i32::MAX;

/// Tunes the process allocator for block-sized allocations (glibc only; a no-op
/// elsewhere). Called by the schedulers before their first run.
///
/// ```
/// use chunked_array::runtime::{full_block, tune_allocator};
/// tune_allocator();
/// tune_allocator(); // once per process: later calls do nothing
/// let block = full_block(&[2, 2], 1.5f64);
/// assert_eq!(block.sum(), 6.0);
/// ```
pub fn tune_allocator() {
    TUNE.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
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
///
/// ```
/// # fn main() -> chunked_array::Result<()> {
/// use chunked_array::{runtime::release_memory, Array};
/// let total = Array::<f64>::ones(&[1000], 100)?.sum(None)?.compute_scalar()?;
/// release_memory(); // the run's blocks are freed: give their memory back
/// assert_eq!(total, 1000.0);
/// # Ok(()) }
/// ```
pub fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
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

/// Buffers at least this large are advised onto huge pages (numpy's threshold).
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

static HUGE_PAGES: AtomicBool = AtomicBool::new(true);
static HUGE_PAGES_FROM_ENV: Once = Once::new();

/// Whether [`block_vec`] advises large buffers onto transparent huge pages:
/// on by default, off when `CHUNKED_MADVISE_HUGEPAGE=0` is in the environment
/// (numpy's `NUMPY_MADVISE_HUGEPAGE` and `_set_madvise_hugepage`). Where the
/// system's setting is `never` the kernel ignores the advice anyway.
///
/// ```
/// use chunked_array::runtime::{block_vec, set_huge_pages, HUGE_PAGE_MIN_BYTES};
/// set_huge_pages(false); // as CHUNKED_MADVISE_HUGEPAGE=0
/// let v: Vec<u8> = block_vec(HUGE_PAGE_MIN_BYTES); // no advice given
/// assert!(v.is_empty() && v.capacity() >= HUGE_PAGE_MIN_BYTES);
/// set_huge_pages(true);
/// ```
pub fn set_huge_pages(enabled: bool) {
    HUGE_PAGES_FROM_ENV.call_once(|| {});
    HUGE_PAGES.store(enabled, Ordering::Relaxed);
}

fn huge_pages() -> bool {
    HUGE_PAGES_FROM_ENV.call_once(|| {
        if std::env::var("CHUNKED_MADVISE_HUGEPAGE").is_ok_and(|v| v.trim() == "0") {
            HUGE_PAGES.store(false, Ordering::Relaxed);
        }
    });
    HUGE_PAGES.load(Ordering::Relaxed)
}

/// An empty vector with room for `len` elements of a block, its memory advised
/// onto transparent huge pages when it is at least [`HUGE_PAGE_MIN_BYTES`]
/// (before anything touches it, so that the pages are faulted in large).
///
/// ```
/// use chunked_array::runtime::block_vec;
/// let mut v: Vec<f64> = block_vec(3);
/// assert!(v.is_empty() && v.capacity() >= 3);
/// v.extend([1.0, 2.0, 3.0]); // no reallocation
/// assert_eq!(v.len(), 3);
/// ```
pub fn block_vec<T>(len: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(len);
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    if bytes >= HUGE_PAGE_MIN_BYTES && huge_pages() {
        advise_huge_pages(v.as_ptr() as usize, bytes);
    }
    v
}

/// `madvise(MADV_HUGEPAGE)` on the whole pages inside `[start, start + bytes)`.
/// Failure (a kernel without transparent huge pages) only means small pages.
fn advise_huge_pages(start: usize, bytes: usize) {
    // Miri has no madvise; the advice changes no contents.
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        const PAGE: usize = 4096;
        let first = start.next_multiple_of(PAGE);
        let end = (start + bytes) / PAGE * PAGE;
        if end > first {
            // SAFETY: the range lies inside the caller's live allocation, and
            // MADV_HUGEPAGE only changes how its pages are backed, not its contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(any(not(target_os = "linux"), miri))]
    let _ = (start, bytes);
}

/// An uninitialised block of `shape` in [`block_vec`] memory (ndarray's
/// `ArrayD::uninit`, on huge pages when large).
///
/// ```
/// use std::mem::MaybeUninit;
/// use chunked_array::runtime::uninit_block;
/// let mut b = uninit_block::<i32>(&[2, 3]);
/// assert_eq!(b.shape(), &[2, 3]);
/// b.fill(MaybeUninit::new(7));
/// // SAFETY: every element was written by `fill`.
/// let b = unsafe { b.assume_init() };
/// assert_eq!(b.sum(), 42);
/// ```
pub fn uninit_block<T>(shape: &[usize]) -> ArrayD<MaybeUninit<T>> {
    let len = shape.iter().product();
    let mut v: Vec<MaybeUninit<T>> = block_vec(len);
    // SAFETY: `MaybeUninit` elements need no initialisation, and the capacity is `len`.
    unsafe { v.set_len(len) };
    ArrayD::from_shape_vec(IxDyn(shape), v).expect("the length is the shape's product")
}

/// A block of `shape` filled with `value`, in [`block_vec`] memory.
///
/// ```
/// use chunked_array::runtime::full_block;
/// let b = full_block(&[2, 3], 1u8);
/// assert_eq!(b.shape(), &[2, 3]);
/// assert!(b.iter().all(|&v| v == 1));
/// ```
pub fn full_block<T: Clone>(shape: &[usize], value: T) -> ArrayD<T> {
    let len = shape.iter().product();
    let mut v = block_vec(len);
    v.resize(len, value);
    ArrayD::from_shape_vec(IxDyn(shape), v).expect("the length is the shape's product")
}

/// A copy of `view` in C order, in [`block_vec`] memory (ndarray's
/// `as_standard_layout().into_owned()`).
///
/// ```
/// use chunked_array::ndarray::{ArrayD, IxDyn};
/// use chunked_array::runtime::owned_block;
/// let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).collect::<Vec<i64>>()).unwrap();
/// let t = owned_block(a.t()); // a transposed view, copied in C order
/// assert!(t.is_standard_layout());
/// assert_eq!(t, a.t());
/// ```
pub fn owned_block<T: Clone>(view: ArrayViewD<'_, T>) -> ArrayD<T> {
    let mut out = uninit_block::<T>(view.shape());
    view.assign_to(&mut out);
    // SAFETY: `assign_to` wrote every element (the shapes are equal).
    unsafe { out.assume_init() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uninitialised_blocks_become_owned_copies_of_any_layout() {
        // Elements that own memory: an element left unwritten or written twice
        // would be a read of uninitialised memory or a leak (Miri runs this).
        let a = ArrayD::from_shape_fn(IxDyn(&[3, 4]), |i| format!("{}-{}", i[0], i[1]));
        let t = owned_block(a.t());
        assert!(t.is_standard_layout());
        assert_eq!(t, a.t());
        let every_other = owned_block(a.slice(ndarray::s![.., ..;2]).into_dyn());
        assert_eq!(every_other.shape(), &[3, 2]);
        assert_eq!(every_other[[2, 1]], "2-2");
        let empty = owned_block(a.slice(ndarray::s![..0, ..]).into_dyn());
        assert_eq!(empty.shape(), &[0, 4]);
        let filled = full_block(&[2, 2], String::from("x"));
        assert!(filled.iter().all(|s| s == "x"));
    }

    #[test]
    fn block_vectors_have_their_room_large_or_small() {
        // Past the huge-page threshold the advice runs on the allocation
        // (natively; Miri has no madvise), which changes nothing visible.
        for len in [0, 1, HUGE_PAGE_MIN_BYTES + 5] {
            let mut v: Vec<u8> = block_vec(len);
            assert!(v.is_empty() && v.capacity() >= len);
            v.extend(std::iter::repeat_n(3, len.min(64)));
            assert!(v.iter().all(|&b| b == 3));
        }
    }
}
