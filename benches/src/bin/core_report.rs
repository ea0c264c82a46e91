//! Prints the core issue's benchmark figures in one run: per-task overhead, random
//! generate + sum, the two elementwise + reduction workloads, and the memory
//! bandwidth a plain streaming loop reaches over the same bytes.
//!
//! `cargo run --release -p chunked-benches --bin core_report [-- --quick]`

use std::hint::black_box;
use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::{Array, Context};

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Sums `n` f64 in one pass with all cores: the memory-bandwidth limit for reading.
fn streaming_read_gbs(n: usize, threads: usize) -> f64 {
    let data = vec![1.0f64; n];
    let chunk = n.div_ceil(threads);
    let secs = best_of(3, || {
        std::thread::scope(|s| {
            let hs: Vec<_> = data
                .chunks(chunk)
                .map(|c| {
                    s.spawn(move || {
                        let mut acc = [0.0f64; 8];
                        for w in c.chunks_exact(8) {
                            for i in 0..8 {
                                acc[i] += w[i];
                            }
                        }
                        acc.iter().sum::<f64>()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).sum::<f64>()
        })
    });
    (n * 8) as f64 / secs / 1e9
}

fn main() -> chunked_array::Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let ctx = Context::default();
    let threads = chunked_array::ThreadedScheduler::default().threads();
    println!("threads: {threads}");

    for chunk in [100usize, 10] {
        let x = Array::<f64>::ones(&[1_000_000], chunk)?;
        let s = x.sum(None)?;
        let tasks = s.num_tasks();
        let blocks = x.num_blocks();
        let secs = best_of(5, || s.compute_with(&ctx).unwrap());
        println!(
            "overhead ones(1e6, chunks={chunk}).sum(): {:.3} s, {tasks} tasks: {:.2} us/task, {:.2} us/block (dask: 154-183 us)",
            secs,
            secs / tasks as f64 * 1e6,
            secs / blocks as f64 * 1e6
        );
    }

    let rng = RandomState::new(0);
    let x: Array<f64> = rng.uniform(&[100_000, 1000], [1000, 1000])?;
    let s = x.sum(None)?;
    let secs = best_of(5, || s.compute_with(&ctx).unwrap());
    println!("random 100000x1000 + sum: {secs:.3} s, {:.2} GB/s of f64 (dask 0.48 s, numpy 0.53 s, target 0.25 s)", 0.8 / secs);

    let n = if quick { 8000 } else { 20_000 };
    let x: Array<f64> = rng.uniform(&[n, n], [2000, 2000])?;
    let generate = best_of(3, || x.sum(None).unwrap().compute_with(&ctx).unwrap());
    let bytes = (n * n * 8) as f64;
    let bw = streaming_read_gbs(n * n, threads);
    println!("{n}x{n} f64 ({:.1} GB): random+sum {generate:.3} s; streaming read limit {bw:.1} GB/s", bytes / 1e9);
    // The first run of a workload also page-faults in the memory it holds; later
    // runs reuse it (see schedule::tune_allocator). Both are reported.
    chunked_array::schedule::release_memory();
    let a = (&x + &x.t()).mean(0)?;
    let cold = best_of(1, || a.compute_with(&ctx).unwrap());
    let t1 = best_of(3, || a.compute_with(&ctx).unwrap());
    println!(
        "(x + x.T).mean(axis=0): {t1:.3} s warm, {cold:.3} s cold, {:.2} GB/s of x (dask 2.3 s, numpy 12.7 s): {:.1}x dask",
        bytes / t1 / 1e9,
        2.3 / t1
    );
    chunked_array::schedule::release_memory();
    let b = (&x - &x.mean(0)?).pow(2.0)?.sum(None)?;
    let cold = best_of(1, || b.compute_with(&ctx).unwrap());
    let t2 = best_of(3, || b.compute_with(&ctx).unwrap());
    println!(
        "((x - x.mean(axis=0))**2).sum(): {t2:.3} s warm, {cold:.3} s cold, {:.2} GB/s of x read twice (dask 1.9 s, numpy 4.5 s): {:.1}x dask",
        2.0 * bytes / t2 / 1e9,
        1.9 / t2
    );
    Ok(())
}
