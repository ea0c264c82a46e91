//! The distributions beyond uniform, normal and integers: goodness of fit of
//! 10^6 draws against independent CDFs and PMFs (statrs, or closed forms and
//! mixtures of statrs' distributions), means and variances against their
//! closed forms, the same numbers for any chunking and scheduler, and bad
//! parameters as errors naming them.

use chunked_array::random::{ElementDraws, RandomState};
use chunked_array::{Array, Context, Error};
use statrs::distribution::{
    Beta, Binomial, Cauchy, ChiSquared, ContinuousCDF, Discrete, Exp, FisherSnedecor, Gamma, Geometric, Laplace,
    LogNormal, NegativeBinomial, Normal, Poisson, StudentsT, Triangular, Weibull,
};

pub(crate) const N: usize = 1_000_000;

/// The Kolmogorov-Smirnov statistic's critical value at level 1e-3 for N draws
/// (1.95 / sqrt(N)).
pub(crate) fn ks_limit() -> f64 {
    1.95 / (N as f64).sqrt()
}

pub(crate) fn sorted(a: Array<f64>) -> Vec<f64> {
    let mut v = a.compute().unwrap().into_raw_vec_and_offset().0;
    assert!(v.iter().all(|x| !x.is_nan()), "no NaN draws");
    v.sort_by(f64::total_cmp);
    v
}

/// The Kolmogorov-Smirnov statistic of sorted draws against `cdf`. The CDF is
/// evaluated exactly at every 50th draw and interpolated linearly in between:
/// between two such draws it rises by about 50/N, far under the test's limit,
/// and the mixtures' CDFs cost too much to evaluate 10^6 times.
pub(crate) fn ks(sorted: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    const STEP: usize = 50;
    let n = sorted.len();
    let knots: Vec<usize> = (0..n).step_by(STEP).chain(std::iter::once(n - 1)).collect();
    let values: Vec<f64> = knots.iter().map(|&i| cdf(sorted[i])).collect();
    let mut d = 0.0f64;
    for w in 0..knots.len() - 1 {
        let (i0, i1) = (knots[w], knots[w + 1]);
        let (x0, x1, f0, f1) = (sorted[i0], sorted[i1], values[w], values[w + 1]);
        for (i, &x) in sorted.iter().enumerate().take(i1 + 1).skip(i0) {
            let f = if x1 > x0 { f0 + (f1 - f0) * (x - x0) / (x1 - x0) } else { f0 };
            d = d.max(((i + 1) as f64 / n as f64 - f).abs()).max((f - i as f64 / n as f64).abs());
        }
    }
    d
}

/// Sample mean within 6 standard errors of `mean`, and the sample variance
/// within 3% of `var` (cases whose tails make the variance's estimate too
/// noisy pass no moments).
fn moments(v: &[f64], mean: f64, var: f64, name: &str) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let s2 = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    assert!((m - mean).abs() < 6.0 * (var / n).sqrt(), "{name}: mean {m} against {mean}");
    assert!((s2 - var).abs() < 0.03 * var, "{name}: variance {s2} against {var}");
}

struct Continuous1 {
    name: &'static str,
    draws: Array<f64>,
    cdf: Box<dyn Fn(f64) -> f64>,
    mean_var: Option<(f64, f64)>,
}

fn case(
    name: &'static str,
    draws: chunked_array::Result<Array<f64>>,
    cdf: impl Fn(f64) -> f64 + 'static,
    mean_var: Option<(f64, f64)>,
) -> Continuous1 {
    Continuous1 { name, draws: draws.unwrap(), cdf: Box::new(cdf), mean_var }
}

fn continuous_cases(rng: &RandomState) -> Vec<Continuous1> {
    let s = &[N][..];
    let c = 200_000;
    let normal = Normal::new(0.0, 1.0).unwrap();
    let (lm, ls) = (0.3f64, 0.6f64);
    vec![
        case(
            "uniform_range",
            rng.uniform_range(-2.0, 3.0, s, c),
            |x| ((x + 2.0) / 5.0).clamp(0.0, 1.0),
            Some((0.5, 25.0 / 12.0)),
        ),
        case(
            "exponential",
            rng.exponential(2.0, s, c),
            {
                let d = Exp::new(0.5).unwrap();
                move |x| d.cdf(x)
            },
            Some((2.0, 4.0)),
        ),
        case(
            "lognormal",
            rng.lognormal(lm, ls, s, c),
            {
                let d = LogNormal::new(lm, ls).unwrap();
                move |x| d.cdf(x)
            },
            Some(((lm + ls * ls / 2.0).exp(), ((ls * ls).exp() - 1.0) * (2.0 * lm + ls * ls).exp())),
        ),
        case(
            "gamma(2.5, 2)",
            rng.gamma(2.5, 2.0, s, c),
            {
                let d = Gamma::new(2.5, 0.5).unwrap();
                move |x| d.cdf(x)
            },
            Some((5.0, 10.0)),
        ),
        case(
            "gamma(0.4)",
            rng.standard_gamma(0.4, s, c),
            {
                let d = Gamma::new(0.4, 1.0).unwrap();
                move |x| d.cdf(x)
            },
            Some((0.4, 0.4)),
        ),
        case(
            "beta(0.5, 0.5)",
            rng.beta(0.5, 0.5, s, c),
            {
                let d = Beta::new(0.5, 0.5).unwrap();
                move |x| d.cdf(x)
            },
            Some((0.5, 0.125)),
        ),
        case(
            "beta(2, 5)",
            rng.beta(2.0, 5.0, s, c),
            {
                let d = Beta::new(2.0, 5.0).unwrap();
                move |x| d.cdf(x)
            },
            Some((2.0 / 7.0, 10.0 / 392.0)),
        ),
        case(
            "chisquare(3)",
            rng.chisquare(3.0, s, c),
            {
                let d = ChiSquared::new(3.0).unwrap();
                move |x| d.cdf(x)
            },
            Some((3.0, 6.0)),
        ),
        case(
            "noncentral_chisquare(3, 2)",
            rng.noncentral_chisquare(3.0, 2.0, s, c),
            move |x| noncentral_chisquare_cdf(3.0, 2.0, x),
            Some((5.0, 14.0)),
        ),
        case(
            "noncentral_chisquare(0.7, 1.5)",
            rng.noncentral_chisquare(0.7, 1.5, s, c),
            move |x| noncentral_chisquare_cdf(0.7, 1.5, x),
            Some((2.2, 7.4)),
        ),
        case(
            "f(5, 10)",
            rng.f(5.0, 10.0, s, c),
            {
                let d = FisherSnedecor::new(5.0, 10.0).unwrap();
                move |x| d.cdf(x)
            },
            Some((1.25, 1.354_166_666_666_666_7)),
        ),
        case(
            "noncentral_f(3, 20, 3)",
            rng.noncentral_f(3.0, 20.0, 3.0, s, c),
            move |x| noncentral_f_cdf(3.0, 20.0, 3.0, x),
            None,
        ),
        case(
            "standard_t(5)",
            rng.standard_t(5.0, s, c),
            {
                let d = StudentsT::new(0.0, 1.0, 5.0).unwrap();
                move |x| d.cdf(x)
            },
            None,
        ),
        case(
            "standard_cauchy",
            rng.standard_cauchy(s, c),
            {
                let d = Cauchy::new(0.0, 1.0).unwrap();
                move |x| d.cdf(x)
            },
            None,
        ),
        case(
            "laplace(1, 2)",
            rng.laplace(1.0, 2.0, s, c),
            {
                let d = Laplace::new(1.0, 2.0).unwrap();
                move |x| d.cdf(x)
            },
            Some((1.0, 8.0)),
        ),
        case(
            "logistic(0.5, 1.5)",
            rng.logistic(0.5, 1.5, s, c),
            |x| 1.0 / (1.0 + (-(x - 0.5) / 1.5).exp()),
            Some((0.5, 1.5f64.powi(2) * std::f64::consts::PI.powi(2) / 3.0)),
        ),
        case(
            "gumbel(0.5, 2)",
            rng.gumbel(0.5, 2.0, s, c),
            |x| (-(-(x - 0.5) / 2.0).exp()).exp(),
            Some((0.5 + 2.0 * 0.577_215_664_901_532_9, std::f64::consts::PI.powi(2) / 6.0 * 4.0)),
        ),
        case(
            "weibull(1.5)",
            rng.weibull(1.5, s, c),
            {
                let d = Weibull::new(1.5, 1.0).unwrap();
                move |x| d.cdf(x)
            },
            None,
        ),
        case("pareto(3)", rng.pareto(3.0, s, c), |x| if x <= 0.0 { 0.0 } else { 1.0 - (1.0 + x).powf(-3.0) }, None),
        case(
            "power(2.5)",
            rng.power(2.5, s, c),
            |x| x.clamp(0.0, 1.0).powf(2.5),
            Some((2.5 / 3.5, 2.5 / (3.5 * 3.5 * 4.5))),
        ),
        case(
            "rayleigh(2)",
            rng.rayleigh(2.0, s, c),
            |x| if x <= 0.0 { 0.0 } else { 1.0 - (-x * x / 8.0).exp() },
            Some((2.0 * (std::f64::consts::PI / 2.0).sqrt(), (4.0 - std::f64::consts::PI) / 2.0 * 4.0)),
        ),
        case("wald(2, 3)", rng.wald(2.0, 3.0, s, c), move |x| wald_cdf(&normal, 2.0, 3.0, x), Some((2.0, 8.0 / 3.0))),
        case("vonmises(0.5, 4)", rng.vonmises(0.5, 4.0, s, c), vonmises_cdf(0.5, 4.0), None),
        case(
            "triangular(-1, 0, 2)",
            rng.triangular(-1.0, 0.0, 2.0, s, c),
            {
                let d = Triangular::new(-1.0, 2.0, 0.0).unwrap();
                move |x| d.cdf(x)
            },
            Some((1.0 / 3.0, (1.0 + 4.0 + 0.0 - (-2.0) - 0.0 - 0.0) / 18.0)),
        ),
    ]
}

/// Noncentral χ²'s CDF as the Poisson(nonc / 2) mixture of χ²(df + 2j).
fn noncentral_chisquare_cdf(df: f64, nonc: f64, x: f64) -> f64 {
    let weights = Poisson::new(nonc / 2.0).unwrap();
    (0..200).map(|j| weights.pmf(j) * ChiSquared::new(df + 2.0 * j as f64).unwrap().cdf(x)).sum()
}

/// Noncentral F's CDF as the Poisson(nonc / 2) mixture of beta CDFs.
fn noncentral_f_cdf(dfn: f64, dfd: f64, nonc: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let weights = Poisson::new(nonc / 2.0).unwrap();
    let y = dfn * x / (dfn * x + dfd);
    (0..200).map(|j| weights.pmf(j) * Beta::new(dfn / 2.0 + j as f64, dfd / 2.0).unwrap().cdf(y)).sum()
}

/// The inverse Gaussian's CDF in closed form.
fn wald_cdf(n: &Normal, mean: f64, scale: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let r = (scale / x).sqrt();
    n.cdf(r * (x / mean - 1.0)) + (2.0 * scale / mean).exp() * n.cdf(-r * (x / mean + 1.0))
}

/// The von Mises CDF on [-π, π] by Simpson's rule on the density, tabulated.
fn vonmises_cdf(mu: f64, kappa: f64) -> impl Fn(f64) -> f64 {
    use std::f64::consts::PI;
    let steps = 20_000;
    let h = 2.0 * PI / steps as f64;
    let density = |x: f64| (kappa * (x - mu).cos()).exp();
    let mut table = vec![0.0; steps + 1];
    for i in 0..steps {
        let a = -PI + i as f64 * h;
        table[i + 1] = table[i] + h / 6.0 * (density(a) + 4.0 * density(a + h / 2.0) + density(a + h));
    }
    let total = table[steps];
    move |x: f64| {
        let t = ((x + PI) / h).clamp(0.0, steps as f64);
        let i = (t as usize).min(steps - 1);
        (table[i] + (t - i as f64) * (table[i + 1] - table[i])) / total
    }
}

#[test]
fn continuous_draws_fit_their_distributions() {
    let rng = RandomState::new(2026);
    let mut failures = Vec::new();
    for c in continuous_cases(&rng) {
        let v = sorted(c.draws);
        let d = ks(&v, &c.cdf);
        if d > ks_limit() {
            failures.push(format!("{}: KS {d:.5} > {:.5}", c.name, ks_limit()));
        }
        if let Some((mean, var)) = c.mean_var {
            moments(&v, mean, var, c.name);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The test above rejects a sampler with slightly wrong parameters: these
/// draws against the neighbouring distributions' CDFs fail it.
#[test]
fn the_fit_tests_reject_a_wrong_sampler() {
    let rng = RandomState::new(7);
    let v = sorted(rng.gamma(2.5, 1.0, &[N], 200_000).unwrap());
    let wrong = Gamma::new(2.55, 1.0).unwrap();
    assert!(ks(&v, |x| wrong.cdf(x)) > ks_limit(), "gamma(2.5) draws pass as gamma(2.55)");
    let right = Gamma::new(2.5, 1.0).unwrap();
    assert!(ks(&v, |x| right.cdf(x)) < ks_limit());
    let k = rng.poisson(3.0, &[N], 200_000).unwrap().compute().unwrap();
    let counts = histogram(k.iter().copied());
    assert!(chi_square_p(&counts, |j| Poisson::new(3.05).unwrap().pmf(j as u64)) < 1e-4, "poisson(3) as poisson(3.05)");
    assert!(chi_square_p(&counts, |j| Poisson::new(3.0).unwrap().pmf(j as u64)) > 1e-4);
}

pub(crate) fn histogram(values: impl Iterator<Item = i64>) -> Vec<u64> {
    let mut counts = vec![0u64; 0];
    for k in values {
        assert!(k >= 0, "negative draw {k}");
        let k = k as usize;
        if k >= counts.len() {
            counts.resize(k + 1, 0);
        }
        counts[k] += 1;
    }
    counts
}

/// Pearson's chi-square test of `counts` (by value) against `pmf`; cells with
/// fewer than 20 expected pooled. The cells go on past the largest draw while
/// the pmf still expects 20 draws there (a sampler shifted below the
/// distribution fails), and the tail beyond them joins the last cell.
/// Returns the p-value.
pub(crate) fn chi_square_p(counts: &[u64], pmf: impl Fn(usize) -> f64) -> f64 {
    let n: u64 = counts.iter().sum();
    let n = n as f64;
    let (mut stat, mut cells) = (0.0, 0usize);
    let (mut obs, mut exp, mut seen) = (0.0, 0.0, 0.0);
    let mut k = 0usize;
    loop {
        let p = pmf(k);
        seen += p;
        obs += counts.get(k).copied().unwrap_or(0) as f64;
        exp += p * n;
        k += 1;
        let last = k >= counts.len() && ((1.0 - seen) * n < 20.0 || k >= 100 * counts.len() + 1_000_000);
        if last {
            exp += (1.0 - seen).max(0.0) * n;
        }
        if exp >= 20.0 || last {
            stat += (obs - exp) * (obs - exp) / exp.max(1e-300);
            cells += 1;
            (obs, exp) = (0.0, 0.0);
        }
        if last {
            break;
        }
    }
    let dof = (cells.max(2) - 1) as f64;
    1.0 - ChiSquared::new(dof).unwrap().cdf(stat)
}

#[test]
fn discrete_draws_fit_their_distributions() {
    let rng = RandomState::new(99);
    let (s, c) = (&[N][..], 250_000);
    let zeta = |a: f64| {
        let k = 100_000f64;
        (1..100_000).map(|j| (j as f64).powf(-a)).sum::<f64>() + k.powf(1.0 - a) / (a - 1.0) + 0.5 * k.powf(-a)
    };
    let z = zeta(2.5);
    type Pmf = Box<dyn Fn(usize) -> f64>;
    type Case = (&'static str, Array<i64>, Pmf, Option<(f64, f64)>);
    let cases: Vec<Case> = vec![
        (
            "poisson(3)",
            rng.poisson(3.0, s, c).unwrap(),
            Box::new(|k| Poisson::new(3.0).unwrap().pmf(k as u64)),
            Some((3.0, 3.0)),
        ),
        (
            "poisson(40)",
            rng.poisson(40.0, s, c).unwrap(),
            Box::new(|k| Poisson::new(40.0).unwrap().pmf(k as u64)),
            Some((40.0, 40.0)),
        ),
        (
            "binomial(20, 0.3)",
            rng.binomial(20, 0.3, s, c).unwrap(),
            Box::new(|k| Binomial::new(0.3, 20).unwrap().pmf(k as u64)),
            Some((6.0, 4.2)),
        ),
        (
            "binomial(50, 0.8)",
            rng.binomial(50, 0.8, s, c).unwrap(),
            Box::new(|k| Binomial::new(0.8, 50).unwrap().pmf(k as u64)),
            Some((40.0, 8.0)),
        ),
        (
            "binomial(1000, 0.4)",
            rng.binomial(1000, 0.4, s, c).unwrap(),
            Box::new(|k| Binomial::new(0.4, 1000).unwrap().pmf(k as u64)),
            Some((400.0, 240.0)),
        ),
        (
            "negative_binomial(5, 0.5)",
            rng.negative_binomial(5.0, 0.5, s, c).unwrap(),
            Box::new(|k| NegativeBinomial::new(5.0, 0.5).unwrap().pmf(k as u64)),
            Some((5.0, 10.0)),
        ),
        (
            "geometric(0.25)",
            rng.geometric(0.25, s, c).unwrap(),
            Box::new(|k| Geometric::new(0.25).unwrap().pmf(k as u64)),
            Some((4.0, 12.0)),
        ),
        (
            "logseries(0.6)",
            rng.logseries(0.6, s, c).unwrap(),
            Box::new(|k| if k == 0 { 0.0 } else { -(0.6f64.powi(k as i32)) / (k as f64 * 0.4f64.ln()) }),
            None,
        ),
        (
            "zipf(2.5)",
            rng.zipf(2.5, s, c).unwrap(),
            Box::new(move |k| if k == 0 { 0.0 } else { (k as f64).powf(-2.5) / z }),
            None,
        ),
    ];
    let mut failures = Vec::new();
    for (name, draws, pmf, mean_var) in cases {
        let v = draws.compute().unwrap();
        // Zipf's tail is long: values past 10^4 go to the last cell.
        let counts = histogram(v.iter().map(|&k| k.min(10_000)));
        let p = chi_square_p(&counts, &pmf);
        if p < 1e-4 {
            failures.push(format!("{name}: chi-square p = {p:.2e}"));
        }
        if let Some((mean, var)) = mean_var {
            let f: Vec<f64> = v.iter().map(|&k| k as f64).collect();
            moments(&f, mean, var, name);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Every distribution's array is the same whatever the chunking and the
/// scheduler, and element i is a function of (seed, stream, i) alone.
#[test]
fn every_distribution_is_chunking_invariant() {
    let rng = RandomState::new(5).with_stream(3);
    let shape = [37, 29];
    let grids: [Vec<Vec<usize>>; 3] =
        [vec![vec![37], vec![29]], vec![vec![5, 11, 21], vec![7, 7, 15]], vec![vec![1; 37], vec![29]]];
    type Make = Box<dyn Fn(&RandomState, Vec<Vec<usize>>) -> Array<f64>>;
    let makers: Vec<(&str, Make)> = vec![
        ("gamma", Box::new(|r, g| r.gamma(0.7, 2.0, &[37, 29], g).unwrap())),
        ("beta", Box::new(|r, g| r.beta(0.3, 0.6, &[37, 29], g).unwrap())),
        ("standard_t", Box::new(|r, g| r.standard_t(3.0, &[37, 29], g).unwrap())),
        ("noncentral_f", Box::new(|r, g| r.noncentral_f(2.0, 4.0, 1.0, &[37, 29], g).unwrap())),
        ("vonmises", Box::new(|r, g| r.vonmises(0.0, 2.0, &[37, 29], g).unwrap())),
        ("wald", Box::new(|r, g| r.wald(1.0, 1.0, &[37, 29], g).unwrap())),
        ("laplace", Box::new(|r, g| r.laplace(0.0, 1.0, &[37, 29], g).unwrap())),
        ("poisson", Box::new(|r, g| r.poisson(25.0, &[37, 29], g).unwrap().astype::<f64>())),
        ("binomial", Box::new(|r, g| r.binomial(500, 0.3, &[37, 29], g).unwrap().astype::<f64>())),
        ("negative_binomial", Box::new(|r, g| r.negative_binomial(2.5, 0.3, &[37, 29], g).unwrap().astype::<f64>())),
        ("zipf", Box::new(|r, g| r.zipf(1.7, &[37, 29], g).unwrap().astype::<f64>())),
        ("logseries", Box::new(|r, g| r.logseries(0.9, &[37, 29], g).unwrap().astype::<f64>())),
    ];
    for (name, make) in makers {
        let want = make(&rng, grids[0].clone()).compute_on(&Context::sync()).unwrap();
        for g in &grids[1..] {
            let got = make(&rng, g.clone()).compute_on(&Context::threads(2)).unwrap();
            let same = want.iter().zip(got.iter()).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{name}: chunks {:?} drew other numbers", g.iter().map(Vec::len).collect::<Vec<_>>());
        }
        assert_eq!(want.shape(), &shape[..]);
    }
    // Element 100 of a uniform_range array, from its own sequence alone.
    let x = rng.uniform_range(1.0, 3.0, &[37, 29], [4, 4]).unwrap().compute().unwrap();
    let mut d = ElementDraws::new(5, 3, 100);
    assert_eq!(x[[100 / 29, 100 % 29]], 1.0 + 2.0 * d.uniform());
}

#[test]
fn bad_parameters_are_errors_naming_them() {
    let rng = RandomState::new(0);
    let s = &[4][..];
    let cases: Vec<(&str, chunked_array::Result<()>)> = vec![
        ("scale", rng.exponential(-1.0, s, 2).map(drop)),
        ("shape", rng.gamma(f64::NAN, 1.0, s, 2).map(drop)),
        ("scale", rng.gamma(1.0, -2.0, s, 2).map(drop)),
        ("a", rng.beta(0.0, 1.0, s, 2).map(drop)),
        ("df", rng.chisquare(-3.0, s, 2).map(drop)),
        ("nonc", rng.noncentral_chisquare(2.0, -0.5, s, 2).map(drop)),
        ("dfden", rng.f(1.0, f64::INFINITY, s, 2).map(drop)),
        ("sigma", rng.lognormal(0.0, -1.0, s, 2).map(drop)),
        ("kappa", rng.vonmises(0.0, -1.0, s, 2).map(drop)),
        ("mean", rng.wald(0.0, 1.0, s, 2).map(drop)),
        ("right", rng.triangular(0.0, 1.0, 0.5, s, 2).map(drop)),
        ("high", rng.uniform_range(1.0, 0.0, s, 2).map(drop)),
        ("lam", rng.poisson(-1.0, s, 2).map(drop)),
        ("n", rng.binomial(-1, 0.5, s, 2).map(drop)),
        ("p", rng.binomial(5, 1.5, s, 2).map(drop)),
        ("p", rng.geometric(0.0, s, 2).map(drop)),
        ("p", rng.logseries(1.0, s, 2).map(drop)),
        ("a", rng.zipf(1.0, s, 2).map(drop)),
        ("p", rng.negative_binomial(1.0, 0.0, s, 2).map(drop)),
    ];
    for (name, r) in cases {
        match r {
            Err(Error::InvalidArgument { name: got, .. }) => assert_eq!(got, name),
            other => panic!("{name}: expected an error naming it, got {other:?}"),
        }
    }
}

/// Degenerate parameters give NumPy's values.
#[test]
fn degenerate_parameters() {
    let rng = RandomState::new(1);
    let zeros = |a: Array<i64>| a.compute().unwrap().iter().all(|&k| k == 0);
    assert!(zeros(rng.poisson(0.0, &[50], 7).unwrap()));
    assert!(zeros(rng.binomial(0, 0.5, &[50], 7).unwrap()));
    assert!(zeros(rng.binomial(10, 0.0, &[50], 7).unwrap()));
    assert!(rng.binomial(10, 1.0, &[50], 7).unwrap().compute().unwrap().iter().all(|&k| k == 10));
    assert!(rng.geometric(1.0, &[50], 7).unwrap().compute().unwrap().iter().all(|&k| k == 1));
    assert!(rng.logseries(0.0, &[50], 7).unwrap().compute().unwrap().iter().all(|&k| k == 1));
    assert!(rng.gamma(0.0, 1.0, &[50], 7).unwrap().compute().unwrap().iter().all(|&x| x == 0.0));
    assert!(rng.exponential(0.0, &[50], 7).unwrap().compute().unwrap().iter().all(|&x| x == 0.0));
    let u = rng.vonmises(1.0, 0.0, &[10_000], 1000).unwrap().compute().unwrap();
    assert!(u.iter().all(|x| x.abs() <= std::f64::consts::PI));
    let tight = rng.vonmises(1.0, 1e7, &[1000], 100).unwrap().compute().unwrap();
    assert!(tight.iter().all(|x| (x - 1.0).abs() < 0.01));
}
