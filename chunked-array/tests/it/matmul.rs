//! Matrix products against ndarray's `dot` on the whole arrays.

use crate::common;

use chunked_array::MatmulOptions;
use chunked_array::{Array, Context};
use common::*;
use ndarray::{Array2, Dimension, Ix2};
use proptest::prelude::*;

/// Block lengths of an axis of length n, cut where `cuts` says.
fn partition(n: usize, cuts: &[bool]) -> Vec<usize> {
    if n == 0 {
        return vec![0];
    }
    let mut out = vec![];
    let mut len = 1;
    for &c in cuts.iter().take(n - 1) {
        if c {
            out.push(len);
            len = 1;
        } else {
            len += 1;
        }
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
        let c = x.matmul_with(&y, &MatmulOptions { panel_limit: limit }).unwrap();
        assert_close(&c.compute_on(&Context::threads(2)).unwrap(), &want, 1e-12);
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
    // A stack whose matrices have 2 rows cannot follow a's 4 columns.
    let c = Array::<f64>::ones(&[2, 2, 2], 2).unwrap();
    let e = a.matmul(&c).unwrap_err().to_string();
    assert!(e.contains("[3, 4]") && e.contains("[2, 2, 2]"), "{e}");
    // Batch axes 3 and 2 do not broadcast; a 0-d operand is refused (NumPy's rules).
    let s3 = Array::<f64>::ones(&[3, 2, 4], 2).unwrap();
    let s2 = Array::<f64>::ones(&[2, 4, 5], 2).unwrap();
    let e = s3.matmul(&s2).unwrap_err().to_string();
    assert!(e.contains("[3]") && e.contains("[2]") && e.contains("broadcast"), "{e}");
    let scalar = Array::<f64>::ones(&[], 1).unwrap();
    assert!(a.matmul(&scalar).unwrap_err().to_string().contains("(2, 0)"));
    // dot with a 0-d operand multiplies (NumPy's dot; matmul refuses it).
    let twice = (&scalar * 2.0).dot(&s3).unwrap().compute().unwrap();
    assert_eq!(twice, ndarray::ArrayD::from_elem(ndarray::IxDyn(&[3, 2, 4]), 2.0));
    assert_eq!(a.dot(&scalar).unwrap().shape(), vec![3, 4]);
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
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 4, 2]), |o| {
        (0..5).map(|k| a[[o[0], o[1], k]] * b[[k, o[2]]]).sum::<f64>()
    });
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
    let c = x.matmul_with(&y, &MatmulOptions { panel_limit: 1 }).unwrap();
    assert_eq!(c.chunks().lengths().to_vec(), vec![vec![3, 3, 1], vec![2, 2, 1]]);
    let want = a.dot(&b).into_dyn();
    for ctx in [Context::sync(), Context::threads(2)] {
        assert_close(&c.compute_on(&ctx).unwrap(), &want, 1e-12);
    }
    let c32 = x
        .astype::<f32>()
        .matmul_with(&y.astype::<f32>(), &MatmulOptions { panel_limit: 1 })
        .unwrap()
        .compute()
        .unwrap();
    assert_close(&c32.mapv(f64::from), &want, 1e-4);
}

/// NumPy's matmul on stacks, written out: the batch axes broadcast (right-aligned,
/// length 1 stretched), then one 2-d product per batch element.
fn stacked_matmul_oracle(a: &ndarray::ArrayD<f64>, b: &ndarray::ArrayD<f64>) -> ndarray::ArrayD<f64> {
    let (ra, rb) = (a.ndim(), b.ndim());
    let nb = ra.max(rb) - 2;
    let pad = |s: &[usize], r: usize| std::iter::repeat_n(1, nb + 2 - r).chain(s.iter().copied()).collect::<Vec<_>>();
    let (sa, sb) = (pad(a.shape(), ra), pad(b.shape(), rb));
    let a = a.to_shape(sa.clone()).unwrap();
    let b = b.to_shape(sb.clone()).unwrap();
    let mut out_shape: Vec<usize> = (0..nb).map(|t| if sa[t] == 1 { sb[t] } else { sa[t] }).collect();
    out_shape.extend([sa[nb], sb[nb + 1]]);
    ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&out_shape), |o| {
        let pick = |s: &[usize], t: usize| if s[t] == 1 { 0 } else { o[t] };
        (0..sa[nb + 1])
            .map(|k| {
                let mut ia: Vec<usize> = (0..nb).map(|t| pick(&sa, t)).collect();
                ia.extend([o[nb], k]);
                let mut ib: Vec<usize> = (0..nb).map(|t| pick(&sb, t)).collect();
                ib.extend([k, o[nb + 1]]);
                a[ia.as_slice()] * b[ib.as_slice()]
            })
            .sum()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// Stacks of matrices: one or two batch axes on either side, each of length
    /// d or 1 (stretched), or missing; irregular chunks everywhere; the
    /// contracted axis whole or split into single-piece groups.
    #[test]
    fn stacked_matmul_matches_numpy_rules(
        batch in prop::collection::vec(0usize..4, 2),
        ones_a in prop::collection::vec(any::<bool>(), 2), ones_b in prop::collection::vec(any::<bool>(), 2),
        axes_a in 0usize..3, axes_b in 0usize..3,
        (m, k, n) in (1usize..5, 0usize..6, 1usize..5),
        cuts in prop::collection::vec(any::<bool>(), 32), limit in prop_oneof![Just(1usize), Just(1 << 30)],
    ) {
        let batch_shape = |ones: &[bool], axes: usize| (2 - axes..2).map(|t| if ones[t] { 1 } else { batch[t] }).collect::<Vec<_>>();
        let mut sa = batch_shape(&ones_a, axes_a);
        sa.extend([m, k]);
        let mut sb = batch_shape(&ones_b, axes_b);
        sb.extend([k, n]);
        let a = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&sa), |i| i.slice().iter().enumerate().map(|(t, &x)| ((t + 2) * x) as f64).sum::<f64>() % 7.0 - 3.0);
        let b = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&sb), |i| i.slice().iter().enumerate().map(|(t, &x)| ((3 * t + 1) * x) as f64).sum::<f64>() % 5.0 * 0.5 - 1.0);
        let chunking = |s: &[usize], cuts: &[bool]| s.iter().enumerate().map(|(t, &len)| partition(len, &cuts[4 * t..4 * t + 4])).collect::<Vec<_>>();
        let x = chunked(&a, &chunking(&sa, &cuts[..16]));
        let y = chunked(&b, &chunking(&sb, &cuts[16..]));
        let got = x.matmul_with(&y, &MatmulOptions { panel_limit: limit }).unwrap();
        let want = stacked_matmul_oracle(&a, &b);
        prop_assert_eq!(got.shape(), want.shape().to_vec());
        assert_close(&got.compute_on(&Context::threads(2)).unwrap(), &want, 1e-12);
    }
}

/// 1-d operands against stacks (the vector's axis is dropped from the result),
/// and NumPy's `dot` on more than two axes (a tensordot, no broadcasting).
#[test]
fn vectors_with_stacks_and_nd_dot() {
    let s = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 4, 5]), |i| {
        (i[0] * 20 + i[1] * 5 + i[2]) as f64 * 0.1 - 2.0
    });
    let x = chunked(&s, &[vec![2, 1], vec![1, 3], vec![2, 3]]);
    let v5 = ndarray::Array1::from_shape_fn(5, |i| i as f64 - 1.5);
    let v4 = ndarray::Array1::from_shape_fn(4, |i| 0.5 * i as f64 + 1.0);
    let (c5, c4) = (Array::from_ndarray(v5.clone(), 2).unwrap(), Array::from_ndarray(v4.clone(), 3).unwrap());
    // (3, 4, 5) @ (5,) -> (3, 4); (4,) @ (3, 4, 5) -> (3, 5).
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 4]), |o| {
        (0..5).map(|k| s[[o[0], o[1], k]] * v5[k]).sum::<f64>()
    });
    assert_close(&x.matmul(&c5).unwrap().compute().unwrap(), &want, 1e-12);
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 5]), |o| {
        (0..4).map(|k| v4[k] * s[[o[0], k, o[1]]]).sum::<f64>()
    });
    assert_close(&c4.matmul(&x).unwrap().compute().unwrap(), &want, 1e-12);
    // dot((3, 4, 5), (2, 5, 6)) -> (3, 4, 2, 6): a's last axis against b's second-to-last.
    let t = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[2, 5, 6]), |i| {
        ((i[0] * 7 + i[1] * 3 + i[2]) % 11) as f64 - 5.0
    });
    let y = chunked(&t, &[vec![1, 1], vec![3, 2], vec![4, 2]]);
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 4, 2, 6]), |o| {
        (0..5).map(|k| s[[o[0], o[1], k]] * t[[o[2], k, o[3]]]).sum::<f64>()
    });
    assert_close(&x.dot(&y).unwrap().compute().unwrap(), &want, 1e-12);
    // dot with a 1-d right operand contracts its only axis.
    let want = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[3, 4]), |o| {
        (0..5).map(|k| s[[o[0], o[1], k]] * v5[k]).sum::<f64>()
    });
    assert_close(&x.dot(&c5).unwrap().compute().unwrap(), &want, 1e-12);
    // A stretched batch axis of length 1 reads its one matrix for every output
    // block, and an emulated device gives the same stack.
    let one = chunked(&t.slice(ndarray::s![0..1, .., ..]).to_owned().into_dyn(), &[vec![1], vec![2, 3], vec![6]]);
    let want = stacked_matmul_oracle(&s, &t.slice(ndarray::s![0..1, .., ..]).to_owned().into_dyn());
    assert_close(&x.matmul(&one).unwrap().compute().unwrap(), &want, 1e-12);
}
