//! vindex (point-wise indexing) against ndarray indexing of the whole array.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chunked_array::{Array, Idx, VIdx};
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

/// NumPy's `x[i0, i1, ...]` with 1-d integer lists: one row of the trailing
/// axes per point, lists of length 1 repeated.
fn oracle(a: &ArrayD<i64>, indices: &[Vec<isize>]) -> ArrayD<i64> {
    let points = indices.iter().map(Vec::len).max().unwrap_or(0);
    let points = if indices.iter().any(|l| l.len() != 1) {
        indices.iter().map(Vec::len).filter(|&l| l != 1).max().unwrap()
    } else {
        points
    };
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
    assert!(e.contains("[[3], [2]]") && e.contains("do not broadcast"), "{e}");
    assert!(x.vindex(&[]).is_err());
    assert!(x.vindex(&[&[0], &[0], &[0]]).unwrap_err().to_string().contains("1 to 2"));
    // No points: an empty result with the trailing axes.
    let none: &[isize] = &[];
    assert_eq!(x.vindex(&[none]).unwrap().compute().unwrap().shape(), &[0, 5]);
}

/// One entry of a vindex expression as the oracle sees it.
#[derive(Debug, Clone)]
enum Entry {
    /// Index array: its shape (a broadcastable suffix of the broadcast shape)
    /// and its values in C order.
    Points(Vec<usize>, Vec<isize>),
    Index(isize),
    Slice(Option<isize>, Option<isize>, isize),
}

/// dask's `x.vindex[...]` on the whole array, element by element: the
/// broadcast shape first, then the sliced axes in order.
fn vindex_oracle(a: &ArrayD<i64>, entries: &[Entry], lead: &[usize]) -> ArrayD<i64> {
    let n = |ax: usize| a.shape()[ax] as isize;
    let sliced: Vec<(usize, Vec<usize>)> = entries
        .iter()
        .enumerate()
        .filter_map(|(ax, e)| {
            if let Entry::Slice(b, c, d) = e { Some((ax, numpy_indices(*b, *c, *d, a.shape()[ax]))) } else { None }
        })
        .collect();
    let mut shape = lead.to_vec();
    shape.extend(sliced.iter().map(|(_, p)| p.len()));
    ArrayD::from_shape_fn(IxDyn(&shape), |i| {
        let i = i.as_array_view().to_vec();
        let (point, rest) = i.split_at(lead.len());
        let mut at = vec![0usize; a.ndim()];
        let mut r = rest.iter();
        for (ax, e) in entries.iter().enumerate() {
            let g = match e {
                Entry::Index(k) => *k,
                Entry::Slice(..) => {
                    *sliced.iter().find(|s| s.0 == ax).unwrap().1.get(*r.next().unwrap()).unwrap() as isize
                }
                Entry::Points(s, v) => {
                    // Right-aligned against the point's index; length-1 axes read 0.
                    let p = &point[lead.len() - s.len()..];
                    let flat = p.iter().zip(s).fold(0, |acc, (&pi, &si)| acc * si + if si == 1 { 0 } else { pi });
                    v[flat]
                }
            };
            at[ax] = (if g < 0 { g + n(ax) } else { g }) as usize;
        }
        a[IxDyn(&at)]
    })
}

/// Entries for an array of `shape`: per axis a drawn kind, index arrays
/// broadcasting to `lead`.
fn entries_for(shape: &[usize], lead: &[usize], kinds: &[(u8, u32, u32, bool)]) -> Vec<Entry> {
    shape
        .iter()
        .zip(kinds)
        .map(|(&n, &(kind, r1, r2, neg))| {
            let ni = n.max(1) as isize;
            let index = |r: u32| {
                let i = r as isize % ni;
                if neg { i - ni } else { i }
            };
            match kind % 4 {
                0 | 1 if n > 0 => {
                    // A suffix of the broadcast shape, some axes stretched.
                    let take = (r1 as usize) % (lead.len() + 1);
                    let s: Vec<usize> = lead[lead.len() - take..]
                        .iter()
                        .enumerate()
                        .map(|(k, &m)| if (r2 >> k) & 1 == 1 { 1 } else { m })
                        .collect();
                    let len: usize = s.iter().product();
                    let v =
                        (0..len).map(|p| index(r1.wrapping_mul(2654435761).wrapping_add(p as u32 * 40503))).collect();
                    Entry::Points(s, v)
                }
                2 if n > 0 => Entry::Index(index(r1)),
                _ => {
                    let step = [1, 2, -1, -3][(r2 % 4) as usize];
                    let bound = |r: u32| {
                        if r.is_multiple_of(5) { None } else { Some((r as isize % (ni + 3)) - (ni + 3) / 2) }
                    };
                    Entry::Slice(bound(r1), bound(r2 / 7), step)
                }
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn vindex_at_matches_dask((shape, chunks) in shape_chunks(4, 6), lead in prop::collection::vec(0usize..4, 0..3),
                              kinds in prop::collection::vec((any::<u8>(), any::<u32>(), any::<u32>(), any::<bool>()), 4),
                              ellipsis in any::<bool>()) {
        let a = ArrayD::from_shape_fn(IxDyn(&shape), |i| i.as_array_view().iter().fold(1i64, |acc, &v| acc * 10 + v as i64));
        let x = chunked(&a, &chunks);
        let entries = entries_for(&shape, &lead, &kinds);
        let arrays: Vec<ArrayD<isize>> = entries
            .iter()
            .filter_map(|e| if let Entry::Points(s, v) = e { Some(ArrayD::from_shape_vec(IxDyn(s), v.clone()).unwrap()) } else { None })
            .collect();
        let mut arrays_left = arrays.iter();
        let mut index: Vec<VIdx> = entries
            .iter()
            .map(|e| match e {
                Entry::Points(..) => VIdx::from(arrays_left.next().unwrap()),
                Entry::Index(k) => Idx::Index(*k).into(),
                Entry::Slice(b, c, d) => Idx::stepped(*b, *c, *d).into(),
            })
            .collect();
        // Trailing full slices may be left to an ellipsis.
        if ellipsis {
            while matches!(index.last(), Some(VIdx::Basic(i)) if *i == Idx::FULL) {
                index.pop();
            }
            index.push(Idx::Ellipsis.into());
        }
        let got = x.vindex_at(&index).unwrap();
        // The index arrays' own broadcast shape leads (a stretched axis of
        // every array, or no arrays at all, make it shorter than `lead`).
        let lead_of = |k: usize| -> usize { arrays.iter().filter_map(|p| { let d = p.ndim(); (k + d >= lead.len()).then(|| p.shape()[k + d - lead.len()]) }).find(|&m| m != 1).unwrap_or(1) };
        let ndim_lead = arrays.iter().map(|p| p.ndim()).max();
        let real_lead: Vec<usize> = match ndim_lead { None => vec![], Some(d) => (lead.len() - d..lead.len()).map(lead_of).collect() };
        let want = vindex_oracle(&a, &entries, &real_lead);
        prop_assert_eq!(got.shape(), want.shape().to_vec());
        // Output blocks tile the result.
        prop_assert_eq!(got.chunks().shape(), want.shape().to_vec());
        prop_assert_eq!(got.compute().unwrap(), want);
    }
}

#[test]
fn index_arrays_of_any_shape_and_their_blocks() {
    // A 3-d source in irregular blocks, indexed on its middle and last axes by
    // 2-d arrays broadcasting to (6, 50): the broadcast shape leads, the first
    // axis follows, and output blocks are runs of whole rows of 50 points.
    let b = ArrayD::from_shape_fn(IxDyn(&[4, 30, 20]), |i| (i[0] * 10000 + i[1] * 100 + i[2]) as i64);
    let x = chunked(&b, &[vec![1, 3], vec![10, 10, 10], vec![5, 15]]);
    let rows = ArrayD::from_shape_fn(IxDyn(&[6, 50]), |i| ((i[0] * 50 + i[1]) * 7 % 30) as isize);
    let cols = ArrayD::from_shape_fn(IxDyn(&[1, 50]), |i| -((i[1] % 20) as isize) - 1);
    let y = x.vindex_at(&[Idx::FULL.into(), (&rows).into(), (&cols).into()]).unwrap();
    assert_eq!(y.shape(), vec![6, 50, 4]);
    // 10 x 15 positions per input block along the indexed axes: 3 rows of 50.
    assert_eq!(y.chunks().lengths(), &[vec![3, 3], vec![50], vec![1, 3]]);
    let want =
        ArrayD::from_shape_fn(IxDyn(&[6, 50, 4]), |i| b[[i[2], rows[[i[0], i[1]]] as usize, (20 - 1 - i[1] % 20)]]);
    assert_eq!(y.compute().unwrap(), want);
    // An integer drops its axis before the points are taken; a 0-d index
    // array drops its axis too.
    let y = x.vindex_at(&[Idx::Index(-1).into(), (&rows).into(), Idx::range(2, 9).into()]).unwrap();
    assert_eq!(
        y.compute().unwrap(),
        ArrayD::from_shape_fn(IxDyn(&[6, 50, 7]), |i| b[[3, rows[[i[0], i[1]]] as usize, i[2] + 2]])
    );
    let zero_d = ArrayD::from_elem(IxDyn(&[]), 7isize);
    let y = x.vindex_at(&[Idx::Ellipsis.into(), (&zero_d).into()]).unwrap();
    assert_eq!(y.compute().unwrap(), b.index_axis(Axis(2), 7).to_owned());
    // No points along a broadcast axis: an empty (0, 50, 4) array.
    let none = ArrayD::<isize>::zeros(IxDyn(&[0, 1]));
    assert_eq!(
        x.vindex_at(&[Idx::FULL.into(), (&none).into(), (&cols).into()]).unwrap().compute().unwrap().shape(),
        &[0, 50, 4]
    );
}

#[test]
fn vindex_at_errors_name_the_bad_input() {
    let x = Array::<f64>::zeros(&[4, 5, 6], 2).unwrap();
    let r = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| i[1] as isize);
    let c = ArrayD::from_shape_fn(IxDyn(&[2, 2]), |i| i[1] as isize);
    let e = x.vindex_at(&[(&r).into(), (&c).into()]).unwrap_err().to_string();
    assert!(e.contains("[[2, 3], [2, 2]]") && e.contains("do not broadcast"), "{e}");
    let big = ArrayD::from_shape_fn(IxDyn(&[2, 3]), |i| if i == IxDyn(&[1, 2]) { 6 } else { 0 });
    let e = x.vindex_at(&[Idx::Index(0).into(), Idx::FULL.into(), (&big).into()]).unwrap_err().to_string();
    assert!(e.contains("index = 6") && e.contains("axis 2 of length 6") && e.contains("point 5, at [1, 2]"), "{e}");
    let e = x.vindex_at(&[Idx::Ellipsis.into(), Idx::Ellipsis.into()]).unwrap_err().to_string();
    assert!(e.contains("at most one ellipsis"), "{e}");
    let e = x.vindex_at(&[(&r).into(), Idx::FULL.into(), Idx::FULL.into(), Idx::FULL.into()]).unwrap_err().to_string();
    assert!(e.contains("4 entries") && e.contains("3 dimensions"), "{e}");
    assert!(x.vindex_at(&[Idx::NewAxis.into(), (&r).into()]).unwrap_err().to_string().contains("expand_dims"));
    // A bad basic entry is slice's error.
    assert!(x.vindex_at(&[Idx::Index(4).into(), (&r).into()]).unwrap_err().to_string().contains("axis 0 of length 4"));
}
