//! The CUDA kernels' arithmetic (Philox and generated elementwise kernels),
//! checked on machines without a GPU: each kernel source is compiled by the
//! host C++ compiler with a prelude standing in for CUDA's intrinsics and
//! launch indices, run over a grid, and its output compared bit for bit with
//! the CPU (same glibc math, so the normal draws and math functions match
//! exactly here; on a GPU they match to a few ulp).

use std::path::PathBuf;
use std::process::Command;

use chunked_array::random::{Distribution, fill};

/// Stands in for CUDA in host builds of the kernel sources: the launch
/// indices, and host definitions of what `chunked_gpu::kernels::CUDA_PRELUDE`
/// maps to CUDA intrinsics.
pub(super) const HOST_PRELUDE: &str = r#"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>
#define __global__
#define __device__
struct Dim3 { unsigned x; };
static Dim3 blockIdx, threadIdx, blockDim, gridDim;
using std::cos; using std::exp; using std::fabs; using std::fmod; using std::isnan; using std::log;
using std::pow; using std::sin; using std::sqrt; using std::tanh; using std::floor; using std::ceil;
using std::trunc; using std::rint; using std::cbrt; using std::exp2; using std::expm1; using std::log2;
using std::log10; using std::log1p; using std::tan; using std::sinh; using std::cosh; using std::atan2;
using std::hypot; using std::copysign; using std::nextafter; using std::fmax; using std::fmin;
using std::isfinite; using std::isinf; using std::signbit; using std::asin; using std::acos; using std::atan;
// sincos: glibc's (a GNU extension C++ compilers enable), as CUDA has one.
static inline double bits_f64(unsigned long long x) { double d; std::memcpy(&d, &x, 8); return d; }
static inline unsigned long long f64_bits(double x) { unsigned long long b; std::memcpy(&b, &x, 8); return b; }
static inline float bits_f32(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline unsigned long long mul_hi_u64(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline double nan_of(double) { return bits_f64(0x7FF8000000000000ull); }
static inline float nan_of(float) { return bits_f32(0x7FC00000u); }
"#;

/// Launches every kernel over a small grid (so that the grid-stride loop is
/// exercised) and prints the elements' bits, one per line.
const HOST_MAIN: &str = r#"
template <typename T, typename Bits, typename K>
static void launch(K kernel, const char* const* argv, int argc) {
    // argv: runs run_len seed stream dist mean sd low high start...
    unsigned long long runs = strtoull(argv[0], 0, 10), run_len = strtoull(argv[1], 0, 10);
    unsigned long long seed = strtoull(argv[2], 0, 10), stream = strtoull(argv[3], 0, 10);
    int dist = atoi(argv[4]);
    double mean = atof(argv[5]), sd = atof(argv[6]);
    long long low = strtoll(argv[7], 0, 10), high = strtoll(argv[8], 0, 10);
    std::vector<unsigned long long> starts;
    for (int i = 9; i < argc; i++) starts.push_back(strtoull(argv[i], 0, 10));
    std::vector<T> out(runs * run_len);
    gridDim.x = 3; blockDim.x = 4;
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            kernel(out.data(), starts.data(), runs, run_len, (unsigned)seed, (unsigned)(seed >> 32),
                   (unsigned)stream, (unsigned)(stream >> 32), dist, mean, sd, low,
                   (unsigned long long)(high - low));
    for (size_t i = 0; i < out.size(); i++) {
        Bits b = 0; std::memcpy(&b, &out[i], sizeof(T));
        printf("%llu\n", (unsigned long long)b);
    }
}
int main(int argc, char** argv) {
    const char* kind = argv[1];
    if (!strcmp(kind, "f64")) launch<double, unsigned long long>(philox_f64, (const char* const*)argv + 2, argc - 2);
    if (!strcmp(kind, "f32")) launch<float, unsigned>(philox_f32, (const char* const*)argv + 2, argc - 2);
    if (!strcmp(kind, "i64")) launch<long long, unsigned long long>(philox_i64, (const char* const*)argv + 2, argc - 2);
    if (!strcmp(kind, "i32")) launch<int, unsigned>(philox_i32, (const char* const*)argv + 2, argc - 2);
    return 0;
}
"#;

pub(super) fn compiler() -> Option<&'static str> {
    ["c++", "g++", "clang++"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
}

fn build() -> Option<PathBuf> {
    let Some(cxx) = compiler() else {
        crate::support::tool_missing("no host C++ compiler (c++, g++ or clang++) to build the kernel source with");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("chunked-philox-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("philox.cpp");
    std::fs::write(&src, format!("{HOST_PRELUDE}{}{HOST_MAIN}", chunked_gpu::philox::SOURCE)).unwrap();
    let exe = dir.join("philox");
    let out = Command::new(cxx).args(["-O1", "-std=c++17", "-o"]).arg(&exe).arg(&src).output().unwrap();
    assert!(
        out.status.success(),
        "the kernel source does not compile as C++:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

/// The kernel's elements for `runs` runs of `run_len` starting at `starts`.
fn kernel_bits(
    exe: &PathBuf,
    kind: &str,
    starts: &[u64],
    run_len: usize,
    seed: u64,
    stream: u64,
    dist: &Distribution,
) -> Vec<u64> {
    let (code, mean, sd, low, high) = match *dist {
        Distribution::Uniform => (0, 0.0, 0.0, 0, 0),
        Distribution::Normal { mean, std } => (1, mean, std, 0, 0),
        Distribution::Integers { low, high } => (2, 0.0, 0.0, low, high),
    };
    let mut args = vec![
        kind.to_string(),
        starts.len().to_string(),
        run_len.to_string(),
        seed.to_string(),
        stream.to_string(),
        code.to_string(),
    ];
    args.extend([format!("{mean:e}"), format!("{sd:e}"), low.to_string(), high.to_string()]);
    args.extend(starts.iter().map(|s| s.to_string()));
    let out = Command::new(exe).args(&args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| l.parse().unwrap()).collect()
}

/// The CPU generator's elements for the same runs.
fn cpu_bits<T: chunked_array::random::RandomElement>(
    starts: &[u64],
    run_len: usize,
    seed: u64,
    stream: u64,
    dist: &Distribution,
    bits: impl Fn(T) -> u64,
) -> Vec<u64> {
    let mut all = Vec::new();
    for &s in starts {
        let mut run = vec![T::default(); run_len];
        fill(seed, stream, dist, s, &mut run);
        all.extend(run.into_iter().map(&bits));
    }
    all
}

#[test]
fn the_cuda_philox_kernels_compute_what_the_cpu_generator_does() {
    let Some(exe) = build() else { return };
    // Runs starting mid-counter and at counter boundaries, as a block's rows do.
    let starts = [0u64, 3, 101, 1 << 33 | 1, 7 * 4099];
    let seed = 0x1234_5678_9abc_def0;
    let stream = 5;
    for run_len in [1usize, 6, 37] {
        let uniform = Distribution::Uniform;
        let normal = Distribution::Normal { mean: -1.5, std: 3.0 };
        let ints = Distribution::Integers { low: -1000, high: 1 << 41 };
        let small = Distribution::Integers { low: 3, high: 10 };
        for dist in [&uniform, &normal, &small] {
            assert_eq!(
                kernel_bits(&exe, "f64", &starts, run_len, seed, stream, dist),
                cpu_bits::<f64>(&starts, run_len, seed, stream, dist, f64::to_bits),
                "f64 {dist:?} runs of {run_len}"
            );
            assert_eq!(
                kernel_bits(&exe, "f32", &starts, run_len, seed, stream, dist),
                cpu_bits::<f32>(&starts, run_len, seed, stream, dist, |x| x.to_bits() as u64),
                "f32 {dist:?} runs of {run_len}"
            );
        }
        assert_eq!(
            kernel_bits(&exe, "i64", &starts, run_len, seed, stream, &ints),
            cpu_bits::<i64>(&starts, run_len, seed, stream, &ints, |x| x as u64),
            "i64 runs of {run_len}"
        );
        assert_eq!(
            kernel_bits(&exe, "i32", &starts, run_len, seed, stream, &small),
            cpu_bits::<i32>(&starts, run_len, seed, stream, &small, |x| x as u32 as u64),
            "i32 runs of {run_len}"
        );
    }
    let _ = std::fs::remove_dir_all(exe.parent().unwrap());
}

/// An input of a generated kernel: its C type and its elements' bytes.
pub(super) struct Input(pub(super) &'static str, pub(super) Vec<u8>);

pub(super) fn f64s(v: &[f64]) -> Input {
    Input("double", v.iter().flat_map(|x| x.to_ne_bytes()).collect())
}

/// Runs a generated kernel (f64 output) on the host over a small grid:
/// `meta` as the device path builds it.
fn run_elementwise(
    source: &str,
    inputs: &[Input],
    n: usize,
    ndim: usize,
    meta: &[i64],
    contiguous: bool,
) -> Option<Vec<f64>> {
    run_elementwise_as("double", source, inputs, n, ndim, meta, contiguous)
}

/// The same for an output of C type `out_c` made of doubles (`c128`: each
/// element its real and imaginary parts).
pub(super) fn run_elementwise_as(
    out_c: &str,
    source: &str,
    inputs: &[Input],
    n: usize,
    ndim: usize,
    meta: &[i64],
    contiguous: bool,
) -> Option<Vec<f64>> {
    let cxx = compiler()?;
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("chunked-ew-host-{}-{run}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args: String = (0..inputs.len()).map(|k| format!(", x{k}.data()")).collect();
    let loads: String = inputs
        .iter()
        .enumerate()
        .map(|(k, Input(ctype, _))| format!("    auto x{k} = load<{ctype}>(argv[{}]);\n", 5 + k))
        .collect();
    let main = format!(
        r#"
template <typename T> static std::vector<T> load(const char* path) {{
    std::ifstream f(path, std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), b.size());
    return v;
}}
int main(int argc, char** argv) {{
    unsigned long long n = strtoull(argv[2], 0, 10);
    int ndim = atoi(argv[3]), contiguous = atoi(argv[4]);
    auto meta = load<long long>(argv[5 + {leaves}]);
{loads}    std::vector<{out_c}> out(n);
    gridDim.x = 3; blockDim.x = 5;
    for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)
        for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)
            chunked_elementwise(out.data(), n, ndim, meta.data(), contiguous{args});
    std::ofstream(argv[1], std::ios::binary).write((const char*)out.data(), n * sizeof({out_c}));
    return 0;
}}
"#,
        leaves = inputs.len()
    );
    let src = dir.join("ew.cpp");
    std::fs::write(&src, format!("{HOST_PRELUDE}{source}{main}")).unwrap();
    let exe = dir.join("ew");
    let out = Command::new(cxx).args(["-O1", "-std=c++17", "-o"]).arg(&exe).arg(&src).output().unwrap();
    assert!(
        out.status.success(),
        "the generated kernel does not compile as C++:\n{}\n{source}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = |v: &[u8], name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, v).unwrap();
        p
    };
    let mut cmd = Command::new(&exe);
    cmd.arg(dir.join("out")).arg(n.to_string()).arg(ndim.to_string()).arg((contiguous as i32).to_string());
    for (k, Input(_, data)) in inputs.iter().enumerate() {
        cmd.arg(bytes(data, &format!("x{k}")));
    }
    cmd.arg(bytes(&meta.iter().flat_map(|v| v.to_ne_bytes()).collect::<Vec<u8>>(), "meta"));
    let status = cmd.output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let raw = std::fs::read(dir.join("out")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    Some(raw.chunks_exact(8).map(|c| f64::from_ne_bytes(c.try_into().unwrap())).collect())
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn generated_elementwise_kernels_compute_what_the_cpu_does() {
    use chunked_array::{Array, where_};
    use ndarray::ArrayD;
    if compiler().is_none() {
        return crate::support::tool_missing("no host C++ compiler to build the generated kernels with");
    }
    let xs = ArrayD::from_shape_fn(vec![6, 5], |i| (i[0] as f64 - 2.5) * 0.7 + i[1] as f64 * 0.31);
    let ys = ArrayD::from_shape_fn(vec![6, 5], |i| ((i[0] * 5 + i[1]) as f64).sqrt() - 1.2);
    let x = Array::from_ndarray(xs.clone(), [6, 5]).unwrap();
    let y = Array::from_ndarray(ys.clone(), [6, 5]).unwrap();
    // One fused chain over two same-shaped blocks (the contiguous path): math
    // functions, scalars on either side, fmod, clip, maximum, where, astype.
    let chain = where_(
        &x.gt(&y).unwrap(),
        ((&x * 2.0 + 1.0).sin() - &y).abs().maximum(y.fmod(0.3).unwrap()).unwrap(),
        &(1.5 - &y.clip(-0.5, 2.0)).exp().tanh() / 3.0,
    )
    .unwrap()
    .astype::<f32>()
    .astype::<f64>();
    let source = chain.cuda_kernel_source().expect("the chain has a device form");
    let expected = chain.compute().unwrap();
    let got = run_elementwise(
        &source,
        &[f64s(xs.as_slice().unwrap()), f64s(ys.as_slice().unwrap())],
        30,
        2,
        &[6, 5, 0, 5, 1, 0, 5, 1],
        true,
    )
    .unwrap();
    assert_eq!(bits(&got), bits(expected.as_slice().unwrap()), "{source}");
    // The same kernel through the strided path (every stride given in meta).
    let strided = run_elementwise(
        &source,
        &[f64s(xs.as_slice().unwrap()), f64s(ys.as_slice().unwrap())],
        30,
        2,
        &[6, 5, 0, 5, 1, 0, 5, 1],
        false,
    )
    .unwrap();
    assert_eq!(bits(&strided), bits(expected.as_slice().unwrap()));

    // Broadcasting a row (stride 0 along the rows) and reading x transposed
    // (strides swapped): the meta the device path builds for these leaves.
    let row = ArrayD::from_shape_fn(vec![6], |i| 0.25 * i[0] as f64 - 0.4);
    let r = Array::from_ndarray(row.clone(), 6).unwrap();
    let t = (&x.t() * 0.5).pow(2.0).unwrap() + &r;
    let source = t.cuda_kernel_source().expect("a device form");
    let expected = t.compute().unwrap();
    // Output (5, 6): x is read at [j, i] (strides 1, 5), the row at [j] (0, 1).
    let got = run_elementwise(
        &source,
        &[f64s(xs.as_slice().unwrap()), f64s(row.as_slice().unwrap())],
        30,
        2,
        &[5, 6, 0, 1, 5, 0, 0, 1],
        false,
    )
    .unwrap();
    assert_eq!(bits(&got), bits(expected.as_standard_layout().as_slice().unwrap()), "{source}");

    // Integers to f32 round through f64, as on the CPU: above 2^53 that
    // differs from one rounding.
    let big: Vec<i64> = (0..8).map(|i| (1i64 << 60) + (1 << 36) + 1 + (i << 37)).collect();
    let ints = Array::from_ndarray(ArrayD::from_shape_vec(vec![8], big.clone()).unwrap(), 8).unwrap();
    let rounded = ints.astype::<f32>().astype::<f64>();
    let source = rounded.cuda_kernel_source().expect("conversions to float have a device form");
    let expected = rounded.compute().unwrap();
    let got = run_elementwise(
        &source,
        &[Input("long long", big.iter().flat_map(|x| x.to_ne_bytes()).collect())],
        8,
        1,
        &[8, 0, 1],
        true,
    )
    .unwrap();
    assert_eq!(bits(&got), bits(expected.as_slice().unwrap()), "{source}");

    // What has no exact device form says so.
    assert!(x.map(|v| v * 3.0).cuda_kernel_source().is_none(), "a closure");
    let small = Array::<i64>::arange(0, 10, 1, 5).unwrap();
    assert!(small.floor_divide(&small).unwrap().cuda_kernel_source().is_none(), "C's x / 0 is undefined, chunked's 0");
    assert!(small.left_shift(70).unwrap().cuda_kernel_source().is_none(), "C's long shifts are undefined");
    assert!(x.sum(None).unwrap().cuda_kernel_source().is_none(), "not an elementwise layer");
}

#[test]
fn generated_ufunc_kernels_compute_what_the_cpu_does() {
    use chunked_array::Array;
    use ndarray::ArrayD;
    if compiler().is_none() {
        return crate::support::tool_missing("no host C++ compiler to build the generated kernels with");
    }
    let xs = ArrayD::from_shape_fn(vec![6, 5], |i| (i[0] as f64 - 2.5) * 1.7 + i[1] as f64 * 0.31);
    let ys = ArrayD::from_shape_fn(vec![6, 5], |i| ((i[0] * 5 + i[1]) as f64).sqrt() - 2.2);
    let x = Array::from_ndarray(xs.clone(), [6, 5]).unwrap();
    let y = Array::from_ndarray(ys.clone(), [6, 5]).unwrap();
    let inputs = [f64s(xs.as_slice().unwrap()), f64s(ys.as_slice().unwrap())];
    let meta = [6, 5, 0, 5, 1, 0, 5, 1];
    // NumPy's division family, the log-sum helpers, rounding and signs, fused:
    // each as the CPU computes it.
    let chain = {
        let ln = y.log1p();
        let e = x.expm1().arctan2(&ln).unwrap();
        let c = &(&(&x.floor_divide(&y).unwrap() + &(&x % &y)) * &y.heaviside(0.5).unwrap())
            + &(&x.logaddexp(&y).unwrap() - &x.logaddexp2(&y).unwrap());
        let c = &(&c + &x.hypot(&y).unwrap().cbrt()) + &x.copysign(&y).unwrap().fmax(y.rint()).unwrap();
        let c = &(&c + &x.degrees().sign()) + &e;
        (&c + &x.trunc().nextafter(y.ceil()).unwrap().reciprocal().square()).floor_divide(3.0).unwrap()
    };
    let source = chain.cuda_kernel_source().expect("the chain has a device form");
    let expected = chain.compute().unwrap();
    let got = run_elementwise(&source, &inputs, 30, 2, &meta, true).unwrap();
    assert_eq!(bits(&got), bits(expected.as_slice().unwrap()), "{source}");

    // Integer arithmetic wraps in C as on the CPU: i64 extremes through
    // + - *, bitwise logic, extrema and comparisons, then converted.
    let ai = ArrayD::from_shape_fn(vec![6, 5], |i| [i64::MIN, i64::MAX, -7, 0, 3][(i[0] + i[1]) % 5] ^ (i[0] as i64));
    let bi = ArrayD::from_shape_fn(vec![6, 5], |i| [i64::MAX, 2, i64::MIN + 1, -1, 11][(2 * i[0] + i[1]) % 5]);
    let a = Array::from_ndarray(ai.clone(), [6, 5]).unwrap();
    let b = Array::from_ndarray(bi.clone(), [6, 5]).unwrap();
    let ints = &(&(&a * &b) - &(&a + &b)).bitwise_xor(&b).unwrap().maximum(&-&a).unwrap() + 1;
    let ints = chunked_array::where_(&a.gt(&b).unwrap(), &ints, a.square().invert()).unwrap().astype::<f64>();
    let source = ints.cuda_kernel_source().expect("integer chains have a device form");
    let expected = ints.compute().unwrap();
    let i64s = |v: &[i64]| Input("long long", v.iter().flat_map(|x| x.to_ne_bytes()).collect());
    let got =
        run_elementwise(&source, &[i64s(ai.as_slice().unwrap()), i64s(bi.as_slice().unwrap())], 30, 2, &meta, true)
            .unwrap();
    assert_eq!(bits(&got), bits(expected.as_slice().unwrap()), "{source}");
}

#[test]
fn generated_complex_kernels_compute_what_the_cpu_does() {
    use chunked_array::{Array, Complex32, Complex64};
    use ndarray::ArrayD;
    if compiler().is_none() {
        return crate::support::tool_missing("no host C++ compiler to build the generated kernels with");
    }
    // Zeros, infinities and NaNs among ordinary values: NumPy's division and
    // num-complex's product on every one of them.
    let special = [0.0, -0.0, f64::INFINITY, f64::NAN, 1e300, -2.5];
    let zs = ArrayD::from_shape_fn(vec![6, 5], |i| {
        let k = i[0] * 5 + i[1];
        Complex64::new(if k % 7 == 0 { special[k % 6] } else { k as f64 * 0.3 - 4.0 }, (k as f64).sqrt() - 2.0)
    });
    let ws = ArrayD::from_shape_fn(vec![6, 5], |i| {
        let k = i[0] * 5 + i[1];
        Complex64::new(1.5 - k as f64 * 0.1, if k % 5 == 0 { special[(k / 5) % 6] } else { 0.7 - k as f64 * 0.05 })
    });
    let xs = ArrayD::from_shape_fn(vec![6, 5], |i| (i[0] as f64 - 2.5) * 0.7 + i[1] as f64);
    let (z, w) = (Array::from_ndarray(zs.clone(), [6, 5]).unwrap(), Array::from_ndarray(ws.clone(), [6, 5]).unwrap());
    let x = Array::from_ndarray(xs.clone(), [6, 5]).unwrap();
    let chain = {
        let q = &(&(&z * &w) + &(&z / &w)) - &(&z.square() * Complex64::new(0.5, -2.0));
        let q = &(&q.conj() - &w.reciprocal()) + &(&x / &w);
        let q = &q + &(Complex64::new(1.0, 1.0) / &z).astype::<Complex32>().astype::<Complex64>();
        let q = &(&q * &(&z.real() - &w.imag())) + &chunked_array::where_(&z.isnan(), &w, &(&x + &z)).unwrap();
        &(&(&q + &z.exp()) + &(&w.sqrt() - &z.expm1())) + &(&z.log() * &(&w.log1p() + &z.sqrt()))
    };
    let source = chain.cuda_kernel_source().expect("the chain has a device form");
    let expected = chain.compute().unwrap();
    let c128s =
        |v: &ArrayD<Complex64>| Input("c128", v.iter().flat_map(|z| [z.re, z.im]).flat_map(f64::to_ne_bytes).collect());
    let got = run_elementwise_as(
        "c128",
        &source,
        &[c128s(&zs), c128s(&ws), f64s(xs.as_slice().unwrap())],
        30,
        2,
        &[6, 5, 0, 5, 1, 0, 5, 1, 0, 5, 1],
        true,
    )
    .unwrap();
    let want: Vec<f64> = expected.iter().flat_map(|z| [z.re, z.im]).collect();
    // NaNs compare as NaN: the sign of a NaN an invalid operation makes is
    // the hardware's (x86 sets it, CUDA does not), not the arithmetic's.
    let canonical = |v: &[f64]| v.iter().map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() }).collect::<Vec<_>>();
    assert!(want.iter().filter(|v| v.is_nan()).count() >= 3, "NaNs among the results");
    assert_eq!(canonical(&got), canonical(&want), "{source}");
}

/// Every complex transcendental ufunc and `pow`, one per row of a (16, 24)
/// array, selected by `where`: one generated kernel per width, compiled for
/// the host and compared bit for bit with the CPU over zeros of both signs,
/// ±1, ±i, infinities, NaNs and values whose hyperbolic parts overflow.
fn complex_transcendentals<T: chunked_array::ComplexFloat>(
    z: &chunked_array::Array<T>,
    w: &chunked_array::Array<T>,
    row: &chunked_array::Array<f64>,
) -> chunked_array::Array<T> {
    type Unary<T> = fn(&chunked_array::Array<T>) -> chunked_array::Array<T>;
    let functions: [Unary<T>; 15] = [
        |a| a.exp2(),
        |a| a.log2(),
        |a| a.log10(),
        |a| a.sin(),
        |a| a.cos(),
        |a| a.tan(),
        |a| a.sinh(),
        |a| a.cosh(),
        |a| a.tanh(),
        |a| a.arcsin(),
        |a| a.arccos(),
        |a| a.arctan(),
        |a| a.arcsinh(),
        |a| a.arccosh(),
        |a| a.arctanh(),
    ];
    let mut out = z.pow(w).unwrap();
    for (k, f) in functions.iter().enumerate() {
        out = chunked_array::where_(&row.eq(k as f64).unwrap(), f(z), &out).unwrap();
    }
    out
}

#[test]
fn generated_complex_transcendentals_compute_what_the_cpu_does() {
    use chunked_array::{Array, Complex32, Complex64};
    use ndarray::ArrayD;
    if compiler().is_none() {
        return crate::support::tool_missing("no host C++ compiler to build the generated kernels with");
    }
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let special = [
        (0.0, 0.0),
        (-0.0, 0.0),
        (0.0, -0.0),
        (1.0, 0.0),
        (-1.0, -0.0),
        (0.0, 1.0),
        (0.0, -1.0),
        (inf, 1.0),
        (-inf, 1.0),
        (1.0, inf),
        (nan, 0.0),
        (nan, 1.0),
        (2.0, -inf),
        (800.0, 0.5),
        (0.5, -800.0),
    ];
    let zs = ArrayD::from_shape_fn(vec![16, 24], |i| match special.get(i[1]) {
        Some(&(re, im)) => Complex64::new(re, im),
        None => Complex64::new(i[1] as f64 * 0.61 - 9.0, (i[0] as f64).sqrt() - 1.7),
    });
    // Exponents: zero, small integers of both signs (the products), halves,
    // complex ones, and NaN.
    let exponents = [(0.0, 0.0), (2.0, 0.0), (-3.0, 0.0), (7.0, -0.0), (0.5, 0.0), (1.5, -2.0), (nan, 0.0)];
    let ws = ArrayD::from_shape_fn(vec![16, 24], |i| {
        let (re, im) = exponents[(i[0] + i[1]) % exponents.len()];
        Complex64::new(re, im)
    });
    let rows = ArrayD::from_shape_fn(vec![16, 24], |i| i[0] as f64);
    let (z, w) =
        (Array::from_ndarray(zs.clone(), [16, 24]).unwrap(), Array::from_ndarray(ws.clone(), [16, 24]).unwrap());
    let row = Array::from_ndarray(rows.clone(), [16, 24]).unwrap();
    let c128s =
        |v: &ArrayD<Complex64>| Input("c128", v.iter().flat_map(|z| [z.re, z.im]).flat_map(f64::to_ne_bytes).collect());
    let canonical = |v: &[f64]| v.iter().map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() }).collect::<Vec<_>>();
    let narrow = |v: &ArrayD<Complex64>| v.mapv(|z| Complex32::new(z.re as f32, z.im as f32));
    let c64s =
        |v: &ArrayD<Complex32>| Input("c64", v.iter().flat_map(|z| [z.re, z.im]).flat_map(f32::to_ne_bytes).collect());
    let (zs32, ws32) = (narrow(&zs), narrow(&ws));
    let (z32, w32) =
        (Array::from_ndarray(zs32.clone(), [16, 24]).unwrap(), Array::from_ndarray(ws32.clone(), [16, 24]).unwrap());
    let meta = [16, 24, 0, 24, 1, 0, 24, 1, 0, 24, 1];
    let cases = [
        ("c128", complex_transcendentals(&z, &w, &row), [f64s(rows.as_slice().unwrap()), c128s(&zs), c128s(&ws)]),
        (
            "c64",
            complex_transcendentals(&z32, &w32, &row).astype::<Complex64>(),
            [f64s(rows.as_slice().unwrap()), c64s(&zs32), c64s(&ws32)],
        ),
    ];
    for (width, chain, inputs) in cases {
        let source = chain.cuda_kernel_source().expect("every complex ufunc has a device form");
        let got = run_elementwise_as("c128", &source, &inputs, 16 * 24, 2, &meta, true).unwrap();
        let want: Vec<f64> = chain.compute().unwrap().iter().flat_map(|z| [z.re, z.im]).collect();
        assert!(want.iter().filter(|v| v.is_nan()).count() >= 16, "NaNs among the results");
        for (i, (g, w)) in canonical(&got).iter().zip(canonical(&want)).enumerate() {
            let (row, col) = (i / 48, i % 48 / 2);
            assert_eq!(*g, w, "{width}: row {row} at {:?}: {} vs {}", zs[[row, col]], got[i], want[i]);
        }
    }
}
