//! map_blocks: the function sees each block with its index and location.

use crate::common;

use chunked_array::{Array, Error};
use common::*;
use ndarray::{ArrayD, Dimension, IxDyn};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// Adding each block's global position to its elements, blockwise, equals
    /// adding the global index to each element of the whole array.
    #[test]
    fn blocks_know_where_they_are((shape, chunks) in shape_chunks(3, 7)) {
        let a = ArrayD::from_elem(IxDyn(&shape), 0i64);
        let x = chunked(&a, &chunks);
        let (grid, full) = (chunks.iter().map(Vec::len).collect::<Vec<_>>(), shape.clone());
        let lengths = chunks.clone();
        let y = x.map_blocks(move |b, info| {
            assert_eq!(b.shape(), info.out_shape);
            // The index, grid and shape agree with the chunking the array was built with.
            assert_eq!((info.grid, info.array_shape), (grid.as_slice(), full.as_slice()));
            for (k, &i) in info.index.iter().enumerate() {
                assert_eq!(info.start[k], lengths[k][..i].iter().sum::<usize>(), "block {:?} axis {k}", info.index);
                assert_eq!(b.shape()[k], lengths[k][i]);
            }
            ArrayD::from_shape_fn(b.raw_dim(), |i| (0..i.ndim()).map(|k| ((info.start[k] + i[k]) * 10usize.pow(k as u32)) as i64).sum::<i64>())
        }, None).unwrap();
        let want = ArrayD::from_shape_fn(IxDyn(&shape), |i| (0..i.ndim()).map(|k| (i[k] * 10usize.pow(k as u32)) as i64).sum::<i64>());
        prop_assert_eq!(y.compute().unwrap(), want);
    }
}

#[test]
fn wrong_block_shape_is_an_error_naming_the_block() {
    let x = Array::<f64>::ones(&[4, 4], 2).unwrap();
    let y = x
        .map_blocks(
            |b, info| {
                if info.index == [1, 0] { ArrayD::zeros(IxDyn(&[1, 1])) } else { b.to_owned() }
            },
            None,
        )
        .unwrap();
    match y.compute().unwrap_err() {
        Error::Task { key, message } => {
            assert!(key.contains("map_blocks") && key.contains("[1, 0]"), "{key}");
            assert!(message.contains("[2, 2]") && message.contains("[1, 1]"), "{message}");
        }
        other => panic!("{other}"),
    }
    assert!(x.map_blocks(|b, _| b.to_owned(), Some(vec![vec![4], vec![2, 2]].into())).is_err());
    assert!(x.map_blocks(|b, _| b.to_owned(), Some(4.into())).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// blockwise with shared, transposed and contracted letters.
    #[test]
    fn blockwise_index_notation(m in 1usize..7, n in 1usize..7, k in 1usize..7, c1 in 1usize..4, c2 in 1usize..4) {
        use chunked_array::blockwise;
        let a = ndarray::Array2::from_shape_fn((m, k), |(i, j)| (i * 3 + j) as f64).into_dyn();
        let b = ndarray::Array2::from_shape_fn((k, n), |(i, j)| (i + 2 * j) as f64 - 1.0).into_dyn();
        let x = Array::from_ndarray(a.clone(), c1).unwrap();
        let y = Array::from_ndarray(b.clone(), c2).unwrap();
        // Contracted k: each call sees whole k, so a dot per block is the product.
        let prod = blockwise(|v| {
            let l = v[0].view().into_dimensionality::<ndarray::Ix2>().unwrap();
            let r = v[1].view().into_dimensionality::<ndarray::Ix2>().unwrap();
            l.dot(&r).into_dyn()
        }, "ij", &[(&x, "ik"), (&y, "kj")], &[]).unwrap();
        let want = a.view().into_dimensionality::<ndarray::Ix2>().unwrap().dot(&b.view().into_dimensionality::<ndarray::Ix2>().unwrap()).into_dyn();
        assert_close(&prod.compute().unwrap(), &want, 1e-12);
        // Transposed letters: out[j, i] = x[i, j], across different chunkings.
        let t = blockwise(|v| v[0].t().to_owned(), "ji", &[(&x, "ij")], &[]).unwrap();
        prop_assert_eq!(t.compute().unwrap(), a.t().to_owned());
        // Shared letters with different chunkings are unified.
        let x2 = Array::from_ndarray(a.clone(), c2).unwrap();
        let s = blockwise(|v| &v[0] + &v[1], "ij", &[(&x, "ij"), (&x2, "ij")], &[]).unwrap();
        prop_assert_eq!(s.compute().unwrap(), &a * 2.0);
    }
}

#[test]
fn blockwise_errors() {
    use chunked_array::blockwise;
    let x = Array::<f64>::ones(&[2, 3], 1).unwrap();
    let y = Array::<f64>::ones(&[4, 3], 1).unwrap();
    let f = |v: &[ndarray::ArrayViewD<'_, f64>]| v[0].to_owned();
    assert!(blockwise(f, "ij", &[(&x, "i")], &[]).is_err());
    assert!(blockwise(f, "ii", &[(&x, "ij")], &[]).is_err());
    assert!(blockwise(f, "ijz", &[(&x, "ij")], &[]).unwrap_err().to_string().contains("'z'"));
    let e = blockwise(f, "ij", &[(&x, "ij"), (&y, "ij")], &[]).unwrap_err().to_string();
    assert!(e.contains("'i'") && e.contains("[2]") && e.contains("[4]"), "{e}");
    let z = blockwise(|v| v[0].to_owned().insert_axis(ndarray::Axis(2)), "ijz", &[(&x, "ij")], &[('z', 1)]).unwrap();
    assert_eq!(z.shape(), vec![2, 3, 1]);
    assert_eq!(z.compute().unwrap().sum(), 6.0);
}

/// A letter repeated in one input takes the diagonal blocks (dask's rule), or
/// the whole array when contracted; three inputs combine block by block.
#[test]
fn blockwise_repeated_letters_and_three_inputs() {
    use chunked_array::blockwise;
    let a = ndarray::Array2::from_shape_fn((7, 7), |(i, j)| (i * 7 + j) as f64).into_dyn();
    // Different grids on the two axes are unified to their refinement first.
    let x = chunked(&a, &[vec![3, 4], vec![2, 2, 3]]);
    let diag = blockwise(
        |v| {
            let m = v[0].view().into_dimensionality::<ndarray::Ix2>().unwrap();
            m.diag().to_owned().into_dyn()
        },
        "i",
        &[(&x, "ii")],
        &[],
    )
    .unwrap();
    assert_eq!(diag.chunks().lengths().to_vec(), vec![vec![2, 1, 1, 3]]);
    assert_eq!(diag.compute().unwrap(), ndarray::Array1::from_shape_fn(7, |i| (i * 8) as f64).into_dyn());
    // Contracted repeated letter: one call with the whole matrix, its trace.
    let trace = blockwise(
        |v| ndarray::arr0(v[0].view().into_dimensionality::<ndarray::Ix2>().unwrap().diag().sum()).into_dyn(),
        "",
        &[(&x, "ii")],
        &[],
    )
    .unwrap();
    assert_eq!(trace.compute().unwrap().sum(), (0..7).map(|i| (i * 8) as f64).sum::<f64>());
    // A repeated letter on axes of different lengths is refused.
    let r = Array::<f64>::ones(&[3, 4], 2).unwrap();
    assert!(blockwise(|v| v[0].to_owned(), "i", &[(&r, "ii")], &[]).unwrap_err().to_string().contains("'i'"));
    // out[i, j] = x[i, j] * y[j, i] + z[j], three inputs on different grids.
    let b = ndarray::Array2::from_shape_fn((7, 7), |(i, j)| (i as f64 - j as f64) * 0.5).into_dyn();
    let c = ndarray::Array1::from_shape_fn(7, |j| j as f64 + 100.0).into_dyn();
    let y = chunked(&b, &[vec![5, 2], vec![1, 6]]);
    let z = chunked(&c, &[vec![4, 3]]);
    let combined = blockwise(
        |v| {
            let (p, q) = (
                v[0].view().into_dimensionality::<ndarray::Ix2>().unwrap(),
                v[1].view().into_dimensionality::<ndarray::Ix2>().unwrap(),
            );
            let r = v[2].view().into_dimensionality::<ndarray::Ix1>().unwrap();
            ndarray::Array2::from_shape_fn(p.dim(), |(i, j)| p[[i, j]] * q[[j, i]] + r[j]).into_dyn()
        },
        "ij",
        &[(&x, "ij"), (&y, "ji"), (&z, "j")],
        &[],
    )
    .unwrap();
    let want = ndarray::Array2::from_shape_fn((7, 7), |(i, j)| a[[i, j]] * b[[j, i]] + c[[j]]).into_dyn();
    assert_eq!(combined.compute().unwrap(), want);
}

#[test]
fn declared_empty_blocks_are_kept() {
    // A filtering function: the first block keeps nothing, the second all.
    let x = Array::<f64>::arange(0.0, 4.0, 1.0, 2).unwrap();
    let kept = x
        .map_blocks(
            |b, info| {
                if info.index[0] == 0 { b.slice(ndarray::s![..0]).to_owned().into_dyn() } else { b.to_owned() }
            },
            Some(vec![vec![0, 2]].into()),
        )
        .unwrap();
    assert_eq!(kept.chunks().lengths()[0], vec![0, 2]);
    assert_eq!(kept.compute().unwrap().iter().copied().collect::<Vec<_>>(), vec![2.0, 3.0]);
    assert_eq!((&kept * 2.0).sum(None).unwrap().compute_scalar().unwrap(), 10.0);
    // A block of another length than declared is an error when computed.
    let wrong = x.map_blocks(|b, _| b.to_owned(), Some(vec![vec![0, 4]].into())).unwrap();
    assert!(wrong.compute().is_err());
    // Still one declared block per input block.
    assert!(x.map_blocks(|b, _| b.to_owned(), Some(vec![vec![0, 1, 3]].into())).is_err());
}

#[test]
fn map_blocks_over_arrays_of_different_types_sees_matching_blocks() {
    use chunked_array::{map_blocks2, map_blocks3};
    let x_data = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| (i[0] * 5 + i[1]) as f32 * 0.5);
    let x = Array::from_ndarray(x_data.clone(), vec![vec![2, 0, 4], vec![3, 2]]).unwrap();
    let n_data = ArrayD::from_shape_fn(IxDyn(&[5]), |i| i[0] as i64 - 2);
    let n = Array::from_ndarray(n_data.clone(), vec![vec![1, 4]]).unwrap(); // broadcast along rows
    let got = map_blocks2(
        |x, n, info| {
            assert_eq!(x.shape(), n.shape(), "the broadcast blocks match");
            assert_eq!(info.out_shape, x.shape());
            ndarray::Zip::from(&x).and(&n).map_collect(|&x, &n| x as f64 * n as f64)
        },
        &x,
        &n.reshape(&[1, 5]).unwrap(),
        None,
    )
    .unwrap();
    let want = ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| x_data[&i] as f64 * n_data[[i[1]]] as f64);
    assert_eq!(got.compute().unwrap(), want);
    let flags = Array::from_ndarray(x_data.mapv(|v| v > 4.0), 3).unwrap();
    let got = map_blocks3(
        |x, n, f, _| ndarray::Zip::from(&x).and(&n).and(&f).map_collect(|&x, &n, &f| if f { n } else { x as i64 }),
        &x,
        &n,
        &flags,
        None,
    )
    .unwrap();
    let want =
        ArrayD::from_shape_fn(IxDyn(&[6, 5]), |i| if x_data[&i] > 4.0 { n_data[[i[1]]] } else { x_data[&i] as i64 });
    assert_eq!(got.compute().unwrap(), want);
    let wrong = Array::<i64>::zeros(&[4], 2).unwrap();
    assert!(map_blocks2(|x, _, _| x.to_owned(), &x, &wrong, None).unwrap_err().to_string().contains("[4]"));
}
