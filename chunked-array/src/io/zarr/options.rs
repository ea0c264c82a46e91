//! How Zarr arrays are read and written: blocks, compression, resuming.

use serde_json::{Map, Value};
use zarrs::array::codec::{BloscCompressor, BloscShuffleMode};

use crate::chunks::ChunkSpec;
use crate::io::cloud::StorageOptions;

use crate::io::store::WriteMode;

/// How [`super::from_zarr_with`] reads.
///
/// ```
/// use chunked_array::io::zarr::{from_zarr_with, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-read-options-{}", std::process::id()));
/// Array::<u8>::zeros(&[100], 10).unwrap().to_zarr(&dir, "x", &ZarrWriteOptions::default()).unwrap();
/// let options = ZarrReadOptions { chunks: Some(50.into()), ..ZarrReadOptions::default() };
/// assert_eq!(from_zarr_with::<u8>(&dir, "x", &options).unwrap().num_blocks(), 2);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct ZarrReadOptions {
    /// The array's blocks; `None` (the default) gives the stored chunks.
    pub chunks: Option<ChunkSpec>,
    /// Read an array whose store was interrupted (missing chunks read as the fill
    /// value). Default false: such an array is an error.
    pub allow_incomplete: bool,
    /// Read chunk files with direct I/O (`O_DIRECT`, Linux), bypassing the page
    /// cache: faster for data that is not cached, slower for data that is.
    pub direct_io: bool,
    /// How an object store URL is reached (ignored for local paths).
    pub storage: StorageOptions,
}

/// Zarr v3 sharding of written chunks: each stored chunk (one block) is one
/// file or object, a shard holding `inner_chunks`-shaped chunks compressed
/// one by one (with [`ZarrWriteOptions::compression`]) and an index of
/// them, so readers of small regions decode only the inner chunks they touch
/// while the store holds few, large objects.
///
/// ```
/// use chunked_array::io::zarr::{from_zarr_with, ShardingOptions, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-sharding-{}", std::process::id()));
/// let x = Array::<f64>::linspace(0.0, 1.0, 64, true, 32).unwrap();
/// let sharded = ZarrWriteOptions { sharding: Some(ShardingOptions { inner_chunks: vec![8], index_at_start: false }), ..Default::default() };
/// assert_eq!(x.to_zarr(&dir, "s", &sharded).unwrap().chunks_written, 2); // two shards of four inner chunks
/// let small = ZarrReadOptions { chunks: Some(8.into()), ..Default::default() };
/// assert_eq!(from_zarr_with::<f64>(&dir, "s", &small).unwrap().compute().unwrap(), x.compute().unwrap());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShardingOptions {
    /// The inner chunks' shape: divides the stored chunk shape on every axis.
    pub inner_chunks: Vec<usize>,
    /// Put the shard's index before its chunks (default after, as zarr-python).
    pub index_at_start: bool,
}

/// The Zarr format a store writes.
///
/// ```
/// use chunked_array::io::zarr::{from_zarr, zarr_info, ZarrFormat, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-zarr-format-{}", std::process::id()));
/// let v2 = ZarrWriteOptions { zarr_format: ZarrFormat::V2, ..Default::default() };
/// Array::<i16>::arange(0, 10, 1, 4).unwrap().to_zarr(&dir, "x", &v2).unwrap();
/// assert!(dir.join("x/.zarray").is_file() && dir.join("x/0").is_file()); // zarr-python 2's layout
/// assert_eq!(zarr_info(&dir, "x", &ZarrReadOptions::default()).unwrap().zarr_format, 2);
/// assert_eq!(from_zarr::<i16>(&dir, "x").unwrap().sum(None).unwrap().compute_scalar().unwrap(), 45);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ZarrFormat {
    /// Zarr v2, as zarr-python 2.x and dask's `to_zarr(zarr_format=2)` write:
    /// `.zarray` and `.zattrs`, numcodecs compressors, "." chunk keys,
    /// dimension names in xarray's `_ARRAY_DIMENSIONS` attribute. It has no
    /// sharding and no checksum.
    V2,
    /// Zarr v3 (`zarr.json`, `c/`-prefixed chunk keys).
    #[default]
    V3,
}

impl std::fmt::Display for ZarrFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ZarrFormat::V2 => "Zarr v2",
            ZarrFormat::V3 => "Zarr v3",
        })
    }
}

/// The compression of written chunks.
///
/// ```
/// use chunked_array::io::zarr::{Compression, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-compression-{}", std::process::id()));
/// let x = Array::<f64>::zeros(&[100], 50).unwrap();
/// let raw = ZarrWriteOptions { compression: Compression::None, ..Default::default() };
/// assert_eq!(x.to_zarr(&dir, "raw", &raw).unwrap().bytes_written, 800);
/// let gzip = ZarrWriteOptions { compression: Compression::Gzip { level: 6 }, ..Default::default() };
/// assert!(x.to_zarr(&dir, "gzip", &gzip).unwrap().bytes_written < 100); // zeros compress well
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Compression {
    /// Raw bytes.
    None,
    /// Zstandard at `level` (zarr-python 3's default codec, at its level 0: zstd's
    /// default, 3).
    Zstd {
        /// Compression level (0 = zstd's default; negative = faster).
        level: i32,
    },
    /// Blosc (zarr-python 2's default: lz4, level 5, byte shuffle).
    Blosc {
        /// The compressor inside blosc.
        compressor: BloscCompressor,
        /// Level 0..=9.
        level: u8,
        /// Shuffle mode.
        shuffle: BloscShuffleMode,
    },
    /// gzip at `level` 0..=9.
    Gzip {
        /// Compression level.
        level: u32,
    },
}

impl Default for Compression {
    /// zstd at level 0, as zarr-python 3 writes by default.
    fn default() -> Self {
        Compression::Zstd { level: 0 }
    }
}

/// How [`crate::Array::to_zarr`] writes.
///
/// ```
/// use chunked_array::io::zarr::{from_zarr, Value, ZarrWriteOptions};
/// use chunked_array::io::WriteMode;
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-write-options-{}", std::process::id()));
/// let mut options = ZarrWriteOptions { chunks: Some(vec![2, 3]), checksum: true, ..Default::default() };
/// options.attributes.insert("units".into(), Value::from("m/s"));
/// options.dimension_names = Some(vec!["y".into(), "x".into()]);
/// let x = Array::<f64>::ones(&[4, 6], 4).unwrap();
/// assert_eq!(x.to_zarr(&dir, "v", &options).unwrap().chunks_written, 4); // rechunked to 2 x 3
/// options.mode = WriteMode::Overwrite;
/// x.to_zarr(&dir, "v", &options).unwrap(); // replaced
/// assert_eq!(from_zarr::<f64>(&dir, "v").unwrap().chunks().lengths()[1], vec![3, 3]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct ZarrWriteOptions {
    /// What to do when the array exists (default [`WriteMode::Create`]).
    pub mode: WriteMode,
    /// Chunk compression (default zstd).
    pub compression: Compression,
    /// Append a crc32c checksum to every chunk (detects any corruption on read
    /// and resume, not only the truncations that break decompression).
    pub checksum: bool,
    /// Stored chunk shape; the array is rechunked to it when its blocks differ.
    /// `None` (default): the array's blocks (see the module docs).
    pub chunks: Option<Vec<usize>>,
    /// User attributes stored in the array's metadata.
    pub attributes: Map<String, Value>,
    /// Dimension names stored in the array's metadata.
    pub dimension_names: Option<Vec<String>>,
    /// Write chunk files with direct I/O (`O_DIRECT`, Linux), bypassing the page
    /// cache. Where the kernel's buffered writes are slower than the disk (some
    /// virtual machines' are; BENCHMARKS.md has figures) this is much faster
    /// and leaves the cores to compression; the written data is then not cached
    /// for a read that follows. Ignored on file systems without direct I/O.
    pub direct_io: bool,
    /// How an object store URL is reached (ignored for local paths).
    pub storage: StorageOptions,
    /// Store each chunk as a shard of smaller inner chunks (Zarr v3's
    /// sharding codec); `None` (default): no sharding.
    pub sharding: Option<ShardingOptions>,
    /// The Zarr format written (default v3).
    pub zarr_format: ZarrFormat,
    /// The value a missing chunk reads as, in Zarr's JSON: a number,
    /// `"NaN"`, `"Infinity"` or `"-Infinity"` for floats, `[re, im]` for
    /// complex numbers, a boolean for bool. `None` (default): zero.
    pub fill_value: Option<Value>,
}
