//! Continuous distributions beyond uniform and normal (dask's and NumPy's
//! names and parameters), each element drawn from its own sequence (see
//! [`ElementDraws`](crate::random::ElementDraws)), as `f64` arrays.

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::error::{Error, Result};
use crate::ops::random::RandomState;
use crate::ops::random::params::Param;
use crate::ops::random::samplers::{Gamma, beta, noncentral_chisquare, triangular};

/// `Ok` when `ok`, else an error naming the parameter, its value and the rule.
pub(super) fn check(name: &str, value: f64, ok: bool, rule: &str) -> Result<()> {
    if ok && !value.is_nan() { Ok(()) } else { Err(Error::invalid(name, value, rule)) }
}

/// `Ok` when the integer parameter `value` is `ok`, else an `Err` naming it.
pub(super) fn check_int(name: &str, value: i64, ok: bool, rule: &str) -> Result<()> {
    if ok { Ok(()) } else { Err(Error::invalid(name, value, rule)) }
}

/// A finite scale-like parameter: `> 0` when `strict`, else `>= 0`.
pub(super) fn positive(name: &str, value: f64, strict: bool) -> Result<()> {
    let ok = value.is_finite() && if strict { value > 0.0 } else { value >= 0.0 };
    check(name, value, ok, if strict { "must be finite and > 0" } else { "must be finite and >= 0" })
}

fn finite(name: &str, value: f64) -> Result<()> {
    check(name, value, value.is_finite(), "must be finite")
}

impl RandomState {
    /// Uniform in `[0, 1)` as `f64` (dask's `random`; the same numbers as
    /// [`RandomState::uniform`]).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(4);
    /// let x = rng.random(&[6], 4).unwrap();
    /// assert_eq!(x.compute().unwrap(), rng.uniform::<f64>(&[6], 3).unwrap().compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for bad chunks.
    pub fn random(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        self.uniform(shape, chunks)
    }

    /// Uniform in `[low, high)` (dask's `uniform(low, high, size)`).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(1).uniform_range(-2.0, 3.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| (-2.0..3.0).contains(v)));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `low`
    /// or `high` when either is not finite or `high < low`.
    pub fn uniform_range(
        &self,
        low: impl Into<Param>,
        high: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[low, high]: [f64; 2]| {
            finite("low", low)?;
            check("high", high, high.is_finite() && high >= low, "must be finite and >= low")?;
            Ok((low, high))
        };
        let params = [low.into(), high.into()];
        self.sampled_with("random_uniform_range", params, shape, chunks, prepare, |&(low, high), d| {
            low + (high - low) * d.uniform()
        })
    }

    /// Exponential with the given scale (mean).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(2).exponential(3.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 3.0).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `scale`
    /// unless it is finite and `>= 0`.
    pub fn exponential(
        &self,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[scale]: [f64; 1]| positive("scale", scale, false).map(|()| scale);
        self.sampled_with("random_exponential", [scale.into()], shape, chunks, prepare, |&scale, d| {
            scale * d.exponential()
        })
    }

    /// Exponential with scale 1.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(2);
    /// let a = rng.standard_exponential(&[10], 3).unwrap().compute().unwrap();
    /// assert_eq!(a, rng.exponential(1.0, &[10], 10).unwrap().compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for bad chunks.
    pub fn standard_exponential(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        self.exponential(1.0, shape, chunks)
    }

    /// Log-normal: `exp` of a normal with the given mean and standard deviation.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(3).lognormal(0.0, 0.5, &[50], 20).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&v| v > 0.0));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `mean`
    /// (not finite) or `sigma` (not finite and `>= 0`).
    pub fn lognormal(
        &self,
        mean: impl Into<Param>,
        sigma: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[mean, sigma]: [f64; 2]| {
            finite("mean", mean)?;
            positive("sigma", sigma, false).map(|()| (mean, sigma))
        };
        self.sampled_with(
            "random_lognormal",
            [mean.into(), sigma.into()],
            shape,
            chunks,
            prepare,
            |&(mean, sigma), d| (mean + sigma * d.normal()).exp(),
        )
    }

    /// Gamma with the given shape and scale (Marsaglia-Tsang).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(5).gamma(2.5, 2.0, &[200_000], 40_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 5.0).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `shape`
    /// or `scale` unless finite and `>= 0`.
    pub fn gamma(
        &self,
        shape_k: impl Into<Param>,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[shape_k, scale]: [f64; 2]| {
            positive("shape", shape_k, false)?;
            positive("scale", scale, false).map(|()| (Gamma::new(shape_k), scale))
        };
        self.sampled_with(
            "random_gamma",
            [shape_k.into(), scale.into()],
            shape,
            chunks,
            prepare,
            |(gamma, scale), d| scale * gamma.sample(d),
        )
    }

    /// Gamma with scale 1.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(6);
    /// let a = rng.standard_gamma(0.5, &[9], 4).unwrap().compute().unwrap();
    /// assert_eq!(a, rng.gamma(0.5, 1.0, &[9], 9).unwrap().compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`RandomState::gamma`].
    pub fn standard_gamma(
        &self,
        shape_k: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        self.gamma(shape_k, 1.0, shape, chunks)
    }

    /// Beta(a, b) on [0, 1].
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(7).beta(0.5, 0.5, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| (0.0..=1.0).contains(v)));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `a` or
    /// `b` unless finite and `> 0`.
    pub fn beta(
        &self,
        a: impl Into<Param>,
        b: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[a, b]: [f64; 2]| {
            positive("a", a, true)?;
            positive("b", b, true).map(|()| (a, b, Gamma::new(a), Gamma::new(b)))
        };
        self.sampled_with("random_beta", [a.into(), b.into()], shape, chunks, prepare, |(a, b, ga, gb), d| {
            beta(d, *a, *b, ga, gb)
        })
    }

    /// Chi-square with `df` degrees of freedom.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(8).chisquare(4.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 4.0).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `df`
    /// unless finite and `> 0`.
    pub fn chisquare(&self, df: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        let prepare = |[df]: [f64; 1]| positive("df", df, true).map(|()| Gamma::new(df / 2.0));
        self.sampled_with("random_chisquare", [df.into()], shape, chunks, prepare, |gamma, d| 2.0 * gamma.sample(d))
    }

    /// Noncentral chi-square with `df` degrees of freedom and noncentrality `nonc`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(9).noncentral_chisquare(3.0, 2.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 5.0).abs() < 0.06); // df + nonc
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `df`
    /// (finite and `> 0`) or `nonc` (finite and `>= 0`).
    pub fn noncentral_chisquare(
        &self,
        df: impl Into<Param>,
        nonc: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[df, nonc]: [f64; 2]| {
            positive("df", df, true)?;
            positive("nonc", nonc, false).map(|()| (df, nonc))
        };
        let params = [df.into(), nonc.into()];
        self.sampled_with("random_noncentral_chisquare", params, shape, chunks, prepare, |&(df, nonc), d| {
            noncentral_chisquare(d, df, nonc)
        })
    }

    /// Fisher's F with `dfnum` and `dfden` degrees of freedom.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(10).f(5.0, 10.0, &[100], 50).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&v| v >= 0.0));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `dfnum`
    /// or `dfden` unless finite and `> 0`.
    pub fn f(
        &self,
        dfnum: impl Into<Param>,
        dfden: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[dfnum, dfden]: [f64; 2]| {
            positive("dfnum", dfnum, true)?;
            positive("dfden", dfden, true)?;
            Ok((dfnum, dfden, Gamma::new(dfnum / 2.0), Gamma::new(dfden / 2.0)))
        };
        self.sampled_with(
            "random_f",
            [dfnum.into(), dfden.into()],
            shape,
            chunks,
            prepare,
            |(dfnum, dfden, num, den), d| (num.sample(d) * dfden) / (den.sample(d) * dfnum),
        )
    }

    /// Noncentral F: a noncentral chi-square over a central one, each over
    /// its degrees of freedom.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(11).noncentral_f(3.0, 20.0, 3.0, &[100], 50).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&v| v >= 0.0));
    /// ```
    ///
    /// # Errors
    /// As [`RandomState::f`], and `nonc` unless finite and `>= 0`.
    pub fn noncentral_f(
        &self,
        dfnum: impl Into<Param>,
        dfden: impl Into<Param>,
        nonc: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[dfnum, dfden, nonc]: [f64; 3]| {
            positive("dfnum", dfnum, true)?;
            positive("dfden", dfden, true)?;
            positive("nonc", nonc, false)?;
            Ok((dfnum, dfden, nonc, Gamma::new(dfden / 2.0)))
        };
        let params = [dfnum.into(), dfden.into(), nonc.into()];
        self.sampled_with("random_noncentral_f", params, shape, chunks, prepare, |&(dfnum, dfden, nonc, ref den), d| {
            (noncentral_chisquare(d, dfnum, nonc) * dfden) / (2.0 * den.sample(d) * dfnum)
        })
    }

    /// Student's t with `df` degrees of freedom.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(12).standard_t(5.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!(mean.abs() < 0.02);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `df`
    /// unless finite and `> 0`.
    pub fn standard_t(
        &self,
        df: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[df]: [f64; 1]| positive("df", df, true).map(|()| (df, Gamma::new(df / 2.0)));
        self.sampled_with("random_standard_t", [df.into()], shape, chunks, prepare, |(df, gamma), d| {
            let z = d.normal();
            (df / 2.0).sqrt() * z / gamma.sample(d).sqrt()
        })
    }

    /// Standard Cauchy: the ratio of two standard normals.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(13).standard_cauchy(&[10_001], 1000).unwrap().compute().unwrap();
    /// let mut v = x.into_raw_vec_and_offset().0;
    /// v.sort_by(f64::total_cmp);
    /// assert!(v[5000].abs() < 0.1); // median 0
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for bad chunks.
    pub fn standard_cauchy(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        self.sampled("random_standard_cauchy", shape, chunks, |d| d.normal() / d.normal())
    }

    /// Weibull with shape `a` and scale 1: `E^(1/a)` of a standard exponential `E`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(14).weibull(1.5, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&v| v >= 0.0));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `a`
    /// unless finite and `>= 0`.
    pub fn weibull(&self, a: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        let prepare = |[a]: [f64; 1]| positive("a", a, false).map(|()| a);
        self.sampled_with("random_weibull", [a.into()], shape, chunks, prepare, |&a, d| {
            if a == 0.0 { 0.0 } else { d.exponential().powf(1.0 / a) }
        })
    }

    /// Pareto II (Lomax) with shape `a`, NumPy's `pareto`: `exp(E / a) - 1`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(15).pareto(3.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&v| v >= 0.0));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `a`
    /// unless finite and `> 0`.
    pub fn pareto(&self, a: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        let prepare = |[a]: [f64; 1]| positive("a", a, true).map(|()| a);
        self.sampled_with("random_pareto", [a.into()], shape, chunks, prepare, |&a, d| (d.exponential() / a).exp_m1())
    }

    /// Power distribution on [0, 1] with exponent `a - 1` (Beta(a, 1)).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(16).power(2.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| (0.0..=1.0).contains(v)));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `a`
    /// unless finite and `> 0`.
    pub fn power(&self, a: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        let prepare = |[a]: [f64; 1]| positive("a", a, true).map(|()| a);
        self.sampled_with("random_power", [a.into()], shape, chunks, prepare, |&a, d| {
            (-(-d.exponential()).exp_m1()).powf(1.0 / a)
        })
    }

    /// Triangular on `[left, right]` with its peak at `mode`, by inversion.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(17).triangular(-1.0, 0.0, 2.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| (-1.0..=2.0).contains(v)));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `left`,
    /// `mode` or `right` unless finite with `left <= mode <= right` and `left < right`.
    pub fn triangular(
        &self,
        left: impl Into<Param>,
        mode: impl Into<Param>,
        right: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[left, mode, right]: [f64; 3]| {
            finite("left", left)?;
            check("mode", mode, mode.is_finite() && mode >= left, "must be finite and >= left")?;
            let ok = right.is_finite() && right >= mode && right > left;
            check("right", right, ok, "must be finite, >= mode and > left").map(|()| (left, mode, right))
        };
        let params = [left.into(), mode.into(), right.into()];
        self.sampled_with("random_triangular", params, shape, chunks, prepare, |&(left, mode, right), d| {
            triangular(d, left, mode, right)
        })
    }
}
