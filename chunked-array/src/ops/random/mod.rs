//! Counter-based random arrays (Philox4x32-10): dask's `da.random.RandomState`
//! and `default_rng`, with `random` ([`RandomState::uniform`] or
//! [`RandomState::random`]), `standard_normal`, `normal` and `randint` /
//! `integers` below, and the other distributions (gamma, beta, Poisson,
//! binomial, ...: `continuous.rs`, `location_scale.rs`, `discrete.rs`), whose
//! elements each draw from their own counter sequence ([`ElementDraws`]), so
//! that rejection samplers stay chunking-invariant.
//!
//! Element `i` (global flat index, C order) of an array drawn with seed `s` and
//! stream `k` is a pure function of `(s, k, i)`: the same numbers for every
//! chunking, every scheduler and (with the same kernel on the device) CPU and GPU.
//! dask's numbers change with the chunking; ours do not.
//!
//! Layout of the draws: Philox counter `j` = `(j_lo, j_hi, k_lo, k_hi)`, key =
//! `(s_lo, s_hi)`, giving four 32-bit words `w0..w3`.
//! - uniform `f64`: two elements per counter, the top 52 bits of `w0 << 32 | w1`
//!   (and of `w2 << 32 | w3`) as the mantissa of a number in `[1, 2)`, minus 1;
//! - uniform `f32`: four per counter, the top 23 bits of each word, likewise;
//! - normal `f64`: Box–Muller in `f64` on `u1`, `u2` (the two uniforms above):
//!   `r = sqrt(-2 ln(1 - u1))`, element `2j` is `r cos(2πu2)`, `2j+1` is
//!   `r sin(2πu2)`; normal `f32`: four per counter, two pairs from `w / 2^32`;
//! - integers in `[low, high)`: two per counter, Lemire's multiply-shift of the
//!   64-bit words `(w0, w1)` and `(w2, w3)` by the range (bias below range/2^64;
//!   `f32` arrays: four per counter, one 32-bit word each).

mod continuous;
mod discrete;
mod distributions;
mod element_draws;
mod hypergeometric;
mod location_scale;
mod multivariate;
mod params;
mod permutation;
mod philox;
mod sampled;
mod samplers;
mod ziggurat;

pub use distributions::{Distribution, RandomElement, RandomFloat, fill};
pub use element_draws::{ElementDraws, LAYOUT_VERSION};
pub use params::{IntParam, Param};
pub use philox::philox4x32_10;

use std::mem::MaybeUninit;
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks, for_each_run_start};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};

use crate::ops::random::distributions::{bounded_word, fill_uninit};

/// Generates a block: runs of consecutive global indices filled in one call.
struct RandomOp {
    seed: u64,
    stream: u64,
    dist: Distribution,
}

/// `f(start, len)` for each run of consecutive global indices in a block, in
/// C order: the trailing axes the block spans whole, and one more, are one run.
fn for_each_run(chunks: &Chunks, idx: &[usize], mut f: impl FnMut(u64, usize)) {
    let shape = chunks.block_shape(idx);
    let full = chunks.shape();
    if shape.contains(&0) {
        return;
    }
    let mut run = 1usize;
    let mut split = shape.len();
    while split > 0 {
        run *= shape[split - 1];
        split -= 1;
        if shape[split] != full[split] {
            break;
        }
    }
    for_each_run_start(&full, &chunks.block_start(idx), &shape[..split], |g| f(g, run));
}

/// Block `idx` of an array whose elements are filled run by run:
/// `fill(start, out)` writes the elements from global index `start` into
/// `out`, every slot of it.
fn fill_block<T: Element>(
    chunks: &Chunks,
    idx: &[usize],
    mut fill: impl FnMut(u64, &mut [MaybeUninit<T>]),
) -> ArrayD<T> {
    let shape = chunks.block_shape(idx);
    let total: usize = shape.iter().product();
    let mut out: Vec<T> = crate::block::alloc::block_vec(total);
    // The runs tile the block in C order: each fills the next elements.
    let spare = &mut out.spare_capacity_mut()[..total];
    let mut written = 0;
    for_each_run(chunks, idx, |g, run| {
        fill(g, &mut spare[written..written + run]);
        written += run;
    });
    assert_eq!(written, total, "the runs cover the block");
    // SAFETY: the runs above wrote every one of the `total` elements.
    unsafe { out.set_len(total) };
    ArrayD::from_shape_vec(IxDyn(&shape), out).expect("length matches shape")
}

fn random_block<T: RandomElement>(op: &RandomOp, chunks: &Chunks, idx: &[usize]) -> ArrayD<T> {
    fill_block(chunks, idx, |g, out| fill_uninit(op.seed, op.stream, &op.dist, g, out))
}

struct TypedRandom<T> {
    op: RandomOp,
    _t: std::marker::PhantomData<fn() -> T>,
}
impl<T: RandomElement> BlockOp for TypedRandom<T> {
    fn position_only(&self) -> bool {
        true
    }
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}
    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        match node.device_at(idx) {
            Some(device) if !device.is_emulated() => random_on_cuda::<T>(&self.op, &node.chunks, idx, device),
            // An emulated device's memory is the host's: the CPU generator fills
            // it, and the block moves there without a copy.
            Some(device) => {
                crate::block::device::to_device_block(Arc::new(random_block::<T>(&self.op, &node.chunks, idx)), device)
            }
            None => Ok(Arc::new(random_block::<T>(&self.op, &node.chunks, idx))),
        }
    }
    fn has_device_kernel(&self, _node: &Node) -> bool {
        true
    }
}

/// A block drawn by the Philox kernel on a CUDA device: the same elements as
/// [`random_block`] (see [`chunked_gpu::philox`] for the normal draws' ulps).
fn random_on_cuda<T: RandomElement>(
    op: &RandomOp,
    chunks: &Chunks,
    idx: &[usize],
    device: &chunked_gpu::Device,
) -> Result<Block> {
    let shape = chunks.block_shape(idx);
    let total: usize = shape.iter().product();
    let (mut starts, mut run_len) = (Vec::new(), 0);
    for_each_run(chunks, idx, |g, run| {
        starts.push(g);
        run_len = run;
    });
    // Integer arrays draw 0 or 1 unless built by `integers` (as on the CPU).
    let draw = match (op.dist, T::IS_FLOAT) {
        (Distribution::Integers { .. }, _) | (_, true) => op.dist,
        _ => Distribution::Integers { low: 0, high: 2 },
    };
    if !matches!(T::C_NAME, "f64" | "f32" | "i64" | "i32") {
        // No kernel for the narrower and unsigned integers: drawn on the
        // host (the same numbers), then copied.
        return crate::block::device::to_device_block(Arc::new(random_block::<T>(op, chunks, idx)), device);
    }
    let mut buffer = device.zeros::<T>(total)?;
    chunked_gpu::philox::fill(&mut buffer, op.seed, op.stream, draw, &starts, run_len)?;
    Ok(Arc::new(crate::device::DeviceBlock { buffer, shape }))
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
#[derive(Debug, Clone, PartialEq)]
pub struct RandomState {
    seed: u64,
    stream: u64,
    /// Where the arrays it makes live (`None`: host memory).
    devices: Vec<crate::device::Device>,
}

impl RandomState {
    /// Stream 0 of `seed`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// // dask: da.random.RandomState(42)
    /// let a = RandomState::new(42).uniform::<f64>(&[6], 2).unwrap().compute().unwrap();
    /// let b = RandomState::new(42).uniform::<f64>(&[6], 3).unwrap().compute().unwrap();
    /// assert_eq!(a, b); // the same seed gives the same numbers, whatever the chunks
    /// assert_ne!(a, RandomState::new(43).uniform::<f64>(&[6], 2).unwrap().compute().unwrap());
    /// ```
    pub fn new(seed: u64) -> Self {
        RandomState { seed, stream: 0, devices: Vec::new() }
    }

    /// An independent stream of the same seed.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let draw = |rng: RandomState| rng.uniform::<f64>(&[4], 2).unwrap().compute().unwrap();
    /// assert_eq!(draw(RandomState::new(1).with_stream(0)), draw(RandomState::new(1)));
    /// assert_ne!(draw(RandomState::new(1).with_stream(1)), draw(RandomState::new(1)));
    /// ```
    pub fn with_stream(self, stream: u64) -> Self {
        RandomState { stream, ..self }
    }

    /// The same generator making its arrays on `device`: the Philox kernel
    /// fills their blocks there, with the same values as on the host (dask's
    /// `RandomState(RandomState=cupy.random.RandomState)`).
    ///
    /// ```
    /// use chunked_array::{device::Device, random::RandomState};
    /// let dev = Device::emulated(64 << 20);
    /// let x = RandomState::new(7).on_device(&dev).uniform::<f64>(&[100, 10], [25, 10]).unwrap();
    /// assert!(x.device().is_some());
    /// assert_eq!(x.compute().unwrap(), RandomState::new(7).uniform::<f64>(&[100, 10], [25, 10]).unwrap().compute().unwrap());
    /// ```
    pub fn on_device(self, device: &crate::device::Device) -> Self {
        self.on_devices(std::slice::from_ref(device))
    }

    /// The same generator making its arrays' blocks on `devices` in turn
    /// (see [`Array::to_devices`]); none: host memory.
    ///
    /// ```
    /// use chunked_array::{device::Device, random::RandomState};
    /// let gpus = [Device::emulated(1 << 20), Device::emulated(1 << 20)];
    /// let x = RandomState::new(7).on_devices(&gpus).uniform::<f64>(&[8], 2).unwrap();
    /// assert_eq!(x.devices().len(), 2);
    /// assert_eq!(x.compute().unwrap(), RandomState::new(7).uniform::<f64>(&[8], 2).unwrap().compute().unwrap());
    /// ```
    pub fn on_devices(self, devices: &[crate::device::Device]) -> Self {
        RandomState { devices: devices.to_vec(), ..self }
    }

    fn array<T: RandomElement>(
        &self,
        name: &str,
        dist: Distribution,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        let op = RandomOp { seed: self.seed, stream: self.stream, dist };
        // A source moved to a device makes its blocks there (no host copy).
        Ok(Array::source(name, chunks, TypedRandom::<T> { op, _t: std::marker::PhantomData }).to_devices(&self.devices))
    }

    /// Uniform on `[0, 1)` (dask's `random`).
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// // dask: da.random.RandomState(0).random(1000, chunks=250)
    /// let x = RandomState::new(0).uniform::<f64>(&[1000], 250).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|u| (0.0..1.0).contains(u)));
    /// assert!((x.mean().unwrap() - 0.5).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn uniform<T: RandomFloat>(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        self.array("random_uniform", Distribution::Uniform, shape, chunks)
    }

    /// Standard normal.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let x = RandomState::new(0).standard_normal::<f64>(&[10_000], 2_500).unwrap().compute().unwrap();
    /// assert!(x.mean().unwrap().abs() < 0.05);
    /// assert!((x.std(0.0) - 1.0).abs() < 0.05);
    /// ```
    ///
    /// # Errors
    /// [`Error::BadChunks`] when the chunk spec does not fit the shape.
    pub fn standard_normal<T: RandomFloat>(&self, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        self.normal(0.0, 1.0, shape, chunks)
    }

    /// Normal with mean `mean` and standard deviation `std`.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(0);
    /// // dask: rng.normal(5.0, 2.0, size=10_000, chunks=2_500)
    /// let x = rng.normal::<f64>(5.0, 2.0, &[10_000], 2_500).unwrap().compute().unwrap();
    /// assert!((x.mean().unwrap() - 5.0).abs() < 0.1 && (x.std(0.0) - 2.0).abs() < 0.1);
    /// assert!(rng.normal::<f64>(0.0, -1.0, &[4], 2).is_err());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a negative or non-finite `std` or non-finite
    /// `mean`; [`Error::BadChunks`].
    pub fn normal<T: RandomFloat>(
        &self,
        mean: impl Into<Param>,
        std: impl Into<Param>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        let prepare = |[mean, std]: [f64; 2]| {
            if !(std >= 0.0 && std.is_finite()) {
                return Err(Error::invalid("std", std, "must be finite and >= 0"));
            }
            if !mean.is_finite() {
                return Err(Error::invalid("mean", mean, "must be finite"));
            }
            Ok((mean, std))
        };
        let (mean, std) = match (mean.into(), std.into()) {
            (Param::Value(mean), Param::Value(std)) => {
                let (mean, std) = prepare([mean, std])?;
                return self.array("random_normal", Distribution::Normal { mean, std }, shape, chunks);
            }
            params => params,
        };
        // Array-valued: `mean + std * z` of the standard normal's `z`, the
        // numbers' formula in f64 (for f32, `z` rounded to f32 first).
        let z = self.normal::<T>(0.0, 1.0, shape, chunks)?;
        let shifted = params::mapped_with("random_normal", &z, [mean, std], prepare, |&(mean, std), z: T| {
            T::from_f64(mean + std * z.to_f64())
        })?;
        Ok(shifted.to_devices(&self.devices))
    }

    /// Uniform integers on `[low, high)`; each bound a number or an `i64`
    /// array broadcast against `shape` (NumPy's `integers(low, high_array)`,
    /// see [`IntParam`]), element `i` the one its bounds as numbers give.
    ///
    /// ```
    /// use chunked_array::{Array, random::RandomState};
    /// let rng = RandomState::new(0);
    /// // dask: rng.randint(1, 7, size=100, chunks=25)
    /// let x = rng.integers::<i64>(1, 7, &[100], 25).unwrap().compute().unwrap();
    /// assert!(x.iter().all(|v| (1..7).contains(v)));
    /// assert!(rng.integers::<i32>(0, 1 << 40, &[4], 2).is_err()); // does not fit i32
    /// // A bound per column: column j in [0, 10^j)
    /// let high = Array::<i64>::from_vec(&[3], vec![1, 10, 100], 3).unwrap();
    /// let y = rng.integers::<u8>(0, &high, &[50, 3], [20, 3]).unwrap().compute().unwrap();
    /// assert!((0..50).all(|i| y[[i, 0]] == 0 && y[[i, 1]] < 10 && y[[i, 2]] < 100));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `high <= low` or the range does not
    /// fit `T` (for array bounds, when their blocks are made, naming the
    /// values).
    pub fn integers<T: RandomElement>(
        &self,
        low: impl Into<IntParam>,
        high: impl Into<IntParam>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        self.integers_in(low.into(), high.into(), false, shape, chunks)
    }

    /// [`RandomState::integers`] on `[low, high)`, or on `[low, high]` when
    /// `endpoint`.
    fn integers_in<T: RandomElement>(
        &self,
        low: IntParam,
        high: IntParam,
        endpoint: bool,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        let prepare = move |[low, high]: [f64; 2]| {
            let (low, high) = (params::integer(low), params::integer(high));
            let high = match endpoint {
                true if high < low => {
                    return Err(Error::invalid("high", high, format!("must be at least low = {low}")));
                }
                true => high.checked_add(1).ok_or_else(|| Error::invalid("high", high, "must be below i64::MAX"))?,
                false => high,
            };
            if high <= low {
                return Err(Error::invalid("high", high, format!("must be greater than low = {low}")));
            }
            if T::from_i64(low).to_i64() != low || T::from_i64(high - 1).to_i64() != high - 1 {
                return Err(Error::invalid("low..high", (low, high), format!("does not fit {}", T::DTYPE)));
            }
            Ok((low, high))
        };
        let params = [low.as_bits(), high.as_bits()];
        if let [Param::Value(low), Param::Value(high)] = params {
            let (low, high) = prepare([low, high])?;
            return self.array("random_integers", Distribution::Integers { low, high }, shape, chunks);
        }
        let (seed, stream) = (self.seed, self.stream);
        if T::DTYPE == DType::F32 {
            // f32 draws four 32-bit words to a counter: runs of equal bounds.
            let fill_run = move |&(low, high): &(i64, i64), start, run: &mut [_]| {
                fill_uninit(seed, stream, &Distribution::Integers { low, high }, start, run)
            };
            return self.filled_runs_with("random_integers", params, shape, chunks, prepare, fill_run);
        }
        // Each element's 64-bit word, bounded by its own range: the numbers
        // of the packed layout, with the generator run once per piece.
        let finish = |&(low, high): &(i64, i64), word| T::from_i64(bounded_word(word, low, high));
        self.filled_words_with("random_integers", params, shape, chunks, prepare, finish)
    }

    /// Integers uniform on `[low, high)` with bounds past `i64`'s range, for
    /// `u64` (up to `2^64`) and `i64` (up to `2^63`): NumPy's
    /// `integers(low, high, dtype=np.uint64)`. Bounds within `i64` give the
    /// numbers of [`RandomState::integers`]; wider ranges draw each element
    /// from its own sequence (Lemire's multiply-and-reject on 64-bit words),
    /// on the host.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(5);
    /// let top = rng.integers_wide::<u64>(1 << 63, 1 << 64, &[1000], 250).unwrap().compute().unwrap();
    /// assert!(top.iter().all(|&v| v >= 1 << 63));
    /// let small = rng.integers_wide::<u64>(0, 10, &[8], 4).unwrap().compute().unwrap();
    /// assert_eq!(small, rng.integers::<u64>(0, 10, &[8], 8).unwrap().compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `high <= low`, or the range does not
    /// fit `T` (beyond `i64`, only `u64` and `i64` have room).
    pub fn integers_wide<T: RandomElement>(
        &self,
        low: i128,
        high: i128,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        if high <= low {
            return Err(Error::invalid("high", high, format!("must be greater than low = {low}")));
        }
        if let (Ok(lo), Ok(hi)) = (i64::try_from(low), i64::try_from(high)) {
            return self.integers(lo, hi, shape, chunks);
        }
        let room = match T::DTYPE {
            DType::U64 => 0..1i128 << 64,
            DType::I64 => i64::MIN as i128..1i128 << 63,
            _ => 0..0,
        };
        if low < room.start || high > room.end {
            return Err(Error::invalid("low..high", (low, high), format!("does not fit {}", T::DTYPE)));
        }
        // At most 2^64 values: a range of 2^64 takes the whole word.
        let range = (high - low) as u128;
        self.sampled("random_integers_wide", shape, chunks, move |d| {
            let v = low + element_draws::bounded_u64(d, range) as i128;
            // The two's-complement bits of `v` in `T` (u64 or i64).
            T::from_i64(v as u64 as i64)
        })
    }

    /// Integers uniform on `[low, high]`, the endpoint included (NumPy's
    /// `integers(low, high, endpoint=True)` and dask's `random_integers`):
    /// [`RandomState::integers`] of `low..high + 1`, the same numbers. Each
    /// bound a number or an array, as there.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let rng = RandomState::new(3);
    /// let dice = rng.integers_inclusive::<u8>(1, 6, &[10_000], 1000).unwrap().compute().unwrap();
    /// assert!(dice.iter().all(|d| (1..=6).contains(d)) && dice.iter().any(|&d| d == 6));
    /// assert_eq!(dice, rng.integers::<u8>(1, 7, &[10_000], 1000).unwrap().compute().unwrap());
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `high < low`, `high` is `i64::MAX`
    /// (the range would not fit), or the range does not fit `T`.
    pub fn integers_inclusive<T: RandomElement>(
        &self,
        low: impl Into<IntParam>,
        high: impl Into<IntParam>,
        shape: &[usize],
        chunks: impl Into<ChunkSpec>,
    ) -> Result<Array<T>> {
        self.integers_in(low.into(), high.into(), true, shape, chunks)
    }

    /// `length` random bytes (dask's and NumPy's `bytes`), computed now: the
    /// words of Philox counters 0, 1, ... under a key of their own for the
    /// seed and stream, four little-endian bytes a word.
    ///
    /// ```
    /// use chunked_array::random::RandomState;
    /// let b = RandomState::new(5).bytes(20);
    /// assert_eq!(b.len(), 20);
    /// assert_eq!(b[..10], RandomState::new(5).bytes(10)[..]); // a prefix of a longer draw
    /// assert_ne!(b, RandomState::new(6).bytes(20));
    /// ```
    pub fn bytes(&self, length: usize) -> Vec<u8> {
        // "byte": tells this key from the other uses of Philox with the seed.
        const DOMAIN: u32 = 0x6279_7465;
        let (seed, stream) = (self.seed, self.stream);
        let key = philox4x32_10(
            [stream as u32, (stream >> 32) as u32, LAYOUT_VERSION, DOMAIN],
            [seed as u32, (seed >> 32) as u32],
        );
        let mut out = Vec::with_capacity(length.next_multiple_of(16));
        for counter in 0..length.div_ceil(16) as u64 {
            let words = philox4x32_10([counter as u32, (counter >> 32) as u32, 0, 0], [key[0], key[1]]);
            words.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        }
        out.truncate(length);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random::distributions::{bounded, box_muller, unit_f32, unit_f64};
    #[cfg(target_arch = "x86_64")]
    use crate::ops::random::philox::philox_batch_avx2;
    use crate::ops::random::philox::{BATCH, Words, philox_batch};

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
    fn batches_match_scalar_across_the_32_bit_carry() {
        let first = u32::MAX as u64 - 13;
        let mut words: Words = [[0; BATCH]; 4];
        philox_batch(first, [5, 6], [7, 8], &mut words);
        // Every vector path this CPU has gives the same words.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut w2: Words = [[0; BATCH]; 4];
            unsafe { philox_batch_avx2(first, [5, 6], [7, 8], &mut w2) };
            assert_eq!(w2, words);
        }
        // Column c of all four word rows: a range reads it more plainly than zips.
        #[allow(clippy::needless_range_loop)]
        for c in 0..BATCH {
            let j = first + c as u64;
            let s = philox4x32_10([j as u32, (j >> 32) as u32, 5, 6], [7, 8]);
            assert_eq!([words[0][c], words[1][c], words[2][c], words[3][c]], s, "counter {j}");
        }
    }

    /// The batched, vectorized paths give exactly the documented per-element
    /// definition (which a GPU kernel must reproduce).
    #[test]
    fn fill_matches_the_scalar_definition() {
        let (seed, stream) = (0x1234_5678_9abc_def0u64, 7u64);
        let key = [seed as u32, (seed >> 32) as u32];
        let words = |j: u64| philox4x32_10([j as u32, (j >> 32) as u32, stream as u32, 0], key);
        for (first, n) in [(0u64, 1usize), (3, 300), (u32::MAX as u64 * 2 - 5, 200)] {
            let mut u = vec![0.0f64; n];
            fill(seed, stream, &Distribution::Uniform, first, &mut u);
            let mut z = vec![0.0f64; n];
            fill(seed, stream, &Distribution::Normal { mean: 1.0, std: 2.0 }, first, &mut z);
            let mut f = vec![0.0f32; n];
            fill(seed, stream, &Distribution::Uniform, first, &mut f);
            let mut k = vec![0i64; n];
            fill(seed, stream, &Distribution::Integers { low: -3, high: 1000 }, first, &mut k);
            for i in 0..n {
                let e = first + i as u64;
                let w = words(e / 2);
                let h = 2 * (e % 2) as usize;
                assert_eq!(u[i], unit_f64(w[h], w[h + 1]), "uniform f64 element {e}");
                assert_eq!(k[i], bounded(w[h], w[h + 1], -3, 1000), "integer element {e}");
                let (a, b) = box_muller(unit_f64(w[0], w[1]), unit_f64(w[2], w[3]));
                assert_eq!(z[i], 1.0 + 2.0 * if e.is_multiple_of(2) { a } else { b }, "normal element {e}");
                let w4 = words(e / 4);
                assert_eq!(f[i], unit_f32(w4[(e % 4) as usize]), "uniform f32 element {e}");
            }
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
