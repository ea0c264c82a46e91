//! GPU rows: chunked's device work against the device's own yardsticks.
//!
//! ```text
//! target/release/gpu_report [--scale F] [--repeat R]
//! ```
//!
//! On a CUDA device (the first visible one):
//! - random fill: chunked's Philox kernel (one block of `2^27 * F` doubles)
//!   against cuRAND's Philox generator and a device-to-device copy (read +
//!   write bytes: the memory bandwidth), in GB/s of output;
//! - gemm: `x @ x` of a random `10000F x 10000F` matrix in blocks of `2000F`
//!   on the device (blocks kept there with `persist`) against one cuBLAS gemm
//!   of the whole matrix (target: 90%);
//! - a full sum of a `100000F x 1000` device array (reduction kernels)
//!   against the copy's bandwidth;
//! - the seed SVD, `100000F x 1000` in `(1000, 1000)` blocks made on the
//!   device, singular values computed;
//! - complex128 gemm: `z @ z` of a `4000F x 4000F` matrix in blocks of
//!   `2000F` against one cuBLAS zgemm of the whole matrix;
//! - TSQR of `1e6F x 100` in `(10000, 100)` blocks, Q summed on the device,
//!   with the bytes that left the device;
//! - 8 MiB allocations per second and the suite's random sum, without a
//!   device pool and with one of 1 GiB.
//!
//! Without one it says why and measures what the device layer costs on an
//! emulated device (host memory behind the device interface) against the same
//! work on the host: a random fill, a fused elementwise chain with a
//! reduction, the blocked matmul and the SVD, at sizes scaled by `F`
//! (default 0.25 there).
//!
//! Prints one markdown table; each time is the median of `R` runs after a
//! warm-up.
//!
//! `--suite` instead prints, as JSON, the suite's GPU workloads end to end on
//! the CUDA device (results copied to the host), for `benches/python/gpu_suite.py`
//! to set beside dask + CuPy: `random_sum` (random (100000F, 1000) in
//! (1000, 1000) blocks, summed), `matmul` (`(x @ x).sum()` of a random
//! 10000F^(1/3)-sided square in 2000^2 blocks), `seed_svd` (u, s and vt of
//! the seed's matrix), `ufunc_cheap`/`ufunc_trig` (the ufunc issue's two
//! five-ufunc chains over the random array persisted on the device, summed),
//! `complex_chain` (`abs((z·conj(z) + z) / (z + 1.5i)).sum()` of a complex128
//! array of the random array's shape) and `complex_matmul` (`(z @ z).sum()`
//! of a complex128 4000F^(1/3)-sided square in 2000^2 blocks);
//! or `{"skipped": why}` without a CUDA device. `--pool BYTES` runs them
//! with a device pool of that size (`Context::with_device_pool`).

use chunked_array::device::Device;
use chunked_array::random::RandomState;
use chunked_array::{Array, Complex64, Context, Gemm};
use chunked_benches::cuda_reference::CudaReference;
use chunked_benches::{arg, median, secs};
use chunked_gpu::{DeviceElement, Operand, philox};

/// Median seconds of `repeat` runs of `f` after one warm-up.
fn time(repeat: usize, mut f: impl FnMut()) -> f64 {
    f();
    median((0..repeat).map(|_| secs(&mut f).0).collect())
}

fn main() {
    let repeat: usize = arg("--repeat").map_or(3, |v| v.parse().expect("a number"));
    if std::env::args().any(|a| a == "--suite") {
        let scale: f64 = arg("--scale").map_or(1.0, |v| v.parse().expect("a number"));
        match Device::cuda(0) {
            Ok(device) => suite_rows(&device, scale, repeat),
            Err(e) => println!("{{\"skipped\": \"{}\"}}", e.to_string().replace('"', "'")),
        }
        return;
    }
    match Device::cuda(0) {
        Ok(device) => cuda_rows(&device, arg("--scale").map_or(1.0, |v| v.parse().expect("a number")), repeat),
        Err(e) => {
            println!("no CUDA device ({e}): measuring the device layer on an emulated device against the host\n");
            emulated_rows(arg("--scale").map_or(0.25, |v| v.parse().expect("a number")), repeat);
        }
    }
}

fn scaled(n: usize, f: f64) -> usize {
    ((n as f64 * f) as usize).max(1)
}

/// The Philox fill against cuRAND's and the device's copy bandwidth; returns
/// that bandwidth (GB/s, read + write).
fn random_fill_rows(device: &Device, f: f64, repeat: usize) -> f64 {
    // Random fill, one run of n doubles.
    let n = scaled(1 << 27, f);
    let gb = (n * 8) as f64 / 1e9;
    let mut ours = device.zeros::<f64>(n).expect("device memory");
    let t_ours = time(repeat, || {
        philox::fill(&mut ours, 42, 0, philox::Distribution::Uniform, &[0], n).expect("philox kernel");
        device.synchronize().expect("sync");
    });
    let reference = CudaReference::new(device.ordinal()).expect("the same CUDA device");
    let mut theirs = reference.zeros(n).expect("device memory");
    let t_curand = time(repeat, || {
        reference.curand_philox_uniform(&mut theirs, 42).expect("cuRAND");
        reference.synchronize().expect("sync");
    });
    let mut copied = reference.zeros(n).expect("device memory");
    let t_copy = time(repeat, || {
        reference.copy(&theirs, &mut copied).expect("copy");
        reference.synchronize().expect("sync");
    });
    println!(
        "| random fill {n} f64 | {:.0} GB/s | cuRAND Philox {:.0} GB/s | {:.2} |",
        gb / t_ours,
        gb / t_curand,
        t_curand / t_ours
    );
    println!(
        "| (memory bandwidth) | | device copy {:.0} GB/s (read + write) | {:.2} of it |",
        2.0 * gb / t_copy,
        (gb / t_ours) / (2.0 * gb / t_copy)
    );
    drop((ours, theirs, copied));
    2.0 * gb / t_copy
}

fn cuda_rows(device: &Device, f: f64, repeat: usize) {
    println!("device: {} ({:.1} GB)\n", device.describe(), device.capacity() as f64 / 1e9);
    println!("| workload | chunked | reference | ratio |");
    println!("|---|---|---|---|");
    let copy_gbs = random_fill_rows(device, f, repeat);
    let ctx = Context::threads(0);

    // A full sum of a device array by the reduction kernels, against the
    // bandwidth the copy reached (a sum only reads).
    let rows = scaled(100_000, f);
    let kept = RandomState::new(3)
        .on_device(device)
        .uniform::<f64>(&[rows, 1000], [rows.min(10_000), 1000])
        .expect("shape")
        .persist_on(&ctx)
        .expect("persist");
    let total = kept.sum(None).expect("sum");
    let t_sum = time(repeat, || drop(total.compute_on(&ctx).expect("sum on the device")));
    let read = (rows * 1000 * 8) as f64 / 1e9;
    println!(
        "| sum of {rows}x1000 f64 on the device | {:.0} GB/s read | device copy {:.0} GB/s | {:.2} of it |",
        read / t_sum,
        copy_gbs,
        (read / t_sum) / copy_gbs
    );
    drop(kept);

    // Blocked gemm against one cuBLAS call.
    let m = scaled(10_000, f);
    let b = scaled(2000, f);
    let x = RandomState::new(1)
        .uniform::<f64>(&[m, m], [b, b])
        .expect("shape")
        .to_device(device)
        .persist_on(&ctx)
        .expect("persist");
    gemm_row(&x, 0.5, (format!("matmul {m}² in {b}² blocks"), "gemm", 2.0), &ctx, repeat);
    drop(x);
    let m = scaled(4000, f);
    let z = complex_uniform(&[m, m], [b, b], 2, device).persist_on(&ctx).expect("persist");
    let value = Complex64::new(0.5, -0.25);
    gemm_row(&z, value, (format!("complex128 matmul {m}² in {b}² blocks"), "zgemm", 8.0), &ctx, repeat);

    // The seed SVD made on the device.
    let rows = scaled(100_000, f);
    let a = RandomState::new(42).uniform::<f64>(&[rows, 1000], [1000, 1000]).expect("shape").to_device(device);
    let svd = chunked_linalg::svd(&a).expect("svd");
    let t_svd = time(repeat, || {
        svd.s.compute_on(&ctx).expect("svd");
    });
    println!("| seed SVD {rows}x1000, (1000, 1000) blocks, on the device | {t_svd:.2} s | | |");

    // TSQR of a tall-skinny matrix: cuSOLVER per block, Q assembled on the
    // device and summed there (only a number comes back).
    let tall = scaled(1_000_000, f);
    let t = RandomState::new(5).on_device(device).uniform::<f64>(&[tall, 100], [tall.min(10_000), 100]).expect("shape");
    let q_sum =
        chunked_linalg::tsqr(&t, &chunked_linalg::TsqrOptions::default()).expect("tsqr").q.sum(None).expect("sum");
    let before = device.downloaded_bytes();
    let t_tsqr = time(repeat, || drop(q_sum.compute_on(&ctx).expect("tsqr")));
    let per_run = (device.downloaded_bytes() - before) as f64 / (repeat + 1) as f64;
    println!(
        "| TSQR {tall}x100, (10000, 100) blocks, on the device | {t_tsqr:.2} s | {per_run:.0} bytes to the host per run | |"
    );
    pool_rows(device, f, repeat);
}

/// The blocked `x @ x` of a square device array (one cuBLAS call per block
/// pair) against one cuBLAS call on a whole matrix of `value`s of the same
/// size, as a row named by `label`, `routine` (the cuBLAS routine) and
/// `flops` (real flops per multiply-add: 2, or 8 for complex numbers).
fn gemm_row<T: Gemm + DeviceElement>(
    x: &Array<T>,
    value: T,
    (label, routine, flops): (String, &str, f64),
    ctx: &Context,
    repeat: usize,
) {
    let device = x.device().expect("a device array");
    let m = x.shape()[0];
    let product = x.matmul(x).expect("matmul");
    let t_blocked = time(repeat, || {
        let kept = product.persist_on(ctx).expect("matmul on the device");
        device.synchronize().expect("sync");
        drop(kept);
    });
    let whole = device.upload(&vec![value; m * m]).expect("device memory");
    let mut c = device.zeros::<T>(m * m).expect("device memory");
    let t_cublas = time(repeat, || {
        device
            .gemm((m, m, m), T::ONE, Operand::whole(&whole, m), Operand::whole(&whole, m), T::ZERO, &mut c)
            .expect("cuBLAS gemm");
        device.synchronize().expect("sync");
    });
    let flop = flops * (m as f64).powi(3);
    println!(
        "| {label} | {:.1} TFLOP/s | one cuBLAS {routine} {:.1} TFLOP/s | {:.2} |",
        flop / t_blocked / 1e12,
        flop / t_cublas / 1e12,
        t_cublas / t_blocked
    );
}

/// `x + i·y` of two uniform arrays, made on `device`.
fn complex_uniform(shape: &[usize], chunks: [usize; 2], seed: u64, device: &Device) -> Array<Complex64> {
    let rng = RandomState::new(seed).on_device(device);
    let re = rng.uniform::<f64>(shape, chunks).expect("shape");
    let im = rng.with_stream(1).uniform::<f64>(shape, chunks).expect("shape");
    &re + &(im.astype::<Complex64>() * Complex64::new(0.0, 1.0))
}

/// Allocations of 8 MiB (each freed, then the device synchronized, as a
/// task's block is freed between synchronizations) per second, and the random sum of the suite, without a device
/// pool and then with one of 1 GiB (last: a device's pool stays once set).
fn pool_rows(device: &Device, f: f64, repeat: usize) {
    let allocations = 200;
    let churn = || {
        for _ in 0..allocations {
            // Freed, then a synchronization: without a pool the driver takes
            // the memory back there, and the next allocation maps it anew.
            drop(device.zeros::<u8>(8 << 20).expect("device memory"));
            device.synchronize().expect("sync");
        }
    };
    let rows = scaled(100_000, f);
    let x = RandomState::new(12).uniform::<f64>(&[rows, 1000], [1000, 1000]).expect("shape").to_device(device);
    let total = x.sum(None).expect("sum");
    let (plain, pooled) = (Context::threads(0), Context::threads(0).with_device_pool(1 << 30));
    let (t_plain, t_sum_plain) = (time(repeat, churn), time(repeat, || drop(total.compute_on(&plain).expect("sum"))));
    // The pooled run's warm-up reserves the pool for the churn after it.
    let t_sum_pool = time(repeat, || drop(total.compute_on(&pooled).expect("sum")));
    let t_pool = time(repeat, churn);
    println!(
        "| 8 MiB allocations (alloc, sync, free) | {:.0}/s with a 1 GiB pool | {:.0}/s without | {:.2} |",
        allocations as f64 / t_pool,
        allocations as f64 / t_plain,
        t_plain / t_pool
    );
    println!(
        "| random {rows}x1000 in (1000, 1000) blocks, summed | {t_sum_pool:.3} s with the pool | {t_sum_plain:.3} s without | {:.2} |",
        t_sum_plain / t_sum_pool
    );
    println!("\npool: {} bytes reserved, {} in use", device.pool_reserved(), device.in_use());
}

/// The suite's GPU workloads on `device`, as JSON (see the module notes).
fn suite_rows(device: &Device, f: f64, repeat: usize) {
    let ctx = match arg("--pool") {
        Some(bytes) => Context::threads(0).with_device_pool(chunked_array::parse_bytes(&bytes).expect("--pool BYTES")),
        None => Context::threads(0),
    };
    let rows = scaled(100_000, f);
    let x = RandomState::new(12).uniform::<f64>(&[rows, 1000], [1000, 1000]).expect("shape").to_device(device);
    let total = x.sum(None).expect("sum");
    let random_sum = time(repeat, || drop(total.compute_on(&ctx).expect("random sum")));
    let n = ((10_000.0 * f.cbrt()) as usize).max(100);
    let y = RandomState::new(0).uniform::<f64>(&[n, n], [2000, 2000]).expect("shape").to_device(device);
    let product = y.matmul(&y).expect("matmul").sum(None).expect("sum");
    let matmul = time(repeat, || drop(product.compute_on(&ctx).expect("matmul")));
    let svd = chunked_linalg::svd(&x).expect("svd");
    let seed_svd = time(repeat, || drop(chunked_array::compute((&svd.u, &svd.s, &svd.vt)).expect("svd")));
    let (ufunc_cheap, ufunc_trig) = ufunc_chains(&x, &ctx, repeat);
    // The complex rows: a chain of complex arithmetic reduced through abs,
    // and the blocked zgemm, each summed on the device.
    let im = RandomState::new(13).on_device(device).uniform::<f64>(&[rows, 1000], [1000, 1000]).expect("shape");
    let z = (&x + &(im.astype::<Complex64>() * Complex64::new(0.0, 1.0))).persist_on(&ctx).expect("persist");
    let chain = ((&(&z * &z.conj()) + &z) / &(&z + Complex64::new(0.0, 1.5))).abs().sum(None).expect("sum");
    let complex_chain = time(repeat, || drop(chain.compute_on(&ctx).expect("complex chain")));
    drop(z);
    let nc = ((4000.0 * f.cbrt()) as usize).max(100);
    let zm = complex_uniform(&[nc, nc], [2000, 2000], 14, device).persist_on(&ctx).expect("persist");
    let zsum = zm.matmul(&zm).expect("matmul").sum(None).expect("sum");
    let complex_matmul = time(repeat, || drop(zsum.compute_on(&ctx).expect("complex matmul")));
    println!(
        "{{\"device\": \"{}\", \"random_sum\": {random_sum}, \"matmul\": {matmul}, \"seed_svd\": {seed_svd}, \"ufunc_cheap\": {ufunc_cheap}, \"ufunc_trig\": {ufunc_trig}, \"complex_chain\": {complex_chain}, \"complex_matmul\": {complex_matmul}}}",
        device.describe().replace('"', "'")
    );
}

/// Seconds of the ufunc issue's two chains (cheap, transcendental), each
/// reduced to a sum, over `x` persisted on its device: one fused kernel per
/// block and the reduction kernels.
fn ufunc_chains(x: &Array<f64>, ctx: &Context, repeat: usize) -> (f64, f64) {
    let x = x.persist().expect("persist on the device");
    let cheap = || -> chunked_array::Result<Array<f64>> {
        x.floor().square().copysign(&x)?.fmax(0.25)?.heaviside(0.5)?.sum(None)
    };
    let trig = || -> chunked_array::Result<Array<f64>> { x.rint().expm1().hypot(&x)?.log1p().cbrt().sum(None) };
    let (cheap, trig) = (cheap().expect("chain"), trig().expect("chain"));
    let t_cheap = time(repeat, || drop(cheap.compute_on(ctx).expect("cheap chain")));
    let t_trig = time(repeat, || drop(trig.compute_on(ctx).expect("transcendental chain")));
    (t_cheap, t_trig)
}

fn emulated_rows(f: f64, repeat: usize) {
    let device = Device::emulated(usize::MAX);
    let ctx = Context::threads(0);
    println!("| workload | host | emulated device | device / host |");
    println!("|---|---|---|---|");
    let row = |name: String, host: &dyn Fn(), dev: &dyn Fn()| {
        let (h, d) = (time(repeat, host), time(repeat, dev));
        println!("| {name} | {h:.3} s | {d:.3} s | {:.2} |", d / h);
    };
    let n = scaled(20_000, f);
    let x = RandomState::new(0).uniform::<f64>(&[n, n], [n.min(2000), n.min(2000)]).expect("shape");
    let xd = x.to_device(&device);
    let total = |a: &Array<f64>| a.sum(None).expect("sum").compute_on(&ctx).expect("run");
    row(format!("random {n}² + sum"), &|| drop(total(&x)), &|| drop(total(&xd)));
    let chain = |a: &Array<f64>| total(&((a * 2.0 + 1.0).sin() - a));
    row(format!("elementwise chain + sum, {n}²"), &|| drop(chain(&x)), &|| drop(chain(&xd)));
    let m = scaled(10_000, f);
    let y = RandomState::new(1).uniform::<f64>(&[m, m], [m.min(2000), m.min(2000)]).expect("shape");
    let yd = y.to_device(&device);
    let mm = |a: &Array<f64>| total(&a.matmul(a).expect("matmul"));
    row(format!("matmul {m}² + sum"), &|| drop(mm(&y)), &|| drop(mm(&yd)));
    let rows = scaled(100_000, f);
    let a = RandomState::new(42).uniform::<f64>(&[rows, 1000], [1000, 1000]).expect("shape");
    let ad = a.to_device(&device);
    let svd = |a: &Array<f64>| chunked_linalg::svd(a).expect("svd").s.compute_on(&ctx).expect("run");
    row(format!("seed SVD {rows}x1000"), &|| drop(svd(&a)), &|| drop(svd(&ad)));
    // The device TSQR keeps every block on the device: only the result leaves.
    let before = device.downloaded_bytes();
    svd(&ad);
    println!(
        "\nbytes copied from the emulated device to the host by one seed SVD: {} (its {} singular values)",
        device.downloaded_bytes() - before,
        1000
    );
}
