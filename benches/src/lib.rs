//! Benchmarks of chunked: `benches/` holds the criterion benches, `src/bin` the
//! reports and the side-by-side suite; this library their shared measurements of
//! the machine's physical limits.

pub mod cuda_reference;

use std::time::Instant;

/// GB/s of summing `n` f64 in one pass on `threads` threads (best of three after
/// a warm-up): the memory-bandwidth limit for reading.
pub fn streaming_read_gbs(n: usize, threads: usize) -> f64 {
    let data = vec![1.0f64; n];
    let chunk = n.div_ceil(threads.max(1));
    let pass = || {
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
    };
    std::hint::black_box(pass());
    let best = (0..3)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(pass());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    (n * 8) as f64 / best / 1e9
}

/// GFLOP/s of one in-core faer matmul of two n x n f64 matrices on all cores.
pub fn faer_gemm_gflops(n: usize) -> f64 {
    let a = faer::Mat::<f64>::from_fn(n, n, |i, j| ((i * 7 + j * 13) % 101) as f64 / 101.0);
    let mut c = faer::Mat::<f64>::zeros(n, n);
    let run = |c: &mut faer::Mat<f64>| {
        faer::linalg::matmul::matmul(
            c.as_mut(),
            faer::Accum::Replace,
            a.as_ref(),
            a.as_ref(),
            1.0,
            faer::Par::rayon(0),
        );
    };
    run(&mut c);
    let t = Instant::now();
    run(&mut c);
    2.0 * (n as f64).powi(3) / t.elapsed().as_secs_f64() / 1e9
}

/// The value after `--name` on the command line.
pub fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// The median of `times` (the upper one of an even count).
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Seconds `f` takes, starting from a trimmed heap (the last workload's results
/// freed), and what it returned.
pub fn secs<T>(f: impl FnOnce() -> T) -> (f64, T) {
    chunked_array::runtime::release_memory();
    let t = Instant::now();
    let out = f();
    (t.elapsed().as_secs_f64(), out)
}

/// This process's peak resident set size in kiB (Linux VmHWM; 0 elsewhere).
pub fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Prints a report's rows (name, value, note) to stderr, and with `json` as one
/// JSON object on stdout (what the Python comparisons read).
pub fn print_rows(rows: &[(String, f64, String)], json: bool) {
    for (name, t, note) in rows {
        eprintln!("{name:<32} {t:>9.3}   {note}");
    }
    if json {
        let items: Vec<String> =
            rows.iter().map(|(n, t, note)| format!("\"{n}\": {{\"chunked\": {t}, \"note\": \"{note}\"}}")).collect();
        println!("{{{}}}", items.join(", "));
    }
}
