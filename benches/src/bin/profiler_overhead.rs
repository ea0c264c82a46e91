//! Per-task overhead with and without the profiler (a development aid):
//! `profile_overhead plain|profiled` runs the 233 337-task sum 20 times and prints
//! the best time, for `perf stat` or side-by-side runs.
use chunked_array::{Array, Context, diagnostics::Profiler};
fn main() {
    let profiled = std::env::args().nth(1).as_deref() == Some("profiled");
    let s = Array::<f64>::ones(&[1_000_000], 10).unwrap().sum(None).unwrap();
    let profiler = Profiler::new();
    let ctx = if profiled { Context::default().with_profiler(&profiler) } else { Context::default() };
    let reps: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(20);
    let best = (0..reps)
        .map(|_| {
            let t = std::time::Instant::now();
            s.compute_on(&ctx).unwrap();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    println!("{} best {best:.4} s", if profiled { "profiled" } else { "plain" });
}
