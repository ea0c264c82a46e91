//! The ufunc table against NumPy's own values on edge cases (NaN, infinities,
//! signed zeros, subnormals, integer extremes, zero divisors), and against
//! std applied element by element over drawn shapes, chunkings and values.

use crate::common::{beyond_ulps, chunked, shape_chunks};

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use chunked_array::{Array, Element};
use ndarray::ArrayD;
use proptest::prelude::*;

/// (ufunc, dtype) -> its cases: (a, b, result) as printed.
type Cases = BTreeMap<(String, String), Vec<(String, String, String)>>;

/// NumPy's cases, grouped by ufunc and dtype.
fn numpy_cases() -> Option<Cases> {
    let py = crate::io_interop::python("CHUNKED_PYTHON", "target/pyenv")?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/ufuncs.py");
    let out = Command::new(py).arg(script).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut cases: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split(' ').collect();
        cases.entry((f[0].to_string(), f[1].to_string())).or_default().push((f[2].into(), f[3].into(), f[4].into()));
    }
    Some(cases)
}

fn f64_of(hex: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(hex, 16).unwrap())
}

fn show_f64(v: f64) -> String {
    format!("{:016x}", v.to_bits())
}

/// The unary float ufunc `name` of `x`, as text per element.
fn unary_f64(name: &str, x: &Array<f64>) -> Vec<String> {
    let f = |a: Array<f64>| a.compute().unwrap().iter().map(|&v| show_f64(v)).collect();
    let b = |a: Array<bool>| a.compute().unwrap().iter().map(|v| v.to_string()).collect();
    match name {
        "floor" => f(x.floor()),
        "ceil" => f(x.ceil()),
        "trunc" => f(x.trunc()),
        "rint" => f(x.rint()),
        "sign" => f(x.sign()),
        "reciprocal" => f(x.reciprocal()),
        "square" => f(x.square()),
        "cbrt" => f(x.cbrt()),
        "exp2" => f(x.exp2()),
        "expm1" => f(x.expm1()),
        "log2" => f(x.log2()),
        "log10" => f(x.log10()),
        "log1p" => f(x.log1p()),
        "degrees" => f(x.degrees()),
        "radians" => f(x.radians()),
        "sqrt" => f(x.sqrt()),
        "arcsinh" => f(x.arcsinh()),
        "arctanh" => f(x.arctanh()),
        "isfinite" => b(x.isfinite()),
        "isinf" => b(x.isinf()),
        "signbit" => b(x.signbit()),
        other => panic!("no mapping for {other}"),
    }
}

fn binary_f64(name: &str, x: &Array<f64>, y: &Array<f64>) -> Vec<String> {
    let r = match name {
        "floor_divide" => x.floor_divide(y),
        "remainder" => Ok(x % y),
        "fmod" => x.fmod(y),
        "logaddexp" => x.logaddexp(y),
        "logaddexp2" => x.logaddexp2(y),
        "hypot" => x.hypot(y),
        "arctan2" => x.arctan2(y),
        "copysign" => x.copysign(y),
        "nextafter" => x.nextafter(y),
        "fmax" => x.fmax(y),
        "fmin" => x.fmin(y),
        "heaviside" => x.heaviside(y),
        "maximum" => x.maximum(y),
        "minimum" => x.minimum(y),
        other => panic!("no mapping for {other}"),
    };
    r.unwrap().compute().unwrap().iter().map(|&v| show_f64(v)).collect()
}

/// Integer ufuncs of `T`, parsed from and shown as decimal text.
fn ints<T: chunked_array::Integer + std::str::FromStr>(name: &str, a: &[String], b: &[String]) -> Vec<String>
where
    T::Err: std::fmt::Debug,
{
    let parse = |v: &[String]| v.iter().map(|s| s.parse::<T>().unwrap()).collect::<Vec<T>>();
    let x = Array::from_vec(&[a.len()], parse(a), 3).unwrap();
    let show = |r: Array<T>| r.compute().unwrap().iter().map(|v| v.to_string()).collect();
    if b[0] == "-" {
        return match name {
            "negative" => show(-&x),
            "absolute" => show(x.abs()),
            "sign" => show(x.sign()),
            "square" => show(x.square()),
            "invert" => show(x.invert()),
            other => panic!("no mapping for {other}"),
        };
    }
    let y = Array::from_vec(&[b.len()], parse(b), 2).unwrap();
    show(match name {
        "floor_divide" => x.floor_divide(&y).unwrap(),
        "remainder" => &x % &y,
        "fmod" => x.fmod(&y).unwrap(),
        "left_shift" => x.left_shift(&y).unwrap(),
        "right_shift" => x.right_shift(&y).unwrap(),
        "gcd" => x.gcd(&y).unwrap(),
        "lcm" => x.lcm(&y).unwrap(),
        "bitwise_and" => x.bitwise_and(&y).unwrap(),
        "bitwise_xor" => x.bitwise_xor(&y).unwrap(),
        "add" => &x + &y,
        "multiply" => &x * &y,
        "subtract" => &x - &y,
        other => panic!("no mapping for {other}"),
    })
}

#[test]
fn ufuncs_give_numpys_values_on_edge_cases() {
    let Some(cases) = numpy_cases() else {
        crate::support::tool_missing("no Python interpreter found (set CHUNKED_PYTHON or run scripts/setup_python.sh)");
        return;
    };
    let mut checked = 0;
    for ((name, dtype), rows) in &cases {
        let a: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let b: Vec<String> = rows.iter().map(|r| r.1.clone()).collect();
        let want: Vec<String> = rows.iter().map(|r| r.2.clone()).collect();
        let got = match dtype.as_str() {
            "float64" => {
                let x = Array::from_vec(&[a.len()], a.iter().map(|s| f64_of(s)).collect(), 5).unwrap();
                if b[0] == "-" {
                    unary_f64(name, &x)
                } else {
                    let y = Array::from_vec(&[b.len()], b.iter().map(|s| f64_of(s)).collect(), 4).unwrap();
                    binary_f64(name, &x, &y)
                }
            }
            "int8" => ints::<i8>(name, &a, &b),
            "int64" => ints::<i64>(name, &a, &b),
            "uint8" => ints::<u8>(name, &a, &b),
            other => panic!("dtype {other}"),
        };
        // Transcendental functions may differ from NumPy's in the last bits:
        // NumPy uses glibc's libm, or its SIMD (SVML) forms on AVX-512
        // machines, which it documents as within 4 ulps. Everything else is
        // exact.
        let transcendental = [
            "cbrt",
            "expm1",
            "log1p",
            "logaddexp",
            "logaddexp2",
            "arcsinh",
            "exp2",
            "log2",
            "log10",
            "power",
            "hypot",
            "arctan2",
            "arctanh",
        ];
        let ulps = if transcendental.contains(&name.as_str()) { 4 } else { 0 };
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let same = g == w
                || (dtype == "float64" && g.len() == 16 && w.len() == 16 && {
                    let (g, w) = (f64_of(g), f64_of(w));
                    (g.is_nan() && w.is_nan())
                        || (g.to_bits() as i64).wrapping_sub(w.to_bits() as i64).unsigned_abs() <= ulps
                });
            assert!(same, "np.{name}({}, {}) as {dtype}: numpy {w}, chunked {g}", a[i], b[i]);
            checked += 1;
        }
    }
    assert!(checked > 5000, "{checked} cases");
}

fn edge_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => -1e3..1e3f64,
        1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 5e-324, -1e-310, 1e308]),
    ]
}

fn values<T: std::fmt::Debug + Clone>(
    shape: Vec<usize>,
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = ArrayD<T>> {
    prop::collection::vec(s, shape.iter().product::<usize>())
        .prop_map(move |v| ArrayD::from_shape_vec(ndarray::IxDyn(&shape), v).unwrap())
}

fn float_case() -> impl Strategy<Value = (ArrayD<f64>, ArrayD<f64>, Vec<Vec<usize>>)> {
    shape_chunks(3, 7)
        .prop_flat_map(|(shape, chunks)| (values(shape.clone(), edge_f64()), values(shape, edge_f64()), Just(chunks)))
}

/// The ufuncs whose kernels are chunked's branch-free forms, not std's
/// functions themselves, and how many ulps from glibc's (which std calls)
/// they may be: fdlibm's `sinh` and `cosh` over chunked's `expm1` and `exp`
/// are two from glibc's over its own (each within an ulp of the exact value),
/// `arctanh`, fdlibm's form over chunked's `log1p`, two from the
/// difference of std's two `log1p`s, and FreeBSD's `log10` two from glibc's
/// (whose error reaches 1.5 ulps).
const OWN_FORMS: [(&str, u64); 13] = [
    ("cbrt", 1),
    ("exp", 1),
    ("exp2", 1),
    ("expm1", 1),
    ("log2", 1),
    ("log10", 2),
    ("log1p", 1),
    ("hypot", 1),
    ("arctan", 1),
    ("arctan2", 1),
    ("sinh", 2),
    ("cosh", 2),
    ("arctanh", 2),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A fused chain of five ufuncs on drawn blocks, against the same chain
    /// of std's functions element by element.
    #[test]
    fn fused_float_chain_is_std_element_by_element((a, b, chunks) in float_case()) {
        let (x, y) = (chunked(&a, &chunks), chunked(&b, &chunks));
        // hypot, log1p and cbrt are each within an ulp of std's; none of the
        // steps amplifies a relative error more than twofold here.
        let got = x.hypot(&y).unwrap().log1p().arctan2(x.floor()).unwrap().copysign(&y).unwrap().cbrt();
        let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| p.hypot(q).ln_1p().atan2(p.floor()).copysign(q).cbrt());
        prop_assert_eq!(beyond_ulps(&got.compute().unwrap(), &want, 8), None);
        // tanh (3 ulps from std's), sinh (2) and exp2 (1) of values in [-1, 1]
        // amplify relative errors at most 1.3-fold.
        let t = x.tan().tanh().sinh().exp2().nan_to_num(None, None, None);
        let want = a.mapv(|p| { let v = p.tan().tanh().sinh().exp2(); if v.is_nan() { 0.0 } else { v } });
        prop_assert_eq!(beyond_ulps(&t.compute().unwrap(), &want, 8), None);
    }

    #[test]
    fn integer_ufuncs_wrap_as_numpy((shape, chunks) in shape_chunks(2, 6), seed in any::<u64>()) {
        let n: usize = shape.iter().product();
        let draw = |k: usize| { let v = seed.wrapping_mul(6364136223846793005).wrapping_add((k as u64).wrapping_mul(1442695040888963407)); [i64::MIN, i64::MAX, -1, 0, 1, (v >> 3) as i64][(v % 6) as usize] };
        let a = ArrayD::from_shape_vec(ndarray::IxDyn(&shape), (0..n).map(draw).collect()).unwrap();
        let b = a.mapv(|v| v.rotate_left(7) % 67);
        let (x, y) = (chunked(&a, &chunks), chunked(&b, &chunks));
        // i128 arithmetic, then wrapped: an oracle independent of the kernels.
        let floor = |p: i64, q: i64| if q == 0 { 0 } else { (p as i128).div_euclid(q as i128) as i64 - i64::from(q < 0 && (p as i128).rem_euclid(q as i128) != 0) };
        prop_assert_eq!(x.floor_divide(&y).unwrap().compute().unwrap(), ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| floor(p, q)));
        prop_assert_eq!((&x * &y).compute().unwrap(), ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| (p as i128 * q as i128) as i64));
        prop_assert_eq!(x.square().compute().unwrap(), a.mapv(|p| (p as i128 * p as i128) as i64));
        prop_assert_eq!(x.abs().compute().unwrap(), a.mapv(|p| (p as i128).abs() as i64));
        let shifts = y.abs().remainder(70).unwrap();
        let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| { let s = ((q as i128).abs() % 70) as u32; if s >= 64 { 0 } else { p << s } });
        prop_assert_eq!(x.left_shift(&shifts).unwrap().compute().unwrap(), want);
    }
}

#[test]
fn complex_ufuncs_are_num_complex_element_by_element() {
    use chunked_array::Complex64;
    let z: Vec<Complex64> =
        (0..40).map(|k| Complex64::new((k as f64 - 20.0) * 0.37, (k as f64 * 0.71).sin() * 3.0)).collect();
    let x = Array::from_vec(&[40], z.clone(), 7).unwrap();
    let each = |f: fn(Complex64) -> Complex64| z.iter().map(|&v| f(v)).collect::<Vec<_>>();
    let got = |a: Array<Complex64>| a.compute().unwrap().into_raw_vec_and_offset().0;
    assert_eq!(got(x.sqrt()), each(|v| v.sqrt()));
    assert_eq!(got(x.exp()), each(|v| v.exp()));
    assert_eq!(got(x.log()), each(|v| v.ln()));
    assert_eq!(got(x.sin()), each(|v| v.sin()));
    assert_eq!(got(x.arctanh()), each(|v| v.atanh()));
    assert_eq!(got(x.conj()), each(|v| v.conj()));
    assert_eq!(got(x.square()), each(|v| v * v));
    // |z| and arg z are chunked's branch-free hypot and atan2: within an ulp of std's.
    let abs = x.abs().compute().unwrap();
    assert_eq!(
        beyond_ulps(&abs, &ArrayD::from_shape_vec(vec![40], z.iter().map(|v| v.norm()).collect()).unwrap(), 1),
        None
    );
    let angle = x.angle().compute().unwrap();
    assert_eq!(
        beyond_ulps(&angle, &ArrayD::from_shape_vec(vec![40], z.iter().map(|v| v.arg()).collect()).unwrap(), 1),
        None
    );
    let re: Vec<f64> = x.real().compute().unwrap().iter().copied().collect();
    let im: Vec<f64> = x.imag().compute().unwrap().iter().copied().collect();
    assert_eq!((re, im), (z.iter().map(|v| v.re).collect(), z.iter().map(|v| v.im).collect()));
    // Division: Smith's algorithm stays finite where |b|² overflows.
    let big = Array::from_vec(&[1], vec![Complex64::new(1e300, 1e300)], 1).unwrap();
    let q = (&big / &big).compute().unwrap()[0];
    assert_eq!(q, Complex64::new(1.0, 0.0));
    let _ = <Complex64 as Element>::DTYPE;
}

/// Smith's algorithm as NumPy writes it, branch by branch: the oracle of the
/// tile loops' branch-free division.
fn smith_division(a: chunked_array::Complex64, b: chunked_array::Complex64) -> chunked_array::Complex64 {
    use chunked_array::Complex64;
    let (ar, ai, br, bi) = (a.re, a.im, b.re, b.im);
    if br.abs() >= bi.abs() {
        if br == 0.0 && bi == 0.0 {
            return Complex64::new(ar / br.abs(), ai / br.abs());
        }
        let rat = bi / br;
        let scl = 1.0 / (br + bi * rat);
        Complex64::new((ar + ai * rat) * scl, (ai - ar * rat) * scl)
    } else {
        let rat = br / bi;
        let scl = 1.0 / (bi + br * rat);
        Complex64::new((ar * rat + ai) * scl, (ai * rat - ar) * scl)
    }
}

#[test]
fn complex_division_and_reciprocal_are_smiths_algorithm_in_both_cases() {
    use chunked_array::Complex64;
    let parts = [0.0, -0.0, 1.5, -2.25, 3e-310, 1e300, -7.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let values: Vec<Complex64> =
        parts.iter().flat_map(|&re| parts.iter().map(move |&im| Complex64::new(re, im))).collect();
    let (a, b): (Vec<Complex64>, Vec<Complex64>) =
        values.iter().flat_map(|&p| values.iter().map(move |&q| (p, q))).unzip();
    let n = a.len();
    let x = Array::from_vec(&[n], a.clone(), 777).unwrap();
    let y = Array::from_vec(&[n], b.clone(), 500).unwrap();
    // Equal bits, or NaN where the oracle is NaN (a NaN's sign is not kept).
    let same = |p: f64, q: f64| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan());
    let quotient = (&x / &y).compute().unwrap();
    for (k, (&got, (&p, &q))) in quotient.iter().zip(a.iter().zip(&b)).enumerate() {
        let want = smith_division(p, q);
        assert!(same(got.re, want.re) && same(got.im, want.im), "{k}: {p} / {q} = {got}, want {want}");
    }
    let reciprocal = y.reciprocal().compute().unwrap();
    for (&got, &q) in reciprocal.iter().zip(&b) {
        let want = smith_division(Complex64::new(1.0, 0.0), q);
        assert!(same(got.re, want.re) && same(got.im, want.im), "1 / {q} = {got}, want {want}");
    }
}

/// A unary float ufunc: its name, the array method, and the scalar oracle.
type UnaryCase = (&'static str, fn(&Array<f64>) -> Array<f64>, fn(f64) -> f64);

/// Every unary float ufunc against std's function of one element (or, where
/// NumPy defines the value, that definition written out).
const UNARY: &[UnaryCase] = &[
    ("floor", |x| x.floor(), f64::floor),
    ("ceil", |x| x.ceil(), f64::ceil),
    ("trunc", |x| x.trunc(), f64::trunc),
    ("rint", |x| x.rint(), f64::round_ties_even),
    (
        "sign",
        |x| x.sign(),
        |v| {
            if v > 0.0 {
                1.0
            } else if v < 0.0 {
                -1.0
            } else if v == 0.0 {
                0.0
            } else {
                v
            }
        },
    ),
    ("reciprocal", |x| x.reciprocal(), |v| 1.0 / v),
    ("square", |x| x.square(), |v| v * v),
    ("cbrt", |x| x.cbrt(), f64::cbrt),
    ("exp", |x| x.exp(), f64::exp),
    ("exp2", |x| x.exp2(), f64::exp2),
    ("expm1", |x| x.expm1(), f64::exp_m1),
    ("log2", |x| x.log2(), f64::log2),
    ("log10", |x| x.log10(), f64::log10),
    ("log1p", |x| x.log1p(), f64::ln_1p),
    ("tan", |x| x.tan(), f64::tan),
    ("arcsin", |x| x.arcsin(), f64::asin),
    ("arccos", |x| x.arccos(), f64::acos),
    ("arctan", |x| x.arctan(), f64::atan),
    ("sinh", |x| x.sinh(), f64::sinh),
    ("cosh", |x| x.cosh(), f64::cosh),
    // The definition, (ln(1 + x) - ln(1 - x)) / 2: std's `atanh` loses
    // hundreds of ulps near ±1 (NumPy's value is checked in the edge cases).
    ("arctanh", |x| x.arctanh(), |v| 0.5 * (v.ln_1p() - (-v).ln_1p())),
    ("degrees", |x| x.degrees(), |v| v * (180.0 / std::f64::consts::PI)),
    ("radians", |x| x.radians(), |v| v * (std::f64::consts::PI / 180.0)),
    ("round(2)", |x| x.round(2), |v| (v * 100.0).round_ties_even() / 100.0),
];

/// A binary float ufunc: its name, the array method, and the scalar oracle.
type BinaryCase = (&'static str, fn(&Array<f64>, &Array<f64>) -> Array<f64>, fn(f64, f64) -> f64);

const BINARY: &[BinaryCase] = &[
    ("hypot", |x, y| x.hypot(y).unwrap(), f64::hypot),
    ("arctan2", |x, y| x.arctan2(y).unwrap(), f64::atan2),
    ("copysign", |x, y| x.copysign(y).unwrap(), f64::copysign),
    ("fmax", |x, y| x.fmax(y).unwrap(), f64::max),
    ("fmin", |x, y| x.fmin(y).unwrap(), f64::min),
    ("fmod", |x, y| x.fmod(y).unwrap(), |a, b| a % b),
    (
        "heaviside",
        |x, y| x.heaviside(y).unwrap(),
        |a, b| {
            if a < 0.0 {
                0.0
            } else if a > 0.0 {
                1.0
            } else if a == 0.0 {
                b
            } else {
                a
            }
        },
    ),
    (
        "nextafter",
        |x, y| x.nextafter(y).unwrap(),
        |a, b| {
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else if a == b {
                b
            } else if b > a {
                a.next_up()
            } else {
                a.next_down()
            }
        },
    ),
];

/// Euclid's algorithm on magnitudes, in i128 (no value of a narrower type overflows it).
fn gcd128(p: i128, q: i128) -> i128 {
    let (mut u, mut v) = (p.abs(), q.abs());
    while v != 0 {
        (u, v) = (v, u % v);
    }
    u
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Each float ufunc over drawn shapes, chunkings and edge values, against
    /// its oracle element by element (NaN compared as NaN).
    #[test]
    fn every_float_ufunc_is_its_oracle_element_by_element((a, b, chunks) in float_case()) {
        let (x, y) = (chunked(&a, &chunks), chunked(&b, &chunks));
        let ulps = |name: &str| OWN_FORMS.iter().find(|own| own.0 == name).map_or(0, |own| own.1);
        for (name, method, oracle) in UNARY {
            prop_assert_eq!(beyond_ulps(&method(&x).compute().unwrap(), &a.mapv(oracle), ulps(name)), None, "{}", name);
        }
        for (name, method, oracle) in BINARY {
            let want = ndarray::Zip::from(&a).and(&b).map_collect(|&p, &q| oracle(p, q));
            prop_assert_eq!(beyond_ulps(&method(&x, &y).compute().unwrap(), &want, ulps(name)), None, "{}", name);
        }
    }

    /// The integer ufuncs of i8 and u16 over their whole ranges, against i128
    /// arithmetic wrapped back (NumPy's results for these widths).
    #[test]
    fn small_integer_ufuncs_are_i128_arithmetic_wrapped((shape, chunks) in shape_chunks(2, 6), seed in any::<u64>()) {
        let n: usize = shape.iter().product();
        let raw: Vec<u64> = (0..n as u64).map(|k| seed.rotate_left(k as u32 % 64).wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(k)).collect();
        let a8 = ArrayD::from_shape_vec(ndarray::IxDyn(&shape), raw.iter().map(|&v| v as i8).collect()).unwrap();
        let b8 = a8.mapv(|v| v.rotate_right(3));
        let (x, y) = (chunked(&a8, &chunks), chunked(&b8, &chunks));
        let w = |v: i128| v as i8;
        let zip = |f: fn(i128, i128) -> i128| ndarray::Zip::from(&a8).and(&b8).map_collect(move |&p, &q| w(f(p as i128, q as i128)));
        prop_assert_eq!(x.floor_divide(&y).unwrap().compute().unwrap(), zip(|p, q| if q == 0 { 0 } else { p.div_euclid(q) - i128::from(q < 0 && p.rem_euclid(q) != 0) }));
        prop_assert_eq!((&x % &y).compute().unwrap(), zip(|p, q| if q == 0 { 0 } else { let r = p % q; if r != 0 && (r < 0) != (q < 0) { r + q } else { r } }));
        prop_assert_eq!(x.fmod(&y).unwrap().compute().unwrap(), zip(|p, q| if q == 0 { 0 } else { p % q }));
        prop_assert_eq!(x.gcd(&y).unwrap().compute().unwrap(), zip(gcd128));
        prop_assert_eq!(x.lcm(&y).unwrap().compute().unwrap(), zip(|p, q| { let g = gcd128(p, q); if g == 0 { 0 } else { p.abs() / g * q.abs() } }));
        prop_assert_eq!((&x * &y).compute().unwrap(), zip(|p, q| p * q));
        prop_assert_eq!(x.sign().compute().unwrap(), a8.mapv(|v| v.signum()));
        let s = y.bitwise_and(7).unwrap();
        prop_assert_eq!(x.left_shift(&s).unwrap().compute().unwrap(), zip(|p, q| p << (q & 7)));
        prop_assert_eq!(x.right_shift(&s).unwrap().compute().unwrap(), zip(|p, q| p >> (q & 7)));
        let a16 = a8.mapv(|v| (v as i16 as u16).wrapping_mul(257));
        let b16 = a16.mapv(|v| v.rotate_left(5));
        let (u, v) = (chunked(&a16, &chunks), chunked(&b16, &chunks));
        let zip16 = |f: fn(i128, i128) -> i128| ndarray::Zip::from(&a16).and(&b16).map_collect(move |&p, &q| f(p as i128, q as i128) as u16);
        prop_assert_eq!(u.floor_divide(&v).unwrap().compute().unwrap(), zip16(|p, q| if q == 0 { 0 } else { p / q }));
        prop_assert_eq!((&u - &v).compute().unwrap(), zip16(|p, q| p - q));
        prop_assert_eq!(u.invert().compute().unwrap(), a16.mapv(|p| !p));
        prop_assert_eq!(u.reciprocal().compute().unwrap(), a16.mapv(|p| if p == 1 { 1 } else { 0 }));
    }
}
