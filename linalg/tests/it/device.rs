//! The decompositions on device arrays, per backend (host, emulated device,
//! CUDA device, which skips saying why where there is none): the same
//! residual, orthogonality and singular-value oracles as on the host.

use crate::common::{fro, mat, orthogonality, singular_values};
use chunked_array::device::Device;
use chunked_array::random::RandomState;
use chunked_array::{Array, Context};
use chunked_linalg::{CompressedOptions, TsqrOptions, svd, svd_compressed, tsqr};

#[macro_use]
#[path = "../../../chunked-array/tests/it/support/backends.rs"]
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
    let dense = crate::common::with_singular_values(400, 60, &values, 3);
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
    let Some(device) = device else {
        return println!("no device tier on the CPU backend");
    };
    // A PCA: the SVD of the centered matrix. Centering holds every block of
    // the 5.1 MB input until the column means are known, against a device
    // limit of 3 MB (one TSQR leaf task needs 2 MB: its 1000-row input, the
    // packed factor and the kernel's copy): blocks move to host memory and
    // back to the device; the result is the same.
    let a = input(Some(device), 8000, 80, 500);
    let centered = &a - &a.mean(0).unwrap();
    let ctx = Context::threads(2).with_device_memory_limit(3 << 20);
    let d = svd(&centered).unwrap();
    let (s, stats) = d.s.compute_stats(&ctx).unwrap();
    let oracle = singular_values(&mat(&centered));
    for (x, y) in s.iter().zip(&oracle) {
        assert!((x - y).abs() <= tol(80) * oracle[0], "{x} vs {y}");
    }
    assert!(stats.tiers.device_spilled > 0, "{stats:?}");
    assert_eq!(device.in_use(), 0);
});

per_backend!(tsqr_runs_on_the_device, |device: Option<&Device>| {
    let Some(device) = device else {
        return println!("the host TSQR is tested in tsqr.rs");
    };
    // 7 row blocks, irregular last one, arity 2: three levels of the tree.
    let a = input(Some(device), 650, 30, 100);
    let f = tsqr(&a, &TsqrOptions { arity: 2, compute_svd: true, ..TsqrOptions::default() }).unwrap();
    let before = device.downloaded_bytes();
    let q = f.q.compute().unwrap();
    // Only the result leaves the device: every block of the factorization
    // (leaves, tree, pass down) was made and read there.
    assert_eq!(device.downloaded_bytes() - before, (q.len() * 8) as u64);
    let (am, r) = (mat(&a), mat(&f.r));
    let q = q.into_dimensionality::<ndarray::Ix2>().unwrap();
    assert!(fro(&(&am - &q.dot(&r))) / fro(&am) < tol(30));
    assert!(orthogonality(&q) < tol(30));
    for i in 0..r.nrows() {
        assert!((0..i).all(|j| r[[i, j]] == 0.0), "R is upper triangular");
    }
    let svd = f.svd.unwrap();
    let before = device.downloaded_bytes();
    let s = svd.s.compute().unwrap();
    assert_eq!(device.downloaded_bytes() - before, 30 * 8);
    let oracle = singular_values(&am);
    for (x, y) in s.iter().zip(&oracle) {
        assert!((x - y).abs() <= tol(30) * oracle[0], "{x} vs {y}");
    }
    // The same deterministic signs as the host SVD (largest entry of each
    // right singular vector positive): the factors agree with the host's.
    let host = tsqr(&input(None, 650, 30, 100), &TsqrOptions { arity: 2, compute_svd: true, ..TsqrOptions::default() })
        .unwrap()
        .svd
        .unwrap();
    let (vt, host_vt) = (mat(&svd.vt), mat(&host.vt));
    assert!(fro(&(&vt - &host_vt)) < 1e-10, "{}", fro(&(&vt - &host_vt)));
    let (u, host_u) = (mat(&svd.u), mat(&host.u));
    assert!(fro(&(&u - &host_u)) < 1e-10);
});

per_backend!(tsqr_of_f32_on_the_device, |device: Option<&Device>| {
    let a = RandomState::new(5).standard_normal::<f32>(&[300, 20], [64, 20]).unwrap();
    let a = match device {
        Some(d) => a.to_device(d),
        None => a,
    };
    let f = tsqr(&a, &TsqrOptions::default()).unwrap();
    let am = a.compute().unwrap().into_dimensionality::<ndarray::Ix2>().unwrap().mapv(f64::from);
    let q = f.q.compute().unwrap().into_dimensionality::<ndarray::Ix2>().unwrap().mapv(f64::from);
    let r = f.r.compute().unwrap().into_dimensionality::<ndarray::Ix2>().unwrap().mapv(f64::from);
    let tol32 = 10.0 * 20.0 * f64::from(f32::EPSILON);
    assert!(fro(&(&am - &q.dot(&r))) / fro(&am) < tol32);
    assert!(orthogonality(&q) < tol32);
});

per_backend!(tsqr_over_two_devices, |device: Option<&Device>| {
    let Some(device) = device else {
        return println!("no devices to spread over on the CPU backend");
    };
    // Leaves on both devices in turn; tree nodes read R parts from the other
    // device through host memory.
    let second = if device.is_emulated() { Device::emulated(256 << 20) } else { device.clone() };
    let a = RandomState::new(42)
        .standard_normal::<f64>(&[600, 40], [70, 40])
        .unwrap()
        .to_devices(&[device.clone(), second.clone()]);
    let d = svd(&a).unwrap();
    let (u, s) = (mat(&d.u), d.s.compute().unwrap());
    let oracle = singular_values(&mat(&a));
    for (x, y) in s.iter().zip(&oracle) {
        assert!((x - y).abs() <= tol(40) * oracle[0], "{x} vs {y}");
    }
    assert!(orthogonality(&u) < tol(40));
    assert_eq!((device.in_use(), second.in_use()), (0, 0), "every buffer freed");
});
