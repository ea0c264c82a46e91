//! Sorts across blocks (the sample sort of long lanes) and topk's tree,
//! against std's sorts of each lane of the whole array: NaN last, -0.0 and
//! 0.0 equal, argsort stable; over drawn shapes and irregular chunkings with
//! empty blocks, heavy ties, limits from one sample per run to many, and
//! under a memory limit that spills the runs and pieces.

use std::cmp::Ordering;

use chunked_array::ndarray::{ArrayD, Axis, Dimension, IxDyn};
use chunked_array::{Array, BlockSizeOptions, Computable, Context, Element};
use proptest::prelude::*;

use crate::common::{CASES, chunked, shape_chunks};
use crate::support::TempDir;

fn numpy_order<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    match (a.partial_cmp(a).is_none(), b.partial_cmp(b).is_none()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).unwrap(),
    }
}

fn same<T: Element + PartialOrd>(a: &T, b: &T) -> bool {
    numpy_order(a, b) == Ordering::Equal
}

/// Sorts and argsorts `x` along `axis` under `limit` and checks every lane
/// against the whole array's lane sorted by std (stable for the indices).
fn check_sorts<T: chunked_array::Real>(whole: &ArrayD<T>, x: &Array<T>, axis: usize, limit: usize, ctx: &Context) {
    let options = BlockSizeOptions { block_size_limit: limit };
    let sorted = x.sort_with(axis as isize, &options).unwrap();
    assert_eq!(sorted.chunks(), x.chunks(), "in the input's blocks");
    let order = x.argsort_with(axis as isize, &options).unwrap();
    assert_eq!(order.chunks(), x.chunks());
    let (sorted, order) = (&sorted, &order).compute_on(ctx).unwrap();
    for ((lane, got), idx) in
        whole.lanes(Axis(axis)).into_iter().zip(sorted.lanes(Axis(axis))).zip(order.lanes(Axis(axis)))
    {
        let mut want_idx: Vec<usize> = (0..lane.len()).collect();
        want_idx.sort_by(|&a, &b| numpy_order(&lane[a], &lane[b]));
        let want: Vec<T> = want_idx.iter().map(|&i| lane[i]).collect();
        assert!(got.iter().zip(&want).all(|(g, w)| same(g, w)), "axis {axis} limit {limit}: {got} against {want:?}");
        assert_eq!(idx.iter().map(|&i| i as usize).collect::<Vec<_>>(), want_idx, "axis {axis} limit {limit}");
    }
}

/// Values with ties, NaN, -0.0 and 0.0.
fn tricky(i: usize) -> f64 {
    match i % 11 {
        3 => f64::NAN,
        5 => -0.0,
        7 => 0.0,
        r => ((i * 7919) % 23) as f64 - 11.0 + if r == 1 { 0.5 } else { 0.0 },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn long_lanes_sort_across_blocks((shape, chunks) in shape_chunks(3, 9), seed in 0usize..1000, limit in prop_oneof![Just(1usize), Just(64), Just(256)]) {
        let whole = ArrayD::from_shape_fn(IxDyn(&shape), |i| tricky(i.as_array_view().iter().fold(seed, |a, &v| a * 31 + v)));
        let x = chunked(&whole, &chunks);
        for axis in 0..shape.len() {
            check_sorts(&whole, &x, axis, limit, &Context::sync());
        }
    }
}

#[test]
fn twenty_thousand_values_in_irregular_blocks_under_many_limits() {
    let n = 20_000;
    let whole = ArrayD::from_shape_fn(IxDyn(&[n]), |i| tricky(i[0] * 13));
    let mut lengths = vec![0, 3000, 1, 0, 7000, 999, 5000, 0, 4000];
    lengths.push(n - lengths.iter().sum::<usize>());
    let x = chunked(&whole, &[lengths]);
    // From one sample per run (the smallest limit) to hundreds.
    for limit in [1usize, 4 << 10, 64 << 10, 1 << 20, 8 << 20] {
        check_sorts(&whole, &x, 0, limit, &Context::threads(2));
    }
    // All values equal: every cut falls on a tie.
    let flat = ArrayD::from_elem(IxDyn(&[n]), 2.5f64);
    check_sorts(&flat, &chunked(&flat, &[vec![n / 4; 4]]), 0, 1 << 10, &Context::sync());
}

#[test]
fn integers_and_f32_sort_across_blocks() {
    let ints = ArrayD::from_shape_fn(IxDyn(&[3, 4000]), |i| ((i[1] * 7919 + i[0] * 31) % 97) as i64 - 48);
    let x = chunked(&ints, &[vec![2, 1], vec![1000, 0, 1500, 1500]]);
    check_sorts(&ints, &x, 1, 2 << 10, &Context::threads(2));
    check_sorts(&ints, &x, 0, 1, &Context::sync());
    let floats = ArrayD::from_shape_fn(IxDyn(&[5000]), |i| tricky(i[0]) as f32);
    check_sorts(&floats, &chunked(&floats, &[vec![1250; 4]]), 0, 1 << 10, &Context::sync());
}

#[test]
fn more_runs_than_the_cap_are_regrouped() {
    // 600 blocks along the axis: more than a sort takes as runs.
    let whole = ArrayD::from_shape_fn(IxDyn(&[6000]), |i| tricky(i[0] * 3));
    let x = chunked(&whole, &[vec![10; 600]]);
    check_sorts(&whole, &x, 0, 1 << 10, &Context::threads(2));
}

#[test]
fn the_runs_and_pieces_spill_under_a_memory_limit() {
    let n = 100_000;
    let whole = ArrayD::from_shape_fn(IxDyn(&[n]), |i| tricky(i[0] * 17));
    let x = chunked(&whole, &[vec![n / 20; 20]]);
    let options = BlockSizeOptions { block_size_limit: 1 << 20 };
    for ctx in [Context::sync(), Context::threads(2)] {
        let spill = TempDir::new("sort-spill");
        let ctx = ctx.with_memory_limit(512 << 10).with_spill_dir(spill.path());
        let (sorted, stats) = x.sort_with(0, &options).unwrap().compute_stats(&ctx).unwrap();
        assert!(stats.tiers.spilled > 0, "{stats:?}");
        let mut want = whole.iter().copied().collect::<Vec<_>>();
        want.sort_by(numpy_order);
        assert!(sorted.iter().zip(&want).all(|(g, w)| same(g, w)));
        let (order, stats) = x.argsort_with(0, &options).unwrap().compute_stats(&ctx).unwrap();
        assert!(stats.tiers.spilled > 0, "{stats:?}");
        let mut want_idx: Vec<usize> = (0..n).collect();
        want_idx.sort_by(|&a, &b| numpy_order(&whole[a], &whole[b]));
        assert!(order.iter().zip(&want_idx).all(|(&g, &w)| g as usize == w));
    }
}

#[test]
fn partition_of_long_lanes_goes_through_the_sort() {
    // A lane past a sixteenth of the default block-size limit (8 MiB of f64).
    let n = 1_100_000;
    let whole = ArrayD::from_shape_fn(IxDyn(&[n]), |i| ((i[0] * 7919) % 100_003) as f64);
    let x = chunked(&whole, &[vec![n / 4; 4]]);
    let kth = [0isize, 17, 550_000, -1];
    let (p, i) = chunked_array::compute((&x.partition(&kth, 0).unwrap(), &x.argpartition(&kth, 0).unwrap())).unwrap();
    let mut sorted = whole.iter().copied().collect::<Vec<_>>();
    sorted.sort_by(numpy_order);
    for k in [0usize, 17, 550_000, n - 1] {
        assert_eq!(p[[k]], sorted[k]);
        assert_eq!(whole[[i[[k]] as usize]], sorted[k]);
    }
}

#[test]
fn topk_merges_a_tree_of_forty_blocks() {
    let n = 4000;
    let whole = ArrayD::from_shape_fn(IxDyn(&[2, n]), |i| tricky(i[1] * 5 + i[0]));
    let x = chunked(&whole, &[vec![1, 1], vec![n / 40; 40]]);
    for k in [1isize, 7, 300, -1, -250] {
        let (top, arg) = chunked_array::compute((&x.topk(k, 1).unwrap(), &x.argtopk(k, 1).unwrap())).unwrap();
        for ((lane, got), idx) in whole.lanes(Axis(1)).into_iter().zip(top.lanes(Axis(1))).zip(arg.lanes(Axis(1))) {
            let mut order: Vec<usize> = (0..n).collect();
            if k > 0 {
                order.sort_by(|&a, &b| numpy_order(&lane[b], &lane[a])); // NaN first
            } else {
                order.sort_by(|&a, &b| numpy_order(&lane[a], &lane[b]));
            }
            order.truncate(k.unsigned_abs());
            assert!(got.iter().zip(&order).all(|(g, &w)| same(g, &lane[w])), "k {k}");
            assert_eq!(idx.iter().map(|&i| i as usize).collect::<Vec<_>>(), order, "k {k}");
        }
    }
}
