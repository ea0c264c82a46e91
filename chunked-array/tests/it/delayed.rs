//! Delayed values (dask.delayed): graphs of closures against the same
//! computation done sequentially, shared tasks run once, failures as errors
//! naming the task, and the bridges to and from arrays.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chunked_array::delayed::{Delayed, fan_in};
use chunked_array::ndarray::{ArrayD, IxDyn};
use chunked_array::{Array, Context, compute};

fn contexts() -> [Context; 2] {
    [Context::sync(), Context::threads(4)]
}

#[test]
fn a_diamond_runs_its_shared_top_once() {
    for ctx in contexts() {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let top = Delayed::new("top", move || {
            c.fetch_add(1, Ordering::SeqCst);
            (1..=10).collect::<Vec<u64>>()
        });
        let left = top.map("sum", |v| v.iter().sum::<u64>());
        let right = top.map("product", |v| v.iter().product::<u64>());
        let bottom = left.zip(&right, "ratio", |s, p| *p as f64 / *s as f64);
        let got = bottom.compute_on(&ctx).unwrap();
        assert_eq!(got, 3628800.0 / 55.0);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}

#[test]
fn a_wide_fan_out_and_fan_in_matches_the_loop() {
    let n = 100_000u64;
    let want: u64 = (0..n).map(|i| (i * i) % 7919).sum();
    for ctx in contexts() {
        let leaves: Vec<Delayed<u64>> = (0..n).map(|i| Delayed::new("leaf", move || (i * i) % 7919)).collect();
        // Two levels of fan-in, as a tree reduction would.
        let groups: Vec<Delayed<u64>> =
            leaves.chunks(1000).map(|g| fan_in("group", g, |v| v.iter().copied().sum::<u64>())).collect();
        let total = fan_in("total", &groups, |v| v.iter().copied().sum::<u64>());
        assert_eq!(total.compute_on(&ctx).unwrap(), want);
    }
}

#[test]
fn arrays_and_delayed_values_share_tasks_in_one_compute() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let source = Delayed::new("load", move || {
        c.fetch_add(1, Ordering::SeqCst);
        ArrayD::from_shape_fn(IxDyn(&[6, 4]), |i| (i[0] * 4 + i[1]) as f64)
    });
    let x = Array::from_delayed(&source, &[6, 4]).unwrap().rechunk([2, 4]).unwrap();
    let total = x.sum(None).unwrap();
    let columns = source.map("columns", |a| a.shape()[1]);
    let block_sums: Vec<Delayed<f64>> = x.to_delayed().iter().map(|b| b.map("block sum", |a| a.sum())).collect();
    let via_blocks = fan_in("sum of blocks", &block_sums, |v| v.iter().copied().sum::<f64>());
    let (t, cols, b) = compute((&total, &columns, &via_blocks)).unwrap();
    assert_eq!((t[[]], cols, b), (276.0, 4, 276.0));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the shared source ran once");
}

#[test]
fn a_panicking_closure_is_an_error_naming_it() {
    for ctx in contexts() {
        let ok: Vec<Delayed<u32>> = (0..50).map(|i| Delayed::new("fine", move || i)).collect();
        let bad = Delayed::new("fit model 17", || -> u32 { panic!("singular matrix") });
        let mut all = ok.clone();
        all.push(bad);
        let total = fan_in("total", &all, |v| v.iter().copied().sum::<u32>());
        let err = total.compute_on(&ctx).unwrap_err().to_string();
        assert!(err.contains("fit model 17") && err.contains("singular matrix"), "{err}");
        // The same context runs the next graph.
        assert_eq!(fan_in("again", &ok, |v| v.len()).compute_on(&ctx).unwrap(), 50);
    }
}

#[test]
fn blocks_go_out_and_come_back() {
    let x = Array::<i64>::from_fn(&[7, 3], [3, 2], |i| (i[0] * 10 + i[1]) as i64).unwrap();
    let blocks = x.to_delayed();
    assert_eq!(blocks.len(), 6);
    let shapes = fan_in("shapes", &blocks, |bs| bs.iter().map(|b| b.shape().to_vec()).collect::<Vec<_>>());
    assert_eq!(shapes.compute().unwrap()[5], vec![1, 1]);
    // A block back as an array, doubled by a closure first.
    let doubled = blocks[1].map("double", |b| b * 2); // block (0, 1): column 2 of rows 0..3
    let y = Array::from_delayed(&doubled, &[3, 1]).unwrap();
    assert_eq!(y.compute().unwrap().into_raw_vec_and_offset().0, vec![4, 24, 44]);
    // The wrong shape is an error when computed, naming both shapes.
    let wrong = Array::from_delayed(&doubled, &[1, 3]).unwrap();
    let err = wrong.compute().unwrap_err().to_string();
    assert!(err.contains("[1, 3]") && err.contains("[3, 1]"), "{err}");
}

#[test]
fn profiles_name_the_closures_and_persist_runs_once() {
    let profiler = chunked_array::diagnostics::Profiler::new();
    let ctx = Context::threads(2).with_profiler(&profiler);
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let loaded = Delayed::new("load table", move || {
        c.fetch_add(1, Ordering::SeqCst);
        vec![2u32, 3, 5]
    });
    let kept = loaded.persist_on(&ctx).unwrap();
    let product = kept.map("product", |t| t.iter().product::<u32>());
    let sum = kept.map("sum", |t| t.iter().sum::<u32>());
    assert_eq!(compute((&product, &sum)).unwrap(), (30, 10));
    assert_eq!(product.compute_on(&ctx).unwrap(), 30);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the persisted value is not made again");
    let layers: Vec<String> = profiler.spans().iter().map(|s| s.layer.clone()).collect();
    for label in ["load table", "product"] {
        assert!(layers.iter().any(|l| l.starts_with(label)), "{label} in {layers:?}");
    }
    let dot = product.to_dot();
    assert!(dot.contains("product") && dot.contains("load table"), "{dot}");
}

#[test]
fn a_grid_of_delayed_blocks_is_one_array() {
    // Six "files", a 3 x 2 grid of blocks of rows 2, 3, 1 and columns 4, 1.
    let (rows, cols) = (vec![2usize, 3, 1], vec![4usize, 1]);
    let whole = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| (i[0] * 5 + i[1]) as i32);
    let mut blocks = Vec::new();
    let mut r0 = 0;
    for &r in &rows {
        let mut c0 = 0;
        for &c in &cols {
            let part = whole.slice(ndarray::s![r0..r0 + r, c0..c0 + c]).to_owned().into_dyn();
            blocks.push(Delayed::new("read part", move || part.clone()));
            c0 += c;
        }
        r0 += r;
    }
    let x = Array::from_delayed_blocks(&blocks, &[rows.clone(), cols.clone()]).unwrap();
    assert_eq!(x.num_blocks(), 6);
    assert_eq!(x.compute().unwrap(), whole);
    let column_sums = whole.mapv(i64::from).sum_axis(ndarray::Axis(0)).into_dyn(); // NumPy: int32 sums to int64
    assert_eq!(x.sum(0).unwrap().compute().unwrap(), column_sums);
    // The grid needs one value per block, and each value the block's shape.
    let err = Array::from_delayed_blocks(&blocks[..5], &[rows.clone(), cols.clone()]).unwrap_err().to_string();
    assert!(err.contains('5') && err.contains('6'), "{err}");
    let mut swapped = blocks.clone();
    swapped.swap(0, 1);
    let err = Array::from_delayed_blocks(&swapped, &[rows, cols]).unwrap().compute().unwrap_err().to_string();
    assert!(err.contains("[2, 4]") && err.contains("[2, 1]"), "{err}");
}
