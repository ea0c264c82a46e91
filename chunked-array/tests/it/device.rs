//! The CPU oracle tests, run per backend: on the host (no device), on an
//! emulated device and on a CUDA device (which skips, saying why, where there
//! is none). Oracles are ndarray on whole in-memory arrays and the host
//! generator's numbers.

use approx::assert_relative_eq;
use chunked_array::device::{Backend, Device};
use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Error};
use ndarray::{ArrayD, Axis, Ix2};

#[macro_use]
#[path = "support/backends.rs"]
pub(crate) mod backends;

pub(crate) fn place<T: chunked_array::Element>(a: &Array<T>, device: Option<&Device>) -> Array<T> {
    match device {
        Some(d) => a.to_device(d),
        None => a.clone(),
    }
}

pub(crate) fn is_cuda(device: Option<&Device>) -> bool {
    device.is_some_and(|d| d.backend() == Backend::Cuda)
}

per_backend!(random_streams_match_the_host_generator, |device: Option<&Device>| {
    let rng = RandomState::new(2024).with_stream(3);
    // Device arrays in one chunking against host arrays in another: the same
    // numbers, bit for bit (uniform and integers).
    let host = rng.uniform::<f64>(&[70, 90], [70, 90]).unwrap().compute().unwrap();
    let dev = place(&rng.uniform::<f64>(&[70, 90], [17, 40]).unwrap(), device);
    assert_eq!(dev.device().is_some(), device.is_some());
    assert_eq!(dev.compute().unwrap(), host);
    // The device option of the generator itself (the seeds' CuPy-backed RandomState).
    if let Some(d) = device {
        let made_there = rng.clone().on_device(d).uniform::<f64>(&[70, 90], [17, 40]).unwrap();
        assert!(made_there.device().is_some_and(|on| on.same(d)));
        assert_eq!(made_there.compute().unwrap(), host);
    }
    let host = rng.uniform::<f32>(&[33, 29], 1000).unwrap().compute().unwrap();
    assert_eq!(place(&rng.uniform::<f32>(&[33, 29], [5, 7]).unwrap(), device).compute().unwrap(), host);
    let host = rng.integers::<i64>(-5, 1 << 40, &[301], 301).unwrap().compute().unwrap();
    assert_eq!(place(&rng.integers::<i64>(-5, 1 << 40, &[301], 19).unwrap(), device).compute().unwrap(), host);
    let host = rng.integers::<i32>(0, 7, &[11, 13], 100).unwrap().compute().unwrap();
    assert_eq!(place(&rng.integers::<i32>(0, 7, &[11, 13], [3, 4]).unwrap(), device).compute().unwrap(), host);
    // Normal draws: CUDA's log and sincos are within a few ulp of glibc's.
    let tol = if is_cuda(device) { 1e-13 } else { 0.0 };
    let host = rng.normal::<f64>(1.0, 2.0, &[41, 23], 1000).unwrap().compute().unwrap();
    let dev = place(&rng.normal::<f64>(1.0, 2.0, &[41, 23], [9, 23]).unwrap(), device).compute().unwrap();
    for (a, b) in dev.iter().zip(host.iter()) {
        assert!((a - b).abs() <= tol * b.abs().max(1.0), "{a} vs {b}");
    }
    let host = rng.standard_normal::<f32>(&[50], 50).unwrap().compute().unwrap();
    let dev = place(&rng.standard_normal::<f32>(&[50], 7).unwrap(), device).compute().unwrap();
    for (a, b) in dev.iter().zip(host.iter()) {
        assert!((a - b).abs() <= 2.0 * f32::EPSILON * b.abs().max(1.0), "{a} vs {b}");
    }
});

per_backend!(elementwise_and_reductions_stay_on_the_device, |device: Option<&Device>| {
    let x = RandomState::new(7).uniform::<f64>(&[64, 48], [16, 12]).unwrap();
    let oracle = x.compute().unwrap();
    let x = place(&x, device);
    let y = (&x * 2.0 + 1.0).sin() - &x;
    assert_eq!(y.device().is_some(), device.is_some(), "layers built on a device array are placed on it");
    let expected = (&oracle * 2.0 + 1.0).mapv(f64::sin) - &oracle;
    let got = y.compute().unwrap();
    for (a, b) in got.iter().zip(expected.iter()) {
        assert_relative_eq!(*a, *b, max_relative = 1e-15);
    }
    let sums = y.sum(0).unwrap().compute().unwrap();
    for (a, b) in sums.iter().zip(expected.sum_axis(Axis(0)).iter()) {
        assert_relative_eq!(*a, *b, max_relative = 1e-12);
    }
    assert_relative_eq!(
        y.mean(None).unwrap().compute_scalar().unwrap(),
        expected.mean().unwrap(),
        max_relative = 1e-12
    );
    let max = x.max(1).unwrap().compute().unwrap();
    assert_eq!(max, oracle.map_axis(Axis(1), |r| r.iter().copied().fold(f64::MIN, f64::max)));
    // Moments: on a device, two passes of device reductions; the same values.
    for ddof in [0usize, 1] {
        let var = x.var(0, ddof).unwrap().compute().unwrap();
        for (a, b) in var.iter().zip(oracle.var_axis(Axis(0), ddof as f64).iter()) {
            assert_relative_eq!(*a, *b, max_relative = 1e-12);
        }
        let std = x.std(None, ddof).unwrap().compute_scalar().unwrap();
        assert_relative_eq!(std, oracle.std(ddof as f64), max_relative = 1e-12);
    }
    // Integers go through their mean type (f64).
    let ints = place(&RandomState::new(3).integers::<i32>(-50, 50, &[40, 30], [10, 30]).unwrap(), device);
    let host_ints = ints.compute().unwrap().mapv(f64::from);
    for (a, b) in ints.var(1, 0).unwrap().compute().unwrap().iter().zip(host_ints.var_axis(Axis(1), 0.0).iter()) {
        assert_relative_eq!(*a, *b, max_relative = 1e-12);
    }
    // ddof as large as the count: inf, as on the host (numpy warns and gives inf).
    assert!(x.var(None, 64 * 48).unwrap().compute_scalar().unwrap().is_infinite());
});

per_backend!(matmul_matches_ndarray, |device: Option<&Device>| {
    let rng = RandomState::new(11);
    let a = rng.standard_normal::<f64>(&[60, 45], [20, 15]).unwrap();
    let b = rng.clone().with_stream(1).standard_normal::<f64>(&[45, 30], [10, 12]).unwrap();
    let (ah, bh) = (a.compute().unwrap(), b.compute().unwrap());
    let expected =
        ah.clone().into_dimensionality::<Ix2>().unwrap().dot(&bh.clone().into_dimensionality::<Ix2>().unwrap());
    let c = place(&a, device).matmul(&place(&b, device)).unwrap();
    assert_eq!(c.device().is_some(), device.is_some());
    let got = c.compute().unwrap().into_dimensionality::<Ix2>().unwrap();
    for (x, y) in got.iter().zip(expected.iter()) {
        assert!((x - y).abs() <= 1e-12 * 45.0, "{x} vs {y}");
    }
    // A host operand with a device one: the product runs on the device.
    let mixed = a.matmul(&place(&b, device)).unwrap().compute().unwrap();
    assert_eq!(mixed.shape(), &[60, 30]);
    let f32s = place(&a.astype::<f32>(), device).matmul(&place(&b.astype::<f32>(), device)).unwrap().compute().unwrap();
    for (x, y) in f32s.iter().zip(expected.iter()) {
        assert!((*x as f64 - y).abs() <= 1e-4 * 45.0, "{x} vs {y}");
    }
    // A stack (3, 60, 45) against the one matrix b, stretched over the stack:
    // on a CUDA device the stack is multiplied on the host and uploaded.
    let stack = rng.with_stream(2).standard_normal::<f64>(&[3, 60, 45], [2, 20, 15]).unwrap();
    let sh = stack.compute().unwrap();
    let product = place(&stack, device).matmul(&place(&b, device)).unwrap();
    assert_eq!(product.device().is_some(), device.is_some());
    let got = product.compute().unwrap();
    let bm = bh.clone().into_dimensionality::<Ix2>().unwrap();
    for s in 0..3 {
        let want = sh.index_axis(Axis(0), s).into_dimensionality::<Ix2>().unwrap().dot(&bm);
        for (x, y) in got.index_axis(Axis(0), s).iter().zip(want.iter()) {
            assert!((x - y).abs() <= 1e-12 * 45.0, "matrix {s}: {x} vs {y}");
        }
    }
});

per_backend!(host_arrays_move_and_manipulations_work_there, |device: Option<&Device>| {
    let data = ArrayD::from_shape_fn(vec![12, 10], |i| (i[0] * 10 + i[1]) as f64);
    let x = place(&Array::from_ndarray(data.clone(), [5, 4]).unwrap(), device);
    let t = x.t().compute().unwrap();
    assert_eq!(t, data.t().to_owned());
    let both = chunked_array::concatenate(&[&x, &x], 0).unwrap().compute().unwrap();
    assert_eq!(both.shape(), &[24, 10]);
    assert_eq!(both.slice(ndarray::s![12.., ..]).to_owned().into_dyn(), data);
    let back = x.to_host();
    assert!(back.device().is_none());
    assert_eq!(back.compute().unwrap(), data);
    let bools = x.gt(50.0).unwrap().compute().unwrap();
    assert_eq!(bools, data.mapv(|v| v > 50.0));
});

per_backend!(persist_keeps_blocks_on_the_device, |device: Option<&Device>| {
    let x = place(&RandomState::new(5).uniform::<f64>(&[40, 40], [10, 10]).unwrap(), device);
    let before = device.map_or(0, |d| d.in_use());
    let kept = x.persist().unwrap();
    if let Some(d) = device {
        assert_eq!(d.in_use() - before, 40 * 40 * 8, "the persisted blocks live on the device");
    }
    let total = (&kept + 1.0).sum(None).unwrap().compute_scalar().unwrap();
    assert_relative_eq!(total, x.compute().unwrap().sum() + 1600.0, max_relative = 1e-12);
    drop(kept);
    if let Some(d) = device {
        assert_eq!(d.in_use(), before, "dropping the persisted array frees the device memory");
    }
});

per_backend!(device_memory_spills_to_host_and_disk, |device: Option<&Device>| {
    let Some(device) = device else {
        return println!("no device tier on the CPU backend");
    };
    // Centering by the column means holds every block of x until the means
    // are known: 40 blocks of 160 KB (6.4 MB) against a device limit of 400 KB,
    // with the host limit at 800 KB so that blocks go on to disk as well.
    let x = RandomState::new(9).uniform::<f64>(&[1000, 800], [100, 200]).unwrap();
    let oracle = x.compute().unwrap();
    let xd = x.to_device(device);
    let z = &xd - &xd.mean(0).unwrap();
    let y = (&z * &z).sum(0).unwrap();
    let spill = std::env::temp_dir().join(format!("chunked-device-spill-{}", std::process::id()));
    let ctx =
        Context::threads(2).with_device_memory_limit(400 << 10).with_memory_limit(800 << 10).with_spill_dir(&spill);
    let (sums, stats) = y.compute_stats(&ctx).unwrap();
    let centered = &oracle - &oracle.mean_axis(Axis(0)).unwrap();
    for (a, b) in sums.iter().zip((&centered * &centered).sum_axis(Axis(0)).iter()) {
        assert_relative_eq!(*a, *b, max_relative = 1e-11);
    }
    assert!(stats.tiers.spilled > 0, "host blocks moved on to disk: {stats:?}");
    assert!(stats.tiers.device_spilled > 0 && stats.tiers.device_spilled_bytes > 0, "{stats:?}");
    // Into pinned buffers, and from there on to disk (their image) and back.
    assert_eq!(stats.tiers.device_spilled_pinned, stats.tiers.device_spilled, "{stats:?}");
    assert!(
        stats.tiers.device_peak_bytes < 1 << 20,
        "device peak {} over the 400 KB limit plus the running tasks' blocks",
        stats.tiers.device_peak_bytes
    );
    assert_eq!(device.in_use(), 0, "every device buffer is freed after the run");
    let _ = std::fs::remove_dir_all(&spill);
    // Blocks moved down come back to the device for readers that run there
    // (matmul's block products), and stay on the host for readers that work
    // on host copies anyway (the subtraction above, on an emulated device).
    let means = xd.mean(0).unwrap().expand_dims(1).unwrap();
    let projected = xd.matmul(&means).unwrap();
    let (got, stats) = projected.compute_stats(&Context::threads(2).with_device_memory_limit(800 << 10)).unwrap();
    let oracle_means = oracle.mean_axis(Axis(0)).unwrap();
    let expected =
        oracle.into_dimensionality::<Ix2>().unwrap().dot(&oracle_means.into_dimensionality::<ndarray::Ix1>().unwrap());
    for (a, b) in got.iter().zip(expected.iter()) {
        assert_relative_eq!(*a, *b, max_relative = 1e-12);
    }
    // Back up from the pinned buffers.
    assert!(stats.tiers.device_spilled > 0 && stats.tiers.device_unspilled > 0, "{stats:?}");
    assert_eq!(stats.tiers.device_spilled_pinned, stats.tiers.device_spilled, "{stats:?}");
    // The unlimited run spills nothing.
    let (_, stats) = y.compute_stats(&Context::threads(2)).unwrap();
    assert_eq!((stats.tiers.device_spilled, stats.tiers.spilled), (0, 0), "{stats:?}");
    assert!(stats.tiers.device_peak_bytes > 0);
});

per_backend!(a_task_larger_than_the_device_limit_is_refused, |device: Option<&Device>| {
    let Some(device) = device else {
        return println!("no device tier on the CPU backend");
    };
    let x = RandomState::new(1).uniform::<f64>(&[1000, 1000], [500, 500]).unwrap().to_device(device);
    let err = (&x + 1.0).compute_on(&Context::threads(2).with_device_memory_limit(1 << 20)).unwrap_err();
    match err {
        Error::PlanExceedsMemory { tier, limit, .. } => {
            assert_eq!(tier, "device memory limit");
            assert_eq!(limit, 1 << 20);
        }
        other => panic!("expected a refused plan, got {other}"),
    }
});

#[test]
fn an_emulated_device_out_of_memory_is_an_error_not_a_crash() {
    let device = Device::emulated(1 << 20);
    // Blocks of 2 MB on a 1 MB device, under a limit above the device's
    // capacity: the device itself refuses them.
    let x = RandomState::new(1).uniform::<f64>(&[1000, 1000], [500, 500]).unwrap().to_device(&device);
    let err =
        (&x * 2.0).sum(None).unwrap().compute_on(&Context::threads(2).with_device_memory_limit(64 << 20)).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Device(chunked_gpu::Error::OutOfMemory { .. }) | Error::Task { .. }), "{text}");
    assert!(text.contains("out of memory") && text.contains("emulated device"), "{text}");
    assert_eq!(device.in_use(), 0, "nothing stays allocated after the failed run");
}

/// Two emulated devices, or the visible CUDA devices when there are two or more.
fn two_devices() -> Vec<Device> {
    match Device::visible() {
        Ok(gpus) if gpus.len() >= 2 => gpus,
        _ => vec![Device::emulated(64 << 20), Device::emulated(64 << 20)],
    }
}

#[test]
fn arrays_spread_over_several_devices() {
    let devices = two_devices();
    let x = RandomState::new(21).uniform::<f64>(&[300, 40], [50, 40]).unwrap();
    let y = RandomState::new(22).uniform::<f64>(&[40, 30], [20, 15]).unwrap();
    let (xh, yh) = (x.compute().unwrap(), y.compute().unwrap());
    let spread = x.to_devices(&devices);
    assert_eq!(spread.devices().len(), 2);
    // Blocks in turn: 6 blocks of 16 kB, 3 on each device.
    let kept = spread.persist().unwrap();
    assert_eq!(devices.iter().map(Device::in_use).collect::<Vec<_>>(), vec![48_000, 48_000]);
    // Work follows the blocks; operands on the other device come through the host.
    let chain = ((&kept * 2.0).exp() - &kept).sum(0).unwrap().compute().unwrap();
    let oracle = ((&xh * 2.0).mapv(f64::exp) - &xh).sum_axis(Axis(0));
    for (a, b) in chain.iter().zip(oracle.iter()) {
        assert_relative_eq!(*a, *b, max_relative = 1e-13);
    }
    let product = kept.matmul(&y.to_devices(&devices)).unwrap().compute().unwrap();
    let expected = xh.into_dimensionality::<Ix2>().unwrap().dot(&yh.into_dimensionality::<Ix2>().unwrap());
    for (a, b) in product.iter().zip(expected.iter()) {
        assert!((a - b).abs() <= 1e-12 * 40.0, "{a} vs {b}");
    }
    drop(kept);
    assert_eq!(devices.iter().map(Device::in_use).sum::<usize>(), 0);
    // Each device has its own limit: with blocks held on both, both spill.
    let z = &spread - &spread.mean(0).unwrap();
    let (_, stats) = z.sum(None).unwrap().compute_stats(&Context::threads(2).with_device_memory_limit(40_000)).unwrap();
    assert!(stats.tiers.device_spilled >= 2, "{stats:?}");
    assert!(
        stats.tiers.device_peak_bytes <= 40_000 + 3 * 16_000,
        "one device held {} bytes",
        stats.tiers.device_peak_bytes
    );
    // No devices: the array stays where it is.
    assert!(x.to_devices(&[]).device().is_none());
}

#[test]
fn a_device_out_of_memory_spills_idle_blocks_and_runs_the_task_again() {
    // The device limit counts blocks between tasks, set here above the
    // device's real 1 MB: holding the blocks of x (up to 1.9 MB) until the means
    // are known overflows the device itself. The allocations that fail move
    // idle device blocks to host memory and their tasks run again.
    let device = Device::emulated(1 << 20);
    let x = RandomState::new(9).uniform::<f64>(&[1000, 800], [100, 200]).unwrap();
    let oracle = x.compute().unwrap();
    let xd = x.to_device(&device);
    let y = (&xd - &xd.mean(0).unwrap()).abs().sum(0).unwrap();
    let centered = &oracle - &oracle.mean_axis(Axis(0)).unwrap();
    // Both schedulers: the threaded one and the sync one run a task again the same way.
    for ctx in [Context::threads(2), Context::sync()] {
        let (sums, stats) = y.compute_stats(&ctx.with_device_memory_limit(64 << 20)).unwrap();
        for (a, b) in sums.iter().zip(centered.abs().sum_axis(Axis(0)).iter()) {
            assert_relative_eq!(*a, *b, max_relative = 1e-11);
        }
        assert!(stats.tiers.device_spilled > 0, "{stats:?}");
        assert!(device.peak() <= 1 << 20);
        assert_eq!(device.in_use(), 0);
    }
    // A single allocation larger than the device still fails, naming it.
    let big = RandomState::new(1).uniform::<f64>(&[1000, 400], [1000, 400]).unwrap().to_device(&device);
    match big.sum(None).unwrap().compute_on(&Context::threads(1).with_device_memory_limit(64 << 20)).unwrap_err() {
        Error::Device(chunked_gpu::Error::OutOfMemory { requested, capacity, .. }) => {
            assert_eq!((requested, capacity), (3_200_000, 1 << 20))
        }
        other => panic!("expected the device out of memory, got {other}"),
    }
}

per_backend!(empty_blocks_on_the_device, |device: Option<&Device>| {
    // Blocks of no elements (a selection's chunks have them), on every axis a
    // product reads: elementwise work, reductions, a matmul whose contracted
    // axis has empty pieces, and a rechunk.
    let a = ArrayD::from_shape_fn(ndarray::IxDyn(&[60, 45]), |i| ((i[0] * 7 + i[1] * 3) % 11) as f64 - 5.0);
    let b = ArrayD::from_shape_fn(ndarray::IxDyn(&[45, 30]), |i| ((i[0] * 5 + i[1]) % 7) as f64 - 3.0);
    let x = place(&Array::from_ndarray(a.clone(), vec![vec![0, 20, 0, 40], vec![15, 0, 30]]).unwrap(), device);
    let y = place(&Array::from_ndarray(b.clone(), vec![vec![0, 15, 0, 30], vec![30, 0]]).unwrap(), device);
    assert_eq!((&x * 2.0 + 1.0).compute().unwrap(), a.mapv(|v| v * 2.0 + 1.0));
    assert_eq!(x.sum(0).unwrap().compute().unwrap(), a.sum_axis(Axis(0)));
    let expected =
        a.clone().into_dimensionality::<Ix2>().unwrap().dot(&b.clone().into_dimensionality::<Ix2>().unwrap());
    assert_eq!(x.matmul(&y).unwrap().compute().unwrap().into_dimensionality::<Ix2>().unwrap(), expected);
    assert_eq!(x.rechunk(vec![vec![30, 0, 30], vec![45]]).unwrap().compute().unwrap(), a);
});

/// Whether `got` is within `ulps` units in the last place of `want` (NaN
/// matching NaN, infinities exactly).
pub(crate) fn within_ulps(got: f64, want: f64, ulps: u64) -> bool {
    (got.is_nan() && want.is_nan())
        || got == want
        || (got.is_finite() && want.is_finite() && (got.to_bits() as i64).abs_diff(want.to_bits() as i64) <= ulps)
}

per_backend!(ufuncs_on_the_device_match_the_host, |device: Option<&Device>| {
    let xs = ArrayD::from_shape_fn(vec![30, 20], |i| (i[0] as f64 - 14.5) * 0.37 + i[1] as f64 * 0.011);
    let ys = ArrayD::from_shape_fn(vec![30, 20], |i| ((i[0] * 20 + i[1]) as f64).sqrt() * 0.1 - 1.3);
    let (hx, hy) = (Array::from_ndarray(xs, [7, 6]).unwrap(), Array::from_ndarray(ys, [7, 6]).unwrap());
    let (x, y) = (place(&hx, device), place(&hy, device));
    // Rounding, NumPy's division family and sign handling are exact on every
    // backend: bit for bit.
    let exact = |x: &Array<f64>, y: &Array<f64>| {
        let q = &x.floor_divide(y).unwrap() + &(x % y);
        let q = &(&q * &y.heaviside(0.5).unwrap()) + &x.copysign(y).unwrap().fmax(y.rint()).unwrap();
        &(&q + &x.trunc().nextafter(y.ceil()).unwrap()) + &(&x.floor().sign() * &x.square())
    };
    let (got, want) = (exact(&x, &y).compute().unwrap(), exact(&hx, &hy).compute().unwrap());
    assert_eq!(got.mapv(f64::to_bits), want.mapv(f64::to_bits), "exact ufuncs differ");
    // Transcendentals: CUDA's libdevice and the host's libm agree within a
    // few units in the last place, each ufunc alone.
    type Unary = fn(&Array<f64>) -> Array<f64>;
    let unary: [(&str, Unary); 20] = [
        ("exp", |a| a.exp()),
        ("exp2", |a| a.exp2()),
        ("expm1", |a| a.expm1()),
        ("log", |a| a.abs().log()),
        ("log2", |a| a.abs().log2()),
        ("log10", |a| a.abs().log10()),
        ("log1p", |a| a.log1p()),
        ("sin", |a| a.sin()),
        ("cos", |a| a.cos()),
        ("tan", |a| a.tan()),
        ("arcsin", |a| a.arcsin()),
        ("arccos", |a| a.arccos()),
        ("arctan", |a| a.arctan()),
        ("sinh", |a| a.sinh()),
        ("cosh", |a| a.cosh()),
        ("tanh", |a| a.tanh()),
        ("arcsinh", |a| a.arcsinh()),
        ("arccosh", |a| a.arccosh()),
        ("arctanh", |a| a.arctanh()),
        ("cbrt", |a| a.cbrt()),
    ];
    for (name, f) in unary {
        let (got, want) = (f(&x).compute().unwrap(), f(&hx).compute().unwrap());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(within_ulps(*g, *w, 4), "{name} at {i}: device {g:e}, host {w:e}");
        }
    }
    let binary = [
        ("arctan2", x.arctan2(&y).unwrap(), hx.arctan2(&hy).unwrap()),
        ("hypot", x.hypot(&y).unwrap(), hx.hypot(&hy).unwrap()),
        ("logaddexp", x.logaddexp(&y).unwrap(), hx.logaddexp(&hy).unwrap()),
        ("logaddexp2", x.logaddexp2(&y).unwrap(), hx.logaddexp2(&hy).unwrap()),
        ("power", x.abs().pow(&y).unwrap(), hx.abs().pow(&hy).unwrap()),
    ];
    // logaddexp of two negatives cancels to a small result: there the two
    // agree to a few ulps of the inputs' size, not of the result's.
    let (xv, yv) = (hx.compute().unwrap(), hy.compute().unwrap());
    for (name, d, h) in binary {
        let (got, want) = (d.compute().unwrap(), h.compute().unwrap());
        for (i, ((g, w), (a, b))) in got.iter().zip(&want).zip(xv.iter().zip(&yv)).enumerate() {
            let scale = a.abs().max(b.abs()).max(w.abs());
            let close = within_ulps(*g, *w, 4) || (g - w).abs() <= 4.0 * f64::EPSILON * scale;
            assert!(close, "{name} at {i}: device {g:e}, host {w:e}");
        }
    }
    // Integer arithmetic wraps on the device as on the host.
    let ai = ArrayD::from_shape_fn(vec![12, 10], |i| [i64::MIN, i64::MAX, -7, 0, 3][(i[0] + i[1]) % 5] ^ i[0] as i64);
    let bi = ArrayD::from_shape_fn(vec![12, 10], |i| [i64::MAX, 2, i64::MIN + 1, -1, 11][(2 * i[0] + i[1]) % 5]);
    let (ha, hb) = (Array::from_ndarray(ai, [5, 4]).unwrap(), Array::from_ndarray(bi, [5, 4]).unwrap());
    let ints =
        |a: &Array<i64>, b: &Array<i64>| &(&(a * b) - &(a + b)).bitwise_xor(b).unwrap().maximum(&-a).unwrap() + 1;
    let got = ints(&place(&ha, device), &place(&hb, device)).compute().unwrap();
    assert_eq!(got, ints(&ha, &hb).compute().unwrap());
});

per_backend!(a_device_pool_is_reserved_once_and_changes_no_result, |device: Option<&Device>| {
    let x = RandomState::new(9).uniform::<f64>(&[2000, 300], [500, 300]).unwrap();
    let oracle = x.compute().unwrap().sum_axis(Axis(0));
    let x = place(&x, device);
    let plain = x.sum(0).unwrap().compute_on(&Context::threads(2)).unwrap();
    let pooled = Context::threads(2).with_device_pool(64 << 20);
    let with_pool = x.sum(0).unwrap().compute_on(&pooled).unwrap();
    assert_eq!(with_pool, plain, "the pool changes where memory comes from, not the values");
    for (g, w) in with_pool.iter().zip(oracle.iter()) {
        assert_relative_eq!(*g, *w, max_relative = 1e-12);
    }
    let Some(d) = device else { return };
    assert!(d.pool_reserved() >= 64 << 20, "{} bytes reserved", d.pool_reserved());
    // More than the device has: refused by name, the pool as it was.
    let before = d.pool_reserved();
    let err = x.sum(None).unwrap().compute_on(&Context::sync().with_device_pool(d.capacity() + 1)).unwrap_err();
    assert!(err.to_string().contains("out of memory") && err.to_string().contains(&d.describe()), "{err}");
    assert!(d.pool_reserved() >= before && d.pool_reserved() < d.capacity());
});

per_backend!(extremes_and_sums_of_every_integer_width, |device: Option<&Device>| {
    // Negative rows of signed types and values near the top of unsigned ones:
    // the kernels' identities are each type's own extremes.
    fn check<T: chunked_array::Integer + Into<i128>>(device: Option<&Device>, f: impl Fn(i64) -> T) {
        let a = ArrayD::from_shape_fn(ndarray::IxDyn(&[40, 30]), |i| f((i[0] * 31 + i[1] * 7) as i64 % 97));
        let x = place(&Array::from_ndarray(a.clone(), [15, 30]).unwrap(), device);
        let wide = a.mapv(|v| v.into());
        let max0 = wide.fold_axis(Axis(0), i128::MIN, |&m, &v| m.max(v));
        let got: Vec<i128> = x.max(0).unwrap().compute().unwrap().iter().map(|&v| v.into()).collect();
        assert_eq!(got, max0.iter().copied().collect::<Vec<_>>(), "max of {}", T::DTYPE);
        let min1 = wide.fold_axis(Axis(1), i128::MAX, |&m, &v| m.min(v));
        let got: Vec<i128> = x.min(1).unwrap().compute().unwrap().iter().map(|&v| v.into()).collect();
        assert_eq!(got, min1.iter().copied().collect::<Vec<_>>(), "min of {}", T::DTYPE);
        let total: i128 = wide.iter().sum();
        let got = x.sum(None).unwrap().compute().unwrap();
        assert_eq!(format!("{}", got.iter().next().unwrap()), total.to_string(), "sum of {}", T::DTYPE);
    }
    check::<i8>(device, |v| (v - 120) as i8);
    check::<i16>(device, |v| (v - 30_000) as i16);
    check::<u16>(device, |v| (v + 65_000) as u16);
    check::<u32>(device, |v| (v as u32).wrapping_add(4_294_967_000));
});
