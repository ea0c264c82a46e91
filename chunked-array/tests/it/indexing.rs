//! take, compress, boolean masks and broadcast_to against ndarray.

use crate::common;

use chunked_array::BlockSizeOptions;
use chunked_array::{Array, Context, Profiler, SelectOptions};
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

/// The default selection options with another block-size limit.
fn limited(bytes: usize) -> SelectOptions {
    SelectOptions { block_size_limit: bytes }
}

fn numbered(shape: &[usize]) -> ArrayD<i64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| i.as_array_view().iter().fold(1i64, |acc, &v| acc * 10 + v as i64))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn take_and_masks((shape, chunks) in shape_chunks(3, 7), pick in any::<prop::sample::Index>(),
                      raw in prop::collection::vec(-20isize..20, 0..12), bits in prop::collection::vec(any::<bool>(), 400)) {
        let a = numbered(&shape);
        let x = chunked(&a, &chunks);
        if !shape.is_empty() {
            let axis = pick.index(shape.len());
            let n = shape[axis] as isize;
            let got = x.take(&raw, axis as isize);
            if raw.iter().all(|&i| i >= -n && i < n) {
                let ids: Vec<usize> = raw.iter().map(|&i| if i < 0 { (i + n) as usize } else { i as usize }).collect();
                prop_assert_eq!(got.unwrap().compute().unwrap(), a.select(Axis(axis), &ids));
                // Split into pieces first (a limit of one byte).
                prop_assert_eq!(x.take_with(&raw, axis as isize, &BlockSizeOptions { block_size_limit: 1 }).unwrap().compute().unwrap(), a.select(Axis(axis), &ids));
            } else {
                prop_assert!(got.is_err());
            }
            let mask: Vec<bool> = bits.iter().take(shape[axis]).cloned().collect();
            let ids: Vec<usize> = mask.iter().enumerate().filter(|(_, m)| **m).map(|(i, _)| i).collect();
            prop_assert_eq!(x.compress(&mask, axis as isize).unwrap().compute().unwrap(), a.select(Axis(axis), &ids));
            // A shorter mask leaves the rest of the axis out (NumPy).
            let short = &mask[..mask.len() / 2];
            let short_ids: Vec<usize> = ids.iter().copied().filter(|&i| i < short.len()).collect();
            prop_assert_eq!(x.compress(short, axis as isize).unwrap().compute().unwrap(), a.select(Axis(axis), &short_ids));
            let lazy_mask = Array::from_ndarray(ndarray::Array1::from(mask.clone()), 3).unwrap();
            prop_assert_eq!(x.compress_array(&lazy_mask, axis as isize).unwrap().compute().unwrap(), a.select(Axis(axis), &ids));
        }
        let full_mask = ArrayD::from_shape_fn(IxDyn(&shape), |i| bits[i.as_array_view().iter().sum::<usize>() % 400]);
        let m = chunked(&full_mask, &chunks);
        let want: Vec<i64> = a.iter().zip(full_mask.iter()).filter(|(_, k)| **k).map(|(v, _)| *v).collect();
        let got = x.masked(&m).unwrap();
        prop_assert_eq!(got.shape(), vec![want.len()]);
        prop_assert_eq!(got.compute().unwrap().iter().cloned().collect::<Vec<_>>(), want);
        // A mask over the leading k axes selects whole sub-arrays (NumPy).
        for k in 1..shape.len() {
            let lead = ArrayD::from_shape_fn(IxDyn(&shape[..k]), |i| bits[(i.as_array_view().iter().sum::<usize>() * 7) % 400]);
            let lm = chunked(&lead, &chunks[..k]);
            let rows: Vec<ArrayD<i64>> = a
                .to_shape(IxDyn(&[shape[..k].iter().product::<usize>(), shape[k..].iter().product::<usize>()]))
                .unwrap()
                .outer_iter()
                .zip(lead.iter())
                .filter(|(_, keep)| **keep)
                .map(|(r, _)| r.to_owned().into_dyn())
                .collect();
            let want_shape: Vec<usize> = std::iter::once(rows.len()).chain(shape[k..].iter().copied()).collect();
            let got = x.masked(&lm).unwrap();
            prop_assert_eq!(got.shape(), want_shape.clone());
            let want: Vec<i64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
            let got = got.compute().unwrap();
            prop_assert_eq!(got.shape(), want_shape.as_slice());
            prop_assert_eq!(got.iter().copied().collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn broadcast_to_matches((shape, chunks) in shape_chunks(3, 5), lead in prop::collection::vec(0usize..4, 0..2), ones in prop::collection::vec(any::<bool>(), 3)) {
        // Squash some axes to 1, then broadcast back up (plus new leading axes).
        let small: Vec<usize> = shape.iter().zip(&ones).map(|(&n, &o)| if o { 1 } else { n }).collect();
        let small_chunks: Vec<Vec<usize>> = small.iter().zip(&chunks).map(|(&n, c)| if n == 1 { vec![1] } else { c.clone() }).collect();
        let a = numbered(&small);
        let x = chunked(&a, &small_chunks);
        let target: Vec<usize> = lead.iter().copied().chain(shape.iter().copied()).collect();
        let got = x.broadcast_to(&target).unwrap().compute().unwrap();
        prop_assert_eq!(got, a.broadcast(IxDyn(&target)).unwrap().to_owned());
    }
}

/// Scattered indices: each output block would read every input block, so over
/// the limit the input blocks are first split into the pieces each output block
/// needs; no task then reads more than one block's bytes.
#[test]
fn scattered_take_reads_pieces_not_whole_axes() {
    use chunked_array::diagnostics::Profiler;
    let a = ArrayD::from_shape_fn(IxDyn(&[200, 30]), |i| (i[0] * 30 + i[1]) as f64);
    let x = chunked(&a, &[vec![10; 20], vec![30]]);
    let block_bytes = 10 * 30 * 8;
    // A permutation with repeats and negative indices mixed in.
    let idx: Vec<isize> =
        (0..230).map(|i| if i % 7 == 0 { -((i % 200) as isize) - 1 } else { ((i * 37) % 200) as isize }).collect();
    let ids: Vec<usize> = idx.iter().map(|&i| if i < 0 { (i + 200) as usize } else { i as usize }).collect();
    let want = a.select(Axis(0), &ids);
    for limit in [3 * block_bytes, 1 << 30] {
        let y = x.take_with(&idx, 0, &BlockSizeOptions { block_size_limit: limit }).unwrap();
        let profiler = Profiler::new();
        assert_eq!(y.compute_on(&chunked_array::Context::threads(2).with_profiler(&profiler)).unwrap(), want);
        let widest = profiler.spans().iter().filter(|s| s.layer == "take").map(|s| s.input_bytes).max().unwrap();
        if limit < block_bytes * 20 {
            assert!(widest <= block_bytes, "a take task read {widest} bytes");
        } else {
            // Gathered at once: an output block reads most of the axis.
            assert!(widest > 5 * block_bytes, "{widest}");
        }
    }
    // On the other axis, and sorted indices stay one gather.
    let y = x.take_with(&[29, 0, 15, 15], 1, &BlockSizeOptions { block_size_limit: 1 }).unwrap();
    assert_eq!(y.compute().unwrap(), a.select(Axis(1), &[29, 0, 15, 15]));
    assert_eq!(
        x.take_with(&[3, 4, 5], 0, &BlockSizeOptions { block_size_limit: 1 }).unwrap().num_tasks(),
        x.take(&[3, 4, 5], 0).unwrap().num_tasks()
    );
}

/// A full-shape mask over row blocks wider than the block-size limit: the
/// blocks made one block wide past axis 0 are cut to the limit, and the
/// selection is still C order.
#[test]
fn masked_blocks_stay_under_the_limit() {
    let a = ArrayD::from_shape_fn(IxDyn(&[40, 30, 20]), |i| (i[0] * 600 + i[1] * 20 + i[2]) as f64);
    let x = chunked(&a, &[vec![10, 17, 13], vec![7; 4].into_iter().chain([2]).collect(), vec![6, 6, 6, 2]]);
    // Three rows of 30 x 20 f64 per block at most.
    let limit = 3 * 30 * 20 * 8;
    let all = Array::<bool>::full(&[40, 30, 20], true, [5, 30, 20]).unwrap();
    let got = x.masked_with(&all, &limited(limit), &Context::default()).unwrap();
    assert!(got.chunks().lengths()[0].iter().all(|&n| n <= 3 * 600), "{:?}", got.chunks().lengths());
    assert_eq!(got.compute().unwrap().iter().copied().collect::<Vec<_>>(), a.iter().copied().collect::<Vec<_>>());
    // Every third element, under a limit of one row: one row per block.
    let sparse = ArrayD::from_shape_fn(IxDyn(&[40, 30, 20]), |i| (i[0] + i[1] + i[2]) % 3 == 0);
    let m = chunked(&sparse, &[vec![40], vec![30], vec![20]]);
    let got = x.masked_with(&m, &limited(1), &Context::default()).unwrap();
    assert_eq!(got.chunks().lengths()[0].len(), 40);
    let want: Vec<f64> = a.iter().zip(sparse.iter()).filter(|(_, k)| **k).map(|(v, _)| *v).collect();
    assert_eq!(got.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
}

/// The run made while building a selection computes in the context it is
/// given: that context's profiler sees it, and its memory limit refuses the
/// probe (blocks sized as if every element were selected), so the lengths are
/// counted first and the selection stays lazy.
#[test]
fn selections_build_in_the_given_context() {
    let a = ArrayD::from_shape_fn(IxDyn(&[200, 50]), |i| (i[0] * 50 + i[1]) as f64);
    let x = chunked(&a, &[vec![40; 5], vec![50]]);
    let keep = |i: &[usize]| (i[0] + 3 * i[1]).is_multiple_of(7);
    let mask = Array::<bool>::from_fn(&[200, 50], [40, 50], move |i| keep(i)).unwrap();
    let want: Vec<f64> = a.indexed_iter().filter(|(i, _)| keep(i.slice())).map(|(_, v)| *v).collect();
    let layers = |p: &Profiler| p.spans().into_iter().map(|s| s.layer).collect::<std::collections::BTreeSet<_>>();

    // Within the limits: the selection is computed once, by the given context.
    let profiler = Profiler::new();
    let (opts, ctx) = (SelectOptions::default(), Context::sync().with_profiler(&profiler));
    let got = x.masked_with(&mask, &opts, &ctx).unwrap();
    assert!(layers(&profiler).contains("masked"), "{:?}", layers(&profiler));
    assert_eq!(got.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
    let coords = mask.argwhere_with(&opts, &ctx).unwrap();
    assert!(layers(&profiler).contains("argwhere"), "{:?}", layers(&profiler));
    assert_eq!(coords.shape(), vec![want.len(), 2]);

    // A probe task holds a 16 KB block of x, its mask and a 16 KB bound on its
    // output: past a 24 KB limit. Counting reads only the 2 KB mask blocks.
    let profiler = Profiler::new();
    let tight = Context::sync().with_memory_limit(24 << 10).with_profiler(&profiler);
    let got = x.masked_with(&mask, &SelectOptions::default(), &tight).unwrap();
    let seen = layers(&profiler);
    assert!(!seen.is_empty() && !seen.contains("masked"), "{seen:?}");
    assert_eq!(got.chunks().lengths()[0].iter().sum::<usize>(), want.len());
    assert_eq!(got.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);

    // compress_array computes its 1-d mask in the given context too.
    let profiler = Profiler::new();
    let rows = Array::<bool>::from_fn(&[200], 64, |i| i[0] % 3 == 1).unwrap();
    let picked = x.compress_array_on(&rows, 0, &Context::sync().with_profiler(&profiler)).unwrap();
    assert!(!profiler.spans().is_empty());
    let ids: Vec<usize> = (0..200).filter(|i| i % 3 == 1).collect();
    assert_eq!(picked.compute().unwrap(), a.select(Axis(0), &ids));
}

/// A selection's blocks can hold nothing; the operations that realign blocks
/// (reshape, elementwise with other chunks, matmul, rechunk) take such arrays
/// (every property test also draws chunkings with empty blocks).
#[test]
fn selections_with_empty_blocks_flow_on() {
    let a = ArrayD::from_shape_fn(IxDyn(&[6, 4]), |i| (i[0] * 4 + i[1]) as f64);
    let x = chunked(&a, &[vec![2, 2, 2], vec![4]]);
    // Only the middle row block keeps anything: blocks of 0, 8 and 0 elements.
    let rows = Array::<bool>::from_fn(&[6], 2, |i| i[0] == 2 || i[0] == 3).unwrap();
    let y = x.masked(&rows).unwrap();
    assert_eq!(y.shape(), vec![2, 4]);
    let flat = x.masked(&(&x.ge(8.0).unwrap() & &x.lt(16.0).unwrap())).unwrap();
    assert!(flat.chunks().lengths()[0].contains(&0), "{:?}", flat.chunks().lengths());
    let want: Vec<f64> = (8..16).map(f64::from).collect();
    assert_eq!(flat.reshape(&[2, 4]).unwrap().compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
    let other = Array::<f64>::ones(&[8], 3).unwrap();
    assert_eq!(
        (&flat + &other).compute().unwrap().iter().copied().collect::<Vec<_>>(),
        want.iter().map(|v| v + 1.0).collect::<Vec<_>>()
    );
    let regrouped = flat.rechunk(vec![vec![0, 5, 0, 3]]).unwrap();
    assert_eq!(regrouped.chunks().lengths()[0], vec![0, 5, 0, 3]);
    assert_eq!(regrouped.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
    let w = Array::<f64>::ones(&[4, 3], [3, 3]).unwrap();
    let product = flat.reshape(&[2, 4]).unwrap().matmul(&w).unwrap().compute().unwrap();
    assert_eq!(product.iter().copied().collect::<Vec<_>>(), vec![38.0, 38.0, 38.0, 54.0, 54.0, 54.0]);
}

#[test]
fn indexing_errors() {
    let x = Array::<f64>::zeros(&[4, 3], 2).unwrap();
    assert!(x.take(&[4], 0).unwrap_err().to_string().contains("out of range for axis 0 of length 4"));
    // NumPy's compress: a short mask leaves the rest out; a long one may not
    // be true past the axis.
    assert_eq!(x.compress(&[true, false], 0).unwrap().shape(), vec![1, 3]);
    assert_eq!(x.compress(&[false, true, false, true, false, false], 0).unwrap().shape(), vec![2, 3]);
    let past = x.compress(&[false, false, false, false, true], 0).unwrap_err().to_string();
    assert!(past.contains("true at position 4") && past.contains("axis 0 of length 4"), "{past}");
    // A mask of neither the whole shape nor its leading part.
    assert!(x.masked(&Array::<bool>::zeros(&[3], 2).unwrap()).unwrap_err().to_string().contains("[4, 3]"));
    assert!(x.masked(&Array::<bool>::zeros(&[4, 3, 1], 2).unwrap()).is_err());
    // Rows of nothing: the count still comes from the mask.
    let none_wide = Array::<f64>::zeros(&[4, 0], 2).unwrap();
    let rows = Array::<bool>::from_fn(&[4], 2, |i| i[0] != 1).unwrap();
    assert_eq!(none_wide.masked(&rows).unwrap().shape(), vec![3, 0]);
    assert!(x.broadcast_to(&[4, 5]).is_err());
    assert!(x.broadcast_to(&[3]).is_err());
    assert!(matches!(x.take(&[0], 2), Err(chunked_array::Error::BadAxis { axis: 2, ndim: 2, .. })));
    assert!(x.take(&[-5], 0).is_err());
    assert_eq!(x.take(&[-4], 0).unwrap().shape(), vec![1, 3]);
    let mask2d = Array::<bool>::full(&[4, 3], true, 2).unwrap();
    assert!(x.compress_array(&mask2d, 0).unwrap_err().to_string().contains("1-d"));
    assert_eq!(x.compress_array(&Array::<bool>::full(&[3], true, 2).unwrap(), 0).unwrap().shape(), vec![3, 3]);
    assert!(x.compress_array(&Array::<bool>::full(&[5], true, 2).unwrap(), 0).is_err());
    assert!(x.compress_array(&Array::<bool>::full(&[4], true, 2).unwrap(), 2).is_err());
}

#[test]
fn lazy_masks_of_any_layout() {
    // A mask whose computed single block is reversed (negative strides).
    let m = Array::<bool>::from_fn(&[5], 5, |i| i[0] % 2 == 0).unwrap();
    let flipped = m.map_blocks(|b, _| b.to_owned().slice_move(ndarray::s![..;-1]).into_dyn(), None).unwrap();
    let x = Array::<i64>::arange(0, 5, 1, 2).unwrap();
    assert_eq!(
        x.compress_array(&flipped, 0).unwrap().compute().unwrap().iter().cloned().collect::<Vec<_>>(),
        vec![0, 2, 4]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn argwhere_and_nonzero((shape, chunks) in shape_chunks(3, 6), bits in prop::collection::vec(0i64..3, 216), limit in prop_oneof![Just(1usize), Just(1 << 20)]) {
        prop_assume!(!shape.is_empty());
        // Zeros where the random digit is 0.
        let a = ArrayD::from_shape_vec(IxDyn(&shape), bits[..shape.iter().product::<usize>()].to_vec()).unwrap();
        let x = chunked(&a, &chunks);
        let want: Vec<Vec<i64>> = a.indexed_iter().filter(|&(_, &v)| v != 0).map(|(i, _)| i.as_array_view().iter().map(|&p| p as i64).collect()).collect();
        let got = x.argwhere_with(&limited(limit), &Context::default()).unwrap();
        prop_assert_eq!(got.shape(), vec![want.len(), shape.len()]);
        if limit == 1 && shape[0] > 0 {
            // Under a one-byte limit each row of the input is its own block.
            prop_assert_eq!(got.chunks().lengths()[0].len(), shape[0]);
        }
        let rows: Vec<Vec<i64>> = got.compute().unwrap().outer_iter().map(|r| r.iter().copied().collect()).collect();
        prop_assert_eq!(&rows, &want);
        // A bool array gives the same coordinates; nonzero gives them by axis.
        let columns = x.ne(0).unwrap().nonzero().unwrap();
        prop_assert_eq!(columns.len(), shape.len());
        for (axis, column) in columns.iter().enumerate() {
            let want_axis: Vec<i64> = want.iter().map(|r| r[axis]).collect();
            prop_assert_eq!(column.compute().unwrap().iter().copied().collect::<Vec<_>>(), want_axis);
        }
    }
}

#[test]
fn argwhere_of_0d_and_nonzero_errors() {
    let five = Array::<f64>::full(&[], 5.0, 1).unwrap();
    assert_eq!(five.argwhere().unwrap().shape(), vec![1, 0]);
    let zero = Array::<f64>::full(&[], 0.0, 1).unwrap();
    assert_eq!(zero.argwhere().unwrap().shape(), vec![0, 0]);
    assert!(five.nonzero().unwrap_err().to_string().contains("at least one axis"));
    // NaN is non-zero, as in NumPy.
    let x = Array::<f64>::from_ndarray(ndarray::arr1(&[0.0, f64::NAN, -0.0, 2.0]), [2]).unwrap();
    let got = x.argwhere().unwrap().compute().unwrap();
    assert_eq!(got.iter().copied().collect::<Vec<_>>(), vec![1, 3]);
}

#[test]
fn argwhere_reads_masks_of_any_layout() {
    // Blocks that map_blocks returns flipped (negative strides, not C-order
    // memory) give the coordinates of their elements as the block shows them.
    let base = Array::<f64>::from_fn(&[7, 150], [3, 100], |i| ((i[0] * 31 + i[1] * 7) % 5) as f64).unwrap();
    let flipped = base.map_blocks(|b, _| b.to_owned().slice_move(ndarray::s![..;-1, ..;-1]).into_dyn(), None).unwrap();
    let shown = flipped.compute().unwrap();
    let want: Vec<i64> =
        shown.indexed_iter().filter(|&(_, &v)| v == 0.0).flat_map(|(i, _)| [i[0] as i64, i[1] as i64]).collect();
    assert!(!want.is_empty());
    let got = flipped.eq(0.0).unwrap().argwhere().unwrap().compute().unwrap();
    assert_eq!(got.iter().copied().collect::<Vec<_>>(), want);
}

/// A mask over (40, 10) in blocks of 10 rows whose elements count how often
/// they are made: true where the row and column are both multiples of 3.
fn counted_mask() -> (Array<bool>, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let made = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = made.clone();
    let mask = Array::<bool>::from_fn(&[40, 10], [10, 10], move |i| {
        seen.fetch_add(1, Ordering::Relaxed);
        i[0] % 3 == 0 && i[1] % 3 == 0
    })
    .unwrap();
    (mask, made)
}

#[test]
fn small_selections_are_computed_once() {
    use std::sync::atomic::Ordering;
    let want: Vec<i64> = (0..40).step_by(3).flat_map(|r| (0..10).step_by(3).flat_map(move |c| [r, c])).collect();
    // Under the limit: the building run's blocks are the result, and computing
    // it makes no element again.
    let (mask, made) = counted_mask();
    let w = mask.argwhere().unwrap();
    assert_eq!(made.load(Ordering::Relaxed), 400, "one pass over the mask");
    assert_eq!(w.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
    assert_eq!(made.load(Ordering::Relaxed), 400, "no pass at compute");
    let values = Array::<i64>::from_fn(&[40, 10], [10, 5], |i| (i[0] * 10 + i[1]) as i64).unwrap();
    let (mask, made) = counted_mask();
    let picked = values.masked(&mask).unwrap();
    assert_eq!(made.load(Ordering::Relaxed), 400);
    let want_values: Vec<i64> = want.chunks(2).map(|rc| rc[0] * 10 + rc[1]).collect();
    assert_eq!(picked.compute().unwrap().iter().copied().collect::<Vec<_>>(), want_values);
    assert_eq!(made.load(Ordering::Relaxed), 400);
    // Over the limit (8 bytes): the first run stops, the counts come from the
    // mask, and computing the result selects again.
    let (mask, made) = counted_mask();
    let w = mask.argwhere_with(&limited(8), &Context::default()).unwrap();
    let built = made.load(Ordering::Relaxed);
    assert!((400..=800).contains(&built), "{built}");
    assert_eq!(w.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
    assert_eq!(made.load(Ordering::Relaxed), built + 400);
}

#[test]
fn a_mask_that_changes_between_runs_is_an_error() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Its trues move on every run: counted once, selected differently later.
    let runs = std::sync::Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let mask = Array::<bool>::from_fn(&[4, 4], [4, 4], move |i| {
        let run = r.fetch_add(1, Ordering::Relaxed) / 16;
        i[0] * 4 + i[1] <= run
    })
    .unwrap();
    let w = mask.argwhere_with(&limited(1), &Context::default()).unwrap();
    let e = w.compute().unwrap_err().to_string();
    assert!(e.contains("mask changed between runs"), "{e}");
}

#[test]
fn selections_of_selections() {
    // The first selection has an empty block (nothing over 5 in 0..5); selecting
    // from it again must not trip over that block.
    let x = Array::<i64>::arange(0, 10, 1, 5).unwrap();
    let y = x.masked(&x.gt(5).unwrap()).unwrap();
    assert_eq!(y.chunks().lengths()[0], vec![0, 4]);
    let z = y.masked(&y.lt(8).unwrap()).unwrap();
    assert_eq!(z.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![6, 7]);
    assert_eq!(y.argwhere().unwrap().compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(y.nonzero().unwrap()[0].compute().unwrap().len(), 4);
    // Past the limit (the two-pass path) as well.
    let z = y.masked_with(&y.lt(8).unwrap(), &limited(1), &Context::default()).unwrap();
    assert_eq!(z.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![6, 7]);
}
