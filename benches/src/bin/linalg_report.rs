//! The linear-algebra issue's benchmark figures in one run: the seed SVD, TSQR
//! of 1e6 x 100 in two chunkings, svd_compressed k=10 with its accuracy, the
//! SVD and a solve of complex128 matrices, next to the machine's in-core faer
//! rate for the same kind of kernel.
//!
//! `cargo run --release -p chunked-benches --bin linalg_report [-- --json]`
//!
//! `benches/python/compare_linalg.py` runs the same work in dask and numpy.

use chunked_array::random::RandomState;
use chunked_array::{Array, Complex64, compute};
use chunked_benches::secs;
use chunked_linalg::{CompressedOptions, TsqrOptions, solve, svd, svd_compressed, tsqr};

/// GFLOP/s of one in-core faer QR (factor + thin Q) of an m x n matrix on all cores.
fn faer_qr_rate(m: usize, n: usize) -> f64 {
    let a = faer::Mat::<f64>::from_fn(m, n, |i, j| {
        ((i * 7 + j * 13) % 101) as f64 / 101.0 + if i == j { 1.0 } else { 0.0 }
    });
    let (t, _) = secs(|| {
        let q = a.qr();
        q.compute_thin_Q()
    });
    4.0 * m as f64 * (n as f64).powi(2) / t / 1e9
}

/// A complex128 array of uniform [0, 1) real and imaginary parts, persisted.
fn complex_uniform(shape: &[usize], chunks: [usize; 2], seed: u64) -> chunked_array::Result<Array<Complex64>> {
    let part = |stream| RandomState::new(seed).with_stream(stream).uniform::<f64>(shape, chunks);
    let (re, im) = (part(0)?.astype::<Complex64>(), part(1)?.astype::<Complex64>());
    (&re + &(&im * Complex64::new(0.0, 1.0))).persist()
}

/// Complex128 linear algebra: the SVD of a tall matrix (u, s, vt computed) and
/// a dense solve, inputs persisted first.
fn complex_rows(rows: &mut Vec<(String, f64, String)>) -> Result<(), Box<dyn std::error::Error>> {
    let (m, n) = (200_000usize, 100usize);
    let a = complex_uniform(&[m, n], [20_000, n], 3)?;
    let f = svd(&a)?;
    let (t, _) = secs(|| compute((&f.u, &f.s, &f.vt)).unwrap());
    let flops = 4.0 * 4.0 * m as f64 * (n * n) as f64;
    rows.push(("complex_svd_2e5x100".into(), t, format!("{:.0} GFLOP/s at 16mn^2 real flops", flops / t / 1e9)));
    let n = 2000usize;
    let a = complex_uniform(&[n, n], [500, 500], 4)?;
    let a = (&a + &(&Array::<Complex64>::eye(n, None, 0, 500)? * Complex64::new(n as f64, 0.0))).persist()?;
    let b = complex_uniform(&[n, 1], [500, 1], 5)?;
    let x = solve(&a, &b)?;
    let (t, _) = secs(|| x.compute().unwrap());
    let flops = 4.0 * 2.0 / 3.0 * (n as f64).powi(3);
    rows.push(("complex_solve_2000".into(), t, format!("{:.0} GFLOP/s at 8n^3/3 real flops", flops / t / 1e9)));
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let json = std::env::args().any(|a| a == "--json");
    let mut rows: Vec<(String, f64, String)> = Vec::new();

    // TSQR of 1e6 x 100, q and r computed.
    for rb in [10_000usize, 100_000] {
        let a: Array<f64> = RandomState::new(1).uniform(&[1_000_000, 100], [rb, 100])?;
        let qr = tsqr(&a, &TsqrOptions::default())?;
        let (t, _) = secs(|| compute((&qr.q, &qr.r)).unwrap());
        rows.push((format!("tsqr_1e6x100_chunks_{rb}"), t, format!("{:.0} GFLOP/s at 4mn^2", 4e10 / t / 1e9)));
    }

    // svd_compressed k = 10 on 100000 x 1000 in (10000, 1000) chunks; accuracy
    // against the exact singular values of the same matrix.
    // Persisted first, as the dask side does, so both time the algorithm.
    let a: Array<f64> = RandomState::new(2).uniform(&[100_000, 1000], [10_000, 1000])?.persist()?;
    let approx = svd_compressed(&a, 10, &CompressedOptions::default())?;
    let (t, s_approx) = secs(|| approx.s.compute().unwrap());
    let (_, s_exact) = secs(|| svd(&a).unwrap().s.compute().unwrap());
    let rel: f64 = (0..10).map(|i| ((s_approx[i] - s_exact[i]) / s_exact[i]).abs()).fold(0.0, f64::max);
    rows.push(("svd_compressed_k10".into(), t, format!("max relative error of s[:10] = {rel:.3e}")));
    let (t, _) = secs(|| compute((&approx.u, &approx.s, &approx.vt)).unwrap());
    rows.push(("svd_compressed_k10_usv".into(), t, "u, s and vt computed".into()));

    // The seed: random (100000, 1000) in (1000, 1000) chunks, u, s, vt computed.
    let x: Array<f64> = RandomState::new(0).uniform(&[100_000, 1000], [1000, 1000])?;
    let f = svd(&x)?;
    let (t, (_u, s, _vt)) = secs(|| compute((&f.u, &f.s, &f.vt)).unwrap());
    rows.push((
        "seed_svd_1000x1000_chunks".into(),
        t,
        format!("s0 = {:.4}; {:.0} GFLOP/s at 4mn^2", s[0], 4e11 / t / 1e9),
    ));

    complex_rows(&mut rows)?;

    let rate = faer_qr_rate(20_000, 1000);
    rows.push(("faer_in_core_qr_rate".into(), rate, "GFLOP/s, one 20000x1000 QR + thin Q, all cores".into()));

    chunked_benches::print_rows(&rows, json);
    Ok(())
}
