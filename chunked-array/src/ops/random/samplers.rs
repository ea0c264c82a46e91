//! The samplers: one element's number from its own draws ([`ElementDraws`]).
//! Each follows NumPy's `Generator` algorithm where NumPy's is exact (gamma by
//! Marsaglia-Tsang, beta by Johnk or a gamma ratio, Poisson by multiplication
//! or Hörmann's PTRS, von Mises by Best-Fisher, logseries by Kemp, zipf by
//! rejection), and binomial by inversion or Hörmann's BTRS (NumPy: BTPE).
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

/// Γ(shape, 1).
pub(crate) fn standard_gamma(d: &mut ElementDraws, shape: f64) -> f64 {
    if shape == 1.0 {
        return d.exponential();
    }
    if shape == 0.0 {
        return 0.0;
    }
    if shape < 1.0 {
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
    let b = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * b).sqrt();
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

/// Beta(a, b): Johnk's algorithm when both are at most 1, else a gamma ratio.
pub(crate) fn beta(d: &mut ElementDraws, a: f64, b: f64) -> f64 {
    if a <= 1.0 && b <= 1.0 {
        loop {
            let (u, v) = (d.uniform(), d.uniform());
            let (x, y) = (u.powf(1.0 / a), v.powf(1.0 / b));
            if x + y <= 1.0 && u + v > 0.0 {
                if x + y > 0.0 {
                    return x / (x + y);
                }
                // Both underflowed: the ratio in logarithms.
                let (lx, ly) = (u.ln() / a, v.ln() / b);
                let m = lx.max(ly);
                let (lx, ly) = (lx - m, ly - m);
                return (lx - (lx.exp() + ly.exp()).ln()).exp();
            }
        }
    }
    let ga = standard_gamma(d, a);
    ga / (ga + standard_gamma(d, b))
}

/// χ²(df).
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

/// Poisson(lam): multiplication below 10, Hörmann's PTRS from 10.
pub(crate) fn poisson(d: &mut ElementDraws, lam: f64) -> i64 {
    if lam == 0.0 {
        return 0;
    }
    if lam < 10.0 {
        let limit = (-lam).exp();
        let (mut k, mut product) = (0, 1.0);
        loop {
            product *= d.uniform();
            if product <= limit {
                return k;
            }
            k += 1;
        }
    }
    let (slam, loglam) = (lam.sqrt(), lam.ln());
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
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
        if v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - ln_gamma(k + 1.0) {
            return k as i64;
        }
    }
}

/// Binomial(n, p): inversion while n·min(p, 1-p) ≤ 30, Hörmann's BTRS above.
pub(crate) fn binomial(d: &mut ElementDraws, n: i64, p: f64) -> i64 {
    if n == 0 || p == 0.0 {
        return 0;
    }
    if p > 0.5 {
        return n - binomial(d, n, 1.0 - p);
    }
    let (nf, q) = (n as f64, 1.0 - p);
    if nf * p <= 30.0 {
        let qn = (nf * q.ln()).exp();
        let bound = nf.min(nf * p + 10.0 * (nf * p * q + 1.0).sqrt());
        let (mut x, mut px, mut u) = (0.0, qn, d.uniform());
        while u > px {
            x += 1.0;
            if x > bound {
                (x, px, u) = (0.0, qn, d.uniform());
            } else {
                u -= px;
                px = (nf - x + 1.0) * p * px / (x * q);
            }
        }
        return x as i64;
    }
    let spq = (nf * p * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = nf * p + 0.5;
    let vr = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let lpq = (p / q).ln();
    let m = ((nf + 1.0) * p).floor();
    let h = ln_gamma(m + 1.0) + ln_gamma(nf - m + 1.0);
    loop {
        let u = d.uniform() - 0.5;
        let v = d.uniform();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > nf {
            continue;
        }
        if us >= 0.07 && v <= vr {
            return k as i64;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        if v <= h - ln_gamma(k + 1.0) - ln_gamma(nf - k + 1.0) + (k - m) * lpq {
            return k as i64;
        }
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
