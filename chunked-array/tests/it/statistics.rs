//! Order statistics against a sorted copy of each lane (the textbook
//! definition of NumPy's five methods, written out here apart from the
//! library's selection), over shapes and irregular chunkings with ties, NaN
//! and signed zeros, and against values NumPy printed.

use chunked_array::ndarray::{ArrayD, Axis, IxDyn};
use chunked_array::{Array, Error, QuantileMethod, QuantileOptions};

const METHODS: [QuantileMethod; 5] = [
    QuantileMethod::Linear,
    QuantileMethod::Lower,
    QuantileMethod::Higher,
    QuantileMethod::Nearest,
    QuantileMethod::Midpoint,
];

/// The quantile of sorted `v` by the definition of `method`.
fn by_definition(v: &[f64], q: f64, method: QuantileMethod) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, (h.ceil() as usize).min(v.len() - 1));
    match method {
        QuantileMethod::Lower => v[lo],
        QuantileMethod::Higher => v[hi],
        QuantileMethod::Nearest => v[h.round_ties_even() as usize],
        // NumPy interpolates between the point and the next (itself at the
        // end) even at weight 0: an infinite end gives NaN.
        QuantileMethod::Midpoint => lerp(v[lo], v[(lo + 1).min(v.len() - 1)], if lo == hi { 0.0 } else { 0.5 }),
        QuantileMethod::Linear => lerp(v[lo], v[(lo + 1).min(v.len() - 1)], h - h.floor()),
    }
}

/// NumPy's interpolation: from the nearer end.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    if t >= 0.5 { b - (b - a) * (1.0 - t) } else { a + (b - a) * t }
}

/// The quantile of one lane: NaN if it holds one (unless skipped) or is empty.
fn lane_oracle(lane: &[f64], q: f64, method: QuantileMethod, skip_nan: bool) -> f64 {
    if !skip_nan && lane.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let mut v: Vec<f64> = lane.iter().copied().filter(|v| !v.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    by_definition(&v, q, method)
}

fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Values with ties, signed zeros and (every `nan_every`-th) NaN.
fn values(n: usize, seed: u64, nan_every: usize) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|i| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let r = (s >> 33) % 23;
            if nan_every > 0 && i % nan_every == nan_every - 1 {
                f64::NAN
            } else if r == 0 {
                -0.0
            } else {
                (r as f64 - 11.0) * 0.75
            }
        })
        .collect()
}

#[test]
fn every_method_equals_a_sorted_copy_along_each_axis_and_over_all() {
    let qs = [0.0, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.77, 0.999, 1.0];
    // Irregular chunkings, empty blocks among them.
    let cases: [(Vec<usize>, Vec<Vec<usize>>, usize); 3] = [
        (vec![37], vec![vec![10, 0, 20, 7]], 0),
        (vec![9, 14], vec![vec![4, 5], vec![3, 0, 11]], 5),
        (vec![5, 6, 7], vec![vec![2, 3], vec![6], vec![1, 4, 0, 2]], 11),
    ];
    for (shape, chunks, nan_every) in cases {
        let data = ArrayD::from_shape_vec(IxDyn(&shape), values(shape.iter().product(), 3, nan_every)).unwrap();
        let x = Array::from_ndarray(data.clone(), chunks.clone()).unwrap();
        for skip_nan in [false, true] {
            for method in METHODS {
                for axis in (0..shape.len()).map(Some).chain([None]) {
                    let opts = QuantileOptions { axis: axis.map(|a| a as isize), method, skip_nan };
                    let got = x.quantile_with(&qs, &opts).unwrap().compute().unwrap();
                    for (k, &q) in qs.iter().enumerate() {
                        let want: ArrayD<f64> = match axis {
                            Some(a) => data.map_axis(Axis(a), |l| lane_oracle(&l.to_vec(), q, method, skip_nan)),
                            None => ArrayD::from_elem(
                                IxDyn(&[]),
                                lane_oracle(&data.iter().copied().collect::<Vec<_>>(), q, method, skip_nan),
                            ),
                        };
                        let got_q = got.index_axis(Axis(0), k);
                        assert_eq!(got_q.shape(), want.shape());
                        for (g, w) in got_q.iter().zip(want.iter()) {
                            assert!(
                                same(*g, *w),
                                "{shape:?} {chunks:?} {method:?} axis {axis:?} q {q} skip {skip_nan}: {g} against {w}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn numpy_prints_the_same_values() {
    // np.quantile(x, qs, method=m) for this x, printed by NumPy 2.4.
    let x = [3.5, -1.0, 2.25, 7.0, 0.0, -0.0, 2.25, 9.5, -4.75, 1.0, 5.5];
    let qs = [0.0, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.7, 0.95, 1.0];
    let numpy: [(QuantileMethod, [f64; 8]); 5] = [
        (QuantileMethod::Linear, [-4.75, -1.0, 0.0, 0.33333333333333304, 2.25, 3.5, 8.25, 9.5]),
        (QuantileMethod::Lower, [-4.75, -1.0, 0.0, -0.0, 2.25, 3.5, 7.0, 9.5]),
        (QuantileMethod::Higher, [-4.75, -1.0, -0.0, 1.0, 2.25, 3.5, 9.5, 9.5]),
        (QuantileMethod::Nearest, [-4.75, -1.0, 0.0, -0.0, 2.25, 3.5, 9.5, 9.5]),
        (QuantileMethod::Midpoint, [-4.75, -1.0, 0.0, 0.5, 2.25, 3.5, 8.25, 9.5]),
    ];
    let a = Array::from_vec(&[x.len()], x.to_vec(), 4).unwrap();
    for (method, want) in numpy {
        let got = a.quantile_with(&qs, &QuantileOptions { method, ..Default::default() }).unwrap().compute().unwrap();
        assert_eq!(got.as_slice().unwrap(), &want, "{method:?}");
    }
    // Infinite ends: NumPy interpolates with weight 0 there, and gives NaN.
    let ends = Array::from_vec(&[4], vec![f64::NEG_INFINITY, 1.0, 2.0, f64::INFINITY], 3).unwrap();
    let numpy: [(QuantileMethod, [f64; 3]); 4] = [
        (QuantileMethod::Linear, [f64::NAN, 1.5, f64::NAN]),
        (QuantileMethod::Midpoint, [f64::NAN, 1.5, f64::NAN]),
        (QuantileMethod::Lower, [f64::NEG_INFINITY, 1.0, f64::INFINITY]),
        (QuantileMethod::Nearest, [f64::NEG_INFINITY, 2.0, f64::INFINITY]),
    ];
    for (method, want) in numpy {
        let opts = QuantileOptions { method, ..Default::default() };
        let got = ends.quantile_with(&[0.0, 0.5, 1.0], &opts).unwrap().compute().unwrap();
        assert!(got.iter().zip(want).all(|(g, w)| same(*g, w)), "{method:?}: {got}");
    }
    // np.percentile(x, [12.5, 33.3, 99.9])
    let p = a.percentile_with(&[12.5, 33.3, 99.9], &QuantileOptions::default()).unwrap().compute().unwrap();
    assert_eq!(p.as_slice().unwrap(), &[-0.75, 0.3299999999999996, 9.475000000000005]);
    // f32 lanes are computed in f32: NumPy's float64 values to f32 precision.
    let a32 = Array::from_vec(&[x.len()], x.iter().map(|&v| v as f32).collect(), 3).unwrap();
    let got = a32.quantile_with(&[0.1, 0.3, 0.77], &QuantileOptions::default()).unwrap().compute().unwrap();
    for (g, w) in got.iter().zip([-1.0f64, 0.0, 4.9]) {
        assert!((*g as f64 - w).abs() < 1e-6, "{g} against {w}");
    }
}

#[test]
fn medians_and_nan_variants() {
    let x = Array::from_vec(
        &[3, 4],
        vec![4.0, f64::NAN, 1.0, 3.0, 2.0, 2.0, 8.0, -1.0, f64::NAN, f64::NAN, f64::NAN, f64::NAN],
        2,
    )
    .unwrap();
    let rows = |a: Array<f64>| a.compute().unwrap().iter().copied().collect::<Vec<_>>();
    let median = rows(x.median(Some(1)).unwrap());
    assert!(median[0].is_nan() && median[1] == 2.0 && median[2].is_nan(), "{median:?}");
    let nanmedian = rows(x.nanmedian(Some(-1)).unwrap());
    assert!(nanmedian[0] == 3.0 && nanmedian[1] == 2.0 && nanmedian[2].is_nan(), "{nanmedian:?}");
    assert_eq!(rows(x.nanpercentile(100.0, Some(0)).unwrap())[..3], [4.0, 2.0, 8.0]);
    assert_eq!(x.nanquantile(0.0, None).unwrap().compute_scalar().unwrap(), -1.0);
}

#[test]
fn bad_quantiles_and_axes_are_errors_naming_them() {
    let x = Array::<f64>::ones(&[4, 3], 2).unwrap();
    for (result, value) in [
        (x.quantile(1.5, None), "1.5"),
        (x.quantile(f64::NAN, None), "NaN"),
        (x.percentile(-3.0, Some(0)), "-3.0"),
        (x.quantile_with(&[], &QuantileOptions::default()), "[]"),
    ] {
        match result {
            Err(Error::InvalidArgument { value: v, .. }) => assert_eq!(v, value),
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(x.median(Some(2)), Err(Error::BadAxis { axis: 2, .. })));
}

#[test]
fn nan_reductions_and_ptp_match_loops_that_leave_nan_out() {
    let data = values(7 * 9, 5, 4);
    let whole = ArrayD::from_shape_vec(IxDyn(&[7, 9]), data.clone()).unwrap();
    let x = Array::from_vec(&[7, 9], data, vec![vec![3, 0, 4], vec![2, 7]]).unwrap();
    let kept = |l: &[f64]| l.iter().copied().filter(|v| !v.is_nan()).collect::<Vec<f64>>();
    let var = |l: &[f64], ddof: f64| {
        let v = kept(l);
        let m = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - ddof)
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1.0) || (a.is_nan() && b.is_nan());
    for axis in [0usize, 1] {
        let lanes: Vec<Vec<f64>> = whole.lanes(Axis(axis)).into_iter().map(|l| l.to_vec()).collect();
        let got_var = x.nanvar(axis as isize, 1).unwrap().compute().unwrap();
        let got_std = x.nanstd(axis as isize, 0).unwrap().compute().unwrap();
        let got_prod = x.nanprod(axis as isize).unwrap().compute().unwrap();
        let got_ptp = x.ptp(axis as isize).unwrap().compute().unwrap();
        for (k, lane) in lanes.iter().enumerate() {
            assert!(close(got_var.as_slice().unwrap()[k], var(lane, 1.0)), "nanvar axis {axis} lane {k}");
            assert!(close(got_std.as_slice().unwrap()[k], var(lane, 0.0).sqrt()), "nanstd axis {axis} lane {k}");
            assert!(
                close(got_prod.as_slice().unwrap()[k], kept(lane).iter().product()),
                "nanprod axis {axis} lane {k}"
            );
            let has_nan = lane.iter().any(|v| v.is_nan());
            let (hi, lo) = kept(lane).iter().fold((f64::MIN, f64::MAX), |(h, l), &v| (h.max(v), l.min(v)));
            let want_ptp = if has_nan { f64::NAN } else { hi - lo };
            assert!(close(got_ptp.as_slice().unwrap()[k], want_ptp), "ptp axis {axis} lane {k}");
        }
        let cum = x.nancumsum(axis as isize).unwrap().compute().unwrap();
        let cumprod = x.nancumprod(axis as isize).unwrap().compute().unwrap();
        for ((lane, got), got_p) in
            whole.lanes(Axis(axis)).into_iter().zip(cum.lanes(Axis(axis))).zip(cumprod.lanes(Axis(axis)))
        {
            let (mut s, mut p) = (0.0, 1.0);
            for ((v, g), gp) in lane.iter().zip(got.iter()).zip(got_p.iter()) {
                if !v.is_nan() {
                    s += v;
                    p *= v;
                }
                assert!(close(*g, s) && close(*gp, p), "nancumsum/nancumprod axis {axis}: {g} {s}, {gp} {p}");
            }
        }
    }
}

#[test]
fn diff_trace_and_outer_match_loops() {
    let whole = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| ((i[0] * 7 + i[1] * 3) % 11) as i64 - 5);
    let x = Array::from_ndarray(whole.clone(), vec![vec![2, 0, 4], vec![3, 2]]).unwrap();
    for axis in [0usize, 1] {
        for n in 0..7 {
            let mut want = whole.clone();
            for _ in 0..n {
                let len = want.shape()[axis];
                if len == 0 {
                    break;
                }
                let hi = want.slice_axis(Axis(axis), (1..len).into()).to_owned();
                let lo = want.slice_axis(Axis(axis), (0..len - 1).into()).to_owned();
                want = hi - lo;
            }
            assert_eq!(x.diff(n, axis as isize).unwrap().compute().unwrap(), want, "n {n} axis {axis}");
        }
    }
    let edge = Array::from_ndarray(whole.slice_axis(Axis(0), (0..1).into()).to_owned(), 1).unwrap();
    let with = x.diff_with(1, 0, Some(&edge), Some(&edge)).unwrap().compute().unwrap();
    assert_eq!(with.shape(), &[7, 5]);
    assert!(with.index_axis(Axis(0), 0).iter().all(|&v| v == 0), "the first row minus itself");
    let narrow = Array::<i64>::zeros(&[1, 3], 1).unwrap(); // 3 columns, not 5
    assert!(matches!(x.diff_with(1, 0, Some(&narrow), None), Err(Error::ShapeMismatch { .. })));
    let square =
        Array::from_ndarray(whole.slice_axis(Axis(1), (0..5).into()).slice_axis(Axis(0), (0..5).into()).to_owned(), 2)
            .unwrap();
    let sq = square.compute().unwrap();
    for offset in [-2isize, 0, 1, 4] {
        let want: i64 = (0..5i64)
            .filter_map(|i| {
                let j = i + offset as i64;
                (0..5).contains(&j).then(|| sq[[i as usize, j as usize]])
            })
            .sum();
        assert_eq!(square.trace(offset).unwrap().compute_scalar().unwrap(), want, "offset {offset}");
    }
    let outer = x.outer(&square.diagonal(0, 0, 1).unwrap()).unwrap().compute().unwrap();
    let flat: Vec<i64> = whole.iter().copied().collect();
    let diag: Vec<i64> = (0..5).map(|i| sq[[i, i]]).collect();
    assert_eq!(outer.shape(), &[30, 5]);
    for (i, a) in flat.iter().enumerate() {
        for (j, b) in diag.iter().enumerate() {
            assert_eq!(outer[[i, j]], a * b);
        }
    }
}

#[test]
fn cov_corrcoef_and_average_match_numpy_and_loops() {
    let data = vec![0.5, 1.25, -2.0, 3.0, 0.0, 1.0, 0.1, 0.7, -0.3, 2.2, 3.3, -1.1, 0.0, 0.4, 0.9];
    let x = Array::from_vec(&[3, 5], data.clone(), vec![vec![2, 1], vec![3, 0, 2]]).unwrap();
    let near = |got: &[f64], want: &[f64]| {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 1e-14 * w.abs().max(1.0), "{got:?} against {want:?}");
        }
    };
    // np.cov(x), np.corrcoef(x), np.cov(x, rowvar=False, ddof=0)[:6], printed by NumPy 2.4.
    let cov = x.cov(true, 1).unwrap().compute().unwrap();
    near(
        cov.as_slice().unwrap(),
        &[
            3.325,
            -0.9275000000000001,
            -0.11250000000000007,
            -0.9275000000000001,
            0.9230000000000002,
            0.6150000000000001,
            -0.11250000000000007,
            0.6150000000000001,
            2.6549999999999994,
        ],
    );
    let r = x.corrcoef(true).unwrap().compute().unwrap();
    near(
        r.as_slice().unwrap(),
        &[
            0.9999999999999999,
            -0.5294406011762962,
            -0.037863820700740944,
            -0.5294406011762962,
            1.0,
            0.39286379048599107,
            -0.037863820700740944,
            0.39286379048599107,
            1.0,
        ],
    );
    let cols = x.cov(false, 0).unwrap().compute().unwrap();
    assert_eq!(cols.shape(), &[5, 5]);
    near(
        &cols.as_slice().unwrap()[..6],
        &[1.4866666666666664, -1.1016666666666666, 0.5933333333333333, -0.8133333333333332, 0.07, -1.1016666666666666],
    );
    // np.average(x, axis=1, weights=w)
    let w =
        Array::from_vec(&[3, 5], vec![1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 4.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], 2)
            .unwrap();
    near(x.average(1, Some(&w)).unwrap().compute().unwrap().as_slice().unwrap(), &[0.6, 0.6066666666666668, 0.7]);
    // A 1-D array is one variable: its variance.
    let v = Array::from_vec(&[5], data[..5].to_vec(), 2).unwrap();
    let var = data[..5].iter().map(|a| (a - 0.55) * (a - 0.55)).sum::<f64>() / 4.0;
    near(v.cov(true, 1).unwrap().compute().unwrap().as_slice().unwrap(), &[var]);
    assert!(matches!(v.cov(true, 5), Err(Error::InvalidArgument { .. })));
    let short = Array::<f64>::ones(&[5], 2).unwrap();
    assert!(matches!(x.average(0, Some(&short)), Err(Error::ShapeMismatch { .. })));
}

/// The quantiles of all of `data` by the definition (NaN: as NumPy).
fn all_oracle(data: &[f64], qs: &[f64], method: QuantileMethod, skip_nan: bool) -> Vec<f64> {
    let mut v: Vec<f64> = data.iter().copied().filter(|v| !v.is_nan()).collect();
    if v.is_empty() || (!skip_nan && v.len() < data.len()) {
        return vec![f64::NAN; qs.len()];
    }
    v.sort_by(f64::total_cmp);
    qs.iter().map(|&q| by_definition(&v, q, method)).collect()
}

#[test]
fn over_all_axes_a_large_array_takes_the_radix_passes_with_the_same_values() {
    // Above the one-block size (16 MiB): counting passes, in irregular blocks.
    let n = 2_200_000;
    let qs = [0.0, 1e-6, 0.25, 0.5, 0.77, 0.999_999, 1.0];
    let mut wide: Vec<f64> = (0..n).map(|i| (i as f64 * 0.6180).sin() * 10f64.powi((i % 17) as i32 - 8)).collect();
    (wide[5], wide[77]) = (f64::INFINITY, f64::NEG_INFINITY);
    for data in [values(n, 7, 0), values(n, 9, 1000), wide] {
        let x = Array::from_vec(&[n], data.clone(), vec![vec![700_000, 0, 1_000_000, 499_999, 1]]).unwrap();
        for skip_nan in [false, true] {
            for method in METHODS {
                let opts = QuantileOptions { axis: None, method, skip_nan };
                let got = x.quantile_with(&qs, &opts).unwrap().compute().unwrap();
                let want = all_oracle(&data, &qs, method, skip_nan);
                for ((g, w), q) in got.iter().zip(&want).zip(qs) {
                    assert!(same(*g, *w), "{method:?} q {q} skip {skip_nan}: {g} against {w}");
                }
            }
        }
    }
    // f32 keys take two passes; a 2-D array in 2-D blocks.
    let data: Vec<f32> = (0..4_400_000).map(|i| ((i as f32) * 0.37).cos() * (i % 1000) as f32).collect();
    let x = Array::from_vec(&[2200, 2000], data.clone(), [700, 900]).unwrap();
    let wide: Vec<f64> = data.iter().map(|&v| v as f64).collect();
    for method in [QuantileMethod::Lower, QuantileMethod::Nearest] {
        let got = x.quantile_with(&qs, &QuantileOptions { method, ..Default::default() }).unwrap().compute().unwrap();
        let want = all_oracle(&wide, &qs, method, false);
        assert_eq!(got.iter().map(|&v| v as f64).collect::<Vec<_>>(), want, "{method:?}");
    }
    let median = x.median(None).unwrap().compute_scalar().unwrap();
    let want = all_oracle(&wide, &[0.5], QuantileMethod::Higher, false)[0] as f32;
    let below = all_oracle(&wide, &[0.5], QuantileMethod::Lower, false)[0] as f32;
    assert_eq!(median, below + (want - below) * 0.5, "median between the two middle values, in f32");
}

#[test]
fn the_radix_selection_holds_less_than_the_array() {
    // 32 MB of random values under a 16 MB limit: the median is exact.
    let x: Array<f64> = chunked_array::random::RandomState::new(11).standard_normal(&[4_000_000], 250_000).unwrap();
    let data = x.compute().unwrap().into_raw_vec_and_offset().0;
    let limit = 16 << 20;
    let ctx = chunked_array::Context::threads(2).with_memory_limit(limit);
    let (median, stats) = x.median(None).unwrap().compute_stats(&ctx).unwrap();
    assert_eq!(median[[]], all_oracle(&data, &[0.5], QuantileMethod::Linear, false)[0]);
    // The blocks running tasks hold can take the store over the limit for a
    // moment; far from the array's 32 MB. The source's blocks are dropped and
    // made again, the small counts spill.
    assert!(stats.tiers.peak_bytes <= 24 << 20, "{stats:?}");
    assert!(stats.tiers.regenerated > 0 && stats.tiers.spilled_bytes < 8 << 20, "{stats:?}");
}
