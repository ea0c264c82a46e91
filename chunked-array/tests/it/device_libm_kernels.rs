//! The device kernels' C forms of chunked's branch-free `expm1`, `log1p`,
//! `cbrt` and `hypot`, compiled for the host and compared bit for bit with
//! the CPU over special values and the whole exponent range, in f64 and f32.

use chunked_array::{Array, Float};
use ndarray::ArrayD;

use super::device_kernels::{Input, compiler, f64s, run_elementwise_as};

/// Row 0 `expm1(x)`, row 1 `log1p(x)`, row 2 `cbrt(x)`, row 3 `hypot(x, y)`.
fn four_forms<T: Float>(x: &Array<T>, y: &Array<T>, row: &Array<f64>) -> Array<T> {
    let mut out = x.hypot(y).unwrap();
    let functions: [fn(&Array<T>) -> Array<T>; 3] = [|a| a.expm1(), |a| a.log1p(), |a| a.cbrt()];
    for (k, f) in functions.iter().enumerate() {
        out = chunked_array::where_(&row.eq(k as f64).unwrap(), f(x), &out).unwrap();
    }
    out
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
    ];
    let n = 64;
    let xs = ArrayD::from_shape_fn(vec![4, n], |i| match special.get(i[1]) {
        Some(&v) => v,
        None => (-1f64).powi(i[1] as i32) * 2f64.powf(i[1] as f64 * 1.37 - 40.0) * (1.0 + i[0] as f64 * 0.13),
    });
    let ys = ArrayD::from_shape_fn(vec![4, n], |i| xs[[3 - i[0], n - 1 - i[1]]] * 0.75);
    let rows = ArrayD::from_shape_fn(vec![4, n], |i| i[0] as f64);
    let (x, y) = (Array::from_ndarray(xs.clone(), [4, n]).unwrap(), Array::from_ndarray(ys.clone(), [4, n]).unwrap());
    let row = Array::from_ndarray(rows.clone(), [4, n]).unwrap();
    let f32s = |v: &ArrayD<f64>| Input("float", v.iter().flat_map(|&x| (x as f32).to_ne_bytes()).collect());
    let narrow = |v: &ArrayD<f64>| Array::from_ndarray(v.mapv(|x| x as f32), [4, n]).unwrap();
    let meta = [4, n as i64, 0, n as i64, 1, 0, n as i64, 1, 0, n as i64, 1];
    let rows_in = || f64s(rows.as_slice().unwrap());
    let cases = [
        ("f64", four_forms(&x, &y, &row), [rows_in(), f64s(xs.as_slice().unwrap()), f64s(ys.as_slice().unwrap())]),
        ("f32", four_forms(&narrow(&xs), &narrow(&ys), &row).astype::<f64>(), [rows_in(), f32s(&xs), f32s(&ys)]),
    ];
    for (width, chain, inputs) in cases {
        let source = chain.cuda_kernel_source().expect("the four functions have device forms");
        assert!(source.contains("vl_expm1") && source.contains("vl_hypot"), "{source}");
        let got = run_elementwise_as("double", &source, &inputs, 4 * n, 2, &meta, true).unwrap();
        let want = chain.compute().unwrap();
        assert!(want.iter().filter(|v| v.is_nan()).count() >= 4, "NaNs among the results");
        for (i, (g, w)) in got.iter().zip(want.iter()).enumerate() {
            let same = g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan());
            assert!(same, "{width}: row {} at x = {:e}: host kernel {g:e}, CPU {w:e}", i / n, xs[[i / n, i % n]]);
        }
    }
}
