//! Elementwise operations against ndarray on the whole array, over random shapes
//! (including empty axes and 0-d), irregular chunkings and broadcasting.

use crate::common;

use chunked_array::{Array, Context, where_};
use common::*;
use ndarray::{ArrayD, Dimension};
use proptest::prelude::*;

/// Two operands with their chunkings; the second broadcasts against the first.
type Case = (ArrayD<f64>, Vec<Vec<usize>>, ArrayD<f64>, Vec<Vec<usize>>);

fn case() -> impl Strategy<Value = Case> {
    shape_chunks(3, 6)
        .prop_flat_map(|(shape, chunks)| (values_f64(shape.clone()), Just(chunks), broadcastable(shape)))
        .prop_flat_map(|(a, chunks, bshape)| (Just(a), Just(chunks), values_f64(bshape.clone()), rechunking(bshape)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn arithmetic_broadcasts((a, ca, b, cb) in case()) {
        let (x, y) = (chunked(&a, &ca), chunked(&b, &cb));
        prop_assert_eq!((&x + &y).compute().unwrap(), zip2(&a, &b, |p, q| p + q));
        prop_assert_eq!((&x - &y).compute().unwrap(), zip2(&a, &b, |p, q| p - q));
        prop_assert_eq!((&y * &x).compute().unwrap(), zip2(&b, &a, |p, q| p * q));
        prop_assert_eq!((&x / &y).compute().unwrap().mapv(f64::to_bits), zip2(&a, &b, |p, q| (p / q).to_bits()));
        prop_assert_eq!(x.fmod(&y).unwrap().compute().unwrap().mapv(f64::to_bits), zip2(&a, &b, |p, q| (p % q).to_bits()));
        // `%` is NumPy's remainder: the sign of the divisor.
        let py_mod = |p: f64, q: f64| { let r = p % q; if r != 0.0 && (r < 0.0) != (q < 0.0) { r + q } else if r == 0.0 { 0f64.copysign(q) } else { r } };
        prop_assert_eq!((&x % &y).compute().unwrap().mapv(f64::to_bits), zip2(&a, &b, |p, q| py_mod(p, q).to_bits()));
    }

    #[test]
    fn scalars_and_unary((a, ca, _b, _cb) in case()) {
        let x = chunked(&a, &ca);
        prop_assert_eq!((&x * 2.0 + 1.0).compute().unwrap(), a.mapv(|v| v * 2.0 + 1.0));
        prop_assert_eq!((3.0 - &x).compute().unwrap(), a.mapv(|v| 3.0 - v));
        prop_assert_eq!((-&x).compute().unwrap(), a.mapv(|v| -v));
        prop_assert_eq!(x.abs().compute().unwrap(), a.mapv(f64::abs));
        prop_assert_eq!(x.sqrt().compute().unwrap().mapv(f64::to_bits), a.mapv(|v| v.sqrt().to_bits()));
        // exp and log are chunked's branch-free forms: within an ulp of std's.
        prop_assert_eq!(common::beyond_ulps(&x.exp().compute().unwrap(), &a.mapv(f64::exp), 1), None);
        prop_assert_eq!(common::beyond_ulps(&x.abs().log().compute().unwrap(), &a.mapv(|v| v.abs().ln()), 1), None);
        prop_assert_eq!(x.sin().compute().unwrap(), a.mapv(f64::sin));
        prop_assert_eq!(x.cos().compute().unwrap(), a.mapv(f64::cos));
        // tanh is fdlibm's form over chunked's expm1, as glibc's is over its own.
        prop_assert_eq!(common::beyond_ulps(&x.tanh().compute().unwrap(), &a.mapv(f64::tanh), 3), None);
        prop_assert_eq!(x.clip(-1.0, 2.5).compute().unwrap(), a.mapv(|v| v.clamp(-1.0, 2.5)));
        prop_assert_eq!(x.pow(2.0).unwrap().compute().unwrap(), a.mapv(|v| v.powf(2.0)));
        prop_assert_eq!(x.map(|v| v as i64).compute().unwrap(), a.mapv(|v| v as i64));
        prop_assert_eq!(x.astype::<i32>().compute().unwrap(), a.mapv(|v| v as i32));
        prop_assert_eq!(x.astype::<f32>().compute().unwrap(), a.mapv(|v| v as f32));
    }

    #[test]
    fn comparisons_where_and_extrema((a, ca, b, cb) in case()) {
        let (x, y) = (chunked(&a, &ca), chunked(&b, &cb));
        prop_assert_eq!(x.lt(&y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| p < q));
        prop_assert_eq!(x.le(&y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| p <= q));
        prop_assert_eq!(x.gt(&y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| p > q));
        prop_assert_eq!(x.ge(0.5).unwrap().compute().unwrap(), a.mapv(|p| p >= 0.5));
        prop_assert_eq!(x.eq(&y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| p == q));
        prop_assert_eq!(x.ne(&y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| p != q));
        prop_assert_eq!(x.maximum(&y).unwrap().compute().unwrap(), zip2(&a, &b, f64::max));
        prop_assert_eq!(x.minimum(&y).unwrap().compute().unwrap(), zip2(&a, &b, f64::min));
        let cond = x.gt(&y).unwrap();
        prop_assert_eq!(where_(&cond, &x, &y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| if p > q { p } else { q }));
        prop_assert_eq!(where_(&cond, 1.0, &y).unwrap().compute().unwrap(), zip2(&a, &b, |p, q| if p > q { 1.0 } else { q }));
        let both = &x.gt(0.0).unwrap() & &y.gt(0.0).unwrap();
        prop_assert_eq!(both.compute().unwrap(), zip2(&a, &b, |p, q| p > 0.0 && q > 0.0));
        prop_assert_eq!((!&both).compute().unwrap(), zip2(&a, &b, |p, q| !(p > 0.0 && q > 0.0)));
    }

    #[test]
    fn long_chains_fuse_and_match((a, ca, b, cb) in case()) {
        let (x, y) = (chunked(&a, &ca), chunked(&b, &cb));
        let e = ((&x + &y) * 2.0 - x.sin()).abs().sqrt() + &y;
        let want = zip2(&zip2(&a, &b, |p, q| ((p + q) * 2.0 - p.sin()).abs().sqrt()), &b, |p, q| p + q);
        prop_assert_eq!(e.compute_on(&Context::sync()).unwrap(), want.clone());
        prop_assert_eq!(e.compute_on(&Context::threads(3)).unwrap(), want);
    }

    #[test]
    fn integer_arithmetic_never_panics((shape, chunks) in shape_chunks(2, 6), seed in 0u64..1000) {
        let a = ArrayD::from_shape_fn(ndarray::IxDyn(&shape), |i: ndarray::IxDyn| (i.as_array_view().iter().sum::<usize>() as i64 * 7 + seed as i64) % 11 - 5);
        let b = a.mapv(|v| (v * 3) % 4);
        let (x, y) = (chunked(&a, &chunks), chunked(&b, &chunks));
        // `/` is true division (f64, as NumPy); `floor_divide` and `%` keep
        // integers, with Python's signs and 0 for a zero divisor.
        let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| (p as f64 / q as f64).to_bits());
        prop_assert_eq!((&x / &y).compute().unwrap().mapv(f64::to_bits), want);
        let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| if q == 0 { 0 } else { p.div_euclid(q) - i64::from(q < 0 && p.rem_euclid(q) != 0) });
        prop_assert_eq!(x.floor_divide(&y).unwrap().compute().unwrap(), want);
        let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| if q == 0 { 0 } else { let r = p % q; if r != 0 && (r < 0) != (q < 0) { r + q } else { r } });
        prop_assert_eq!((&x % &y).compute().unwrap(), want);
        let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| if q == 0 { 0 } else { p % q });
        prop_assert_eq!(x.fmod(&y).unwrap().compute().unwrap(), want);
        prop_assert_eq!((&x * i64::MAX).compute().unwrap(), a.mapv(|v| v.wrapping_mul(i64::MAX)));
    }
}

#[test]
fn mismatched_shapes_are_errors_naming_both() {
    let x = Array::<f64>::ones(&[3, 4], 2).unwrap();
    let y = Array::<f64>::ones(&[5], 2).unwrap();
    let err = x.maximum(&y).unwrap_err().to_string();
    assert!(err.contains("[3, 4]") && err.contains("[5]"), "{err}");
    // Operators defer the error to compute, and everything built on it carries it.
    let z = (&x + &y) * 2.0;
    let err = z.compute().unwrap_err().to_string();
    assert!(err.contains("[3, 4]") && err.contains("[5]"), "{err}");
    assert!(z.sum(None).is_err());
    assert!(z.to_string().contains("error"));
}

#[test]
fn u8_i32_bool_arrays() {
    let a = ndarray::Array1::from(vec![250u8, 3, 7]).into_dyn();
    let x = Array::from_ndarray(a.clone(), 2).unwrap();
    assert_eq!((&x + 10).compute().unwrap(), a.mapv(|v| v.wrapping_add(10)));
    let b = Array::<i32>::arange(-3, 3, 1, 4).unwrap();
    assert_eq!(b.abs().compute().unwrap().as_slice().unwrap(), &[3, 2, 1, 0, 1, 2]);
    assert_eq!(b.pow(2).unwrap().compute().unwrap().as_slice().unwrap(), &[9, 4, 1, 0, 1, 4]);
    let t = b.gt(0).unwrap();
    assert_eq!(t.astype::<u8>().compute().unwrap().as_slice().unwrap(), &[0, 0, 0, 0, 1, 1]);
    assert_eq!((&t ^ &b.lt(2).unwrap()).compute().unwrap().as_slice().unwrap(), &[true, true, true, true, false, true]);
}

/// Block lengths per axis.
type Chunking = Vec<Vec<usize>>;

/// A 3-d shape, its chunking, an axis permutation and a chunking of the permuted shape.
fn permuted_case() -> impl Strategy<Value = (ArrayD<f64>, Chunking, Vec<usize>, Chunking)> {
    (prop::collection::vec(0usize..=9, 2..=3), Just(()))
        .prop_flat_map(|(shape, _)| {
            let nd = shape.len();
            (values_f64(shape.clone()), rechunking(shape), Just((0..nd).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_flat_map(|(a, chunks, perm)| {
            let pshape: Vec<usize> = perm.iter().map(|&p| a.shape()[p]).collect();
            (Just(a), Just(chunks), Just(perm), rechunking(pshape))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// Transposes fused into elementwise kernels (read through strides) and into
    /// reductions over them give exactly what ndarray gives.
    #[test]
    fn permuted_operands_fuse((a, ca, perm, cb) in permuted_case(), seed in any::<u64>()) {
        let pa = a.clone().permuted_axes(ndarray::IxDyn(&perm));
        let b = ArrayD::from_shape_fn(pa.raw_dim(), |i| ((i.as_array_view().iter().sum::<usize>() as u64 ^ seed) % 7) as f64);
        let x = chunked(&a, &ca);
        let y = chunked(&b, &cb);
        let xt = x.permute_axes(&perm).unwrap();
        let want = zip2(&pa, &b, |p, q| p * 2.0 + q);
        prop_assert_eq!((&(&xt * 2.0) + &y).compute().unwrap(), want.clone());
        let s = (&xt + &y).sum(0).unwrap().compute().unwrap();
        assert_close(&s, &zip2(&pa, &b, |p, q| p + q).sum_axis(ndarray::Axis(0)), 1e-12);
        if a.ndim() == 2 && a.shape()[0] == a.shape()[1] {
            let sq = chunked(&a, &ca);
            let got = (&sq + &sq.t()).mean(0).unwrap().compute().unwrap();
            let full = &a + &a.t();
            if a.shape()[0] > 0 {
                assert_close(&got, &full.mean_axis(ndarray::Axis(0)).unwrap(), 1e-12);
            }
        }
    }
}
