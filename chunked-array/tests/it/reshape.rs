//! reshape against ndarray's C-order reshape, over random shapes, factorizations
//! and chunkings.

use crate::common;

use chunked_array::Array;
use chunked_array::BlockSizeOptions;
use common::*;
use ndarray::{ArrayD, Dimension, IxDyn};
use proptest::prelude::*;

/// A shape with the same product as `total`, built from random divisors.
fn factorization(total: usize, picks: &[usize]) -> Vec<usize> {
    if total == 0 {
        return picks.iter().take(2).map(|&p| p % 3).chain([0]).collect();
    }
    let mut left = total;
    let mut out = vec![];
    for &p in picks {
        let divisors: Vec<usize> = (1..=left).filter(|d| left.is_multiple_of(*d)).collect();
        let d = divisors[p % divisors.len()];
        out.push(d);
        left /= d;
    }
    out.push(left);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn reshape_matches_ndarray((shape, chunks) in shape_chunks(4, 6), picks in prop::collection::vec(0usize..12, 0..4), infer in any::<bool>()) {
        let total: usize = shape.iter().product();
        let a = ArrayD::from_shape_fn(IxDyn(&shape), |i| {
            let mut v = 0i64;
            for &k in i.slice() { v = v * 10 + k as i64; }
            v
        });
        let x = chunked(&a, &chunks);
        let target = factorization(total, &picks);
        let mut spec: Vec<isize> = target.iter().map(|&d| d as isize).collect();
        if infer && total > 0 {
            spec[0] = -1;
        }
        let y = x.reshape(&spec).unwrap();
        prop_assert_eq!(y.shape(), target.clone());
        let want = a.to_shape((IxDyn(&target), ndarray::Order::RowMajor)).unwrap().to_owned();
        prop_assert_eq!(y.compute().unwrap(), want);
    }
}

#[test]
fn reshape_errors() {
    let x = Array::<f64>::zeros(&[4, 6], 2).unwrap();
    assert!(x.reshape(&[5, 5]).unwrap_err().to_string().contains("cannot hold the 24 elements"));
    assert!(x.reshape(&[-1, -1]).is_err());
    assert!(x.reshape(&[-2, 12]).is_err());
    assert_eq!(x.reshape(&[-1]).unwrap().shape(), vec![24]);
}

#[test]
fn huge_and_length_one_reshapes() {
    let x = Array::<i64>::arange(0, 24, 1, 12).unwrap();
    assert!(x.reshape(&[1 << 40, 1 << 40]).is_err());
    assert!(x.reshape(&[4, (1 << 62) + 1]).is_err());
    assert!(Array::<i64>::zeros(&[0], 1).unwrap().reshape(&[1 << 40, 1 << 40, 0]).is_ok());
    // A length-1 axis does not force the whole array into one block.
    let y = x.reshape(&[1, 24]).unwrap();
    assert_eq!(y.num_blocks(), 2);
    assert_eq!(y.compute().unwrap().iter().cloned().collect::<Vec<_>>(), (0..24).collect::<Vec<i64>>());
    let z = Array::<i64>::from_fn(&[1, 4, 6], [1, 2, 3], |i| (i[1] * 6 + i[2]) as i64).unwrap().reshape(&[24]).unwrap();
    assert!(z.num_blocks() > 1, "{z}");
    assert_eq!(z.compute().unwrap().iter().cloned().collect::<Vec<_>>(), (0..24).collect::<Vec<i64>>());
}

#[test]
fn merging_axes_keeps_blocks_under_the_limit() {
    // (1000, 1000) in (1000, 100) blocks, flattened: whole rows are needed, so
    // blocks of 1000 x 1000 (8 MB) unless the rows are cut; at an 80 kB limit
    // they are cut to 10 rows (10000 elements per block).
    let a = ArrayD::from_shape_fn(IxDyn(&[1000, 1000]), |i| (i[0] * 1000 + i[1]) as i64);
    let x = chunked(&a, &[vec![1000], vec![100; 10]]);
    let y = x.reshape_with(&[-1], &BlockSizeOptions { block_size_limit: 80_000 }).unwrap();
    assert_eq!(y.chunks().lengths()[0], vec![10_000; 100]);
    assert_eq!(y.compute().unwrap(), a.to_shape((IxDyn(&[1_000_000]), ndarray::Order::RowMajor)).unwrap().to_owned());
    // (1000, 1000) -> (100, 10, 1000): no axis is merged, the blocks stay.
    let z = x.reshape_with(&[100, 10, 1000], &BlockSizeOptions { block_size_limit: 80_000 }).unwrap();
    assert_eq!(
        z.compute().unwrap(),
        a.to_shape((IxDyn(&[100, 10, 1000]), ndarray::Order::RowMajor)).unwrap().to_owned()
    );
    // The default limit leaves this small array's blocks whole.
    assert_eq!(x.reshape(&[-1]).unwrap().chunks().lengths()[0], vec![1_000_000]);
}
