//! Bounds on what a Zarr store written by others can make a read allocate.
//!
//! zarrs reads a metadata file or a chunk file whole, and decompresses a zstd
//! frame into the size the frame declares (or without bound when it declares
//! none) and a gzip or zlib stream to its end. A planted file (a symlink to
//! `/dev/zero`, a chunk declaring a terabyte, a gzip bomb) would exhaust memory
//! outside the memory limit. So before zarrs reads them: metadata files must be
//! regular files of at most [`MAX_METADATA_BYTES`]; a chunk file must be a
//! regular file no larger than its chunk's decoded bytes allow, and its outermost
//! compressor (zstd, gzip, zlib, blosc) must decompress to no more than that
//! either: read from the frame header where the format declares it (zstd,
//! blosc), else by decompressing into nothing with a cap (gzip, zlib, a zstd
//! frame without a declared size). Compressors inside a shard or beneath the
//! outermost one are zarrs's to bound.

use std::io::Read;
use std::path::{Path, PathBuf};

use zarrs::array::{Array, ArraySubset};
use zarrs::storage::ReadableStorageTraits;

use crate::error::{Error, Result};

/// A Zarr array, as zarrs opens it from a local or an object store.
pub(super) type ZArray = Array<dyn ReadableStorageTraits>;

/// The largest metadata file read (`zarr.json`, `.zarray`, `.zattrs`).
pub(super) const MAX_METADATA_BYTES: u64 = 16 << 20;

/// Checks the metadata files `names` in `dir` that exist: regular files
/// (after symlinks) of at most [`MAX_METADATA_BYTES`].
///
/// # Errors
/// [`Error::Io`] naming the file that is not a regular file or is too large.
pub(super) fn check_metadata_files(dir: &Path, names: &[&str]) -> Result<()> {
    for name in names {
        let path = dir.join(name);
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(path.display(), e)),
            Ok(m) if !m.is_file() => return Err(Error::io(path.display(), "is not a regular file")),
            Ok(m) if m.len() > MAX_METADATA_BYTES => {
                return Err(Error::io(
                    path.display(),
                    format!("holds {} bytes, more than the {MAX_METADATA_BYTES} a metadata file may", m.len()),
                ));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// The most bytes a chunk of `decoded` bytes may be stored in or decompress
/// to: its bytes and room for incompressible data's framing (compressors add
/// under a percent; an inner codec's checksum a few bytes).
fn chunk_cap(decoded: u64) -> u64 {
    decoded.saturating_add(decoded / 8).saturating_add(64 << 10)
}

/// Checks every stored chunk that `subset` of the array touches; `path_of`
/// names a chunk's file.
///
/// # Errors
/// As [`check_chunk`].
pub(super) fn check_chunks_of(za: &ZArray, subset: &ArraySubset, path_of: impl Fn(&[u64]) -> PathBuf) -> Result<()> {
    let chunks = za
        .chunks_in_array_subset(subset)
        .map_err(|e| Error::invalid("region", format!("{subset:?}"), e.to_string()))?;
    for idx in chunks.iter().flat_map(|c| c.indices().into_iter()) {
        check_chunk(za, &path_of(&idx), &idx)?;
    }
    Ok(())
}

/// Checks the stored chunk `idx`, in the file `path`, before zarrs reads it
/// (a missing chunk is the fill value and passes).
///
/// # Errors
/// [`Error::Io`] naming the chunk file when it is not a regular file, holds
/// more bytes than its chunk allows, or its outermost compressor declares or
/// decompresses to more.
pub(super) fn check_chunk(za: &ZArray, path: &Path, idx: &[u64]) -> Result<()> {
    let fail = |why: String| Error::io(path.display(), why);
    let stored = match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path.display(), e)),
        Ok(m) if !m.is_file() => return Err(fail("is not a regular file".into())),
        Ok(m) => m.len(),
    };
    let shape = za.chunk_shape(idx).map_err(|e| fail(e.to_string()))?;
    let bound = ChunkBound::new(za, shape.iter().map(|n| n.get()).product()).map_err(fail)?;
    bound.check_stored(stored).map_err(fail)?;
    if bound.outer.is_none() {
        return Ok(());
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display(), e))?;
    bound.check(&bytes).map_err(fail)
}

/// What one stored chunk may hold: at most [`chunk_cap`] of its decoded
/// bytes, stored and after its outermost compressor.
#[derive(Debug, Clone)]
pub(super) struct ChunkBound {
    decoded: u64,
    pub(super) cap: u64,
    outer: Option<(Compressor, String)>,
}

impl ChunkBound {
    /// The bound of a chunk of `elements` elements of `za`.
    pub(super) fn new(za: &ZArray, elements: u64) -> std::result::Result<ChunkBound, String> {
        let item = za.data_type().fixed_size().ok_or("has a data type of variable size")?;
        let decoded = elements.saturating_mul(item as u64);
        let outer = za.codecs().bytes_to_bytes_codecs().last().and_then(|codec| {
            let name = codec.name_v3().map(|n| n.into_owned()).unwrap_or_default();
            Compressor::named(&name).map(|kind| (kind, name))
        });
        Ok(ChunkBound { decoded, cap: chunk_cap(decoded), outer })
    }

    /// Checks a chunk's stored size.
    pub(super) fn check_stored(&self, stored: u64) -> std::result::Result<(), String> {
        if stored > self.cap {
            return Err(format!("holds {stored} bytes for a chunk of {} bytes", self.decoded));
        }
        Ok(())
    }

    /// Checks a chunk's stored bytes: their size, and what the outermost
    /// compressor declares or decompresses them to.
    pub(super) fn check(&self, bytes: &[u8]) -> std::result::Result<(), String> {
        self.check_stored(bytes.len() as u64)?;
        let Some((kind, name)) = &self.outer else { return Ok(()) };
        let cap = self.cap;
        let inflated = kind.decoded_len(bytes, cap).map_err(|e| format!("does not decompress as {name}: {e}"))?;
        if inflated > cap {
            return Err(format!(
                "decompresses ({name}) to more than {cap} bytes ({inflated} or more) for a chunk of {} bytes",
                self.decoded
            ));
        }
        Ok(())
    }
}

/// The compressors whose output is bounded here.
#[derive(Debug, Clone, Copy)]
enum Compressor {
    Zstd,
    Gzip,
    Zlib,
    Blosc,
}

impl Compressor {
    fn named(name: &str) -> Option<Compressor> {
        let base = name.rsplit('.').next().unwrap_or(name);
        match base {
            "zstd" => Some(Compressor::Zstd),
            "gzip" => Some(Compressor::Gzip),
            "zlib" => Some(Compressor::Zlib),
            "blosc" => Some(Compressor::Blosc),
            _ => None,
        }
    }

    /// The bytes `encoded` decompresses to as declared, or counted up to
    /// `cap + 1` where the format declares nothing.
    fn decoded_len(self, encoded: &[u8], cap: u64) -> std::io::Result<u64> {
        let counted = |reader: &mut dyn Read| std::io::copy(&mut reader.take(cap + 1), &mut std::io::sink());
        match self {
            Compressor::Zstd => match zstd::bulk::Decompressor::upper_bound(encoded) {
                Some(declared) => Ok(declared as u64),
                None => counted(&mut zstd::stream::read::Decoder::new(encoded)?),
            },
            Compressor::Gzip => counted(&mut flate2::read::GzDecoder::new(encoded)),
            Compressor::Zlib => counted(&mut flate2::read::ZlibDecoder::new(encoded)),
            // Blosc's header: version, versionlz, flags, typesize, then the
            // decompressed size as a little-endian u32.
            Compressor::Blosc => match encoded.get(4..8) {
                Some(n) => Ok(u32::from_le_bytes(n.try_into().expect("four bytes")) as u64),
                None => Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "a blosc header is 16 bytes")),
            },
        }
    }
}
