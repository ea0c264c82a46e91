//! A chunk file of any bytes in one of several real arrays (its first byte
//! picks which): raw, zstd, gzip, blosc, zstd under a crc32c checksum, and
//! shards of zstd subchunks (index after, or before with checksummed
//! subchunks). Read whole and in blocks that cut the chunks (a shard then
//! reads in parts: its index, then subchunk by subchunk).
#![no_main]

#[path = "common.rs"]
mod common;

use std::sync::OnceLock;

use chunked_array::io::zarr::{
    BloscCompressor, BloscShuffleMode, Compression, ShardingOptions, ZarrReadOptions, ZarrWriteOptions, from_zarr,
    from_zarr_with,
};
use chunked_array::{Array, ChunkSpec};
use libfuzzer_sys::fuzz_target;

/// The arrays' settings; array `k` is stored as `a{k}`.
fn layouts() -> Vec<ZarrWriteOptions> {
    let zstd = Compression::Zstd { level: 3 };
    let shards = |index_at_start| Some(ShardingOptions { inner_chunks: vec![2, 3], index_at_start });
    let blosc = Compression::Blosc { compressor: BloscCompressor::LZ4, level: 5, shuffle: BloscShuffleMode::Shuffle };
    vec![
        ZarrWriteOptions { compression: Compression::None, ..Default::default() },
        ZarrWriteOptions { compression: zstd, ..Default::default() },
        ZarrWriteOptions { compression: Compression::Gzip { level: 6 }, ..Default::default() },
        ZarrWriteOptions { compression: blosc, ..Default::default() },
        ZarrWriteOptions { compression: zstd, checksum: true, ..Default::default() },
        ZarrWriteOptions { compression: zstd, sharding: shards(false), ..Default::default() },
        ZarrWriteOptions { compression: zstd, checksum: true, sharding: shards(true), ..Default::default() },
    ]
}

/// How many arrays there are, once they are written.
fn arrays() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    *COUNT.get_or_init(|| {
        let x = Array::<f64>::from_fn(&[8, 6], vec![4, 6], |i| (i[0] * 6 + i[1]) as f64).unwrap();
        let layouts = layouts();
        for (k, options) in layouts.iter().enumerate() {
            x.to_zarr(common::scratch(), &format!("a{k}"), options).unwrap();
        }
        layouts.len()
    })
}

fuzz_target!(|bytes: &[u8]| {
    let count = arrays();
    let Some((&pick, chunk)) = bytes.split_first() else { return };
    let name = format!("a{}", pick as usize % count);
    std::fs::write(common::scratch().join(&name).join("c/0/0"), chunk).expect("the scratch chunk");
    common::settle(from_zarr::<f64>(common::scratch(), &name));
    let cut = ZarrReadOptions { chunks: Some(ChunkSpec::from(3usize)), ..Default::default() };
    common::settle(from_zarr_with::<f64>(common::scratch(), &name, &cut));
});
