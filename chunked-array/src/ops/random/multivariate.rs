//! Distributions whose draws are vectors (dask's `multinomial` and
//! `dirichlet`): an array of the requested shape with one more trailing axis
//! of the vector's length, whole in every block. Lane `i` (the flat index over
//! the leading axes) is drawn from element `i`'s own sequence, so the arrays
//! are chunking-invariant like the scalar distributions.

use std::mem::MaybeUninit;

use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::random::RandomState;
use crate::ops::random::continuous::check;
use crate::ops::random::discrete::probability;
use crate::ops::random::element_draws::{ElementDraws, element_key};
use crate::ops::random::samplers::{Binomial, Gamma, beta_and_complement};

/// A vector sampler: lane `i`'s `k` values from element `i`'s draws.
trait SampleLane<T>: Fn(&mut ElementDraws, &mut [T]) + Send + Sync + 'static {}
impl<T, F: Fn(&mut ElementDraws, &mut [T]) + Send + Sync + 'static> SampleLane<T> for F {}

impl RandomState {
    /// An array of `shape + [k]` whose lane `i` is `sample` of element `i`'s
    /// draws; `chunks` chunk the leading axes.
    fn sampled_lanes<T: Element>(
        &self,
        name: &str,
        shape: &[usize],
        k: usize,
        chunks: impl Into<ChunkSpec>,
        sample: impl SampleLane<T>,
    ) -> Result<Array<T>> {
        let mut lengths = chunks.into().resolve(shape, T::DTYPE)?.lengths().to_vec();
        lengths.push(vec![k]);
        let key = element_key(self.seed, self.stream);
        // The trailing axis is whole: every run starts a lane and holds whole lanes.
        let fill = move |g: u64, out: &mut [MaybeUninit<T>]| {
            let mut lane = vec![T::default(); k];
            for (i, slots) in out.chunks_mut(k.max(1)).enumerate() {
                let mut draws = ElementDraws::at(key, g / k as u64 + i as u64);
                sample(&mut draws, &mut lane);
                slots.iter_mut().zip(&lane).for_each(|(slot, &v)| {
                    slot.write(v);
                });
            }
        };
        Ok(self.filled_on(name, Chunks::from_lengths(lengths), fill))
    }

    /// Multinomial: the counts of `n` trials over categories of probabilities
    /// `pvals` (the last takes what the others leave, as NumPy's), an array
    /// of `shape + [pvals.len()]` chunked as `chunks` along `shape`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(40).multinomial(10, &[0.2, 0.3, 0.5], &[4], 2).unwrap();
    /// let x = x.compute().unwrap();
    /// assert_eq!(x.shape(), &[4, 3]);
    /// assert!(x.rows().into_iter().all(|row| row.sum() == 10));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `n` (negative), `pvals` (empty) or
    /// `pvals[i]` (outside `[0, 1]`, or all but the last summing past 1).
    pub fn multinomial(
        &self,
        n: i64,
        pvals: &[f64],
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<i64>> {
        check("n", n as f64, n >= 0, "must be >= 0")?;
        let Some((_, leading)) = pvals.split_last() else {
            return Err(Error::invalid("pvals", "[]", "must hold at least one probability"));
        };
        for (i, &p) in pvals.iter().enumerate() {
            probability(&format!("pvals[{i}]"), p, true)?;
        }
        let sum: f64 = leading.iter().sum();
        check("sum(pvals[:-1])", sum, sum <= 1.0 + 1e-12, "must be <= 1")?;
        let sampler = Multinomial::new(n, pvals);
        self.sampled_lanes("random_multinomial", shape, pvals.len(), chunks, move |d, out: &mut [i64]| {
            sampler.sample(d, out)
        })
    }

    /// Dirichlet with concentrations `alpha`: an array of `shape +
    /// [alpha.len()]` whose lanes sum to 1, chunked as `chunks` along
    /// `shape`. Normalized gammas, or (every `alpha` below 0.1, where the
    /// gammas underflow) NumPy's stick-breaking by betas, with the stick left
    /// carried as the betas' complements (exact where NumPy's `1 - v` rounds
    /// to 0).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(41).dirichlet(&[1.0, 2.0, 3.0], &[5], 5).unwrap().compute().unwrap();
    /// assert!(x.rows().into_iter().all(|row| (row.sum() - 1.0).abs() < 1e-12));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `alpha` (empty) or `alpha[i]` (not
    /// finite and > 0).
    pub fn dirichlet(&self, alpha: &[f64], shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<f64>> {
        if alpha.is_empty() {
            return Err(Error::invalid("alpha", "[]", "must hold at least one concentration"));
        }
        for (i, &a) in alpha.iter().enumerate() {
            check(&format!("alpha[{i}]"), a, a.is_finite() && a > 0.0, "must be finite and > 0")?;
        }
        let sampler = Dirichlet::new(alpha);
        self.sampled_lanes("random_dirichlet", shape, alpha.len(), chunks, move |d, out: &mut [f64]| {
            sampler.sample(d, out)
        })
    }
}

/// NumPy's conditional binomials: category j takes a binomial of the trials
/// left with its probability among the categories left (`share[j]`, the same
/// for every lane). With few trials the binomial samplers of every count
/// left are made once; with many, per draw.
struct Multinomial {
    n: i64,
    share: Vec<f64>,
    /// `samplers[j][left]`, for `n <= PREPARED_TRIALS`.
    samplers: Option<Vec<Vec<Binomial>>>,
}

/// The most trials whose binomial samplers are all prepared (each category's
/// tables, for `0..=n` trials left).
const PREPARED_TRIALS: i64 = 1024;

impl Multinomial {
    fn new(n: i64, pvals: &[f64]) -> Multinomial {
        let mut p_left = 1.0;
        let share: Vec<f64> = pvals[..pvals.len() - 1]
            .iter()
            .map(|&p| {
                let s = if p_left > 0.0 { (p / p_left).clamp(0.0, 1.0) } else { 1.0 };
                p_left -= p;
                s
            })
            .collect();
        let samplers = (n <= PREPARED_TRIALS)
            .then(|| share.iter().map(|&s| (0..=n).map(|left| Binomial::new(left, s)).collect()).collect());
        Multinomial { n, share, samplers }
    }

    fn sample(&self, d: &mut ElementDraws, out: &mut [i64]) {
        out.fill(0);
        let mut left = self.n;
        for (j, &share) in self.share.iter().enumerate() {
            if left <= 0 {
                return;
            }
            out[j] = match &self.samplers {
                Some(samplers) => samplers[j][left as usize].sample(d),
                None => Binomial::new(left, share).sample(d),
            };
            left -= out[j];
        }
        out[self.share.len()] = left.max(0);
    }
}

/// The Dirichlet sampler's gammas (one per concentration), and for small
/// concentrations the betas of the stick-breaking: `alpha[j]` against the
/// sum of the later ones.
struct Dirichlet {
    alpha: Vec<f64>,
    gammas: Vec<Gamma>,
    /// (sum of `alpha[j + 1..]`, its gamma) for the stick-breaking.
    rest: Option<Vec<(f64, Gamma)>>,
}

impl Dirichlet {
    fn new(alpha: &[f64]) -> Dirichlet {
        let small = alpha.iter().all(|&a| a < 0.1);
        let rest = small.then(|| {
            (1..alpha.len())
                .map(|j| {
                    let sum: f64 = alpha[j..].iter().sum();
                    (sum, Gamma::new(sum))
                })
                .collect()
        });
        Dirichlet { alpha: alpha.to_vec(), gammas: alpha.iter().map(|&a| Gamma::new(a)).collect(), rest }
    }

    fn sample(&self, d: &mut ElementDraws, out: &mut [f64]) {
        let Some(rest) = &self.rest else {
            out.iter_mut().zip(&self.gammas).for_each(|(x, g)| *x = g.sample(d));
            let sum: f64 = out.iter().sum();
            out.iter_mut().for_each(|x| *x /= sum);
            return;
        };
        // The stick left shrinks by the beta's complement, drawn as its own
        // ratio: `1 - v` would be 0 for the v that round to 1.0.
        let mut stick = 1.0;
        for (j, (sum, g_rest)) in rest.iter().enumerate() {
            let (v, rest_of_stick) = beta_and_complement(d, self.alpha[j], *sum, &self.gammas[j], g_rest);
            out[j] = stick * v;
            stick *= rest_of_stick;
        }
        out[self.alpha.len() - 1] = stick;
    }
}
