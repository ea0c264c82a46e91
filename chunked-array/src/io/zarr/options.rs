//! How Zarr arrays are read and written: blocks, compression, resuming.

use serde_json::{Map, Value};
use zarrs::array::codec::{BloscCompressor, BloscShuffleMode};

use crate::chunks::ChunkSpec;

use crate::io::store::WriteMode;

/// How [`super::from_zarr_with`] reads.
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
}

/// The compression of written chunks.
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
}
