//! moveaxis, ravel, atleast_nd, hstack/vstack/dstack, repeat, tile, tril/triu,
//! diagonal and diag against ndarray (and NumPy's documented examples).

use crate::common;

use chunked_array::BlockSizeOptions;
use chunked_array::{Array, Error, dstack, hstack, vstack};
use common::*;
use ndarray::{ArrayD, Axis, Dimension, IxDyn};
use proptest::prelude::*;

fn numbered(shape: &[usize], offset: i64) -> ArrayD<i64> {
    ArrayD::from_shape_fn(IxDyn(shape), |i| i.as_array_view().iter().fold(offset, |acc, &v| acc * 10 + v as i64))
}

fn elements(a: &ArrayD<i64>) -> Vec<i64> {
    a.iter().copied().collect()
}

/// The position `at` of the array of `shape` (the oracle's way to read an element).
fn get(a: &ArrayD<i64>, at: &[usize]) -> i64 {
    a[IxDyn(at)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn repeat_tile_and_axes((shape, chunks) in shape_chunks(3, 5), repeats in 0usize..4, limit in prop_oneof![Just(1usize), Just(64), Just(1 << 20)],
                            reps in prop::collection::vec(0usize..3, 0..4), pick in any::<prop::sample::Index>(), to in any::<prop::sample::Index>()) {
        let a = numbered(&shape, 1);
        let x = chunked(&a, &chunks);
        let nd = shape.len();
        if nd > 0 {
            let axis = pick.index(nd);
            // repeat: output position p along the axis is input position p / repeats.
            let picks: Vec<usize> = (0..shape[axis] * repeats).map(|p| p / repeats).collect();
            let want = a.select(Axis(axis), &picks);
            let got = x.repeat_with(repeats, axis as isize, &BlockSizeOptions { block_size_limit: limit }).unwrap();
            let bytes = got.chunks().lengths().iter().enumerate().filter(|&(b, _)| b != axis).map(|(_, l)| l.iter().max().copied().unwrap_or(0)).product::<usize>() * 8;
            // (repeat(1) is the array itself, blocks unchanged.)
            for &len in got.chunks().lengths()[axis].iter().filter(|_| repeats != 1) {
                // Cut under the limit unless one position is already over it.
                prop_assert!(len * bytes <= limit.max(bytes), "block of {} positions, {} bytes each, limit {}", len, bytes, limit);
            }
            prop_assert_eq!(got.compute().unwrap(), want);
            // moveaxis of one axis: remove it, insert it at the destination.
            let dest = to.index(nd);
            let mut order: Vec<usize> = (0..nd).filter(|&b| b != axis).collect();
            order.insert(dest, axis);
            let want = a.clone().permuted_axes(IxDyn(&order));
            prop_assert_eq!(x.moveaxis(&[axis as isize], &[dest as isize - nd as isize]).unwrap().compute().unwrap(), want);
        }
        // tile: element i of the result is element i mod shape of the array,
        // after both are brought to the same number of axes.
        let d = nd.max(reps.len());
        let padded: Vec<usize> = std::iter::repeat_n(1, d - nd).chain(shape.iter().copied()).collect();
        let full_reps: Vec<usize> = std::iter::repeat_n(1, d - reps.len()).chain(reps.iter().copied()).collect();
        let out_shape: Vec<usize> = padded.iter().zip(&full_reps).map(|(n, r)| n * r).collect();
        let a_padded = a.clone().into_shape_with_order(IxDyn(&padded)).unwrap();
        let want = ArrayD::from_shape_fn(IxDyn(&out_shape), |i| {
            let at: Vec<usize> = i.as_array_view().iter().zip(&padded).map(|(&p, &n)| p % n).collect();
            get(&a_padded, &at)
        });
        prop_assert_eq!(x.tile(&reps).unwrap().compute().unwrap(), want);
        // ravel: C order.
        let r = x.ravel().unwrap();
        prop_assert_eq!(r.shape(), vec![a.len()]);
        prop_assert_eq!(elements(&r.compute().unwrap()), elements(&a));
    }

    #[test]
    fn triangles_and_diagonals((shape, chunks) in shape_chunks(3, 6), k in -7isize..8, first in any::<prop::sample::Index>(), second in any::<prop::sample::Index>()) {
        let a = numbered(&shape, 1);
        let x = chunked(&a, &chunks);
        let nd = shape.len();
        if nd == 1 {
            // NumPy: the vector as every row of an (n, n) matrix, then masked.
            let n = shape[0];
            let tril = ArrayD::from_shape_fn(IxDyn(&[n, n]), |i| if i[1] as isize - i[0] as isize <= k { a[[i[1]]] } else { 0 });
            let triu = ArrayD::from_shape_fn(IxDyn(&[n, n]), |i| if i[1] as isize - i[0] as isize >= k { a[[i[1]]] } else { 0 });
            prop_assert_eq!(x.tril(k).unwrap().compute().unwrap(), tril);
            prop_assert_eq!(x.triu(k).unwrap().compute().unwrap(), triu);
        }
        if nd >= 2 {
            let keep = |i: &IxDyn, lower: bool| {
                let (r, c) = (i[nd - 2] as isize, i[nd - 1] as isize);
                if lower { c - r <= k } else { c - r >= k }
            };
            let tril = ArrayD::from_shape_fn(IxDyn(&shape), |i| if keep(&i, true) { a[&i] } else { 0 });
            let triu = ArrayD::from_shape_fn(IxDyn(&shape), |i| if keep(&i, false) { a[&i] } else { 0 });
            prop_assert_eq!(x.tril(k).unwrap().compute().unwrap(), tril);
            prop_assert_eq!(x.triu(k).unwrap().compute().unwrap(), triu);
            // diagonal of two distinct axes: they are removed, the diagonal is last.
            let ax1 = first.index(nd);
            let ax2 = (ax1 + 1 + second.index(nd - 1)) % nd;
            let (r0, c0) = (k.min(0).unsigned_abs(), k.max(0) as usize);
            let len = shape[ax1].saturating_sub(r0).min(shape[ax2].saturating_sub(c0));
            let mut out_shape: Vec<usize> = (0..nd).filter(|&b| b != ax1 && b != ax2).map(|b| shape[b]).collect();
            out_shape.push(len);
            let want = ArrayD::from_shape_fn(IxDyn(&out_shape), |i| {
                let i = i.as_array_view();
                let t = i[i.len() - 1];
                let mut rest = i.iter().take(i.len() - 1);
                let at: Vec<usize> = (0..nd).map(|b| if b == ax1 { r0 + t } else if b == ax2 { c0 + t } else { *rest.next().unwrap() }).collect();
                get(&a, &at)
            });
            let got = x.diagonal(k, ax1 as isize, ax2 as isize).unwrap();
            prop_assert_eq!(got.compute().unwrap(), want);
        }
        if nd == 1 {
            // diag of a vector: the vector on the k-th diagonal of a square matrix.
            let n = shape[0] + k.unsigned_abs();
            let want = ArrayD::from_shape_fn(IxDyn(&[n, n]), |i| {
                let (r, c) = (i[0] as isize, i[1] as isize);
                if c - r == k { a[[(r.min(c)) as usize].as_slice()] } else { 0 }
            });
            let got = x.diag(k).unwrap();
            prop_assert_eq!(got.compute().unwrap(), want.clone());
            // ... and diag of that matrix gives the vector back.
            prop_assert_eq!(got.diag(k).unwrap().compute().unwrap(), a.clone());
        }
    }
}

#[test]
fn moveaxis_matches_numpy_examples() {
    let x = Array::<f64>::zeros(&[3, 4, 5], 2).unwrap();
    assert_eq!(x.moveaxis(&[0], &[-1]).unwrap().shape(), vec![4, 5, 3]);
    assert_eq!(x.moveaxis(&[-1], &[0]).unwrap().shape(), vec![5, 3, 4]);
    assert_eq!(x.moveaxis(&[0, 1], &[-1, -2]).unwrap().shape(), vec![5, 4, 3]);
    assert_eq!(x.moveaxis(&[0, 1, 2], &[-1, -2, -3]).unwrap().shape(), vec![5, 4, 3]);
    // Values: moving axes 0 and 1 to the end is the permutation (2, 1, 0).
    let a = numbered(&[3, 4, 5], 1);
    let y = chunked(&a, &[vec![1, 2], vec![4], vec![2, 3]]);
    assert_eq!(y.moveaxis(&[0, 1], &[-1, -2]).unwrap().compute().unwrap(), a.clone().permuted_axes(IxDyn(&[2, 1, 0])));
    assert_eq!(y.moveaxis(&[2, 0], &[0, 1]).unwrap().compute().unwrap(), a.permuted_axes(IxDyn(&[2, 0, 1])));
}

#[test]
fn stacking_helpers_match_numpy() {
    let v = Array::<i64>::arange(0, 3, 1, 2).unwrap();
    let w = Array::<i64>::arange(3, 6, 1, 1).unwrap();
    // hstack of vectors joins them; vstack makes them rows; dstack makes (1, 3, 2).
    assert_eq!(elements(&hstack(&[&v, &w]).unwrap().compute().unwrap()), (0..6).collect::<Vec<_>>());
    let rows = vstack(&[&v, &w]).unwrap();
    assert_eq!(rows.shape(), vec![2, 3]);
    assert_eq!(elements(&rows.compute().unwrap()), (0..6).collect::<Vec<_>>());
    let depth = dstack(&[&v, &w]).unwrap();
    assert_eq!(depth.shape(), vec![1, 3, 2]);
    assert_eq!(elements(&depth.compute().unwrap()), vec![0, 3, 1, 4, 2, 5]);
    // Matrices: hstack joins columns.
    let m = numbered(&[2, 3], 1);
    let x = chunked(&m, &[vec![1, 1], vec![2, 1]]);
    let h = hstack(&[&x, &x]).unwrap().compute().unwrap();
    assert_eq!(h, ndarray::concatenate(Axis(1), &[m.view(), m.view()]).unwrap());
    // atleast_nd as NumPy shapes them.
    let s = Array::<i64>::full(&[], 7, 1).unwrap();
    assert_eq!(s.atleast_1d().unwrap().shape(), vec![1]);
    assert_eq!(s.atleast_2d().unwrap().shape(), vec![1, 1]);
    assert_eq!(s.atleast_3d().unwrap().shape(), vec![1, 1, 1]);
    assert_eq!(v.atleast_2d().unwrap().shape(), vec![1, 3]);
    assert_eq!(v.atleast_3d().unwrap().shape(), vec![1, 3, 1]);
    assert_eq!(x.atleast_3d().unwrap().shape(), vec![2, 3, 1]);
    assert_eq!(x.atleast_1d().unwrap().shape(), vec![2, 3]);
    // Off-axis shapes must agree.
    let e = vstack(&[&v, &Array::<i64>::arange(0, 4, 1, 2).unwrap()]).unwrap_err().to_string();
    assert!(e.contains("[1, 3]") && e.contains("[1, 4]"), "{e}");
}

#[test]
fn triangles_skip_blocks_outside() {
    // A 4 x 4 grid of blocks: tril(0) needs only the 10 blocks on or below the
    // diagonal; the 6 above are zeros made without their input.
    let x = Array::<f64>::from_fn(&[8, 8], [2, 2], |i| (i[0] * 8 + i[1]) as f64 + 1.0).unwrap();
    let l = x.tril(0).unwrap();
    let profiler = chunked_array::Profiler::new();
    let got = l.compute_on(&chunked_array::Context::threads(2).with_profiler(&profiler)).unwrap();
    let sources = profiler.spans().iter().filter(|s| s.layer == "from_fn").count();
    assert_eq!(sources, 10, "source tasks run");
    let whole = x.compute().unwrap();
    let want = ArrayD::from_shape_fn(IxDyn(&[8, 8]), |i| if i[1] <= i[0] { whole[&i] } else { 0.0 });
    assert_eq!(got, want);
    // A 3-d stack: the triangle is taken on the last two axes of each matrix.
    let s = Array::<i64>::from_fn(&[2, 3, 3], [1, 2, 2], |i| (i[0] * 9 + i[1] * 3 + i[2]) as i64 + 1).unwrap();
    let got = s.triu(1).unwrap().compute().unwrap();
    assert_eq!(elements(&got), vec![0, 2, 3, 0, 0, 6, 0, 0, 0, 0, 11, 12, 0, 0, 15, 0, 0, 0]);
}

#[test]
fn argument_errors_name_the_values() {
    let x = Array::<f64>::zeros(&[2, 3], 1).unwrap();
    let v = Array::<f64>::zeros(&[3], 1).unwrap();
    let s = Array::<f64>::zeros(&[], 1).unwrap();
    let e = x.moveaxis(&[0, 1], &[0]).unwrap_err().to_string();
    assert!(e.contains("[0, 1]") && e.contains("[0]"), "{e}");
    assert!(matches!(x.moveaxis(&[2], &[0]).unwrap_err(), Error::BadAxis { axis: 2, ndim: 2, .. }));
    assert!(matches!(x.moveaxis(&[0, 0], &[0, 1]).unwrap_err(), Error::BadAxis { axis: 0, .. }));
    assert!(matches!(x.repeat(2, -3).unwrap_err(), Error::BadAxis { axis: -3, .. }));
    assert!(matches!(s.repeat(2, 0).unwrap_err(), Error::BadAxis { axis: 0, ndim: 0, .. }));
    assert!(x.repeat(usize::MAX, 1).unwrap_err().to_string().contains("overflows"));
    assert!(x.tile(&[usize::MAX, 1]).unwrap_err().to_string().contains("more elements than a usize counts"));
    // Absurd repeats are refused before any graph is built, naming the values.
    let one = Array::<f64>::zeros(&[1], 1).unwrap();
    let e = one.tile(&[1 << 40]).unwrap_err().to_string();
    assert!(e.contains("1099511627776") && e.contains("blocks"), "{e}");
    assert!(
        one.repeat_with(1 << 40, 0, &BlockSizeOptions { block_size_limit: 0 })
            .unwrap_err()
            .to_string()
            .contains("blocks")
    );
    // A long shift is cut into blocks, not one |k| x |k| block of zeros.
    let pair = Array::<f64>::arange(1.0, 3.0, 1.0, 1).unwrap();
    for k in [10_000isize, -10_000] {
        let d = pair.diag(k).unwrap();
        assert!(d.chunks().lengths().iter().flatten().all(|&l| l <= 4096), "{:?}", d.chunks().lengths());
        // The corner holding the vector: [[1, 0], [0, 2]] at (0, k) or (-k, 0).
        let (r, c) = if k > 0 { (0, k) } else { (-k, 0) };
        let corner = d
            .slice([chunked_array::Idx::range(r - 1, r + 2), chunked_array::Idx::range(c - 1, c + 2)].map(
                |i| match i {
                    chunked_array::Idx::Slice { start: Some(s), stop, step } => {
                        chunked_array::Idx::Slice { start: Some(s.max(0)), stop, step }
                    }
                    other => other,
                },
            ))
            .unwrap();
        let got: Vec<f64> = corner.compute().unwrap().iter().copied().collect();
        let want = if k > 0 { vec![0.0, 1.0, 0.0, 0.0, 0.0, 2.0] } else { vec![0.0, 0.0, 1.0, 0.0, 0.0, 2.0] };
        assert_eq!(got, want, "k = {k}");
    }
    let e = one.diag(1 << 40).unwrap_err().to_string();
    assert!(e.contains("1099511627776") && e.contains("too large"), "{e}");
    // An empty axis tiles to an empty axis, however many times.
    // repeat(1) is the array itself (no layer), as dask's.
    assert_eq!(x.repeat(1, 0).unwrap().num_tasks(), x.num_tasks());
    let empty = Array::<f64>::zeros(&[0], 1).unwrap();
    assert_eq!(empty.tile(&[usize::MAX]).unwrap().shape(), vec![0]);
    for e in [s.tril(0).unwrap_err(), s.triu(0).unwrap_err(), v.diagonal(0, 0, 1).unwrap_err(), s.diag(0).unwrap_err()]
    {
        assert!(e.to_string().contains("[3]") || e.to_string().contains("[]"), "{e}");
    }
    assert!(matches!(x.diagonal(0, 1, -1).unwrap_err(), Error::BadAxis { axis: -1, .. }));
    assert!(matches!(x.diagonal(0, 0, 2).unwrap_err(), Error::BadAxis { axis: 2, .. }));
    let cube = Array::<f64>::zeros(&[2, 2, 2], 1).unwrap();
    assert!(cube.diag(0).unwrap_err().to_string().contains("one or two axes"));
    // Offsets past the matrix give an empty diagonal, as NumPy's.
    assert_eq!(x.diagonal(5, 0, 1).unwrap().shape(), vec![0]);
    assert_eq!(x.diagonal(-2, 0, 1).unwrap().compute().unwrap().len(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn splices_and_rotations((shape, chunks) in shape_chunks(3, 6), raw in prop::collection::vec(-8isize..8, 0..5), at in -8isize..9,
                             extra in 0usize..3, pick in any::<prop::sample::Index>(), k in -5isize..6) {
        prop_assume!(!shape.is_empty());
        let a = numbered(&shape, 1);
        let x = chunked(&a, &chunks);
        let axis = pick.index(shape.len());
        let n = shape[axis] as isize;
        // delete: the positions not named, in order.
        let got = x.delete(&raw, axis as isize);
        if raw.iter().all(|&i| i >= -n && i < n) {
            let gone: Vec<usize> = raw.iter().map(|&i| i.rem_euclid(n.max(1)) as usize).collect();
            let kept: Vec<usize> = (0..shape[axis]).filter(|p| !gone.contains(p)).collect();
            prop_assert_eq!(got.unwrap().compute().unwrap(), a.select(Axis(axis), &kept));
        } else {
            prop_assert!(got.unwrap_err().to_string().contains("out of range"));
        }
        // insert and append: concatenations written out.
        let mut vshape = shape.clone();
        vshape[axis] = extra;
        let v = numbered(&vshape, 2);
        let y = chunked(&v, &vshape.iter().map(|&l| vec![l]).collect::<Vec<_>>());
        let got = x.insert(at, &y, axis as isize);
        if at >= -n && at <= n {
            let p = if at < 0 { (at + n) as usize } else { at as usize };
            let want = ndarray::concatenate(Axis(axis), &[a.slice_axis(Axis(axis), (..p).into()), v.view(), a.slice_axis(Axis(axis), (p..).into())]).unwrap();
            prop_assert_eq!(got.unwrap().compute().unwrap(), want);
        } else {
            prop_assert!(got.unwrap_err().to_string().contains("out of range"));
        }
        prop_assert_eq!(x.append(&y, axis as isize).unwrap().compute().unwrap(), ndarray::concatenate(Axis(axis), &[a.view(), v.view()]).unwrap());
        // rot90 in the plane of (axis, next axis): k quarter turns, each one
        // r[.., i, j, ..] = a[.., j, n_j - 1 - i, ..] in that plane.
        if shape.len() >= 2 {
            let (p, q) = (axis, (axis + 1) % shape.len());
            let mut want = a.clone();
            for _ in 0..k.rem_euclid(4) {
                let mut s = want.shape().to_vec();
                s.swap(p, q);
                let prev = want.clone();
                want = ArrayD::from_shape_fn(IxDyn(&s), |i| {
                    let mut src = i.as_array_view().to_vec();
                    src[p] = i[q];
                    src[q] = prev.shape()[q] - 1 - i[p];
                    prev[IxDyn(&src)]
                });
            }
            prop_assert_eq!(x.rot90(k, (p as isize, q as isize)).unwrap().compute().unwrap(), want);
        }
    }
}

#[test]
fn splice_and_rotation_examples() {
    // NumPy's rot90 docs: [[1, 2], [3, 4]] -> [[2, 4], [1, 3]].
    let m = Array::<i64>::from_ndarray(ndarray::arr2(&[[1, 2], [3, 4]]), [1, 1]).unwrap();
    assert_eq!(elements(&m.rot90(1, (0, 1)).unwrap().compute().unwrap()), vec![2, 4, 1, 3]);
    assert_eq!(elements(&m.rot90(2, (0, 1)).unwrap().compute().unwrap()), vec![4, 3, 2, 1]);
    assert_eq!(elements(&m.rot90(1, (1, 0)).unwrap().compute().unwrap()), vec![3, 1, 4, 2]);
    assert!(matches!(m.rot90(1, (0, 0)).unwrap_err(), Error::BadAxis { .. }));
    // A single slab (one axis fewer) is inserted as one position.
    let row = Array::<i64>::from_ndarray(ndarray::arr1(&[7, 8]), [2]).unwrap();
    assert_eq!(elements(&m.insert(1, &row, 0).unwrap().compute().unwrap()), vec![1, 2, 7, 8, 3, 4]);
    assert_eq!(elements(&m.insert(-1, &row, 1).unwrap().compute().unwrap()), vec![1, 7, 2, 3, 8, 4]);
    assert_eq!(elements(&m.append(&row, 0).unwrap().compute().unwrap()), vec![1, 2, 3, 4, 7, 8]);
    let e = m.insert(0, &Array::<i64>::zeros(&[3], 1).unwrap(), 0).unwrap_err().to_string();
    assert!(e.contains("[2, 2]") && e.contains("[3]"), "{e}");
    // Deleting everything leaves an empty axis; whole surviving blocks are shared.
    assert_eq!(m.delete(&[0, 1], 0).unwrap().shape(), vec![0, 2]);
    let x = Array::<i64>::arange(0, 100, 1, 10).unwrap();
    assert_eq!(x.delete(&[55], 0).unwrap().chunks().lengths()[0], vec![10, 10, 10, 10, 10, 5, 4, 10, 10, 10, 10]);
}
