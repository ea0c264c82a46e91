//! select, choose, piecewise and take_along_axis against plain loops over
//! the whole arrays, over irregular chunkings; meshgrid, indices, tri,
//! block and empty against loops that write NumPy's definitions out.

use std::sync::Arc;

use chunked_array::ndarray::{ArrayD, IxDyn};
use chunked_array::{Array, Indexing, Nested, Piece, block, choose, meshgrid, select};

fn whole(shape: &[usize], f: impl Fn(&[usize]) -> f64) -> ArrayD<f64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| f(i.slice()))
}

use chunked_array::ndarray::Dimension;

#[test]
fn select_choose_and_piecewise_pick_as_loops_do() {
    let data = whole(&[6, 5], |i| (i[0] * 5 + i[1]) as f64 - 12.0);
    let x = Array::from_ndarray(data.clone(), vec![vec![2, 0, 4], vec![3, 2]]).unwrap();
    let (neg, big) = (x.lt(-5.0).unwrap(), x.gt(10.0).unwrap());
    let got = select(&[&neg, &big], &[&(&x * 2.0), &(&x + 100.0)], 0.5).unwrap().compute().unwrap();
    assert_eq!(
        got,
        data.mapv(|v| if v < -5.0 {
            v * 2.0
        } else if v > 10.0 {
            v + 100.0
        } else {
            0.5
        })
    );

    let which_data = data.mapv(|v| (v.rem_euclid(3.0)) as i64);
    let which = Array::from_ndarray(which_data.clone(), 4).unwrap();
    let c1 = &x * -1.0;
    let c2 = Array::<f64>::full(&[6, 5], 7.0, 3).unwrap();
    let got = choose(&which, &[&x, &c1, &c2]).unwrap().compute().unwrap();
    let want = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| match which_data[&i] {
        0 => data[&i],
        1 => -data[&i],
        _ => 7.0,
    });
    assert_eq!(got, want);
    let e = choose(&which, &[&x, &c1]).unwrap().compute().unwrap_err().to_string();
    assert!(e.contains("index") && e.contains('2') && e.contains("2 choices"), "{e}");

    let pieces: Vec<Piece<f64>> = vec![Arc::new(|v| v * v), Arc::new(|v| -v), Arc::new(|_| 1.0)];
    let got = x.piecewise(&[&neg, &x.lt(0.0).unwrap()], &pieces).unwrap().compute().unwrap();
    // Later conditions win: every negative value is negated; the rest is 1.
    assert_eq!(got, data.mapv(|v| if v < 0.0 { -v } else { 1.0 }));
    let got = x.piecewise(&[&neg], &pieces[..1]).unwrap().compute().unwrap();
    assert_eq!(got, data.mapv(|v| if v < -5.0 { v * v } else { 0.0 }));
    assert!(x.piecewise(&[&neg], &pieces).unwrap_err().to_string().contains("funclist"));
}

#[test]
fn take_along_axis_reads_each_lane() {
    let data = whole(&[4, 7], |i| (i[0] * 7 + i[1]) as f64);
    let x = Array::from_ndarray(data.clone(), vec![vec![1, 3], vec![3, 0, 4]]).unwrap();
    let idx_data = ArrayD::from_shape_fn(IxDyn(&[4, 3]), |i| ((i[0] * 5 + i[1] * 3) % 7) as i64 - 2);
    let idx = Array::from_ndarray(idx_data.clone(), vec![vec![2, 2], vec![1, 2]]).unwrap();
    let got = x.take_along_axis(&idx, 1).unwrap();
    assert_eq!(got.chunks(), idx.chunks());
    let want = ArrayD::from_shape_fn(IxDyn(&[4, 3]), |i| {
        let k = idx_data[&i];
        data[[i[0], if k < 0 { (k + 7) as usize } else { k as usize }]]
    });
    assert_eq!(got.compute().unwrap(), want);
    let far = Array::from_vec(&[4, 1], vec![0, 7, 1, 2], 2).unwrap();
    let e = x.take_along_axis(&far, 1).unwrap().compute().unwrap_err().to_string();
    assert!(e.contains('7') && e.contains("out of range"), "{e}");
    let wrong = Array::<i64>::zeros(&[3, 2], 2).unwrap();
    assert!(x.take_along_axis(&wrong, 1).unwrap_err().to_string().contains("[3, 2]"));
}

#[test]
fn grids_and_blocks_follow_numpy() {
    let x = Array::<f64>::arange(0.0, 4.0, 1.0, 3).unwrap();
    let y = Array::<f64>::arange(0.0, 3.0, 1.0, 2).unwrap();
    let z = Array::<f64>::arange(0.0, 2.0, 1.0, 1).unwrap();
    for (indexing, shape) in [(Indexing::Xy, [3, 4, 2]), (Indexing::Ij, [4, 3, 2])] {
        let g = meshgrid(&[&x, &y, &z], indexing).unwrap();
        for (k, gk) in g.iter().enumerate() {
            let got = gk.compute().unwrap();
            assert_eq!(got.shape(), &shape);
            for (i, v) in got.indexed_iter() {
                // xy: x varies along axis 1, y along axis 0.
                let axis = match (indexing, k) {
                    (Indexing::Xy, 0) => 1,
                    (Indexing::Xy, 1) => 0,
                    _ => k,
                };
                assert_eq!(*v, i[axis] as f64, "{indexing:?} output {k} at {i:?}");
            }
        }
    }
    let ind = Array::indices(&[3, 4], vec![vec![2, 1], vec![3, 1]]).unwrap().compute().unwrap();
    for (i, v) in ind.indexed_iter() {
        assert_eq!(*v, i[1 + i[0]] as i64);
    }
    for k in [-1, 0, 2] {
        let t = Array::<i64>::tri(4, Some(5), k, 2).unwrap().compute().unwrap();
        assert!(t.indexed_iter().all(|(i, &v)| v == i64::from(i[1] as isize <= i[0] as isize + k)), "k {k}");
    }
    let e = Array::<u8>::empty(&[3, 2], 2).unwrap().compute().unwrap();
    assert!(e.iter().all(|&v| v == 0));

    // [[a, b], [c]] with a 1-D c promoted to a row.
    let a = Array::from_ndarray(whole(&[2, 3], |i| (i[0] * 3 + i[1]) as f64), 2).unwrap();
    let b = Array::from_ndarray(whole(&[2, 1], |i| 10.0 + i[0] as f64), 1).unwrap();
    let c = Array::from_ndarray(whole(&[4], |i| 20.0 + i[0] as f64), 3).unwrap();
    let m = block(vec![Nested::from(vec![&a, &b]), Nested::from(vec![&c])]).unwrap().compute().unwrap();
    let want = whole(&[3, 4], |i| match (i[0], i[1]) {
        (2, j) => 20.0 + j as f64,
        (r, 3) => 10.0 + r as f64,
        (r, j) => (r * 3 + j) as f64,
    });
    assert_eq!(m, want);
    let uneven = Nested::from(vec![Nested::from(&a), Nested::from(vec![&b])]);
    assert!(block(uneven).unwrap_err().to_string().contains("same depth"));
    assert!(block(vec![vec![&a, &c]]).is_err(), "a (2, 3) and a (1, 4) block side by side");
}
