//! The decompositions on device arrays, per backend (host, emulated device,
//! CUDA device, which skips saying why where there is none): the same
//! residual, orthogonality and singular-value oracles as on the host.

mod common;

use chunked_array::device::Device;
use chunked_array::random::RandomState;
use chunked_array::{Array, Context};
use chunked_linalg::{svd, svd_compressed, tsqr, CompressedOptions, TsqrOptions};
use common::{fro, mat, orthogonality, singular_values};

#[macro_use]
#[path = "../../chunked-array/tests/support/backends.rs"]
mod backends;

fn input(device: Option<&Device>, rows: usize, cols: usize, chunk_rows: usize) -> Array<f64> {
    let a = RandomState::new(42).standard_normal::<f64>(&[rows, cols], [chunk_rows, cols]).unwrap();
    match device {
        Some(d) => a.to_device(d),
        None => a,
    }
}

/// Tolerances as in the host tests: c * n * eps with c = 10 for Householder QR.
fn tol(n: usize) -> f64 {
    10.0 * n as f64 * f64::EPSILON
}

per_backend!(tsqr_of_a_device_array, |device: Option<&Device>| {
    let a = input(device, 600, 40, 70);
    let f = tsqr(&a, &TsqrOptions::default()).unwrap();
    assert_eq!(f.q.device().is_some(), device.is_some(), "Q stays where A is");
    let (am, q, r) = (mat(&a), mat(&f.q), mat(&f.r));
    assert!(fro(&(&am - &q.dot(&r))) / fro(&am) < tol(40));
    assert!(orthogonality(&q) < tol(40));
});

per_backend!(svd_of_a_device_array_matches_faer, |device: Option<&Device>| {
    let a = input(device, 500, 30, 100);
    let d = svd(&a).unwrap();
    let am = mat(&a);
    let (u, s, vt) = (mat(&d.u), d.s.compute().unwrap(), mat(&d.vt));
    let oracle = singular_values(&am);
    for (x, y) in s.iter().zip(&oracle) {
        assert!((x - y).abs() <= tol(30) * oracle[0], "{x} vs {y}");
    }
    let us = &u * &s.view().into_dimensionality::<ndarray::Ix1>().unwrap();
    assert!(fro(&(&am - &us.dot(&vt))) / fro(&am) < tol(30));
    assert!(orthogonality(&u) < tol(30));
});

per_backend!(svd_compressed_of_a_device_array, |device: Option<&Device>| {
    // A spectrum halving at each value: the sketch with power iterations
    // recovers the leading five to high accuracy.
    let values: Vec<f64> = (0..40).map(|i| 100.0 * 0.5f64.powi(i)).collect();
    let dense = common::with_singular_values(400, 60, &values, 3);
    let a = Array::from_ndarray(dense, [100, 60]).unwrap();
    let a = match device {
        Some(d) => a.to_device(d),
        None => a,
    };
    let d = svd_compressed(&a, 5, &CompressedOptions { n_power_iter: 2, ..Default::default() }).unwrap();
    let s = d.s.compute().unwrap();
    for (x, y) in s.iter().zip(&values) {
        assert!((x - y).abs() <= 1e-10 * values[0], "{x} vs {y}");
    }
});

per_backend!(svd_larger_than_the_device_limit_spills, |device: Option<&Device>| {
    let Some(device) = device else { return println!("no device tier on the CPU backend") };
    // A PCA: the SVD of the centered matrix. Centering holds every block of
    // the 5.1 MB input until the column means are known, against a device
    // limit of 1.5 MB (one TSQR leaf task needs 1.3 MB): blocks move to host
    // memory and back to the device; the result is the same.
    let a = input(Some(device), 8000, 80, 500);
    let centered = &a - &a.mean(0).unwrap();
    let ctx = Context::threads(2).with_device_memory_limit(3 << 19);
    let d = svd(&centered).unwrap();
    let (s, stats) = d.s.compute_stats(&ctx).unwrap();
    let oracle = singular_values(&mat(&centered));
    for (x, y) in s.iter().zip(&oracle) {
        assert!((x - y).abs() <= tol(80) * oracle[0], "{x} vs {y}");
    }
    assert!(stats.device_spilled > 0, "{stats:?}");
    assert_eq!(device.in_use(), 0);
});
