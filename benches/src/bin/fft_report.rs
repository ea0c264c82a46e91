//! FFT workloads, each summed so that no output is gathered:
//! - `fft2 8192^2 c128, chunks (8192, 1024)`: the input persisted first; axis 0
//!   is whole in the chunks, axis 1 spans eight, which chunked rechunks itself;
//! - `rfft axis 1 of 20000^2 f64, chunks (800, 20000)`: persisted input;
//! - `fft 2^28 c128 under 1 GiB`: one long axis in 2^22-element chunks of
//!   normal numbers (generated in the graph), under a 1 GiB memory limit,
//!   spilling to disk: the four-step path.
//!
//! Rates use the conventional `5 n log2(n)` flops of a complex transform of
//! `n` points (half for real input); the memory limit is a pass over the
//! input and output at the machine's streaming bandwidth.
//! `benches/python/compare_fft.py` runs numpy and dask on the same workloads.
//!
//! `cargo run --release -p chunked-benches --bin fft_report [-- --json] [--only NAME] [--scale S] [--memory-limit-mib M]`

use chunked_array::fft::{self, FftOptions};
use chunked_array::random::RandomState;
use chunked_array::{Array, Complex64, Context, Result};
use chunked_benches::{arg, median, print_rows, secs, streaming_read_gbs};

/// `5 n log2 n` flops for each of `lanes` transforms of `n` points.
fn flops(n: usize, lanes: usize) -> f64 {
    5.0 * n as f64 * (n as f64).log2() * lanes as f64
}

fn timed(x: &Array<Complex64>, ctx: &Context, repeat: usize) -> Result<f64> {
    let total = x.sum(None)?;
    let times: Result<Vec<f64>> = (0..repeat)
        .map(|_| {
            let (t, v) = secs(|| total.compute_on(ctx));
            v.map(|_| t)
        })
        .collect();
    Ok(median(times?))
}

fn main() -> Result<()> {
    let json = std::env::args().any(|a| a == "--json");
    let only = arg("--only");
    let scale: f64 = arg("--scale").and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let gbs = streaming_read_gbs(1 << 26, 2);
    let side = ((8192.0 * scale.sqrt()) as usize).next_power_of_two();
    let rows_n = (20000.0 * scale.sqrt()) as usize;
    let long = ((1usize << 28) as f64 * scale) as usize;
    let limit_mib: usize = arg("--memory-limit-mib").and_then(|s| s.parse().ok()).unwrap_or(1024);
    let rng = RandomState::new(1);
    let mut rows = Vec::new();
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.starts_with(o));

    let name = format!("fft2 {side}^2 c128, chunks ({side}, {})", side / 8);
    if wanted("fft2") {
        let x = rng.standard_normal::<f64>(&[side, side], [side, side / 8])?.astype::<Complex64>().persist()?;
        let t = timed(&fft::fft2(&x)?, &Context::default(), 3)?;
        let bytes = 2.0 * 2.0 * 16.0 * (side * side) as f64; // two passes, in and out
        let note = format!("{:.1} GFLOP/s, pass limit {:.2} s", 2.0 * flops(side, side) / t / 1e9, bytes / gbs / 1e9);
        rows.push((name, t, note));
    }
    let name = format!("rfft axis 1 of {rows_n}^2 f64, chunks (800, {rows_n})");
    if wanted("rfft") {
        let x = rng.standard_normal::<f64>(&[rows_n, rows_n], [800, rows_n])?.persist()?;
        let t = timed(&fft::rfft(&x)?, &Context::default(), 3)?;
        let bytes = 8.0 * (rows_n * rows_n) as f64 + 16.0 * (rows_n * (rows_n / 2 + 1)) as f64;
        let note =
            format!("{:.1} GFLOP/s, pass limit {:.2} s", flops(rows_n, rows_n) / 2.0 / t / 1e9, bytes / gbs / 1e9);
        rows.push((name, t, note));
    }
    let name = format!("fft {long} points c128 under {limit_mib} MiB");
    if wanted("fft ") {
        let x = rng.standard_normal::<f64>(&[long], 1 << 22)?;
        let opts = FftOptions { block_size_limit: 32 << 20, ..Default::default() };
        let ctx = Context::default().with_memory_limit(limit_mib << 20);
        let (t, stats) = secs(|| fft::fft_with(&x, &opts)?.sum(None)?.compute_stats(&ctx));
        let (_, stats) = stats?;
        let note = format!(
            "{:.1} GFLOP/s, spilled {:.1} GB, peak RSS {} MiB",
            flops(long, 1) / t / 1e9,
            stats.tiers.spilled_bytes as f64 / 1e9,
            chunked_benches::vm_hwm_kib() >> 10
        );
        rows.push((name, t, note));
    }
    print_rows(&rows, json);
    Ok(())
}
