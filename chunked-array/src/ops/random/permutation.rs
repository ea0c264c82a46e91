//! `permutation` and `choice`: a keyed bijection on `[0, n)` computed per
//! element (a balanced Feistel network on the smallest even power of two
//! holding `n`, walked until it lands in `[0, n)`), so no worker needs the
//! whole permutation; `choice` with probabilities through Walker's alias table,
//! and without replacement through exponential keys (Efraimidis-Spirakis).

use std::sync::Arc;

use crate::array::Array;
use crate::chunks::ChunkSpec;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::random::RandomState;
use crate::ops::random::element_draws::LAYOUT_VERSION;
use crate::ops::random::philox::philox4x32_10;

/// Feistel rounds: six keyed rounds of a 64-bit mixer.
const ROUNDS: usize = 6;

/// Indices encrypted in lockstep by [`Feistel::fill`].
const LANES: usize = 64;

/// Steps of the cycle walk taken in lockstep before the lanes still past `n`
/// finish one by one: with the domain at most 4n, a lane is past `n` after
/// one step with probability at most 3/4, after four at most 0.32.
const LOCKSTEP_WALKS: usize = 4;

/// Tells the permutation's keys from the other uses of Philox.
const DOMAIN: u32 = 0x7065_726d; // "perm"

/// A keyed bijection on `[0, n)`.
#[derive(Clone, Copy)]
pub(crate) struct Feistel {
    n: u64,
    half_bits: u32,
    keys: [u64; ROUNDS],
}

/// MurmurHash3's 64-bit finalizer: every input bit moves every output bit.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

impl Feistel {
    pub(crate) fn new(seed: u64, stream: u64, n: u64) -> Feistel {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let key = [seed as u32, (seed >> 32) as u32];
        let mut keys = [0u64; ROUNDS];
        for (r, pair) in keys.chunks_mut(2).enumerate() {
            let w = philox4x32_10([stream as u32, (stream >> 32) as u32, LAYOUT_VERSION, DOMAIN ^ r as u32], key);
            pair[0] = (w[0] as u64) << 32 | w[1] as u64;
            pair[1] = (w[2] as u64) << 32 | w[3] as u64;
        }
        Feistel { n, half_bits, keys }
    }

    fn encrypt(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut left, mut right) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            (left, right) = (right, left ^ (mix(right ^ key) & mask));
        }
        left << self.half_bits | right
    }

    /// The permutation at `first..first + out.len()`: the image of `i < n`
    /// is the network applied until the value is below `n` (under four times
    /// on average: the domain is under 4n). The rounds of 64
    /// indices at a time in lockstep (a loop the compiler vectorizes), the
    /// cycle walk of those that land past `n` in lockstep too for a few
    /// steps, then one by one.
    pub(crate) fn fill(&self, first: u64, out: &mut [std::mem::MaybeUninit<i64>]) {
        for (c, slots) in out.chunks_mut(LANES).enumerate() {
            let start = first + (c * LANES) as u64;
            let mut xs: [u64; LANES] = std::array::from_fn(|i| start + i as u64);
            // Every index is encrypted once; a lane is done once it lands in [0, n).
            let mut done = [false; LANES];
            for _ in 0..LOCKSTEP_WALKS {
                self.encrypt_lanes(&mut xs, &done);
                done.iter_mut().zip(&xs).for_each(|(d, &x)| *d = x < self.n);
                if done.iter().all(|&d| d) {
                    break;
                }
            }
            for (slot, &x) in slots.iter_mut().zip(&xs) {
                let mut x = x;
                while x >= self.n {
                    x = self.encrypt(x);
                }
                slot.write(x as i64);
            }
        }
    }

    /// One step of the walk for every lane not `done`.
    fn encrypt_lanes(&self, xs: &mut [u64; LANES], done: &[bool; LANES]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512dq") {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { self.encrypt_lanes_avx512(xs, done) };
            return;
        }
        self.encrypt_lanes_portable(xs, done);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn encrypt_lanes_avx512(&self, xs: &mut [u64; LANES], done: &[bool; LANES]) {
        self.encrypt_lanes_portable(xs, done);
    }

    #[inline(always)]
    fn encrypt_lanes_portable(&self, xs: &mut [u64; LANES], done: &[bool; LANES]) {
        let mask = (1u64 << self.half_bits) - 1;
        let mut left: [u64; LANES] = std::array::from_fn(|i| xs[i] >> self.half_bits);
        let mut right: [u64; LANES] = std::array::from_fn(|i| xs[i] & mask);
        for key in self.keys {
            for i in 0..LANES {
                let (l, r) = (left[i], right[i]);
                left[i] = r;
                right[i] = l ^ (mix(r ^ key) & mask);
            }
        }
        for i in 0..LANES {
            let x = left[i] << self.half_bits | right[i];
            xs[i] = if done[i] { xs[i] } else { x };
        }
    }

    /// The permutation's value at `i`, one index alone (the reference for
    /// [`Feistel::fill`]).
    #[cfg(test)]
    fn apply(&self, i: u64) -> u64 {
        let mut x = self.encrypt(i);
        while x >= self.n {
            x = self.encrypt(x);
        }
        x
    }
}

/// Walker's alias table of probabilities `p` (Vose's construction).
struct Alias {
    probability: Vec<f64>,
    alias: Vec<u64>,
}

impl Alias {
    fn new(p: &[f64]) -> Alias {
        let n = p.len();
        let mut scaled: Vec<f64> = p.iter().map(|&q| q * n as f64).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
        let (mut probability, mut alias) = (vec![1.0; n], (0..n as u64).collect::<Vec<_>>());
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            probability[s] = scaled[s];
            alias[s] = l as u64;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        Alias { probability, alias }
    }
}

impl RandomState {
    /// A random permutation of `0..n` as a lazy array (dask's
    /// `permutation(n)`): element `i` is a keyed bijection of `i`, computed
    /// where its block is made.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let p = RandomState::new(1).permutation(10, 4).unwrap().compute().unwrap();
    /// let mut sorted = p.iter().copied().collect::<Vec<i64>>();
    /// sorted.sort();
    /// assert_eq!(sorted, (0..10).collect::<Vec<i64>>());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for bad chunks, or `n` over `i64::MAX`.
    pub fn permutation(&self, n: usize, chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        if n as u64 > i64::MAX as u64 {
            return Err(Error::invalid("n", n, "must fit i64"));
        }
        let feistel = Feistel::new(self.seed, self.stream, n as u64);
        self.filled("random_permutation", &[n], chunks, move |first, out| feistel.fill(first, out))
    }

    /// `size` indices drawn from `0..n` (dask's `choice(n, size, replace, p)`):
    /// with replacement, uniform or by the probabilities `p` (an alias
    /// table); without, the first `size` of [`RandomState::permutation`], or
    /// with `p`, indices drawn one after another by `p` over those not yet
    /// drawn (NumPy's order and distribution; Efraimidis and Spirakis' keys:
    /// index `j`'s standard exponential over `p[j]`, the smallest first).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(2);
    /// let k = rng.choice(5, &[1000], true, Some(&[0.0, 0.5, 0.0, 0.5, 0.0]), 300).unwrap().compute().unwrap();
    /// assert!(k.iter().all(|&i| i == 1 || i == 3));
    /// let distinct = rng.choice(100, &[100], false, None, 30).unwrap().compute().unwrap();
    /// assert_eq!(distinct, rng.permutation(100, 100).unwrap().compute().unwrap());
    /// let weighted = rng.choice(4, &[3], false, Some(&[0.5, 0.0, 0.25, 0.25]), 3).unwrap().compute().unwrap();
    /// let mut drawn: Vec<i64> = weighted.iter().copied().collect();
    /// drawn.sort();
    /// assert_eq!(drawn, vec![0, 2, 3]); // every index with p > 0, once
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `n` (0 with a non-empty `size`),
    /// `size` (more than `n` without replacement), or `p` (not `n` long, a
    /// negative or non-finite entry, a sum off 1 by over 1e-8), or `size`
    /// past the entries of `p` above 0 without replacement.
    pub fn choice(
        &self,
        n: usize,
        size: &[usize],
        replace: bool,
        p: Option<&[f64]>,
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<i64>> {
        let total: usize = size.iter().product();
        if n == 0 && total > 0 {
            return Err(Error::invalid("n", n, "must be > 0 to draw from"));
        }
        if let Some(p) = p {
            check_probabilities(p, n)?;
            if !replace {
                return self.weighted_distinct(p, size, chunks);
            }
            let table = Alias::new(p);
            return self.sampled("random_choice", size, chunks, move |d| {
                let u = d.uniform() * n as f64;
                let i = (u as usize).min(n - 1);
                if u - (i as f64) < table.probability[i] { i as i64 } else { table.alias[i] as i64 }
            });
        }
        if replace {
            return self.integers(0, n as i64, size, chunks);
        }
        if total > n {
            return Err(Error::invalid("size", size, format!("draws {total} distinct values from only {n}")));
        }
        let feistel = Feistel::new(self.seed, self.stream, n as u64);
        self.filled("random_choice", size, chunks, move |first, out| feistel.fill(first, out))
    }
}

impl RandomState {
    /// `size` distinct indices of `p` drawn one after another, each by `p`
    /// renormalized over the indices left: the `k` smallest keys
    /// `E_j / p[j]` (`E_j` index `j`'s standard exponential), smallest
    /// first. The smallest of independent exponentials of rates `p[j]` is
    /// index `j` with probability `p[j] / Σp`, and the others' keys stay
    /// exponential past it, so each next key is the next successive draw.
    fn weighted_distinct(&self, p: &[f64], size: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<i64>> {
        let total: usize = size.iter().product();
        let nonzero = p.iter().filter(|&&q| q > 0.0).count();
        if total > nonzero {
            return Err(Error::invalid(
                "size",
                size,
                format!("draws {total} distinct values, p has {nonzero} above 0"),
            ));
        }
        if total == 0 {
            return self.filled("random_choice", size, chunks, |_, _| {});
        }
        let weights = Arc::new(p.to_vec());
        let keys = self.sampled("random_choice_keys", &[p.len()], ChunkSpec::auto(), move |d| {
            let q = weights[d.index() as usize];
            if q > 0.0 { d.exponential() / q } else { f64::INFINITY }
        })?;
        let dims: Vec<isize> = size.iter().map(|&l| l as isize).collect();
        keys.argtopk(-(total as isize), 0)?.reshape(&dims)?.rechunk(chunks)
    }

    /// `x` with its rows (axis 0) in the order of
    /// [`RandomState::permutation`] of their count: dask's and NumPy's
    /// `permutation(x)`, and `shuffle(x)` as a new array. Row `i` of the
    /// output is row `permutation[i]` of `x`, gathered through
    /// [`Array::take_array`], so no task holds more than about a block; the
    /// output is chunked like `x`.
    ///
    /// ```
    /// use chunked_array::{Array, random::RandomState};
    /// let rng = RandomState::new(4);
    /// let x = Array::<i64>::arange(0, 12, 1, 5).unwrap().reshape(&[6, 2]).unwrap();
    /// let shuffled = rng.shuffle(&x).unwrap().compute().unwrap();
    /// let order = rng.permutation(6, 6).unwrap().compute().unwrap();
    /// for (row, &from) in shuffled.outer_iter().zip(&order) {
    ///     assert_eq!(row.iter().copied().collect::<Vec<_>>(), vec![2 * from, 2 * from + 1]);
    /// }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `x` is 0-d.
    pub fn shuffle<T: Element>(&self, x: &Array<T>) -> Result<Array<T>> {
        x.check()?;
        if x.ndim() == 0 {
            return Err(Error::invalid("x", x.shape(), "must have an axis to shuffle"));
        }
        let order = self.permutation(x.shape()[0], ChunkSpec::from(vec![x.chunks().lengths()[0].clone()]))?;
        x.take_array(&order, 0)
    }

    /// `size` elements of the 1-d `a` (dask's `choice(a, size, replace, p)`):
    /// `a` at the indices [`RandomState::choice`] draws, gathered through
    /// [`Array::take_array`] (chunked as `chunks` along a 1-d `size`).
    ///
    /// ```
    /// use chunked_array::{Array, random::RandomState};
    /// let rng = RandomState::new(5);
    /// let a = Array::<f64>::from_vec(&[4], vec![0.5, 1.5, 2.5, 3.5], 2).unwrap();
    /// let x = rng.choice_of(&a, &[6], true, None, 4).unwrap().compute().unwrap();
    /// let k = rng.choice(4, &[6], true, None, 4).unwrap().compute().unwrap();
    /// assert!(x.iter().zip(&k).all(|(&v, &i)| v == 0.5 + i as f64));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `a` is not 1-d, and as
    /// [`RandomState::choice`].
    pub fn choice_of<T: Element>(
        &self,
        a: &Array<T>,
        size: &[usize],
        replace: bool,
        p: Option<&[f64]>,
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        a.check()?;
        if a.ndim() != 1 {
            return Err(Error::invalid("a", a.shape(), "must be 1-d"));
        }
        let indices = self.choice(a.shape()[0], size, replace, p, chunks)?;
        if size.len() == 1 {
            return a.take_array(&indices, 0);
        }
        let total: usize = size.iter().product();
        let shape: Vec<isize> = size.iter().map(|&l| l as isize).collect();
        a.take_array(&indices.reshape(&[total as isize])?, 0)?.reshape(&shape)
    }
}

fn check_probabilities(p: &[f64], n: usize) -> Result<()> {
    if p.len() != n {
        return Err(Error::invalid("p", p.len(), format!("must have n = {n} entries")));
    }
    if let Some((i, q)) = p.iter().enumerate().find(|(_, q)| !(q.is_finite() && **q >= 0.0)) {
        return Err(Error::invalid("p", (i, q), "entries must be finite and >= 0"));
    }
    let sum: f64 = p.iter().sum();
    if (sum - 1.0).abs() > 1e-8 {
        return Err(Error::invalid("p", sum, "must sum to 1"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Feistel;
    use std::mem::MaybeUninit;

    #[test]
    fn lockstep_fill_walks_as_each_index_alone() {
        for n in [1u64, 2, 3, 5, 64, 65, 1000, 1 << 20, (1 << 20) + 1, 3_000_017] {
            let f = Feistel::new(9, 4, n);
            let first = n / 3;
            let len = (n - first).min(5000) as usize;
            let mut out = vec![MaybeUninit::<i64>::uninit(); len];
            f.fill(first, &mut out);
            for (k, v) in out.iter().enumerate() {
                // SAFETY: fill wrote every slot.
                let v = unsafe { v.assume_init() };
                assert_eq!(v as u64, f.apply(first + k as u64), "n = {n}, index {}", first + k as u64);
            }
        }
    }
}
