//! unique, bincount, searchsorted and nanargmin/nanargmax against plain
//! loops over the whole array (a BTreeMap of values, counts and first
//! positions; a linear scan for insertion points), over irregular chunkings
//! with empty blocks, ties, NaN and signed zeros, and against NumPy's values.

use std::collections::BTreeMap;

use chunked_array::ndarray::{ArrayD, Axis, IxDyn};
use chunked_array::{Array, Context, Error, UniqueOptions};

const ALL: UniqueOptions = UniqueOptions { return_index: true, return_inverse: true, return_counts: true };

fn ints(n: usize, distinct: u64, seed: u64) -> Vec<i64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % distinct) as i64 - 3
        })
        .collect()
}

#[test]
fn unique_of_a_million_ints_with_ten_values_matches_a_map() {
    let data = ints(1_000_000, 10, 5);
    let x = Array::from_vec(&[1000, 1000], data.clone(), vec![vec![300, 0, 700], vec![999, 1]]).unwrap();
    let u = x.unique_with(&ALL, &Context::threads(2)).unwrap();
    // value -> (count, first flat index)
    let mut map: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
    for (i, &v) in data.iter().enumerate() {
        map.entry(v).or_insert((0, i as i64)).0 += 1;
    }
    let values: Vec<i64> = map.keys().copied().collect();
    assert_eq!(u.values.compute().unwrap().as_slice().unwrap(), values.as_slice());
    let counts: Vec<i64> = map.values().map(|c| c.0).collect();
    assert_eq!(u.counts.unwrap().compute().unwrap().as_slice().unwrap(), counts.as_slice());
    let first: Vec<i64> = map.values().map(|c| c.1).collect();
    assert_eq!(u.index.unwrap().compute().unwrap().as_slice().unwrap(), first.as_slice());
    let inverse = u.inverse.unwrap().compute().unwrap();
    assert_eq!(inverse.shape(), &[1000, 1000]);
    assert!(inverse.iter().zip(&data).all(|(&i, &v)| values[i as usize] == v));
}

#[test]
fn unique_of_floats_follows_numpy() {
    // np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    // of [[3, nan, 1], [-0., 0., nan]], printed by NumPy 2.4.
    let x = Array::from_vec(&[2, 3], vec![3.0, f64::NAN, 1.0, -0.0, 0.0, f64::NAN], [1, 2]).unwrap();
    let u = x.unique_with(&ALL, &Context::sync()).unwrap();
    let values = u.values.compute().unwrap();
    assert_eq!(values.len(), 4);
    assert!(values[[0]] == 0.0 && values[[0]].is_sign_negative() && values[[3]].is_nan(), "{values}");
    assert_eq!(values.slice(chunked_array::ndarray::s![1..3]).to_vec(), vec![1.0, 3.0]);
    assert_eq!(u.index.unwrap().compute().unwrap().as_slice().unwrap(), &[3, 2, 0, 1]);
    assert_eq!(u.inverse.unwrap().compute().unwrap().as_slice().unwrap(), &[2, 3, 1, 0, 0, 3]);
    assert_eq!(u.counts.unwrap().compute().unwrap().as_slice().unwrap(), &[2, 1, 1, 2]);
    let empty = Array::<f32>::from_vec(&[0], vec![], 1).unwrap();
    assert_eq!(empty.unique().unwrap().shape(), vec![0]);
}

#[test]
fn bincount_matches_a_loop() {
    let data: Vec<i64> = ints(10_007, 40, 9).into_iter().map(|v| v + 3).collect();
    let x = Array::from_vec(&[10_007], data.clone(), vec![vec![5000, 0, 4000, 1007]]).unwrap();
    let weights: Vec<f64> = (0..data.len()).map(|i| (i % 7) as f64 * 0.25).collect();
    let w = Array::from_vec(&[10_007], weights.clone(), 3000).unwrap();
    let (mut counts, mut sums) = (vec![0_i64; 45], vec![0.0; 45]);
    for (&v, &wt) in data.iter().zip(&weights) {
        counts[v as usize] += 1;
        sums[v as usize] += wt;
    }
    let got = x.bincount(45).unwrap().compute().unwrap();
    assert_eq!(got.as_slice().unwrap(), counts.as_slice());
    let got = x.bincount(0).unwrap().compute().unwrap();
    assert_eq!(got.as_slice().unwrap(), &counts[..40], "the largest value is 39");
    let got = x.bincount_weighted(&w, 45).unwrap().compute().unwrap();
    assert!(got.iter().zip(&sums).all(|(g, s)| (g - s).abs() < 1e-9), "{got}");
    let empty = Array::<u8>::from_vec(&[0], vec![], 1).unwrap();
    assert_eq!(empty.bincount(3).unwrap().compute().unwrap().as_slice().unwrap(), &[0, 0, 0]);
}

#[test]
fn bad_bincount_inputs_are_errors_naming_them() {
    let x = Array::<i32>::from_vec(&[3], vec![1, -2, 3], 2).unwrap();
    let e = x.bincount(0).unwrap_err().to_string();
    assert!(e.contains("-2") && e.contains("non-negative"), "{e}");
    let big = Array::<i64>::from_vec(&[2], vec![1, 1 << 40], 2).unwrap();
    let e = big.bincount(0).unwrap_err().to_string();
    assert!(e.contains("1099511627777"), "{e}");
    let w = Array::<f64>::ones(&[4], 2).unwrap();
    assert!(matches!(x.bincount_weighted(&w, 0), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn searchsorted_matches_a_scan_on_both_sides() {
    let mut sorted: Vec<f64> = ints(500, 30, 2).into_iter().map(|v| v as f64 * 0.5).collect();
    sorted.extend([f64::NAN, f64::NAN]);
    sorted.sort_by(|a, b| {
        a.partial_cmp(b).unwrap_or(if a.is_nan() { std::cmp::Ordering::Greater } else { std::cmp::Ordering::Less })
    });
    let a = Array::from_vec(&[502], sorted.clone(), vec![vec![100, 0, 300, 102]]).unwrap();
    let probes: Vec<f64> = (-8..40).map(|i| i as f64 * 0.25).chain([f64::NAN, f64::INFINITY]).collect();
    let v = Array::from_vec(&[2, 25], probes.clone(), [1, 10]).unwrap();
    for right in [false, true] {
        let got = a.searchsorted(&v, right).unwrap().compute().unwrap();
        assert_eq!(got.shape(), &[2, 25]);
        for (g, p) in got.iter().zip(&probes) {
            // NaN sorts after every number, and equals NaN.
            let before = |s: &f64| match (s.is_nan(), p.is_nan()) {
                (true, true) => right,
                (true, false) => false,
                (false, true) => true,
                _ => s < p || (right && s == p),
            };
            assert_eq!(*g, sorted.iter().filter(|s| before(s)).count() as i64, "{p} right {right}");
        }
    }
    let e = Array::<f64>::ones(&[2, 2], 1).unwrap().searchsorted(&v, false).unwrap_err().to_string();
    assert!(e.contains("[2, 2]") && e.contains("1-D"), "{e}");
}

#[test]
fn nanargmin_and_nanargmax_skip_nan_and_refuse_all_nan_lanes() {
    let whole = ArrayD::from_shape_fn(IxDyn(&[6, 7]), |i| match (i[0] * 7 + i[1]) % 9 {
        2 | 5 => f64::NAN,
        r => (r % 4) as f64 - 1.0, // ties
    });
    let x = Array::from_ndarray(whole.clone(), vec![vec![2, 0, 4], vec![3, 4]]).unwrap();
    let best = |lane: &[f64], max: bool| -> i64 {
        let mut best: Option<(usize, f64)> = None;
        for (i, &v) in lane.iter().enumerate() {
            if !v.is_nan() && best.is_none_or(|(_, b)| if max { v > b } else { v < b }) {
                best = Some((i, v));
            }
        }
        best.map_or(-1, |(i, _)| i as i64)
    };
    for max in [false, true] {
        let pick = |axis| if max { x.nanargmax(axis) } else { x.nanargmin(axis) };
        let flat: Vec<f64> = whole.iter().copied().collect();
        assert_eq!(pick(None).unwrap().compute_scalar().unwrap(), best(&flat, max));
        for axis in 0..2 {
            let got = pick(Some(axis as isize)).unwrap().compute().unwrap();
            let want = whole.map_axis(Axis(axis), |l| best(&l.to_vec(), max));
            assert_eq!(got, want, "max {max} axis {axis}");
        }
    }
    let nan_row = Array::from_vec(&[2, 2], vec![1.0, 2.0, f64::NAN, f64::NAN], 1).unwrap();
    let e = nan_row.nanargmin(Some(1)).unwrap().compute().unwrap_err().to_string();
    assert!(e.contains("All-NaN"), "{e}");
}
