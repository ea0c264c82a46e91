//! Location-scale and circular distributions: Laplace, logistic, Gumbel,
//! Rayleigh, Wald and von Mises (NumPy's parameters), each element drawn from
//! its own sequence.

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::error::Result;
use crate::ops::random::RandomState;
use crate::ops::random::continuous::{check, positive};
use crate::ops::random::samplers::{vonmises, wald};

/// Checks a location (finite) and a scale (finite, `>= 0`).
fn location_scale(loc: f64, scale: f64) -> Result<()> {
    check("loc", loc, loc.is_finite(), "must be finite")?;
    positive("scale", scale, false)
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
    pub fn laplace(&self, loc: f64, scale: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        location_scale(loc, scale)?;
        self.sampled("random_laplace", shape, chunks, move |d| {
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
    pub fn logistic(&self, loc: f64, scale: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        location_scale(loc, scale)?;
        self.sampled("random_logistic", shape, chunks, move |d| {
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
    pub fn gumbel(&self, loc: f64, scale: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        location_scale(loc, scale)?;
        self.sampled("random_gumbel", shape, chunks, move |d| loc - scale * d.exponential().ln())
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
    pub fn rayleigh(&self, scale: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        positive("scale", scale, false)?;
        self.sampled("random_rayleigh", shape, chunks, move |d| scale * (2.0 * d.exponential()).sqrt())
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
    pub fn wald(&self, mean: f64, scale: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        positive("mean", mean, true)?;
        positive("scale", scale, true)?;
        self.sampled("random_wald", shape, chunks, move |d| wald(d, mean, scale))
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
    pub fn vonmises(&self, mu: f64, kappa: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        check("mu", mu, mu.is_finite(), "must be finite")?;
        positive("kappa", kappa, false)?;
        self.sampled("random_vonmises", shape, chunks, move |d| vonmises(d, mu, kappa))
    }
}
