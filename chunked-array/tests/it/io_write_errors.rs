//! A write that fails in the middle of a store, as on a full disk, without root:
//! a child process lowers its file-size limit (RLIMIT_FSIZE), so a write past it
//! fails with EFBIG the way a full disk fails with ENOSPC. Each store must return
//! an `Err` naming the file or chunk, and leave nothing that looks complete.

use crate::support;

use std::path::Path;
use std::process::Command;

use chunked_array::io::WriteMode;
use chunked_array::io::npy::from_npy;
use chunked_array::io::zarr::{Compression, INCOMPLETE_MARKER, PENDING_METADATA, ZarrWriteOptions, from_zarr};
use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Error};
use support::TempDir;

const CHILD_DIR: &str = "CHUNKED_TEST_WRITE_ERROR_DIR";
/// The child's limit on any one file's size.
const FILE_LIMIT: u64 = 64 << 10;

/// Ten row blocks of 64 x 512 f64 (256 KiB each): the first five zeros, which
/// compress to a few bytes, the rest random, which do not fit under the limit.
fn data() -> Array<f64> {
    let noise = RandomState::new(5).uniform::<f64>(&[640, 512], [64, 512]).unwrap();
    noise
        .map_blocks(
            |b, info| {
                if info.index[0] < 5 { b.mapv(|_| 0.0) } else { b.to_owned() }
            },
            None,
        )
        .unwrap()
}

/// Runs in the child: sets the limit, then stores as Zarr (zstd), .npy and, with
/// the `hdf5` feature, HDF5, and checks each error names its file or chunk.
#[test]
#[ignore = "the child process of a_failing_write_is_an_error_and_nothing_looks_complete"]
fn child_store_under_a_file_size_limit() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        panic!("run by a_failing_write_is_an_error_and_nothing_looks_complete only");
    };
    let dir = Path::new(&dir);
    // SAFETY: setting this process's signal disposition and resource limit.
    unsafe {
        // Past the limit the kernel sends SIGXFSZ (default: terminate); ignored,
        // the write fails with EFBIG instead.
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        let limit = libc::rlimit { rlim_cur: FILE_LIMIT, rlim_max: FILE_LIMIT };
        assert_eq!(libc::setrlimit(libc::RLIMIT_FSIZE, &limit), 0);
    }
    let x = data();
    let opts = ZarrWriteOptions { compression: Compression::Zstd { level: 1 }, ..Default::default() };
    let err = x.to_zarr_on(dir, "z", &opts, &Context::sync()).unwrap_err();
    let Error::Io { path, message } = &err else { panic!("expected Error::Io, got {err}") };
    assert!(path.ends_with("z/c/5/0"), "the first random chunk: {err}");
    assert!(message.to_lowercase().contains("large"), "EFBIG (file too large): {err}");

    let err = x.to_npy(dir.join("x.npy"), WriteMode::Create).unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path.ends_with("x.npy")), "{err}");

    #[cfg(feature = "hdf5")]
    {
        use chunked_array::io::hdf5::Hdf5WriteOptions;
        let err = x.to_hdf5(dir.join("x.h5"), "d", &Hdf5WriteOptions::default()).unwrap_err();
        assert!(err.to_string().contains("x.h5"), "{err}");
    }
}

#[test]
fn a_failing_write_is_an_error_and_nothing_looks_complete() {
    let dir = TempDir::new("write-error");
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["io_write_errors::child_store_under_a_file_size_limit", "--exact", "--ignored", "--test-threads=1"])
        .env(CHILD_DIR, dir.path())
        .status()
        .unwrap();
    assert!(status.success(), "the child's checks failed (its output is above)");

    // Zarr: the five zero chunks are there and complete, no chunk or temporary
    // file beyond them, and no zarr.json for other clients to find.
    let z = dir.path().join("z");
    assert!(z.join(INCOMPLETE_MARKER).exists() && z.join(PENDING_METADATA).exists());
    assert!(!z.join("zarr.json").exists());
    let mut files = Vec::new();
    for row in std::fs::read_dir(z.join("c")).unwrap() {
        let row = row.unwrap();
        for f in std::fs::read_dir(row.path()).unwrap() {
            files.push(format!("{}/{}", row.file_name().to_string_lossy(), f.unwrap().file_name().to_string_lossy()));
        }
    }
    files.sort();
    assert_eq!(files, ["0/0", "1/0", "2/0", "3/0", "4/0"], "complete chunks only, no temporaries");
    assert!(matches!(from_zarr::<f64>(dir.path(), "z"), Err(Error::Io { .. })), "refused while incomplete");
    // Resumed without the limit, the store completes to the same array.
    let resume =
        ZarrWriteOptions { mode: WriteMode::Resume, compression: Compression::Zstd { level: 1 }, ..Default::default() };
    let report = data().to_zarr(dir.path(), "z", &resume).unwrap();
    assert_eq!((report.chunks_skipped, report.chunks_written), (5, 5));
    assert_eq!(from_zarr::<f64>(dir.path(), "z").unwrap().compute().unwrap(), data().compute().unwrap());

    // .npy: no file, under its name or another.
    assert!(!dir.path().join("x.npy").exists());
    assert!(from_npy::<f64>(dir.path().join("x.npy"), 64).is_err());
    let stray: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains("x.npy"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");

    #[cfg(feature = "hdf5")]
    {
        // HDF5: the dataset is absent (a new file is removed on failure).
        let h5 = dir.path().join("x.h5");
        assert!(!h5.exists() || chunked_array::io::hdf5::from_hdf5::<f64>(&h5, "d").is_err());
    }
}
