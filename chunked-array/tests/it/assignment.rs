//! Assignment against a loop over the positions each index names, written
//! out by hand per case (NumPy's `x[index] = value` on the whole array), over
//! irregular chunkings with empty blocks; the original stays unchanged.

use chunked_array::ndarray::{ArrayD, Dimension, IxDyn};
use chunked_array::{Array, Error, Idx, s};

/// `whole` with `value` (broadcast to `selection`, then read in C order as
/// the product of `positions`) written at the product of `positions`.
fn oracle(whole: &ArrayD<f64>, positions: &[Vec<usize>], value: &ArrayD<f64>, selection: &[usize]) -> ArrayD<f64> {
    let v: Vec<f64> = value.broadcast(IxDyn(selection)).expect("broadcasts").iter().copied().collect();
    let counts: Vec<usize> = positions.iter().map(Vec::len).collect();
    let mut out = whole.clone();
    for (k, local) in chunked_array::ndarray::indices(IxDyn(&counts)).into_iter().enumerate() {
        let at: Vec<usize> = positions.iter().enumerate().map(|(a, p)| p[local[a]]).collect();
        out[IxDyn(&at)] = v[k];
    }
    out
}

fn values(shape: &[usize], from: f64) -> ArrayD<f64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| from + i.slice().iter().fold(0.0, |a, &x| a * 10.0 + x as f64))
}

/// An index, the positions it names per axis, the value's shape and the
/// selection's.
type Case = (Vec<Idx>, Vec<Vec<usize>>, Vec<usize>, Vec<usize>);

#[test]
fn set_writes_the_positions_numpy_names() {
    let whole = values(&[7, 9], 0.0);
    let x = Array::from_ndarray(whole.clone(), vec![vec![3, 0, 4], vec![2, 5, 2]]).unwrap();
    // (index, positions per axis, value shape, selection shape)
    let cases: Vec<Case> = vec![
        (s![1, ..;2].to_vec(), vec![vec![1], vec![0, 2, 4, 6, 8]], vec![], vec![5]),
        (s![2..6;3, -1].to_vec(), vec![vec![2, 5], vec![8]], vec![2], vec![2]),
        (s![..;-2, 1..4].to_vec(), vec![vec![6, 4, 2, 0], vec![1, 2, 3]], vec![4, 3], vec![4, 3]),
        (s![..;-2, 1..4].to_vec(), vec![vec![6, 4, 2, 0], vec![1, 2, 3]], vec![3], vec![4, 3]),
        (vec![Idx::NewAxis, Idx::Index(3), Idx::FULL], vec![vec![3], (0..9).collect()], vec![1, 9], vec![1, 9]),
        (vec![Idx::Ellipsis, Idx::Index(5)], vec![(0..7).collect(), vec![5]], vec![7], vec![7]),
        (s![7.., ..].to_vec(), vec![vec![], (0..9).collect()], vec![1], vec![0, 9]),
        (s![-1..=-2;-1, 8..=0;-4].to_vec(), vec![vec![6, 5], vec![8, 4, 0]], vec![2, 1], vec![2, 3]),
    ];
    for (index, positions, value_shape, selection) in cases {
        let value = values(&value_shape, 100.0);
        let want = oracle(&whole, &positions, &value, &selection);
        let v = Array::from_ndarray(value.clone(), 2).unwrap();
        let got = x.set(&index, &v).unwrap().compute().unwrap();
        assert_eq!(got, want, "{index:?}");
        let got = x.set(&index, -1.5).unwrap().compute().unwrap();
        assert_eq!(got, oracle(&whole, &positions, &ArrayD::from_elem(IxDyn(&[]), -1.5), &selection), "{index:?}");
    }
    assert_eq!(x.compute().unwrap(), whole, "the original is unchanged");
}

#[test]
fn set_in_three_dimensions_with_a_broadcast_value() {
    let whole = values(&[4, 5, 6], 0.0);
    let x = Array::from_ndarray(whole.clone(), vec![vec![1, 3], vec![2, 0, 3], vec![4, 2]]).unwrap();
    let value = values(&[5], 500.0);
    let got = x.set(s![1..;2, ..;-1, 3], Array::from_ndarray(value.clone(), 3).unwrap()).unwrap();
    let want = oracle(&whole, &[vec![1, 3], vec![4, 3, 2, 1, 0], vec![3]], &value, &[2, 5]);
    assert_eq!(got.compute().unwrap(), want);
}

#[test]
fn masks_write_where_true() {
    let whole = values(&[5, 4], 0.0);
    let x = Array::from_ndarray(whole.clone(), vec![vec![2, 0, 3], vec![3, 1]]).unwrap();
    let mask = x.gt(20.0).unwrap();
    let got = x.set_mask(&mask, 0.5).unwrap().compute().unwrap();
    assert_eq!(got, whole.mapv(|v| if v > 20.0 { 0.5 } else { v }));
    // A value of the array's shape, as dask's where.
    let other = Array::from_ndarray(values(&[5, 4], 1000.0), 3).unwrap();
    let got = x.set_mask(&mask, &other).unwrap().compute().unwrap();
    assert_eq!(
        got,
        ArrayD::from_shape_fn(IxDyn(&[5, 4]), |i| if whole[&i] > 20.0 { 1000.0 + whole[&i] } else { whole[&i] })
    );
    // Along an axis: rows 0 and 3 get one value per column.
    let rows = Array::from_vec(&[5], vec![true, false, false, true, false], 2).unwrap();
    let per_column = values(&[4], 700.0);
    let got = x.set_mask(&rows, Array::from_ndarray(per_column.clone(), 4).unwrap()).unwrap();
    assert_eq!(got.compute().unwrap(), oracle(&whole, &[vec![0, 3], (0..4).collect()], &per_column, &[2, 4]));
    let cols = Array::from_vec(&[4], vec![false, true, true, false], 3).unwrap();
    let got = x.set_mask_axis(&cols, -1, 9.0).unwrap().compute().unwrap();
    assert_eq!(got, oracle(&whole, &[(0..5).collect(), vec![1, 2]], &ArrayD::from_elem(IxDyn(&[]), 9.0), &[5, 2]));
    assert_eq!(x.compute().unwrap(), whole, "the original is unchanged");
}

#[test]
fn values_that_do_not_broadcast_and_bad_indices_are_errors_naming_them() {
    let x = Array::<f64>::zeros(&[4, 6], 2).unwrap();
    let v = Array::<f64>::ones(&[3], 3).unwrap();
    let e = x.set(s![1, ..], v).unwrap_err();
    assert!(
        matches!(e, Error::ShapeMismatch { .. }) && e.to_string().contains("[6]") && e.to_string().contains("[3]"),
        "{e}"
    );
    let e = x.set(s![9, ..], 1.0).unwrap_err().to_string();
    assert!(e.contains('9') && e.contains("out of range"), "{e}");
    let e = x.set([Idx::stepped(None, None, 0)], 1.0).unwrap_err().to_string();
    assert!(e.contains("non-zero"), "{e}");
    let mask = Array::from_vec(&[5], vec![true; 5], 5).unwrap();
    let e = x.set_mask(&mask, 1.0).unwrap_err().to_string();
    assert!(e.contains("[4, 6]") && e.contains("[5]"), "{e}");
    let e = x.set_mask_axis(&mask, 1, 1.0).unwrap_err().to_string();
    assert!(e.contains("[6]") && e.contains("[5]"), "{e}");
}
