//! concatenate, stack, expand_dims, squeeze, flip, roll (one axis, several, flat) against ndarray.

use crate::common;

use chunked_array::{Array, concatenate, stack};
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

fn numbered(shape: &[usize], offset: i64) -> ArrayD<i64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| i.as_array_view().iter().fold(offset, |acc, &v| acc * 10 + v as i64))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn concatenate_and_stack((shape, chunks) in shape_chunks(3, 6), extra in 0usize..5, pick in any::<prop::sample::Index>(), other in any::<prop::sample::Index>()) {
        prop_assume!(!shape.is_empty());
        let axis = pick.index(shape.len());
        let a = numbered(&shape, 1);
        let mut bshape = shape.clone();
        bshape[axis] = extra;
        let b = numbered(&bshape, 2);
        let bchunks: Vec<Vec<usize>> = bshape.iter().enumerate().map(|(i, &n)| if i == axis || n == 0 { vec![n] } else { vec![1; n] }).collect();
        let (x, y) = (chunked(&a, &chunks), chunked(&b, &bchunks));
        let got = concatenate(&[&x, &y, &x], axis as isize).unwrap().compute().unwrap();
        prop_assert_eq!(got, ndarray::concatenate(Axis(axis), &[a.view(), b.view(), a.view()]).unwrap());
        let z = chunked(&numbered(&shape, 3), &rechunk_all(&shape));
        let s = other.index(shape.len() + 1);
        let got = stack(&[&x, &z], s as isize).unwrap().compute().unwrap();
        prop_assert_eq!(got, ndarray::stack(Axis(s), &[a.view(), numbered(&shape, 3).view()]).unwrap());
        prop_assert_eq!(x.flip(axis as isize).unwrap().compute().unwrap(), { let mut f = a.clone(); f.invert_axis(Axis(axis)); f });
        let shift = extra as isize - 2;
        let n = shape[axis];
        let want = if n == 0 { a.clone() } else {
            let k = shift.rem_euclid(n as isize) as usize;
            let idx: Vec<usize> = (0..n).map(|i| (i + n - k) % n).collect();
            a.select(Axis(axis), &idx)
        };
        prop_assert_eq!(x.roll(shift, axis as isize).unwrap().compute().unwrap(), want);
        if shape.len() >= 2 {
            let mut sw = a.clone();
            sw.swap_axes(0, shape.len() - 1);
            prop_assert_eq!(x.swapaxes(0, -1).unwrap().compute().unwrap(), sw);
        }
        let e = x.expand_dims(-1).unwrap();
        prop_assert_eq!(e.shape(), [shape.clone(), vec![1]].concat());
        prop_assert_eq!(e.squeeze(Some(&[-1])).unwrap().compute().unwrap(), a.clone());
        let squeezed: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
        prop_assert_eq!(x.squeeze(None).unwrap().shape(), squeezed.clone());
        prop_assert_eq!(x.squeeze(None).unwrap().compute().unwrap().shape().to_vec(), squeezed);
    }
}

/// NumPy's roll of `a` by `shift` along `axis`: element i goes to i + shift.
fn rolled(a: &ArrayD<i64>, shift: isize, axis: usize) -> ArrayD<i64> {
    let n = a.shape()[axis];
    if n == 0 {
        return a.clone();
    }
    let k = shift.rem_euclid(n as isize) as usize;
    let idx: Vec<usize> = (0..n).map(|i| (i + n - k) % n).collect();
    a.select(Axis(axis), &idx)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// roll over several axes (an axis given twice adds its shifts) and over
    /// the flattened array; expand_dims at several positions.
    #[test]
    fn roll_many_and_flat((shape, chunks) in shape_chunks(3, 6), shifts in prop::collection::vec(-9isize..9, 1..4),
                          picks in prop::collection::vec(any::<prop::sample::Index>(), 1..4), flat in -40isize..40) {
        let a = numbered(&shape, 1);
        let x = chunked(&a, &chunks);
        if !shape.is_empty() {
            let nd = shape.len();
            let axes: Vec<isize> = picks.iter().take(shifts.len()).map(|p| p.index(nd) as isize - if p.index(2) == 0 { nd as isize } else { 0 }).collect();
            let got = x.roll_axes(&shifts, &axes);
            if axes.len() == shifts.len() || axes.len() == 1 {
                let mut want = a.clone();
                for i in 0..shifts.len() {
                    let axis = axes[if axes.len() == 1 { 0 } else { i }].rem_euclid(nd as isize) as usize;
                    want = rolled(&want, shifts[i], axis);
                }
                prop_assert_eq!(got.unwrap().compute().unwrap(), want);
            } else {
                prop_assert!(got.is_err());
            }
        }
        // Flat: element at C-order position p moves to p + flat.
        let values: Vec<i64> = a.iter().copied().collect();
        let n = values.len();
        let want: Vec<i64> = (0..n).map(|p| values[(p as isize - flat).rem_euclid(n.max(1) as isize) as usize]).collect();
        let got = x.roll_flat(flat).unwrap();
        prop_assert_eq!(got.shape(), shape.clone());
        prop_assert_eq!(got.compute().unwrap().iter().copied().collect::<Vec<_>>(), want);
        // Two new axes: at the front and at the end of the result.
        let e = x.expand_dims_axes(&[0, -1]).unwrap();
        prop_assert_eq!(e.compute().unwrap(), a.clone().insert_axis(Axis(0)).insert_axis(Axis(shape.len() + 1)));
    }
}

#[test]
fn many_axes_errors() {
    let x = Array::<f64>::zeros(&[2, 3], 1).unwrap();
    assert!(x.roll_axes(&[1, 2, 3], &[0, 1]).unwrap_err().to_string().contains("(3, 2)"));
    assert!(matches!(x.roll_axes(&[1], &[2]).unwrap_err(), chunked_array::Error::BadAxis { axis: 2, .. }));
    assert!(matches!(x.expand_dims_axes(&[0, 0]).unwrap_err(), chunked_array::Error::BadAxis { axis: 0, .. }));
    assert!(matches!(x.expand_dims_axes(&[4]).unwrap_err(), chunked_array::Error::BadAxis { axis: 4, ndim: 3, .. }));
    assert_eq!(x.expand_dims_axes(&[]).unwrap().shape(), vec![2, 3]);
    // A 0-d array rolls to itself.
    let s = Array::<f64>::full(&[], 2.0, 1).unwrap();
    assert_eq!(s.roll_flat(5).unwrap().compute().unwrap()[[]], 2.0);
}

fn rechunk_all(shape: &[usize]) -> Vec<Vec<usize>> {
    shape.iter().map(|&n| if n == 0 { vec![0] } else { vec![n] }).collect()
}

#[test]
fn manipulation_errors() {
    let x = Array::<f64>::zeros(&[2, 3], 1).unwrap();
    let y = Array::<f64>::zeros(&[2, 4], 1).unwrap();
    let e = concatenate(&[&x, &y], 0).unwrap_err().to_string();
    assert!(e.contains("[2, 3]") && e.contains("[2, 4]"), "{e}");
    assert!(concatenate::<f64>(&[], 0).is_err());
    assert!(stack(&[&x, &y], 0).is_err());
    assert!(x.squeeze(Some(&[0])).unwrap_err().to_string().contains("has length 2"));
    assert!(x.expand_dims(3).is_err());
    assert!(x.flip(2).is_err());
    assert_eq!(concatenate(&[&x, &y], 1).unwrap().chunks().lengths()[1], vec![1; 7]);
    // Bad axes name the axis and the number of dimensions.
    for e in [
        x.swapaxes(0, 2).unwrap_err(),
        x.swapaxes(-3, 1).unwrap_err(),
        x.roll(1, 2).unwrap_err(),
        stack(&[&x, &x], 3).unwrap_err(),
    ] {
        assert!(matches!(e, chunked_array::Error::BadAxis { ndim: _, .. }), "{e}");
    }
    assert!(stack(&[&x, &x], -4).is_err());
    assert_eq!(stack(&[&x, &x], -3).unwrap().shape(), vec![2, 2, 3]);
    assert!(x.permute_axes(&[0, 0]).is_err());
    assert!(x.permute_axes(&[0]).is_err());
    // pad: one (before, after) pair per axis.
    let e = x.pad(&[(1, 1)], chunked_array::PadMode::Edge).unwrap_err().to_string();
    assert!(e.contains("widths"), "{e}");
    assert!(x.pad(&[(1, 1), (0, 0), (2, 2)], chunked_array::PadMode::Constant(0.0)).is_err());
}
