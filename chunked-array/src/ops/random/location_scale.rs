//! Location-scale and circular distributions: Laplace, logistic, Gumbel,
//! Rayleigh, Wald and von Mises (NumPy's parameters), each element drawn from
//! its own sequence.

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::error::Result;
use crate::ops::random::RandomState;
use crate::ops::random::continuous::{check, positive};
use crate::ops::random::params::Param;
use crate::ops::random::samplers::{vonmises, wald};

/// Checks a location (finite) and a scale (finite, `>= 0`).
fn location_scale([loc, scale]: [f64; 2]) -> Result<(f64, f64)> {
    check("loc", loc, loc.is_finite(), "must be finite")?;
    positive("scale", scale, false).map(|()| (loc, scale))
}

impl RandomState {
    /// Laplace (double exponential) with location `loc` and scale `scale`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(20).laplace(1.0, 2.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 1.0).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `loc`
    /// (not finite) or `scale` (not finite and `>= 0`).
    pub fn laplace(
        &self,
        loc: impl Into<Param>,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let params = [loc.into(), scale.into()];
        self.sampled_with("random_laplace", params, shape, chunks, location_scale, |&(loc, scale), d| {
            // u = 0 would give minus infinity: drawn again, as NumPy does.
            let u = loop {
                let u = d.uniform();
                if u > 0.0 {
                    break u;
                }
            };
            if u >= 0.5 { loc - scale * (2.0 - 2.0 * u).ln() } else { loc + scale * (2.0 * u).ln() }
        })
    }

    /// Logistic with location `loc` and scale `scale`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(21).logistic(0.0, 1.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| v.is_finite()));
    /// ```
    ///
    /// # Errors
    /// As [`RandomState::laplace`].
    pub fn logistic(
        &self,
        loc: impl Into<Param>,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let params = [loc.into(), scale.into()];
        self.sampled_with("random_logistic", params, shape, chunks, location_scale, |&(loc, scale), d| {
            let u = d.uniform_nonzero();
            loc + scale * (u / (1.0 - u)).ln()
        })
    }

    /// Gumbel (extreme value type I) with location `loc` and scale `scale`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(22).gumbel(0.0, 1.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 0.5772).abs() < 0.02); // Euler's constant
    /// ```
    ///
    /// # Errors
    /// As [`RandomState::laplace`].
    pub fn gumbel(
        &self,
        loc: impl Into<Param>,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let params = [loc.into(), scale.into()];
        self.sampled_with("random_gumbel", params, shape, chunks, location_scale, |&(loc, scale), d| {
            loc - scale * d.exponential().ln()
        })
    }

    /// Rayleigh with scale `scale`: `scale * sqrt(2E)`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(23).rayleigh(2.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&v| v >= 0.0));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `scale`
    /// unless finite and `>= 0`.
    pub fn rayleigh(
        &self,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[scale]: [f64; 1]| positive("scale", scale, false).map(|()| scale);
        self.sampled_with("random_rayleigh", [scale.into()], shape, chunks, prepare, |&scale, d| {
            scale * (2.0 * d.exponential()).sqrt()
        })
    }

    /// Wald (inverse Gaussian) with the given mean and scale.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(24).wald(2.0, 3.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 2.0).abs() < 0.03);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `mean`
    /// or `scale` unless finite and `> 0`.
    pub fn wald(
        &self,
        mean: impl Into<Param>,
        scale: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[mean, scale]: [f64; 2]| {
            positive("mean", mean, true)?;
            positive("scale", scale, true).map(|()| (mean, scale))
        };
        self.sampled_with("random_wald", [mean.into(), scale.into()], shape, chunks, prepare, |&(mean, scale), d| {
            wald(d, mean, scale)
        })
    }

    /// Von Mises on `[-π, π]` with mode `mu` and concentration `kappa`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(25).vonmises(0.5, 4.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| v.abs() <= std::f64::consts::PI));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `mu`
    /// (not finite) or `kappa` (not finite and `>= 0`).
    pub fn vonmises(
        &self,
        mu: impl Into<Param>,
        kappa: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<f64>> {
        let prepare = |[mu, kappa]: [f64; 2]| {
            check("mu", mu, mu.is_finite(), "must be finite")?;
            positive("kappa", kappa, false).map(|()| (mu, kappa))
        };
        self.sampled_with("random_vonmises", [mu.into(), kappa.into()], shape, chunks, prepare, |&(mu, kappa), d| {
            vonmises(d, mu, kappa)
        })
    }
}
