//! The samplers: one element's number from its own draws ([`ElementDraws`]).
//! Each follows NumPy's `Generator` algorithm where NumPy's is exact (gamma by
//! Marsaglia-Tsang, beta by Johnk or a gamma ratio, Poisson by Hörmann's PTRS
//! from a mean of 10, von Mises by Best-Fisher, logseries by Kemp, zipf by
//! rejection); Poisson below 10 and binomial while n·min(p, 1-p) ≤ 30 invert
//! a tabulated CDF (a Poisson mean that changes per element: multiplication),
//! and binomial above uses Hörmann's BTRS (NumPy: BTPE).
//! The words differ from NumPy's (each element has its own counter sequence),
//! so the numbers do too; the distributions are the same.

use std::f64::consts::PI;

use crate::ops::random::element_draws::ElementDraws;

/// `ln Γ(x)` for `x > 0` (NumPy's `random_loggam`: Stirling's series from 7
/// up, the recurrence below).
pub(crate) fn ln_gamma(x: f64) -> f64 {
    const A: [f64; 10] = [
        8.333333333333333e-02,
        -2.777777777777778e-03,
        7.936507936507937e-04,
        -5.952380952380952e-04,
        8.417508417508418e-04,
        -1.917526917526918e-03,
        6.41025641025641e-03,
        -2.955065359477124e-02,
        1.796443723688307e-01,
        -1.39243221690590e+00,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = (1.0 / x0) * (1.0 / x0);
    let series = A[..9].iter().rev().fold(A[9], |acc, &a| acc * x2 + a);
    let mut lg = series / x0 + 0.5 * 1.837_877_066_409_345_3 + (x0 - 0.5) * x0.ln() - x0;
    for _ in 0..n {
        x0 -= 1.0;
        lg -= x0.ln();
    }
    lg
}

/// Γ(shape, 1) for a shape that changes per element.
pub(crate) fn standard_gamma(d: &mut ElementDraws, shape: f64) -> f64 {
    Gamma::new(shape).sample(d)
}

/// Γ(shape, 1): Marsaglia-Tsang from shape 1, NumPy's rejection below 1;
/// the constants computed once.
#[derive(Clone, Copy)]
pub(crate) struct Gamma {
    shape: f64,
    /// Marsaglia-Tsang's `shape - 1/3` and `1 / sqrt(9 b)`.
    b: f64,
    c: f64,
}

impl Gamma {
    pub(crate) fn new(shape: f64) -> Gamma {
        let b = shape - 1.0 / 3.0;
        Gamma { shape, b, c: 1.0 / (9.0 * b).sqrt() }
    }

    pub(crate) fn sample(&self, d: &mut ElementDraws) -> f64 {
        let Gamma { shape, b, c } = *self;
        if shape == 1.0 {
            return d.exponential();
        }
        if shape == 0.0 {
            return 0.0;
        }
        if shape < 1.0 {
            return small_shape(d, shape);
        }
        loop {
            let (x, v) = loop {
                let x = d.normal();
                let v = 1.0 + c * x;
                if v > 0.0 {
                    break (x, v * v * v);
                }
            };
            let u = d.uniform();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) || u.ln() < 0.5 * x * x + b * (1.0 - v + v.ln()) {
                return b * v;
            }
        }
    }
}

/// Γ(shape, 1) for shape in (0, 1) (NumPy's rejection from a Weibull-like
/// envelope).
fn small_shape(d: &mut ElementDraws, shape: f64) -> f64 {
    loop {
        let (u, v) = (d.uniform(), d.exponential());
        if u <= 1.0 - shape {
            let x = u.powf(1.0 / shape);
            if x <= v {
                return x;
            }
        } else {
            let y = -((1.0 - u) / shape).ln();
            let x = (1.0 - shape + shape * y).powf(1.0 / shape);
            if x <= v + y {
                return x;
            }
        }
    }
}

/// Beta(a, b): Johnk's algorithm when both are at most 1, else a gamma ratio
/// (of `ga` and `gb`, Γ(a) and Γ(b)).
pub(crate) fn beta(d: &mut ElementDraws, a: f64, b: f64, ga: &Gamma, gb: &Gamma) -> f64 {
    beta_and_complement(d, a, b, ga, gb).0
}

/// A Beta(a, b) draw `v` and `1 - v`, each a ratio of its own part to the
/// sum, so that neither loses digits to a cancellation (a `v` within 1e-16 of
/// 1 rounds to 1.0; its complement keeps its value).
pub(crate) fn beta_and_complement(d: &mut ElementDraws, a: f64, b: f64, ga: &Gamma, gb: &Gamma) -> (f64, f64) {
    if a <= 1.0 && b <= 1.0 {
        loop {
            let (u, v) = (d.uniform(), d.uniform());
            let (x, y) = (u.powf(1.0 / a), v.powf(1.0 / b));
            if x + y <= 1.0 && u + v > 0.0 {
                if x + y > 0.0 {
                    return (x / (x + y), y / (x + y));
                }
                // Both underflowed: the ratio in logarithms.
                let (lx, ly) = (u.ln() / a, v.ln() / b);
                let m = lx.max(ly);
                let (lx, ly) = (lx - m, ly - m);
                let log_sum = (lx.exp() + ly.exp()).ln();
                return ((lx - log_sum).exp(), (ly - log_sum).exp());
            }
        }
    }
    let (x, y) = (ga.sample(d), gb.sample(d));
    (x / (x + y), y / (x + y))
}

/// χ²(df) for a df that changes per element; [`Gamma`] of df / 2, doubled,
/// for a whole array.
pub(crate) fn chisquare(d: &mut ElementDraws, df: f64) -> f64 {
    2.0 * standard_gamma(d, df / 2.0)
}

/// Noncentral χ²(df, nonc) (NumPy's: a normal shifted by √nonc added to a
/// χ²(df - 1), or a Poisson mixture of χ² when df ≤ 1).
pub(crate) fn noncentral_chisquare(d: &mut ElementDraws, df: f64, nonc: f64) -> f64 {
    if nonc == 0.0 {
        return chisquare(d, df);
    }
    if df > 1.0 {
        let chi2 = chisquare(d, df - 1.0);
        let n = d.normal() + nonc.sqrt();
        return chi2 + n * n;
    }
    let i = poisson(d, nonc / 2.0);
    chisquare(d, df + 2.0 * i as f64)
}

/// A discrete distribution on 0..=K by inversion of its tabulated CDF: one
/// uniform and a binary search. The mass beyond K (under 1e-17 where it is
/// used) goes to K.
#[derive(Clone)]
pub(crate) struct CdfTable {
    cdf: Vec<f64>,
}

impl CdfTable {
    /// The table of the PMF `p(0), p(1), ...` given by `p(0)` and the ratio
    /// `p(k) / p(k - 1)`, up to `last`.
    fn new(p0: f64, ratio: impl Fn(f64) -> f64, last: usize) -> CdfTable {
        let (mut p, mut total) = (p0, p0);
        let mut cdf = vec![p0];
        for k in 1..=last {
            p *= ratio(k as f64);
            total += p;
            cdf.push(total);
        }
        *cdf.last_mut().expect("one entry at least") = 1.0;
        CdfTable { cdf }
    }

    #[inline(always)]
    pub(crate) fn sample(&self, d: &mut ElementDraws) -> i64 {
        let u = d.uniform();
        self.cdf.partition_point(|&c| c <= u) as i64
    }
}

/// Poisson(lam) for a `lam` that changes per element: multiplication below
/// 10, PTRS from 10 (the constants computed each time).
pub(crate) fn poisson(d: &mut ElementDraws, lam: f64) -> i64 {
    Poisson::ptrs_or_product(lam).sample(d)
}

/// Poisson(lam) for a whole array: the tabulated CDF below 10 (to k = 60,
/// where the mass left is under 1e-25), Hörmann's PTRS from 10, its
/// constants computed once.
pub(crate) fn poisson_sampler(lam: f64) -> impl Fn(&mut ElementDraws) -> i64 + Send + Sync + 'static {
    let table = (lam > 0.0 && lam < 10.0).then(|| CdfTable::new((-lam).exp(), |k| lam / k, 60));
    let ptrs = Poisson::ptrs_or_product(lam);
    move |d| match &table {
        Some(t) => t.sample(d),
        None => ptrs.sample(d),
    }
}

/// Poisson(lam) by multiplication below 10, Hörmann's PTRS from 10.
#[derive(Clone, Copy)]
pub(crate) struct Poisson {
    lam: f64,
    /// `exp(-lam)`, where the multiplication stops.
    limit: f64,
    /// PTRS's constants: `ln lam`, b, a, `ln(1/alpha)`, vr.
    loglam: f64,
    b: f64,
    a: f64,
    ln_inv_alpha: f64,
    vr: f64,
}

impl Poisson {
    fn ptrs_or_product(lam: f64) -> Poisson {
        let b = 0.931 + 2.53 * lam.sqrt();
        Poisson {
            lam,
            limit: (-lam).exp(),
            loglam: lam.ln(),
            b,
            a: -0.059 + 0.02483 * b,
            ln_inv_alpha: (1.1239 + 1.1328 / (b - 3.4)).ln(),
            vr: 0.9277 - 3.6224 / (b - 2.0),
        }
    }

    pub(crate) fn sample(&self, d: &mut ElementDraws) -> i64 {
        let Poisson { lam, limit, loglam, b, a, ln_inv_alpha, vr } = *self;
        if lam == 0.0 {
            return 0;
        }
        if lam < 10.0 {
            let (mut k, mut product) = (0, 1.0);
            loop {
                product *= d.uniform();
                if product <= limit {
                    return k;
                }
                k += 1;
            }
        }
        loop {
            let u = d.uniform() - 0.5;
            let v = d.uniform();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
            if us >= 0.07 && v <= vr {
                return k as i64;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            if v.ln() + ln_inv_alpha - (a / (us * us) + b).ln() <= -lam + k * loglam - ln_gamma(k + 1.0) {
                return k as i64;
            }
        }
    }
}

/// Binomial(n, p): inversion of the tabulated CDF while n·min(p, 1-p) ≤ 30,
/// Hörmann's BTRS above; the table or constants computed once per array.
#[derive(Clone)]
pub(crate) struct Binomial {
    n: i64,
    /// min(p, 1 - p), and whether p was the larger (the count is then n - k).
    p: f64,
    flipped: bool,
    method: BinomialMethod,
}

#[derive(Clone)]
enum BinomialMethod {
    /// The CDF to `np + 10 sqrt(npq + 1)` (NumPy's bound for its search).
    Inversion(CdfTable),
    /// BTRS's constants.
    Btrs { b: f64, a: f64, c: f64, vr: f64, alpha: f64, lpq: f64, m: f64, h: f64 },
}

impl Binomial {
    pub(crate) fn new(n: i64, p: f64) -> Binomial {
        let (p, flipped) = if p > 0.5 { (1.0 - p, true) } else { (p, false) };
        let (nf, q) = (n as f64, 1.0 - p);
        let method = if nf * p <= 30.0 {
            let bound = nf.min(nf * p + 10.0 * (nf * p * q + 1.0).sqrt());
            BinomialMethod::Inversion(CdfTable::new(
                (nf * q.ln()).exp(),
                |k| (nf - k + 1.0) * p / (k * q),
                bound as usize,
            ))
        } else {
            let spq = (nf * p * q).sqrt();
            let b = 1.15 + 2.53 * spq;
            let m = ((nf + 1.0) * p).floor();
            BinomialMethod::Btrs {
                b,
                a: -0.0873 + 0.0248 * b + 0.01 * p,
                c: nf * p + 0.5,
                vr: 0.92 - 4.2 / b,
                alpha: (2.83 + 5.1 / b) * spq,
                lpq: (p / q).ln(),
                m,
                h: ln_gamma(m + 1.0) + ln_gamma(nf - m + 1.0),
            }
        };
        Binomial { n, p, flipped, method }
    }

    pub(crate) fn sample(&self, d: &mut ElementDraws) -> i64 {
        if self.n == 0 || self.p == 0.0 {
            return if self.flipped { self.n } else { 0 };
        }
        let k = match &self.method {
            BinomialMethod::Inversion(table) => table.sample(d),
            &BinomialMethod::Btrs { b, a, c, vr, alpha, lpq, m, h } => {
                let nf = self.n as f64;
                loop {
                    let u = d.uniform() - 0.5;
                    let v = d.uniform();
                    let us = 0.5 - u.abs();
                    let k = ((2.0 * a / us + b) * u + c).floor();
                    if k < 0.0 || k > nf {
                        continue;
                    }
                    if us >= 0.07 && v <= vr {
                        break k as i64;
                    }
                    let v = (v * alpha / (a / (us * us) + b)).ln();
                    if v <= h - ln_gamma(k + 1.0) - ln_gamma(nf - k + 1.0) + (k - m) * lpq {
                        break k as i64;
                    }
                }
            }
        };
        if self.flipped { self.n - k } else { k }
    }
}

/// Geometric(p) on 1, 2, ...: inversion, `ceil(ln u / ln(1 - p))`.
pub(crate) fn geometric(d: &mut ElementDraws, p: f64) -> i64 {
    if p == 1.0 {
        return 1;
    }
    let k = (d.uniform_nonzero().ln() / (-p).ln_1p()).ceil();
    if k >= i64::MAX as f64 { i64::MAX } else { (k as i64).max(1) }
}

/// Logarithmic series(p) on 1, 2, ... (Kemp's second algorithm).
pub(crate) fn logseries(d: &mut ElementDraws, p: f64) -> i64 {
    let r = (-p).ln_1p();
    loop {
        let v = d.uniform();
        if v >= p {
            return 1;
        }
        let u = d.uniform();
        let q = -(r * u).exp_m1();
        if v <= q * q {
            let k = (1.0 + v.ln() / q.ln()).floor();
            if k < 1.0 || v == 0.0 {
                continue;
            }
            return if k >= i64::MAX as f64 { i64::MAX } else { k as i64 };
        }
        return if v >= q { 1 } else { 2 };
    }
}

/// Zipf(a) on 1, 2, ... for a > 1 (rejection from a Pareto envelope).
pub(crate) fn zipf(d: &mut ElementDraws, a: f64) -> i64 {
    let am1 = a - 1.0;
    let b = 2f64.powf(am1);
    loop {
        let u = d.uniform_nonzero();
        let v = d.uniform();
        let x = u.powf(-1.0 / am1).floor();
        if !(1.0..i64::MAX as f64).contains(&x) {
            continue;
        }
        let t = (1.0 + 1.0 / x).powf(am1);
        if v * x * (t - 1.0) / (b - 1.0) <= t / b {
            return x as i64;
        }
    }
}

/// Von Mises(mu, kappa) on [-π, π] (Best and Fisher's rejection).
pub(crate) fn vonmises(d: &mut ElementDraws, mu: f64, kappa: f64) -> f64 {
    if kappa < 1e-8 {
        return PI * (2.0 * d.uniform() - 1.0);
    }
    if kappa > 1e6 {
        // A wrapped normal: the two agree to double precision here.
        let x = mu + (1.0 / kappa).sqrt() * d.normal();
        return wrap(x);
    }
    let s = if kappa < 1e-5 {
        1.0 / kappa + kappa
    } else {
        let r = 1.0 + (1.0 + 4.0 * kappa * kappa).sqrt();
        let rho = (r - (2.0 * r).sqrt()) / (2.0 * kappa);
        (1.0 + rho * rho) / (2.0 * rho)
    };
    let w = loop {
        let z = (PI * d.uniform()).cos();
        let w = (1.0 + s * z) / (s + z);
        let y = kappa * (s - w);
        let v = d.uniform();
        if y * (2.0 - y) - v >= 0.0 || (y / v).ln() + 1.0 - y >= 0.0 {
            break w;
        }
    };
    let angle = if d.uniform() < 0.5 { -w.clamp(-1.0, 1.0).acos() } else { w.clamp(-1.0, 1.0).acos() };
    wrap(angle + mu)
}

/// `x` moved into [-π, π] by whole turns.
fn wrap(x: f64) -> f64 {
    let m = (x.abs() + PI) % (2.0 * PI) - PI;
    if x < 0.0 { -m } else { m }
}

/// Wald (inverse Gaussian) with the given mean and scale (Michael, Schucany
/// and Haas's transformation).
pub(crate) fn wald(d: &mut ElementDraws, mean: f64, scale: f64) -> f64 {
    let y = d.normal();
    let y = mean * y * y;
    let x = mean + mean / (2.0 * scale) * (y - (4.0 * scale * y + y * y).sqrt());
    if d.uniform() <= mean / (mean + x) { x } else { mean * mean / x }
}

/// Triangular(left, mode, right) by inversion.
pub(crate) fn triangular(d: &mut ElementDraws, left: f64, mode: f64, right: f64) -> f64 {
    let (base, left_base) = (right - left, mode - left);
    let ratio = left_base / base;
    let u = d.uniform();
    if u <= ratio { left + (u * left_base * base).sqrt() } else { right - ((1.0 - u) * (right - mode) * base).sqrt() }
}
