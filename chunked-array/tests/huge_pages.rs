//! Large block buffers are advised onto transparent huge pages (as numpy does
//! for arrays of 4 MiB or more), and the block constructors built on them copy
//! and fill exactly as ndarray's own.
//!
//! Its own test binary: whether a small buffer lands on advised pages depends on
//! what the process's heap held before, so other tests' large blocks must not
//! share its heap.

use chunked_array::runtime::{HUGE_PAGE_MIN_BYTES, block_vec, full_block, owned_block, set_huge_pages, uninit_block};
use ndarray::{ArrayD, IxDyn, s};

/// The kernel's flags for the mapping holding `addr` (`VmFlags` in /proc/self/smaps).
fn vm_flags(addr: usize) -> Vec<String> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("Linux smaps");
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ')
            && let Some((lo, hi)) = range.split_once('-')
            && let (Ok(lo), Ok(hi)) = (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
        {
            inside = (lo..hi).contains(&addr);
        } else if inside && let Some(flags) = line.strip_prefix("VmFlags:") {
            return flags.split_whitespace().map(str::to_owned).collect();
        }
    }
    panic!("no mapping holds {addr:#x}");
}

/// Whether this kernel has transparent huge pages at all. The advice marks a
/// mapping (`hg`) whatever the system-wide setting, `never` included: the
/// setting decides how faults are backed, not what `madvise` records.
fn thp_in_kernel() -> bool {
    std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists()
}

#[test]
#[cfg(target_os = "linux")]
fn large_buffers_are_advised_onto_huge_pages_unless_turned_off() {
    if !thp_in_kernel() {
        // A kernel built without them: `madvise` refuses the advice.
        let set = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v == value);
        let why = "this kernel has no transparent huge pages";
        assert!(
            !set("CI", "true") && !set("CHUNKED_REQUIRE_TOOLS", "1"),
            "{why}: required here (CI or the test command)"
        );
        println!("skipping: {why}");
        return;
    }
    // 64 MiB is above glibc's largest mmap threshold: each buffer is a fresh
    // mapping, so no earlier advice on reused heap memory can show.
    let len = (64 << 20) / 8;
    let page_inside = |v: &Vec<f64>| (v.as_ptr() as usize).next_multiple_of(4096) + 4096;
    set_huge_pages(false);
    let plain = block_vec::<f64>(len);
    assert!(!vm_flags(page_inside(&plain)).contains(&"hg".to_string()), "advised while turned off");
    set_huge_pages(true);
    let advised = block_vec::<f64>(len);
    assert!(vm_flags(page_inside(&advised)).contains(&"hg".to_string()), "a 64 MiB block is not advised");
    // The heap's small allocations are left alone.
    let small = block_vec::<f64>(HUGE_PAGE_MIN_BYTES / 8 / 4);
    assert!(!vm_flags(small.as_ptr() as usize).contains(&"hg".to_string()), "a 1 MiB buffer was advised");
    assert_eq!((plain.capacity() >= len, advised.capacity() >= len, advised.len()), (true, true, 0));
}

#[test]
fn block_constructors_match_ndarray() {
    let base = ArrayD::from_shape_fn(IxDyn(&[7, 5, 6]), |i| (i[0] * 100 + i[1] * 10 + i[2]) as f64);
    // Strided, reversed, permuted and contiguous views, small and above the
    // huge-page threshold.
    let big = ArrayD::from_shape_fn(IxDyn(&[1100, 1000]), |i| (i[0] * 1000 + i[1]) as f32);
    let views = [
        base.view(),
        base.slice(s![..;-2, 1..4, ..;3]).into_dyn(),
        base.view().permuted_axes(IxDyn(&[2, 0, 1])),
        base.slice(s![3, .., ..]).into_dyn(),
    ];
    for v in views {
        let copy = owned_block(v.view());
        assert_eq!(copy, v.to_owned());
        assert!(copy.is_standard_layout());
    }
    let t = owned_block(big.view().reversed_axes());
    assert_eq!(t, big.t().to_owned());
    assert_eq!(full_block(&[3, 0, 2], 1.5f64), ArrayD::from_elem(IxDyn(&[3, 0, 2]), 1.5));
    assert_eq!(full_block(&[600, 1000], 2.5f64), ArrayD::from_elem(IxDyn(&[600, 1000]), 2.5));
    let mut u = uninit_block::<i64>(&[4, 3]);
    assert_eq!(u.shape(), &[4, 3]);
    for (k, x) in u.iter_mut().enumerate() {
        x.write(k as i64);
    }
    // SAFETY: every element was written above.
    let u = unsafe { u.assume_init() };
    assert_eq!(u, ArrayD::from_shape_fn(IxDyn(&[4, 3]), |i| (i[0] * 3 + i[1]) as i64));
}
