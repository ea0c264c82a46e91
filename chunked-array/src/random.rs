//! Counter-based random arrays (Philox4x32-10).
//!
//! Element `i` (global flat index, C order) of an array drawn with seed `s` and
//! stream `k` is a pure function of `(s, k, i)`: the same numbers for every
//! chunking, every scheduler and (with the same kernel on the device) CPU and GPU.
//! dask's numbers change with the chunking; ours do not.
//!
//! Layout of the draws: Philox counter `j` = `(j_lo, j_hi, k_lo, k_hi)`, key =
//! `(s_lo, s_hi)`, giving four 32-bit words `w0..w3`.
//! - uniform `f64`: two elements per counter, `((w0 << 32 | w1) >> 11) * 2^-53` and
//!   the same from `(w2, w3)`, in `[0, 1)`;
//! - uniform `f32`: four per counter, `(w >> 8) * 2^-24`;
//! - normal: Box–Muller in `f64` on `u1 = ((w0 << 32 | w1) >> 11 + 1) * 2^-53`
//!   (in `(0, 1]`) and `u2` from `(w2, w3)`; element `2j` is `r cos(2πu2)`, `2j+1`
//!   is `r sin(2πu2)` (`f32` arrays use the same values rounded);
//! - integers in `[low, high)`: two per counter, Lemire's multiply-shift of the
//!   64-bit words `(w0, w1)` and `(w2, w3)` by the range (bias below range/2^64;
//!   `f32` arrays: four per counter, one 32-bit word each).

use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::{Element, Float};
use crate::error::{Error, Result};
use crate::graph::{Block, BlockOp, Node};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds (Salmon et al., SC'11), as in Random123 and cuRAND.
#[inline(always)]
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = ctr;
    let mut k = key;
    for r in 0..10 {
        if r > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        let p0 = M0 as u64 * c[0] as u64;
        let p1 = M1 as u64 * c[2] as u64;
        c = [(p1 >> 32) as u32 ^ c[1] ^ k[0], p1 as u32, (p0 >> 32) as u32 ^ c[3] ^ k[1], p0 as u32];
    }
    c
}

/// Counters evaluated together, so that the rounds vectorize across lanes.
const LANES: usize = 8;

#[inline(always)]
fn philox_lanes(first: u64, stream: [u32; 2], key: [u32; 2]) -> [[u32; LANES]; 4] {
    let mut c0 = [0u32; LANES];
    let mut c1 = [0u32; LANES];
    let mut c2 = [stream[0]; LANES];
    let mut c3 = [stream[1]; LANES];
    for l in 0..LANES {
        let j = first + l as u64;
        c0[l] = j as u32;
        c1[l] = (j >> 32) as u32;
    }
    let mut k = key;
    for r in 0..10 {
        if r > 0 {
            k[0] = k[0].wrapping_add(W0);
            k[1] = k[1].wrapping_add(W1);
        }
        for l in 0..LANES {
            let p0 = M0 as u64 * c0[l] as u64;
            let p1 = M1 as u64 * c2[l] as u64;
            let n0 = (p1 >> 32) as u32 ^ c1[l] ^ k[0];
            let n2 = (p0 >> 32) as u32 ^ c3[l] ^ k[1];
            c1[l] = p1 as u32;
            c3[l] = p0 as u32;
            c0[l] = n0;
            c2[l] = n2;
        }
    }
    [c0, c1, c2, c3]
}

/// How an element type turns Philox words into values of a distribution.
pub trait RandomElement: Element {
    /// Elements produced per Philox counter.
    const PER_COUNTER: usize;
    /// Converts one counter's words into `PER_COUNTER` values.
    fn convert(words: [u32; 4], dist: &Distribution, out: &mut [Self]);
}

/// The distribution of a random array.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Uniform on `[0, 1)`.
    Uniform,
    /// Normal with the given mean and standard deviation.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std: f64,
    },
    /// Uniform integers on `[low, high)`.
    Integers {
        /// Smallest value.
        low: i64,
        /// One past the largest value.
        high: i64,
    },
}

#[inline(always)]
fn u53(hi: u32, lo: u32) -> u64 {
    ((hi as u64) << 32 | lo as u64) >> 11
}

#[inline(always)]
fn box_muller(w: [u32; 4]) -> (f64, f64) {
    const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
    let u1 = (u53(w[0], w[1]) + 1) as f64 * SCALE;
    let u2 = u53(w[2], w[3]) as f64 * SCALE;
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    (r * c, r * s)
}

#[inline(always)]
fn bounded(hi: u32, lo: u32, low: i64, high: i64) -> i64 {
    let range = high.wrapping_sub(low) as u64;
    let r = (hi as u64) << 32 | lo as u64;
    low.wrapping_add(((r as u128 * range as u128) >> 64) as i64)
}

impl RandomElement for f64 {
    const PER_COUNTER: usize = 2;
    #[inline(always)]
    fn convert(w: [u32; 4], dist: &Distribution, out: &mut [f64]) {
        const SCALE: f64 = 1.0 / (1u64 << 53) as f64;
        match *dist {
            Distribution::Uniform => {
                out[0] = u53(w[0], w[1]) as f64 * SCALE;
                out[1] = u53(w[2], w[3]) as f64 * SCALE;
            }
            Distribution::Normal { mean, std } => {
                let (a, b) = box_muller(w);
                out[0] = mean + std * a;
                out[1] = mean + std * b;
            }
            Distribution::Integers { low, high } => {
                out[0] = bounded(w[0], w[1], low, high) as f64;
                out[1] = bounded(w[2], w[3], low, high) as f64;
            }
        }
    }
}

impl RandomElement for f32 {
    const PER_COUNTER: usize = 4;
    #[inline(always)]
    fn convert(w: [u32; 4], dist: &Distribution, out: &mut [f32]) {
        const SCALE: f32 = 1.0 / (1u32 << 24) as f32;
        match *dist {
            Distribution::Uniform => {
                for i in 0..4 {
                    out[i] = (w[i] >> 8) as f32 * SCALE;
                }
            }
            Distribution::Normal { mean, std } => {
                // Two Box–Muller pairs from 24-bit uniforms, computed in f64.
                for p in 0..2 {
                    let u1 = ((w[2 * p] >> 8) + 1) as f64 / (1u32 << 24) as f64;
                    let u2 = (w[2 * p + 1] >> 8) as f64 / (1u32 << 24) as f64;
                    let r = (-2.0 * u1.ln()).sqrt();
                    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
                    out[2 * p] = (mean + std * r * c) as f32;
                    out[2 * p + 1] = (mean + std * r * s) as f32;
                }
            }
            Distribution::Integers { low, high } => {
                // 32-bit multiply-shift per word: f32 holds 24 bits, so the bias
                // (below range / 2^32) is far under its resolution.
                let range = high.wrapping_sub(low) as u64;
                for i in 0..4 {
                    out[i] = low.wrapping_add(((w[i] as u128 * range as u128) >> 32) as i64) as f32;
                }
            }
        }
    }
}

macro_rules! random_int {
    ($t:ty) => {
        impl RandomElement for $t {
            const PER_COUNTER: usize = 2;
            #[inline(always)]
            fn convert(w: [u32; 4], dist: &Distribution, out: &mut [$t]) {
                let (low, high) = match *dist {
                    Distribution::Integers { low, high } => (low, high),
                    // Integer arrays are only built with `integers`.
                    _ => (0, 2),
                };
                out[0] = bounded(w[0], w[1], low, high) as $t;
                out[1] = bounded(w[2], w[3], low, high) as $t;
            }
        }
    };
}
random_int!(i32);
random_int!(i64);

/// Floating-point types with uniform and normal draws.
pub trait RandomFloat: RandomElement + Float {}
impl RandomFloat for f32 {}
impl RandomFloat for f64 {}

/// Fills `out` with elements `first..first + out.len()` of the stream.
#[inline(always)]
fn fill_generic<T: RandomElement>(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [T]) {
    let per = T::PER_COUNTER as u64;
    let mut tmp = [T::default(); 4];
    let mut e = first;
    let mut i = 0;
    let n = out.len();
    // Head: up to the first counter boundary.
    while i < n && e % per != 0 {
        let j = e / per;
        T::convert(philox4x32_10([j as u32, (j >> 32) as u32, stream[0], stream[1]], key), dist, &mut tmp);
        out[i] = tmp[(e % per) as usize];
        i += 1;
        e += 1;
    }
    // Body: LANES counters at a time.
    let batch = LANES * T::PER_COUNTER;
    while n - i >= batch {
        let w = philox_lanes(e / per, stream, key);
        let chunk = &mut out[i..i + batch];
        for l in 0..LANES {
            T::convert([w[0][l], w[1][l], w[2][l], w[3][l]], dist, &mut chunk[l * T::PER_COUNTER..(l + 1) * T::PER_COUNTER]);
        }
        i += batch;
        e += batch as u64;
    }
    // Tail.
    while i < n {
        let j = e / per;
        T::convert(philox4x32_10([j as u32, (j >> 32) as u32, stream[0], stream[1]], key), dist, &mut tmp);
        let take = (T::PER_COUNTER).min(n - i);
        out[i..i + take].copy_from_slice(&tmp[..take]);
        i += take;
        e += take as u64;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_avx2<T: RandomElement>(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [T]) {
    fill_generic(key, stream, dist, first, out)
}

/// Fills `out` with elements `first..` of stream `(seed, stream)` of `dist`.
pub fn fill<T: RandomElement>(seed: u64, stream: u64, dist: &Distribution, first: u64, out: &mut [T]) {
    let key = [seed as u32, (seed >> 32) as u32];
    let stream = [stream as u32, (stream >> 32) as u32];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { fill_avx2(key, stream, dist, first, out) };
    }
    fill_generic(key, stream, dist, first, out)
}

/// Generates a block: runs of consecutive global indices filled in one call.
struct RandomOp {
    seed: u64,
    stream: u64,
    dist: Distribution,
}

fn random_block<T: RandomElement>(op: &RandomOp, chunks: &Chunks, idx: &[usize]) -> ArrayD<T> {
    let shape = chunks.block_shape(idx);
    let start = chunks.block_start(idx);
    let full = chunks.shape();
    let total: usize = shape.iter().product();
    let mut out = vec![T::default(); total];
    if total > 0 {
        // Trailing axes the block spans whole are one contiguous run of global indices.
        let mut run = 1usize;
        let mut split = shape.len();
        while split > 0 {
            run *= shape[split - 1];
            split -= 1;
            if shape[split] != full[split] {
                break;
            }
        }
        let outer = &shape[..split];
        let mut gstride = vec![1u64; full.len()];
        for a in (0..full.len().saturating_sub(1)).rev() {
            gstride[a] = gstride[a + 1] * full[a + 1] as u64;
        }
        let base: u64 = start.iter().zip(&gstride).map(|(&s, &g)| s as u64 * g).sum();
        let mut counter = vec![0usize; outer.len()];
        for row in out.chunks_mut(run) {
            let g = base + counter.iter().zip(&gstride).map(|(&c, &s)| c as u64 * s).sum::<u64>();
            fill(op.seed, op.stream, &op.dist, g, row);
            for a in (0..outer.len()).rev() {
                counter[a] += 1;
                if counter[a] < outer[a] {
                    break;
                }
                counter[a] = 0;
            }
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), out).expect("length matches shape")
}

struct TypedRandom<T> {
    op: RandomOp,
    _t: std::marker::PhantomData<fn() -> T>,
}
impl<T: RandomElement> BlockOp for TypedRandom<T> {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        Ok(Arc::new(random_block::<T>(&self.op, &node.chunks, idx)))
    }
}

/// A seeded source of random arrays (dask's `da.random.RandomState` /
/// `default_rng`), reproducible across chunkings.
///
/// ```
/// use chunked_array::random::RandomState;
/// let rng = RandomState::new(42);
/// let a = rng.uniform::<f64>(&[1000], 100).unwrap().compute().unwrap();
/// let b = rng.uniform::<f64>(&[1000], 7).unwrap().compute().unwrap();
/// assert_eq!(a, b);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomState {
    seed: u64,
    stream: u64,
}

impl RandomState {
    /// Stream 0 of `seed`.
    pub fn new(seed: u64) -> Self {
        RandomState { seed, stream: 0 }
    }

    /// An independent stream of the same seed.
    pub fn with_stream(self, stream: u64) -> Self {
        RandomState { stream, ..self }
    }

    fn array<T: RandomElement>(&self, name: &str, dist: Distribution, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        let op = RandomOp { seed: self.seed, stream: self.stream, dist };
        Ok(Array::source(name, chunks, TypedRandom::<T> { op, _t: std::marker::PhantomData }))
    }

    /// Uniform on `[0, 1)` (dask's `random`).
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn uniform<T: RandomFloat>(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        self.array("random_uniform", Distribution::Uniform, shape, chunks)
    }

    /// Standard normal.
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn standard_normal<T: RandomFloat>(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        self.normal(0.0, 1.0, shape, chunks)
    }

    /// Normal with mean `mean` and standard deviation `std`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a negative or non-finite `std` or non-finite
    /// `mean`; [`Error::BadChunks`].
    pub fn normal<T: RandomFloat>(&self, mean: f64, std: f64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        if !(std >= 0.0 && std.is_finite()) {
            return Err(Error::invalid("std", std, "must be finite and >= 0"));
        }
        if !mean.is_finite() {
            return Err(Error::invalid("mean", mean, "must be finite"));
        }
        self.array("random_normal", Distribution::Normal { mean, std }, shape, chunks)
    }

    /// Uniform integers on `[low, high)`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `high <= low` or the range does not fit `T`.
    pub fn integers<T: RandomElement>(&self, low: i64, high: i64, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        if high <= low {
            return Err(Error::invalid("high", high, format!("must be greater than low = {low}")));
        }
        if T::from_i64(low).to_i64() != low || T::from_i64(high - 1).to_i64() != high - 1 {
            return Err(Error::invalid("low..high", (low, high), format!("does not fit {}", T::DTYPE)));
        }
        self.array("random_integers", Distribution::Integers { low, high }, shape, chunks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors of Random123 (kat_vectors, philox4x32_10).
    #[test]
    fn philox_known_answers() {
        assert_eq!(philox4x32_10([0, 0, 0, 0], [0, 0]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX, u32::MAX]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn lanes_match_scalar() {
        let w = philox_lanes(u32::MAX as u64 - 3, [5, 6], [7, 8]);
        for l in 0..LANES {
            let j = u32::MAX as u64 - 3 + l as u64;
            let s = philox4x32_10([j as u32, (j >> 32) as u32, 5, 6], [7, 8]);
            assert_eq!([w[0][l], w[1][l], w[2][l], w[3][l]], s);
        }
    }

    #[test]
    fn fill_is_offset_invariant() {
        let mut all = vec![0.0f64; 100];
        fill(3, 0, &Distribution::Uniform, 0, &mut all);
        for start in [1usize, 2, 17, 33] {
            let mut part = vec![0.0f64; 100 - start];
            fill(3, 0, &Distribution::Uniform, start as u64, &mut part);
            assert_eq!(&all[start..], &part[..]);
        }
    }
}
