//! hypergeometric, multinomial, dirichlet and bytes against their exact
//! distributions (statrs' pmfs and CDFs): chi-square and Kolmogorov-Smirnov
//! tests at level 1e-3 as in `random_distributions`, the lanes' sums, the
//! moments the marginals imply, chunking invariance and the errors.

use chunked_array::random::RandomState;
use chunked_array::{Element, Error};
use ndarray::{Array2, Ix2};
use statrs::distribution::{Beta, Binomial, ContinuousCDF, Discrete, Hypergeometric};

use crate::random_distributions::{N, chi_square_p, histogram, ks, ks_limit};

fn lanes<T: Element>(a: chunked_array::Array<T>) -> Array2<T> {
    a.compute().unwrap().into_dimensionality::<Ix2>().unwrap()
}

#[test]
fn hypergeometric_draws_fit_the_exact_pmf_on_both_methods() {
    let rng = RandomState::new(61);
    // (good, bad, sample): ratio-of-uniforms (the plain case, more good than
    // bad, a sample past half the urn), the urn (small sample, and a sample
    // within 10 of the whole urn).
    let cases = [(15u64, 25u64, 12u64), (600, 400, 500), (20, 980, 900), (5, 7, 4), (10, 8, 15), (3, 0, 2)];
    for (i, &(good, bad, sample)) in cases.iter().enumerate() {
        let x = rng
            .clone()
            .with_stream(i as u64)
            .hypergeometric(good as i64, bad as i64, sample as i64, &[N], N / 4)
            .unwrap();
        let counts = histogram(x.compute().unwrap().iter().copied());
        let exact = Hypergeometric::new(good + bad, good, sample).unwrap();
        let p = chi_square_p(&counts, |k| exact.pmf(k as u64));
        assert!(p > 1e-3, "hypergeometric({good}, {bad}, {sample}): chi-square p = {p}");
        if good.min(bad) >= 10 {
            // The test tells the draws from the same draws one lower.
            let shifted = histogram(x.compute().unwrap().iter().map(|&k| (k - 1).max(0)));
            assert!(chi_square_p(&shifted, |k| exact.pmf(k as u64)) < 1e-6, "shifted draws pass");
        }
    }
    // A large urn: the mean and variance of the formula.
    let (good, bad, sample) = (100_000_000i64, 300_000_000i64, 1_000_000i64);
    let x = rng.hypergeometric(good, bad, sample, &[200_000], 50_000).unwrap().compute().unwrap();
    let total = (good + bad) as f64;
    let p = good as f64 / total;
    let mean = sample as f64 * p;
    let var = sample as f64 * p * (1.0 - p) * (total - sample as f64) / (total - 1.0);
    let n = x.len() as f64;
    let m = x.iter().map(|&k| k as f64).sum::<f64>() / n;
    let s2 = x.iter().map(|&k| (k as f64 - m).powi(2)).sum::<f64>() / (n - 1.0);
    assert!((m - mean).abs() < 6.0 * (var / n).sqrt(), "mean {m} against {mean}");
    assert!((s2 - var).abs() < 0.03 * var, "variance {s2} against {var}");
}

#[test]
fn multinomial_lanes_sum_to_n_and_their_marginals_are_binomial() {
    let pvals = [0.1, 0.2, 0.3, 0.4];
    let n = 20i64;
    let x = lanes(RandomState::new(62).multinomial(n, &pvals, &[N / 2], N / 8).unwrap());
    assert_eq!(x.shape(), &[N / 2, 4]);
    assert!(x.rows().into_iter().all(|row| row.sum() == n && row.iter().all(|&c| c >= 0)));
    for (j, &p) in pvals.iter().enumerate() {
        let counts = histogram(x.column(j).iter().copied());
        let exact = Binomial::new(p, n as u64).unwrap();
        let pv = chi_square_p(&counts, |k| exact.pmf(k as u64));
        assert!(pv > 1e-3, "category {j}: chi-square p = {pv}");
    }
    // Categories compete: cov(0, 1) = -n p0 p1.
    let rows = x.nrows() as f64;
    let mean = |j: usize| x.column(j).iter().map(|&c| c as f64).sum::<f64>() / rows;
    let (m0, m1) = (mean(0), mean(1));
    let cov = x.rows().into_iter().map(|r| (r[0] as f64 - m0) * (r[1] as f64 - m1)).sum::<f64>() / (rows - 1.0);
    assert!((cov + n as f64 * 0.1 * 0.2).abs() < 0.02, "covariance {cov}");
    // The last probability takes what the others leave; zero trials draw zeros.
    let x = lanes(RandomState::new(63).multinomial(5, &[0.5, 0.5, 0.9], &[1000], 100).unwrap());
    assert!(x.column(2).iter().all(|&c| c == 0), "the third category gets nothing left");
    let zeros = lanes(RandomState::new(63).multinomial(0, &[0.3, 0.7], &[10], 3).unwrap());
    assert!(zeros.iter().all(|&c| c == 0));
    // Many trials: the binomials are made per draw; the first category is
    // Binomial(5000, 0.2) (mean 1000, variance 800).
    let x = lanes(RandomState::new(64).multinomial(5000, &[0.2, 0.8], &[100_000], 25_000).unwrap());
    assert!(x.rows().into_iter().all(|row| row.sum() == 5000));
    let first: Vec<f64> = x.column(0).iter().map(|&c| c as f64).collect();
    let m = first.iter().sum::<f64>() / first.len() as f64;
    let v = first.iter().map(|c| (c - m).powi(2)).sum::<f64>() / (first.len() - 1) as f64;
    assert!((m - 1000.0).abs() < 6.0 * (800.0f64 / 1e5).sqrt() && (v - 800.0).abs() < 0.03 * 800.0, "{m} {v}");
}

#[test]
fn dirichlet_lanes_sum_to_one_and_their_marginals_are_beta() {
    // Normalized gammas: each component against its Beta marginal.
    let alpha = [1.5, 2.0, 0.5];
    let x = lanes(RandomState::new(64).dirichlet(&alpha, &[N], N / 4).unwrap());
    assert!(x.rows().into_iter().all(|row| (row.sum() - 1.0).abs() < 1e-12 && row.iter().all(|&v| v >= 0.0)));
    let total: f64 = alpha.iter().sum();
    for (j, &a) in alpha.iter().enumerate() {
        let mut column: Vec<f64> = x.column(j).to_vec();
        column.sort_by(f64::total_cmp);
        let beta = Beta::new(a, total - a).unwrap();
        let d = ks(&column, |v| beta.cdf(v));
        assert!(d < ks_limit(), "alpha {alpha:?}, component {j}: KS {d}");
    }
    // The stick-breaking of small concentrations. Their marginals put about 1%
    // of the mass within 1e-16 of 1, where doubles round to 1.0 (NumPy's
    // too), so the CDF is compared at thresholds away from 1: each count
    // within 5 binomial standard errors.
    let alpha = [0.05, 0.02, 0.08];
    let x = lanes(RandomState::new(65).dirichlet(&alpha, &[N], N / 4).unwrap());
    assert!(x.rows().into_iter().all(|row| (row.sum() - 1.0).abs() < 1e-12 && row.iter().all(|&v| v >= 0.0)));
    let total: f64 = alpha.iter().sum();
    for (j, &a) in alpha.iter().enumerate() {
        let beta = Beta::new(a, total - a).unwrap();
        for t in [1e-30, 1e-10, 1e-3, 0.1, 0.5, 0.9, 0.999] {
            let want = beta.cdf(t);
            let got = x.column(j).iter().filter(|&&v| v <= t).count() as f64 / N as f64;
            let se = (want * (1.0 - want) / N as f64).sqrt();
            assert!((got - want).abs() < 5.0 * se, "alpha {alpha:?}, component {j}: P(x <= {t}) {got} against {want}");
        }
    }
}

#[test]
fn vector_draws_and_hypergeometric_are_chunking_invariant() {
    let rng = RandomState::new(66).with_stream(2);
    let a = rng.multinomial(9, &[0.2, 0.5, 0.3], &[40, 30], [40, 30]).unwrap().compute().unwrap();
    let b = rng.multinomial(9, &[0.2, 0.5, 0.3], &[40, 30], [7, 11]).unwrap().compute().unwrap();
    assert_eq!(a, b);
    let a = rng.dirichlet(&[0.3, 4.0], &[1000], 1000).unwrap().compute().unwrap();
    let b = rng.dirichlet(&[0.3, 4.0], &[1000], 33).unwrap().compute().unwrap();
    assert_eq!(a, b);
    let a = rng.hypergeometric(50, 60, 30, &[5000], 5000).unwrap().compute().unwrap();
    let b = rng.hypergeometric(50, 60, 30, &[5000], 17).unwrap().compute().unwrap();
    assert_eq!(a, b);
}

#[test]
fn bytes_are_uniform_and_a_prefix_of_longer_draws() {
    let rng = RandomState::new(67);
    let b = rng.bytes(N);
    assert_eq!(b.len(), N);
    assert_eq!(rng.bytes(1001)[..], b[..1001]);
    assert_ne!(rng.clone().with_stream(1).bytes(64), b[..64]);
    assert!(rng.bytes(0).is_empty());
    let counts = histogram(b.iter().map(|&v| v as i64));
    let p = chi_square_p(&counts, |_| 1.0 / 256.0);
    assert!(p > 1e-3, "bytes: chi-square p = {p}");
}

#[test]
fn bad_vector_and_urn_parameters_are_errors_naming_them() {
    let rng = RandomState::new(0);
    let named = |e: Error, name: &str| {
        let text = e.to_string();
        assert!(text.contains(name), "{text} should name {name}");
    };
    named(rng.hypergeometric(-1, 5, 2, &[3], 3).unwrap_err(), "ngood");
    named(rng.hypergeometric(1, -5, 0, &[3], 3).unwrap_err(), "nbad");
    named(rng.hypergeometric(3, 4, 8, &[3], 3).unwrap_err(), "nsample");
    named(rng.hypergeometric(3, 4, -1, &[3], 3).unwrap_err(), "nsample");
    named(rng.hypergeometric(600_000_000, 600_000_000, 1, &[3], 3).unwrap_err(), "ngood + nbad");
    named(rng.multinomial(-2, &[0.5, 0.5], &[3], 3).unwrap_err(), "n");
    named(rng.multinomial(2, &[], &[3], 3).unwrap_err(), "pvals");
    named(rng.multinomial(2, &[0.5, f64::NAN], &[3], 3).unwrap_err(), "pvals[1]");
    named(rng.multinomial(2, &[0.7, 0.6, 0.1], &[3], 3).unwrap_err(), "sum(pvals[:-1])");
    named(rng.dirichlet(&[], &[3], 3).unwrap_err(), "alpha");
    named(rng.dirichlet(&[1.0, 0.0], &[3], 3).unwrap_err(), "alpha[1]");
    named(rng.dirichlet(&[1.0, f64::INFINITY], &[3], 3).unwrap_err(), "alpha[1]");
}

/// `integers` of `T` on `[low, high)`: every value in range, each about as
/// often as the others (chi-square), the same numbers for any chunking.
fn integers_of<T: chunked_array::random::RandomElement + Into<i128>>(low: i64, high: i64) {
    let rng = RandomState::new(80);
    let x = rng.integers::<T>(low, high, &[200_000], 30_000).unwrap().compute().unwrap();
    let values: Vec<i128> = x.iter().map(|&v| v.into()).collect();
    assert!(values.iter().all(|&v| (low as i128..high as i128).contains(&v)), "{}", T::DTYPE);
    let counts = histogram(values.iter().map(|&v| (v - low as i128) as i64));
    let cells = (high - low) as f64;
    let p = chi_square_p(&counts, |k| if (k as f64) < cells { 1.0 / cells } else { 0.0 });
    assert!(p > 1e-3, "{}: chi-square p = {p}", T::DTYPE);
    let again = rng.integers::<T>(low, high, &[200_000], 7_777).unwrap().compute().unwrap();
    assert_eq!(x, again, "{}", T::DTYPE);
}

#[test]
fn integers_of_every_integer_type_with_or_without_the_endpoint() {
    integers_of::<i8>(-128, 127);
    integers_of::<i16>(-300, 200);
    integers_of::<i32>(-5, 40);
    integers_of::<i64>(1_000_000_000_000, 1_000_000_000_050);
    integers_of::<u8>(0, 256);
    integers_of::<u16>(60_000, 60_100);
    integers_of::<u32>(4_000_000_000, 4_000_000_090);
    integers_of::<u64>(9_000_000_000_000_000_000, 9_000_000_000_000_000_064);
    // The endpoint: [low, high], the same numbers as [low, high + 1).
    let rng = RandomState::new(81);
    let closed = rng.integers_inclusive::<i8>(-128, 127, &[50_000], 9_999).unwrap().compute().unwrap();
    assert!(closed.iter().any(|&v| v == 127) && closed.iter().any(|&v| v == -128));
    let wide = rng.integers::<i16>(-128, 128, &[50_000], 9_999).unwrap().compute().unwrap();
    assert!(closed.iter().zip(&wide).all(|(&a, &b)| a as i16 == b));
    // Ranges a type cannot hold, and empty ones, are errors naming them.
    let named = |e: Error, name: &str| assert!(e.to_string().contains(name), "{e} should name {name}");
    named(rng.integers::<u8>(0, 257, &[3], 3).unwrap_err(), "low..high");
    named(rng.integers::<u16>(-1, 5, &[3], 3).unwrap_err(), "low..high");
    named(rng.integers::<i8>(5, 5, &[3], 3).unwrap_err(), "high");
    named(rng.integers_inclusive::<i64>(0, i64::MAX, &[3], 3).unwrap_err(), "high");
    named(rng.integers_inclusive::<i64>(4, 3, &[3], 3).unwrap_err(), "high");
}
