//! Every kind of random draw over the ranks, bit-identical to one process:
//! the per-element samplers (rejection ones included), array-valued
//! parameters, the vector distributions, the permutation and its gathers,
//! and choice with and without replacement.

use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Element};
use chunked_distributed::Mpi;

use crate::err;

/// `x` computed over every rank (gathered on each) equals `x` in one process.
fn same_over_ranks<T: Element + PartialEq + std::fmt::Debug>(mpi: &Mpi, x: Array<T>, what: &str) -> Result<(), String> {
    crate::same(
        &x.compute_on(&mpi.context_gather_all()).map_err(err)?,
        &x.compute_on(&Context::sync()).map_err(err)?,
        what,
    )
}

pub fn check_distributions(mpi: &Mpi, _: &std::path::Path) -> Result<(), String> {
    let rng = RandomState::new(41).with_stream(3);
    let (shape, chunks) = (&[300, 40][..], [70, 15]);
    let per_column = |v: Vec<f64>| Array::<f64>::from_vec(&[40], v, 15).map_err(err);
    let columns = per_column((0..40).map(|j| 0.5 + j as f64 * 0.25).collect())?;
    let counts = Array::<i64>::from_vec(&[40], (0..40).map(|j| j * 3).collect(), 15).map_err(err)?;
    let continuous: [(&str, Array<f64>); 6] = [
        ("gamma", rng.gamma(2.5, 2.0, shape, chunks).map_err(err)?),
        ("gamma, a shape per column", rng.gamma(&columns, 1.0, shape, chunks).map_err(err)?),
        ("beta", rng.beta(0.3, 0.7, shape, chunks).map_err(err)?),
        ("noncentral_f", rng.noncentral_f(3.0, 7.0, 1.5, shape, chunks).map_err(err)?),
        ("vonmises", rng.vonmises(1.0, 4.0, shape, chunks).map_err(err)?),
        ("normal, a mean per column", rng.normal::<f64>(&columns, 2.0, shape, chunks).map_err(err)?),
    ];
    for (what, x) in continuous {
        same_over_ranks(mpi, x, what)?;
    }
    let discrete: [(&str, Array<i64>); 6] = [
        ("poisson", rng.poisson(&columns, shape, chunks).map_err(err)?),
        ("binomial, n per column", rng.binomial(&counts, 0.3, shape, chunks).map_err(err)?),
        ("hypergeometric", rng.hypergeometric(30, 70, 20, shape, chunks).map_err(err)?),
        ("zipf", rng.zipf(2.0, shape, chunks).map_err(err)?),
        ("integers, a bound per column", rng.integers::<i64>(-5, &counts + 1, shape, chunks).map_err(err)?),
        ("multinomial", rng.multinomial(20, &[0.1, 0.2, 0.7], &[900], 200).map_err(err)?),
    ];
    for (what, x) in discrete {
        same_over_ranks(mpi, x, what)?;
    }
    same_over_ranks(mpi, rng.dirichlet(&[0.5, 1.0, 3.0], &[500], 120).map_err(err)?, "dirichlet")?;
    same_over_ranks(mpi, rng.permutation(10_007, 1000).map_err(err)?, "permutation")?;
    let x = Array::<f64>::arange(0.0, 5000.0, 1.0, 700).map_err(err)?;
    same_over_ranks(mpi, rng.shuffle(&x).map_err(err)?, "shuffle")?;
    let p: Vec<f64> = (1..=100).map(|i| i as f64 / 5050.0).collect();
    same_over_ranks(mpi, rng.choice(100, &[500], true, Some(&p), 90).map_err(err)?, "choice by p")?;
    same_over_ranks(mpi, rng.choice(100, &[60], false, Some(&p), 25).map_err(err)?, "choice by p, distinct")
}
