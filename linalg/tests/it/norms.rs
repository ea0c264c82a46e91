//! Norms against the same formulas on the whole ndarray.

use chunked_array::Array;
use chunked_linalg::{MatrixNorm, matrix_norm, vector_norm};
use ndarray::Array2;
use proptest::prelude::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn norms_match((rows, cols) in (1usize..12, 1usize..12), seed in any::<u64>(), cr in 1usize..5, cc in 1usize..5) {
        let m = Array2::from_shape_fn((rows, cols), |(i, j)| (((i * 31 + j * 17) as u64 ^ seed) % 23) as f64 - 11.0);
        let x = Array::from_ndarray(m.clone(), [cr, cc]).unwrap();
        let fro = m.iter().map(|v| v * v).sum::<f64>().sqrt();
        prop_assert!(close(matrix_norm(&x, MatrixNorm::Frobenius).unwrap().compute_scalar().unwrap(), fro));
        let one = m.columns().into_iter().map(|c| c.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
        prop_assert!(close(matrix_norm(&x, MatrixNorm::One).unwrap().compute_scalar().unwrap(), one));
        let inf = m.rows().into_iter().map(|r| r.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
        prop_assert!(close(matrix_norm(&x, MatrixNorm::Inf).unwrap().compute_scalar().unwrap(), inf));
        for p in [1.0, 2.0, 3.0, 0.5] {
            let want = m.iter().map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p);
            prop_assert!(close(vector_norm(&x, p).unwrap().compute_scalar().unwrap(), want));
        }
        prop_assert_eq!(vector_norm(&x, f64::INFINITY).unwrap().compute_scalar().unwrap(), m.iter().map(|v| v.abs()).fold(0.0, f64::max));
        prop_assert_eq!(vector_norm(&x, f64::NEG_INFINITY).unwrap().compute_scalar().unwrap(), m.iter().map(|v| v.abs()).fold(f64::INFINITY, f64::min));
        prop_assert_eq!(vector_norm(&x, 0.0).unwrap().compute_scalar().unwrap(), m.iter().filter(|v| **v != 0.0).count() as f64);
    }
}

#[test]
fn bad_input() {
    let v = Array::<f64>::ones(&[4], 2).unwrap();
    assert!(matrix_norm(&v, MatrixNorm::One).unwrap_err().to_string().contains("[4]"));
    assert!(vector_norm(&v, f64::NAN).is_err());
}
