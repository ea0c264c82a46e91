//! Bounds on what a Zarr store written by others can make a read allocate.
//!
//! zarrs reads a metadata file or a chunk file whole, and decompresses a zstd
//! frame into the size the frame declares (or without bound when it declares
//! none) and a gzip or zlib stream to its end. A planted file (a symlink to
//! `/dev/zero`, a chunk declaring a terabyte, a gzip bomb) would exhaust memory
//! outside the memory limit. So every object zarrs reads passes through
//! [`super::bounded`], which holds metadata to [`MAX_METADATA_BYTES`] and
//! checks a chunk's bytes with its [`ChunkBound`] before zarrs decodes them:
//! the stored size, then each compressor of the codec chain from the
//! outermost inwards (zstd and blosc from their headers, gzip, zlib and a zstd
//! frame without a declared size by decompressing into nothing with a cap),
//! and in a shard, every subchunk the shard's index names, with the subchunk's
//! own bound.

use std::borrow::Cow;
use std::io::Read;
use std::num::NonZeroU64;
use std::path::Path;
use std::sync::Arc;

use zarrs::array::codec::{ShardingCodec, ShardingCodecConfiguration, ShardingIndexLocation};
use zarrs::array::{Array, BytesRepresentation, CodecChain, DataType, FillValue};
use zarrs::array::{ArrayToBytesCodecTraits, BytesToBytesCodecTraits, CodecOptions};
use zarrs::storage::ReadableStorageTraits;

use crate::error::{Error, Result};

/// A Zarr array, as zarrs opens it from a local or an object store.
pub(super) type ZArray = Array<dyn ReadableStorageTraits>;

/// The largest metadata file read (`zarr.json`, `.zarray`, `.zattrs`).
pub(super) const MAX_METADATA_BYTES: u64 = 16 << 20;

/// How deep shards may nest (a shard's subchunks themselves sharded).
const MAX_SHARD_DEPTH: usize = 4;

/// Why a metadata file of `len` bytes is refused.
pub(super) fn metadata_too_large(len: u64) -> String {
    format!("holds {len} bytes, more than the {MAX_METADATA_BYTES} a metadata file may")
}

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
                return Err(Error::io(path.display(), metadata_too_large(m.len())));
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

/// The most bytes a chunk of `decoded` bytes may be stored in or decompress
/// to: its bytes and room for incompressible data's framing (compressors add
/// under a percent; a checksum a few bytes).
fn chunk_cap(decoded: u64) -> u64 {
    decoded.saturating_add(decoded / 8).saturating_add(64 << 10)
}

/// The room a subchunk of a shard has beyond its decoded bytes: its
/// compressors' and checksum's framing, which for a small subchunk is most of
/// what it adds.
const SUBCHUNK_FRAMING: u64 = 256;

/// What one stored chunk may hold: at most `cap` bytes, stored and after each
/// of its compressors; a shard's subchunks each within their own bound.
#[derive(Debug, Clone)]
pub(super) struct ChunkBound {
    decoded: u64,
    pub(super) cap: u64,
    /// The bytes-to-bytes codecs, outermost (last applied) first.
    layers: Vec<Layer>,
    shard: Option<Box<ShardBound>>,
}

/// One bytes-to-bytes codec of a chain.
#[derive(Debug, Clone)]
struct Layer {
    codec: Arc<dyn BytesToBytesCodecTraits>,
    name: String,
    /// What bounds its output; `None` for a codec that only shrinks (a checksum).
    compressor: Option<Compressor>,
}

/// A shard's index and the bound of each subchunk it names.
#[derive(Debug, Clone)]
struct ShardBound {
    codec: ShardingCodec,
    per_shard: Vec<NonZeroU64>,
    index_len: u64,
    location: ShardingIndexLocation,
    inner: ChunkBound,
}

/// What a partial read's bytes need before zarrs may decode them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PartVerdict {
    /// Bounded as they are.
    Checked,
    /// The range is not one the bound can check alone: read the whole object.
    NeedsWhole,
}

impl ChunkBound {
    /// The bound of `za`'s stored chunks, each at most `shape`.
    pub(super) fn new(za: &ZArray, shape: &[u64]) -> std::result::Result<ChunkBound, String> {
        Self::of_chain(&za.codecs(), za.data_type(), shape, 0)
    }

    fn of_chain(
        chain: &CodecChain,
        data_type: &DataType,
        shape: &[u64],
        depth: usize,
    ) -> std::result::Result<ChunkBound, String> {
        let item = data_type.fixed_size().ok_or("has a data type of variable size")?;
        let elements = shape.iter().try_fold(1u64, |n, &s| n.checked_mul(s));
        let decoded = elements
            .and_then(|n| n.checked_mul(item as u64))
            .ok_or_else(|| format!("has chunks of shape {shape:?}, more bytes than a read can bound"))?;
        let layers = chain
            .bytes_to_bytes_codecs()
            .iter()
            .rev()
            .map(|codec| {
                let name = codec.name_v3().map(|n| n.into_owned()).unwrap_or_default();
                Layer { codec: codec.clone(), compressor: Compressor::named(&name), name }
            })
            .collect();
        // An array without chunks (a zero-length axis) reads no shard.
        let shard = match decoded {
            0 => None,
            _ => ShardBound::of(chain.array_to_bytes_codec(), data_type, shape, depth)?,
        };
        let cap = match &shard {
            None if depth == 0 => chunk_cap(decoded),
            None => decoded.saturating_add(decoded / 8).saturating_add(SUBCHUNK_FRAMING),
            Some(s) => {
                let subchunks: u64 = s.per_shard.iter().map(|n| n.get()).product();
                s.inner.cap.saturating_mul(subchunks).saturating_add(s.index_len).saturating_add(SUBCHUNK_FRAMING)
            }
        };
        Ok(ChunkBound { decoded, cap, layers, shard: shard.map(Box::new) })
    }

    /// Checks a chunk's stored size.
    pub(super) fn check_stored(&self, stored: u64) -> std::result::Result<(), String> {
        if stored > self.cap {
            return Err(format!("holds {stored} bytes for a chunk of {} bytes", self.decoded));
        }
        Ok(())
    }

    /// Whether any codec of the chain, or of a shard's subchunks, decompresses.
    fn compresses(&self) -> bool {
        self.layers.iter().any(|l| l.compressor.is_some()) || self.shard.as_ref().is_some_and(|s| s.inner.compresses())
    }

    /// Checks a chunk's stored bytes: their size, what each compressor
    /// declares or decompresses them to, and a shard's subchunks.
    pub(super) fn check(&self, bytes: &[u8]) -> std::result::Result<(), String> {
        self.check_stored(bytes.len() as u64)?;
        let mut current = Cow::Borrowed(bytes);
        for (i, layer) in self.layers.iter().enumerate() {
            if let Some(kind) = layer.compressor {
                let name = &layer.name;
                let inflated =
                    kind.decoded_len(&current, self.cap).map_err(|e| format!("does not decompress as {name}: {e}"))?;
                if inflated > self.cap {
                    return Err(format!(
                        "decompresses ({name}) to more than {} bytes ({inflated} or more) for a chunk of {} bytes",
                        self.cap, self.decoded
                    ));
                }
            }
            let beneath_compresses = self.layers[i + 1..].iter().any(|l| l.compressor.is_some());
            if !beneath_compresses && self.shard.is_none() {
                return Ok(());
            }
            // Bounded above: the layer decodes to at most `cap` bytes.
            let representation = BytesRepresentation::BoundedSize(self.cap);
            let decoded = layer
                .codec
                .decode(current, &representation, &CodecOptions::default())
                .map_err(|e| format!("does not decode as {}: {e}", layer.name))?;
            current = Cow::Owned(decoded.into_owned());
        }
        match &self.shard {
            Some(shard) => shard.check(&current),
            None => Ok(()),
        }
    }

    /// Checks `bytes`, the `range` of an object of `size` bytes that zarrs
    /// reads in part (a shard's index or one of its subchunks, a part of an
    /// uncompressed chunk).
    pub(super) fn check_part(
        &self,
        bytes: &[u8],
        range: std::ops::Range<u64>,
        size: u64,
    ) -> std::result::Result<PartVerdict, String> {
        self.check_stored(size)?;
        if range.start == 0 && range.end == size {
            return self.check(bytes).map(|()| PartVerdict::Checked);
        }
        if !self.compresses() {
            return Ok(PartVerdict::Checked);
        }
        let Some(shard) = self.shard.as_deref().filter(|s| self.layers.is_empty() && s.inner.shard.is_none()) else {
            return Ok(PartVerdict::NeedsWhole);
        };
        let index = match shard.location {
            ShardingIndexLocation::Start => 0..shard.index_len,
            ShardingIndexLocation::End => size.saturating_sub(shard.index_len)..size,
        };
        if range == index {
            return Ok(PartVerdict::Checked);
        }
        shard.inner.check(bytes).map(|()| PartVerdict::Checked)
    }
}

impl ShardBound {
    /// The bound of a shard of `shape`, when `codec` is the sharding codec.
    fn of(
        codec: &Arc<dyn ArrayToBytesCodecTraits>,
        data_type: &DataType,
        shape: &[u64],
        depth: usize,
    ) -> std::result::Result<Option<ShardBound>, String> {
        if codec.name_v3().as_deref() != Some("sharding_indexed") {
            return Ok(None);
        }
        if depth >= MAX_SHARD_DEPTH {
            return Err(format!("nests shards more than {MAX_SHARD_DEPTH} deep"));
        }
        let configuration =
            codec.configuration_v3(&Default::default()).ok_or("has a sharding codec without settings")?;
        let configuration: ShardingCodecConfiguration =
            serde_json::from_value(serde_json::Value::Object(configuration.into()))
                .map_err(|e| format!("has sharding settings that do not parse: {e}"))?;
        let ShardingCodecConfiguration::V1(settings) = &configuration else {
            return Err("has sharding settings of an unknown version".into());
        };
        let subchunk: Vec<u64> = settings.chunk_shape.iter().map(|n| n.get()).collect();
        if subchunk.len() != shape.len() || shape.iter().zip(&subchunk).any(|(s, c)| s % c != 0) {
            return Err(format!("has subchunks {subchunk:?} that do not divide its shards {shape:?}"));
        }
        let per_shard: Vec<NonZeroU64> = shape
            .iter()
            .zip(&subchunk)
            .map(|(s, c)| NonZeroU64::new(s / c).ok_or_else(|| format!("has empty shards {shape:?}")))
            .collect::<std::result::Result<_, _>>()?;
        let codec = ShardingCodec::new_with_configuration(&configuration).map_err(|e| e.to_string())?;
        let index_chain = CodecChain::from_metadata(&settings.index_codecs).map_err(|e| e.to_string())?;
        let mut index_shape = per_shard.clone();
        index_shape.push(NonZeroU64::new(2).expect("two"));
        let index = index_chain
            .encoded_representation(&index_shape, &zarrs::array::data_type::uint64(), &FillValue::from(u64::MAX))
            .map_err(|e| format!("has a shard index that cannot be sized: {e}"))?;
        let BytesRepresentation::FixedSize(index_len) = index else {
            return Err("has a shard index of variable size".into());
        };
        let inner = ChunkBound::of_chain(
            &CodecChain::from_metadata(&settings.codecs).map_err(|e| e.to_string())?,
            data_type,
            &subchunk,
            depth + 1,
        )?;
        Ok(Some(ShardBound { codec, per_shard, index_len, location: settings.index_location, inner }))
    }

    /// Checks a shard's decoded bytes: its index, and every subchunk in it.
    fn check(&self, shard: &[u8]) -> std::result::Result<(), String> {
        let index = self
            .codec
            .decode_index(shard, &self.per_shard, &CodecOptions::default())
            .map_err(|e| format!("has a shard index that does not decode: {e}"))?;
        for (i, pair) in index.chunks_exact(2).enumerate() {
            let (offset, size) = (pair[0], pair[1]);
            if offset == u64::MAX && size == u64::MAX {
                continue;
            }
            let end = offset.checked_add(size).filter(|&end| end <= shard.len() as u64).ok_or_else(|| {
                format!("has a shard index naming bytes {offset}+{size} of a {}-byte shard (subchunk {i})", shard.len())
            })?;
            self.inner.check(&shard[offset as usize..end as usize]).map_err(|why| format!("(subchunk {i}) {why}"))?;
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
