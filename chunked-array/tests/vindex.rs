//! vindex (point-wise indexing) against ndarray indexing of the whole array.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use chunked_array::Array;
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

/// NumPy's `x[i0, i1, ...]` with 1-d integer lists: one row of the trailing
/// axes per point, lists of length 1 repeated.
fn oracle(a: &ArrayD<i64>, indices: &[Vec<isize>]) -> ArrayD<i64> {
    let points = indices.iter().map(Vec::len).max().unwrap_or(0);
    let points = if indices.iter().any(|l| l.len() != 1) { indices.iter().map(Vec::len).filter(|&l| l != 1).max().unwrap() } else { points };
    let rows: Vec<ArrayD<i64>> = (0..points)
        .map(|p| {
            let mut v = a.view();
            for (ax, list) in indices.iter().enumerate() {
                let i = list[if list.len() == 1 { 0 } else { p }];
                let n = a.shape()[ax] as isize;
                let g = if i < 0 { i + n } else { i } as usize;
                v = v.index_axis_move(Axis(0), g);
            }
            v.insert_axis(Axis(0)).to_owned()
        })
        .collect();
    let mut shape = vec![0];
    shape.extend_from_slice(&a.shape()[indices.len()..]);
    if rows.is_empty() {
        return ArrayD::zeros(IxDyn(&shape));
    }
    ndarray::concatenate(Axis(0), &rows.iter().map(|r| r.view()).collect::<Vec<_>>()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn vindex_matches_numpy((shape, chunks) in shape_chunks(3, 6).prop_filter("an axis to index", |(s, _)| !s.is_empty() && s[0] > 0),
                            k in 1usize..4, points in 0usize..30, raw in prop::collection::vec((any::<u32>(), any::<bool>()), 90), broadcast in 0usize..4) {
        let k = k.min(shape.len());
        prop_assume!(shape[..k].iter().all(|&n| n > 0) || points == 0);
        let a = ArrayD::from_shape_fn(IxDyn(&shape), |i| i.as_array_view().iter().fold(1i64, |acc, &v| acc * 10 + v as i64));
        let x = chunked(&a, &chunks);
        // In-range indices, some negative; list `broadcast` (if any) of length 1.
        let indices: Vec<Vec<isize>> = (0..k)
            .map(|ax| {
                let n = shape[ax].max(1) as isize;
                let len = if ax == broadcast && points > 0 { 1 } else { points };
                (0..len).map(|p| { let (r, neg) = raw[(ax * 30 + p) % raw.len()]; let i = r as isize % n; if neg { i - n } else { i } }).collect()
            })
            .collect();
        let lists: Vec<&[isize]> = indices.iter().map(Vec::as_slice).collect();
        let got = x.vindex(&lists).unwrap();
        let want = oracle(&a, &indices);
        prop_assert_eq!(got.shape(), want.shape().to_vec());
        prop_assert_eq!(got.compute().unwrap(), want);
    }
}

#[test]
fn points_read_only_their_blocks() {
    // A 100 x 100 source in 10 x 10 blocks that counts the elements it makes:
    // three points in two blocks read 200 elements, not 10000.
    let made = Arc::new(AtomicUsize::new(0));
    let counter = made.clone();
    let x = Array::<i64>::from_fn(&[100, 100], [10, 10], move |i| {
        counter.fetch_add(1, Ordering::Relaxed);
        (i[0] * 1000 + i[1]) as i64
    })
    .unwrap();
    let y = x.vindex(&[&[5, 99, 7], &[3, 98, 1]]).unwrap();
    assert_eq!(y.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![5003, 99098, 7001]);
    assert_eq!(made.load(Ordering::Relaxed), 200);
}

#[test]
fn output_blocks_hold_an_input_blocks_worth_of_points() {
    // 30 x 40 in 10 x 20 blocks: 200 points per output block. Scattered
    // points (every block, in no order) and sorted ones (one block per
    // output block, no reordering layer) both match the oracle.
    let a = ArrayD::from_shape_fn(IxDyn(&[30, 40]), |i| (i[0] * 100 + i[1]) as i64);
    let x = chunked(&a, &[vec![10, 10, 10], vec![20, 20]]);
    let n = 450;
    let rows: Vec<isize> = (0..n).map(|p| ((p * 7) % 30) as isize).collect();
    let cols: Vec<isize> = (0..n).map(|p| ((p * 13) % 40) as isize).collect();
    let y = x.vindex(&[&rows, &cols]).unwrap();
    assert_eq!(y.chunks().lengths()[0], vec![200, 200, 50]);
    assert_eq!(y.compute().unwrap(), oracle(&a, &[rows, cols]));
    let rows: Vec<isize> = (0..n).map(|p| (p / 45) as isize).collect();
    let cols: Vec<isize> = (0..n).map(|p| (p % 20) as isize).collect();
    let y = x.vindex(&[&rows, &cols]).unwrap();
    assert_eq!(y.compute().unwrap(), oracle(&a, &[rows, cols]));
    // Rows of a 3-d array: the trailing axis keeps its blocks.
    let b = ArrayD::from_shape_fn(IxDyn(&[6, 5, 7]), |i| (i[0] * 100 + i[1] * 10 + i[2]) as i64);
    let z = chunked(&b, &[vec![2, 4], vec![3, 2], vec![3, 4]]);
    let y = z.vindex(&[&[5, 0, -1], &[4, 0, 2]]).unwrap();
    assert_eq!(y.chunks().lengths()[1], vec![3, 4]);
    let want = ArrayD::from_shape_fn(IxDyn(&[3, 7]), |i| b[[[5, 0, 5][i[0]], [4, 0, 2][i[0]], i[1]]]);
    assert_eq!(y.compute().unwrap(), want);
}

#[test]
fn vindex_errors_name_the_bad_input() {
    let x = Array::<f64>::zeros(&[4, 5], 2).unwrap();
    let e = x.vindex(&[&[0, 4], &[1, 1]]).unwrap_err().to_string();
    assert!(e.contains("index = 4") && e.contains("axis 0 of length 4") && e.contains("point 1"), "{e}");
    let e = x.vindex(&[&[0], &[-6]]).unwrap_err().to_string();
    assert!(e.contains("-6") && e.contains("axis 1 of length 5"), "{e}");
    let e = x.vindex(&[&[0, 1, 2], &[1, 1]]).unwrap_err().to_string();
    assert!(e.contains("list 1 has 2 indices where another has 3"), "{e}");
    assert!(x.vindex(&[]).is_err());
    assert!(x.vindex(&[&[0], &[0], &[0]]).unwrap_err().to_string().contains("1 to 2"));
    // No points: an empty result with the trailing axes.
    let none: &[isize] = &[];
    assert_eq!(x.vindex(&[none]).unwrap().compute().unwrap().shape(), &[0, 5]);
}
