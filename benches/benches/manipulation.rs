//! Criterion benches of the manipulation layer: rechunk (regridded source and
//! moved data), matmul (of matrices and of stacks), einsum, triangles and
//! diagonals, repeat and argwhere. The full-size runs are the binaries
//! `rechunk_regrid_vs_move` and `matmul_against_faer` of this package.

use std::time::Duration;

use chunked_array::Context;
use chunked_array::random::RandomState;
use criterion::{Criterion, criterion_group, criterion_main};

fn rechunk(c: &mut Criterion) {
    let ctx = Context::default();
    let mut g = c.benchmark_group("rechunk");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let x = RandomState::new(0).uniform::<f64>(&[4000, 4000], [4000, 100]).unwrap();
    let regrid = x.rechunk([100, 4000]).unwrap().sum(None).unwrap();
    g.bench_function("random_4000_cols_to_rows_regrid_sum", |b| b.iter(|| regrid.compute_on(&ctx).unwrap()));
    let moved = (&x * 1.0).rechunk([100, 4000]).unwrap().sum(None).unwrap();
    g.bench_function("computed_4000_cols_to_rows_sum", |b| b.iter(|| moved.compute_on(&ctx).unwrap()));
    g.finish();
}

fn matmul(c: &mut Criterion) {
    let ctx = Context::default();
    let mut g = c.benchmark_group("matmul");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let x = RandomState::new(0).uniform::<f64>(&[2000, 2000], [500, 500]).unwrap();
    let p = x.matmul(&x).unwrap().sum(None).unwrap();
    g.bench_function("x_at_x_2000_chunks_500_sum", |b| b.iter(|| p.compute_on(&ctx).unwrap()));
    // A stack of 64 matrices of 300 x 300, 8 to a block, times itself.
    let s = RandomState::new(1).uniform::<f64>(&[64, 300, 300], [8, 300, 300]).unwrap();
    let sp = s.matmul(&s).unwrap().sum(None).unwrap();
    g.bench_function("stack_64x300x300_chunks_8_at_itself_sum", |b| b.iter(|| sp.compute_on(&ctx).unwrap()));
    g.finish();
}

fn arrange(c: &mut Criterion) {
    let ctx = Context::default();
    let mut g = c.benchmark_group("arrange");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let x = RandomState::new(0).uniform::<f64>(&[4000, 4000], [500, 500]).unwrap();
    let tril = x.tril(0).unwrap().sum(None).unwrap();
    g.bench_function("tril_4000_chunks_500_sum", |b| b.iter(|| tril.compute_on(&ctx).unwrap()));
    let diagonal = x.diagonal(1, 0, 1).unwrap().sum(None).unwrap();
    g.bench_function("diagonal_4000_chunks_500_sum", |b| b.iter(|| diagonal.compute_on(&ctx).unwrap()));
    let repeated = x.repeat(3, 1).unwrap().sum(None).unwrap();
    g.bench_function("repeat_3_axis_1_4000_chunks_500_sum", |b| b.iter(|| repeated.compute_on(&ctx).unwrap()));
    let over = x.gt(0.99).unwrap();
    g.bench_function("argwhere_4000_over_0.99", |b| b.iter(|| over.argwhere().unwrap().compute_on(&ctx).unwrap()));
    let tall = RandomState::new(1).uniform::<f64>(&[200_000, 100], [20_000, 100]).unwrap();
    let rowdot = chunked_array::einsum("ij,ij->i", &[&tall, &tall]).unwrap().sum(None).unwrap();
    g.bench_function("einsum_rowdot_200000x100_sum", |b| b.iter(|| rowdot.compute_on(&ctx).unwrap()));
    let bmm = RandomState::new(2).uniform::<f64>(&[64, 200, 200], [8, 200, 200]).unwrap();
    let batched = chunked_array::einsum("bij,bjk->bik", &[&bmm, &bmm]).unwrap().sum(None).unwrap();
    g.bench_function("einsum_batched_64x200x200_sum", |b| b.iter(|| batched.compute_on(&ctx).unwrap()));
    g.finish();
}

criterion_group!(benches, rechunk, matmul, arrange);
criterion_main!(benches);
