//! Zarr stores written by others are hostile input: each case below is a file
//! an attacker or a broken writer could leave (planted symlinks, huge or
//! negative sizes, decompression bombs, wrong types), and each must end in an
//! `Err` naming the file, without a panic and without allocating past its
//! chunk's size.

use std::io::Write;
use std::path::{Path, PathBuf};

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{
    Compression, ShardingOptions, ZarrReadOptions, ZarrWriteOptions, from_zarr, from_zarr_with,
};
use chunked_array::{Array, ChunkSpec, Error};

use crate::support::TempDir;

/// A 64-element f64 array in chunks of 16, stored with `compression` as `name`.
fn stored(dir: &Path, name: &str, compression: Compression) -> PathBuf {
    let x = Array::<f64>::from_fn(&[64], 16, |i| i[0] as f64 * 0.5 - 3.0).unwrap();
    x.to_zarr(dir, name, &ZarrWriteOptions { compression, ..Default::default() }).unwrap();
    dir.join(name)
}

/// The error of reading and computing `name`, with its message.
fn read_error(dir: &Path, name: &str) -> String {
    let err = match from_zarr::<f64>(dir, name) {
        Err(e) => e,
        Ok(a) => a.compute().expect_err("a hostile store read back without an error"),
    };
    assert!(matches!(err, Error::Io { .. } | Error::InvalidArgument { .. } | Error::DtypeMismatch { .. }), "{err}");
    err.to_string()
}

/// Checks that `name` fails with a message naming its chunk `c/2` and
/// holding `expect`, read in its stored chunks and again in `blocks`-element
/// blocks that cut them.
fn fails_whole_and_in_blocks(dir: &Path, name: &str, blocks: usize, what: &str, expect: &str) {
    let message = read_error(dir, name);
    assert!(message.contains(expect) && message.contains(&format!("{name}/c/2")), "{what}: {message}");
    println!("{what}: {message}");
    let other = ZarrReadOptions { chunks: Some(ChunkSpec::from(blocks)), ..Default::default() };
    let err = from_zarr_with::<f64>(dir, name, &other).and_then(|a| a.compute()).unwrap_err();
    assert!(err.to_string().contains(expect), "{what}, in blocks of {blocks}: {err}");
    println!("{what}, in blocks of {blocks}: {err}");
}

/// Rewrites the array's zarr.json through `edit` on its JSON text.
fn edit_metadata(array: &Path, edit: impl Fn(&str) -> String) {
    let path = array.join("zarr.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, edit(&text)).unwrap();
}

fn json(array: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(array.join("zarr.json")).unwrap()).unwrap()
}

fn set_json(array: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let mut v = json(array);
    edit(&mut v);
    std::fs::write(array.join("zarr.json"), serde_json::to_vec(&v).unwrap()).unwrap();
}

#[test]
fn hostile_metadata_files_are_errors() {
    let dir = TempDir::new("hostile-meta");
    let big = 1u64 << 40;
    type Edit = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "symlink to /dev/zero",
            Box::new(|a: &Path| {
                std::fs::remove_file(a.join("zarr.json")).unwrap();
                std::os::unix::fs::symlink("/dev/zero", a.join("zarr.json")).unwrap();
            }),
            "not a regular file",
        ),
        (
            "17 MiB of metadata",
            Box::new(|a: &Path| edit_metadata(a, |t| format!("{t}{}", " ".repeat(17 << 20)))),
            "more than",
        ),
        (
            "a directory named zarr.json",
            Box::new(|a: &Path| {
                std::fs::remove_file(a.join("zarr.json")).unwrap();
                std::fs::create_dir(a.join("zarr.json")).unwrap();
            }),
            "not a regular file",
        ),
        (
            "2^40 chunks of one element",
            Box::new(move |a: &Path| {
                set_json(a, |v| {
                    v["shape"] = serde_json::json!([big]);
                    v["chunk_grid"]["configuration"]["chunk_shape"] = serde_json::json!([1]);
                })
            }),
            "chunk grid",
        ),
        (
            "one chunk of 2^62 elements",
            Box::new(|a: &Path| {
                set_json(a, |v| {
                    v["shape"] = serde_json::json!([1u64 << 62]);
                    v["chunk_grid"]["configuration"]["chunk_shape"] = serde_json::json!([1u64 << 62]);
                })
            }),
            "",
        ),
        ("a negative shape", Box::new(|a: &Path| set_json(a, |v| v["shape"] = serde_json::json!([-1]))), ""),
        (
            "a chunk shape of 0",
            Box::new(|a: &Path| {
                set_json(a, |v| v["chunk_grid"]["configuration"]["chunk_shape"] = serde_json::json!([0]))
            }),
            "",
        ),
        ("not JSON", Box::new(|a: &Path| edit_metadata(a, |_| "{ not json".into())), ""),
        ("truncated JSON", Box::new(|a: &Path| edit_metadata(a, |t| t[..t.len() / 2].to_string())), ""),
        ("an empty file", Box::new(|a: &Path| edit_metadata(a, |_| String::new())), ""),
        (
            "an unknown data type",
            Box::new(|a: &Path| set_json(a, |v| v["data_type"] = serde_json::json!("float128"))),
            "",
        ),
        (
            "a fill value of the wrong type",
            Box::new(|a: &Path| set_json(a, |v| v["fill_value"] = serde_json::json!("abc"))),
            "",
        ),
        (
            "an unknown codec",
            Box::new(|a: &Path| set_json(a, |v| v["codecs"] = serde_json::json!([{"name": "bogus"}]))),
            "",
        ),
        (
            "another element type",
            Box::new(|a: &Path| set_json(a, |v| v["data_type"] = serde_json::json!("int32"))),
            "int32",
        ),
        (
            "a group's metadata",
            Box::new(|a: &Path| {
                std::fs::write(a.join("zarr.json"), r#"{"zarr_format":3,"node_type":"group"}"#).unwrap()
            }),
            "",
        ),
        (
            "two dimensions of shape against one of chunks",
            Box::new(|a: &Path| set_json(a, |v| v["shape"] = serde_json::json!([8, 8]))),
            "",
        ),
    ];
    for (i, (what, edit, expect)) in cases.iter().enumerate() {
        let name = format!("m{i}");
        let array = stored(dir.path(), &name, Compression::None);
        edit(&array);
        let message = read_error(dir.path(), &name);
        assert!(message.contains(expect), "{what}: {message}");
        println!("{what}: {message}");
    }
}

/// A zstd frame whose header declares `size` decompressed bytes (and holds one
/// raw byte): what zarrs would allocate in one piece.
fn zstd_frame_declaring(size: u64) -> Vec<u8> {
    let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
    frame.extend_from_slice(&size.to_le_bytes());
    frame.extend_from_slice(&[0x09, 0x00, 0x00, 0x00]); // last raw block of one byte
    frame
}

fn zeros_compressed(kind: &str, bytes: usize) -> Vec<u8> {
    let zeros = vec![0u8; 1 << 20];
    match kind {
        "gzip" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            (0..bytes >> 20).for_each(|_| e.write_all(&zeros).unwrap());
            e.finish().unwrap()
        }
        _ => {
            // A streamed frame: no decompressed size in its header.
            let mut e = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
            (0..bytes >> 20).for_each(|_| e.write_all(&zeros).unwrap());
            e.finish().unwrap()
        }
    }
}

#[test]
fn hostile_chunk_files_are_errors() {
    let dir = TempDir::new("hostile-chunks");
    let blosc = Compression::Blosc {
        compressor: chunked_array::io::zarr::BloscCompressor::LZ4,
        level: 5,
        shuffle: chunked_array::io::zarr::BloscShuffleMode::Shuffle,
    };
    let mut blosc_header = vec![2u8, 1, 1, 8];
    blosc_header.extend_from_slice(&(1u32 << 31).to_le_bytes());
    blosc_header.extend_from_slice(&[0; 8]);
    type Plant = Box<dyn Fn(&Path)>;
    let write = |bytes: Vec<u8>| -> Plant { Box::new(move |c: &Path| std::fs::write(c, &bytes).unwrap()) };
    let cases: Vec<(&str, Compression, Plant, &str)> = vec![
        (
            "symlink to /dev/zero",
            Compression::None,
            Box::new(|c: &Path| {
                std::fs::remove_file(c).unwrap();
                std::os::unix::fs::symlink("/dev/zero", c).unwrap();
            }),
            "not a regular file",
        ),
        (
            "a directory as a chunk",
            Compression::None,
            Box::new(|c: &Path| {
                std::fs::remove_file(c).unwrap();
                std::fs::create_dir(c).unwrap();
            }),
            "not a regular file",
        ),
        ("10 MiB for a 128-byte chunk", Compression::None, write(vec![7; 10 << 20]), "bytes for a chunk of 128 bytes"),
        ("a truncated raw chunk", Compression::None, write(vec![1; 100]), ""),
        ("an empty raw chunk", Compression::None, write(Vec::new()), ""),
        (
            "a zstd frame declaring 2^40 bytes",
            Compression::Zstd { level: 3 },
            write(zstd_frame_declaring(1 << 40)),
            "decompresses (zstd)",
        ),
        (
            "a zstd frame declaring 2^64-1 bytes",
            Compression::Zstd { level: 3 },
            write(zstd_frame_declaring(u64::MAX)),
            "",
        ),
        (
            "a zstd stream of 16 MiB of zeros",
            Compression::Zstd { level: 3 },
            write(zeros_compressed("zstd", 16 << 20)),
            "decompresses (zstd)",
        ),
        ("zstd garbage", Compression::Zstd { level: 3 }, write(vec![0xAB; 300]), ""),
        (
            "a gzip bomb of 8 MiB of zeros",
            Compression::Gzip { level: 6 },
            write(zeros_compressed("gzip", 8 << 20)),
            "decompresses (gzip)",
        ),
        (
            "gzip garbage",
            Compression::Gzip { level: 6 },
            write(vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]),
            "gzip",
        ),
        ("a blosc header declaring 2 GiB", blosc, write(blosc_header.clone()), "decompresses (blosc)"),
        ("a 3-byte blosc chunk", blosc, write(vec![2, 1, 1]), ""),
    ];
    for (i, (what, compression, plant, expect)) in cases.into_iter().enumerate() {
        let name = format!("c{i}");
        let array = stored(dir.path(), &name, compression);
        plant(&array.join("c/2"));
        // Blocks other than the stored chunks read through the same checks.
        fails_whole_and_in_blocks(dir.path(), &name, 24, what, expect);
    }
}

#[test]
fn overwrite_never_removes_a_group_or_a_stranger_file() {
    let dir = TempDir::new("hostile-overwrite");
    let x = Array::<f64>::from_fn(&[4], 2, |i| i[0] as f64).unwrap();
    let overwrite = ZarrWriteOptions { mode: WriteMode::Overwrite, ..Default::default() };
    // A v3 group at the root with an array inside.
    std::fs::write(dir.path().join("zarr.json"), r#"{"zarr_format":3,"node_type":"group","attributes":{}}"#).unwrap();
    x.to_zarr(dir.path(), "inner", &ZarrWriteOptions::default()).unwrap();
    let err = x.to_zarr(dir.path(), "", &overwrite).unwrap_err();
    assert!(err.to_string().contains("group"), "{err}");
    assert_eq!(from_zarr::<f64>(dir.path(), "inner").unwrap().compute().unwrap(), x.compute().unwrap());
    // A v2 group.
    std::fs::create_dir_all(dir.path().join("v2")).unwrap();
    std::fs::write(dir.path().join("v2/.zgroup"), r#"{"zarr_format":2}"#).unwrap();
    let err = x.to_zarr(dir.path(), "v2", &overwrite).unwrap_err();
    assert!(err.to_string().contains("group") && dir.path().join("v2/.zgroup").exists(), "{err}");
    // An array directory with a file of someone else's.
    x.to_zarr(dir.path(), "a", &ZarrWriteOptions::default()).unwrap();
    std::fs::write(dir.path().join("a/notes.txt"), "keep me").unwrap();
    let err = x.to_zarr(dir.path(), "a", &overwrite).unwrap_err();
    assert!(err.to_string().contains("notes.txt"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.path().join("a/notes.txt")).unwrap(), "keep me");
    assert_eq!(from_zarr::<f64>(dir.path(), "a").unwrap().compute().unwrap(), x.compute().unwrap());
    // An array of its own is overwritten.
    x.to_zarr(dir.path(), "b", &ZarrWriteOptions::default()).unwrap();
    let y = Array::<f64>::from_fn(&[6], 4, |i| -(i[0] as f64)).unwrap();
    y.to_zarr(dir.path(), "b", &overwrite).unwrap();
    assert_eq!(from_zarr::<f64>(dir.path(), "b").unwrap().compute().unwrap(), y.compute().unwrap());
}

/// A shard of subchunk slots (`None` an empty one) with its index after them,
/// as the sharding codec lays it out.
fn shard(subchunks: &[Option<Vec<u8>>]) -> Vec<u8> {
    let (mut body, mut index) = (Vec::new(), Vec::new());
    for subchunk in subchunks {
        index.push(match subchunk {
            Some(bytes) => (body.len() as u64, bytes.len() as u64),
            None => (u64::MAX, u64::MAX),
        });
        body.extend_from_slice(subchunk.as_deref().unwrap_or_default());
    }
    with_index(body, &index)
}

/// `body` followed by the shard index `index` ((offset, size) per slot in
/// little-endian u64s) and the index's crc32c.
fn with_index(mut body: Vec<u8>, index: &[(u64, u64)]) -> Vec<u8> {
    let index: Vec<u8> = index.iter().flat_map(|&(o, n)| [o.to_le_bytes(), n.to_le_bytes()]).flatten().collect();
    body.extend_from_slice(&index);
    body.extend_from_slice(&crc32c::crc32c(&index).to_le_bytes());
    body
}

/// Subchunk `i` of shard 2 of [`stored`]'s array: its four f64s, zstd-compressed.
fn good_subchunk(i: usize) -> Vec<u8> {
    let values: Vec<u8> = (0..4).flat_map(|k| ((32 + 4 * i + k) as f64 * 0.5 - 3.0).to_le_bytes()).collect();
    zstd::bulk::compress(&values, 3).unwrap()
}

#[test]
fn bombs_beneath_a_checksum_or_inside_a_shard_are_errors() {
    let dir = TempDir::new("hostile-layers");
    let zstd = Compression::Zstd { level: 3 };
    let x = Array::<f64>::from_fn(&[64], 16, |i| i[0] as f64 * 0.5 - 3.0).unwrap();
    let sharded = ZarrWriteOptions {
        compression: zstd,
        sharding: Some(ShardingOptions { inner_chunks: vec![4], index_at_start: false }),
        ..Default::default()
    };
    let bomb = zstd_frame_declaring(1 << 40);
    let mut bomb_with_crc = bomb.clone();
    bomb_with_crc.extend_from_slice(&crc32c::crc32c(&bomb).to_le_bytes());
    let mut bad_crc = shard(&[Some(good_subchunk(0)), None, None, None]);
    *bad_crc.last_mut().unwrap() ^= 1;
    let none = (u64::MAX, u64::MAX);
    let past_the_end = with_index(good_subchunk(0), &[(1000, 40), none, none, none]);
    let checksummed = ZarrWriteOptions { compression: zstd, checksum: true, ..Default::default() };
    let cases: Vec<(&str, &ZarrWriteOptions, Vec<u8>, &str)> = vec![
        ("a zstd bomb beneath a crc32c checksum", &checksummed, bomb_with_crc, "decompresses (zstd)"),
        (
            "a subchunk declaring 2^40 bytes",
            &sharded,
            shard(&[Some(good_subchunk(0)), Some(bomb.clone()), None, Some(good_subchunk(3))]),
            "decompresses (zstd)",
        ),
        (
            "a subchunk streaming 2 MiB of zeros",
            &sharded,
            shard(&[None, None, Some(zeros_compressed("zstd", 2 << 20)), None]),
            "decompresses (zstd)",
        ),
        ("a shard index with a wrong checksum", &sharded, bad_crc, ""),
        ("a shard index naming bytes past the shard", &sharded, past_the_end, "1000"),
        ("a shard shorter than its index", &sharded, vec![7; 20], ""),
    ];
    for (i, (what, options, planted, expect)) in cases.into_iter().enumerate() {
        let name = format!("l{i}");
        x.to_zarr(dir.path(), &name, options).unwrap();
        std::fs::write(dir.path().join(&name).join("c/2"), planted).unwrap();
        // Blocks that cut the shards read parts of them (the index, then
        // subchunks one by one) through the same bounds.
        fails_whole_and_in_blocks(dir.path(), &name, 6, what, expect);
    }
    // A shard laid out here reads back its values (an empty slot as the fill
    // value), whole and in parts: the layout above is the codec's.
    x.to_zarr(dir.path(), "good", &sharded).unwrap();
    let planted = shard(&[Some(good_subchunk(0)), None, Some(good_subchunk(2)), Some(good_subchunk(3))]);
    std::fs::write(dir.path().join("good/c/2"), planted).unwrap();
    let mut expected = x.compute().unwrap();
    (36..40).for_each(|i| expected[i] = 0.0);
    assert_eq!(from_zarr::<f64>(dir.path(), "good").unwrap().compute().unwrap(), expected);
    let other = ZarrReadOptions { chunks: Some(ChunkSpec::from(6usize)), ..Default::default() };
    assert_eq!(from_zarr_with::<f64>(dir.path(), "good", &other).unwrap().compute().unwrap(), expected);
}
