//! Complex arrays on a device, per backend (host, emulated device, CUDA
//! device): arithmetic, parts and classification in fused kernels, sums and
//! products by the reduction kernels, matmul by zgemm/cgemm, persisting and
//! spilling. The oracle is the same computation on host arrays (num-complex
//! and NumPy's division), bit for bit where the arithmetic is IEEE's basic
//! operations, within a few ulps where CUDA's libm is involved.

use chunked_array::device::Device;
use chunked_array::{Array, Complex32, Complex64, Context};
use ndarray::{ArrayD, Axis};

// The CUDA variants share device.rs's lock: they read the same device's counters.
use crate::device::{backends, is_cuda, place, within_ulps};
use crate::per_backend;

/// 30 x 20 complex values with zeros, signed zeros, infinities and NaNs among them.
fn values(seed: f64) -> ArrayD<Complex64> {
    ArrayD::from_shape_fn(vec![30, 20], |i| {
        let k = i[0] * 20 + i[1];
        match k % 97 {
            0 => Complex64::new(0.0, 0.0),
            1 => Complex64::new(-0.0, 0.0),
            2 => Complex64::new(f64::INFINITY, 1.0),
            3 => Complex64::new(f64::NAN, 0.5),
            4 => Complex64::new(2.0, f64::NEG_INFINITY),
            _ => Complex64::new((i[0] as f64 - 14.5) * 0.37 * seed, (k as f64).sqrt() * 0.1 - seed),
        }
    })
}

/// Each part's bits, NaNs as one value: the sign of a NaN an invalid
/// operation makes is the hardware's (x86 sets it, CUDA does not).
fn complex_bits(a: &ArrayD<Complex64>) -> Vec<(u64, u64)> {
    let bits = |x: f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
    a.iter().map(|z| (bits(z.re), bits(z.im))).collect()
}

per_backend!(complex_elementwise_chains_match_the_host, |device: Option<&Device>| {
    let (hz, hw) =
        (Array::from_ndarray(values(1.0), [7, 6]).unwrap(), Array::from_ndarray(values(-0.6), [7, 6]).unwrap());
    let (z, w) = (place(&hz, device), place(&hw, device));
    let hx = hz.real();
    let x = place(&hx, device);
    // IEEE's basic operations only: bit for bit on every backend.
    let exact = |z: &Array<Complex64>, w: &Array<Complex64>, x: &Array<f64>| {
        let q = &(&(z * w) + &(z / w)) - &z.square();
        let q = &(&q.conj() + &(-z)) * Complex64::new(0.5, -2.0);
        let q = &(&q + &z.reciprocal()) + &(x + &(Complex64::new(1.0, 1.0) / w));
        &q - &x.astype::<Complex32>().astype::<Complex64>()
    };
    let chain = exact(&z, &w, &x);
    assert!(chain.cuda_kernel_source().is_some(), "the chain has a device form");
    assert_eq!(chain.device().is_some(), device.is_some());
    let (got, want) = (chain.compute().unwrap(), exact(&hz, &hw, &hx).compute().unwrap());
    assert_eq!(complex_bits(&got), complex_bits(&want), "arithmetic differs");
    let parts = |z: &Array<Complex64>| (&(&z.real() * 3.0) - &z.imag()).astype::<Complex64>();
    assert_eq!(complex_bits(&parts(&z).compute().unwrap()), complex_bits(&parts(&hz).compute().unwrap()));
    let single = |z: &Array<Complex64>| {
        (&z.astype::<Complex32>() * Complex32::new(0.25, 3.0)).astype::<f32>().astype::<Complex64>()
    };
    assert_eq!(complex_bits(&single(&z).compute().unwrap()), complex_bits(&single(&hz).compute().unwrap()));
    // Classification: exact.
    for (name, d, h) in [
        ("isnan", z.isnan(), hz.isnan()),
        ("isfinite", z.isfinite(), hz.isfinite()),
        ("isinf", z.isinf(), hz.isinf()),
        ("eq", z.eq(&w).unwrap(), hz.eq(&hw).unwrap()),
        ("ne", z.ne(&z).unwrap(), hz.ne(&hz).unwrap()),
    ] {
        assert_eq!(d.compute().unwrap(), h.compute().unwrap(), "{name}");
    }
    // Modulus, angle and sign go through hypot and atan2: CUDA's are within
    // a few ulps of glibc's.
    let ulps = |name: &str, got: &ArrayD<f64>, want: &ArrayD<f64>| {
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(within_ulps(*g, *w, 4), "{name} at {i}: device {g:e}, host {w:e}");
        }
    };
    ulps("abs", &z.abs().compute().unwrap(), &hz.abs().compute().unwrap());
    ulps("angle", &z.angle().compute().unwrap(), &hz.angle().compute().unwrap());
    let (sd, sh) = (z.sign().compute().unwrap(), hz.sign().compute().unwrap());
    ulps("sign re", &sd.mapv(|v| v.re), &sh.mapv(|v| v.re));
    ulps("sign im", &sd.mapv(|v| v.im), &sh.mapv(|v| v.im));
    // exp, log, sqrt, expm1 and log1p repeat the host's steps through
    // CUDA's libm: each part within a few ulps, or (where the steps cancel)
    // within a few ulps of the result's modulus.
    type Unary = fn(&Array<Complex64>) -> Array<Complex64>;
    let functions: [(&str, Unary); 5] = [
        ("exp", |a| a.exp()),
        ("log", |a| a.log()),
        ("sqrt", |a| a.sqrt()),
        ("expm1", |a| a.expm1()),
        ("log1p", |a| a.log1p()),
    ];
    for (name, f) in functions {
        assert_device_form_close(name, f, &z, &hz, 4, 0.0);
    }
    // The other transcendental functions and powers compose several of
    // CUDA's functions (sin·cosh, ln of a square root, ...), whose errors add
    // up: each part within 16 ulps, or within 16 ulps of max(|result|, 1).
    let functions: [(&str, Unary); 16] = [
        ("exp2", |a| a.exp2()),
        ("log2", |a| a.log2()),
        ("log10", |a| a.log10()),
        ("sin", |a| a.sin()),
        ("cos", |a| a.cos()),
        ("tan", |a| a.tan()),
        ("sinh", |a| a.sinh()),
        ("cosh", |a| a.cosh()),
        ("tanh", |a| a.tanh()),
        ("arcsin", |a| a.arcsin()),
        ("arccos", |a| a.arccos()),
        ("arctan", |a| a.arctan()),
        ("arcsinh", |a| a.arcsinh()),
        ("arccosh", |a| a.arccosh()),
        ("arctanh", |a| a.arctanh()),
        ("pow", |a| a.pow(&(a * Complex64::new(0.5, -0.25))).unwrap()),
    ];
    for (name, f) in functions {
        assert_device_form_close(name, f, &z, &hz, 16, 1.0);
    }
});

/// `f` has a device form, and its value on `z` (placed) is, part by part,
/// within `ulps` of its value on `hz` (the host's), or within `ulps` of
/// max(|host value|, `min_scale`).
fn assert_device_form_close(
    name: &str,
    f: fn(&Array<Complex64>) -> Array<Complex64>,
    z: &Array<Complex64>,
    hz: &Array<Complex64>,
    ulps: u64,
    min_scale: f64,
) {
    assert!(f(z).cuda_kernel_source().is_some(), "{name} has a device form");
    let (got, want) = (f(z).compute().unwrap(), f(hz).compute().unwrap());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let scale = w.norm().max(min_scale);
        let close = |g: f64, w: f64| within_ulps(g, w, ulps) || (g - w).abs() <= ulps as f64 * f64::EPSILON * scale;
        assert!(close(g.re, w.re) && close(g.im, w.im), "{name} at {i}: device {g}, host {w}");
    }
}

fn assert_close(got: Complex64, want: Complex64, tol: f64, what: &str) {
    assert!((got - want).norm() <= tol * want.norm().max(1.0), "{what}: {got} vs {want}");
}

per_backend!(complex_reductions_match_the_host, |device: Option<&Device>| {
    let finite = values(1.0).mapv(|v| if v.is_finite() { v } else { Complex64::new(0.25, -0.5) });
    let hz = Array::from_ndarray(finite.clone(), [7, 6]).unwrap();
    let z = place(&hz, device);
    let before = device.map_or(0, |d| d.downloaded_bytes());
    let total = (&z * Complex64::new(0.0, 2.0)).sum(None).unwrap().compute_scalar().unwrap();
    if let Some(d) = device.filter(|d| is_cuda(Some(d))) {
        // The product and the block sums run on the device: 20 partials of 16
        // bytes come down, not the 9600-byte array.
        let moved = d.downloaded_bytes() - before;
        assert!(moved < 1000, "{moved} bytes left the device for a complex sum");
    }
    assert_close(total, finite.sum() * Complex64::new(0.0, 2.0), 1e-13, "sum");
    let rows = z.sum(1).unwrap().compute().unwrap();
    for (g, w) in rows.iter().zip(finite.sum_axis(Axis(1)).iter()) {
        assert_close(*g, *w, 1e-13, "sum over rows");
    }
    let mean = z.mean(0).unwrap().compute().unwrap();
    for (g, w) in mean.iter().zip(finite.mean_axis(Axis(0)).unwrap().iter()) {
        assert_close(*g, *w, 1e-13, "mean");
    }
    // Products of values near the unit circle, so that 600 of them stay finite.
    let unit = finite.mapv(|v| v / v.norm().max(1e-3) * 1.001);
    let hu = Array::from_ndarray(unit.clone(), [7, 6]).unwrap();
    let prod = place(&hu, device).prod(0).unwrap().compute().unwrap();
    let want = unit.fold_axis(Axis(0), Complex64::new(1.0, 0.0), |a, b| a * b);
    for (g, w) in prod.iter().zip(want.iter()) {
        assert_close(*g, *w, 1e-12, "prod");
    }
    // nansum skips values with a NaN in either part.
    let with_nan =
        Array::from_ndarray(values(1.0).mapv(|v| if v.is_infinite() { Complex64::ONE } else { v }), [7, 6]).unwrap();
    let skipped = values(1.0).mapv(|v| {
        if v.is_nan() {
            Complex64::ZERO
        } else if v.is_infinite() {
            Complex64::ONE
        } else {
            v
        }
    });
    let got = place(&with_nan, device).nansum(None).unwrap().compute_scalar().unwrap();
    assert_close(got, skipped.sum(), 1e-13, "nansum");
    let c32 = place(&hz.astype::<Complex32>(), device).sum(None).unwrap().compute_scalar().unwrap();
    assert_close(Complex64::new(c32.re as f64, c32.im as f64), finite.sum(), 1e-5, "sum of complex64");
});

/// `a @ b` by a plain triple loop.
fn matmul_oracle(a: &ArrayD<Complex64>, b: &ArrayD<Complex64>) -> Vec<Complex64> {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let mut c = vec![Complex64::ZERO; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|l| a[[i, l]] * b[[l, j]]).sum();
        }
    }
    c
}

per_backend!(complex_matmul_matches_a_plain_loop, |device: Option<&Device>| {
    let a =
        ArrayD::from_shape_fn(vec![40, 30], |i| Complex64::new((i[0] as f64 * 0.3).sin(), (i[1] as f64 * 0.7).cos()));
    let b =
        ArrayD::from_shape_fn(vec![30, 25], |i| Complex64::new(i[0] as f64 * 0.05 - 0.4, (i[1] + i[0]) as f64 * 0.02));
    let (ha, hb) =
        (Array::from_ndarray(a.clone(), [15, 10]).unwrap(), Array::from_ndarray(b.clone(), [10, 12]).unwrap());
    let c = place(&ha, device).matmul(&place(&hb, device)).unwrap();
    assert_eq!(c.device().is_some(), device.is_some());
    let got = c.compute().unwrap();
    for (g, w) in got.iter().zip(matmul_oracle(&a, &b)) {
        assert_close(*g, w, 1e-13 * 30.0, "c128 matmul");
    }
    // Conjugate transpose on one side: x^H x is Hermitian with a real diagonal.
    let gram = place(&ha, device).conj().t().matmul(&place(&ha, device)).unwrap().compute().unwrap();
    for i in 0..30 {
        assert!(gram[[i, i]].im.abs() <= 1e-12, "diagonal {i}: {}", gram[[i, i]]);
        for j in 0..30 {
            assert_close(gram[[i, j]], gram[[j, i]].conj(), 1e-12, "Hermitian");
        }
    }
    let single = place(&ha.astype::<Complex32>(), device).matmul(&place(&hb.astype::<Complex32>(), device)).unwrap();
    for (g, w) in single.compute().unwrap().iter().zip(matmul_oracle(&a, &b)) {
        assert_close(Complex64::new(g.re as f64, g.im as f64), w, 1e-5 * 30.0, "c64 matmul");
    }
});

per_backend!(complex_blocks_persist_and_spill_on_the_device, |device: Option<&Device>| {
    let Some(device) = device else {
        return println!("no device tier on the CPU backend");
    };
    let data = ArrayD::from_shape_fn(vec![400, 300], |i| Complex64::new(i[0] as f64 * 0.01, -(i[1] as f64) * 0.02));
    let z = Array::from_ndarray(data.clone(), [50, 100]).unwrap().to_device(device);
    let before = device.in_use();
    let kept = z.persist().unwrap();
    assert_eq!(device.in_use() - before, 400 * 300 * 16, "the persisted complex blocks live on the device");
    drop(kept);
    // Centering holds every block until the means are known: 24 blocks of
    // 80 KB against a device limit of 256 KB, so blocks move to pinned host
    // memory and back.
    let centered = &z - &z.mean(0).unwrap();
    let norms = (&centered * &centered.conj()).real().sum(0).unwrap();
    let (got, stats) = norms.compute_stats(&Context::threads(2).with_device_memory_limit(256 << 10)).unwrap();
    let mean = data.mean_axis(Axis(0)).unwrap();
    let want = (&data - &mean).mapv(|v| v.norm_sqr()).sum_axis(Axis(0));
    for (g, w) in got.iter().zip(want.iter()) {
        assert!((g - w).abs() <= 1e-11 * w.abs().max(1.0), "{g} vs {w}");
    }
    assert!(
        stats.tiers.device_spilled > 0 && stats.tiers.device_spilled_pinned == stats.tiers.device_spilled,
        "{stats:?}"
    );
    assert_eq!(device.in_use(), before, "every device buffer is freed after the run");
});
