//! The gemm kernels per backend: one core's GFLOP/s for 2000³ products of
//! f64, f32 and complex128 (best of three, operands in cache-cold memory as
//! a block product has them), then the chunked matmul of `n`² in 2000-blocks
//! plus its sum on all cores under each backend, and the choice the kernel
//! layer makes at first use.
//!
//! `kernel_report [n]` (n = 10000 by default; 0 skips the matmul rows).
use std::time::Instant;

use chunked_array::kernels::{Backend, KernelElement, blas_library, describe, gemm_on, set_backend};
use chunked_array::random::RandomState;
use chunked_array::{Complex64, Gemm};
use faer::Mat;

/// One core's best GFLOP/s of `size`³ products of `T` on `backend` (a
/// complex multiply-add is 4 real ones).
fn rate<T: KernelElement + Gemm>(backend: Backend, size: usize, flops_per_fma: f64) -> f64 {
    let a = Mat::<T>::from_fn(size, size, |i, j| T::from_f64(((i * 7 + j * 3) % 11) as f64 - 5.0));
    let mut c = Mat::<T>::zeros(size, size);
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let ran = gemm_on(backend, c.as_mut(), false, a.as_ref(), a.as_ref(), T::from_f64(1.0));
        best = best.min(t.elapsed().as_secs_f64());
        assert_eq!(ran, backend, "{backend:?} did not run the product");
    }
    flops_per_fma * (size as f64).powi(3) / best / 1e9
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    println!("{}", describe());
    let backends: Vec<Backend> = [Backend::Faer, Backend::Blas]
        .into_iter()
        .filter(|&b| b == Backend::Faer || blas_library().is_some())
        .collect();
    for &backend in &backends {
        println!(
            "{backend:?} one core, 2000³: f64 {:.1} GFLOP/s, f32 {:.1} GFLOP/s, complex128 {:.1} GFLOP/s",
            rate::<f64>(backend, 2000, 2.0),
            rate::<f32>(backend, 2000, 2.0),
            rate::<Complex64>(backend, 1000, 8.0),
        );
    }
    if n == 0 {
        return;
    }
    let x = RandomState::new(0).uniform::<f64>(&[n, n], [2000, 2000]).unwrap();
    let s = x.matmul(&x).unwrap().sum(None).unwrap();
    let flops = 2.0 * (n as f64).powi(3);
    for &backend in &backends {
        set_backend(backend).unwrap();
        let mut times = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            s.compute_scalar().unwrap();
            times.push(t.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        let median = times[1];
        println!(
            "{backend:?} matmul {n}², chunks 2000, + sum: {median:.3} s (median of 3), {:.1} GFLOP/s",
            flops / median / 1e9
        );
    }
}
