//! Times the TSQR-based SVD and QR of a random matrix and prints the task time
//! per layer, to see which step of the tree a change speeds up or slows down.
//!
//! ```text
//! target/release/tsqr_layer_times ROWS COLS ROW_CHUNK ARITY
//! ```
//!
//! With `QR_ONLY=1` in the environment it times q alone, reduced and then
//! gathered into one ndarray (to tell the factorization from the assembly of
//! the result).

use std::collections::BTreeMap;
use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::{Computable, Context, Profiler};
use chunked_linalg::{TsqrOptions, tsqr};

/// Sums the profiled task time per layer.
fn print_layer_times(profiler: &Profiler) {
    let mut per: BTreeMap<String, (usize, f64)> = BTreeMap::new();
    for span in profiler.spans() {
        let e = per.entry(span.layer).or_default();
        e.0 += 1;
        e.1 += span.end - span.start;
    }
    for (layer, (count, secs)) in per {
        println!("  {layer:<16} {count:>5} tasks {secs:>8.3} s");
    }
}

/// Runs `f` with a fresh profiler, then prints its time and the per-layer times.
fn profiled<T>(label: &str, f: impl FnOnce(&Context) -> T) -> T {
    let profiler = Profiler::new();
    let ctx = Context::default().with_profiler(&profiler);
    let t = Instant::now();
    let out = f(&ctx);
    println!("{label}: {:.3} s", t.elapsed().as_secs_f64());
    print_layer_times(&profiler);
    out
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("ROWS COLS ROW_CHUNK ARITY")).collect();
    let (m, n, rb, arity) = (args[0], args[1], args[2], args[3]);
    let a = RandomState::new(0).uniform::<f64>(&[m, n], [rb, n]).unwrap();
    let f = tsqr(&a, &TsqrOptions { arity, compute_svd: true, ..TsqrOptions::default() }).unwrap();
    if std::env::var("QR_ONLY").is_ok() {
        let t = Instant::now();
        let s = f.q.sum(None).unwrap().compute_scalar().unwrap();
        println!("q.sum: {:.3} s ({s})", t.elapsed().as_secs_f64());
        let t = Instant::now();
        let q = f.q.compute().unwrap();
        println!("q: {:.3} s ({} values)", t.elapsed().as_secs_f64(), q.len());
        return;
    }
    let svd = f.svd.as_ref().unwrap();
    let (_u, s, _vt) = profiled(&format!("svd {m}x{n} rows {rb} arity {arity}"), |ctx| {
        (&svd.u, &svd.s, &svd.vt).compute_on(ctx).unwrap()
    });
    println!("  s0 = {}", s[0]);
    profiled("qr", |ctx| (&f.q, &f.r).compute_on(ctx).unwrap());
}
