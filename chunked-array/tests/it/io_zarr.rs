//! Zarr: round trips against the in-memory array, partial reads, write modes,
//! crash safety and bad input.

use crate::common;
use crate::support;

use std::path::Path;

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{
    BloscCompressor, BloscShuffleMode, Compression, INCOMPLETE_MARKER, Map, PENDING_METADATA, Value, ZarrReadOptions,
    ZarrWriteOptions, from_zarr, from_zarr_with,
};
use chunked_array::{Array, Context, Error, Idx};
use ndarray::ArrayD;
use proptest::prelude::*;
use support::TempDir;

fn overwrite() -> ZarrWriteOptions {
    ZarrWriteOptions { mode: WriteMode::Overwrite, ..Default::default() }
}

/// Distinct values that exercise every bit pattern class (negative, fractional).
fn values(shape: &[usize], chunks: Vec<Vec<usize>>) -> Array<f64> {
    Array::<f64>::from_fn(shape, chunks, |i| i.iter().fold(0.0, |acc, &x| acc * 31.0 + x as f64) * -0.37 + 0.125)
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Any shape and any (irregular) chunking round-trips exactly.
    #[test]
    fn round_trip_any_chunking((shape, chunks) in common::shape_chunks(3, 9)) {
        let dir = TempDir::new("prop");
        let x = values(&shape, chunks);
        let want = x.compute().unwrap();
        x.to_zarr(dir.path(), "a", &ZarrWriteOptions::default()).unwrap();
        let y = from_zarr::<f64>(dir.path(), "a").unwrap();
        prop_assert_eq!(y.shape(), shape);
        prop_assert_eq!(y.compute().unwrap(), want);
    }
}

#[test]
fn regular_chunks_are_stored_as_blocks_and_read_back_as_blocks() {
    let dir = TempDir::new("regular");
    let x = values(&[10, 7], vec![vec![4, 4, 2], vec![3, 3, 1]]);
    let report = x.to_zarr(dir.path(), "x", &ZarrWriteOptions::default()).unwrap();
    assert_eq!((report.chunks_written, report.chunks_skipped), (9, 0));
    assert!(report.bytes_written > 0);
    let meta: Value = serde_json(&dir.path().join("x/zarr.json"));
    assert_eq!(meta["chunk_grid"]["configuration"]["chunk_shape"], serde_json_value("[4, 3]"));
    let y = from_zarr::<f64>(dir.path(), "x").unwrap();
    assert_eq!(y.chunks(), x.chunks());
    assert_eq!(y.compute().unwrap(), x.compute().unwrap());
}

#[test]
fn irregular_chunks_are_rechunked_to_the_largest_block() {
    let dir = TempDir::new("irregular");
    let x = values(&[9, 5], vec![vec![2, 5, 2], vec![5]]);
    let report = x.to_zarr(dir.path(), "", &ZarrWriteOptions::default()).unwrap();
    assert_eq!(report.chunks_written, 2); // rows in 5 + 4
    let y = from_zarr::<f64>(dir.path(), "").unwrap();
    assert_eq!(y.chunks().lengths(), &[vec![5, 4], vec![5]]);
    assert_eq!(y.compute().unwrap(), x.compute().unwrap());
}

#[test]
fn requested_chunk_shape_rechunks() {
    let dir = TempDir::new("requested");
    let x = values(&[12, 12], vec![vec![12], vec![12]]);
    let opts = ZarrWriteOptions { chunks: Some(vec![5, 4]), ..Default::default() };
    assert_eq!(x.to_zarr(dir.path(), "x", &opts).unwrap().chunks_written, 9);
    let y = from_zarr::<f64>(dir.path(), "x").unwrap();
    assert_eq!(y.chunks().lengths(), &[vec![5, 5, 2], vec![4, 4, 4]]);
    assert_eq!(y.compute().unwrap(), x.compute().unwrap());
}

#[test]
fn every_element_type_round_trips() {
    let dir = TempDir::new("dtypes");
    let f = |i: &[usize]| (i[0] * 7 + i[1]) as f64 - 20.0;
    let x = Array::<f64>::from_fn(&[6, 7], [4, 3], f).unwrap();
    fn check<T: chunked_array::Element>(dir: &Path, name: &str, a: Array<T>) {
        a.to_zarr(dir, name, &ZarrWriteOptions::default()).unwrap();
        assert_eq!(from_zarr::<T>(dir, name).unwrap().compute().unwrap(), a.compute().unwrap(), "{name}");
    }
    check(dir.path(), "f32", x.astype::<f32>());
    check(dir.path(), "i32", x.astype::<i32>());
    check(dir.path(), "i64", x.astype::<i64>());
    check(dir.path(), "u8", x.map(|v| (v + 20.0) as u8));
    check(dir.path(), "bool", x.gt(0.0).unwrap());
}

#[test]
fn every_compression_round_trips() {
    let dir = TempDir::new("codecs");
    let x = values(&[33, 20], vec![vec![10, 10, 10, 3], vec![20]]);
    let want = x.compute().unwrap();
    let cases = [
        ("none", Compression::None, false),
        ("zstd", Compression::Zstd { level: 3 }, false),
        ("zstd-crc", Compression::Zstd { level: -1 }, true),
        (
            "blosc",
            Compression::Blosc { compressor: BloscCompressor::LZ4, level: 5, shuffle: BloscShuffleMode::Shuffle },
            false,
        ),
        (
            "blosc-zstd",
            Compression::Blosc { compressor: BloscCompressor::Zstd, level: 3, shuffle: BloscShuffleMode::BitShuffle },
            false,
        ),
        ("gzip", Compression::Gzip { level: 6 }, true),
    ];
    for (name, compression, checksum) in cases {
        let opts = ZarrWriteOptions { compression, checksum, ..Default::default() };
        x.to_zarr(dir.path(), name, &opts).unwrap();
        assert_eq!(from_zarr::<f64>(dir.path(), name).unwrap().compute().unwrap(), want, "{name}");
    }
}

#[test]
fn attributes_and_dimension_names_are_stored() {
    let dir = TempDir::new("attrs");
    let mut attributes = Map::new();
    attributes.insert("units".into(), Value::String("kelvin".into()));
    attributes.insert("scale".into(), Value::from(0.5));
    let opts =
        ZarrWriteOptions { attributes, dimension_names: Some(vec!["y".into(), "x".into()]), ..Default::default() };
    values(&[4, 4], vec![vec![4], vec![4]]).to_zarr(dir.path(), "t", &opts).unwrap();
    let meta = serde_json(&dir.path().join("t/zarr.json"));
    assert_eq!(meta["attributes"]["units"], Value::String("kelvin".into()));
    assert_eq!(meta["attributes"]["scale"], Value::from(0.5));
    assert_eq!(meta["dimension_names"], serde_json_value(r#"["y", "x"]"#));
    let bad = ZarrWriteOptions { dimension_names: Some(vec!["y".into()]), ..Default::default() };
    let err = values(&[4, 4], vec![vec![4], vec![4]]).to_zarr(dir.path(), "u", &bad).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { ref name, .. } if name == "dimension_names"), "{err}");
}

#[test]
fn a_slice_reads_only_the_chunks_it_touches() {
    let dir = TempDir::new("slice");
    let x = values(&[10, 10], vec![vec![2; 5], vec![2; 5]]);
    x.to_zarr(dir.path(), "x", &ZarrWriteOptions::default()).unwrap();
    // Corrupt every chunk but the two that x[1..3, 0..2] touches (c/0/0, c/1/0).
    for i in 0..5 {
        for j in 0..5 {
            if j != 0 || i > 1 {
                std::fs::write(dir.path().join(format!("x/c/{i}/{j}")), b"garbage").unwrap();
            }
        }
    }
    let y = from_zarr::<f64>(dir.path(), "x").unwrap();
    let part = y.slice([Idx::range(1, 3), Idx::range(0, 2)]).unwrap().compute().unwrap();
    let want = x.compute().unwrap();
    assert_eq!(part, want.slice(ndarray::s![1..3, 0..2]).into_dyn());
    // And reading a corrupted chunk names it.
    let err = y.compute().unwrap_err();
    let Error::Io { path, .. } = &err else { panic!("expected Error::Io, got {err}") };
    assert!(path.contains("x/c/") && std::path::Path::new(path).exists(), "{err}");
}

#[test]
fn reading_with_other_blocks_than_the_stored_chunks() {
    let dir = TempDir::new("reblock");
    let x = values(&[20, 9], vec![vec![4; 5], vec![3; 3]]);
    x.to_zarr(dir.path(), "x", &ZarrWriteOptions::default()).unwrap();
    let opts = ZarrReadOptions { chunks: Some([7, 5].into()), ..Default::default() };
    let y = from_zarr_with::<f64>(dir.path(), "x", &opts).unwrap();
    assert_eq!(y.chunks().lengths(), &[vec![7, 7, 6], vec![5, 4]]);
    assert_eq!(y.compute().unwrap(), x.compute().unwrap());
}

#[test]
fn write_modes() {
    let dir = TempDir::new("modes");
    let a = values(&[6, 6], vec![vec![3, 3], vec![6]]);
    let b = &a * 2.0;
    a.to_zarr(dir.path(), "m", &ZarrWriteOptions::default()).unwrap();
    let err = b.to_zarr(dir.path(), "m", &ZarrWriteOptions::default()).unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("already exists")), "{err}");
    assert_eq!(
        from_zarr::<f64>(dir.path(), "m").unwrap().compute().unwrap(),
        a.compute().unwrap(),
        "create mode must not touch data"
    );
    b.to_zarr(dir.path(), "m", &overwrite()).unwrap();
    assert_eq!(from_zarr::<f64>(dir.path(), "m").unwrap().compute().unwrap(), b.compute().unwrap());
    // Overwriting a different shape replaces the array entirely (no stale chunks).
    let c = values(&[2, 2], vec![vec![2], vec![2]]);
    c.to_zarr(dir.path(), "m", &overwrite()).unwrap();
    assert_eq!(from_zarr::<f64>(dir.path(), "m").unwrap().compute().unwrap(), c.compute().unwrap());
}

#[test]
fn overwrite_never_removes_what_is_not_a_zarr_array() {
    let dir = TempDir::new("notzarr");
    let precious = dir.path().join("data/notes.txt");
    std::fs::create_dir_all(precious.parent().unwrap()).unwrap();
    std::fs::write(&precious, "keep me").unwrap();
    let err = values(&[2], vec![vec![2]]).to_zarr(dir.path(), "data", &overwrite()).unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("not a Zarr array")), "{err}");
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
}

#[test]
fn bad_paths_and_types_are_errors() {
    let dir = TempDir::new("bad");
    let missing = dir.path().join("nope");
    let err = from_zarr::<f64>(&missing, "x").unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path.contains("nope")), "{err}");
    let err = from_zarr::<f64>(dir.path(), "x").unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("no Zarr array")), "{err}");
    values(&[3], vec![vec![3]]).to_zarr(dir.path(), "x", &ZarrWriteOptions::default()).unwrap();
    let err = from_zarr::<i32>(dir.path(), "x").unwrap_err();
    assert!(
        matches!(&err, Error::DtypeMismatch { expected, found, .. } if expected == "int32" && found.contains("float64")),
        "{err}"
    );
    let err = from_zarr::<f64>(dir.path(), "../x").unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    let err = values(&[3], vec![vec![3]]).to_zarr(
        dir.path(),
        "y",
        &ZarrWriteOptions { chunks: Some(vec![0]), ..Default::default() },
    );
    assert!(matches!(err, Err(Error::InvalidArgument { .. })));
}

#[test]
fn corrupt_and_truncated_chunks_are_errors_naming_the_chunk() {
    let dir = TempDir::new("corrupt");
    let x = values(&[8, 8], vec![vec![4, 4], vec![4, 4]]);
    for (name, compression) in [("zstd", Compression::Zstd { level: 0 }), ("raw", Compression::None)] {
        x.to_zarr(dir.path(), name, &ZarrWriteOptions { compression, ..Default::default() }).unwrap();
        let chunk = dir.path().join(format!("{name}/c/1/0"));
        let bytes = std::fs::read(&chunk).unwrap();
        std::fs::write(&chunk, &bytes[..bytes.len() / 2]).unwrap();
        let err = from_zarr::<f64>(dir.path(), name).unwrap().compute().unwrap_err();
        assert!(matches!(&err, Error::Io { path, .. } if path.ends_with(&format!("{name}/c/1/0"))), "{name}: {err}");
    }
    // A bit flip is caught when the chunks carry a checksum.
    x.to_zarr(
        dir.path(),
        "crc",
        &ZarrWriteOptions { compression: Compression::None, checksum: true, ..Default::default() },
    )
    .unwrap();
    let chunk = dir.path().join("crc/c/0/1");
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[3] ^= 0x10;
    std::fs::write(&chunk, &bytes).unwrap();
    let err = from_zarr::<f64>(dir.path(), "crc").unwrap().compute().unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path.ends_with("crc/c/0/1")), "{err}");
}

/// A store whose computation fails leaves the array marked incomplete (readers
/// refuse it); resuming writes only the missing chunks and gives the full array.
#[test]
fn failed_store_is_marked_incomplete_and_resumes() {
    let dir = TempDir::new("resume");
    let x = values(&[40, 10], vec![vec![4; 10], vec![10]]);
    let fails_on_block_7 = x
        .map_blocks(
            |b, info| {
                assert!(info.index[0] != 7, "injected failure");
                b.to_owned()
            },
            None,
        )
        .unwrap();
    let err = fails_on_block_7.to_zarr_on(dir.path(), "r", &ZarrWriteOptions::default(), &Context::sync()).unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert!(dir.path().join("r").join(INCOMPLETE_MARKER).exists());
    // Other Zarr clients find no array: its metadata waits under another name.
    assert!(!dir.path().join("r/zarr.json").exists() && dir.path().join("r").join(PENDING_METADATA).exists());
    let err = from_zarr::<f64>(dir.path(), "r").unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("interrupted")), "{err}");
    // The synchronous scheduler wrote blocks 0..7 before failing.
    let partial =
        from_zarr_with::<f64>(dir.path(), "r", &ZarrReadOptions { allow_incomplete: true, ..Default::default() })
            .unwrap();
    let got = partial.compute().unwrap();
    let want = x.compute().unwrap();
    assert_eq!(got.slice(ndarray::s![..28, ..]), want.slice(ndarray::s![..28, ..]));
    // Corrupt one finished chunk and leave a stray temporary file: resume must
    // verify, not assume.
    std::fs::write(dir.path().join("r/c/2/0"), b"junk").unwrap();
    std::fs::write(dir.path().join("r/c/.3.999-0.chunked-tmp"), b"partial").unwrap();
    let report =
        x.to_zarr(dir.path(), "r", &ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() }).unwrap();
    assert_eq!((report.chunks_skipped, report.chunks_written), (6, 4));
    assert!(!dir.path().join("r").join(INCOMPLETE_MARKER).exists());
    assert!(dir.path().join("r/zarr.json").exists() && !dir.path().join("r").join(PENDING_METADATA).exists());
    assert!(!dir.path().join("r/c/.3.999-0.chunked-tmp").exists());
    assert_eq!(from_zarr::<f64>(dir.path(), "r").unwrap().compute().unwrap(), want);
    // Resuming a complete store writes nothing.
    let again =
        x.to_zarr(dir.path(), "r", &ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() }).unwrap();
    assert_eq!((again.chunks_skipped, again.chunks_written), (10, 0));
}

#[test]
fn resume_refuses_a_different_layout() {
    let dir = TempDir::new("resume-layout");
    values(&[8, 8], vec![vec![4, 4], vec![8]]).to_zarr(dir.path(), "r", &ZarrWriteOptions::default()).unwrap();
    let resume = ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() };
    let err = values(&[9, 8], vec![vec![4, 4, 1], vec![8]]).to_zarr(dir.path(), "r", &resume).unwrap_err();
    assert!(
        matches!(&err, Error::Io { message, .. } if message.contains("cannot resume") && message.contains("[9, 8]")),
        "{err}"
    );
    let err = values(&[8, 8], vec![vec![2; 4], vec![8]]).to_zarr(dir.path(), "r", &resume).unwrap_err();
    assert!(matches!(&err, Error::Io { message, .. } if message.contains("cannot resume")), "{err}");
    // Untouched by the refused stores.
    assert_eq!(
        from_zarr::<f64>(dir.path(), "r").unwrap().compute().unwrap(),
        values(&[8, 8], vec![vec![8], vec![8]]).compute().unwrap()
    );
}

/// A full disk: a 1 MiB tmpfs when we may mount one (root), else a read-only
/// directory. The store fails naming a chunk, no chunk file is truncated, the
/// array stays marked incomplete.
#[test]
fn full_disk_is_an_error_and_leaves_nothing_that_looks_complete() {
    let dir = TempDir::new("full");
    let mnt = dir.path().join("small");
    std::fs::create_dir_all(&mnt).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&mnt)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    struct Unmount<'a>(&'a Path, bool);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            if self.1 {
                let _ = std::process::Command::new("umount").arg(self.0).status();
            }
        }
    }
    let _guard = Unmount(&mnt, mounted);
    // 4 MiB of incompressible data: does not fit in 1 MiB.
    let x: Array<f64> = chunked_array::random::RandomState::new(3).uniform(&[512, 1024], [64, 1024]).unwrap();
    let opts = ZarrWriteOptions { compression: Compression::None, ..Default::default() };
    if !mounted {
        eprintln!("cannot mount a tmpfs (not root): testing a read-only directory instead of a full disk");
        set_readonly(&mnt, true);
        let result = x.to_zarr(&mnt, "big", &opts);
        set_readonly(&mnt, false);
        let err = result.unwrap_err();
        assert!(matches!(&err, Error::Io { path, .. } if path.contains("small")), "{err}");
        assert!(!mnt.join("big/zarr.json").exists());
        return;
    }
    let err = x.to_zarr_on(&mnt, "big", &opts, &Context::threads(2)).unwrap_err();
    let Error::Io { path, .. } = &err else { panic!("expected Error::Io, got {err}") };
    assert!(path.contains("big/c/"), "{err}");
    assert!(mnt.join("big").join(INCOMPLETE_MARKER).exists());
    assert!(matches!(from_zarr::<f64>(&mnt, "big"), Err(Error::Io { .. })));
    // Every chunk present is complete: an incomplete read decodes all of them.
    let partial =
        from_zarr_with::<f64>(&mnt, "big", &ZarrReadOptions { allow_incomplete: true, ..Default::default() }).unwrap();
    let got = partial.compute().unwrap();
    let want = x.compute().unwrap();
    let block = ndarray::IxDyn(&[64, 1024]);
    let mut stored = 0;
    for (b, (g, w)) in got.exact_chunks(block.clone()).into_iter().zip(want.exact_chunks(block)).enumerate() {
        if mnt.join(format!("big/c/{b}/0")).exists() {
            stored += 1;
            assert_eq!(g, w, "chunk {b}");
        }
    }
    assert!((1..8).contains(&stored), "{stored} chunks of 512 kiB stored in 1 MiB");
    assert_eq!(stray_temporaries(&mnt.join("big")), 0);
}

fn stray_temporaries(dir: &Path) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            n += stray_temporaries(&p);
        } else if p.to_string_lossy().ends_with(".chunked-tmp") {
            n += 1;
        }
    }
    n
}

fn set_readonly(p: &Path, ro: bool) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(if ro { 0o555 } else { 0o755 })).unwrap();
}

fn serde_json(path: &Path) -> Value {
    serde_json_value(&std::fs::read_to_string(path).unwrap())
}

fn serde_json_value(text: &str) -> Value {
    // serde_json is re-exported through Value's own parser.
    text.parse::<Value>().unwrap()
}

#[test]
fn stores_stream_blocks() {
    // 32 blocks of 64 kiB: a streaming store holds a handful at a time.
    let dir = TempDir::new("stream");
    let x: Array<f64> = chunked_array::random::RandomState::new(5).standard_normal(&[256, 1024], [8, 1024]).unwrap();
    let report = (&x * 2.0).to_zarr_on(dir.path(), "s", &ZarrWriteOptions::default(), &Context::threads(2)).unwrap();
    assert_eq!(report.chunks_written, 32);
    let block = 8 * 1024 * 8;
    assert!(
        report.stats.tiers.peak_bytes <= 6 * block,
        "peak {} bytes for {} bytes blocks",
        report.stats.tiers.peak_bytes,
        block
    );
    let back: ArrayD<f64> = from_zarr::<f64>(dir.path(), "s").unwrap().compute().unwrap();
    assert_eq!(back, (&x * 2.0).compute().unwrap());
}
