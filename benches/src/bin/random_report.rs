//! Random distributions: `--n N` (1e8) draws of each of uniform, normal,
//! exponential, gamma(2.5), Poisson(3), binomial(20, 0.3), hypergeometric, a
//! permutation of `0..N`, N values of multinomial and dirichlet lanes (N / 4
//! lanes of 4), gamma and normal with a parameter per column (arrays of
//! shape and mean, N / 4 rows of 4), binomial and integers with an integer
//! parameter per column (N / 4 rows of 4), u64 integers in the top half of
//! the type, N / 1000 distinct indices of N / 100 by probabilities (choice
//! without replacement), and a shuffle of an N-element array, in 2^24-element
//! blocks, summed (the draws never all in memory), medians of three; with the
//! rate of writing the same bytes (an f64 fill of 1 GB, summed the same way)
//! as the memory-bound reference. `benches/python/compare_random.py` runs dask
//! and numpy on the same draws.
//!
//! `cargo run --release -p chunked-benches --bin random_report [-- --json] [--n N] [--only NAME]`

use chunked_array::random::RandomState;
use chunked_array::{Array, Result};
use chunked_benches::{median, print_rows, secs};

const BLOCK: usize = 1 << 24;
/// The vector distributions' parameters: `n / 4` lanes of four values.
const PVALS: [f64; 4] = [0.1, 0.2, 0.3, 0.4];
const ALPHA: [f64; 4] = [0.5, 1.0, 2.0, 4.0];
/// Array-valued parameters: one per column of `n / 4` rows of four.
const SHAPES: [f64; 4] = [0.5, 1.0, 2.5, 10.0];
const MEANS: [f64; 4] = [-1.0, 0.0, 2.0, 5.0];
/// Integer parameters per column: binomial's trials, integers' bounds.
const TRIALS: [i64; 4] = [5, 20, 100, 1000];
const HIGHS: [i64; 4] = [10, 1000, 1 << 20, 1 << 40];

fn per_int_column(values: [i64; 4]) -> Result<Array<i64>> {
    Array::from_vec(&[4], values.to_vec(), 4)
}

/// `n / 1000` distinct indices of `0..n / 100` by probabilities growing
/// with the index (NumPy's `choice(n / 100, n / 1000, replace=False, p)`).
fn choice_by_p(rng: &RandomState, n: usize) -> Result<Array<i64>> {
    let population = n / 100;
    let total = (population * (population + 1) / 2) as f64;
    let p: Vec<f64> = (1..=population).map(|i| i as f64 / total).collect();
    rng.choice(population, &[n / 1000], false, Some(&p), BLOCK)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json");
    let n: usize =
        args.iter().position(|a| a == "--n").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(100_000_000);
    let rng = RandomState::new(1);
    let per_column = |values: [f64; 4]| Array::from_vec(&[4], values.to_vec(), 4);
    let rows = [n / 4, 4];
    let workloads: Vec<(&str, Array<f64>)> = vec![
        ("uniform", rng.uniform::<f64>(&[n], BLOCK)?),
        ("normal", rng.standard_normal::<f64>(&[n], BLOCK)?),
        ("exponential", rng.exponential(1.0, &[n], BLOCK)?),
        ("gamma(2.5)", rng.gamma(2.5, 1.0, &[n], BLOCK)?),
        ("poisson(3)", rng.poisson(3.0, &[n], BLOCK)?.astype::<f64>()),
        ("binomial(20, 0.3)", rng.binomial(20, 0.3, &[n], BLOCK)?.astype::<f64>()),
        ("permutation", rng.permutation(n, BLOCK)?.astype::<f64>()),
        ("hypergeometric(30, 70, 20)", rng.hypergeometric(30, 70, 20, &[n], BLOCK)?.astype::<f64>()),
        ("multinomial(20, 4 categories)", rng.multinomial(20, &PVALS, &[n / 4], BLOCK / 4)?.astype::<f64>()),
        ("dirichlet(4 concentrations)", rng.dirichlet(&ALPHA, &[n / 4], BLOCK / 4)?),
        ("gamma(shape per column of 4)", rng.gamma(&per_column(SHAPES)?, 1.0, &rows, [BLOCK / 4, 4])?),
        ("normal(mean per column of 4)", rng.normal::<f64>(&per_column(MEANS)?, 1.0, &rows, [BLOCK / 4, 4])?),
        ("integers u64 [2^63, 2^64)", rng.integers_wide::<u64>(1 << 63, 1 << 64, &[n], BLOCK)?.astype::<f64>()),
        (
            "binomial(n per column of 4)",
            rng.binomial(&per_int_column(TRIALS)?, 0.3, &rows, [BLOCK / 4, 4])?.astype::<f64>(),
        ),
        (
            "integers(high per column of 4)",
            rng.integers::<i64>(0, &per_int_column(HIGHS)?, &rows, [BLOCK / 4, 4])?.astype::<f64>(),
        ),
        ("choice(n / 100 by p, n / 1000 distinct)", choice_by_p(&rng, n)?.astype::<f64>()),
        ("shuffle", rng.shuffle(&Array::<f64>::arange(0.0, n as f64, 1.0, BLOCK)?)?),
        ("fill (memory-bound reference)", Array::<f64>::full(&[n], 1.0, BLOCK)?),
    ];
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1));
    let mut rows = Vec::new();
    for (name, x) in workloads.into_iter().filter(|(name, _)| only.is_none_or(|o| o == name)) {
        let total = x.sum(None)?;
        let times: Vec<f64> = (0..3).map(|_| secs(|| total.compute_scalar()).0).collect();
        let t = median(times);
        let note = format!("{:.2} G draws/s, {:.1} GB/s of f64", n as f64 / t / 1e9, 8.0 * n as f64 / t / 1e9);
        rows.push((name.to_string(), t, note));
    }
    print_rows(&rows, json);
    Ok(())
}
