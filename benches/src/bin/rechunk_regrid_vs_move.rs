//! Random 20000x20000 f64 from chunks (20000, 100) to (100, 20000), then sum:
//! `regrid` (the random source rebuilt on the new grid) or `moved` (the data of a
//! computed layer moved between grids). A development aid.
use chunked_array::random::RandomState;
fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "regrid".into());
    let n: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let x = RandomState::new(0).uniform::<f64>(&[n, n], [n, 100]).unwrap();
    let x = if mode == "moved" { &x * 1.0 } else { x };
    let y = x.rechunk([100, n as i32]).unwrap().sum(None).unwrap();
    let t = std::time::Instant::now();
    let s = y.compute_scalar().unwrap();
    println!("{mode}: {:.3} s (sum {s:.1}, {} tasks)", t.elapsed().as_secs_f64(), y.num_tasks());
}
