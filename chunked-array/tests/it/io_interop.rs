//! Interop with the real clients: zarr-python 3.x and 2.x, h5py and NumPy write
//! fixtures that chunked reads, and read back what chunked writes; values are
//! compared exactly. The test command (scripts/test.sh) installs the clients into
//! target/pyenv and target/pyenv-zarr2; these tests skip, saying why, only when
//! there is no Python at all.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use chunked_array::Array;
use chunked_array::io::WriteMode;
use chunked_array::io::npy::from_npy;
use chunked_array::io::zarr::{
    BloscCompressor, BloscShuffleMode, Compression, Map, Value, ZarrFormat, ZarrRegionOptions, ZarrWriteOptions,
    create_zarr, from_zarr,
};
use ndarray::{ArrayD, IxDyn};
use support::TempDir;

const SHAPE: [usize; 2] = [37, 23];

/// The fixtures' float values: flat index * -0.37 + 0.125 (as NumPy computes it).
fn floats() -> ArrayD<f64> {
    ArrayD::from_shape_fn(IxDyn(&SHAPE), |i| (i[0] * SHAPE[1] + i[1]) as f64 * -0.37 + 0.125)
}

/// The fixtures' integer values: flat index - 400.
fn ints() -> ArrayD<i32> {
    ArrayD::from_shape_fn(IxDyn(&SHAPE), |i| (i[0] * SHAPE[1] + i[1]) as i32 - 400)
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The Python to use: `$var`, else the venv the test command made, else python3.
/// None (the test skips) only when no Python runs at all.
pub(crate) fn python(var: &str, venv: &str) -> Option<PathBuf> {
    let candidates = [
        std::env::var_os(var).map(PathBuf::from),
        Some(workspace().join(venv).join("bin/python")),
        Some(PathBuf::from("python3")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
}

pub(crate) fn run_python(python: &Path, args: &[&Path]) {
    let script_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop");
    let out = Command::new(python).args(args).current_dir(&script_dir).output().unwrap();
    assert!(
        out.status.success(),
        "{} {:?} failed (install the clients with scripts/setup_python.sh):\n{}\n{}",
        python.display(),
        args,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn reads_what_zarr_python_3_h5py_and_numpy_wrote() {
    let Some(py) = python("CHUNKED_PYTHON", "target/pyenv") else {
        crate::support::tool_missing("no Python interpreter found (set CHUNKED_PYTHON or run scripts/setup_python.sh)");
        return;
    };
    let dir = TempDir::new("interop3");
    run_python(&py, &[Path::new("write_fixtures.py"), dir.path()]);
    let root = dir.path();
    for name in [
        "v3_zstd",
        "v3_none",
        "v3_blosc",
        "v3_gzip",
        "v3_big",
        "v3_dot",
        "v3_sharded",
        "v2_blosc_F",
        "v2_zlib_big",
        "v2_gzip_slash",
        "v2_zstd",
    ] {
        let x = from_zarr::<f64>(root.join(format!("{name}.zarr")), "").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(x.compute().unwrap_or_else(|e| panic!("{name}: {e}")), floats(), "{name}");
    }
    for name in ["v3_i4", "v2_none_i4"] {
        assert_eq!(
            from_zarr::<i32>(root.join(format!("{name}.zarr")), "").unwrap().compute().unwrap(),
            ints(),
            "{name}"
        );
    }
    // Stored chunks become the blocks.
    let x = from_zarr::<f64>(root.join("v3_zstd.zarr"), "").unwrap();
    assert_eq!(x.chunks().lengths()[0], vec![10, 10, 10, 7]);
    assert_eq!(from_zarr::<f64>(root.join("grouped.zarr"), "sub/x").unwrap().compute().unwrap(), floats());

    #[cfg(feature = "hdf5")]
    {
        use chunked_array::io::hdf5::from_hdf5;
        let h5 = root.join("fixtures.h5");
        for name in ["chunked_gzip", "contiguous", "big_endian"] {
            assert_eq!(from_hdf5::<f64>(&h5, name).unwrap().compute().unwrap(), floats(), "hdf5 {name}");
        }
        assert_eq!(from_hdf5::<i32>(&h5, "group/int32").unwrap().compute().unwrap(), ints());
    }
    for name in ["c", "f", "big"] {
        assert_eq!(
            from_npy::<f64>(root.join(format!("{name}.npy")), [10, 8]).unwrap().compute().unwrap(),
            floats(),
            "{name}.npy"
        );
    }
    assert_eq!(from_npy::<i32>(root.join("i4.npy"), 16).unwrap().compute().unwrap(), ints());
}

#[test]
fn reads_what_zarr_python_2_wrote() {
    let Some(py) = python("CHUNKED_PYTHON_ZARR2", "target/pyenv-zarr2") else {
        crate::support::tool_missing(
            "no Python interpreter found (set CHUNKED_PYTHON_ZARR2 or run scripts/setup_python.sh)",
        );
        return;
    };
    let dir = TempDir::new("interop2");
    run_python(&py, &[Path::new("write_fixtures.py"), dir.path(), Path::new("zarr2")]);
    for name in ["z2_default", "z2_F_slash", "z2_big_zlib", "z2_none", "z2_gzip_i4", "z2_zstd_big_i4"] {
        assert!(dir.path().join(format!("{name}.zarr/.zarray")).is_file(), "{name} is not a Zarr v2 array");
    }
    for name in ["z2_default", "z2_F_slash", "z2_big_zlib", "z2_none"] {
        let x = from_zarr::<f64>(dir.path().join(format!("{name}.zarr")), "").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(x.compute().unwrap_or_else(|e| panic!("{name}: {e}")), floats(), "{name}");
    }
    for name in ["z2_gzip_i4", "z2_zstd_big_i4"] {
        assert_eq!(
            from_zarr::<i32>(dir.path().join(format!("{name}.zarr")), "").unwrap().compute().unwrap(),
            ints(),
            "{name}"
        );
    }
}

#[test]
fn zarr_python_h5py_and_numpy_read_what_we_wrote() {
    let Some(py) = python("CHUNKED_PYTHON", "target/pyenv") else {
        crate::support::tool_missing("no Python interpreter found (set CHUNKED_PYTHON or run scripts/setup_python.sh)");
        return;
    };
    let dir = TempDir::new("interop-ours");
    let root = dir.path();
    let x = Array::<f64>::from_fn(&SHAPE, [10, 8], |i| (i[0] * SHAPE[1] + i[1]) as f64 * -0.37 + 0.125).unwrap();
    let k = Array::<i32>::from_fn(&SHAPE, [16, 23], |i| (i[0] * SHAPE[1] + i[1]) as i32 - 400).unwrap();
    let zarr = root.join("ours.zarr");
    let mut attributes = Map::new();
    attributes.insert("units".into(), Value::from("m"));
    attributes.insert("scale".into(), Value::from(2.5));
    let cases = [
        ("zstd", Compression::Zstd { level: 3 }, false),
        (
            "blosc",
            Compression::Blosc { compressor: BloscCompressor::LZ4, level: 5, shuffle: BloscShuffleMode::Shuffle },
            false,
        ),
        ("gzip", Compression::Gzip { level: 5 }, false),
        ("none", Compression::None, false),
        ("crc", Compression::Zstd { level: 1 }, true),
    ];
    for (name, compression, checksum) in cases {
        let opts = ZarrWriteOptions { compression, checksum, attributes: attributes.clone(), ..Default::default() };
        x.to_zarr(&zarr, name, &opts).unwrap();
    }
    k.to_zarr(&zarr, "i4", &ZarrWriteOptions::default()).unwrap();
    k.map(|v| v % 3 == 0).to_zarr(&zarr, "bool", &ZarrWriteOptions::default()).unwrap();
    #[cfg(feature = "hdf5")]
    {
        use chunked_array::io::hdf5::Hdf5WriteOptions;
        let h5 = root.join("ours.h5");
        x.to_hdf5(&h5, "g/deflate", &Hdf5WriteOptions { deflate: Some(4), ..Default::default() }).unwrap();
        k.to_hdf5(&h5, "i4", &Hdf5WriteOptions::default()).unwrap();
    }
    #[cfg(not(feature = "hdf5"))]
    {
        // Without our HDF5 writer, h5py writes them so that the check still runs.
        eprintln!("feature hdf5 off: h5py writes the HDF5 part of this check");
        let script = "import sys, h5py; from write_fixtures import floats, ints\nwith h5py.File(sys.argv[1], 'w') as f:\n    f['g/deflate'] = floats(); f['i4'] = ints()";
        let out = Command::new(&py)
            .args(["-c", script])
            .arg(root.join("ours.h5"))
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop"))
            .status()
            .unwrap();
        assert!(out.success());
    }
    x.to_npy(root.join("ours.npy"), WriteMode::Create).unwrap();
    k.to_npy(root.join("ours_i4.npy"), WriteMode::Create).unwrap();
    run_python(&py, &[Path::new("read_ours.py"), root]);
}

#[test]
fn zarr_python_2_and_3_read_our_zarr_v2() {
    let pythons = [("CHUNKED_PYTHON_ZARR2", "target/pyenv-zarr2"), ("CHUNKED_PYTHON", "target/pyenv")];
    let Some(pythons) = pythons.into_iter().map(|(var, venv)| python(var, venv)).collect::<Option<Vec<_>>>() else {
        crate::support::tool_missing("no Python interpreter found (run scripts/setup_python.sh)");
        return;
    };
    let dir = TempDir::new("interop-ours-v2");
    let zarr = dir.path().join("v2.zarr");
    let v2 = ZarrWriteOptions { zarr_format: ZarrFormat::V2, ..Default::default() };
    let x = Array::<f64>::from_fn(&SHAPE, [10, 8], |i| (i[0] * SHAPE[1] + i[1]) as f64 * -0.37 + 0.125).unwrap();
    let k = Array::<i32>::from_fn(&SHAPE, [16, 23], |i| (i[0] * SHAPE[1] + i[1]) as i32 - 400).unwrap();
    let blosc = Compression::Blosc { compressor: BloscCompressor::LZ4, level: 5, shuffle: BloscShuffleMode::Shuffle };
    let compressions = [
        ("zstd", Compression::Zstd { level: 3 }),
        ("blosc", blosc),
        ("gzip", Compression::Gzip { level: 5 }),
        ("none", Compression::None),
    ];
    for (name, compression) in compressions {
        let mut options =
            ZarrWriteOptions { compression, dimension_names: Some(vec!["y".into(), "x".into()]), ..v2.clone() };
        options.attributes.insert("units".into(), Value::from("m"));
        x.to_zarr(&zarr, name, &options).unwrap();
    }
    k.to_zarr(&zarr, "i4", &v2).unwrap();
    k.map(|v| (v + 400) as u16).to_zarr(&zarr, "u2", &v2).unwrap();
    k.map(|v| v % 3 == 0).to_zarr(&zarr, "bool", &v2).unwrap();
    let c = Array::<chunked_array::Complex64>::from_fn(&SHAPE, [10, 8], |i| {
        let flat = i[0] * SHAPE[1] + i[1];
        chunked_array::Complex64::new(flat as f64 * -0.37 + 0.125, flat as f64 - 400.0)
    });
    c.unwrap().to_zarr(&zarr, "c16", &v2).unwrap();
    let nan = ZarrWriteOptions { fill_value: Some(Value::from("NaN")), ..v2.clone() };
    create_zarr::<f64>(&zarr, "filled", &[6, 4], &[2, 4], &nan).unwrap();
    let part = Array::<f64>::ones(&[2, 4], 2).unwrap();
    part.to_zarr_region(&zarr, "filled", &[2..4, 0..4], &ZarrRegionOptions::default()).unwrap();
    for py in pythons {
        run_python(&py, &[Path::new("read_ours_v2.py"), dir.path()]);
    }
}

#[test]
fn consolidated_groups_are_shared_with_zarr_python_2_and_3() {
    use chunked_array::io::cloud::StorageOptions;
    use chunked_array::io::zarr::{
        ZarrGroupOptions, ZarrReadOptions, consolidate_zarr_metadata, create_zarr_group, zarr_members,
    };
    let pythons = [("CHUNKED_PYTHON_ZARR2", "target/pyenv-zarr2"), ("CHUNKED_PYTHON", "target/pyenv")];
    let Some(pythons) = pythons.into_iter().map(|(var, venv)| python(var, venv)).collect::<Option<Vec<_>>>() else {
        crate::support::tool_missing("no Python interpreter found (run scripts/setup_python.sh)");
        return;
    };
    let dir = TempDir::new("interop-groups");
    for format in [ZarrFormat::V2, ZarrFormat::V3] {
        let root = dir.path().join(format!("ours_v{}.zarr", if format == ZarrFormat::V2 { 2 } else { 3 }));
        let group = ZarrGroupOptions { zarr_format: format, ..Default::default() };
        let array = ZarrWriteOptions { zarr_format: format, ..Default::default() };
        create_zarr_group(&root, "", &group).unwrap();
        create_zarr_group(&root, "sub", &group).unwrap();
        Array::<f64>::linspace(0.0, 1.0, 8, true, 4).unwrap().to_zarr(&root, "a", &array).unwrap();
        Array::<i32>::arange(0, 6, 1, 3).unwrap().to_zarr(&root, "sub/x", &array).unwrap();
        consolidate_zarr_metadata(&root, "", &StorageOptions::default()).unwrap();
    }
    for py in &pythons {
        run_python(py, &[Path::new("groups.py"), dir.path(), Path::new("read")]);
    }
    // zarr-python 3 writes both formats (2.x only v2); each store's late
    // array is not in its consolidated metadata, so the members come from it.
    for (py, formats) in pythons.iter().zip([&[2][..], &[2, 3][..]]) {
        let theirs = TempDir::new("interop-groups-theirs");
        run_python(py, &[Path::new("groups.py"), theirs.path(), Path::new("write")]);
        for format in formats {
            let root = theirs.path().join(format!("theirs_v{format}.zarr"));
            assert_eq!(zarr_members(&root, "", &ZarrReadOptions::default()).unwrap(), ["a", "sub"], "v{format}");
            assert_eq!(zarr_members(&root, "sub", &ZarrReadOptions::default()).unwrap(), ["x"], "v{format}");
            assert_eq!(
                from_zarr::<i32>(&root, "sub/x").unwrap().compute().unwrap().into_raw_vec_and_offset().0,
                [0, 1, 2, 3, 4, 5]
            );
        }
    }
}
