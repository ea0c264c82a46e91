//! From Philox words to numbers: uniform floats, normals by Box-Muller and
//! bounded integers, for each element type, filling block buffers in batches.

use std::mem::MaybeUninit;

use crate::element::{Element, Float};
use crate::ops::random::philox::{BATCH, Words, philox_batch, philox4x32_10};

/// The distribution of a random array (shared with the device kernels).
///
/// ```
/// use chunked_array::random::{fill, Distribution, RandomState};
/// // Elements 0..4 of seed 5, stream 0: what RandomState::new(5).integers draws.
/// let dist = Distribution::Integers { low: 0, high: 10 };
/// let mut v = [0i64; 4];
/// fill(5, 0, &dist, 0, &mut v);
/// let x = RandomState::new(5).integers::<i64>(0, 10, &[4], 2).unwrap();
/// assert_eq!(x.compute().unwrap().as_slice().unwrap(), &v);
/// ```
pub use chunked_gpu::philox::Distribution;

/// `[0, 1)` from 52 random bits: the bits become the mantissa of a number in
/// `[1, 2)`, minus 1. Pure integer and one subtraction, so it vectorizes (there is
/// no vector u64 -> f64 conversion before AVX-512).
#[inline(always)]
pub(crate) fn unit_f64(hi: u32, lo: u32) -> f64 {
    f64::from_bits(0x3FF0_0000_0000_0000 | ((hi as u64) << 20) | (lo as u64 >> 12)) - 1.0
}

/// `[0, 1)` from 23 random bits, as [`unit_f64`].
#[inline(always)]
pub(crate) fn unit_f32(w: u32) -> f32 {
    f32::from_bits(0x3F80_0000 | (w >> 9)) - 1.0
}

/// A normal pair by Box-Muller from two `[0, 1)` numbers (`1 - u1` is in `(0, 1]`).
#[inline(always)]
pub(crate) fn box_muller(u1: f64, u2: f64) -> (f64, f64) {
    let r = (-2.0 * (1.0 - u1).ln()).sqrt();
    let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
    (r * c, r * s)
}

/// `low + floor(r * (high - low) / 2^64)` for a 64-bit random `r` (Lemire).
#[inline(always)]
pub(crate) fn bounded(hi: u32, lo: u32, low: i64, high: i64) -> i64 {
    bounded_word((hi as u64) << 32 | lo as u64, low, high)
}

/// [`bounded`] of the word `r` made whole.
#[inline(always)]
pub(crate) fn bounded_word(r: u64, low: i64, high: i64) -> i64 {
    let range = high.wrapping_sub(low) as u64;
    low.wrapping_add(((r as u128 * range as u128) >> 64) as i64)
}

/// Elements `first..` of stream `(seed, stream)` as the 64-bit words
/// [`bounded`] maps (two to a counter): the integers of every element type
/// but f32, before their bounds.
pub(crate) fn fill_words(seed: u64, stream: u64, first: u64, out: &mut [u64]) {
    // SAFETY: MaybeUninit<u64> has u64's layout, and fill_with only writes valid values.
    let out = unsafe { &mut *(out as *mut [u64] as *mut [MaybeUninit<u64>]) };
    fill_with(halves(seed), halves(stream), first, out, |w| {
        [(w[0] as u64) << 32 | w[1] as u64, (w[2] as u64) << 32 | w[3] as u64]
    });
}

/// Element types that random arrays can hold.
///
/// ```
/// use chunked_array::{Array, Result, random::{RandomElement, RandomState}};
/// // Any element type random integers can fill.
/// fn dice<T: RandomElement>(n: usize) -> Result<Array<T>> {
///     RandomState::new(0).integers(1, 7, &[n], 4)
/// }
/// let rolls = dice::<i32>(20).unwrap().compute().unwrap();
/// assert!(rolls.iter().all(|r| (1..=6).contains(r)));
/// ```
pub trait RandomElement: Element + chunked_gpu::DeviceElement {
    /// Writes elements `first..first + out.len()` of stream `(key, stream)` to `out`.
    ///
    /// ```
    /// use std::mem::MaybeUninit;
    /// use chunked_array::random::{fill, Distribution, RandomElement};
    /// let dist = Distribution::Integers { low: 0, high: 100 };
    /// let mut raw = [MaybeUninit::<i64>::uninit(); 3];
    /// // Seed 7 is the key [7, 0] (low word first); stream 0 is [0, 0].
    /// i64::fill_stream([7, 0], [0, 0], &dist, 0, &mut raw);
    /// let mut v = [0i64; 3];
    /// fill(7, 0, &dist, 0, &mut v);
    /// assert_eq!(raw.map(|m| unsafe { m.assume_init() }), v);
    /// ```
    fn fill_stream(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [MaybeUninit<Self>]);
}

/// Fills `out` with elements `first..` where each Philox counter gives `PER`
/// consecutive elements through `convert`; compiled for AVX-512 or AVX2 where the
/// CPU has them (the conversion loop then vectorizes 8- or 4-wide).
#[inline(always)]
fn fill_with<T: Element, const PER: usize, F: Fn([u32; 4]) -> [T; PER]>(
    key: [u32; 2],
    stream: [u32; 2],
    first: u64,
    out: &mut [MaybeUninit<T>],
    convert: F,
) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<T: Element, const PER: usize, F: Fn([u32; 4]) -> [T; PER]>(
            key: [u32; 2],
            stream: [u32; 2],
            first: u64,
            out: &mut [MaybeUninit<T>],
            convert: F,
        ) {
            fill_body(key, stream, first, out, convert)
        }
        #[target_feature(enable = "avx2,avx512f")]
        unsafe fn avx512<T: Element, const PER: usize, F: Fn([u32; 4]) -> [T; PER]>(
            key: [u32; 2],
            stream: [u32; 2],
            first: u64,
            out: &mut [MaybeUninit<T>],
            convert: F,
        ) {
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
fn fill_body<T: Element, const PER: usize>(
    key: [u32; 2],
    stream: [u32; 2],
    first: u64,
    out: &mut [MaybeUninit<T>],
    convert: impl Fn([u32; 4]) -> [T; PER],
) {
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
            Distribution::Normal { mean, std } => fill_with(key, stream, first, out, |w| {
                let (a, b) = box_muller(unit_f64(w[0], w[1]), unit_f64(w[2], w[3]));
                [mean + std * a, mean + std * b]
            }),
            Distribution::Integers { low, high } => fill_with(key, stream, first, out, |w| {
                [bounded(w[0], w[1], low, high) as f64, bounded(w[2], w[3], low, high) as f64]
            }),
        }
    }
}

impl RandomElement for f32 {
    fn fill_stream(key: [u32; 2], stream: [u32; 2], dist: &Distribution, first: u64, out: &mut [MaybeUninit<f32>]) {
        match *dist {
            Distribution::Uniform => fill_with(key, stream, first, out, |w| w.map(unit_f32)),
            // Two Box-Muller pairs per counter, from 32-bit uniforms, computed in f64.
            Distribution::Normal { mean, std } => fill_with(key, stream, first, out, |w| {
                let u = |x: u32| x as f64 * (1.0 / 4_294_967_296.0);
                let (a, b) = box_muller(u(w[0]), u(w[1]));
                let (c, d) = box_muller(u(w[2]), u(w[3]));
                [a, b, c, d].map(|z| (mean + std * z) as f32)
            }),
            // 32-bit multiply-shift per word: f32 holds 24 bits, so the bias (below
            // range / 2^32) is far under its resolution.
            Distribution::Integers { low, high } => {
                let range = high.wrapping_sub(low) as u64 as u128;
                fill_with(key, stream, first, out, |w| {
                    w.map(|x| low.wrapping_add(((x as u128 * range) >> 32) as i64) as f32)
                })
            }
        }
    }
}

macro_rules! random_int {
    ($t:ty) => {
        impl RandomElement for $t {
            fn fill_stream(
                key: [u32; 2],
                stream: [u32; 2],
                dist: &Distribution,
                first: u64,
                out: &mut [MaybeUninit<$t>],
            ) {
                // Integer arrays are only built by `integers`; the others draw 0 or 1.
                let (low, high) = match *dist {
                    Distribution::Integers { low, high } => (low, high),
                    _ => (0, 2),
                };
                {
                    fill_with(key, stream, first, out, |w| {
                        [bounded(w[0], w[1], low, high) as $t, bounded(w[2], w[3], low, high) as $t]
                    })
                }
            }
        }
    };
}
random_int!(i8);
random_int!(i16);
random_int!(i32);
random_int!(i64);
random_int!(u8);
random_int!(u16);
random_int!(u32);
random_int!(u64);

/// Floating-point types with uniform and normal draws.
///
/// ```
/// use chunked_array::{Array, Result, random::{RandomFloat, RandomState}};
/// // Any float type uniform and normal draws can fill: f32 and f64.
/// fn noise<T: RandomFloat>(n: usize) -> Result<Array<T>> {
///     RandomState::new(3).standard_normal(&[n], 4)
/// }
/// assert_eq!(noise::<f32>(8).unwrap().shape(), vec![8]);
/// assert_eq!(noise::<f64>(8).unwrap().compute().unwrap().len(), 8);
/// ```
pub trait RandomFloat: RandomElement + Float {}
impl RandomFloat for f32 {}
impl RandomFloat for f64 {}

/// Fills `out` with elements `first..` of stream `(seed, stream)` of `dist`.
///
/// ```
/// use chunked_array::random::{fill, Distribution};
/// let mut all = [0.0f64; 4];
/// fill(1, 0, &Distribution::Uniform, 0, &mut all);
/// let mut tail = [0.0f64; 2];
/// fill(1, 0, &Distribution::Uniform, 2, &mut tail); // elements 2 and 3 alone
/// assert_eq!(tail, all[2..]);
/// assert!(all.iter().all(|u| (0.0..1.0).contains(u)));
/// ```
pub fn fill<T: RandomElement>(seed: u64, stream: u64, dist: &Distribution, first: u64, out: &mut [T]) {
    // SAFETY: MaybeUninit<T> has T's layout, and fill_stream only writes valid values.
    let out = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
    fill_uninit(seed, stream, dist, first, out)
}

pub(crate) fn fill_uninit<T: RandomElement>(
    seed: u64,
    stream: u64,
    dist: &Distribution,
    first: u64,
    out: &mut [MaybeUninit<T>],
) {
    T::fill_stream(halves(seed), halves(stream), dist, first, out)
}

/// A seed or stream number as Philox's two 32-bit words, low first.
fn halves(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}
