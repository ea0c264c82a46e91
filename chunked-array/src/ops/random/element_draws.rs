//! Per-element random sequences for the distributions beyond uniform, normal
//! and integers, rejection samplers included.
//!
//! Counter layout (version [`LAYOUT_VERSION`]; part of the API, since changing
//! it changes every drawn number): the array's key is the first two words of
//! `philox4x32_10([stream_lo, stream_hi, LAYOUT_VERSION, DOMAIN], [seed_lo,
//! seed_hi])`. Element `i` (global flat index) draws its words from counters
//! `(i_lo, i_hi, a_lo, a_hi)` for attempts `a = 0, 1, 2, ...`, four words per
//! attempt, taken in order: a uniform `f64` takes two words (the top 52 bits
//! of `w0 << 32 | w1` as a mantissa, as `uniform`), a standard normal or
//! exponential the 64-bit `w0 << 32 | w1` of the ziggurat (NumPy's 256-layer
//! variant) and more words in its rare slow cases. Element
//! `i`'s numbers depend on `(seed, stream, i)` only: any chunking, scheduler or
//! rank count draws the same array, and a sampler may use as many words as
//! its rejection loop needs without touching any other element's.

use std::mem::MaybeUninit;

use crate::ops::random::philox::{BATCH, Words, philox_batch, philox4x32_10};
use crate::ops::random::ziggurat::{self, WordSource};

/// The version of the counter layout above.
pub const LAYOUT_VERSION: u32 = 1;

/// Tells these keys from any other use of Philox with the same seed.
const DOMAIN: u32 = 0x6469_7374; // "dist"

/// The Philox key of the per-element sequences of `(seed, stream)`.
pub(crate) fn element_key(seed: u64, stream: u64) -> [u32; 2] {
    let w = philox4x32_10(
        [stream as u32, (stream >> 32) as u32, LAYOUT_VERSION, DOMAIN],
        [seed as u32, (seed >> 32) as u32],
    );
    [w[0], w[1]]
}

/// Element `index`'s random words, attempt after attempt.
///
/// ```
/// use chunked_array::random::{ElementDraws, RandomState};
/// // Element 3 of seed 9's uniform_range(0, 2) array is twice element 3's
/// // first uniform.
/// let x = RandomState::new(9).uniform_range(0.0, 2.0, &[5], 2).unwrap().compute().unwrap();
/// let mut draws = ElementDraws::new(9, 0, 3);
/// assert_eq!(x[3], 2.0 * draws.uniform());
/// ```
pub struct ElementDraws {
    key: [u32; 2],
    index: u64,
    /// The next attempt to draw once `words` are used.
    attempt: u64,
    words: [u32; 4],
    used: usize,
}

impl ElementDraws {
    /// The sequence of element `index` of the arrays of `(seed, stream)`.
    ///
    /// ```
    /// use chunked_array::random::ElementDraws;
    /// let (mut a, mut b) = (ElementDraws::new(1, 0, 7), ElementDraws::new(1, 0, 7));
    /// assert_eq!(a.word(), b.word()); // a pure function of (seed, stream, index)
    /// ```
    pub fn new(seed: u64, stream: u64, index: u64) -> ElementDraws {
        ElementDraws::at(element_key(seed, stream), index)
    }

    /// The element's global flat index.
    ///
    /// ```
    /// use chunked_array::random::ElementDraws;
    /// assert_eq!(ElementDraws::new(0, 0, 41).index(), 41);
    /// ```
    pub fn index(&self) -> u64 {
        self.index
    }

    pub(crate) fn at(key: [u32; 2], index: u64) -> ElementDraws {
        ElementDraws { key, index, attempt: 0, words: [0; 4], used: 4 }
    }

    /// The next 32-bit word: word `k % 4` of Philox's output for counter
    /// `(index, k / 4)`.
    ///
    /// ```
    /// use chunked_array::random::ElementDraws;
    /// let mut d = ElementDraws::new(3, 0, 0);
    /// let words: Vec<u32> = (0..5).map(|_| d.word()).collect();
    /// let mut again = ElementDraws::new(3, 0, 0);
    /// assert_eq!(words, (0..5).map(|_| again.word()).collect::<Vec<_>>());
    /// ```
    #[inline(always)]
    pub fn word(&mut self) -> u32 {
        if self.used == 4 {
            let (i, a) = (self.index, self.attempt);
            self.words = philox4x32_10([i as u32, (i >> 32) as u32, a as u32, (a >> 32) as u32], self.key);
            self.attempt += 1;
            self.used = 0;
        }
        self.used += 1;
        self.words[self.used - 1]
    }

    /// A uniform number in `[0, 1)` from the next two words.
    ///
    /// ```
    /// use chunked_array::random::ElementDraws;
    /// let u = ElementDraws::new(0, 0, 0).uniform();
    /// assert!((0.0..1.0).contains(&u));
    /// ```
    #[inline(always)]
    pub fn uniform(&mut self) -> f64 {
        WordSource::uniform(self)
    }

    /// A uniform number in `(0, 1]`: one minus [`ElementDraws::uniform`].
    ///
    /// ```
    /// use chunked_array::random::ElementDraws;
    /// assert_eq!(ElementDraws::new(0, 0, 0).uniform_nonzero(), 1.0 - ElementDraws::new(0, 0, 0).uniform());
    /// ```
    #[inline(always)]
    pub fn uniform_nonzero(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// A standard normal number (the ziggurat: usually two words).
    ///
    /// ```
    /// use chunked_array::random::{ElementDraws, RandomState};
    /// // lognormal(0, 1)'s element 2 is exp of element 2's first normal.
    /// let x = RandomState::new(4).lognormal(0.0, 1.0, &[3], 3).unwrap().compute().unwrap();
    /// assert_eq!(x[2], ElementDraws::new(4, 0, 2).normal().exp());
    /// ```
    #[inline(always)]
    pub fn normal(&mut self) -> f64 {
        ziggurat::normal(self)
    }

    /// A standard exponential number (the ziggurat: usually two words).
    ///
    /// ```
    /// use chunked_array::random::{ElementDraws, RandomState};
    /// let x = RandomState::new(4).exponential(2.0, &[3], 3).unwrap().compute().unwrap();
    /// assert_eq!(x[1], 2.0 * ElementDraws::new(4, 0, 1).exponential());
    /// ```
    #[inline(always)]
    pub fn exponential(&mut self) -> f64 {
        ziggurat::exponential(self)
    }
}

impl WordSource for ElementDraws {
    #[inline(always)]
    fn word(&mut self) -> u32 {
        ElementDraws::word(self)
    }
}

/// A uniform integer in `[0, range)`, `range` in `1..=2^64`, from 64-bit
/// words of `draws`: Lemire's multiply-shift, redrawn below the threshold
/// that makes it exact.
pub(crate) fn bounded_u64(draws: &mut ElementDraws, range: u128) -> u64 {
    let mut word = || (draws.word() as u64) << 32 | draws.word() as u64;
    if range > u64::MAX as u128 {
        return word();
    }
    let range = range as u64;
    let threshold = range.wrapping_neg() % range;
    loop {
        let product = word() as u128 * range as u128;
        if product as u64 >= threshold {
            return (product >> 64) as u64;
        }
    }
}

/// Fills `out` with elements `first..` of the sampler's array: each element
/// starts from its own sequence (`sample` takes its place in `out`), the
/// words of its first attempt for `BATCH` elements at a time from the
/// vectorized Philox (counters `(i, 0)`).
pub(crate) fn fill_elements<T>(
    key: [u32; 2],
    first: u64,
    out: &mut [MaybeUninit<T>],
    sample: &impl Fn(usize, &mut ElementDraws) -> T,
) {
    let mut words: Words = [[0; BATCH]; 4];
    for (b, block) in out.chunks_mut(BATCH).enumerate() {
        let start = first + (b * BATCH) as u64;
        philox_batch(start, [0, 0], key, &mut words);
        for (c, slot) in block.iter_mut().enumerate() {
            let mut draws = ElementDraws::at(key, start + c as u64);
            draws.words = [words[0][c], words[1][c], words[2][c], words[3][c]];
            draws.attempt = 1;
            draws.used = 0;
            slot.write(sample(b * BATCH + c, &mut draws));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batched_first_attempts_match_the_scalar_sequence() {
        let key = element_key(11, 3);
        let first = u32::MAX as u64 - 70;
        let mut out = vec![MaybeUninit::<[u32; 6]>::uninit(); 150];
        fill_elements(key, first, &mut out, &|_, d| std::array::from_fn(|_| d.word()));
        for (k, v) in out.iter().enumerate() {
            // SAFETY: fill_elements wrote every slot.
            let v = unsafe { v.assume_init() };
            let mut d = ElementDraws::new(11, 3, first + k as u64);
            assert_eq!(v, std::array::from_fn(|_| d.word()), "element {}", first + k as u64);
        }
    }

    #[test]
    fn keys_differ_by_seed_and_stream() {
        let keys = [element_key(0, 0), element_key(1, 0), element_key(0, 1), element_key(1 << 32, 0)];
        for i in 0..keys.len() {
            for j in i + 1..keys.len() {
                assert_ne!(keys[i], keys[j]);
            }
        }
    }
}
