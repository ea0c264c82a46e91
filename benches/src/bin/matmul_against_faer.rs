//! Random n x n f64 in 2000-blocks, x @ x then sum, against one in-core faer
//! matmul of the same size on all cores (a development aid).
use chunked_array::random::RandomState;
use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let flops = 2.0 * (n as f64).powi(3);
    let x = RandomState::new(0).uniform::<f64>(&[n, n], [2000, 2000]).unwrap();
    let s = x.matmul(&x).unwrap().sum(None).unwrap();
    let t = Instant::now();
    let total = s.compute_scalar().unwrap();
    let ours = t.elapsed().as_secs_f64();
    println!("chunked x @ x then sum: {ours:.3} s, {:.1} GFLOP/s (sum {total:.4e})", flops / ours / 1e9);
    let a = x.compute().unwrap();
    let am = Mat::<f64>::from_fn(n, n, |i, j| a[[i, j]]);
    let mut c = Mat::<f64>::zeros(n, n);
    let threads = std::thread::available_parallelism().map(|v| v.get()).unwrap_or(1);
    let t = Instant::now();
    matmul(c.as_mut(), Accum::Replace, am.as_ref(), am.as_ref(), 1.0, Par::rayon(threads));
    let faer_s = t.elapsed().as_secs_f64();
    println!(
        "in-core faer matmul: {faer_s:.3} s, {:.1} GFLOP/s; chunked reaches {:.0}% of its rate",
        flops / faer_s / 1e9,
        100.0 * faer_s / ours
    );
}
