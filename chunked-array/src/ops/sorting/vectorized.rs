//! Sorting `u64` keys eight at a time with AVX-512, where the CPU has it.
//!
//! A quicksort: each partition step reads eight registers of keys, compares
//! them with the pivot in one instruction each, and packs every register's
//! smaller keys to the left and the others to the right (compress and
//! expand), two whole-register stores a register; slices of at most 128
//! keys sort in sixteen registers by a bitonic network (no branch on the
//! data). Where the recursion passes twice the slice's bit length (a pivot
//! rule the data defeats), the slice goes to std's unstable sort, so the
//! worst case stays `n log n`.

/// Sorts `keys` ascending: by the AVX-512 quicksort where the CPU has
/// AVX-512F, by std's unstable sort elsewhere.
pub(super) fn sort_keys(keys: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if avx512::available() {
        avx512::sort(keys);
        return;
    }
    keys.sort_unstable();
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Slices of at most this many keys sort in registers.
    const SMALL: usize = 128;

    /// Registers a partition step reads from one side.
    const UNROLL: usize = 8;

    /// Keys a partition step reads.
    const STEP: usize = 8 * UNROLL;

    pub(super) fn available() -> bool {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt")
    }

    /// Sorts `keys` ascending; the caller has checked [`available`].
    pub(super) fn sort(keys: &mut [u64]) {
        debug_assert!(available());
        let depth = 2 * (usize::BITS - keys.len().leading_zeros());
        // SAFETY: `available` said the CPU has the features `quicksort` is
        // compiled for.
        unsafe { quicksort(keys, depth) }
    }

    #[target_feature(enable = "avx512f,popcnt")]
    fn quicksort(mut keys: &mut [u64], mut depth: u32) {
        loop {
            if keys.len() <= SMALL {
                return small_sort(keys);
            }
            if depth == 0 {
                return keys.sort_unstable();
            }
            depth -= 1;
            let pivot = pivot_of(keys);
            let below = partition(keys, pivot, false);
            if below == 0 {
                // The pivot is the least key: its copies go left, sorted.
                let equal = partition(keys, pivot, true);
                keys = &mut keys[equal..];
                continue;
            }
            let (left, right) = keys.split_at_mut(below);
            if left.len() < right.len() {
                quicksort(left, depth);
                keys = right;
            } else {
                quicksort(right, depth);
                keys = left;
            }
        }
    }

    /// The median of nine evenly spaced keys.
    fn pivot_of(keys: &[u64]) -> u64 {
        let last = keys.len() - 1;
        let mut sample: [u64; 9] = std::array::from_fn(|i| keys[i * last / 8]);
        sample.sort_unstable();
        sample[4]
    }

    /// The lanes of `x` below `pivot` (`or_equal`: at most `pivot`).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn below(x: __m512i, pivot: __m512i, or_equal: bool) -> u8 {
        if or_equal { _mm512_cmple_epu64_mask(x, pivot) } else { _mm512_cmplt_epu64_mask(x, pivot) }
    }

    /// Moves the keys below `pivot` (or equal to it, `or_equal`) before the
    /// others and returns how many they are.
    ///
    /// Two registers' worth of keys from each end are held aside, so that
    /// 16 registers' worth of slots are free between the written and the
    /// unread keys. Each step reads `STEP` keys from the side with fewer
    /// free slots, after which both sides have at least `STEP` free, enough
    /// for the step's whole-register stores; the keys held aside are
    /// written last, lane by lane.
    #[target_feature(enable = "avx512f,popcnt")]
    pub(super) fn partition(keys: &mut [u64], pivot: u64, or_equal: bool) -> usize {
        let n = keys.len();
        assert!(n >= 2 * STEP, "a vector partition takes at least {} keys, not {n}", 2 * STEP);
        let p = _mm512_set1_epi64(pivot as i64);
        let ptr = keys.as_mut_ptr();
        // SAFETY: every read is of 8 keys at `at <= n - 8`: reads come from
        // `read_l..read_r`, within the slice. Whole-register stores write
        // `l..l + 8` with `l + 8 <= read_l` and `r - 8..r` with
        // `r - 8 >= read_r` (the free slots the doc comment counts), lane
        // stores only between `l` and `r`.
        let load = |at: usize| unsafe { _mm512_loadu_si512(ptr.add(at) as *const _) };
        let aside: [__m512i; 2 * UNROLL] =
            std::array::from_fn(|i| if i < UNROLL { load(8 * i) } else { load(n - STEP + 8 * (i - UNROLL)) });
        let (mut l, mut r) = (0, n);
        let (mut read_l, mut read_r) = (STEP, n - STEP);
        while read_r - read_l >= STEP {
            let at = if read_l - l <= r - read_r {
                read_l += STEP;
                read_l - STEP
            } else {
                read_r -= STEP;
                read_r
            };
            let step: [__m512i; UNROLL] = std::array::from_fn(|i| load(at + 8 * i));
            for x in step {
                debug_assert!(l + 8 <= read_l && r - 8 >= read_r);
                // SAFETY: as above.
                unsafe { split_whole(ptr, x, below(x, p, or_equal), &mut l, &mut r) };
            }
        }
        while read_r - read_l >= 8 {
            let x = if read_l - l <= r - read_r {
                read_l += 8;
                load(read_l - 8)
            } else {
                read_r -= 8;
                load(read_r)
            };
            debug_assert!(l + 8 <= read_l && r - 8 >= read_r);
            // SAFETY: as above.
            unsafe { split_whole(ptr, x, below(x, p, or_equal), &mut l, &mut r) };
        }
        let rest = read_r - read_l;
        if rest > 0 {
            let lanes = ((1u16 << rest) - 1) as u8;
            // SAFETY: the masked load reads `read_l..read_r` only.
            let x = unsafe { _mm512_maskz_loadu_epi64(lanes, ptr.add(read_l) as *const _) };
            // SAFETY: lane stores between `l` and `r`.
            unsafe { split_lanes(ptr, x, below(x, p, or_equal) & lanes, lanes, &mut l, &mut r) };
        }
        for x in aside {
            // SAFETY: lane stores between `l` and `r`.
            unsafe { split_lanes(ptr, x, below(x, p, or_equal), 0xff, &mut l, &mut r) };
        }
        debug_assert_eq!(l, r, "the partition wrote every key once");
        l
    }

    /// Writes the lanes of `x` in `keep` from `*l` up and the others just
    /// below `*r`, as two whole-register stores of the same packed register
    /// (its other lanes land in free slots).
    ///
    /// # Safety
    /// `*l + 8` and `*r - 8` bound slots of `ptr`'s slice that hold no key
    /// still to be read.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn split_whole(ptr: *mut u64, x: __m512i, keep: u8, l: &mut usize, r: &mut usize) {
        let kept = keep.count_ones() as usize;
        let low = _mm512_maskz_compress_epi64(keep, x);
        let high = _mm512_maskz_compress_epi64(!keep, x);
        let packed = _mm512_mask_expand_epi64(low, (0xff00u16 >> (8 - kept)) as u8, high);
        // SAFETY: the caller's bounds.
        unsafe {
            _mm512_storeu_si512(ptr.add(*l) as *mut _, packed);
            _mm512_storeu_si512(ptr.add(*r - 8) as *mut _, packed);
        }
        *l += kept;
        *r -= 8 - kept;
    }

    /// Writes the lanes of `x` in `keep` from `*l` up and the other lanes of
    /// `lanes` just below `*r`, touching no other slot.
    ///
    /// # Safety
    /// `*l..*r` holds at least the `lanes` count of free slots of `ptr`'s
    /// slice.
    #[inline]
    #[target_feature(enable = "avx512f,popcnt")]
    unsafe fn split_lanes(ptr: *mut u64, x: __m512i, keep: u8, lanes: u8, l: &mut usize, r: &mut usize) {
        let rest = !keep & lanes;
        // SAFETY: the caller's bounds.
        unsafe {
            _mm512_mask_compressstoreu_epi64(ptr.add(*l) as *mut _, keep, x);
            *l += keep.count_ones() as usize;
            *r -= rest.count_ones() as usize;
            _mm512_mask_compressstoreu_epi64(ptr.add(*r) as *mut _, rest, x);
        }
    }

    /// Sorts at most [`SMALL`] keys in registers, padded with `u64::MAX`.
    #[target_feature(enable = "avx512f")]
    fn small_sort(keys: &mut [u64]) {
        match keys.len() {
            0..=1 => {}
            2..=8 => sort_in_registers::<1>(keys),
            9..=16 => sort_in_registers::<2>(keys),
            17..=32 => sort_in_registers::<4>(keys),
            33..=64 => sort_in_registers::<8>(keys),
            _ => sort_in_registers::<16>(keys),
        }
    }

    /// Sorts `keys` (at most `8 R`) in `R` registers.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn sort_in_registers<const R: usize>(keys: &mut [u64]) {
        let n = keys.len();
        assert!(n <= 8 * R, "{n} keys do not fit {R} registers");
        let ptr = keys.as_mut_ptr();
        let lanes_at = |start: usize| ((1u16 << (n - start).min(8)) - 1) as u8;
        let pad = _mm512_set1_epi64(-1);
        let mut regs: [__m512i; R] = std::array::from_fn(|r| {
            let start = 8 * r;
            // SAFETY: the mask covers keys `start..n` only.
            if start < n {
                unsafe { _mm512_mask_loadu_epi64(pad, lanes_at(start), ptr.add(start) as *const _) }
            } else {
                pad
            }
        });
        bitonic_sort(&mut regs);
        for (r, reg) in regs.iter().enumerate() {
            let start = 8 * r;
            if start < n {
                // SAFETY: the mask covers keys `start..n` only.
                unsafe { _mm512_mask_storeu_epi64(ptr.add(start) as *mut _, lanes_at(start), *reg) };
            }
        }
    }

    /// Sorts the `8 R` keys of `regs` ascending (register 0 first): each
    /// register by the 8-lane network, then sorted groups merged two by two.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn bitonic_sort<const R: usize>(regs: &mut [__m512i; R]) {
        for reg in regs.iter_mut() {
            *reg = sort_lanes(*reg);
        }
        let mut group = 1;
        while group < R {
            merge_groups(regs, group);
            group *= 2;
        }
    }

    /// Which lanes take the larger key at step `(k, j)` of the bitonic
    /// network that sorts 8 lanes ascending.
    const fn network_mask(k: usize, j: usize) -> u8 {
        let mut mask = 0u8;
        let mut i = 0;
        while i < 8 {
            if ((i & j) != 0) == ((i & k) == 0) {
                mask |= 1 << i;
            }
            i += 1;
        }
        mask
    }

    /// Each lane against lane `i ^ j`: the lanes in `take_max` keep the
    /// larger key, the others the smaller.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn exchange(v: __m512i, j: usize, take_max: u8) -> __m512i {
        let partner = match j {
            1 => _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1),
            2 => _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2),
            _ => _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4),
        };
        let p = _mm512_permutexvar_epi64(partner, v);
        _mm512_mask_blend_epi64(take_max, _mm512_min_epu64(v, p), _mm512_max_epu64(v, p))
    }

    /// The 8 lanes of `v` sorted.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn sort_lanes(v: __m512i) -> __m512i {
        let v = exchange(v, 1, const { network_mask(2, 1) });
        let v = exchange(v, 2, const { network_mask(4, 2) });
        let v = exchange(v, 1, const { network_mask(4, 1) });
        let v = exchange(v, 4, const { network_mask(8, 4) });
        let v = exchange(v, 2, const { network_mask(8, 2) });
        exchange(v, 1, const { network_mask(8, 1) })
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn reverse(v: __m512i) -> __m512i {
        _mm512_permutexvar_epi64(_mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7), v)
    }

    /// Merges each pair of sorted groups of `group` registers into one
    /// sorted group: the second group reversed against the first gives two
    /// bitonic halves, every key of the lower below every key of the upper,
    /// which half-cleaners then sort (registers at distances `group / 2`
    /// down to 1, then lanes at 4, 2, 1).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn merge_groups<const R: usize>(regs: &mut [__m512i; R], group: usize) {
        for g in (0..R).step_by(2 * group) {
            for i in 0..group {
                let (a, b) = (regs[g + i], reverse(regs[g + 2 * group - 1 - i]));
                regs[g + i] = _mm512_min_epu64(a, b);
                // Stored reversed back: still bitonic.
                regs[g + 2 * group - 1 - i] = reverse(_mm512_max_epu64(a, b));
            }
        }
        let mut distance = group;
        while distance > 1 {
            distance /= 2;
            for i in (0..R).filter(|i| i & distance == 0) {
                let (a, b) = (regs[i], regs[i + distance]);
                regs[i] = _mm512_min_epu64(a, b);
                regs[i + distance] = _mm512_max_epu64(a, b);
            }
        }
        for reg in regs.iter_mut() {
            let v = exchange(*reg, 4, 0xf0);
            let v = exchange(v, 2, 0xcc);
            *reg = exchange(v, 1, 0xaa);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys of several shapes: random, few distinct, sorted, reversed, all
    /// equal, with `u64::MAX` (NaN's key) and 0.
    fn shapes(n: usize, seed: u64) -> Vec<Vec<u64>> {
        let mut state = seed | 1;
        let random: Vec<u64> = (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            })
            .collect();
        let mut sorted = random.clone();
        sorted.sort_unstable();
        let reversed: Vec<u64> = sorted.iter().rev().copied().collect();
        let few: Vec<u64> = random.iter().map(|k| k % 3).collect();
        let extremes: Vec<u64> = random.iter().map(|k| [0, u64::MAX, k >> 1][(*k % 3) as usize]).collect();
        let organ: Vec<u64> = (0..n as u64).map(|i| i.min(n as u64 - i)).collect();
        vec![random, sorted, reversed, few, extremes, organ, vec![42; n]]
    }

    #[test]
    fn sorts_as_std_at_every_length_and_shape() {
        let lengths = (0..300).chain([511, 512, 513, 1000, 4096, 4099, 70_001]);
        for n in lengths {
            for (s, keys) in shapes(n, n as u64 + 11).into_iter().enumerate() {
                let mut want = keys.clone();
                want.sort_unstable();
                let mut got = keys.clone();
                sort_keys(&mut got);
                assert_eq!(got, want, "length {n}, shape {s}");
                #[cfg(target_arch = "x86_64")]
                if avx512::available() {
                    let mut got = keys;
                    avx512::sort(&mut got);
                    assert_eq!(got, want, "length {n}, shape {s} (AVX-512)");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn partitions_split_at_the_pivot() {
        if !avx512::available() {
            return;
        }
        for n in [128, 129, 135, 200, 1000, 1031] {
            for keys in shapes(n, 5) {
                for (pivot, or_equal) in [(keys[n / 2], false), (keys[n / 3], true), (0, false), (u64::MAX, true)] {
                    let mut got = keys.clone();
                    // SAFETY: `available` said the CPU has the features.
                    let k = unsafe { avx512::partition(&mut got, pivot, or_equal) };
                    let low = |x: &u64| if or_equal { *x <= pivot } else { *x < pivot };
                    assert!(got[..k].iter().all(low) && !got[k..].iter().any(low), "n {n} pivot {pivot}");
                    let (mut a, mut b) = (got, keys.clone());
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b, "the partition keeps every key");
                }
            }
        }
    }
}
