//! Dev aid: times the seed SVD and TSQR with a profile.
use chunked_array::random::RandomState;
use chunked_array::{Context, Profiler};
use chunked_linalg::{tsqr, TsqrOptions};
use std::time::Instant;

fn main() {
    if std::env::var("QR_ONLY").is_ok() {
        let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
        let a = RandomState::new(0).uniform::<f64>(&[args[0], args[1]], [args[2], args[1]]).unwrap();
        let f = tsqr(&a, &TsqrOptions::default()).unwrap();
        let t = Instant::now();
        let s = f.q.sum(None).unwrap().compute_scalar().unwrap();
        println!("q.sum: {:.3} s {s}", t.elapsed().as_secs_f64());
        let t = Instant::now();
        let q = f.q.compute().unwrap();
        println!("q: {:.3} s {}", t.elapsed().as_secs_f64(), q.len());
        let t = Instant::now();
        let q = f.q.compute().unwrap();
        println!("q again: {:.3} s {}", t.elapsed().as_secs_f64(), q.len());
        return;
    }
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (m, n, rb, arity) = (args[0], args[1], args[2], args[3]);
    let a = RandomState::new(0).uniform::<f64>(&[m, n], [rb, n]).unwrap();
    let f = tsqr(&a, &TsqrOptions { arity, compute_svd: true }).unwrap();
    let svd = f.svd.unwrap();
    let prof = Profiler::new();
    let ctx = Context::default().with_profiler(&prof);
    let t = Instant::now();
    let (_u, s, _v) = chunked_array::Computable::compute_with((&svd.u, &svd.s, &svd.vt), &ctx).unwrap();
    println!("svd {m}x{n} rows {rb} arity {arity}: {:.3} s, s0 {}", t.elapsed().as_secs_f64(), s[0]);
    let mut per: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
    for sp in prof.spans() {
        let e = per.entry(sp.layer.clone()).or_default();
        e.0 += 1;
        e.1 += sp.end - sp.start;
    }
    for (k, (c, t)) in per {
        println!("  {k:<16} {c:>5} tasks {t:>8.3} s");
    }
    let prof = Profiler::new();
    let ctx = Context::default().with_profiler(&prof);
    let t = Instant::now();
    let (_q, _r) = chunked_array::Computable::compute_with((&f.q, &f.r), &ctx).unwrap();
    println!("qr: {:.3} s", t.elapsed().as_secs_f64());
    let mut per: std::collections::BTreeMap<String, (usize, f64)> = Default::default();
    for sp in prof.spans() {
        let e = per.entry(sp.layer.clone()).or_default();
        e.0 += 1;
        e.1 += sp.end - sp.start;
    }
    for (k, (c, t)) in per {
        println!("  {k:<16} {c:>5} tasks {t:>8.3} s");
    }
}
