//! Several targets stored in one run: shared work done once, every format
//! finished on success and cleaned up on failure.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chunked_array::io::npy::from_npy;
use chunked_array::io::zarr::{INCOMPLETE_MARKER, ZarrWriteOptions, from_zarr};
use chunked_array::io::{Store, WriteMode};
use chunked_array::{Array, Context, Error};
use support::TempDir;

/// An array whose blocks count how often they are computed.
fn counted(calls: &Arc<AtomicUsize>) -> Array<f64> {
    let calls = calls.clone();
    Array::<f64>::from_fn(&[60, 8], [10, 8], |i| (i[0] * 8 + i[1]) as f64 * 0.5)
        .unwrap()
        .map_blocks(
            move |b, _| {
                calls.fetch_add(1, Ordering::Relaxed);
                b.to_owned()
            },
            None,
        )
        .unwrap()
}

#[test]
fn shared_work_is_done_once_for_all_targets() {
    let dir = TempDir::new("store-multi");
    let calls = Arc::new(AtomicUsize::new(0));
    let x = counted(&calls);
    let mut store = Store::new();
    store.zarr(&(&x * 2.0), dir.path(), "twice", &ZarrWriteOptions::default()).unwrap();
    store.npy(&(&x + 1.0), dir.path().join("plus1.npy"), WriteMode::Create).unwrap();
    #[cfg(feature = "hdf5")]
    store
        .hdf5(&(&x - 1.0), dir.path().join("f.h5"), "minus1", &chunked_array::io::hdf5::Hdf5WriteOptions::default())
        .unwrap();
    let reports = store.run_on(&Context::threads(2)).unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 6, "each block of x computed once for all targets");
    assert!(reports.iter().all(|r| r.chunks_written == 6));
    assert_eq!(from_zarr::<f64>(dir.path(), "twice").unwrap().compute().unwrap(), (&x * 2.0).compute().unwrap());
    assert_eq!(
        from_npy::<f64>(dir.path().join("plus1.npy"), 7).unwrap().compute().unwrap(),
        (&x + 1.0).compute().unwrap()
    );
    #[cfg(feature = "hdf5")]
    assert_eq!(
        chunked_array::io::hdf5::from_hdf5::<f64>(dir.path().join("f.h5"), "minus1").unwrap().compute().unwrap(),
        (&x - 1.0).compute().unwrap()
    );
}

#[test]
fn a_failed_run_leaves_each_format_as_documented() {
    let dir = TempDir::new("store-fail");
    let x = Array::<f64>::from_fn(&[60, 8], [10, 8], |i| i[0] as f64).unwrap();
    let bad = x
        .map_blocks(
            |b, info| {
                assert!(info.index[0] != 4, "injected failure");
                b.to_owned()
            },
            None,
        )
        .unwrap();
    let mut store = Store::new();
    store.zarr(&bad, dir.path(), "z", &ZarrWriteOptions::default()).unwrap();
    store.npy(&bad, dir.path().join("n.npy"), WriteMode::Create).unwrap();
    #[cfg(feature = "hdf5")]
    store.hdf5(&bad, dir.path().join("f.h5"), "d", &chunked_array::io::hdf5::Hdf5WriteOptions::default()).unwrap();
    let err = store.run().unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    // Zarr: marked incomplete, resumable.
    assert!(dir.path().join("z").join(INCOMPLETE_MARKER).exists());
    assert!(matches!(from_zarr::<f64>(dir.path(), "z"), Err(Error::Io { .. })));
    let report =
        x.to_zarr(dir.path(), "z", &ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() }).unwrap();
    assert_eq!(report.chunks_skipped + report.chunks_written, 6);
    assert_eq!(from_zarr::<f64>(dir.path(), "z").unwrap().compute().unwrap(), x.compute().unwrap());
    // .npy: no file, no temporary.
    assert!(!dir.path().join("n.npy").exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".chunked-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // HDF5: no dataset, no temporary dataset.
    #[cfg(feature = "hdf5")]
    assert!(hdf5::File::open(dir.path().join("f.h5")).unwrap().member_names().unwrap().is_empty());
}

#[test]
fn a_store_dropped_unrun_removes_its_temporaries() {
    let dir = TempDir::new("store-drop");
    let x = Array::<f64>::ones(&[10], 5).unwrap();
    let mut store = Store::new();
    store.npy(&x, dir.path().join("a.npy"), WriteMode::Create).unwrap();
    // A second target that fails to prepare: the first is cleaned up with the store.
    std::fs::write(dir.path().join("b.npy"), b"exists").unwrap();
    assert!(matches!(store.npy(&x, dir.path().join("b.npy"), WriteMode::Create), Err(Error::Io { .. })));
    assert_eq!(store.len(), 1);
    drop(store);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["b.npy".to_string()]);
}
