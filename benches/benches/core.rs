//! Criterion benches of the core: per-task overhead, random generation + sum, and
//! elementwise + reduction over a large random matrix.

use std::time::Duration;

use chunked_array::random::RandomState;
use chunked_array::{Array, Context};
use criterion::{Criterion, criterion_group, criterion_main};

fn overhead(c: &mut Criterion) {
    let ctx = Context::default();
    let mut g = c.benchmark_group("overhead");
    for chunk in [100usize, 10] {
        let s = Array::<f64>::ones(&[1_000_000], chunk).unwrap().sum(None).unwrap();
        g.bench_function(format!("ones_1e6_chunks_{chunk}_sum"), |b| b.iter(|| s.compute_on(&ctx).unwrap()));
    }
    g.finish();
}

fn random_sum(c: &mut Criterion) {
    let ctx = Context::default();
    let mut g = c.benchmark_group("random");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let s = RandomState::new(0).uniform::<f64>(&[100_000, 1000], [1000, 1000]).unwrap().sum(None).unwrap();
    g.bench_function("uniform_100000x1000_sum", |b| b.iter(|| s.compute_on(&ctx).unwrap()));
    g.finish();
}

fn elementwise_reduce(c: &mut Criterion) {
    let ctx = Context::default();
    let mut g = c.benchmark_group("elementwise");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let x = RandomState::new(0).uniform::<f64>(&[20_000, 20_000], [2000, 2000]).unwrap();
    let a = (&x + &x.t()).mean(0).unwrap();
    g.bench_function("x_plus_xT_mean0_20000", |b| b.iter(|| a.compute_on(&ctx).unwrap()));
    let v = (&x - &x.mean(0).unwrap()).pow(2.0).unwrap().sum(None).unwrap();
    g.bench_function("centered_square_sum_20000", |b| b.iter(|| v.compute_on(&ctx).unwrap()));
    g.finish();
}

criterion_group!(benches, overhead, random_sum, elementwise_reduce);
criterion_main!(benches);
