//! Raw Philox fill throughput, single thread (a development aid).
use std::time::Instant;
fn main() {
    let n = 50_000_000usize;
    let mut v = vec![0.0f64; n];
    for _ in 0..3 {
        let t = Instant::now();
        chunked_array::random::fill(1, 0, &chunked_array::random::Distribution::Uniform, 0, &mut v);
        let s = t.elapsed().as_secs_f64();
        println!("uniform f64: {:.1} M/s, {:.2} GB/s", n as f64 / s / 1e6, n as f64 * 8.0 / s / 1e9);
    }
    chunked_array::runtime::tune_allocator();
    let t = Instant::now();
    let mut total = 0.0;
    for _ in 0..4 {
        let b = vec![0.5f64; 1_000_000];
        total += b.iter().sum::<f64>();
    }
    println!("alloc+fill 4x8MB: {:.2} ms ({total})", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let mut n2 = vec![0.0f64; 10_000_000];
    chunked_array::random::fill(1, 0, &chunked_array::random::Distribution::Normal { mean: 0.0, std: 1.0 }, 0, &mut n2);
    println!("normal f64: {:.1} M/s", 1e7 / t.elapsed().as_secs_f64() / 1e6);
}
