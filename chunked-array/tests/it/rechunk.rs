//! Rechunking gives the same array on the new grid, whatever the two chunkings
//! and the task-size limit.

use crate::common;

use chunked_array::random::RandomState;
use chunked_array::{Array, Context, RechunkOptions};
use common::*;
use proptest::prelude::*;

fn case() -> impl Strategy<Value = (ndarray::ArrayD<f64>, Vec<Vec<usize>>, Vec<Vec<usize>>)> {
    shape_chunks(3, 9).prop_flat_map(|(shape, chunks)| (values_f64(shape.clone()), Just(chunks), rechunking(shape)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn rechunk_preserves_values((a, from, to) in case(), limit in prop_oneof![Just(8usize), Just(64), Just(1 << 20)]) {
        // `+ 0.0` makes it a computed layer, so the rechunk moves data.
        let x = &chunked(&a, &from) + 0.0;
        let y = x.rechunk_with(to.clone(), &RechunkOptions { block_size_limit: limit }).unwrap();
        prop_assert_eq!(y.chunks().lengths(), to.as_slice());
        prop_assert_eq!(y.compute_on(&Context::sync()).unwrap(), a.clone());
        prop_assert_eq!(y.compute_on(&Context::threads(2)).unwrap(), a);
    }
}

#[test]
fn sources_are_regridded_without_moving_data() {
    let x = RandomState::new(5).uniform::<f64>(&[400, 300], [400, 10]).unwrap();
    let y = x.rechunk([10, 300]).unwrap();
    assert_eq!(y.num_tasks(), 40, "a regridded source: one task per new block");
    assert_eq!(y.compute().unwrap(), x.compute().unwrap());
}

#[test]
fn large_all_to_all_rechunks_bound_every_task() {
    // (400, 10) -> (10, 400) blocks of 4000 f64: a direct task would read 40 old
    // blocks; through the refinement every task reads one old block or the
    // pieces of one new block.
    let x = &Array::<f64>::from_fn(&[400, 400], [400, 10], |i| (i[0] * 400 + i[1]) as f64).unwrap() + 0.0;
    let y = x.rechunk_with([10, 400], &RechunkOptions { block_size_limit: 3 * 4000 * 8 }).unwrap();
    let (got, stats) = y.sum(None).unwrap().compute_stats(&Context::sync()).unwrap();
    assert_eq!(got[[]], (0..160_000).map(|v| v as f64).sum::<f64>());
    // An all-to-all rechunk must hold every piece until the new blocks that need
    // them run; but old blocks are released as soon as they are split, so the
    // peak stays near one copy of the array, not two.
    assert!(stats.tiers.peak_bytes <= 400 * 400 * 8 * 11 / 10, "{stats:?}");
    assert!(y.to_dot().matches("rechunk").count() >= 2, "two steps");
}

#[test]
fn column_to_row_rechunk_keeps_the_graph_small_and_every_task_under_the_limit() {
    // (300, 1) -> (1, 300) blocks: the common refinement has 90000 one-element
    // pieces; merged along the row up to the limit, far fewer.
    let n = 300;
    let limit = 64 << 10;
    let x = &Array::<f64>::from_fn(&[n, n], [n, 1], move |i| (i[0] * n + i[1]) as f64).unwrap() + 0.0;
    let y = x.rechunk_with([1, n], &RechunkOptions { block_size_limit: limit }).unwrap();
    assert_eq!(y.chunks().lengths()[0], vec![1; n]);
    assert!(y.num_tasks() < 12_000, "{} tasks", y.num_tasks());
    let profiler = chunked_array::diagnostics::Profiler::new();
    let got = y.compute_on(&Context::threads(2).with_profiler(&profiler)).unwrap();
    assert_eq!(got, ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[n, n]), |i| (i[0] * n + i[1]) as f64));
    let spans = profiler.spans();
    let rechunks: Vec<_> = spans.iter().filter(|s| s.layer == "rechunk").collect();
    assert!(rechunks.len() > n, "two steps");
    for s in rechunks {
        assert!(
            s.input_bytes + s.output_bytes <= limit,
            "{} holds {} + {} bytes",
            s.key,
            s.input_bytes,
            s.output_bytes
        );
    }
}

#[test]
fn merging_on_two_axes_shares_the_limit() {
    // Both axes can merge: (800, 1000) from [[400, 400], ones] to [[800], [100; 10]].
    // Giving each axis the same share would read 400 x 100 old elements per piece
    // (2x the limit); shared out one axis at a time, 400 x 25.
    let limit = 160_000;
    let old = vec![vec![400, 400], vec![1; 1000]];
    let x = &Array::<f64>::from_fn(&[800, 1000], old, |i| (i[0] * 1000 + i[1]) as f64).unwrap() + 0.0;
    let y = x.rechunk_with(vec![vec![800], vec![100; 10]], &RechunkOptions { block_size_limit: limit }).unwrap();
    let profiler = chunked_array::diagnostics::Profiler::new();
    let got = y.compute_on(&Context::sync().with_profiler(&profiler)).unwrap();
    assert_eq!(got, ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[800, 1000]), |i| (i[0] * 1000 + i[1]) as f64));
    // Step 2 holds a new block (640 kB, the caller's choice) and exactly its
    // pieces; step 1 stays under the limit.
    let new_block = 800 * 100 * 8;
    for s in profiler.spans().iter().filter(|s| s.layer == "rechunk") {
        if s.output_bytes == new_block {
            assert_eq!(s.input_bytes, new_block, "{}", s.key);
        } else {
            assert!(
                s.input_bytes + s.output_bytes <= limit,
                "{} holds {} + {} bytes",
                s.key,
                s.input_bytes,
                s.output_bytes
            );
        }
    }
}
