//! Per-task overhead with and without the profiler (a development aid).
use chunked_array::{diagnostics::Profiler, Array, Context};
fn main() {
    let s = Array::<f64>::ones(&[1_000_000], 10).unwrap().sum(None).unwrap();
    let plain = Context::default();
    let profiler = Profiler::new();
    let profiled = Context::default().with_profiler(&profiler);
    let time = |ctx: &Context| { let t = std::time::Instant::now(); s.compute_with(ctx).unwrap(); t.elapsed().as_secs_f64() };
    // Alternate the two, keep each one's best: the machine's noise is larger than the effect.
    let (mut a, mut b) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..15 {
        a = a.min(time(&plain));
        b = b.min(time(&profiled));
    }
    println!("plain {a:.4} s, profiled {b:.4} s: {:+.1}%", (b / a - 1.0) * 100.0);
}
