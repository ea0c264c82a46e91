//! The graph and its execution: culling, fusion, shared subexpressions, persist,
//! block access, schedulers, failures, creation routines, chunk specs, display.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chunked_array::random::RandomState;
use chunked_array::{Array, AxisChunks, ChunkSpec, Context, Error, compute};
use ndarray::{ArrayD, IxDyn};

/// An array that counts how many elements were generated.
fn counted(shape: &[usize], chunks: impl Into<ChunkSpec>) -> (Array<f64>, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let x = Array::from_fn(shape, chunks, move |i| {
        c.fetch_add(1, Ordering::Relaxed);
        i.iter().sum::<usize>() as f64
    })
    .unwrap();
    (x, calls)
}

#[test]
fn one_block_computes_only_what_it_needs() {
    let (x, calls) = counted(&[100, 100], [10, 10]);
    let y = (&x * 2.0).block(&[3, 4]).unwrap();
    let got = y.compute().unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 100, "only block (3, 4) was generated");
    let want = ArrayD::from_shape_fn(IxDyn(&[10, 10]), |i| 2.0 * (30 + i[0] + 40 + i[1]) as f64);
    assert_eq!(got, want);
    // A reduction over one row of blocks reads only those blocks.
    calls.store(0, Ordering::Relaxed);
    x.block(&[0, 0]).unwrap().sum(None).unwrap().compute().unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 100);
    assert!(x.block(&[10, 0]).is_err());
    assert!(x.block(&[0]).is_err());
}

#[test]
fn shared_subexpressions_run_once() {
    let (x, calls) = counted(&[50, 40], [7, 9]);
    let y = &x + 1.0;
    let s = y.sum(None).unwrap();
    let m = y.mean(0).unwrap();
    let (s, m) = compute((&s, &m)).unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 2000, "x generated once for both outputs");
    let want: f64 = (0..50).flat_map(|i| (0..40).map(move |j| (i + j) as f64 + 1.0)).sum();
    assert_eq!(s[[]], want);
    assert_eq!(m.shape(), &[40]);
    // x + x reads each x block once.
    calls.store(0, Ordering::Relaxed);
    (&x + &x).compute().unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 2000);
}

#[test]
fn elementwise_chains_fuse_into_one_layer_of_tasks() {
    let x = RandomState::new(1).uniform::<f64>(&[40, 40], 10).unwrap();
    let y = ((&x + 1.0) * 2.0).sqrt().exp() - 3.0;
    let dot = y.task_graph_dot(1000).unwrap();
    let tasks = dot.lines().filter(|l| l.contains("[label=")).count();
    assert_eq!(tasks, 32, "16 random blocks + 16 fused blocks:\n{dot}");
    // Unfused, the same chain is 6 layers.
    assert_eq!(y.num_tasks(), 16 * 6);
    // A layer with two consumers is not fused into either, and so runs once.
    let z = &y * 2.0;
    let w = &y + 1.0;
    let dot = (&z + &w).task_graph_dot(1000).unwrap();
    assert_eq!(dot.lines().filter(|l| l.contains("[label=")).count(), 16 * 3, "{dot}");
}

#[test]
fn persist_holds_blocks() {
    let (x, calls) = counted(&[30, 30], 10);
    let p = (&x * 3.0).persist().unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 900);
    let a = p.sum(None).unwrap().compute_scalar().unwrap();
    let b = p.compute().unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 900, "persisted blocks are reused");
    assert_eq!(a, b.sum());
    assert_eq!(p.num_tasks(), 9);
}

#[test]
fn schedulers_give_identical_results() {
    let x = RandomState::new(3).standard_normal::<f64>(&[123, 77], [10, 13]).unwrap();
    let y = (&x.t().t() * &x).sum(1).unwrap().cumsum(0).unwrap();
    let a = y.compute_on(&Context::sync()).unwrap();
    for threads in [1, 2, 5] {
        assert_eq!(y.compute_on(&Context::threads(threads)).unwrap(), a);
    }
}

#[test]
fn transpose_matches_ndarray() {
    let a = ArrayD::from_shape_fn(IxDyn(&[7, 5, 3]), |i| (i[0] * 100 + i[1] * 10 + i[2]) as i64);
    let x = Array::from_ndarray(a.clone(), vec![vec![3, 4], vec![2, 2, 1], vec![3]]).unwrap();
    assert_eq!(x.t().compute().unwrap(), a.t().to_owned());
    let p = x.permute_axes(&[1, 0, 2]).unwrap();
    assert_eq!(p.compute().unwrap(), a.clone().permuted_axes(IxDyn(&[1, 0, 2])));
    assert_eq!(p.chunks().lengths()[0], vec![2, 2, 1]);
    assert!(x.permute_axes(&[0, 0, 1]).is_err());
    let m = ArrayD::from_shape_fn(IxDyn(&[70, 45]), |i| (i[0] * 1000 + i[1]) as f64);
    let xm = Array::from_ndarray(m.clone(), [33, 40]).unwrap();
    assert_eq!((&xm.t() + 1.0).compute().unwrap(), m.t().mapv(|v| v + 1.0));
}

#[test]
fn panicking_task_is_an_error_naming_its_key() {
    let x = Array::<f64>::from_fn(&[10, 10], 5, |i| if i == [7, 2] { panic!("boom at {i:?}") } else { 1.0 }).unwrap();
    for ctx in [Context::sync(), Context::threads(2)] {
        let e = (&x + 1.0).sum(None).unwrap().compute_on(&ctx).unwrap_err();
        match &e {
            Error::Task { key, message } => {
                assert!(key.contains("from_fn") && key.contains("[1, 0]"), "{key}");
                assert!(message.contains("boom at [7, 2]"), "{message}");
            }
            other => panic!("unexpected {other}"),
        }
    }
    let f = Array::<f64>::from_fn(&[4], 1, |i| if i[0] == 3 { panic!("late") } else { 0.0 }).unwrap();
    assert!(f.persist().is_err());
}

#[test]
fn creation_routines_match_numpy() {
    assert_eq!(
        Array::<f64>::arange(0.0, 1.0, 0.3, 2).unwrap().compute().unwrap().iter().cloned().collect::<Vec<_>>(),
        vec![0.0, 0.3, 0.6, 0.8999999999999999]
    );
    assert_eq!(
        Array::<i64>::arange(10, 0, -3, 2).unwrap().compute().unwrap().iter().cloned().collect::<Vec<_>>(),
        vec![10, 7, 4, 1]
    );
    assert_eq!(Array::<i64>::arange(0, -5, 1, 2).unwrap().shape(), vec![0]);
    assert!(Array::<i64>::arange(0, 5, 0, 2).is_err());
    let l = Array::<f64>::linspace(1.0, 2.0, 4, false, 3).unwrap().compute().unwrap();
    assert_eq!(l.iter().cloned().collect::<Vec<_>>(), vec![1.0, 1.25, 1.5, 1.75]);
    assert_eq!(
        Array::<f64>::linspace(5.0, 6.0, 1, true, 3).unwrap().compute().unwrap().iter().cloned().collect::<Vec<_>>(),
        vec![5.0]
    );
    let e = Array::<i32>::eye(4, Some(6), 1, [3, 4]).unwrap().compute().unwrap();
    let want = ArrayD::from_shape_fn(IxDyn(&[4, 6]), |i| (i[1] == i[0] + 1) as i32);
    assert_eq!(e, want);
    assert_eq!(Array::<u8>::full(&[2, 3], 7, 2).unwrap().compute().unwrap(), ArrayD::from_elem(IxDyn(&[2, 3]), 7u8));
    assert_eq!(
        Array::<bool>::zeros(&[3], 2).unwrap().compute().unwrap().iter().cloned().collect::<Vec<_>>(),
        vec![false; 3]
    );
    let s = Array::<f64>::from_ndarray(ndarray::arr0(4.5), ChunkSpec::auto()).unwrap();
    assert_eq!(s.compute_scalar().unwrap(), 4.5);
    assert_eq!((&s * 2.0).sum(None).unwrap().compute_scalar().unwrap(), 9.0);
}

#[test]
fn chunk_specs_and_errors() {
    let x = Array::<f64>::zeros(&[10, 7], [4, -1]).unwrap();
    assert_eq!(x.chunks().lengths(), &[vec![4, 4, 2], vec![7]]);
    let y =
        Array::<f64>::zeros(&[5, 5], ChunkSpec::per_axis(vec![AxisChunks::Explicit(vec![1, 4]), AxisChunks::Size(2)]))
            .unwrap();
    assert_eq!(y.chunks().lengths(), &[vec![1, 4], vec![2, 2, 1]]);
    let auto = Array::<f64>::zeros(&[100_000, 1000], ChunkSpec::auto()).unwrap();
    let block_bytes = auto.chunks().max_block_elems() * 8;
    assert!(block_bytes <= 128 << 20 && block_bytes > 64 << 20, "auto blocks near 128 MiB: {block_bytes}");
    let e = Array::<f64>::zeros(&[6], vec![vec![2, 3]]).unwrap_err().to_string();
    assert!(e.contains("axis 0") && e.contains("sum to 5") && e.contains("length is 6"), "{e}");
    let e = Array::<f64>::zeros(&[6, 2], [0, 1]).unwrap_err().to_string();
    assert!(e.contains("block length 0"), "{e}");
    let e = Array::<f64>::zeros(&[6, 2], [1]).unwrap_err().to_string();
    assert!(e.contains("1 axis specs") && e.contains("[6, 2]"), "{e}");
    let empty = Array::<f64>::zeros(&[0, 4], 2).unwrap();
    assert_eq!(empty.compute().unwrap().shape(), &[0, 4]);
    assert_eq!(empty.sum(1).unwrap().compute().unwrap().shape(), &[0]);
    assert_eq!(empty.sum(0).unwrap().compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![0.0; 4]);
}

#[test]
fn display_and_dot() {
    let x = RandomState::new(0).uniform::<f64>(&[100_000, 1000], [1000, 1000]).unwrap();
    let s = x.to_string();
    assert!(
        s.contains("shape=(100000, 1000)") && s.contains("dtype=float64") && s.contains("chunksize=(1000, 1000)"),
        "{s}"
    );
    assert!(s.contains("blocks=100") && s.contains("bytes=762.94 MiB") && s.contains("tasks=100"), "{s}");
    let m = x.mean(0).unwrap();
    assert!(m.to_string().contains("shape=(1000,)"), "{m}");
    let dot = (&x + 1.0).sum(None).unwrap().to_dot();
    assert!(
        dot.starts_with("digraph")
            && dot.contains("random_uniform")
            && dot.contains("sum-partial")
            && dot.contains("->"),
        "{dot}"
    );
    let tdot = x.block(&[0, 0]).unwrap().task_graph_dot(10).unwrap();
    assert!(tdot.contains("random_uniform") && tdot.contains("block"), "{tdot}");
}

/// Blocks are released right after their last reader, and the static order
/// finishes one branch before starting the next: a sum over 400 blocks of 80 kB
/// never holds more than a handful of them.
#[test]
fn reductions_hold_few_blocks() {
    let x = RandomState::new(2).uniform::<f64>(&[2000, 2000], [100, 100]).unwrap();
    let block = 100 * 100 * 8;
    for ctx in [Context::sync(), Context::threads(2)] {
        let (_, stats) = (&x * 2.0).sum(None).unwrap().compute_stats(&ctx).unwrap();
        // 400 random blocks, 400 partial sums (the `* 2` fused into them), then trees of
        // 2 x 2 merges: 100, 25, 9, 4, 1.
        assert_eq!(stats.tasks, 400 + 400 + 100 + 25 + 9 + 4 + 1, "{stats:?}");
        assert!(stats.tiers.peak_bytes <= 4 * block, "{stats:?}");
    }
    // Centering needs each column's mean before the column can be released; the
    // memory-aware order then finishes that column: at most about one column of
    // blocks (20) is held, not the whole array (400).
    let centered = (&x - &x.mean(0).unwrap()).pow(2.0).unwrap().sum(None).unwrap();
    let (_, stats) = centered.compute_stats(&Context::sync()).unwrap();
    assert!(stats.tiers.peak_bytes <= 30 * block, "{stats:?}");
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::CASES))]

    /// The same graph gives the same result under every scheduler and thread
    /// count, computed directly, block by block, or from persisted blocks.
    #[test]
    fn schedulers_persist_and_blocks_agree((shape, chunks) in common::shape_chunks(3, 7), threads in 1usize..5, seed in any::<u64>()) {
        let x = RandomState::new(seed).standard_normal::<f64>(&shape, chunks.clone()).unwrap();
        let y = (&(&x * 2.0) + &x.abs()).sqrt();
        let axes: Vec<isize> = (0..shape.len() as isize).step_by(2).collect();
        let r = y.sum(chunked_array::ReduceOptions::axes(axes).keepdims(true)).unwrap();
        let want = r.compute_on(&Context::sync()).unwrap();
        prop_assert_eq!(r.compute_on(&Context::threads(threads)).unwrap().mapv(f64::to_bits), want.mapv(f64::to_bits));
        let p = y.persist_on(&Context::threads(threads)).unwrap();
        let yv = y.compute_on(&Context::sync()).unwrap();
        prop_assert_eq!(p.compute().unwrap().mapv(f64::to_bits), yv.mapv(f64::to_bits));
        // Every block equals the same region of the whole result.
        let grid = y.chunks().grid();
        for lin in 0..y.num_blocks() {
            let idx = y.chunks().unravel(lin);
            let b = p.block(&idx).unwrap().compute().unwrap();
            let start = y.chunks().block_start(&idx);
            let region = yv.slice_each_axis(|ax| {
                let a = ax.axis.index();
                ndarray::Slice::from(start[a]..start[a] + b.shape()[a])
            });
            prop_assert_eq!(b.view().mapv(f64::to_bits), region.mapv(f64::to_bits));
            prop_assert_eq!(idx.len(), grid.len());
        }
    }
}

/// A chain far longer than one fused expression may be deep is cut into several
/// fused layers (no stack overflow), with the same result.
#[test]
fn very_long_chains_compute() {
    let mut x = Array::<f64>::arange(0.0, 1000.0, 1.0, 300).unwrap();
    for _ in 0..1000 {
        x = &x + 1.0;
    }
    let want: Vec<f64> = (0..1000).map(|v| v as f64 + 1000.0).collect();
    for ctx in [Context::sync(), Context::threads(2)] {
        assert_eq!(x.compute_on(&ctx).unwrap().iter().cloned().collect::<Vec<_>>(), want);
        assert_eq!(x.sum(None).unwrap().compute_on(&ctx).unwrap()[[]], want.iter().sum::<f64>());
    }
}
