//! Counter-based random arrays (Philox4x32-10).
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

use std::mem::MaybeUninit;
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::chunks::{for_each_run_start, ChunkSpec, Chunks};
use crate::element::{Element, Float};
use crate::error::{Error, Result};
use crate::block::Block;
use crate::graph::{BlockOp, Node};

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

/// Counters generated per batch: the words of a batch fit in L1.
const BATCH: usize = 64;

/// The four words of `BATCH` consecutive counters from `first`, word-major.
type Words = [[u32; BATCH]; 4];

fn philox_batch(first: u64, stream: [u32; 2], key: [u32; 2], out: &mut Words) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU supports AVX-512F (checked just above).
        unsafe { philox_batch_avx512(first, stream, key, out) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { philox_batch_avx2(first, stream, key, out) };
        return;
    }
    for (c, j) in (first..first + BATCH as u64).enumerate() {
        let w = philox4x32_10([j as u32, (j >> 32) as u32, stream[0], stream[1]], key);
        for k in 0..4 {
            out[k][c] = w[k];
        }
    }
}

/// Eight counters per 256-bit register: `_mm256_mul_epu32` multiplies the even
/// 32-bit lanes, so odd lanes are shifted down, multiplied, and blended back.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn philox_batch_avx2(first: u64, stream: [u32; 2], key: [u32; 2], out: &mut Words) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): AVX2 is enabled for this function; loads and stores are
    // unaligned ones within `out` and local arrays of 8 u32.
    unsafe {
        const ODD: i32 = 0b1010_1010;
        let m0 = _mm256_set1_epi64x(M0 as i64);
        let m1 = _mm256_set1_epi64x(M1 as i64);
        // (lo, hi) words of the 64-bit products of the 8 lanes of `x` with `m`.
        let mulhilo = |x: __m256i, m: __m256i| -> (__m256i, __m256i) {
            let even = _mm256_mul_epu32(x, m);
            let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(x), m);
            let lo = _mm256_blend_epi32::<ODD>(even, _mm256_slli_epi64::<32>(odd));
            let hi = _mm256_blend_epi32::<ODD>(_mm256_srli_epi64::<32>(even), odd);
            (lo, hi)
        };
        for g in 0..BATCH / 8 {
            let mut lo = [0u32; 8];
            let mut hi = [0u32; 8];
            for l in 0..8 {
                let j = first + (g * 8 + l) as u64;
                lo[l] = j as u32;
                hi[l] = (j >> 32) as u32;
            }
            let mut c0 = _mm256_loadu_si256(lo.as_ptr() as *const __m256i);
            let mut c1 = _mm256_loadu_si256(hi.as_ptr() as *const __m256i);
            let mut c2 = _mm256_set1_epi32(stream[0] as i32);
            let mut c3 = _mm256_set1_epi32(stream[1] as i32);
            let mut k = key;
            for r in 0..10 {
                if r > 0 {
                    k[0] = k[0].wrapping_add(W0);
                    k[1] = k[1].wrapping_add(W1);
                }
                let (lo0, hi0) = mulhilo(c0, m0);
                let (lo1, hi1) = mulhilo(c2, m1);
                let k0 = _mm256_set1_epi32(k[0] as i32);
                let k1 = _mm256_set1_epi32(k[1] as i32);
                c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), k0);
                c1 = lo1;
                c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), k1);
                c3 = lo0;
            }
            for (w, v) in out.iter_mut().zip([c0, c1, c2, c3]) {
                _mm256_storeu_si256(w[g * 8..].as_mut_ptr() as *mut __m256i, v);
            }
        }
    }
}

/// Sixteen counters per 512-bit register, as [`philox_batch_avx2`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn philox_batch_avx512(first: u64, stream: [u32; 2], key: [u32; 2], out: &mut Words) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): AVX-512F is enabled for this function; loads and stores
    // are unaligned ones within `out` and local arrays of 16 u32.
    unsafe {
        const ODD: __mmask16 = 0xAAAA;
        let m0 = _mm512_set1_epi64(M0 as i64);
        let m1 = _mm512_set1_epi64(M1 as i64);
        let mulhilo = |x: __m512i, m: __m512i| -> (__m512i, __m512i) {
            let even = _mm512_mul_epu32(x, m);
            let odd = _mm512_mul_epu32(_mm512_srli_epi64::<32>(x), m);
            let lo = _mm512_mask_blend_epi32(ODD, even, _mm512_slli_epi64::<32>(odd));
            let hi = _mm512_mask_blend_epi32(ODD, _mm512_srli_epi64::<32>(even), odd);
            (lo, hi)
        };
        for g in 0..BATCH / 16 {
            let mut lo = [0u32; 16];
            let mut hi = [0u32; 16];
            for l in 0..16 {
                let j = first + (g * 16 + l) as u64;
                lo[l] = j as u32;
                hi[l] = (j >> 32) as u32;
            }
            let mut c0 = _mm512_loadu_si512(lo.as_ptr() as *const __m512i);
            let mut c1 = _mm512_loadu_si512(hi.as_ptr() as *const __m512i);
            let mut c2 = _mm512_set1_epi32(stream[0] as i32);
            let mut c3 = _mm512_set1_epi32(stream[1] as i32);
            let mut k = key;
            for r in 0..10 {
                if r > 0 {
                    k[0] = k[0].wrapping_add(W0);
                    k[1] = k[1].wrapping_add(W1);
                }
                let (lo0, hi0) = mulhilo(c0, m0);
                let (lo1, hi1) = mulhilo(c2, m1);
                c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), _mm512_set1_epi32(k[0] as i32));
                c1 = lo1;
                c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), _mm512_set1_epi32(k[1] as i32));
                c3 = lo0;
            }
            for (w, v) in out.iter_mut().zip([c0, c1, c2, c3]) {
                _mm512_storeu_si512(w[g * 16..].as_mut_ptr() as *mut __m512i, v);
            }
        }
    }
}

/// The distribution of a random array (shared with the device kernels).
pub use chunked_gpu::philox::Distribution;

/// `[0, 1)` from 52 random bits: the bits become the mantissa of a number in
/// `[1, 2)`, minus 1. Pure integer and one subtraction, so it vectorizes (there is
/// no vector u64 -> f64 conversion before AVX-512).
#[inline(always)]
fn unit_f64(hi: u32, lo: u32) -> f64 {
    f64::from_bits(0x3FF0_0000_0000_0000 | ((hi as u64) << 20) | (lo as u64 >> 12)) - 1.0
}

/// `[0, 1)` from 23 random bits, as [`unit_f64`].
#[inline(always)]
fn unit_f32(w: u32) -> f32 {
    f32::from_bits(0x3F80_0000 | (w >> 9)) - 1.0
}

/// A normal pair by Box-Muller from two `[0, 1)` numbers (`1 - u1` is in `(0, 1]`).
#[inline(always)]
fn box_muller(u1: f64, u2: f64) -> (f64, f64) {
    let r = (-2.0 * (1.0 - u1).ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    (r * c, r * s)
}

/// `low + floor(r * (high - low) / 2^64)` for a 64-bit random `r` (Lemire).
#[inline(always)]
fn bounded(hi: u32, lo: u32, low: i64, high: i64) -> i64 {
    let range = high.wrapping_sub(low) as u64;
    let r = (hi as u64) << 32 | lo as u64;
    low.wrapping_add(((r as u128 * range as u128) >> 64) as i64)
}

/// Element types that random arrays can hold.
pub trait RandomElement: Element + chunked_gpu::DeviceElement {
    /// Writes elements `first..first + out.len()` of stream `(key, stream)` to `out`.
    fn fill_stream(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [MaybeUninit<Self>]);
}

/// Fills `out` with elements `first..` where each Philox counter gives `PER`
/// consecutive elements through `convert`; compiled for AVX-512 or AVX2 where the
/// CPU has them (the conversion loop then vectorizes 8- or 4-wide).
#[inline(always)]
fn fill_with<T: Element, const PER: usize, F: Fn([u32; 4]) -> [T; PER]>(key: [u32; 2], stream: [u32; 2], first: u64, out: &mut [MaybeUninit<T>], convert: F) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<T: Element, const PER: usize, F: Fn([u32; 4]) -> [T; PER]>(key: [u32; 2], stream: [u32; 2], first: u64, out: &mut [MaybeUninit<T>], convert: F) {
            fill_body(key, stream, first, out, convert)
        }
        #[target_feature(enable = "avx2,avx512f")]
        unsafe fn avx512<T: Element, const PER: usize, F: Fn([u32; 4]) -> [T; PER]>(key: [u32; 2], stream: [u32; 2], first: u64, out: &mut [MaybeUninit<T>], convert: F) {
            fill_body(key, stream, first, out, convert)
        }
        if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX-512F and AVX2 (checked just above).
            return unsafe { avx512(key, stream, first, out, convert) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2 (checked just above).
            return unsafe { avx2(key, stream, first, out, convert) };
        }
    }
    fill_body(key, stream, first, out, convert)
}

#[inline(always)]
fn fill_body<T: Element, const PER: usize>(key: [u32; 2], stream: [u32; 2], first: u64, out: &mut [MaybeUninit<T>], convert: impl Fn([u32; 4]) -> [T; PER]) {
    let per = PER as u64;
    let n = out.len();
    let mut i = 0;
    let mut e = first;
    // Head: up to the first counter boundary.
    if !e.is_multiple_of(per) {
        let j = e / per;
        let v = convert(philox4x32_10([j as u32, (j >> 32) as u32, stream[0], stream[1]], key));
        while i < n && !e.is_multiple_of(per) {
            out[i].write(v[(e % per) as usize]);
            i += 1;
            e += 1;
        }
    }
    // Body and tail: BATCH counters at a time (the tail uses part of a batch).
    let mut words: Words = [[0; BATCH]; 4];
    while i < n {
        philox_batch(e / per, stream, key, &mut words);
        let take = (n - i).min(BATCH * PER);
        let chunk = &mut out[i..i + take];
        let mut whole = chunk.chunks_exact_mut(PER);
        for (c, dst) in (&mut whole).enumerate() {
            let v = convert([words[0][c], words[1][c], words[2][c], words[3][c]]);
            for k in 0..PER {
                dst[k].write(v[k]);
            }
        }
        let c = take / PER;
        let rest = whole.into_remainder();
        if !rest.is_empty() {
            let v = convert([words[0][c], words[1][c], words[2][c], words[3][c]]);
            for (d, x) in rest.iter_mut().zip(v) {
                d.write(x);
            }
        }
        i += take;
        e += take as u64;
    }
}

impl RandomElement for f64 {
    fn fill_stream(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [MaybeUninit<f64>]) {
        match *dist {
            Distribution::Uniform => {
                fill_with(key, stream, first, out, |w| [unit_f64(w[0], w[1]), unit_f64(w[2], w[3])])
            }
            Distribution::Normal { mean, std } => {
                fill_with(key, stream, first, out, |w| {
                    let (a, b) = box_muller(unit_f64(w[0], w[1]), unit_f64(w[2], w[3]));
                    [mean + std * a, mean + std * b]
                })
            },
            Distribution::Integers { low, high } => {
                fill_with(key, stream, first, out, |w| [bounded(w[0], w[1], low, high) as f64, bounded(w[2], w[3], low, high) as f64])
            },
        }
    }
}

impl RandomElement for f32 {
    fn fill_stream(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [MaybeUninit<f32>]) {
        match *dist {
            Distribution::Uniform => {
                fill_with(key, stream, first, out, |w| w.map(unit_f32))
            }
            // Two Box-Muller pairs per counter, from 32-bit uniforms, computed in f64.
            Distribution::Normal { mean, std } => {
                fill_with(key, stream, first, out, |w| {
                    let u = |x: u32| x as f64 * (1.0 / 4_294_967_296.0);
                    let (a, b) = box_muller(u(w[0]), u(w[1]));
                    let (c, d) = box_muller(u(w[2]), u(w[3]));
                    [a, b, c, d].map(|z| (mean + std * z) as f32)
                })
            },
            // 32-bit multiply-shift per word: f32 holds 24 bits, so the bias (below
            // range / 2^32) is far under its resolution.
            Distribution::Integers { low, high } => {
                let range = high.wrapping_sub(low) as u64 as u128;
                fill_with(key, stream, first, out, |w| w.map(|x| low.wrapping_add(((x as u128 * range) >> 32) as i64) as f32))
            },
        }
    }
}

macro_rules! random_int {
    ($t:ty) => {
        impl RandomElement for $t {
            fn fill_stream(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [MaybeUninit<$t>]) {
                // Integer arrays are only built by `integers`; the others draw 0 or 1.
                let (low, high) = match *dist {
                    Distribution::Integers { low, high } => (low, high),
                    _ => (0, 2),
                };
                {
                    fill_with(key, stream, first, out, |w| [bounded(w[0], w[1], low, high) as $t, bounded(w[2], w[3], low, high) as $t])
                }
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

/// Fills `out` with elements `first..` of stream `(seed, stream)` of `dist`.
pub fn fill<T: RandomElement>(seed: u64, stream: u64, dist: &Distribution, first: u64, out: &mut [T]) {
    // SAFETY: MaybeUninit<T> has T's layout, and fill_stream only writes valid values.
    let out = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
    fill_uninit(seed, stream, dist, first, out)
}

fn fill_uninit<T: RandomElement>(seed: u64, stream: u64, dist: &Distribution, first: u64, out: &mut [MaybeUninit<T>]) {
    T::fill_stream([seed as u32, (seed >> 32) as u32], [stream as u32, (stream >> 32) as u32], dist, first, out)
}

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

fn random_block<T: RandomElement>(op: &RandomOp, chunks: &Chunks, idx: &[usize]) -> ArrayD<T> {
    let shape = chunks.block_shape(idx);
    let total: usize = shape.iter().product();
    let mut out: Vec<T> = crate::block::alloc::block_vec(total);
    // The runs tile the block in C order: each fills the next elements.
    let spare = &mut out.spare_capacity_mut()[..total];
    let mut written = 0;
    for_each_run(chunks, idx, |g, run| {
        fill_uninit(op.seed, op.stream, &op.dist, g, &mut spare[written..written + run]);
        written += run;
    });
    assert_eq!(written, total, "the runs cover the block");
    // SAFETY: the runs above wrote every one of the `total` elements.
    unsafe { out.set_len(total) };
    ArrayD::from_shape_vec(IxDyn(&shape), out).expect("length matches shape")
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
            Some(device) => crate::block::device::to_device_block(Arc::new(random_block::<T>(&self.op, &node.chunks, idx)), device),
            None => Ok(Arc::new(random_block::<T>(&self.op, &node.chunks, idx))),
        }
    }
    fn runs_on_device(&self, _node: &Node) -> bool {
        true
    }
}

/// A block drawn by the Philox kernel on a CUDA device: the same elements as
/// [`random_block`] (see [`chunked_gpu::philox`] for the normal draws' ulps).
fn random_on_cuda<T: RandomElement>(op: &RandomOp, chunks: &Chunks, idx: &[usize], device: &chunked_gpu::Device) -> Result<Block> {
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
    pub fn new(seed: u64) -> Self {
        RandomState { seed, stream: 0, devices: Vec::new() }
    }

    /// An independent stream of the same seed.
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
    pub fn on_devices(self, devices: &[crate::device::Device]) -> Self {
        RandomState { devices: devices.to_vec(), ..self }
    }

    fn array<T: RandomElement>(&self, name: &str, dist: Distribution, shape: &[usize], chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
        let chunks = chunks.into().resolve(shape, T::DTYPE)?;
        let op = RandomOp { seed: self.seed, stream: self.stream, dist };
        // A source moved to a device makes its blocks there (no host copy).
        Ok(Array::source(name, chunks, TypedRandom::<T> { op, _t: std::marker::PhantomData }).to_devices(&self.devices))
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
