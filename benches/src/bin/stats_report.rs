//! Statistics: the median along axis 0 of a random n x n f64 matrix (n =
//! 20000 by default) made in (1000, 1000) blocks, and the same matrix's sum
//! (what making it costs); a 100-bin histogram of `--hist M` (1e9) random
//! values persisted in memory, with the streaming-read rate of its bytes.
//! Medians of three, as `benches/python/compare_statistics.py` measures dask
//! and numpy.
//!
//! The sort of `--sort S` (1e8) random f64 persisted in 2^24-element (128
//! MiB) blocks: a sample sort across the blocks, with the peak bytes held;
//! the top 100 (`topk`) of the same values.
//!
//! The 1st, 50th and 99th percentiles of `--pct P` (1e9) standard uniform f64
//! under a 2 GB memory limit (one run), with the sum of the same values (one
//! pass of making them) and the peak bytes held.
//!
//! The distinct values (with their counts) of `--unique U` (1e8) random int64
//! in [0, 1000) in memory.
//!
//! A size of 0 skips its section.
//!
//! `cargo run --release -p chunked-benches --bin stats_report [-- --json] [--n N] [--hist M] [--sort S] [--pct P] [--unique U]`

use chunked_array::random::RandomState;
use chunked_array::{Context, Result, UniqueOptions};
use chunked_benches::{median, print_rows, secs};

type Rows = Vec<(String, f64, String)>;
/// One section of the report: its size, the context, the rows it adds.
type Section = fn(usize, &Context, &mut Rows) -> Result<()>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json");
    let flag = |name: &str, default: usize| {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(default)
    };
    let ctx = Context::default();
    let mut rows = Vec::new();
    let sizes = [
        flag("--n", 20_000),
        flag("--hist", 1_000_000_000),
        flag("--sort", 100_000_000),
        flag("--unique", 100_000_000),
        flag("--pct", 1_000_000_000),
    ];
    let sections: [Section; 5] = [median_rows, histogram_rows, sort_rows, unique_rows, percentile_rows];
    for (size, section) in sizes.into_iter().zip(sections) {
        if size > 0 {
            section(size, &ctx, &mut rows)?;
        }
    }
    print_rows(&rows, json);
    Ok(())
}

/// The median along axis 0 of a random `n` x `n` matrix, and its sum.
fn median_rows(n: usize, ctx: &Context, rows: &mut Rows) -> Result<()> {
    let x = RandomState::new(42).uniform::<f64>(&[n, n], [1000, 1000])?;
    let bytes = (n * n * 8) as f64;
    let times: Vec<f64> = (0..3).map(|_| secs(|| x.sum(None)?.compute_on(ctx)).0).collect();
    let make = median(times);
    rows.push((format!("random {n}^2 f64, sum"), make, format!("{:.1} GB/s made", bytes / make / 1e9)));
    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, m) = secs(|| x.median(Some(0))?.compute_on(ctx));
        assert_eq!(m?.len(), n);
        times.push(t);
    }
    let t = median(times);
    rows.push((
        format!("random {n}^2 f64, median axis 0"),
        t,
        format!("{:.2} ns per element", t / (n * n) as f64 * 1e9),
    ));
    Ok(())
}

/// A 100-bin histogram of `m` values in memory, against their sum and a
/// streaming read.
fn histogram_rows(m: usize, ctx: &Context, rows: &mut Rows) -> Result<()> {
    let values = RandomState::new(7).uniform::<f64>(&[m], 1 << 24)?.persist_on(ctx)?;
    let sums: Vec<f64> = (0..3).map(|_| secs(|| values.sum(None)?.compute_on(ctx)).0).collect();
    let sum = median(sums);
    rows.push((format!("sum of {m} f64 in memory"), sum, format!("{:.1} GB/s", (m * 8) as f64 / sum / 1e9)));
    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, h) = secs(|| values.histogram(100, Some((0.0, 1.0)))?.0.compute_on(ctx));
        assert_eq!(h?.sum(), m as i64);
        times.push(t);
    }
    let t = median(times);
    let read = chunked_benches::streaming_read_gbs(1 << 27, 0);
    let rate = (m * 8) as f64 / t / 1e9;
    rows.push((format!("histogram of {m} f64, 100 bins"), t, format!("{rate:.1} GB/s; streaming read {read:.1} GB/s")));
    Ok(())
}

/// The sort of `n` random values in memory (with the peak bytes held), and
/// their top 100.
fn sort_rows(n: usize, ctx: &Context, rows: &mut Rows) -> Result<()> {
    let unsorted = RandomState::new(9).uniform::<f64>(&[n], 1 << 24)?.persist_on(ctx)?;
    let mut times = Vec::new();
    let mut peak = 0;
    for _ in 0..3 {
        let (t, s) = secs(|| unsorted.sort(0)?.compute_stats(ctx));
        let (s, stats) = s?;
        assert!(s.as_slice().expect("1-D").windows(2).all(|w| w[0] <= w[1]));
        peak = stats.tiers.peak_bytes;
        times.push(t);
    }
    let t = median(times);
    let note = format!("{:.1} ns per element; peak {} MB held", t / n as f64 * 1e9, peak >> 20);
    rows.push((format!("sort of {n} f64"), t, note));
    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, top) = secs(|| unsorted.topk(100, 0)?.compute_on(ctx));
        assert_eq!(top?.len(), 100);
        times.push(t);
    }
    rows.push((format!("top 100 of {n} f64"), median(times), String::new()));
    Ok(())
}

/// The distinct values and counts of `n` random int64 in [0, 1000), in memory.
fn unique_rows(n: usize, ctx: &Context, rows: &mut Rows) -> Result<()> {
    let x = RandomState::new(3).integers::<i64>(0, 1000, &[n], 1 << 21)?.persist_on(ctx)?;
    let opts = UniqueOptions { return_counts: true, ..Default::default() };
    let mut times = Vec::new();
    for _ in 0..3 {
        let (t, u) = secs(|| x.unique_with(&opts, ctx));
        assert_eq!(u?.counts.expect("asked").sum(None)?.compute_scalar()?, n as i64);
        times.push(t);
    }
    let t = median(times);
    rows.push((format!("unique of {n} int64, 1000 values"), t, format!("{:.2} ns per element", t / n as f64 * 1e9)));
    Ok(())
}

/// Percentiles of `n` uniform values under a 2 GB memory limit.
fn percentile_rows(n: usize, _: &Context, rows: &mut Rows) -> Result<()> {
    let ctx = Context::default().with_memory_limit(2 << 30);
    let x = RandomState::new(5).uniform::<f64>(&[n], 1 << 21)?;
    let (make, _) = secs(|| x.sum(None)?.compute_on(&ctx));
    rows.push((format!("sum of {n} uniform f64"), make, format!("{:.1} GB/s made", (n * 8) as f64 / make / 1e9)));
    let (t, out) = secs(|| x.percentile_with(&[1.0, 50.0, 99.0], &Default::default())?.compute_stats(&ctx));
    let (p, stats) = out?;
    rows.push((
        format!("percentiles of {n} uniform f64, 2 GB limit"),
        t,
        format!(
            "p1 {:.9} p50 {:.9} p99 {:.9}; peak {} MB, {} blocks made again",
            p[[0]],
            p[[1]],
            p[[2]],
            stats.tiers.peak_bytes >> 20,
            stats.tiers.regenerated
        ),
    ));
    Ok(())
}
