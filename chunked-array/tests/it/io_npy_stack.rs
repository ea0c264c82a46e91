//! Stacks of `.npy` files as dask writes and reads them: round trips along
//! each axis, dask's stacks read here and ours read by dask, and the errors
//! of a missing info file, a foreign directory and disagreeing files.

use crate::support;

use std::path::Path;

use chunked_array::io::WriteMode;
use chunked_array::io::npy::from_npy_stack;
use chunked_array::random::RandomState;
use chunked_array::{Array, Complex64, Error};
use ndarray::{ArrayD, IxDyn};
use support::TempDir;

#[test]
fn stacks_round_trip_along_every_axis() {
    let dir = TempDir::new("npy-stack");
    let x: Array<f64> = RandomState::new(4).uniform(&[9, 7, 5], [4, 3, 2]).unwrap();
    for axis in 0..3 {
        let path = dir.path().join(format!("axis{axis}"));
        let report = x.to_npy_stack(&path, axis, WriteMode::Create).unwrap();
        assert_eq!(report.chunks_written, x.chunks().lengths()[axis].len());
        let y = from_npy_stack::<f64>(&path).unwrap();
        assert_eq!(y.chunks().lengths()[axis], x.chunks().lengths()[axis]);
        assert_eq!(y.compute().unwrap(), x.compute().unwrap(), "axis {axis}");
    }
    let z = x.map(|v| Complex64::new(v, 1.0 - v));
    z.to_npy_stack(dir.path().join("complex"), 2, WriteMode::Create).unwrap();
    assert_eq!(
        from_npy_stack::<Complex64>(dir.path().join("complex")).unwrap().compute().unwrap(),
        z.compute().unwrap()
    );
    // Overwrite replaces a stack of another blocking.
    let rows = dir.path().join("axis0");
    x.rechunk([9, 7, 5]).unwrap().to_npy_stack(&rows, 0, WriteMode::Overwrite).unwrap();
    assert_eq!(from_npy_stack::<f64>(&rows).unwrap().num_blocks(), 1);
    assert!(!rows.join("1.npy").exists(), "the old blocks are gone");
}

#[test]
fn bad_stacks_and_targets_are_errors() {
    let dir = TempDir::new("npy-stack-bad");
    let x = Array::<i32>::arange(0, 20, 1, 5).unwrap();
    let stack = dir.path().join("s");
    x.to_npy_stack(&stack, 0, WriteMode::Create).unwrap();
    let wrong = from_npy_stack::<i64>(&stack).unwrap_err();
    assert!(matches!(wrong, Error::DtypeMismatch { .. }), "{wrong}");
    assert!(x.to_npy_stack(&stack, 1, WriteMode::Create).unwrap_err().to_string().contains("axis"));
    assert!(x.to_npy_stack(&stack, 0, WriteMode::Resume).is_err());
    // A directory holding other files is never emptied.
    let foreign = dir.path().join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let refused = x.to_npy_stack(&foreign, 0, WriteMode::Overwrite).unwrap_err();
    assert!(refused.to_string().contains("notes.txt"), "{refused}");
    assert!(foreign.join("notes.txt").exists());
    // A block file of another length on the other axes, and a missing info.
    let other = Array::<i32>::zeros(&[3, 2], 3).unwrap();
    let two_d = dir.path().join("two_d");
    other.to_npy_stack(&two_d, 0, WriteMode::Create).unwrap();
    std::fs::copy(stack.join("1.npy"), two_d.join("1.npy")).unwrap();
    let mixed = from_npy_stack::<i32>(&two_d).unwrap_err();
    assert!(mixed.to_string().contains("1.npy"), "{mixed}");
    std::fs::remove_file(stack.join("info")).unwrap();
    let no_info = from_npy_stack::<i32>(&stack).unwrap_err();
    assert!(no_info.to_string().contains("info"), "{no_info}");
    std::fs::write(stack.join("info"), b"not a pickle").unwrap();
    assert!(from_npy_stack::<i32>(&stack).unwrap_err().to_string().contains("axis"));
}

#[test]
fn dask_reads_our_stacks_and_we_read_dasks() {
    let Some(py) = crate::io_interop::python("CHUNKED_PYTHON", "target/pyenv") else {
        support::tool_missing("no Python interpreter found (set CHUNKED_PYTHON or run scripts/setup_python.sh)");
        return;
    };
    let dir = TempDir::new("npy-stack-dask");
    let (rows, cols) = (37, 23);
    let floats = ArrayD::from_shape_fn(IxDyn(&[rows, cols]), |i| (i[0] * cols + i[1]) as f64 * -0.37 + 0.125);
    let ints = ArrayD::from_shape_fn(IxDyn(&[rows, cols]), |i| (i[0] * cols + i[1]) as i64 - 400);
    crate::io_interop::run_python(&py, &[Path::new("npy_stack.py"), Path::new("write"), dir.path()]);
    let theirs = from_npy_stack::<f64>(dir.path().join("dask_rows")).unwrap();
    assert_eq!(theirs.chunks().lengths()[0], vec![10, 10, 10, 7]);
    assert_eq!(theirs.compute().unwrap(), floats);
    let theirs = from_npy_stack::<u16>(dir.path().join("dask_cols")).unwrap();
    assert_eq!(theirs.chunks().lengths()[1], vec![5, 5, 5, 5, 3]);
    assert_eq!(theirs.compute().unwrap(), ints.mapv(|v| v as u16));

    Array::from_ndarray(floats, vec![10, 4])
        .unwrap()
        .to_npy_stack(dir.path().join("ours_rows"), 0, WriteMode::Create)
        .unwrap();
    Array::from_ndarray(ints, vec![8, 6])
        .unwrap()
        .to_npy_stack(dir.path().join("ours_cols"), 1, WriteMode::Create)
        .unwrap();
    crate::io_interop::run_python(&py, &[Path::new("npy_stack.py"), Path::new("read"), dir.path()]);
}
