//! Writing: the array's metadata, preparing (or resuming) the target, and
//! encoding each block into its chunk file.

use std::num::NonZeroU64;
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn, Slice};
use zarrs::array::codec::api::{ArrayToBytesCodecTraits, BytesToBytesCodecTraits};
use zarrs::array::codec::{Crc32cCodec, GzipCodec, ShardingCodecBuilder, ZstdCodec};
use zarrs::array::{ArrayBuilder, ArrayBytes, CodecOptions};
use zarrs::metadata_ext::codec::sharding::ShardingIndexLocation;

use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::io::atomic::{remove_temporaries, write_atomic};
use crate::io::store::{ChunkWriter, WriteMode};
use crate::io::zarr::location::*;
use crate::io::zarr::metadata::{check_dimension_names, fill_value_metadata, v2_metadata};
use crate::io::zarr::options::{Compression, ShardingOptions, ZarrFormat, ZarrWriteOptions};
use crate::ops::custom::block_array;

/// Rank 0's plan (the chunks to write, and how many were skipped), or its
/// error, on every rank.
pub(super) fn share_plan(
    scheduler: &dyn crate::schedule::Scheduler,
    plan: Result<(Vec<usize>, usize)>,
    location: &Location,
) -> Result<(Vec<usize>, usize)> {
    let mut bytes = Vec::new();
    match &plan {
        Ok((todo, skipped)) => {
            bytes.push(1);
            bytes.extend_from_slice(&(*skipped as u64).to_le_bytes());
            todo.iter().for_each(|&b| bytes.extend_from_slice(&(b as u64).to_le_bytes()));
        }
        Err(e) => {
            bytes.push(0);
            bytes.extend_from_slice(e.to_string().as_bytes());
        }
    }
    let shared = scheduler.share_from_root(bytes);
    if scheduler.rank() == 0 {
        return plan;
    }
    match shared.split_first() {
        Some((1, rest)) if rest.len() % 8 == 0 && !rest.is_empty() => {
            let mut words = rest.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")) as usize);
            let skipped = words.next().expect("checked");
            Ok((words.collect(), skipped))
        }
        Some((0, message)) => Err(Error::io(
            location.name(),
            format!("rank 0 could not prepare the store: {}", String::from_utf8_lossy(message)),
        )),
        _ => Err(Error::io(location.name(), "rank 0 shared no store plan")),
    }
}

/// Checks the target against the write mode, writes the incomplete marker and
/// the pending metadata, and lists the chunks to write (all, or to resume, those not
/// already complete); returns them with the number skipped.
pub(super) fn prepare_target(
    location: &Location,
    za: &ZArray,
    options: &ZarrWriteOptions,
    grid: &[usize],
) -> Result<(Vec<usize>, usize)> {
    let existing = location.existing()?;
    let resume = options.mode == WriteMode::Resume && existing == Existing::Zarr(options.zarr_format);
    match (options.mode, existing) {
        (_, Existing::Nothing) => {}
        (WriteMode::Create, _) => {
            return Err(Error::io(location.name(), "already exists (write with WriteMode::Overwrite to replace it)"));
        }
        (_, Existing::Group) => {
            return Err(Error::io(
                location.name(),
                "holds a Zarr group, which a write never removes (write the array at a path inside it)",
            ));
        }
        (_, Existing::Other) => {
            return Err(Error::io(location.name(), "holds something that is not a Zarr array; it is left untouched"));
        }
        (WriteMode::Resume, Existing::Zarr(stored)) if !resume => {
            return Err(Error::io(
                location.name(),
                format!(
                    "holds a {stored} array; this store writes {} (resume in the stored format)",
                    options.zarr_format
                ),
            ));
        }
        (WriteMode::Resume, _) => check_same_layout(location, za)?,
        (WriteMode::Overwrite, _) => location.clear()?,
    }

    // A new array's marker is created only where there is none: of two
    // stores starting the same array on an object store, one fails here.
    let fresh = existing == Existing::Nothing && !location.exists(INCOMPLETE_MARKER)?;
    location.write_file(INCOMPLETE_MARKER, b"a chunked store into this array has not finished\n", fresh)?;
    let text = serde_json::to_vec_pretty(&za.metadata_opt(&zarrs::array::ArrayMetadataOptions::default()))
        .map_err(|e| Error::io(location.name(), e))?;
    location.write_file(PENDING_METADATA, &text, false)?;
    // A resumed complete array is unfinished again (hidden from other clients)
    // until its chunks are checked; the pending metadata exists first, so a
    // crash here leaves a store that can still be resumed.
    location.unpublish_metadata()?;
    if let Some(dir) = location.local_dir() {
        remove_temporaries(&dir)?;
    }

    let total: usize = grid.iter().product();
    Ok(if resume {
        let complete = complete_chunks(za, location, grid)?;
        let todo: Vec<usize> = (0..total).filter(|&b| !complete[b]).collect();
        let skipped = total - todo.len();
        (todo, skipped)
    } else {
        ((0..total).collect(), 0)
    })
}

pub(super) fn build_array<T: Element>(
    location: &Location,
    shape: &[usize],
    chunk_shape: &[usize],
    options: &ZarrWriteOptions,
) -> Result<ZArray> {
    if options.zarr_format == ZarrFormat::V2 {
        return location.build(v2_metadata::<T>(shape, chunk_shape, options)?);
    }
    let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
    let chunk_shape: Vec<u64> = chunk_shape.iter().map(|&n| n as u64).collect();
    let fill = fill_value_metadata::<T>(options)?;
    let mut builder = ArrayBuilder::new(shape.clone(), chunk_shape.clone(), zarr_data_type(T::DTYPE), fill);
    let codecs = bytes_codecs::<T>(options)?;
    match &options.sharding {
        None => builder.bytes_to_bytes_codecs(codecs),
        Some(sharding) => builder.array_to_bytes_codec(sharding_codec::<T>(sharding, &chunk_shape, codecs)?),
    };
    builder.attributes(options.attributes.clone());
    if let Some(names) = &options.dimension_names {
        check_dimension_names(names, shape.len())?;
        builder.dimension_names(Some(names.clone()));
    }
    let metadata = builder.build_metadata().map_err(|e| Error::io(location.name(), e))?;
    location.build(zarrs::array::ArrayMetadata::V3(metadata))
}

/// The compression (and checksum) codecs of Zarr v3 chunks.
fn bytes_codecs<T: Element>(options: &ZarrWriteOptions) -> Result<Vec<Arc<dyn BytesToBytesCodecTraits>>> {
    let mut codecs: Vec<Arc<dyn BytesToBytesCodecTraits>> = Vec::new();
    let bad = |e: &dyn std::fmt::Display| Error::invalid("compression", options.compression, e.to_string());
    match options.compression {
        Compression::None => {}
        Compression::Zstd { level } => codecs.push(Arc::new(ZstdCodec::new(level, false))),
        Compression::Gzip { level } => codecs.push(Arc::new(GzipCodec::new(level).map_err(|e| bad(&e))?)),
        Compression::Blosc { compressor, level, shuffle } => {
            let level = level.try_into().map_err(|e| bad(&e))?;
            let codec = zarrs::array::codec::BloscCodec::new(compressor, level, None, shuffle, Some(T::DTYPE.size()))
                .map_err(|e| bad(&e))?;
            codecs.push(Arc::new(codec));
        }
    }
    if options.checksum {
        codecs.push(Arc::new(Crc32cCodec::new()));
    }
    Ok(codecs)
}

/// The sharding codec: each stored chunk a shard of `sharding.inner_chunks`,
/// each compressed with `codecs`.
fn sharding_codec<T: Element>(
    sharding: &ShardingOptions,
    shard: &[u64],
    codecs: Vec<Arc<dyn BytesToBytesCodecTraits>>,
) -> Result<Arc<dyn ArrayToBytesCodecTraits>> {
    let inner = &sharding.inner_chunks;
    let divides = inner.len() == shard.len() && inner.iter().zip(shard).all(|(&i, &s)| i > 0 && s % i as u64 == 0);
    if !divides {
        return Err(Error::invalid(
            "sharding.inner_chunks",
            inner,
            format!("must be positive and divide the stored chunks (shards) {shard:?} on each axis"),
        ));
    }
    let inner: Vec<NonZeroU64> = inner.iter().map(|&i| NonZeroU64::new(i as u64).expect("checked positive")).collect();
    let location = if sharding.index_at_start { ShardingIndexLocation::Start } else { ShardingIndexLocation::End };
    let mut builder = ShardingCodecBuilder::new(inner, &zarr_data_type(T::DTYPE));
    builder.bytes_to_bytes_codecs(codecs).index_location(location);
    Ok(builder.build_arc())
}

/// A resumed store must write exactly the layout that is there.
pub(super) fn check_same_layout(location: &Location, want: &ZArray) -> Result<()> {
    let have = location.open(false, true)?;
    let describe = |a: &ZArray| {
        let chunk: Vec<u64> = a.chunk_grid_shape().iter().map(|_| 0).collect();
        let chunk_shape =
            a.chunk_shape(&chunk).map(|c| c.iter().map(|n| n.get()).collect::<Vec<_>>()).unwrap_or_default();
        // Zarr v3's codecs, or v2's compressor, filters and chunk layout.
        const ENCODING: [&str; 5] = ["codecs", "compressor", "filters", "order", "dimension_separator"];
        let codecs = serde_json::to_value(a.metadata())
            .map(|m| ENCODING.iter().filter_map(|k| m.get(*k)).map(|v| v.to_string()).collect::<Vec<_>>().join(" "))
            .unwrap_or_default();
        (a.shape().to_vec(), chunk_shape, a.data_type().to_string(), codecs)
    };
    let (h, w) = (describe(&have), describe(want));
    if h != w {
        return Err(Error::io(
            location.name(),
            format!(
                "cannot resume: stored (shape {:?}, chunks {:?}, {}, codecs {}) differs from this store (shape {:?}, chunks {:?}, {}, codecs {})",
                h.0, h.1, h.2, h.3, w.0, w.1, w.2, w.3
            ),
        ));
    }
    Ok(())
}

/// Which chunks an earlier run wrote completely: locally, the chunk file
/// exists and decodes to a whole chunk (checked in parallel); on an object
/// store, the chunk object exists (an object appears only once whole).
///
/// # Errors
/// [`Error::Io`] when an object store's listing fails.
pub(super) fn complete_chunks(za: &ZArray, location: &Location, grid: &[usize]) -> Result<Vec<bool>> {
    let total: usize = grid.iter().product();
    let chunks = Chunks::from_lengths(grid.iter().map(|&g| vec![1; g]).collect());
    let index = |b: usize| -> Vec<u64> { chunks.unravel(b).into_iter().map(|i| i as u64).collect() };
    if location.local_dir().is_none() {
        let stored = location.stored_keys()?;
        return Ok((0..total).map(|b| stored.contains(za.chunk_key(&index(b)).as_str())).collect());
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(total.max(1));
    let options = codec_options();
    let check = |b: usize| {
        let idx = index(b);
        location.chunk_path(za, &idx).is_some_and(|p| p.exists())
            && za.retrieve_chunk_opt::<ArrayBytes<'static>>(&idx, &options).is_ok()
    };
    let mut complete = vec![false; total];
    std::thread::scope(|s| {
        let per = total.div_ceil(threads.max(1)).max(1);
        for (t, part) in complete.chunks_mut(per).enumerate() {
            let check = &check;
            s.spawn(move || {
                for (i, c) in part.iter_mut().enumerate() {
                    *c = check(t * per + i);
                }
            });
        }
    });
    Ok(complete)
}

/// The writer of `za`'s chunks at `location`, for a run over `processes`
/// processes (several upload each chunk within its task).
pub(super) fn chunk_writer(za: ZArray, location: &Location, direct_io: bool, processes: usize) -> ZarrChunkWriter {
    #[cfg(feature = "cloud")]
    let uploads = match &location.root {
        Root::Remote(remote) => Some(Arc::new(crate::io::cloud::uploads::Uploads::new(remote.clone(), processes == 1))),
        Root::Local(_) => None,
    };
    #[cfg(not(feature = "cloud"))]
    let _ = processes;
    ZarrChunkWriter {
        array: Arc::new(za),
        location: location.clone(),
        options: codec_options(),
        direct_io,
        #[cfg(feature = "cloud")]
        uploads,
    }
}

/// Encodes a block as one stored chunk and writes it atomically.
pub(super) struct ZarrChunkWriter {
    pub(super) array: Arc<ZArray>,
    pub(super) location: Location,
    pub(super) options: CodecOptions,
    pub(super) direct_io: bool,
    /// An object store's uploads in flight.
    #[cfg(feature = "cloud")]
    pub(super) uploads: Option<Arc<crate::io::cloud::uploads::Uploads>>,
}

/// A writer's uploads, waited for when its store finishes.
#[derive(Debug, Clone, Default)]
pub(super) struct PendingUploads(#[cfg(feature = "cloud")] Option<Arc<crate::io::cloud::uploads::Uploads>>);

impl PendingUploads {
    /// Waits for the uploads still in flight (none for a local store).
    ///
    /// # Errors
    /// The first failed upload's error.
    pub(super) fn finish(&self) -> Result<()> {
        #[cfg(feature = "cloud")]
        if let Some(uploads) = &self.0 {
            return uploads.finish();
        }
        Ok(())
    }
}

impl ZarrChunkWriter {
    /// The writer's uploads, to wait for once the store has run.
    pub(super) fn uploads_handle(&self) -> PendingUploads {
        PendingUploads(
            #[cfg(feature = "cloud")]
            self.uploads.clone(),
        )
    }

    /// Stores an encoded chunk: a local file written atomically, or an
    /// object uploaded (with `wait`, stored before this returns; otherwise
    /// possibly in the background); returns its size.
    pub(super) fn put_chunk(&self, chunk: &[u64], encoded: Vec<u8>, wait: bool) -> Result<u64> {
        let len = encoded.len() as u64;
        match self.location.chunk_path(&self.array, chunk) {
            Some(path) => write_atomic(&path, &encoded, self.direct_io)?,
            None => self.upload(chunk, encoded, wait)?,
        }
        Ok(len)
    }

    #[cfg(feature = "cloud")]
    fn upload(&self, chunk: &[u64], encoded: Vec<u8>, wait: bool) -> Result<()> {
        match &self.uploads {
            Some(uploads) => uploads.start(self.array.chunk_key(chunk).as_str().to_string(), encoded, wait),
            None => Err(Error::io(self.location.chunk_name(&self.array, chunk), "a store without uploads")),
        }
    }

    #[cfg(not(feature = "cloud"))]
    fn upload(&self, chunk: &[u64], _: Vec<u8>, _: bool) -> Result<()> {
        Err(Error::io(self.location.chunk_name(&self.array, chunk), "object stores need the `cloud` feature"))
    }
}

impl ChunkWriter for ZarrChunkWriter {
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64> {
        let chunk: Vec<u64> = idx.iter().map(|&i| i as u64).collect();
        let name = || self.location.chunk_name(&self.array, &chunk);
        let dtype = crate::block::block_dtype(block);
        let encoded = crate::block::dispatch_dtype!(dtype, encode_block::<_>(self, &chunk, block))
            .ok_or_else(|| Error::io(name(), "the block holds no elements"))?
            .map_err(|e| Error::io(name(), e))?;
        self.put_chunk(&chunk, encoded, false)
    }
}

pub(super) fn encode_block<T: Element + zarrs::array::Element>(
    writer: &ZarrChunkWriter,
    chunk: &[u64],
    block: &Block,
) -> Option<std::result::Result<Vec<u8>, String>> {
    Some(
        block_array::<T>(block)
            .map_err(|e| e.to_string())
            .and_then(|a| encode_chunk(&writer.array, &writer.options, chunk, a)),
    )
}

/// Encodes `a` as stored chunk `chunk` of `za` (an edge chunk's block is
/// padded with the fill value, as Zarr stores whole chunks).
pub(super) fn encode_chunk<T: Element + zarrs::array::Element>(
    za: &ZArray,
    options: &CodecOptions,
    chunk: &[u64],
    a: &ArrayD<T>,
) -> std::result::Result<Vec<u8>, String> {
    let chunk_shape = za.chunk_shape(chunk).map_err(|e| e.to_string())?;
    let full: Vec<usize> = chunk_shape.iter().map(|n| n.get() as usize).collect();
    let padded;
    let data: &ArrayD<T> = if a.shape() == full.as_slice() {
        a
    } else {
        let mut p = ArrayD::<T>::from_elem(IxDyn(&full), T::default());
        p.slice_each_axis_mut(|ax| Slice::from(0..a.shape()[ax.axis.index()])).assign(a);
        padded = p;
        &padded
    };
    let bytes = zarrs::array::IntoArrayBytes::into_array_bytes(data, za.data_type()).map_err(|e| e.to_string())?;
    let shape: Vec<NonZeroU64> = chunk_shape.to_vec();
    let encoded =
        za.codecs().encode(bytes, &shape, za.data_type(), za.fill_value(), options).map_err(|e| e.to_string())?;
    Ok(encoded.into_owned())
}
