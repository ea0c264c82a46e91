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
