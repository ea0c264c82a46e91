//! Sorting numbers through order-preserving `u64` keys: std's sorts of
//! plain integers take cheap comparisons and branch-free small sorts where a
//! float comparison with NaN's cases does not.
//!
//! A float's key flips the sign bit of a positive value and every bit of a
//! negative one, and every NaN has the largest key (NaN last, as NumPy
//! sorts); an integer's key flips its sign bit. `f32` goes through `f64`
//! (exact both ways).

use std::mem::MaybeUninit;
use std::ops::Range;

use super::vectorized;
use crate::element::{DType, Real};

/// How a type's values map to keys.
#[derive(Clone, Copy)]
enum Kind {
    Float,
    Signed,
}

/// `None` for the types without keys here (`u64`, `bool`): they sort by
/// comparison.
fn kind<T: Real>() -> Option<Kind> {
    match T::DTYPE {
        DType::F64 | DType::F32 => Some(Kind::Float),
        DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 | DType::U16 | DType::U32 => Some(Kind::Signed),
        _ => None,
    }
}

/// The order-preserving key of a float that is not NaN: the sign bit flipped
/// for a positive value, every bit for a negative one.
pub(crate) fn float_key(f: f64) -> u64 {
    let b = f.to_bits();
    if b >> 63 == 1 { !b } else { b | 1 << 63 }
}

/// The float of a key [`float_key`] made.
pub(crate) fn float_of_key(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 { key & !(1 << 63) } else { !key })
}

/// The key of `v`; `merge_zeros` gives -0.0 the key of 0.0 (they are equal,
/// and an order by position among equal values must see them so).
#[inline]
fn key<T: Real>(v: T, kind: Kind, merge_zeros: bool) -> u64 {
    match kind {
        Kind::Float => {
            let f = v.to_f64();
            if f.is_nan() {
                return u64::MAX;
            }
            float_key(if merge_zeros && f == 0.0 { 0.0 } else { f })
        }
        Kind::Signed => (v.to_i64() as u64) ^ (1 << 63),
    }
}

#[inline]
fn value<T: Real>(key: u64, kind: Kind) -> T {
    match kind {
        Kind::Float if key == u64::MAX => T::from_f64(f64::NAN),
        Kind::Float => T::from_f64(float_of_key(key)),
        Kind::Signed => T::from_i64((key ^ (1 << 63)) as i64),
    }
}

/// Sorts each `lane`-long piece of `values` ascending with NaN last
/// (`runs`: made of sorted runs, which std's stable sort merges); `Err`
/// gives `values` back when `T` has no keys. Values of 8 bytes become their
/// keys and back in their own allocation (std's in-place `collect`).
pub(super) fn sort_lanes<T: Real>(values: Vec<T>, lane: usize, runs: bool) -> Result<Vec<T>, Vec<T>> {
    let Some(kind) = kind::<T>() else { return Err(values) };
    let mut keys: Vec<u64> = values.into_iter().map(|v| key(v, kind, false)).collect();
    for lane in keys.chunks_mut(lane.max(1)) {
        if runs {
            lane.sort();
        } else {
            vectorized::sort_keys(lane);
        }
    }
    Ok(keys.into_iter().map(|k| value(k, kind)).collect())
}

/// Keys merged at a time by [`merge_runs`]: its two buffers hold this many
/// keys each (512 KiB together), and stay in a core's L2 cache along the merge.
#[cfg(not(miri))]
pub(super) const MERGE_SEGMENT: usize = 1 << 15;
/// Small under Miri, so that its tests cross segments in little time.
#[cfg(miri)]
pub(super) const MERGE_SEGMENT: usize = 1 << 6;

/// Merges the sorted `runs` (ascending, NaN last) and appends ranks `keep`
/// of the merge to `out`; `false` (nothing appended) when `T` has no keys.
///
/// The ranks go in segments of [`MERGE_SEGMENT`]: each run's part of a
/// segment is found by a bisection on the keys ([`cut`]), and the parts'
/// keys merge two at a time, branch-free, between two buffers that the
/// segments reuse (about `log2(runs)` passes in cache, no buffer the size
/// of the block).
pub(super) fn merge_runs<T: Real>(runs: &[&[T]], keep: Range<usize>, out: &mut Vec<T>) -> bool {
    let Some(kind) = kind::<T>() else { return false };
    let segment = MERGE_SEGMENT.min(keep.len());
    let (mut from, mut to) = (Vec::with_capacity(segment), Vec::with_capacity(segment));
    let mut lower = cut(runs, &vec![0; runs.len()], keep.start, kind);
    let mut rank = keep.start;
    while rank < keep.end {
        let next = (rank + segment).min(keep.end);
        let upper = cut(runs, &lower, next - rank, kind);
        from.clear();
        let mut bounds = vec![0];
        for ((run, &lo), &hi) in runs.iter().zip(&lower).zip(&upper) {
            from.extend(run[lo..hi].iter().map(|&v| key(v, kind, false)));
            bounds.push(from.len());
        }
        let merged = merge_passes(&mut from, &mut to, bounds);
        out.extend(merged.iter().map(|&k| value::<T>(k, kind)));
        (lower, rank) = (upper, next);
    }
    true
}

/// The end of each run's part of the next `count` ranks after `start` (each
/// run's start of them): the parts hold `count` keys together, none above a
/// key after them.
fn cut<T: Real>(runs: &[&[T]], start: &[usize], count: usize, kind: Kind) -> Vec<usize> {
    if count == 0 {
        return start.to_vec();
    }
    // No run gives more than `count` keys.
    let window = |r: usize| &runs[r][start[r]..(start[r] + count).min(runs[r].len())];
    let at_most =
        |x: u64| -> usize { (0..runs.len()).map(|r| window(r).partition_point(|&v| key(v, kind, false) <= x)).sum() };
    // The least key `x` with `count` keys at most `x`.
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at_most(mid) >= count { hi = mid } else { lo = mid + 1 }
    }
    // The keys below `x` go whole; copies of `x` fill up to `count`, run
    // by run (equal keys are equal values).
    let below: Vec<usize> = (0..runs.len()).map(|r| window(r).partition_point(|&v| key(v, kind, false) < lo)).collect();
    let mut missing = count - below.iter().sum::<usize>();
    (0..runs.len())
        .map(|r| {
            let equal = window(r).partition_point(|&v| key(v, kind, false) <= lo) - below[r];
            let take = equal.min(missing);
            missing -= take;
            start[r] + below[r] + take
        })
        .collect()
}

/// Merges the sorted runs of `from` (`bounds`: where each starts, and the
/// end) two at a time between `from` and `to`, and returns the buffer that
/// holds the merge.
fn merge_passes<'a>(from: &'a mut Vec<u64>, to: &'a mut Vec<u64>, mut bounds: Vec<usize>) -> &'a [u64] {
    let total = from.len();
    let (mut from, mut to) = (from, to);
    while bounds.len() > 2 {
        to.clear();
        let spare = &mut to.spare_capacity_mut()[..total];
        let mut next = vec![0];
        for r in (0..bounds.len() - 1).step_by(2) {
            let (start, mid) = (bounds[r], bounds[r + 1]);
            let end = bounds.get(r + 2).copied().unwrap_or(mid);
            merge_two(&from[start..mid], &from[mid..end], &mut spare[start..end]);
            next.push(end);
        }
        // SAFETY: the merges wrote every one of the `total` elements.
        unsafe { to.set_len(total) };
        std::mem::swap(&mut from, &mut to);
        bounds = next;
    }
    from
}

/// Writes the merge of sorted `a` and `b` into `out` (`a`'s first among
/// equal keys), choosing each element without a branch.
fn merge_two(a: &[u64], b: &[u64], out: &mut [MaybeUninit<u64>]) {
    assert_eq!(a.len() + b.len(), out.len(), "the merge fills its output");
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        if i == a.len() || j == b.len() {
            break;
        }
        let (x, y) = (a[i], b[j]);
        let take_b = y < x;
        slot.write(if take_b { y } else { x });
        (i, j) = (i + !take_b as usize, j + take_b as usize);
    }
    for (slot, &k) in out[i + j..].iter_mut().zip(a[i..].iter().chain(&b[j..])) {
        slot.write(k);
    }
}

/// Sorts `values` with their positions `index` by value with NaN last,
/// equal values (-0.0 and 0.0 among them, whose values come back as 0.0)
/// by position; `false` when `T` has no keys.
pub(super) fn sort_pairs<T: Real>(values: &mut [T], index: &mut [i64], runs: bool) -> bool {
    let Some(kind) = kind::<T>() else { return false };
    let mut pairs: Vec<(u64, i64)> = values.iter().zip(index.iter()).map(|(&v, &i)| (key(v, kind, true), i)).collect();
    if runs {
        pairs.sort();
    } else {
        pairs.sort_unstable();
    }
    values.iter_mut().zip(index.iter_mut()).zip(&pairs).for_each(|((v, i), &(k, p))| (*v, *i) = (value(k, kind), p));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::sorting::nan_last;

    #[test]
    fn keys_sort_as_numpy_orders() {
        let mut floats: Vec<f64> = (0..5000).map(|i| ((i * 7919) % 1013) as f64 * 0.37 - 180.0).collect();
        floats.extend([f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, f64::MIN_POSITIVE, -5e-324]);
        let mut want = floats.clone();
        want.sort_by(nan_last);
        let got = sort_lanes(floats.clone(), floats.len(), false).unwrap();
        assert!(got.iter().zip(&want).all(|(a, b)| nan_last(a, b).is_eq()));
        let mut index: Vec<i64> = (0..floats.len() as i64).collect();
        let mut values = floats.clone();
        assert!(sort_pairs(&mut values, &mut index, false));
        let mut want: Vec<usize> = (0..floats.len()).collect();
        want.sort_by(|&a, &b| nan_last(&floats[a], &floats[b])); // stable
        assert_eq!(index, want.iter().map(|&i| i as i64).collect::<Vec<_>>());
        let ints: Vec<i32> = (0..3000).map(|i| ((i * 7919) % 2001) - 1000).chain([i32::MIN, i32::MAX]).collect();
        let mut want = ints.clone();
        want.chunks_mut(1000).for_each(|lane| lane.sort());
        assert_eq!(sort_lanes(ints, 1000, true).unwrap(), want);
        let small = sort_lanes(vec![3.5f32, -1.25, f32::NAN, 0.0], 4, false).unwrap();
        assert_eq!(&small[..3], &[-1.25, 0.0, 3.5]);
        assert!(small[3].is_nan());
        assert_eq!(sort_lanes(vec![7u64, 1], 2, false), Err(vec![7, 1]));
    }

    #[test]
    fn merges_match_a_sort_of_the_runs() {
        let mut state = 7u64;
        let mut draw = |modulus: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % modulus
        };
        for (runs, len, modulus) in [(1, 9, 5), (2, 0, 3), (2, 1, 3), (3, 17, 4), (6, 33, 1000), (7, 40, 2), (5, 1, 1)]
        {
            let parts: Vec<Vec<f64>> = (0..runs)
                .map(|r| {
                    let n = if r % 3 == 1 { len / 2 } else { len };
                    let mut v: Vec<f64> = (0..n).map(|_| draw(modulus) as f64 - 2.0).collect();
                    v.extend((0..r % 2).map(|_| f64::NAN));
                    v.sort_by(nan_last);
                    v
                })
                .collect();
            let mut want: Vec<f64> = parts.concat();
            want.sort_by(nan_last);
            for keep in [0..want.len(), want.len() / 3..want.len() - want.len() / 4] {
                let mut got = vec![-9.0];
                let slices: Vec<&[f64]> = parts.iter().map(|p| p.as_slice()).collect();
                assert!(merge_runs(&slices, keep.clone(), &mut got));
                assert_eq!(got.len(), 1 + keep.len());
                assert!(got[1..].iter().zip(&want[keep]).all(|(a, b)| nan_last(a, b).is_eq()), "{parts:?}");
            }
        }
        assert!(!merge_runs::<u64>(&[&[1, 2]], 0..2, &mut Vec::new()));
    }

    #[test]
    fn merges_past_a_segment_cut_between_equal_keys() {
        // Five runs, three long: segments cut inside runs of equal keys,
        // NaN, the infinities and both zeros among them; runs sorted as the
        // sort's runs are, by key (-0.0 before 0.0).
        let by_key = |a: &f64, b: &f64| nan_last(a, b).then(a.is_sign_positive().cmp(&b.is_sign_positive()));
        let mut state = 3u64;
        let mut draw = |modulus: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % modulus
        };
        let lens = [MERGE_SEGMENT + 17, 0, 2 * MERGE_SEGMENT / 3, 5, MERGE_SEGMENT];
        let special = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
        let parts: Vec<Vec<f64>> = lens
            .iter()
            .map(|&n| {
                let mut v: Vec<f64> = (0..n)
                    .map(|_| match draw(40) {
                        0..5 => special[draw(5) as usize],
                        d if d < 30 => (d % 7) as f64,
                        _ => draw(1 << 40) as f64 * 1e-3,
                    })
                    .collect();
                v.sort_by(by_key);
                v
            })
            .collect();
        let mut want = parts.concat();
        want.sort_by(by_key);
        let slices: Vec<&[f64]> = parts.iter().map(|p| p.as_slice()).collect();
        let n = want.len();
        for keep in [0..n, 1..n - 1, MERGE_SEGMENT - 3..MERGE_SEGMENT + 5, n / 2..n / 2, 77..2 * MERGE_SEGMENT + 1] {
            let mut got = Vec::new();
            assert!(merge_runs(&slices, keep.clone(), &mut got));
            assert_eq!(got.len(), keep.len());
            let same = got
                .iter()
                .zip(&want[keep.clone()])
                .all(|(a, b)| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()));
            assert!(same, "ranks {keep:?}");
        }
    }
}
