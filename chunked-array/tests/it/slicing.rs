//! Basic indexing against an independent oracle: NumPy's rules written out as index
//! lists, applied to the whole ndarray with `select`.

use crate::common;

use chunked_array::{Array, Idx};
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

fn bound() -> impl Strategy<Value = Option<isize>> {
    prop_oneof![1 => Just(None), 3 => (-12isize..12).prop_map(Some)]
}

fn axis_index() -> impl Strategy<Value = Idx> {
    prop_oneof![
        4 => (bound(), bound(), prop_oneof![(1isize..4), (-4isize..=-1)]).prop_map(|(a, b, s)| Idx::stepped(a, b, s)),
        1 => (-3isize..3).prop_map(Idx::Index),
        1 => Just(Idx::NewAxis),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn slices_match_numpy((shape, chunks) in shape_chunks(3, 9), idx in prop::collection::vec(axis_index(), 0..4), ellipsis_at in any::<prop::sample::Index>(), use_ellipsis in any::<bool>()) {
        let a = ArrayD::from_shape_fn(IxDyn(&shape), |i| i.as_array_view().iter().fold(0i64, |acc, &v| acc * 10 + v as i64));
        let x = chunked(&a, &chunks);
        let mut index = idx.clone();
        if use_ellipsis {
            index.insert(ellipsis_at.index(index.len() + 1), Idx::Ellipsis);
        }
        // The oracle: expand, then select index lists axis by axis.
        let consuming = index.iter().filter(|i| !matches!(i, Idx::NewAxis | Idx::Ellipsis)).count();
        let got = x.slice(&index);
        if consuming > shape.len() {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let mut expanded = Vec::new();
        for &i in &index {
            if i == Idx::Ellipsis { expanded.extend(std::iter::repeat_n(Idx::FULL, shape.len() - consuming)); } else { expanded.push(i); }
        }
        if !use_ellipsis { expanded.extend(std::iter::repeat_n(Idx::FULL, shape.len() - consuming)); }
        let mut want = a.clone();
        let mut axis = 0; // axis in `want`
        let mut input_axis = 0;
        let mut bad = false;
        for i in expanded {
            match i {
                Idx::NewAxis => { want.insert_axis_inplace(Axis(axis)); axis += 1; }
                Idx::Index(k) => {
                    let n = shape[input_axis] as isize;
                    let p = if k < 0 { k + n } else { k };
                    if p < 0 || p >= n { bad = true; break; }
                    want = want.index_axis(Axis(axis), p as usize).to_owned();
                    input_axis += 1;
                }
                Idx::Slice { start, stop, step } => {
                    let ids = numpy_indices(start, stop, step, shape[input_axis]);
                    want = want.select(Axis(axis), &ids);
                    axis += 1;
                    input_axis += 1;
                }
                Idx::Ellipsis => unreachable!(),
            }
        }
        if bad {
            prop_assert!(got.is_err());
        } else {
            let y = got.unwrap();
            prop_assert_eq!(y.shape(), want.shape().to_vec());
            prop_assert_eq!(y.compute().unwrap(), want);
        }
    }
}

#[test]
fn slices_read_only_the_blocks_they_touch() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let x = Array::<f64>::from_fn(&[1000, 50], [100, 50], move |i| {
        c.fetch_add(1, Ordering::Relaxed);
        i[0] as f64
    })
    .unwrap();
    let head = x.slice([Idx::range(0, 10)]).unwrap();
    assert_eq!(head.compute().unwrap().shape(), &[10, 50]);
    assert_eq!(calls.load(Ordering::Relaxed), 100 * 50, "only the first block is generated");
    assert_eq!(x.slice([Idx::Index(-1), Idx::Index(3)]).unwrap().compute_scalar().unwrap(), 999.0);
    // A random source: the head of a 100-block array runs one generation task
    // and one slice, and gives the first rows of the whole array.
    let r = chunked_array::random::RandomState::new(4).uniform::<f64>(&[10_000, 50], [100, 50]).unwrap();
    let (head, stats) = r.slice([Idx::range(0, 10)]).unwrap().compute_stats(&chunked_array::Context::sync()).unwrap();
    assert!(stats.tasks <= 2, "{stats:?}");
    assert_eq!(head, r.compute().unwrap().slice_move(ndarray::s![..10, ..]).into_dyn());
    let (tail, stats) = r
        .slice([Idx::stepped(Some(-1), Some(-251), -50)])
        .unwrap()
        .compute_stats(&chunked_array::Context::sync())
        .unwrap();
    assert!(stats.tasks <= 10, "three of 100 blocks touched: {stats:?}");
    assert_eq!(tail, r.compute().unwrap().slice_move(ndarray::s![-250..;-50, ..]).into_dyn());
}

#[test]
fn bad_indices_are_errors() {
    let x = Array::<f64>::zeros(&[4, 5], 2).unwrap();
    let e = x.slice([Idx::Index(4)]).unwrap_err().to_string();
    assert!(e.contains("out of range for axis 0 of length 4"), "{e}");
    assert!(x.slice([Idx::FULL, Idx::stepped(None, None, 0)]).unwrap_err().to_string().contains("axis 1"));
    assert!(x.slice([Idx::Ellipsis, Idx::Ellipsis]).is_err());
    assert!(x.slice([Idx::FULL, Idx::FULL, Idx::FULL]).is_err());
    assert_eq!(x.slice([Idx::Ellipsis, Idx::NewAxis]).unwrap().shape(), vec![4, 5, 1]);
}

#[test]
fn extreme_steps() {
    let x = Array::<i64>::arange(0, 10, 1, 3).unwrap();
    let big = x.slice([Idx::stepped(Some(0), None, isize::MAX)]).unwrap();
    assert_eq!(big.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![0]);
    let neg = x.slice([Idx::stepped(None, None, isize::MIN)]).unwrap();
    assert_eq!(neg.compute().unwrap().iter().cloned().collect::<Vec<_>>(), vec![9]);
}
