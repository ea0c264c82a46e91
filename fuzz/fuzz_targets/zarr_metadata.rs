//! A `zarr.json` of any bytes over the chunk files of a real (8, 6) f64 array
//! in (4, 6) chunks with zstd, read as f64 and as i32, in its chunks and in
//! blocks that cut them.
#![no_main]

#[path = "common.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use chunked_array::io::zarr::{Compression, ZarrReadOptions, ZarrWriteOptions, from_zarr, from_zarr_with};
use chunked_array::{Array, ChunkSpec};
use libfuzzer_sys::fuzz_target;

/// The array whose metadata each input replaces.
fn array() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let x = Array::<f64>::from_fn(&[8, 6], vec![4, 6], |i| (i[0] * 6 + i[1]) as f64).unwrap();
        let options = ZarrWriteOptions { compression: Compression::Zstd { level: 3 }, ..Default::default() };
        x.to_zarr(common::scratch(), "m", &options).unwrap();
        common::scratch().join("m")
    })
}

fuzz_target!(|bytes: &[u8]| {
    let dir = array();
    std::fs::write(dir.join("zarr.json"), bytes).expect("the scratch metadata");
    common::settle(from_zarr::<f64>(common::scratch(), "m"));
    common::settle(from_zarr::<i32>(common::scratch(), "m"));
    let cut = ZarrReadOptions { chunks: Some(ChunkSpec::from(3usize)), ..Default::default() };
    common::settle(from_zarr_with::<f64>(common::scratch(), "m", &cut));
});
