//! Seed 001's `dask.delayed` cells: one least-squares fit `y ~ x_i + x_j + 1`
//! for every pair of 50 random features (1225 fits) as delayed tasks over
//! data computed once and shared, the scores gathered, the best pair printed
//! with the time.
//!
//! ```text
//! dask:    df = DataFrame({f"x{i}": randn(nrows) for i in range(50)}); df["y"] = randn(nrows)
//!          data_future = client.scatter(df, broadcast=True)
//!          results = [fit_ols(data_future, pair) for pair in combinations(features, 2)]
//!          res = dask.compute(results)
//! chunked: data = standard_normal([51, rows]).persist()   (one block per column)
//!          fits = [fan_in("fit_ols", [col_i, col_j, col_y], fit) for each pair]
//!          compute(fan_in("gather", fits))
//! ```
//!
//! Options: `--rows N` (1000000) `--features N` (50) `--seed S` (12)
//! `--scheduler threads|sync|mpi` `--threads N` (0: every core). Under MPI
//! (`mpirun -np 4 target/release/pair_regressions --scheduler mpi`, built with
//! `--features mpi`) each rank keeps its share of the columns, runs the fits
//! placed on it, and sends its scores (a few bytes each) to rank 0, which
//! prints; the best pair is the same for any scheduler and number of ranks.

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::delayed::{Delayed, Encode, fan_in, try_fan_in};
use chunked_array::random::RandomState;
use chunked_array::{Computable, ndarray::ArrayD};
use chunked_examples::{DashboardFlags, JobResult, SchedulerChoice, main_with, solve3};

struct Options {
    rows: usize,
    features: usize,
    seed: u64,
    scheduler: SchedulerChoice,
    threads: usize,
    dashboard: DashboardFlags,
}

const USAGE: &str = "usage: pair_regressions [--rows N] [--features N] [--seed S] [--scheduler threads|sync|mpi] \
                     [--threads N] [--dashboard ADDR] [--dashboard-linger SECONDS]";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        rows: 1_000_000,
        features: 50,
        seed: 12,
        scheduler: SchedulerChoice::Threads,
        threads: 0,
        dashboard: DashboardFlags::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.into());
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let num = || value.parse::<usize>().map_err(|e| format!("{flag} {value}: {e}"));
        match flag.as_str() {
            _ if o.dashboard.take(&flag, &value)? => {}
            "--rows" => o.rows = num()?,
            "--features" => o.features = num()?,
            "--seed" => o.seed = value.parse().map_err(|e| format!("--seed {value}: {e}"))?,
            "--scheduler" => o.scheduler = SchedulerChoice::parse(&value)?,
            "--threads" => o.threads = num()?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if o.features < 2 || o.rows < 4 {
        return Err(format!("--features {} --rows {}: a fit needs 2 features and 4 rows", o.features, o.rows));
    }
    Ok(o)
}

/// One fitted model: the pair, `[coef_i, coef_j, intercept]` and R².
#[derive(Clone, Debug)]
struct Fit {
    pair: (usize, usize),
    coef: [f64; 3],
    r2: f64,
}

/// Scores travel between MPI ranks as bytes.
impl Encode for Fit {
    fn encode(&self, out: &mut Vec<u8>) {
        self.pair.encode(out);
        self.coef.to_vec().encode(out);
        self.r2.encode(out);
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        let pair = <(usize, usize)>::decode(bytes)?;
        let coef = Vec::<f64>::decode(bytes)?.try_into().ok()?;
        Some(Fit { pair, coef, r2: f64::decode(bytes)? })
    }
}

fn main() -> ExitCode {
    main_with(parse, run)
}

fn run(o: &Options) -> JobResult {
    let (ctx, root, _mpi) = o.scheduler.context(o.threads)?;
    let ctx = o.dashboard.attach(ctx)?;
    let f = o.features;
    let start = Instant::now();
    // In [24]: the frame, one column per block (feature-major: column k is row
    // k of the array), computed once and kept: In [28]'s `client.scatter`.
    let data = RandomState::new(o.seed).standard_normal::<f64>(&[f + 1, o.rows], [1, o.rows])?.persist_on(&ctx)?;
    let made = start.elapsed().as_secs_f64();
    let columns = data.to_delayed();

    // In [25]-[29]: a delayed fit per pair, reading three shared columns.
    let fits: Vec<Delayed<Fit>> = (0..f)
        .flat_map(|i| (i + 1..f).map(move |j| (i, j)))
        .map(|(i, j)| {
            let inputs = [columns[i].clone(), columns[j].clone(), columns[f].clone()];
            try_fan_in("fit_ols", &inputs, move |c| fit_ols((i, j), c[0], c[1], c[2])).encoded()
        })
        .collect();
    let gather = fan_in("gather", &fits, |fs| fs.iter().map(|&fit| fit.clone()).collect::<Vec<Fit>>()).encoded();
    let fit_start = Instant::now();
    let Some((fits,)) = (&gather,).compute_root(&ctx)? else {
        return Ok(()); // another MPI rank: its share is done
    };
    let secs = fit_start.elapsed().as_secs_f64();
    if !root {
        return Ok(());
    }
    report(o, &ctx, &fits, made, secs)?;
    o.dashboard.linger(&ctx);
    Ok(())
}

/// Prints the notebook's first rows, the best pair and the times.
fn report(o: &Options, ctx: &chunked_array::Context, fits: &[Fit], made: f64, secs: f64) -> JobResult {
    let on = match ctx.scheduler().processes() {
        1 => ctx.scheduler().name().to_string(),
        n => format!("{} ({n} ranks)", ctx.scheduler().name()),
    };
    println!("{} rows, {} features and y; {} fits as delayed tasks on {on}", o.rows, o.features, fits.len());
    println!("Features\tCoefficients\t\t\tIntercept");
    for fit in fits.iter().take(5) {
        let (i, j) = fit.pair;
        println!("(x{i}, x{j})\t[{:+.8e} {:+.8e}]\t{:+.8e}", fit.coef[0], fit.coef[1], fit.coef[2]);
    }
    let best = fits.iter().max_by(|a, b| a.r2.total_cmp(&b.r2)).ok_or("no fits")?;
    println!("best pair: (x{}, x{}) R^2 = {:.15e}", best.pair.0, best.pair.1, best.r2);
    let per_fit = 1e3 * secs / fits.len() as f64;
    println!("time: data {made:.3} s, fits {secs:.3} s ({per_fit:.3} ms per fit)");
    Ok(())
}

/// Least squares of `y ~ x_i + x_j + 1` by the normal equations: one pass
/// over the three columns for the nine sums, then a 3 x 3 solve.
fn fit_ols(pair: (usize, usize), xi: &ArrayD<f64>, xj: &ArrayD<f64>, y: &ArrayD<f64>) -> Result<Fit, String> {
    let (xi, xj, y) = (as_slice(xi)?, as_slice(xj)?, as_slice(y)?);
    let s = moments(xi, xj, y);
    let n = y.len() as f64;
    let [si, sj, sy, sii, sjj, sij, siy, sjy, syy] = s;
    let a = [[sii, sij, si], [sij, sjj, sj], [si, sj, n]];
    let b = [siy, sjy, sy];
    let coef = solve3(a, b).ok_or_else(|| format!("the design matrix of (x{}, x{}) is singular", pair.0, pair.1))?;
    // RSS = y'y - coef'X'y at the least-squares solution; TSS about the mean.
    let rss = syy - (coef[0] * siy + coef[1] * sjy + coef[2] * sy);
    let tss = syy - sy * sy / n;
    Ok(Fit { pair, coef, r2: 1.0 - rss / tss })
}

fn as_slice(column: &ArrayD<f64>) -> Result<&[f64], String> {
    column.as_slice().ok_or_else(|| "a column block is not contiguous".to_string())
}

/// Σxi, Σxj, Σy, Σxi², Σxj², Σxi·xj, Σxi·y, Σxj·y, Σy², accumulated in four
/// lanes so that the loop vectorizes (and sums the same way on every run).
fn moments(xi: &[f64], xj: &[f64], y: &[f64]) -> [f64; 9] {
    const L: usize = 4;
    let mut acc = [[0.0f64; L]; 9];
    let whole = y.len() / L * L;
    for ((a, b), c) in xi[..whole].chunks_exact(L).zip(xj[..whole].chunks_exact(L)).zip(y[..whole].chunks_exact(L)) {
        for l in 0..L {
            let (p, q, r) = (a[l], b[l], c[l]);
            let terms = [p, q, r, p * p, q * q, p * q, p * r, q * r, r * r];
            for (s, t) in acc.iter_mut().zip(terms) {
                s[l] += t;
            }
        }
    }
    let mut out = acc.map(|lanes| lanes.iter().sum::<f64>());
    for k in whole..y.len() {
        let (p, q, r) = (xi[k], xj[k], y[k]);
        for (s, t) in out.iter_mut().zip([p, q, r, p * p, q * q, p * q, p * r, q * r, r * r]) {
            *s += t;
        }
    }
    out
}
