//! The core issue's benchmark figures in one run: per-task overhead, random
//! generate + sum, the two elementwise + reduction workloads, and the memory
//! bandwidth a plain streaming loop reaches over the same bytes.
//!
//! `cargo run --release -p chunked-benches --bin core_report [-- --quick] [--json]`
//!
//! With `--json`, the results go to stdout as one JSON object (the text report
//! goes to stderr); `benches/python/compare_core.py` runs the same workloads in
//! dask and numpy and prints them side by side.

use std::hint::black_box;
use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::{Array, Context};

fn timed<T>(f: impl FnOnce() -> T) -> f64 {
    let t = Instant::now();
    black_box(f());
    t.elapsed().as_secs_f64()
}

/// (first run, best of the next `runs`).
fn cold_warm<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    chunked_array::runtime::release_memory();
    let cold = timed(&mut f);
    let warm = (0..runs).map(|_| timed(&mut f)).fold(f64::INFINITY, f64::min);
    (cold, warm)
}

struct Row {
    name: String,
    cold: f64,
    warm: f64,
    note: String,
}

fn main() -> chunked_array::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let json = std::env::args().any(|a| a == "--json");
    let ctx = Context::default();
    let threads = chunked_array::ThreadedScheduler::default().threads();
    let mut rows: Vec<Row> = Vec::new();

    for chunk in [100usize, 10] {
        let x = Array::<f64>::ones(&[1_000_000], chunk)?;
        let s = x.sum(None)?;
        let tasks = s.num_tasks();
        let (cold, warm) = cold_warm(5, || s.compute_on(&ctx).unwrap());
        let note = format!(
            "{tasks} tasks: {:.2} us/task, {:.2} us/block",
            warm / tasks as f64 * 1e6,
            warm / x.num_blocks() as f64 * 1e6
        );
        rows.push(Row { name: format!("overhead_chunks_{chunk}"), cold, warm, note });
    }

    let rng = RandomState::new(0);
    let x: Array<f64> = rng.uniform(&[100_000, 1000], [1000, 1000])?;
    let s = x.sum(None)?;
    let (cold, warm) = cold_warm(5, || s.compute_on(&ctx).unwrap());
    rows.push(Row { name: "random_sum".into(), cold, warm, note: format!("{:.2} GB/s of f64", 0.8 / warm) });

    let n = if quick { 8000 } else { 20_000 };
    let bytes = (n * n * 8) as f64;
    let bw = chunked_benches::streaming_read_gbs(n * n, threads);
    let x: Array<f64> = rng.uniform(&[n, n], [2000, 2000])?;
    let a = (&x + &x.t()).mean(0)?;
    let (cold, warm) = cold_warm(3, || a.compute_on(&ctx).unwrap());
    let note = format!("{:.2} GB/s of x; streaming read limit {bw:.1} GB/s", bytes / warm / 1e9);
    rows.push(Row { name: "x_plus_xT_mean0".into(), cold, warm, note });
    let b = (&x - &x.mean(0)?).pow(2.0)?.sum(None)?;
    let (cold, warm) = cold_warm(3, || b.compute_on(&ctx).unwrap());
    let note = format!("{:.2} GB/s of x read twice; streaming read limit {bw:.1} GB/s", 2.0 * bytes / warm / 1e9);
    rows.push(Row { name: "centered_square_sum".into(), cold, warm, note });

    eprintln!("threads: {threads}, elementwise size {n}x{n}");
    for r in &rows {
        eprintln!("{:<22} warm {:>8.3} s   cold {:>8.3} s   {}", r.name, r.warm, r.cold, r.note);
    }
    if json {
        let items: Vec<String> =
            rows.iter().map(|r| format!("\"{}\": {{\"warm\": {}, \"cold\": {}}}", r.name, r.warm, r.cold)).collect();
        println!("{{\"threads\": {threads}, \"n\": {n}, {}}}", items.join(", "));
    }
    Ok(())
}
