//! The device kernels' C forms of chunked's branch-free `expm1`, `log1p`,
//! `log`, `log2`, `log10`, `cbrt`, `arctan`, `exp`, `exp2`, `sinh`, `cosh`, `tanh`, `arcsinh`,
//! `arccosh`, `arctanh`, `hypot`,
//! `logaddexp`, `logaddexp2` and `arctan2` (and the complex `abs`,
//! `angle` and `log1p` built on them), compiled for the host and compared
//! bit for bit with the CPU over special values and the whole exponent range,
//! in both widths.

use chunked_array::{Array, Complex32, Complex64, Float};
use ndarray::ArrayD;

use super::device_kernels::{Input, compiler, f64s, run_elementwise_as};

/// Rows 0-14 `expm1`, `log1p`, `log`, `cbrt`, `arctan`, `exp`, `exp2`,
/// `sinh`, `cosh`, `tanh`, `arctanh`, `log2`, `log10`, `arcsinh`, `arccosh`
/// of x, rows 15-17 `hypot`, `logaddexp`, `logaddexp2` of (x, y), the rest
/// `arctan2(x, y)`.
fn the_forms<T: Float>(x: &Array<T>, y: &Array<T>, row: &Array<f64>) -> Array<T> {
    let mut out = x.arctan2(y).unwrap();
    type Binary<T> = fn(&Array<T>, &Array<T>) -> Array<T>;
    let functions: [Binary<T>; 3] =
        [|a, b| a.hypot(b).unwrap(), |a, b| a.logaddexp(b).unwrap(), |a, b| a.logaddexp2(b).unwrap()];
    for (k, f) in functions.iter().enumerate() {
        out = chunked_array::where_(&row.eq((15 + k) as f64).unwrap(), f(x, y), &out).unwrap();
    }
    type Unary<T> = fn(&Array<T>) -> Array<T>;
    let functions: [Unary<T>; 15] = [
        |a| a.expm1(),
        |a| a.log1p(),
        |a| a.log(),
        |a| a.cbrt(),
        |a| a.arctan(),
        |a| a.exp(),
        |a| a.exp2(),
        |a| a.sinh(),
        |a| a.cosh(),
        |a| a.tanh(),
        |a| a.arctanh(),
        |a| a.log2(),
        |a| a.log10(),
        |a| a.arcsinh(),
        |a| a.arccosh(),
    ];
    for (k, f) in functions.iter().enumerate() {
        out = chunked_array::where_(&row.eq(k as f64).unwrap(), f(x), &out).unwrap();
    }
    out
}

/// The first element (index, host kernel's, CPU's) whose bits differ (NaNs
/// compare as NaN: the sign of a made NaN is the hardware's).
fn first_difference(got: &[f64], want: &[f64]) -> Option<(usize, f64, f64)> {
    let same = |g: f64, w: f64| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
    got.iter().zip(want).enumerate().find(|&(_, (&g, &w))| !same(g, w)).map(|(i, (&g, &w))| (i, g, w))
}

/// `log1p(z) + |z| + i·arg z` of complex `z`, as c128.
fn complex_forms<C: chunked_array::ComplexFloat>(z: &Array<C>) -> Array<Complex64>
where
    <C as chunked_array::Number>::RealPart: Float,
{
    let rotated = &z.angle().astype::<Complex64>() * Complex64::new(0.0, 1.0);
    &(&z.log1p().astype::<Complex64>() + &z.abs().astype::<Complex64>()) + &rotated
}

#[test]
fn generated_branch_free_forms_compute_what_the_cpu_does() {
    if compiler().is_none() {
        return crate::support::tool_missing("no host C++ compiler to build the generated kernels with");
    }
    let special = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        5e-324,
        -2.5e-310,
        -1.0,
        -1.5,
        -0.999_999,
        1e-17,
        -40.5,
        709.78,
        710.0,
        1e300,
        f64::MAX,
        0.34,
        -0.35,
        -745.1,
        -1074.0,
        -1075.5,
        1023.9,
        1024.0,
        0.7,
        -21.9,
        22.5,
        710.47,
        -710.48,
        0.999_999_999,
        1000.0,
        std::f64::consts::SQRT_2,
        0.5,
        2.0,
        2.000_000_000_000_001,
        268_435_456.0,
        1.000_000_1,
    ];
    const ROWS: usize = 19;
    let n = 64;
    let xs = ArrayD::from_shape_fn(vec![ROWS, n], |i| match special.get(i[1]) {
        Some(&v) => v,
        None => (-1f64).powi(i[1] as i32) * 2f64.powf(i[1] as f64 * 1.37 - 40.0) * (1.0 + i[0] as f64 * 0.13),
    });
    let ys = ArrayD::from_shape_fn(vec![ROWS, n], |i| xs[[ROWS - 1 - i[0], n - 1 - i[1]]] * 0.75);
    let rows = ArrayD::from_shape_fn(vec![ROWS, n], |i| i[0] as f64);
    let (x, y) =
        (Array::from_ndarray(xs.clone(), [ROWS, n]).unwrap(), Array::from_ndarray(ys.clone(), [ROWS, n]).unwrap());
    let row = Array::from_ndarray(rows.clone(), [ROWS, n]).unwrap();
    let f32s = |v: &ArrayD<f64>| Input("float", v.iter().flat_map(|&x| (x as f32).to_ne_bytes()).collect());
    let narrow = |v: &ArrayD<f64>| Array::from_ndarray(v.mapv(|x| x as f32), [ROWS, n]).unwrap();
    let meta = [ROWS as i64, n as i64, 0, n as i64, 1, 0, n as i64, 1, 0, n as i64, 1];
    let rows_in = || f64s(rows.as_slice().unwrap());
    let cases = [
        ("f64", the_forms(&x, &y, &row), [rows_in(), f64s(xs.as_slice().unwrap()), f64s(ys.as_slice().unwrap())]),
        ("f32", the_forms(&narrow(&xs), &narrow(&ys), &row).astype::<f64>(), [rows_in(), f32s(&xs), f32s(&ys)]),
    ];
    for (width, chain, inputs) in cases {
        let source = chain.cuda_kernel_source().expect("the nineteen functions have device forms");
        assert!(source.contains("vl_tanh") && source.contains("vl_logaddexp2"), "{source}");
        let got = run_elementwise_as("double", &source, &inputs, ROWS * n, 2, &meta, true).unwrap();
        let want: Vec<f64> = chain.compute().unwrap().iter().copied().collect();
        assert!(want.iter().filter(|v| v.is_nan()).count() >= ROWS, "NaNs among the results");
        if let Some((i, g, w)) = first_difference(&got, &want) {
            panic!("{width}: row {} at x = {:e}: host kernel {g:e}, CPU {w:e}", i / n, xs[[i / n, i % n]]);
        }
    }
    let zs = ndarray::Zip::from(&xs).and(&ys).map_collect(|&re, &im| Complex64::new(re, im));
    let z = Array::from_ndarray(zs.clone(), [ROWS, n]).unwrap();
    let zs32 = zs.mapv(|v| Complex32::new(v.re as f32, v.im as f32));
    let z32 = Array::from_ndarray(zs32.clone(), [ROWS, n]).unwrap();
    let c128s = Input("c128", zs.iter().flat_map(|v| [v.re, v.im]).flat_map(f64::to_ne_bytes).collect());
    let c64s = Input("c64", zs32.iter().flat_map(|v| [v.re, v.im]).flat_map(f32::to_ne_bytes).collect());
    let meta = [ROWS as i64, n as i64, 0, n as i64, 1];
    for (width, chain, input) in [("c128", complex_forms(&z), c128s), ("c64", complex_forms(&z32), c64s)] {
        let source = chain.cuda_kernel_source().expect("complex abs, angle and log1p have device forms");
        let got = run_elementwise_as("c128", &source, &[input], ROWS * n, 2, &meta, true).unwrap();
        let want: Vec<f64> = chain.compute().unwrap().iter().flat_map(|v| [v.re, v.im]).collect();
        if let Some((i, g, w)) = first_difference(&got, &want) {
            panic!("{width}: at z = {}: host kernel {g:e}, CPU {w:e}", zs.as_slice().unwrap()[i / 2]);
        }
    }
}
