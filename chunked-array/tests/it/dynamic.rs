//! Arrays of a run-time element type (`AnyArray`): the promotion table at
//! run time against NumPy's, each named ufunc's result type against NumPy's
//! for every element type, the errors where a type has no such operation,
//! and the readers of files of unknown type.

use std::path::Path;
use std::process::Command;

use chunked_array::io::zarr::{ZarrWriteOptions, from_zarr_any};
use chunked_array::io::{WriteMode, npy};
use chunked_array::{AnyArray, Array, Complex32, Complex64, DType, Element, Error};

use crate::support::TempDir;

const UNARY: &[&str] = &[
    "logical_not",
    "absolute",
    "negative",
    "positive",
    "square",
    "reciprocal",
    "sign",
    "real",
    "imag",
    "conjugate",
    "isfinite",
    "isinf",
    "isnan",
    "signbit",
    "invert",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "cbrt",
    "degrees",
    "radians",
    "rad2deg",
    "deg2rad",
    "isposinf",
    "isneginf",
    "sqrt",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
];
const BINARY: &[&str] = &[
    "equal",
    "not_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "add",
    "subtract",
    "multiply",
    "power",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "fmod",
    "maximum",
    "minimum",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "hypot",
    "arctan2",
    "copysign",
    "nextafter",
    "logaddexp",
    "logaddexp2",
    "heaviside",
    "fmax",
    "fmin",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "gcd",
    "lcm",
];

/// `[1, 0]` in every element type, as `AnyArray`s.
fn one_zero_of_every_type() -> Vec<AnyArray> {
    fn one<T: Element>() -> AnyArray
    where
        AnyArray: From<Array<T>>,
    {
        AnyArray::from(Array::from_vec(&[2], vec![1.0f64.cast::<T>(), 0.0f64.cast::<T>()], 1).unwrap())
    }
    vec![
        one::<bool>(),
        one::<i8>(),
        one::<i16>(),
        one::<i32>(),
        one::<i64>(),
        one::<u8>(),
        one::<u16>(),
        one::<u32>(),
        one::<u64>(),
        one::<f32>(),
        one::<f64>(),
        one::<Complex32>(),
        one::<Complex64>(),
    ]
}

#[test]
fn result_type_is_numpys_table() {
    let table =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/numpy_promotion.txt")).unwrap();
    let by_name = |n: &str| DType::ALL.into_iter().find(|d| d.name() == n).unwrap_or_else(|| panic!("{n}"));
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (a, b, want) = (by_name(f[0]), by_name(f[1]), by_name(f[2]));
        assert_eq!(a.result_type(b), Some(want), "{a} with {b}");
        checked += 1;
    }
    assert_eq!(checked, 169);
    assert_eq!(DType::F64.result_type(DType::Intermediate), None);
}

/// Where a named ufunc works on a type, its result type is NumPy's; where it
/// does not, the error names the ufunc and the type.
#[test]
fn named_ufuncs_give_numpys_result_types() {
    let Some(py) = crate::io_interop::python("CHUNKED_PYTHON", "target/pyenv") else {
        crate::support::tool_missing("no Python interpreter found (set CHUNKED_PYTHON or run scripts/setup_python.sh)");
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/dynamic.py");
    let out = Command::new(py).arg(script).arg(UNARY.join(",")).arg(BINARY.join(",")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let numpy = String::from_utf8(out.stdout).unwrap();
    let arrays = one_zero_of_every_type();
    let (mut agreed, mut stricter) = (0, Vec::new());
    for line in numpy.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let (name, dtype, want) = (f[0], f[1], f[2]);
        let x = arrays.iter().find(|a| a.dtype().name() == dtype).unwrap();
        let ours = if UNARY.contains(&name) { x.unary(name) } else { x.binary(name, x) };
        match ours {
            Ok(r) => {
                assert_eq!(r.dtype().name(), want, "np.{name} of {dtype}");
                agreed += 1;
            }
            Err(Error::UnsupportedDtype { op, dtype: d }) => {
                assert_eq!((op.as_str(), d.as_str()), (name, dtype));
                if want != "TypeError" {
                    stricter.push(format!("{name}({dtype})"));
                }
            }
            Err(e) => panic!("np.{name} of {dtype}: {e}"),
        }
    }
    assert!(agreed > 550, "{agreed} agreeing cases");
    // Where NumPy converts first (sqrt of an integer is a float there, add of
    // bools a logical or, complex numbers order lexicographically), chunked
    // asks for the conversion (`astype`) or has no such operation.
    println!("{} cases stricter than NumPy: {}", stricter.len(), stricter.join(" "));
    for case in ["arctan2 complex128", "floor complex64", "bitwise_and float64", "invert float32"] {
        assert!(numpy.lines().any(|l| l == format!("{case} TypeError")), "NumPy has {case}");
    }
}

#[test]
fn unsupported_operations_are_errors_naming_op_and_type() {
    let z = AnyArray::from(Array::from_vec(&[2], vec![Complex64::new(1.0, 2.0); 2], 1).unwrap());
    let f = AnyArray::from(Array::from_vec(&[2], vec![1.5f64, -2.0], 1).unwrap());
    let cases = [
        (z.binary("arctan2", &z), "arctan2 is not defined for complex128"),
        (z.binary("less", &f), "less is not defined for complex128"),
        (f.binary("bitwise_and", &f), "bitwise_and is not defined for float64"),
        (z.unary("floor"), "floor is not defined for complex128"),
        (f.unary("invert"), "invert is not defined for float64"),
    ];
    for (got, want) in cases {
        assert_eq!(got.unwrap_err().to_string(), want);
    }
    assert!(matches!(f.unary("frobnicate"), Err(Error::InvalidArgument { .. })));
    let short = AnyArray::from(Array::from_vec(&[3], vec![1i8, 2, 3], 1).unwrap());
    assert!(matches!(f.binary("add", &short), Err(Error::ShapeMismatch { .. })));
}

#[test]
fn mixed_types_promote_and_compute_numpys_values() {
    let a = AnyArray::from(Array::from_vec(&[3], vec![200u8, 7, 0], 2).unwrap());
    let b = AnyArray::from(Array::from_vec(&[3], vec![-100i8, 2, -1], 2).unwrap());
    // uint8 with int8 is int16: no wrap at 255.
    let sum = a.binary("add", &b).unwrap();
    assert_eq!(sum.downcast::<i16>().unwrap().compute().unwrap().as_slice().unwrap(), &[100, 9, -1]);
    let q = a.binary("divide", &b).unwrap().downcast::<f64>().unwrap().compute().unwrap();
    assert_eq!(q.as_slice().unwrap(), &[-2.0, 3.5, -0.0]);
    let fd = a.binary("floor_divide", &b).unwrap().downcast::<i16>().unwrap().compute().unwrap();
    assert_eq!(fd.as_slice().unwrap(), &[-2, 3, 0]);
    let z = AnyArray::from(Array::from_vec(&[3], vec![Complex32::new(3.0, 4.0); 3], 2).unwrap());
    let w = z.binary("multiply", &b).unwrap(); // complex64 with int8 is complex64
    assert_eq!(w.downcast::<Complex32>().unwrap().compute().unwrap()[0], Complex32::new(-300.0, -400.0));
    assert_eq!(z.unary("absolute").unwrap().downcast::<f32>().unwrap().compute().unwrap()[1], 5.0);
    assert!(sum.downcast::<i32>().is_err());
    assert_eq!(a.astype(DType::Bool).unwrap().cast::<u8>().compute().unwrap().as_slice().unwrap(), &[1, 1, 0]);
}

#[test]
fn files_of_unknown_type_read_as_their_type() {
    let dir = TempDir::new("dynamic-read");
    for (i, x) in one_zero_of_every_type().into_iter().enumerate() {
        let path = dir.path().join(format!("{i}.npy"));
        let want = x.cast::<Complex64>().compute().unwrap();
        macro_rules! store {
            ($($v:ident),*) => {
                match &x {
                    $(AnyArray::$v(a) => {
                        a.to_npy(&path, WriteMode::Create).unwrap();
                        a.to_zarr(dir.path(), &i.to_string(), &ZarrWriteOptions::default()).unwrap();
                    })*
                }
            };
        }
        store!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, Complex64, Complex128);
        for back in [npy::from_npy_any(&path, 1).unwrap(), from_zarr_any(dir.path(), &i.to_string()).unwrap()] {
            assert_eq!(back.dtype(), x.dtype());
            assert_eq!(back.cast::<Complex64>().compute().unwrap(), want, "{}", x.dtype());
        }
    }
    let bad = dir.path().join("bad.npy");
    // A valid header naming float16, which chunked does not hold.
    let mut dict = "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }".to_string();
    while !(10 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((dict.len() as u16).to_le_bytes());
    bytes.extend(dict.as_bytes());
    bytes.extend([0u8; 4]);
    std::fs::write(&bad, bytes).unwrap();
    let err = npy::from_npy_any(&bad, 1).unwrap_err().to_string();
    assert!(err.contains("f2"), "{err}");
}
