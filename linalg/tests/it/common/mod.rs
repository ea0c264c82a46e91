//! Oracles for the decomposition tests: residuals and orthogonality on the whole
//! computed arrays, and faer's in-core SVD.
#![allow(dead_code)]

use chunked_array::Array;
use ndarray::{Array2, ArrayD, Ix2};

/// A computed 2-d array.
pub fn mat(a: &Array<f64>) -> Array2<f64> {
    a.compute().unwrap().into_dimensionality::<Ix2>().unwrap()
}

/// Frobenius norm.
pub fn fro(a: &Array2<f64>) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// ||qᵀq - I||_F.
pub fn orthogonality(q: &Array2<f64>) -> f64 {
    let g = q.t().dot(q);
    fro(&(g - Array2::<f64>::eye(q.ncols())))
}

/// faer's in-core singular values, non-increasing.
pub fn singular_values(a: &Array2<f64>) -> Vec<f64> {
    let m = faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]]);
    m.singular_values().unwrap()
}

/// A matrix with chosen singular values: U diag(s) Vᵀ with random orthonormal
/// U (m × k) and V (n × k) from the QR of Gaussian matrices.
pub fn with_singular_values(m: usize, n: usize, s: &[f64], seed: u64) -> Array2<f64> {
    let k = s.len();
    let g = |rows: usize, seed: u64| {
        let x = chunked_array::random::RandomState::new(seed)
            .standard_normal::<f64>(&[rows, k], [rows, k])
            .unwrap()
            .compute()
            .unwrap();
        let x = x.into_dimensionality::<Ix2>().unwrap();
        let f = faer::Mat::from_fn(rows, k, |i, j| x[[i, j]]).qr().compute_thin_Q();
        Array2::from_shape_fn((rows, k), |(i, j)| f[(i, j)])
    };
    let u = g(m, seed);
    let v = g(n, seed + 1);
    let us = &u * &ndarray::Array1::from(s.to_vec());
    us.dot(&v.t())
}

/// An in-memory matrix as a chunked array with explicit row/column chunks.
pub fn chunked(a: &Array2<f64>, rows: Vec<usize>, cols: Vec<usize>) -> Array<f64> {
    Array::from_ndarray(a.clone().into_dyn(), chunked_array::ChunkSpec::from(vec![rows, cols])).unwrap()
}

/// Largest |x| of a dynamic array.
pub fn max_abs(a: &ArrayD<f64>) -> f64 {
    a.iter().fold(0.0, |m, x| m.max(x.abs()))
}
