//! map_blocks: the function sees each block with its index and location.

mod common;

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
        let y = x.map_blocks(|b, info| {
            assert_eq!(b.shape(), info.out_shape);
            ArrayD::from_shape_fn(b.raw_dim(), |i| (0..i.ndim()).map(|k| ((info.start[k] + i[k]) * 10usize.pow(k as u32)) as i64).sum::<i64>())
        }, None).unwrap();
        let want = ArrayD::from_shape_fn(IxDyn(&shape), |i| (0..i.ndim()).map(|k| (i[k] * 10usize.pow(k as u32)) as i64).sum());
        prop_assert_eq!(y.compute().unwrap(), want);
    }
}

#[test]
fn wrong_block_shape_is_an_error_naming_the_block() {
    let x = Array::<f64>::ones(&[4, 4], 2).unwrap();
    let y = x.map_blocks(|b, info| if info.index == [1, 0] { ArrayD::zeros(IxDyn(&[1, 1])) } else { b.to_owned() }, None).unwrap();
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
