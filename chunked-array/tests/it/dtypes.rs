//! Every element type: NumPy's promotion table, and each type through
//! creation, slicing, rechunk, reductions, spilling and every file format,
//! against NumPy, zarr-python and h5py both ways.

use crate::support::TempDir;

use std::path::Path;

use chunked_array::io::WriteMode;
use chunked_array::io::npy::from_npy;
use chunked_array::io::zarr::{ZarrWriteOptions, from_zarr};
use chunked_array::{Array, Complex32, Complex64, Context, DType, Element, Promote, RechunkOptions, s};
use ndarray::{ArrayD, IxDyn};

const SHAPE: [usize; 2] = [37, 5];
const NAMES: [&str; 13] = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
];

/// The fixtures' value at flat index `i`, as `values` in tests/interop/dtypes.py.
fn value<T: Element>(i: usize) -> T {
    let i = i as i64;
    match T::DTYPE {
        DType::Bool => (i % 3 == 0).cast(),
        d if d.is_complex() || T::IS_FLOAT => Complex64::new(i as f64 * -0.37 + 0.125, i as f64 * 0.5 - 3.0).cast(),
        _ => (i * 37 - 3000).cast(),
    }
}

fn values<T: Element>() -> ArrayD<T> {
    ArrayD::from_shape_fn(IxDyn(&SHAPE), |i| value(i[0] * SHAPE[1] + i[1]))
}

macro_rules! promotion_row {
    ($rows:ident, $a:ty; $($b:ty),*) => {$(
        $rows.push((
            <$a as Element>::DTYPE,
            <$b as Element>::DTYPE,
            <<$a as Promote<$b>>::Output as Element>::DTYPE,
            <<<$a as Promote<$b>>::Output as Element>::Quotient as Element>::DTYPE,
        ));
    )*};
}

macro_rules! promotion_table {
    ($($a:ty),*) => {{
        let mut rows = Vec::new();
        $(promotion_row!(rows, $a; bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);)*
        rows
    }};
}

#[test]
#[allow(clippy::vec_init_then_push)]
fn promotion_is_numpys_for_every_pair() {
    let numpy =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/numpy_promotion.txt")).unwrap();
    let numpy: Vec<Vec<&str>> =
        numpy.lines().filter(|l| !l.starts_with('#')).map(|l| l.split_whitespace().collect()).collect();
    let ours = promotion_table!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Complex32, Complex64);
    assert_eq!(numpy.len(), 169);
    assert_eq!(ours.len(), 169);
    for (row, (a, b, out, quotient)) in numpy.iter().zip(ours) {
        assert_eq!((row[0], row[1]), (a.name(), b.name()));
        assert_eq!(row[2], out.name(), "np.result_type({a}, {b})");
        assert_eq!(row[3], quotient.name(), "np.true_divide({a}, {b})");
    }
}

#[test]
fn mixed_operands_promote_end_to_end() {
    let a = Array::from_vec(&[3], vec![1i32, -2, 3], 2).unwrap();
    let b = Array::from_vec(&[3], vec![0.5f64, 0.25, -1.0], 2).unwrap();
    let c: Array<f64> = &a + &b;
    assert_eq!(c.compute().unwrap().as_slice().unwrap(), &[1.5, -1.75, 2.0]);
    let u = Array::from_vec(&[3], vec![200u8, 100, 7], 2).unwrap();
    let i = Array::from_vec(&[3], vec![-100i8, 100, -7], 2).unwrap();
    let s: Array<i16> = &u + &i; // np.uint8 + np.int8 is int16: no wrap
    assert_eq!(s.compute().unwrap().as_slice().unwrap(), &[100, 200, 0]);
    let q: Array<f64> = &a / &a.astype::<i64>(); // true division
    assert_eq!(q.compute().unwrap().as_slice().unwrap(), &[1.0, 1.0, 1.0]);
    let z = Array::from_vec(&[3], vec![Complex32::new(0.0, 1.0); 3], 2).unwrap();
    let w: Array<Complex64> = &z * &b; // complex64 with float64 is complex128
    assert_eq!(w.compute().unwrap()[1], Complex64::new(0.0, 0.25));
    let x = Array::from_vec(&[2], vec![1.5f32, 2.0], 1).unwrap();
    let y: Array<f32> = &x * 2.0; // a literal takes the array's type
    assert_eq!(y.compute().unwrap().as_slice().unwrap(), &[3.0, 4.0]);
}

/// `T` through the array operations and the disk tier, against the same on
/// the in-memory array.
fn through_operations<T: Element>() {
    let want = values::<T>();
    let x = Array::from_ndarray(want.view(), [10, 2]).unwrap();
    assert_eq!(x.dtype(), T::DTYPE);
    assert_eq!(x.compute().unwrap(), want, "{}", T::DTYPE);
    let sliced = x.slice(s![3..30;4, ..;-1]).unwrap().compute().unwrap();
    assert_eq!(sliced, want.slice(ndarray::s![3..30;4, ..;-1]).into_dyn(), "{}", T::DTYPE);
    assert_eq!(x.rechunk([7, 5]).unwrap().compute().unwrap(), want);
    assert_eq!(x.t().compute().unwrap(), want.t().into_owned(), "{}", T::DTYPE);
    // Tall blocks to wide ones under a limit that forces blocks to disk.
    let big_values = ArrayD::from_shape_fn(IxDyn(&[400, 64]), |i| value::<T>(i[0] * 64 + i[1]));
    let big = Array::from_ndarray(big_values.clone(), [50, 64]).unwrap();
    let bytes = big_values.len() * T::DTYPE.size();
    let spill = TempDir::new("dtype-spill");
    let ctx = Context::threads(2).with_memory_limit(bytes / 3).with_spill_dir(spill.path());
    // (Through a layer: a source block is re-read rather than spilled.)
    let wide = big.map(|v| v).rechunk_with([400, 8], &RechunkOptions { block_size_limit: bytes / 8 }).unwrap();
    let (got, stats) = wide.compute_stats(&ctx).unwrap();
    assert_eq!(got, big_values, "{} through the disk tier", T::DTYPE);
    assert!(stats.tiers.spilled > 0, "{}: {stats:?}", T::DTYPE);
    // Between processes (MPI), a block travels as its dtype, shape and bytes.
    let wire = chunked_array::runtime::Wire::elements::<T>();
    let block: chunked_array::runtime::Block = std::sync::Arc::new(want.clone());
    let back = (wire.decode)(&(wire.encode)(&block).unwrap()).unwrap();
    assert_eq!(back.as_any().downcast_ref::<ArrayD<T>>(), Some(&want), "{} over the wire", T::DTYPE);
}

#[test]
fn every_type_through_the_operations() {
    through_operations::<bool>();
    through_operations::<i8>();
    through_operations::<i16>();
    through_operations::<i32>();
    through_operations::<i64>();
    through_operations::<u8>();
    through_operations::<u16>();
    through_operations::<u32>();
    through_operations::<u64>();
    through_operations::<f32>();
    through_operations::<f64>();
    through_operations::<Complex32>();
    through_operations::<Complex64>();
}

#[test]
fn reductions_follow_numpys_types() {
    // np.sum of uint8 is uint64, of int16 int64; np.mean of ints is float64;
    // complex sums and means stay complex.
    let u = Array::from_vec(&[4], vec![250u8, 250, 250, 250], 2).unwrap();
    let total: u64 = u.sum(None).unwrap().compute_scalar().unwrap();
    assert_eq!(total, 1000);
    let i = Array::from_vec(&[3], vec![i16::MAX, i16::MAX, 1], 2).unwrap();
    let total: i64 = i.sum(None).unwrap().compute_scalar().unwrap();
    assert_eq!(total, 2 * i16::MAX as i64 + 1);
    let mean: f64 = i.mean(None).unwrap().compute_scalar().unwrap();
    assert_eq!(mean, (2.0 * i16::MAX as f64 + 1.0) / 3.0);
    let z: Vec<Complex64> = (0..10).map(|k| Complex64::new(k as f64, -2.0 * k as f64)).collect();
    let za = Array::from_vec(&[10], z.clone(), 3).unwrap();
    let want: Complex64 = z.iter().sum();
    assert_eq!(za.sum(None).unwrap().compute_scalar().unwrap(), want);
    assert_eq!(za.mean(None).unwrap().compute_scalar().unwrap(), want / 10.0);
    assert_eq!(za.prod(None).unwrap().compute_scalar().unwrap(), Complex64::new(0.0, 0.0));
}

/// Reads each type from `root` (npy, zarr and, with the feature, hdf5).
fn read_fixture<T: Element>(root: &Path, name: &str) {
    let want = values::<T>();
    let npy = from_npy::<T>(root.join(format!("{name}.npy")), [10, 5]).unwrap_or_else(|e| panic!("{name}.npy: {e}"));
    assert_eq!(npy.compute().unwrap(), want, "{name}.npy");
    let zarr = from_zarr::<T>(root.join("dtypes.zarr"), name).unwrap_or_else(|e| panic!("zarr {name}: {e}"));
    assert_eq!(zarr.compute().unwrap(), want, "zarr {name}");
    #[cfg(feature = "hdf5")]
    {
        let h5 = chunked_array::io::hdf5::from_hdf5::<T>(root.join("dtypes.h5"), name)
            .unwrap_or_else(|e| panic!("hdf5 {name}: {e}"));
        assert_eq!(h5.compute().unwrap(), want, "hdf5 {name}");
    }
}

/// Writes each type to `root` as `ours_{name}.npy`, `ours.zarr/{name}` and `ours.h5:{name}`.
fn write_ours<T: Element>(root: &Path, name: &str) {
    let x = Array::from_ndarray(values::<T>(), [16, 5]).unwrap();
    x.to_npy(root.join(format!("ours_{name}.npy")), WriteMode::Create).unwrap();
    x.to_zarr(root.join("ours.zarr"), name, &ZarrWriteOptions::default()).unwrap();
    #[cfg(feature = "hdf5")]
    x.to_hdf5(root.join("ours.h5"), name, &chunked_array::io::hdf5::Hdf5WriteOptions::default()).unwrap();
}

macro_rules! each_type {
    ($f:ident, $root:expr) => {{
        let names: Vec<&str> = NAMES.to_vec();
        $f::<bool>($root, names[0]);
        $f::<i8>($root, names[1]);
        $f::<i16>($root, names[2]);
        $f::<i32>($root, names[3]);
        $f::<i64>($root, names[4]);
        $f::<u8>($root, names[5]);
        $f::<u16>($root, names[6]);
        $f::<u32>($root, names[7]);
        $f::<u64>($root, names[8]);
        $f::<f32>($root, names[9]);
        $f::<f64>($root, names[10]);
        $f::<Complex32>($root, names[11]);
        $f::<Complex64>($root, names[12]);
    }};
}

#[test]
fn every_type_to_and_from_numpy_zarr_python_and_h5py() {
    let Some(py) = crate::io_interop::python("CHUNKED_PYTHON", "target/pyenv") else {
        crate::support::tool_missing("no Python interpreter found (set CHUNKED_PYTHON or run scripts/setup_python.sh)");
        return;
    };
    let dir = TempDir::new("dtypes-interop");
    crate::io_interop::run_python(&py, &[Path::new("dtypes.py"), Path::new("write"), dir.path()]);
    each_type!(read_fixture, dir.path());
    each_type!(write_ours, dir.path());
    crate::io_interop::run_python(&py, &[Path::new("dtypes.py"), Path::new("check"), dir.path()]);
}

#[test]
fn complex_products_match_ndarray() {
    use chunked_array::einsum;
    let a = ArrayD::from_shape_fn(IxDyn(&[9, 7]), |i| Complex64::new(i[0] as f64 - 4.0, 0.5 * i[1] as f64));
    let b = ArrayD::from_shape_fn(IxDyn(&[7, 5]), |i| Complex64::new((i[0] * i[1]) as f64 * 0.25, 1.0 - i[0] as f64));
    let want = a
        .view()
        .into_dimensionality::<ndarray::Ix2>()
        .unwrap()
        .dot(&b.view().into_dimensionality::<ndarray::Ix2>().unwrap());
    let x = Array::from_ndarray(a.clone(), [4, 3]).unwrap();
    let y = Array::from_ndarray(b.clone(), [3, 2]).unwrap();
    let close =
        |got: ArrayD<Complex64>| got.iter().zip(want.iter()).all(|(g, w)| (g - w).norm() <= 1e-12 * (1.0 + w.norm()));
    assert!(close(x.matmul(&y).unwrap().compute().unwrap()), "matmul");
    assert!(close(x.tensordot(&y, (&[1], &[0])).unwrap().compute().unwrap()), "tensordot");
    assert!(close(einsum("ij,jk->ik", &[&x, &y]).unwrap().compute().unwrap()), "einsum");
    // complex64: the same product in single precision.
    let x32 = x.astype::<Complex32>();
    let y32 = y.astype::<Complex32>();
    let got = x32.matmul(&y32).unwrap().compute().unwrap();
    assert!(got.iter().zip(want.iter()).all(|(g, w)| (g.to_complex() - w).norm() <= 1e-4 * (1.0 + w.norm())));
}
