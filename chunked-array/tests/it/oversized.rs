//! Inputs too large for any memory, and the edge values of the constructors:
//! each is an `Err` naming the offending values, never an overflow panic, an
//! allocation abort or a wrong length.

use chunked_array::BlockSizeOptions;
use chunked_array::{Array, ChunkSpec, DType, Error, PadMode, blockwise, concatenate, einsum, stack};

fn message<T>(r: Result<T, Error>) -> String {
    match r {
        Ok(_) => panic!("expected an Err"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn shapes_whose_bytes_overflow_are_errors() {
    // 2^62 f64 elements fit in usize but not in isize::MAX bytes.
    let m = message(Array::<f64>::zeros(&[1 << 62], -1));
    assert!(m.contains("[4611686018427387904]") && m.contains("isize::MAX"), "{m}");
    // The same count of bytes is a valid (lazy) array.
    let bytes = Array::<u8>::zeros(&[1 << 62], -1).unwrap();
    assert_eq!(bytes.nbytes(), 1 << 62);
    assert_eq!(bytes.flip(0).unwrap().shape(), vec![1 << 62]);
    let m = message(ChunkSpec::from(vec![vec![usize::MAX, 7], vec![4]]).resolve(&[0, 4], DType::F64));
    assert!(m.contains("sum to more than fits in usize"), "{m}");
}

#[test]
fn operations_that_grow_an_array_past_memory_are_errors() {
    let small = Array::<u8>::zeros(&[1, 1], 1).unwrap();
    let m = message(small.broadcast_to(&[1 << 40, 1 << 40]));
    assert!(m.contains("[1099511627776, 1099511627776]"), "{m}");

    let half = Array::<u8>::zeros(&[1 << 62], -1).unwrap();
    let m = message(concatenate(&[&half, &half], 0));
    assert!(m.contains("isize::MAX"), "{m}");
    let huge = Array::<u8>::zeros(&[1 << 63], -1).unwrap_err();
    assert!(huge.to_string().contains("isize::MAX"), "{huge}");

    let column = Array::<f64>::zeros(&[1 << 33, 1], -1).unwrap();
    let row = Array::<f64>::zeros(&[1, 1 << 33], -1).unwrap();
    let m = message(column.matmul(&row));
    assert!(m.contains("[8589934592, 8589934592]"), "{m}");
    let v = Array::<f64>::zeros(&[1 << 33], -1).unwrap();
    assert!(message(v.tensordot(&v, (&[], &[]))).contains("isize::MAX"));
    assert!(message(einsum("i,j,k->ijk", &[&v, &v, &v])).contains("isize::MAX"));
    // An elementwise broadcast is an operator: the error comes with its first use.
    let outer = &column + &row;
    assert!(message(outer.check()).contains("isize::MAX"));
    assert!(message(outer.compute()).contains("isize::MAX"));

    let a = Array::<f64>::zeros(&[2, 2], 1).unwrap();
    let m = message(blockwise(|v| v[0].to_owned(), "ijk", &[(&a, "ij")], &[('k', usize::MAX)]));
    assert!(m.contains("isize::MAX"), "{m}");
}

#[test]
fn grids_of_too_many_blocks_are_errors() {
    let m = message(Array::<u8>::zeros(&[1 << 31], 1));
    assert!(m.contains("more than 16777216 blocks"), "{m}");
    let one = Array::<u8>::zeros(&[1], 1).unwrap();
    assert!(message(one.tile(&[1 << 31])).contains("16777216"));
    assert!(message(one.repeat_with(1 << 31, 0, &BlockSizeOptions { block_size_limit: 1 })).contains("16777216"));
    // diag's shift blocks count too.
    let v = Array::<f64>::ones(&[3], 1).unwrap();
    let m = message(v.diag(1 << 31));
    assert!(m.contains("16777216"), "{m}");
    // Within the limit, diag still shifts.
    let d = v.diag(2).unwrap().compute().unwrap();
    assert_eq!(d.shape(), &[5, 5]);
    assert_eq!(d[[0, 2]], 1.0);
}

#[test]
fn pad_refuses_edges_whose_maps_would_not_fit() {
    let x = Array::<i64>::arange(0, 1, 1, 1).unwrap();
    let m = message(x.pad(&[(1 << 31, 0)], PadMode::Constant(0)));
    assert!(m.contains("2147483648"), "{m}");
    let ok = x.pad(&[(3, 2)], PadMode::Constant(7)).unwrap().compute().unwrap();
    assert_eq!(ok.into_raw_vec_and_offset().0, vec![7, 7, 7, 0, 7, 7]);
}

#[test]
fn eye_takes_any_diagonal_offset() {
    for k in [isize::MAX, isize::MIN, isize::MIN + 1, 4, -4] {
        let e = Array::<f64>::eye(4, None, k, 2).unwrap().compute().unwrap();
        assert_eq!(e.sum(), 0.0, "k = {k}");
    }
    let e = Array::<f64>::eye(4, Some(5), 1, 2).unwrap().compute().unwrap();
    for i in 0..4 {
        for j in 0..5 {
            assert_eq!(e[[i, j]], f64::from(j == i + 1));
        }
    }
}

#[test]
fn arange_counts_exactly() {
    // Through f64, 2^53 + 1 elements came out as 2^53.
    let n = Array::<i64>::arange(0, (1 << 53) + 1, 1, -1).unwrap();
    assert_eq!(n.shape(), vec![(1 << 53) + 1]);
    assert_eq!(
        Array::<i64>::arange(10, -3, -4, -1).unwrap().compute().unwrap().into_raw_vec_and_offset().0,
        vec![10, 6, 2, -2]
    );
    assert_eq!(Array::<i64>::arange(0, 9, 3, -1).unwrap().shape(), vec![3]);
    assert_eq!(Array::<i64>::arange(0, 10, 3, -1).unwrap().shape(), vec![4]);
    assert_eq!(Array::<i64>::arange(5, 0, 1, -1).unwrap().shape(), vec![0]);
    let m = message(Array::<i64>::arange(i64::MIN, i64::MAX, 1, -1));
    assert!(m.contains("[18446744073709551615]") && m.contains("isize::MAX"), "{m}");
    let m = message(Array::<f64>::arange(0.0, 1e20, 1.0, -1));
    assert!(m.contains("1e20"), "{m}");
    // NumPy: arange(0, 1, inf) is [0.], arange(0, -1, inf) is empty.
    assert_eq!(
        Array::<f64>::arange(0.0, 1.0, f64::INFINITY, -1).unwrap().compute().unwrap().into_raw_vec_and_offset().0,
        vec![0.0]
    );
    assert_eq!(Array::<f64>::arange(0.0, -1.0, f64::INFINITY, -1).unwrap().shape(), vec![0]);
    assert_eq!(Array::<f64>::arange(0.0, -1.0, f64::NEG_INFINITY, -1).unwrap().shape(), vec![1]);
}

#[test]
fn reshape_of_empty_with_minus_one_is_ambiguous() {
    let e = Array::<f64>::zeros(&[0, 3], 2).unwrap();
    for shape in [[0, -1], [-1, 0]] {
        let m = message(e.reshape(&shape));
        assert!(m.contains("ambiguous"), "{m}");
    }
    assert_eq!(e.reshape(&[3, 0]).unwrap().shape(), vec![3, 0]);
    assert_eq!(e.reshape(&[-1]).unwrap().shape(), vec![0]);
}

#[test]
fn stack_reports_a_failed_operand_error() {
    let x = Array::<f64>::zeros(&[2, 3], 1).unwrap();
    let y = Array::<f64>::zeros(&[4], 1).unwrap();
    let failed = &x + &y;
    let m = message(stack(&[&x, &failed], 0));
    assert!(m.contains("[2, 3]") && m.contains("[4]"), "{m}");
    assert!(!m.contains("[]"), "{m}");
}
