//! Discrete distributions (dask's and NumPy's names and parameters) as `i64`
//! arrays, each element drawn from its own sequence, rejection samplers
//! included.

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::error::Result;
use crate::ops::random::RandomState;
use crate::ops::random::continuous::{check, check_int, positive};
use crate::ops::random::hypergeometric::Hypergeometric;
use crate::ops::random::params::{IntParam, Param, integer};
use crate::ops::random::samplers::{Binomial, Gamma, geometric, logseries, poisson, poisson_sampler, zipf};

/// The largest Poisson mean drawn: NumPy's bound, where the draws would
/// overflow `i64`.
const POISSON_LAM_MAX: f64 = 9.223_372_006_484_771e18;

/// A probability: finite, in `[0, 1]` (or `(0, 1]` when `zero` is refused).
pub(super) fn probability(name: &str, p: f64, zero: bool) -> Result<()> {
    let ok = (0.0..=1.0).contains(&p) && (zero || p > 0.0);
    check(name, p, ok, if zero { "must be in [0, 1]" } else { "must be in (0, 1]" })
}

impl RandomState {
    /// Poisson with mean `lam` (multiplication below 10, Hörmann's PTRS above).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(30).poisson(3.0, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 3.0).abs() < 0.03);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `lam`
    /// unless `0 <= lam <= 9.2e18`.
    pub fn poisson(&self, lam: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        let prepare = |[lam]: [f64; 1]| {
            check("lam", lam, (0.0..=POISSON_LAM_MAX).contains(&lam), "must be in [0, 9.2e18]")
                .map(|()| poisson_sampler(lam))
        };
        self.sampled_with("random_poisson", [lam.into()], shape, chunks, prepare, |sampler, d| sampler(d))
    }

    /// Binomial: successes in `n` trials of probability `p` (each a number
    /// or an array, see [`IntParam`] and [`Param`]).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(31).binomial(20, 0.3, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 6.0).abs() < 0.03);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `n`
    /// (negative) or `p` (outside `[0, 1]`).
    pub fn binomial(
        &self,
        n: impl Into<IntParam>,
        p: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<i64>> {
        let prepare = |[n, p]: [f64; 2]| {
            let n = integer(n);
            check_int("n", n, n >= 0, "must be >= 0")?;
            probability("p", p, true).map(|()| Binomial::new(n, p))
        };
        let params = [n.into().as_bits(), p.into()];
        self.sampled_with("random_binomial", params, shape, chunks, prepare, |sampler, d| sampler.sample(d))
    }

    /// Negative binomial: failures before the `n`-th success of probability
    /// `p` (a Poisson of a gamma; `n` may be fractional, as NumPy allows).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(32).negative_binomial(5.0, 0.5, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 5.0).abs() < 0.05); // n (1 - p) / p
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `n`
    /// (not finite and `> 0`) or `p` (outside `(0, 1]`).
    pub fn negative_binomial(
        &self,
        n: impl Into<Param>,
        p: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<i64>> {
        let prepare = |[n, p]: [f64; 2]| {
            positive("n", n, true)?;
            probability("p", p, false).map(|()| (Gamma::new(n), p))
        };
        self.sampled_with(
            "random_negative_binomial",
            [n.into(), p.into()],
            shape,
            chunks,
            prepare,
            |&(ref gamma, p), d| {
                if p == 1.0 {
                    return 0;
                }
                let lam = gamma.sample(d) * (1.0 - p) / p;
                poisson(d, lam.min(POISSON_LAM_MAX))
            },
        )
    }

    /// Geometric: the trial of the first success of probability `p` (1, 2, ...).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(33).geometric(0.25, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 4.0).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `p`
    /// unless in `(0, 1]`.
    pub fn geometric(&self, p: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        let prepare = |[p]: [f64; 1]| probability("p", p, false).map(|()| p);
        self.sampled_with("random_geometric", [p.into()], shape, chunks, prepare, |&p, d| geometric(d, p))
    }

    /// Logarithmic series with parameter `p` (1, 2, ...).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(34).logseries(0.6, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&k| k >= 1));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `p`
    /// unless in `[0, 1)`.
    pub fn logseries(&self, p: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        let prepare = |[p]: [f64; 1]| check("p", p, (0.0..1.0).contains(&p), "must be in [0, 1)").map(|()| p);
        self.sampled_with("random_logseries", [p.into()], shape, chunks, prepare, |&p, d| logseries(d, p))
    }

    /// Zipf with exponent `a > 1` (1, 2, ...).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(35).zipf(2.0, &[100], 30).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|&k| k >= 1));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming `a`
    /// unless finite and `> 1`.
    pub fn zipf(&self, a: impl Into<Param>, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        let prepare = |[a]: [f64; 1]| check("a", a, a.is_finite() && a > 1.0, "must be finite and > 1").map(|()| a);
        self.sampled_with("random_zipf", [a.into()], shape, chunks, prepare, |&a, d| zipf(d, a))
    }

    /// Hypergeometric: the good items among `nsample` drawn without
    /// replacement from an urn of `ngood` good and `nbad` bad ones (NumPy's
    /// methods: one item at a time for small samples, Stadlober's
    /// ratio-of-uniforms otherwise). Each count is a number or an array
    /// (see [`IntParam`]).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(36).hypergeometric(30, 70, 20, &[200_000], 50_000).unwrap();
    /// let mean: f64 = x.mean(None).unwrap().compute_scalar().unwrap();
    /// assert!((mean - 6.0).abs() < 0.02); // 20 · 30 / 100
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the
    /// parameter unless `ngood, nbad >= 0`, `0 <= nsample <= ngood + nbad` and
    /// `ngood + nbad < 10⁹` (NumPy's bounds).
    pub fn hypergeometric(
        &self,
        ngood: impl Into<IntParam>,
        nbad: impl Into<IntParam>,
        nsample: impl Into<IntParam>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<i64>> {
        let prepare = |[ngood, nbad, nsample]: [f64; 3]| {
            let (ngood, nbad, nsample) = (integer(ngood), integer(nbad), integer(nsample));
            check_int("ngood", ngood, ngood >= 0, "must be >= 0")?;
            check_int("nbad", nbad, nbad >= 0, "must be >= 0")?;
            let total = ngood.saturating_add(nbad);
            check_int("ngood + nbad", total, total < 1_000_000_000, "must be < 1e9")?;
            check_int("nsample", nsample, (0..=total).contains(&nsample), "must be in [0, ngood + nbad]")?;
            Ok(Hypergeometric::new(ngood, nbad, nsample))
        };
        let params = [ngood.into().as_bits(), nbad.into().as_bits(), nsample.into().as_bits()];
        self.sampled_with("random_hypergeometric", params, shape, chunks, prepare, |sampler, d| sampler.sample(d))
    }
}
