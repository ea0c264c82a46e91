//! The building blocks that run user functions: a user-defined reduction
//! (against the same reduction by ndarray on the whole array, for every
//! split_every and axis set), apply_along_axis, coarsen and try_map_blocks
//! (against loops over the whole array), over irregular chunkings.

use chunked_array::ndarray::{ArrayD, Axis, IxDyn, arr1};
use chunked_array::{Array, ReductionOptions, reduction};

fn data() -> (ArrayD<f64>, Array<f64>) {
    let whole = ArrayD::from_shape_fn(IxDyn(&[9, 7]), |i| ((i[0] * 7 + i[1]) * 37 % 23) as f64 - 11.0);
    let x = Array::from_ndarray(whole.clone(), vec![vec![2, 3, 0, 4], vec![1, 5, 1]]).unwrap();
    (whole, x)
}

#[test]
fn a_user_reduction_equals_the_whole_array_reduction() {
    let (whole, x) = data();
    let sum_axes = |mut a: ArrayD<f64>, axes: &[usize]| {
        for &ax in axes {
            a = a.sum_axis(Axis(ax)).insert_axis(Axis(ax));
        }
        a
    };
    for split_every in [2, 3, 8] {
        for (axes, keepdims) in
            [(None, false), (Some(vec![0]), false), (Some(vec![-1]), true), (Some(vec![0, 1]), true)]
        {
            let opts = ReductionOptions { axes: axes.clone(), split_every, keepdims };
            // Sum of squares, with a mean-like aggregate that halves.
            let got = reduction(
                &x,
                move |b, ax| sum_axes(b.mapv(|v| v * v), ax),
                move |p, ax| sum_axes(p.to_owned(), ax),
                move |p, ax| sum_axes(p.to_owned(), ax) * 0.5,
                &opts,
            )
            .unwrap()
            .compute()
            .unwrap();
            let reduced: Vec<usize> = match &axes {
                None => vec![0, 1],
                Some(a) => a.iter().map(|&v| if v < 0 { (v + 2) as usize } else { v as usize }).collect(),
            };
            let mut want = sum_axes(whole.mapv(|v| v * v), &reduced) * 0.5;
            if !keepdims {
                for &ax in reduced.iter().rev() {
                    want = want.index_axis_move(Axis(ax), 0);
                }
            }
            assert_eq!(got, want, "split_every {split_every} axes {axes:?} keepdims {keepdims}");
        }
    }
}

#[test]
fn a_user_reduction_with_bad_results_is_an_error() {
    let (_, x) = data();
    let opts = ReductionOptions { axes: Some(vec![0]), ..Default::default() };
    let keeps_axis = reduction(&x, |b, _| b.to_owned(), |p, _| p.to_owned(), |p, _| p.to_owned(), &opts).unwrap();
    let e = keeps_axis.compute().unwrap_err().to_string();
    assert!(e.contains("chunk") && e.contains("[1, 1]"), "{e}");
    let one = ReductionOptions { split_every: 1, ..Default::default() };
    assert!(reduction(&x, |b, _| b.to_owned(), |p, _| p.to_owned(), |p, _| p.to_owned(), &one).is_err());
}

#[test]
fn apply_along_axis_and_coarsen_match_loops() {
    let (whole, x) = data();
    // Per row: the sum and the product of the first two values.
    let got = x
        .apply_along_axis(1, &[2], |lane| arr1(&[lane.sum(), lane[0] * lane[1]]).into_dyn())
        .unwrap()
        .compute()
        .unwrap();
    for (r, row) in whole.outer_iter().enumerate() {
        assert_eq!((got[[r, 0]], got[[r, 1]]), (row.sum(), row[0] * row[1]));
    }
    // Per column, one value: the axis disappears.
    let got = x
        .apply_along_axis(0, &[], |lane| ArrayD::from_elem(vec![], lane.iter().cloned().fold(f64::MIN, f64::max)))
        .unwrap();
    let want = whole.map_axis(Axis(0), |l| l.iter().cloned().fold(f64::MIN, f64::max));
    assert_eq!(got.compute().unwrap(), want);
    let wrong = x.apply_along_axis(0, &[2], |lane| arr1(&[lane[0]]).into_dyn()).unwrap().compute().unwrap_err();
    assert!(wrong.to_string().contains("[2]") && wrong.to_string().contains("[1]"), "{wrong}");

    let got = x.coarsen(&[3, 2], |w| w.sum(), true).unwrap().compute().unwrap();
    let want = ArrayD::from_shape_fn(IxDyn(&[3, 3]), |i| {
        (0..3).flat_map(|a| (0..2).map(move |b| (a, b))).map(|(a, b)| whole[[i[0] * 3 + a, i[1] * 2 + b]]).sum::<f64>()
    });
    assert_eq!(got, want);
    let e = x.coarsen(&[3, 2], |w| w.sum(), false).unwrap_err().to_string();
    assert!(e.contains("axis 1 of length 7"), "{e}");
    assert!(x.coarsen(&[0, 1], |w| w.sum(), true).is_err());
}

#[test]
fn try_map_blocks_reports_the_functions_error() {
    let (_, x) = data();
    let checked = x.try_map_blocks(
        |b, info| match info.index[0] {
            2 => Err(chunked_array::Error::InvalidArgument {
                name: "block".into(),
                value: info.index[0].to_string(),
                reason: "refused".into(),
            }),
            _ => Ok(b.to_owned()),
        },
        None,
    );
    let e = checked.unwrap().compute().unwrap_err().to_string();
    assert!(e.contains("refused"), "{e}");
}

#[test]
fn apply_gufunc_loops_the_core_function_over_broadcast_dimensions() {
    use chunked_array::ndarray::{ArrayViewD, Ix2};
    use chunked_array::{GufuncOptions, apply_gufunc};
    // A stack of 5 (3 x 4) matrices times one (4 x 2) matrix: "(m,n),(n,p)->(m,p)".
    let a_data = ArrayD::from_shape_fn(IxDyn(&[5, 3, 4]), |i| (i[0] * 12 + i[1] * 4 + i[2]) as f64 * 0.25 - 3.0);
    let b_data = ArrayD::from_shape_fn(IxDyn(&[4, 2]), |i| (i[0] + 3 * i[1]) as f64 - 2.0);
    let a = Array::from_ndarray(a_data.clone(), vec![vec![2, 0, 3], vec![2, 1], vec![1, 3]]).unwrap();
    let b = Array::from_ndarray(b_data.clone(), 1).unwrap();
    let matmul = |v: &[ArrayViewD<'_, f64>]| {
        let (x, y) =
            (v[0].view().into_dimensionality::<Ix2>().unwrap(), v[1].view().into_dimensionality::<Ix2>().unwrap());
        vec![x.dot(&y).into_dyn()]
    };
    let opts = GufuncOptions { vectorize: true, ..Default::default() };
    let got = apply_gufunc("(m,n),(n,p)->(m,p)", matmul, &[&a, &b], &opts).unwrap();
    assert_eq!(got.len(), 1);
    let got = got[0].compute().unwrap();
    assert_eq!(got.shape(), &[5, 3, 2]);
    let b2 = b_data.view().into_dimensionality::<Ix2>().unwrap();
    for k in 0..5 {
        let want = a_data.index_axis(Axis(0), k).into_dimensionality::<Ix2>().unwrap().dot(&b2);
        assert_eq!(got.index_axis(Axis(0), k), want.into_dyn(), "matrix {k}");
    }
    // Two outputs per block (not vectorized): each row's sum and a new core
    // dimension "k" of 2 given in output_sizes.
    let x_data = ArrayD::from_shape_fn(IxDyn(&[6, 4]), |i| (i[0] * 4 + i[1]) as f64);
    let x = Array::from_ndarray(x_data.clone(), vec![vec![4, 2], vec![3, 1]]).unwrap();
    let opts = GufuncOptions { vectorize: false, output_sizes: vec![("k".into(), 2)] };
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    let two = move |v: &[ArrayViewD<'_, f64>]| {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let sums = v[0].sum_axis(Axis(1));
        let pairs = ArrayD::from_shape_fn(IxDyn(&[v[0].shape()[0], 2]), |i| v[0][[i[0], 0]] + i[1] as f64);
        vec![sums, pairs]
    };
    let out = apply_gufunc("(i)->(),(k)", two, &[&x], &opts).unwrap();
    let (sums, pairs) = chunked_array::compute((&out[0], &out[1])).unwrap();
    assert_eq!(sums, x_data.sum_axis(Axis(1)));
    assert_eq!(pairs, ArrayD::from_shape_fn(IxDyn(&[6, 2]), |i| x_data[[i[0], 0]] + i[1] as f64));
    assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 2, "once per loop block, for both outputs");
}

#[test]
fn bad_gufunc_signatures_and_inputs_are_errors_naming_them() {
    use chunked_array::ndarray::ArrayViewD;
    use chunked_array::{GufuncOptions, apply_gufunc};
    let x = Array::<f64>::ones(&[3, 4], 2).unwrap();
    let y = Array::<f64>::ones(&[3, 5], 2).unwrap();
    let id = |v: &[ArrayViewD<'_, f64>]| vec![v[0].to_owned()];
    let opts = GufuncOptions::default();
    let e = apply_gufunc("(i)>(i)", id, &[&x], &opts).unwrap_err().to_string();
    assert!(e.contains("(i)>(i)") && e.contains("->"), "{e}");
    let e = apply_gufunc("(i),(i)->(i)", id, &[&x], &opts).unwrap_err().to_string();
    assert!(e.contains("takes 2"), "{e}");
    let e = apply_gufunc("(i),(i)->()", id, &[&x, &y], &opts).unwrap_err().to_string();
    assert!(e.contains("core dimension") && e.contains('4') && e.contains('5'), "{e}");
    let e = apply_gufunc("(i)->(k)", id, &[&x], &opts).unwrap_err().to_string();
    assert!(e.contains("k") && e.contains("output_sizes"), "{e}");
    let e = apply_gufunc("(i,j,k)->()", id, &[&x], &opts).unwrap_err().to_string();
    assert!(e.contains("[3, 4]"), "{e}");
    let z = Array::<f64>::ones(&[2, 4], 2).unwrap();
    assert!(apply_gufunc("(i),(i)->()", id, &[&x, &z], &opts).is_err(), "loops 3 and 2 do not broadcast");
    // The function returns a core of the wrong shape: an error when computed.
    let out = apply_gufunc("(i)->()", id, &[&x], &opts).unwrap();
    let e = out[0].compute().unwrap_err().to_string();
    assert!(e.contains("gufunc output"), "{e}");
}
