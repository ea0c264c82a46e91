//! (x + x.T).mean(0) and the centered square sum, for profiling (a development aid).
use chunked_array::random::RandomState;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(8000);
    let which = std::env::args().nth(2).unwrap_or_default();
    let x = RandomState::new(0).uniform::<f64>(&[n, n], [2000, 2000]).unwrap();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        if which == "c" {
            (&x - &x.mean(0).unwrap()).pow(2.0).unwrap().sum(None).unwrap().compute().unwrap();
        } else {
            (&x + &x.t()).mean(0).unwrap().compute().unwrap();
        }
        println!("{:.3} s", t.elapsed().as_secs_f64());
    }
}
