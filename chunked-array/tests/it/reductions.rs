//! Reductions against ndarray on the whole array: every axis subset, keepdims,
//! split_every, irregular chunks, empty axes and 0-d arrays.

use crate::common;

use chunked_array::{Array, Context, ReduceOptions};
use common::*;
use ndarray::{ArrayD, Axis, IxDyn};
use proptest::prelude::*;

/// Reduces `a` over `axes` (sorted, distinct) with `f` over each lane's values.
fn oracle<T: Clone, O>(a: &ArrayD<T>, axes: &[usize], keepdims: bool, f: impl Fn(&[T]) -> O) -> ArrayD<O> {
    let nd = a.ndim();
    // Move the reduced axes last, flatten them, and reduce each row.
    let kept: Vec<usize> = (0..nd).filter(|x| !axes.contains(x)).collect();
    let perm: Vec<usize> = kept.iter().chain(axes.iter()).copied().collect();
    let p = a.view().permuted_axes(IxDyn(&perm)).as_standard_layout().into_owned();
    let kept_shape: Vec<usize> = kept.iter().map(|&k| a.shape()[k]).collect();
    let inner: usize = axes.iter().map(|&k| a.shape()[k]).product();
    let flat = p.into_shape_with_order(IxDyn(&[kept_shape.iter().product(), inner])).unwrap();
    let vals: Vec<O> = flat.outer_iter().map(|row| f(&row.iter().cloned().collect::<Vec<T>>())).collect();
    let out_shape: Vec<usize> =
        if keepdims { (0..nd).map(|x| if axes.contains(&x) { 1 } else { a.shape()[x] }).collect() } else { kept_shape };
    ArrayD::from_shape_vec(IxDyn(&out_shape), vals).unwrap()
}

fn case() -> impl Strategy<Value = (ArrayD<f64>, Vec<Vec<usize>>, Vec<usize>, bool, usize)> {
    shape_chunks(3, 7).prop_flat_map(|(shape, chunks)| {
        let nd = shape.len();
        (
            values_f64(shape),
            Just(chunks),
            prop::sample::subsequence((0..nd).collect::<Vec<_>>(), 0..=nd),
            any::<bool>(),
            2usize..6,
        )
    })
}

fn opts(axes: &[usize], keepdims: bool, split: usize) -> ReduceOptions {
    ReduceOptions::axes(axes.iter().map(|&a| a as isize).collect::<Vec<_>>()).keepdims(keepdims).split_every(split)
}

fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}

fn var(v: &[f64], ddof: f64) -> f64 {
    let n = v.len() as f64;
    let m = sum(v) / n;
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - ddof).max(0.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn sums_means_moments((a, chunks, axes, keep, split) in case()) {
        let x = chunked(&a, &chunks);
        let o = opts(&axes, keep, split);
        assert_close(&x.sum(o.clone()).unwrap().compute().unwrap(), &oracle(&a, &axes, keep, sum), 1e-12);
        assert_close(&x.mean(o.clone()).unwrap().compute().unwrap(), &oracle(&a, &axes, keep, |v| sum(v) / v.len() as f64), 1e-12);
        assert_close(&x.var(o.clone(), 0).unwrap().compute().unwrap(), &oracle(&a, &axes, keep, |v| var(v, 0.0)), 1e-10);
        assert_close(&x.std(o.clone(), 1).unwrap().compute().unwrap(), &oracle(&a, &axes, keep, |v| var(v, 1.0).sqrt()), 1e-10);
        let p = x.clip(-1.5, 1.5).prod(o.clone()).unwrap().compute().unwrap();
        assert_close(&p, &oracle(&a.mapv(|v| v.clamp(-1.5, 1.5)), &axes, keep, |v| v.iter().product()), 1e-10);
        let any = x.gt(5.0).unwrap().any(o.clone()).unwrap().compute().unwrap();
        prop_assert_eq!(any, oracle(&a, &axes, keep, |v| v.iter().any(|&q| q > 5.0)));
        let all = x.all(o.clone()).unwrap().compute().unwrap();
        prop_assert_eq!(all, oracle(&a, &axes, keep, |v| v.iter().all(|&q| q != 0.0)));
    }

    #[test]
    fn extrema_and_nan_variants((a, chunks, axes, keep, split) in case()) {
        // Put NaNs where the value is exactly 0.5 (a fair share of cases).
        let a = a.mapv(|v| if v == 0.5 { f64::NAN } else { v });
        let x = chunked(&a, &chunks);
        let o = opts(&axes, keep, split);
        let nonempty = axes.iter().all(|&k| a.shape()[k] > 0);
        let min = x.min(o.clone());
        if nonempty {
            let want = oracle(&a, &axes, keep, |v| if v.iter().any(|q| q.is_nan()) { f64::NAN } else { v.iter().copied().fold(f64::INFINITY, f64::min) });
            assert_close(&min.unwrap().compute().unwrap(), &want, 0.0);
            let want = oracle(&a, &axes, keep, |v| { let m = v.iter().copied().filter(|q| !q.is_nan()).fold(f64::NEG_INFINITY, f64::max); if m == f64::NEG_INFINITY { f64::NAN } else { m } });
            assert_close(&x.nanmax(o.clone()).unwrap().compute().unwrap(), &want, 0.0);
        } else {
            prop_assert!(min.is_err());
        }
        let want = oracle(&a, &axes, keep, |v| v.iter().filter(|q| !q.is_nan()).sum::<f64>());
        assert_close(&x.nansum(o.clone()).unwrap().compute().unwrap(), &want, 1e-12);
        let want = oracle(&a, &axes, keep, |v| { let w: Vec<f64> = v.iter().copied().filter(|q| !q.is_nan()).collect(); sum(&w) / w.len() as f64 });
        assert_close(&x.nanmean(o.clone()).unwrap().compute().unwrap(), &want, 1e-12);
    }

    #[test]
    fn arg_extrema((a, chunks, _axes, _keep, _split) in case(), pick in any::<prop::sample::Index>()) {
        let a = a.mapv(|v| if v == 0.5 { f64::NAN } else { v });
        let x = chunked(&a, &chunks);
        let first_best = |v: &[f64], max: bool| -> i64 {
            let mut best = 0usize;
            for (i, &q) in v.iter().enumerate() {
                let b = v[best];
                if b.is_nan() { break; }
                if q.is_nan() || (max && q > b) || (!max && q < b) { best = i; }
            }
            best as i64
        };
        if a.is_empty() {
            prop_assert!(x.argmax(None).is_err());
        } else {
            let flat: Vec<f64> = a.iter().copied().collect();
            prop_assert_eq!(x.argmax(None).unwrap().compute_scalar().unwrap(), first_best(&flat, true));
            prop_assert_eq!(x.argmin(None).unwrap().compute_scalar().unwrap(), first_best(&flat, false));
        }
        if a.ndim() > 0 {
            let axis = pick.index(a.ndim());
            if a.shape()[axis] > 0 {
                let want = oracle(&a, &[axis], false, |v| first_best(v, true));
                prop_assert_eq!(x.argmax(Some(axis as isize)).unwrap().compute().unwrap(), want);
                let want = oracle(&a, &[axis], false, |v| first_best(v, false));
                prop_assert_eq!(x.argmin(Some(axis as isize - a.ndim() as isize)).unwrap().compute().unwrap(), want);
            }
        }
    }

    #[test]
    fn cumulative((a, chunks, _axes, _keep, _split) in case(), pick in any::<prop::sample::Index>()) {
        prop_assume!(a.ndim() > 0);
        let axis = pick.index(a.ndim());
        let x = chunked(&a, &chunks);
        let mut want = a.clone();
        want.accumulate_axis_inplace(Axis(axis), |&p, c| *c += p);
        assert_close(&x.cumsum(axis as isize).unwrap().compute().unwrap(), &want, 1e-12);
        let b = a.mapv(|v| v.clamp(-1.2, 1.2));
        let mut want = b.clone();
        want.accumulate_axis_inplace(Axis(axis), |&p, c| *c *= p);
        let y = chunked(&b, &chunks);
        assert_close(&y.cumprod(axis as isize).unwrap().compute().unwrap(), &want, 1e-12);
    }

    #[test]
    fn integer_sums_widen((shape, chunks) in shape_chunks(2, 6), fill in 0i32..5) {
        let a = ArrayD::from_elem(IxDyn(&shape), i32::MAX - fill);
        let x = chunked(&a, &chunks);
        let want = a.iter().map(|&v| v as i64).sum::<i64>();
        prop_assert_eq!(x.sum(None).unwrap().compute_scalar().unwrap(), want);
        let m = x.mean(None).unwrap().compute_scalar().unwrap();
        if a.is_empty() { prop_assert!(m.is_nan()); } else { prop_assert_eq!(m, (i32::MAX - fill) as f64); }
    }
}

#[test]
fn schedulers_agree_on_reductions() {
    let x = chunked_array::random::RandomState::new(9).standard_normal::<f64>(&[300, 70], [33, 9]).unwrap();
    let s = x.std(0, 1).unwrap();
    let a = s.compute_on(&Context::sync()).unwrap();
    let b = s.compute_on(&Context::threads(4)).unwrap();
    assert_eq!(a, b, "the same graph gives the same result under every scheduler");
}

#[test]
fn bad_axes_are_errors() {
    let x = Array::<f64>::ones(&[2, 3], 1).unwrap();
    let e = x.sum(2).unwrap_err().to_string();
    assert!(e.contains("axis 2") && e.contains("2 dimensions"), "{e}");
    let e = x.sum([0, -2]).unwrap_err().to_string();
    assert!(e.contains("given twice"), "{e}");
    assert!(x.sum(ReduceOptions::all().split_every(1)).is_err());
    assert!(x.cumsum(-3).is_err());
    let empty = Array::<f64>::ones(&[0, 3], 1).unwrap();
    let e = empty.max(0).unwrap_err().to_string();
    assert!(e.contains("no identity"), "{e}");
}

#[test]
fn deep_tree_over_many_blocks() {
    let x = Array::<i64>::ones(&[10_000], 3).unwrap();
    let r = x.sum(ReduceOptions::all().split_every(2)).unwrap();
    assert_eq!(r.compute_scalar().unwrap(), 10_000);
    assert_eq!(x.cumsum(0).unwrap().compute().unwrap()[9_999], 10_000);
}

/// NumPy's complex moments by a plain loop over one axis of a 2-d array:
/// var/std are real (mean squared modulus of the deviations); nanmean skips
/// elements with a NaN part.
#[test]
fn complex_moments_against_a_loop() {
    use chunked_array::{Complex32, Complex64};
    let (rows, cols) = (9, 7);
    let data = ndarray::Array2::from_shape_fn((rows, cols), |(i, j)| {
        let z = Complex64::new((i * 3 + j) as f64 * 0.37 - 4.0, (i as f64 - j as f64 * 1.5).sin() * 10.0);
        if (i + 2 * j) % 11 == 0 { Complex64::new(z.re, f64::NAN) } else { z }
    });
    let lane = |axis: usize, k: usize| -> Vec<Complex64> {
        if axis == 0 { data.column(k).to_vec() } else { data.row(k).to_vec() }
    };
    let moments = |v: &[Complex64], ddof: usize| {
        let mean = v.iter().sum::<Complex64>() / v.len() as f64;
        let m2: f64 = v.iter().map(|z| (z - mean).norm_sqr()).sum();
        m2 / (v.len() - ddof) as f64
    };
    let close = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-12 * (1.0 + b.abs());
    for chunks in [[9, 7], [4, 3], [1, 2]] {
        let z = Array::from_ndarray(data.clone().into_dyn(), chunks).unwrap();
        for axis in [0usize, 1] {
            let n = if axis == 0 { cols } else { rows };
            for ddof in [0usize, 1] {
                let var = z.var(axis as isize, ddof).unwrap().compute().unwrap();
                let std = z.std(axis as isize, ddof).unwrap().compute().unwrap();
                for k in 0..n {
                    let want = moments(&lane(axis, k), ddof);
                    assert!(close(var[k], want), "var axis {axis} lane {k} ddof {ddof}: {} vs {want}", var[k]);
                    assert!(close(std[k], want.sqrt()), "std axis {axis} lane {k}");
                }
            }
            let nanmean = z.nanmean(axis as isize).unwrap().compute().unwrap();
            for k in 0..n {
                let kept: Vec<Complex64> = lane(axis, k).into_iter().filter(|z| !z.is_nan()).collect();
                let want = kept.iter().sum::<Complex64>() / kept.len() as f64;
                assert!((nanmean[k] - want).norm() <= 1e-12 * (1.0 + want.norm()), "nanmean lane {k}");
            }
        }
    }
    // All-NaN lanes give NaN; complex64 gives float32 moments.
    let all_nan = Array::from_vec(&[2], vec![Complex64::new(f64::NAN, 1.0); 2], 1).unwrap();
    assert!(all_nan.nanmean(None).unwrap().compute_scalar().unwrap().is_nan());
    let small = Array::from_vec(&[2], vec![Complex32::new(1.0, 1.0), Complex32::new(3.0, -1.0)], 1).unwrap();
    let v: f32 = small.var(None, 0).unwrap().compute_scalar().unwrap();
    assert_eq!(v, 2.0);
}
