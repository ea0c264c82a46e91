//! Matrix products against ndarray's `dot` on the whole arrays.

mod common;

use chunked_array::{Array, Context};
use common::*;
use ndarray::{Array2, Ix2};
use proptest::prelude::*;

/// Block lengths of an axis of length n, cut where `cuts` says.
fn partition(n: usize, cuts: &[bool]) -> Vec<usize> {
    if n == 0 {
        return vec![0];
    }
    let mut out = vec![];
    let mut len = 1;
    for &c in cuts.iter().take(n - 1) {
        if c { out.push(len); len = 1; } else { len += 1; }
    }
    out.push(len);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn matmul_matches_ndarray(m in 0usize..9, k in 0usize..9, n in 0usize..9,
                              cuts in prop::collection::vec(any::<bool>(), 32), limit in prop_oneof![Just(1usize), Just(1 << 30)]) {
        let a = Array2::from_shape_fn((m, k), |(i, j)| ((i * 7 + j * 3) % 11) as f64 - 5.0);
        let b = Array2::from_shape_fn((k, n), |(i, j)| ((i * 5 + j * 2) % 13) as f64 * 0.5 - 3.0);
        let ca = vec![partition(m, &cuts[0..8]), partition(k, &cuts[8..16])];
        let cb = vec![partition(k, &cuts[16..24]), partition(n, &cuts[24..32])];
        let x = chunked(&a.clone().into_dyn(), &ca);
        let y = chunked(&b.clone().into_dyn(), &cb);
        let want = a.dot(&b).into_dyn();
        // limit 1 puts every piece of the contracted axis in its own group: the
        // products are then summed by the reduction tree.
        let c = x.matmul_with(&y, limit).unwrap();
        assert_close(&c.compute_with(&Context::threads(2)).unwrap(), &want, 1e-12);
        if n > 0 {
            let v = Array::from_ndarray(b.column(0).to_owned(), 3).unwrap();
            let want = a.dot(&b.column(0)).into_dyn();
            assert_close(&x.dot(&v).unwrap().compute().unwrap(), &want, 1e-12);
        }
    }
}

#[test]
fn matmul_errors() {
    let a = Array::<f64>::ones(&[3, 4], 2).unwrap();
    let b = Array::<f64>::ones(&[5, 2], 2).unwrap();
    let e = a.matmul(&b).unwrap_err().to_string();
    assert!(e.contains("[3, 4]") && e.contains("[5, 2]"), "{e}");
    let c = Array::<f64>::ones(&[2, 2, 2], 2).unwrap();
    assert!(a.matmul(&c).is_err());
    let r: Array2<f64> = a.matmul(&a.t()).unwrap().compute().unwrap().into_dimensionality::<Ix2>().unwrap();
    assert_eq!(r, Array2::from_elem((3, 3), 4.0));
    // tensordot: paired lengths must match, pair lists be of one length, axes exist once.
    let p = Array::<f64>::ones(&[2, 3, 4], 2).unwrap();
    let q = Array::<f64>::ones(&[4, 3, 5], 2).unwrap();
    let e = p.tensordot(&q, (&[1, 2], &[0, 1])).unwrap_err().to_string();
    assert!(e.contains("[3, 4]") && e.contains("[4, 3]"), "{e}");
    assert!(p.tensordot(&q, (&[1, 2], &[1])).is_err());
    assert!(p.tensordot(&q, (&[3], &[0])).is_err());
    assert!(p.tensordot(&q, (&[2, 2], &[0, 0])).is_err());
    assert!(p.tensordot(&q, (&[-1], &[0])).is_ok());
}

/// tensordot with no contracted axis (the outer product), one axis, and
/// irregular chunks; 1-d operands of matmul on either side.
#[test]
fn tensordot_and_vector_products_match_ndarray() {
    let a = ndarray::Array3::from_shape_fn((3, 4, 5), |(i, j, k)| (i * 20 + j * 5 + k) as f64 * 0.1 - 2.0).into_dyn();
    let b = ndarray::Array2::from_shape_fn((5, 2), |(i, j)| (i * 2 + j) as f64 - 3.0).into_dyn();
    let x = chunked(&a, &[vec![2, 1], vec![1, 3], vec![2, 3]]);
    let y = chunked(&b, &[vec![4, 1], vec![1, 1]]);
    // One contracted axis: a's last against b's first.
    let got = x.tensordot(&y, (&[2], &[0])).unwrap().compute().unwrap();
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 4, 2]), |o| (0..5).map(|k| a[[o[0], o[1], k]] * b[[k, o[2]]]).sum::<f64>());
    assert_close(&got, &want, 1e-12);
    // No contracted axis: the outer product.
    let got = y.tensordot(&y, (&[], &[])).unwrap().compute().unwrap();
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[5, 2, 5, 2]), |o| b[[o[0], o[1]]] * b[[o[2], o[3]]]);
    assert_close(&got, &want, 1e-12);
    // 1-d on the left, and 1-d . 1-d (a 0-d result).
    let v = ndarray::Array1::from_shape_fn(5, |i| i as f64 + 0.5);
    let vc = Array::from_ndarray(v.clone(), 2).unwrap();
    let bm = b.clone().into_dimensionality::<ndarray::Ix2>().unwrap();
    assert_close(&vc.matmul(&y).unwrap().compute().unwrap(), &v.dot(&bm).into_dyn(), 1e-12);
    let dot = vc.dot(&vc).unwrap().compute().unwrap();
    assert_eq!(dot.ndim(), 0);
    assert!((dot.sum() - v.dot(&v)).abs() < 1e-12);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// tensordot over random axis pairs equals the sum of products written out.
    #[test]
    fn tensordot_matches_loops(d in prop::collection::vec(1usize..4, 4), swap in any::<bool>(), cut in 1usize..3) {
        // a: (d0, d1, d2), b: (d2, d1, d3) or (d1, d2, d3); contract d1 and d2.
        let a = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[d[0], d[1], d[2]]), |i| (i[0] * 9 + i[1] * 3 + i[2]) as f64);
        let bshape = if swap { vec![d[2], d[1], d[3]] } else { vec![d[1], d[2], d[3]] };
        let b = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&bshape), |i| (i[0] + 2 * i[1] + 5 * i[2]) as f64 - 4.0);
        let x = Array::from_ndarray(a.clone(), cut).unwrap();
        let y = Array::from_ndarray(b.clone(), cut).unwrap();
        let axes_b: [isize; 2] = if swap { [1, 0] } else { [0, 1] };
        let got = x.tensordot(&y, (&[1, 2], &axes_b)).unwrap().compute().unwrap();
        let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[d[0], d[3]]), |o| {
            let mut s = 0.0;
            for j in 0..d[1] {
                for k in 0..d[2] {
                    let bv = if swap { b[[k, j, o[1]]] } else { b[[j, k, o[1]]] };
                    s += a[[o[0], j, k]] * bv;
                }
            }
            s
        });
        assert_close(&got, &want, 1e-12);
    }
}

/// A contracted axis of 21 pieces, each its own group: the partial products are
/// added in three layers (21 -> 6 -> 2 -> 1), in f64 and f32.
#[test]
fn many_partial_products_add_up() {
    let a = Array2::from_shape_fn((7, 41), |(i, j)| ((i * 13 + j * 7) % 17) as f64 - 8.0);
    let b = Array2::from_shape_fn((41, 5), |(i, j)| ((i * 3 + j * 11) % 19) as f64 * 0.25 - 2.0);
    let x = Array::from_ndarray(a.clone(), [3, 2]).unwrap();
    let y = Array::from_ndarray(b.clone(), [2, 2]).unwrap();
    let c = x.matmul_with(&y, 1).unwrap();
    assert_eq!(c.chunks().lengths().to_vec(), vec![vec![3, 3, 1], vec![2, 2, 1]]);
    let want = a.dot(&b).into_dyn();
    for ctx in [Context::sync(), Context::threads(2)] {
        assert_close(&c.compute_with(&ctx).unwrap(), &want, 1e-12);
    }
    let c32 = x.astype::<f32>().matmul_with(&y.astype::<f32>(), 1).unwrap().compute().unwrap();
    assert_close(&c32.mapv(f64::from), &want, 1e-4);
}
