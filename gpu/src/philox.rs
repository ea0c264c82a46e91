//! Philox4x32-10 random fill on a CUDA device: the same stream, element for
//! element, as chunked's CPU generator (`chunked_array::random`, whose module
//! notes give the layout of the draws).
//!
//! Element `e` of the array (its flat C-order index) comes from Philox counter
//! `e / PER` (`PER` elements per counter: 2 for 64-bit types, 4 for `f32`). A
//! block is a list of runs of consecutive flat indices (its rows); each thread
//! makes one counter's words and writes the elements of it that fall in its
//! run. Uniform and integer draws are integer arithmetic and one exact
//! subtraction, so they are bit-identical to the CPU's. Normal draws use CUDA's
//! `log`, `sqrt` and `sincos`, which are within 1-2 ulp of glibc's (CUDA C
//! Programming Guide, "Mathematical functions"), so they agree with the CPU's
//! to a few ulp.
//!
//! [`SOURCE`] is plain C++ apart from the kernel qualifiers and the three
//! intrinsics the prelude maps, so a host compiler can build it too (chunked's
//! tests do, to check the arithmetic against the CPU generator on machines
//! without a GPU).

use crate::buffer::DeviceBuffer;
use crate::cuda::grid_stride;
use crate::device::Device;
use crate::element::DeviceElement;
use crate::{Result, cuda_error};

/// The distribution of a random array (re-exported as
/// `chunked_array::random::Distribution`).
///
/// ```
/// use chunked_gpu::philox::Distribution;
/// let dice = Distribution::Integers { low: 1, high: 7 };
/// assert_ne!(dice, Distribution::Uniform);
/// assert!(matches!(Distribution::Normal { mean: 0.0, std: 1.0 }, Distribution::Normal { std, .. } if std == 1.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Uniform on `[0, 1)` (floating-point types only).
    Uniform,
    /// Normal with a mean and a standard deviation (floating-point types only).
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std: f64,
    },
    /// Integers on `[low, high)` (any element type).
    Integers {
        /// Smallest value.
        low: i64,
        /// One past the largest value.
        high: i64,
    },
}

/// The kernels' source, without the prelude that maps its intrinsics
/// ([`crate::kernels::CUDA_PRELUDE`] for NVRTC).
pub const SOURCE: &str = r#"
// Philox4x32-10 (Salmon et al., SC'11), as in Random123 and cuRAND.
__device__ inline void philox(unsigned c[4], unsigned k0, unsigned k1) {
    for (int r = 0; r < 10; r++) {
        if (r > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0];
        unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c[2];
        unsigned n0 = (unsigned)(p1 >> 32) ^ c[1] ^ k0;
        unsigned n1 = (unsigned)p1;
        unsigned n2 = (unsigned)(p0 >> 32) ^ c[3] ^ k1;
        unsigned n3 = (unsigned)p0;
        c[0] = n0; c[1] = n1; c[2] = n2; c[3] = n3;
    }
}
// [0, 1) from 52 bits: the mantissa of a number in [1, 2), minus 1.
__device__ inline double unit_f64(unsigned hi, unsigned lo) {
    return bits_f64(0x3FF0000000000000ull | ((unsigned long long)hi << 20) | (unsigned long long)(lo >> 12)) - 1.0;
}
__device__ inline float unit_f32(unsigned w) { return bits_f32(0x3F800000u | (w >> 9)) - 1.0f; }
__device__ inline void box_muller(double u1, double u2, double* a, double* b) {
    double r = sqrt(-2.0 * log(1.0 - u1));
    double s, c;
    sincos(6.283185307179586 * u2, &s, &c);
    *a = r * c; *b = r * s;
}
// low + floor(r * range / 2^64) for the 64-bit r = hi:lo (Lemire).
__device__ inline long long bounded(unsigned hi, unsigned lo, long long low, unsigned long long range) {
    unsigned long long r = ((unsigned long long)hi << 32) | lo;
    return (long long)((unsigned long long)low + mul_hi_u64(r, range));
}
// low + floor(w * range / 2^32) for a 32-bit w (f32 integer draws).
__device__ inline float bounded32(unsigned w, long long low, unsigned long long range) {
    unsigned long long hi = mul_hi_u64((unsigned long long)w, range);
    unsigned long long lo = (unsigned long long)w * range;
    return (float)(long long)((unsigned long long)low + ((hi << 32) | (lo >> 32)));
}

// One thread per (run, counter): counter j of run r covers elements j*PER ..
// j*PER+PER-1, of which those inside [start, start + run_len) are written.
#define PHILOX_KERNEL(NAME, T, PER, ...)                                                        \
extern "C" __global__ void NAME(T* out, const unsigned long long* run_starts,                 \
        unsigned long long runs, unsigned long long run_len, unsigned k0, unsigned k1,         \
        unsigned s0, unsigned s1, int dist, double mean, double sd, long long low,             \
        unsigned long long range) {                                                            \
    unsigned long long per_run = run_len / PER + 2;                                            \
    unsigned long long total = runs * per_run;                                                 \
    unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;                      \
    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;     \
         t < total; t += step) {                                                               \
        unsigned long long r = t / per_run;                                                    \
        unsigned long long start = run_starts[r];                                              \
        unsigned long long j = start / PER + t % per_run;                                      \
        if (j * PER >= start + run_len) continue;                                              \
        unsigned w[4] = {(unsigned)j, (unsigned)(j >> 32), s0, s1};                            \
        philox(w, k0, k1);                                                                     \
        T v[PER];                                                                              \
        __VA_ARGS__                                                                            \
        for (unsigned long long k = 0; k < PER; k++) {                                         \
            unsigned long long e = j * PER + k;                                                \
            if (e >= start && e < start + run_len) out[r * run_len + (e - start)] = v[k];     \
        }                                                                                      \
    }                                                                                          \
}

PHILOX_KERNEL(philox_f64, double, 2,
    if (dist == 0) { v[0] = unit_f64(w[0], w[1]); v[1] = unit_f64(w[2], w[3]); }
    else if (dist == 1) {
        double a, b; box_muller(unit_f64(w[0], w[1]), unit_f64(w[2], w[3]), &a, &b);
        v[0] = mean + sd * a; v[1] = mean + sd * b;
    } else { v[0] = (double)bounded(w[0], w[1], low, range); v[1] = (double)bounded(w[2], w[3], low, range); })

PHILOX_KERNEL(philox_f32, float, 4,
    if (dist == 0) { for (int q = 0; q < 4; q++) v[q] = unit_f32(w[q]); }
    else if (dist == 1) {
        double z[4];
        box_muller(w[0] * (1.0 / 4294967296.0), w[1] * (1.0 / 4294967296.0), &z[0], &z[1]);
        box_muller(w[2] * (1.0 / 4294967296.0), w[3] * (1.0 / 4294967296.0), &z[2], &z[3]);
        for (int q = 0; q < 4; q++) v[q] = (float)(mean + sd * z[q]);
    } else { for (int q = 0; q < 4; q++) v[q] = bounded32(w[q], low, range); })

PHILOX_KERNEL(philox_i64, long long, 2,
    v[0] = bounded(w[0], w[1], low, range); v[1] = bounded(w[2], w[3], low, range);)

PHILOX_KERNEL(philox_i32, int, 2,
    v[0] = (int)bounded(w[0], w[1], low, range); v[1] = (int)bounded(w[2], w[3], low, range);)
"#;

/// Elements per Philox counter for `T` (as the CPU generator lays them out).
///
/// ```
/// use chunked_gpu::philox::per_counter;
/// assert_eq!((per_counter::<f64>(), per_counter::<f32>(), per_counter::<i64>()), (2, 4, 2));
/// ```
pub fn per_counter<T: DeviceElement>() -> u64 {
    if T::C_NAME == "f32" { 4 } else { 2 }
}

/// Fills `out` with the draws of elements `run_starts[r] .. run_starts[r] + run_len`
/// for each run `r` in turn (flat indices of the whole array), from stream
/// `stream` of `seed`: what the CPU generator gives for the same block.
///
/// ```
/// use chunked_gpu::philox::{fill, Distribution};
/// use chunked_gpu::{Device, Error};
/// # fn main() -> chunked_gpu::Result<()> {
/// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20)); // emulated: no NVRTC
/// let mut out = dev.zeros::<i64>(6)?;
/// // Two runs of 3: elements 0..3 and 10..13 of the whole array.
/// match fill(&mut out, 42, 0, Distribution::Integers { low: 0, high: 10 }, &[0, 10], 3) {
///     Ok(()) => assert!(out.download()?.iter().all(|v| (0..10).contains(v))),
///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
/// }
/// # Ok(()) }
/// ```
///
/// # Errors
/// [`crate::Error::Unsupported`] on an emulated device (run the CPU generator on
/// [`DeviceBuffer::host_mut`]), for `u8`, for uniform or normal integers and
/// when `out` does not have `runs * run_len` elements; [`crate::Error::Cuda`]
/// and [`crate::Error::NoDevice`] (no NVRTC) from CUDA.
pub fn fill<T: DeviceElement>(
    out: &mut DeviceBuffer<T>,
    seed: u64,
    stream: u64,
    draw: Distribution,
    run_starts: &[u64],
    run_len: usize,
) -> Result<()> {
    let device: Device = out.device().clone();
    if out.len() != run_starts.len() * run_len {
        return Err(device.unsupported(format!(
            "philox fill of {} runs of {run_len} into {} elements",
            run_starts.len(),
            out.len()
        )));
    }
    let name = match T::C_NAME {
        "f64" => "philox_f64",
        "f32" => "philox_f32",
        "i64" => "philox_i64",
        "i32" => "philox_i32",
        other => return Err(device.unsupported(format!("random {other} arrays"))),
    };
    let (dist, mean, sd, low, high) = match draw {
        Distribution::Uniform => (0i32, 0.0, 0.0, 0, 0),
        Distribution::Normal { mean, std } => (1, mean, std, 0, 0),
        Distribution::Integers { low, high } => (2, 0.0, 0.0, low, high),
    };
    if dist != 2 && !matches!(T::C_NAME, "f64" | "f32") {
        return Err(device.unsupported(format!("{draw:?} draws of {}", T::C_NAME)));
    }
    let state = device.cuda_state("philox fill")?;
    if out.is_empty() {
        return Ok(());
    }
    let function = state.function("philox", SOURCE, name)?;
    let starts = state.upload(run_starts)?;
    let range = high.wrapping_sub(low) as u64;
    let runs = run_starts.len() as u64;
    let run_len = run_len as u64;
    let (k0, k1, s0, s1) = (seed as u32, (seed >> 32) as u32, stream as u32, (stream >> 32) as u32);
    let cfg = grid_stride(runs * (run_len / per_counter::<T>() + 2));
    let slice = out.cuda_mut().expect("CUDA buffer on a CUDA device");
    let mut launch = state.stream.launch_builder(&function);
    use cudarc::driver::PushKernelArg;
    launch
        .arg(slice)
        .arg(&starts)
        .arg(&runs)
        .arg(&run_len)
        .arg(&k0)
        .arg(&k1)
        .arg(&s0)
        .arg(&s1)
        .arg(&dist)
        .arg(&mean)
        .arg(&sd)
        .arg(&low)
        .arg(&range);
    // SAFETY: the kernel writes `runs * run_len` elements of `out` (checked
    // above) and reads `runs` starts; the arguments match its signature.
    unsafe { launch.launch(cfg) }.map_err(cuda_error("cuLaunchKernel philox"))?;
    Ok(())
}
