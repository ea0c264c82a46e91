//! The dtypes-and-ufuncs issue's figures: fused chains on a 20000² f64 array
//! (five cheap, memory-bound ufuncs; five transcendental ones; five of the
//! exponential family; five hyperbolic ones; seven arithmetic operators),
//! five ufuncs on
//! complex128, and complex128 matmul,
//! each reduced to a sum so that only the input is read from memory.
//!
//! `cargo run --release -p chunked-benches --bin ufunc_report [-- --quick] [--json]`
//!
//! The inputs are generated and persisted first; the times are of the chains
//! (median of three after a warm-up). `benches/python/compare_ufuncs.py` runs
//! the same in dask and numpy and prints them side by side.

use chunked_array::random::RandomState;
use chunked_array::{Array, Complex64, Result};
use chunked_benches::{median, print_rows, secs, streaming_read_gbs};

/// Median seconds of `f` over three runs after a warm-up.
fn timed<T>(mut f: impl FnMut() -> Result<T>) -> Result<f64> {
    f()?;
    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, r) = secs(&mut f);
        r?;
        times.push(t);
    }
    Ok(median(times))
}

fn main() -> Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let json = std::env::args().any(|a| a == "--json");
    let (n, nc, nm) = if quick { (4000, 2000, 1000) } else { (20000, 10000, 4000) };
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let gbs = streaming_read_gbs(1 << 27, threads);
    let mut rows = Vec::new();
    let limit = |bytes: usize| format!("read limit {:.3} s at {gbs:.1} GB/s", bytes as f64 / gbs / 1e9);

    let x: Array<f64> = RandomState::new(1).uniform(&[n, n], [2000, 2000])?.persist()?;
    let cheap = || (x.floor().square().copysign(&x)?.fmax(0.25)?.heaviside(0.5)?).sum(None)?.compute_scalar();
    rows.push((format!("f64 cheap chain {n}²"), timed(cheap)?, limit(n * n * 8)));
    let trig = || x.rint().expm1().hypot(&x)?.log1p().cbrt().sum(None)?.compute_scalar();
    rows.push((format!("f64 transcendental chain {n}²"), timed(trig)?, limit(n * n * 8)));
    let exponential = || x.exp().logaddexp(-&x)?.logaddexp2(x.exp2())?.sum(None)?.compute_scalar();
    rows.push((format!("f64 exponential chain {n}²"), timed(exponential)?, limit(n * n * 8)));
    let hyperbolic = || x.sinh().tanh().arctanh().cosh().log1p().sum(None)?.compute_scalar();
    rows.push((format!("f64 hyperbolic chain {n}²"), timed(hyperbolic)?, limit(n * n * 8)));
    let operators = || (&(&(&x * &x) + &x) - &(&(&(&x * 0.5) + 1.0) / &(&x + 1.0))).sum(None)?.compute_scalar();
    rows.push((format!("f64 operator chain {n}²"), timed(operators)?, limit(n * n * 8)));

    let re: Array<f64> = RandomState::new(2).uniform(&[nc, nc], [2000, 2000])?;
    let im: Array<f64> = RandomState::new(3).uniform(&[nc, nc], [2000, 2000])?;
    let z = (&re.astype::<Complex64>() + &(&im.astype::<Complex64>() * Complex64::new(0.0, 1.0))).persist()?;
    let complex = || (&z.conj().square().log1p() * &z.reciprocal()).abs().sum(None)?.compute_scalar();
    rows.push((format!("complex128 chain {nc}²"), timed(complex)?, limit(nc * nc * 16)));

    let a = z.slice(chunked_array::s![..nm, ..nm])?.rechunk([nm / 2, nm / 2])?.persist()?;
    let matmul = || a.matmul(&a)?.sum(None)?.compute_scalar();
    let t = timed(matmul)?;
    rows.push((format!("complex128 matmul {nm}²"), t, format!("{:.1} GFLOP/s", 8.0 * (nm as f64).powi(3) / t / 1e9)));
    print_rows(&rows, json);
    Ok(())
}
