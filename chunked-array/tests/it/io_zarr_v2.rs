//! Zarr v2 writes (every element type, every compression, attributes,
//! dimension names, resuming, overwriting) and fill values in both formats.

use crate::support;

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{
    BloscCompressor, BloscShuffleMode, Compression, ShardingOptions, Value, ZarrFormat, ZarrReadOptions,
    ZarrRegionOptions, ZarrWriteOptions, create_zarr, from_zarr, zarr_info,
};
use chunked_array::{Array, Complex32, Complex64, DType, Element, Error};
use ndarray::ArrayD;
use support::TempDir;

const SHAPE: [usize; 2] = [13, 7];

fn v2() -> ZarrWriteOptions {
    ZarrWriteOptions { zarr_format: ZarrFormat::V2, ..Default::default() }
}

/// The fixtures' values: flat index - 40.
fn flat(i: &[usize]) -> i64 {
    (i[0] * SHAPE[1] + i[1]) as i64 - 40
}

/// Writes `x` as Zarr v2 under `name`, checks the files zarr-python 2 expects
/// and that it reads back exactly.
fn round_trip<T: Element + PartialEq + std::fmt::Debug>(dir: &std::path::Path, name: &str, x: &Array<T>) {
    x.to_zarr(dir, name, &v2()).unwrap();
    let folder = dir.join(name);
    assert!(folder.join(".zarray").is_file() && !folder.join("zarr.json").exists(), "{name}");
    assert!(folder.join("0.0").is_file() && folder.join("2.1").is_file(), "{name}: '.'-separated chunk keys");
    let zarray: Value = serde_json::from_slice(&std::fs::read(folder.join(".zarray")).unwrap()).unwrap();
    assert_eq!(zarray["zarr_format"], 2);
    assert_eq!(zarray["chunks"], serde_json::json!([5, 4]));
    let want: ArrayD<T> = x.compute().unwrap();
    assert_eq!(from_zarr::<T>(dir, name).unwrap().compute().unwrap(), want, "{name}");
}

#[test]
fn every_element_type_round_trips_as_zarr_v2() {
    let dir = TempDir::new("zarr-v2-dtypes");
    let d = dir.path();
    round_trip(d, "i1", &Array::<i8>::from_fn(&SHAPE, [5, 4], |i| flat(i) as i8).unwrap());
    round_trip(d, "i2", &Array::<i16>::from_fn(&SHAPE, [5, 4], |i| (flat(i) * 300) as i16).unwrap());
    round_trip(d, "i4", &Array::<i32>::from_fn(&SHAPE, [5, 4], |i| flat(i) as i32 * 70_000).unwrap());
    round_trip(d, "i8", &Array::<i64>::from_fn(&SHAPE, [5, 4], |i| flat(i) << 40).unwrap());
    round_trip(d, "u1", &Array::<u8>::from_fn(&SHAPE, [5, 4], |i| (flat(i) + 40) as u8).unwrap());
    round_trip(d, "u2", &Array::<u16>::from_fn(&SHAPE, [5, 4], |i| (flat(i) + 40) as u16 * 600).unwrap());
    round_trip(d, "u4", &Array::<u32>::from_fn(&SHAPE, [5, 4], |i| (flat(i) + 40) as u32 * 40_000_000).unwrap());
    round_trip(d, "u8", &Array::<u64>::from_fn(&SHAPE, [5, 4], |i| ((flat(i) + 40) as u64) << 56).unwrap());
    round_trip(d, "f4", &Array::<f32>::from_fn(&SHAPE, [5, 4], |i| flat(i) as f32 * -0.37).unwrap());
    round_trip(d, "f8", &Array::<f64>::from_fn(&SHAPE, [5, 4], |i| flat(i) as f64 * -0.37 + 0.125).unwrap());
    let c8 = Array::<Complex32>::from_fn(&SHAPE, [5, 4], |i| Complex32::new(flat(i) as f32, -0.5)).unwrap();
    round_trip(d, "c8", &c8);
    let c16 = Array::<Complex64>::from_fn(&SHAPE, [5, 4], |i| Complex64::new(0.25, flat(i) as f64)).unwrap();
    round_trip(d, "c16", &c16);
    round_trip(d, "b1", &Array::<bool>::from_fn(&SHAPE, [5, 4], |i| flat(i) % 3 == 0).unwrap());
    let dtype = |name: &str| {
        let zarray: Value = serde_json::from_slice(&std::fs::read(d.join(name).join(".zarray")).unwrap()).unwrap();
        zarray["dtype"].as_str().unwrap().to_string()
    };
    assert_eq!(
        ["i1", "u2", "c16", "b1"].map(dtype),
        ["|i1", "<u2", "<c16", "|b1"].map(String::from),
        "NumPy's type strings"
    );
}

#[test]
fn every_compression_attributes_and_dimension_names_in_zarr_v2() {
    let dir = TempDir::new("zarr-v2-codecs");
    let x = Array::<f64>::from_fn(&[40, 30], [16, 30], |i| ((i[0] * 30 + i[1]) % 17) as f64).unwrap();
    let blosc =
        Compression::Blosc { compressor: BloscCompressor::Zstd, level: 5, shuffle: BloscShuffleMode::BitShuffle };
    let cases = [
        ("none", Compression::None, Value::Null),
        ("zstd", Compression::Zstd { level: 3 }, serde_json::json!({"id": "zstd", "level": 3})),
        ("gzip", Compression::Gzip { level: 5 }, serde_json::json!({"id": "gzip", "level": 5})),
        (
            "blosc",
            blosc,
            serde_json::json!({"id": "blosc", "cname": "zstd", "clevel": 5, "shuffle": 2, "blocksize": 0}),
        ),
    ];
    for (name, compression, compressor) in cases {
        let mut options = ZarrWriteOptions { compression, dimension_names: Some(vec!["y".into(), "x".into()]), ..v2() };
        options.attributes.insert("units".into(), Value::from("m"));
        let report = x.to_zarr(dir.path(), name, &options).unwrap();
        assert_eq!(report.chunks_written, 3, "{name}");
        let read = |file: &str| -> Value {
            serde_json::from_slice(&std::fs::read(dir.path().join(name).join(file)).unwrap()).unwrap()
        };
        assert_eq!(read(".zarray")["compressor"], compressor, "{name}");
        assert!(read(".zarray").get("attributes").is_none(), "{name}: attributes live in .zattrs");
        let mut zattrs = read(".zattrs");
        zattrs.as_object_mut().unwrap().remove("_zarrs"); // zarrs' own note of the writer
        assert_eq!(zattrs, serde_json::json!({"units": "m", "_ARRAY_DIMENSIONS": ["y", "x"]}), "{name}");
        assert_eq!(from_zarr::<f64>(dir.path(), name).unwrap().compute().unwrap(), x.compute().unwrap(), "{name}");
        let info = zarr_info(dir.path(), name, &ZarrReadOptions::default()).unwrap();
        assert_eq!((info.zarr_format, info.attributes["units"].as_str()), (2, Some("m")));
        assert_eq!(info.dimension_names, Some(vec![Some("y".to_string()), Some("x".to_string())]));
    }
}

#[test]
fn zarr_v2_refuses_what_it_cannot_store_and_writes_nothing() {
    let dir = TempDir::new("zarr-v2-refused");
    let x = Array::<f64>::ones(&[8], 4).unwrap();
    let sharded =
        ZarrWriteOptions { sharding: Some(ShardingOptions { inner_chunks: vec![2], index_at_start: false }), ..v2() };
    let checksum = ZarrWriteOptions { checksum: true, ..v2() };
    let names = ZarrWriteOptions { dimension_names: Some(vec!["a".into(), "b".into()]), ..v2() };
    for (name, options, offending) in
        [("s", sharded, "sharding"), ("c", checksum, "checksum"), ("n", names, "dimension_names")]
    {
        match x.to_zarr(dir.path(), name, &options) {
            Err(Error::InvalidArgument { name: n, .. }) => assert_eq!(n, offending),
            other => panic!("{name}: {other:?}"),
        }
        assert!(!dir.path().join(name).exists(), "{name}: nothing written");
    }
}

#[test]
fn zarr_v2_stores_resume_and_formats_overwrite_each_other() {
    let dir = TempDir::new("zarr-v2-resume");
    let x = Array::<i32>::from_fn(&[12, 6], [3, 6], |i| (i[0] * 6 + i[1]) as i32).unwrap();
    let mut attributed = v2();
    attributed.attributes.insert("run".into(), Value::from(1));
    x.to_zarr(dir.path(), "r", &attributed).unwrap();
    for lost in ["1.0", "3.0"] {
        std::fs::remove_file(dir.path().join("r").join(lost)).unwrap();
    }
    let resume = ZarrWriteOptions { mode: WriteMode::Resume, ..v2() };
    let report = x.to_zarr(dir.path(), "r", &resume).unwrap();
    assert_eq!((report.chunks_written, report.chunks_skipped), (2, 2));
    assert_eq!(from_zarr::<i32>(dir.path(), "r").unwrap().compute().unwrap(), x.compute().unwrap());
    let zattrs: Value = serde_json::from_slice(&std::fs::read(dir.path().join("r/.zattrs")).unwrap()).unwrap();
    assert!(zattrs.get("run").is_none(), "the resumed store's metadata (without the attribute) replaces the old");

    // Resuming in the other format is refused; the array stays.
    let resume_v3 = ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() };
    let err = x.to_zarr(dir.path(), "r", &resume_v3).unwrap_err().to_string();
    assert!(err.contains("Zarr v2") && err.contains("Zarr v3"), "{err}");
    assert!(dir.path().join("r/.zarray").is_file());

    // Overwrites replace one format with the other, leaving no file behind.
    let y = &x * 2;
    y.to_zarr(dir.path(), "r", &ZarrWriteOptions { mode: WriteMode::Overwrite, ..Default::default() }).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("r"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["c", "zarr.json"]);
    x.to_zarr(dir.path(), "r", &ZarrWriteOptions { mode: WriteMode::Overwrite, ..v2() }).unwrap();
    assert!(!dir.path().join("r/zarr.json").exists() && !dir.path().join("r/c").exists());
    assert_eq!(from_zarr::<i32>(dir.path(), "r").unwrap().compute().unwrap(), x.compute().unwrap());
}

#[test]
fn fill_values_fill_unwritten_chunks_in_both_formats() {
    let dir = TempDir::new("zarr-fill");
    let part = Array::<f64>::ones(&[2, 4], 2).unwrap();
    for format in [ZarrFormat::V2, ZarrFormat::V3] {
        let name = format!("{format:?}");
        let options =
            ZarrWriteOptions { zarr_format: format, fill_value: Some(Value::from("NaN")), ..Default::default() };
        create_zarr::<f64>(dir.path(), &name, &[6, 4], &[2, 4], &options).unwrap();
        part.to_zarr_region(dir.path(), &name, &[2..4, 0..4], &ZarrRegionOptions::default()).unwrap();
        let t = from_zarr::<f64>(dir.path(), &name).unwrap().compute().unwrap();
        for ((r, _), v) in t.indexed_iter().map(|(i, v)| ((i[0], i[1]), *v)) {
            assert!(if (2..4).contains(&r) { v == 1.0 } else { v.is_nan() }, "{name}: row {r} holds {v}");
        }
    }
    let cases: [(&str, Value, DType); 3] = [
        ("i", Value::from(-7), DType::I32),
        ("u", Value::from(200), DType::U8),
        ("c", serde_json::json!([1.5, "-Infinity"]), DType::Complex128),
    ];
    for (name, fill, dtype) in cases {
        let options = ZarrWriteOptions { fill_value: Some(fill.clone()), ..v2() };
        match dtype {
            DType::I32 => {
                create_zarr::<i32>(dir.path(), name, &[3], &[3], &options).unwrap();
                assert_eq!(
                    from_zarr::<i32>(dir.path(), name).unwrap().compute().unwrap().into_raw_vec_and_offset().0,
                    [-7; 3]
                );
            }
            DType::U8 => {
                create_zarr::<u8>(dir.path(), name, &[3], &[3], &options).unwrap();
                assert_eq!(
                    from_zarr::<u8>(dir.path(), name).unwrap().compute().unwrap().into_raw_vec_and_offset().0,
                    [200; 3]
                );
            }
            _ => {
                create_zarr::<Complex64>(dir.path(), name, &[3], &[3], &options).unwrap();
                let got = from_zarr::<Complex64>(dir.path(), name).unwrap().compute().unwrap();
                assert_eq!(got.into_raw_vec_and_offset().0, [Complex64::new(1.5, f64::NEG_INFINITY); 3]);
            }
        }
    }
}

#[test]
fn fill_values_that_do_not_fit_the_type_are_refused() {
    let dir = TempDir::new("zarr-fill-bad");
    let bad = [(Value::from(1.5), "i"), (Value::from(300), "u"), (Value::from("abc"), "f"), (Value::from(true), "f2")];
    for (fill, name) in bad {
        for format in [ZarrFormat::V2, ZarrFormat::V3] {
            let options =
                ZarrWriteOptions { zarr_format: format, fill_value: Some(fill.clone()), ..Default::default() };
            let result = match name {
                "i" => create_zarr::<i32>(dir.path(), name, &[4], &[2], &options),
                "u" => create_zarr::<u8>(dir.path(), name, &[4], &[2], &options),
                _ => create_zarr::<f64>(dir.path(), name, &[4], &[2], &options),
            };
            match result {
                Err(Error::InvalidArgument { name: n, value, .. }) => {
                    assert_eq!(n, "fill_value");
                    assert!(value.contains(&fill.to_string().trim_matches('"').to_string()), "{value} names {fill}");
                }
                other => panic!("{name} {fill} {format:?}: {other:?}"),
            }
            assert!(!dir.path().join(name).exists(), "{name}: nothing written");
        }
    }
}
