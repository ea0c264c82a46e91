//! Sorting along an axis against std's sorts of each lane of the whole array
//! (NaN last, equal values in their order for argsort), over irregular
//! chunkings with empty blocks, ties and NaN; topk against the sorted lanes.

use chunked_array::ndarray::{ArrayD, Axis, IxDyn};
use chunked_array::{Array, Error};

fn numpy_order(a: &f64, b: &f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(b).unwrap(),
    }
}

fn data() -> (ArrayD<f64>, Array<f64>) {
    let whole = ArrayD::from_shape_fn(IxDyn(&[7, 9]), |i| match (i[0] * 9 + i[1]) % 13 {
        4 => f64::NAN,
        r => ((r * 5) % 7) as f64 - 3.0, // ties
    });
    let x = Array::from_ndarray(whole.clone(), vec![vec![3, 0, 4], vec![2, 5, 2]]).unwrap();
    (whole, x)
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

#[test]
fn sort_and_argsort_match_the_sorted_lanes() {
    let (whole, x) = data();
    for axis in [0usize, 1] {
        let sorted = x.sort(axis as isize).unwrap();
        assert_eq!(sorted.chunks(), x.chunks(), "back in the input's blocks");
        let sorted = sorted.compute().unwrap();
        let order = x.argsort(axis as isize).unwrap().compute().unwrap();
        for ((lane, got), idx) in
            whole.lanes(Axis(axis)).into_iter().zip(sorted.lanes(Axis(axis))).zip(order.lanes(Axis(axis)))
        {
            let mut want = lane.to_vec();
            want.sort_by(numpy_order);
            assert!(got.iter().zip(&want).all(|(g, w)| same(*g, *w)), "axis {axis}: {got} against {want:?}");
            let mut want_idx: Vec<usize> = (0..lane.len()).collect();
            want_idx.sort_by(|&a, &b| numpy_order(&lane[a], &lane[b])); // stable
            assert_eq!(idx.iter().map(|&i| i as usize).collect::<Vec<_>>(), want_idx, "axis {axis}");
        }
    }
}

#[test]
fn topk_takes_the_ends_of_the_sorted_lanes() {
    let (whole, x) = data();
    for axis in [0usize, 1] {
        let len = whole.shape()[axis] as isize;
        for k in [1, 3, len, -1, -4, -len] {
            let top = x.topk(k, axis as isize).unwrap().compute().unwrap();
            let arg = x.argtopk(k, axis as isize).unwrap().compute().unwrap();
            for ((lane, got), idx) in
                whole.lanes(Axis(axis)).into_iter().zip(top.lanes(Axis(axis))).zip(arg.lanes(Axis(axis)))
            {
                let mut order: Vec<usize> = (0..lane.len()).collect();
                if k > 0 {
                    order.sort_by(|&a, &b| numpy_order(&lane[b], &lane[a]));
                } else {
                    order.sort_by(|&a, &b| numpy_order(&lane[a], &lane[b]));
                }
                order.truncate(k.unsigned_abs());
                let want: Vec<f64> = order.iter().map(|&i| lane[i]).collect();
                assert!(got.iter().zip(&want).all(|(g, w)| same(*g, *w)), "k {k} axis {axis}: {got} against {want:?}");
                assert_eq!(idx.iter().map(|&i| i as usize).collect::<Vec<_>>(), order, "k {k} axis {axis}");
            }
        }
    }
    for k in [0, 10, -10] {
        match x.topk(k, 0) {
            Err(Error::InvalidArgument { value, .. }) => assert_eq!(value, k.to_string()),
            other => panic!("k {k}: {other:?}"),
        }
    }
    assert!(matches!(x.sort(2), Err(Error::BadAxis { .. })));
}

#[test]
fn partition_puts_each_kth_in_its_sorted_place() {
    let (whole, x) = data();
    for axis in 0..2 {
        for kth in [vec![0], vec![-1], vec![2, 5], vec![1, 1, 3]] {
            let len = whole.shape()[axis] as isize;
            if kth.iter().any(|&k| k >= len) {
                continue;
            }
            let got = x.partition(&kth, axis as isize).unwrap().compute().unwrap();
            let order = x.argpartition(&kth, axis as isize).unwrap().compute().unwrap();
            for (lane, (p, idx)) in
                whole.lanes(Axis(axis)).into_iter().zip(got.lanes(Axis(axis)).into_iter().zip(order.lanes(Axis(axis))))
            {
                let mut sorted = lane.to_vec();
                sorted.sort_by(numpy_order);
                let by_index: Vec<f64> = idx.iter().map(|&i| lane[i as usize]).collect();
                for values in [p.to_vec(), by_index] {
                    let mut same_values = values.clone();
                    same_values.sort_by(numpy_order);
                    assert!(same_values.iter().zip(&sorted).all(|(a, b)| same(*a, *b)), "a permutation");
                    for &k in &kth {
                        let k = if k < 0 { (k + len) as usize } else { k as usize };
                        assert!(same(values[k], sorted[k]), "axis {axis} kth {kth:?}: {values:?}");
                        assert!(values[..k].iter().all(|v| numpy_order(v, &values[k]).is_le()));
                        assert!(values[k + 1..].iter().all(|v| numpy_order(v, &values[k]).is_ge()));
                    }
                }
            }
        }
    }
    let e = x.partition(&[9], 0).unwrap_err().to_string();
    assert!(e.contains('9') && e.contains("length 7"), "{e}");
}
