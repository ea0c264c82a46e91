//! Zarr on the file system, through the `zarrs` crate: reads v3 and v2 arrays as
//! zarr-python 2.x and 3.x write them (blosc, zstd, gzip/zlib or no compression;
//! C and F order; "." and "/" chunk key separators; little- and big-endian), and
//! writes v3 arrays block by block.
//!
//! ```
//! use chunked_array::io::zarr::{from_zarr, ZarrWriteOptions};
//! use chunked_array::random::RandomState;
//! let dir = std::env::temp_dir().join(format!("chunked-doc-zarr-{}", std::process::id()));
//! let x: chunked_array::Array<f64> = RandomState::new(1).uniform(&[300, 200], [100, 100]).unwrap();
//! let report = x.to_zarr(&dir, "x", &ZarrWriteOptions::default()).unwrap();
//! assert_eq!(report.chunks_written, 6);
//! let y = from_zarr::<f64>(&dir, "x").unwrap();
//! assert_eq!(y.chunks(), x.chunks());
//! assert_eq!(y.compute().unwrap(), x.compute().unwrap());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! **Stored chunks and blocks.** A written array's stored chunks are its blocks:
//! a regular chunking (every block but the last on each axis of one size) is
//! written as is; an irregular one is first rechunked to its largest block per
//! axis (zarr's chunk grid is regular); [`ZarrWriteOptions::chunks`] picks another
//! chunk shape and rechunks to it. A read array's blocks default to the stored
//! chunks; [`ZarrReadOptions::chunks`] picks others, and then a block reads every
//! stored chunk it touches.
//!
//! **Crash safety.** Every chunk file is written under a temporary name and
//! renamed when complete. While a store runs, the array directory holds a marker
//! file (`.chunked-incomplete`), and the array's metadata waits under another
//! name ([`PENDING_METADATA`]) until every chunk is written: other Zarr clients
//! (zarr-python) find no array there, rather than one with missing chunks read
//! as the fill value. Our readers refuse such an array (unless told otherwise)
//! and [`WriteMode::Resume`] continues it. Chunks reach the operating
//! system when they are renamed, so they survive a killed process; durability
//! across a power cut would need an `fsync` per chunk, which this does not do.

use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn, Slice};
use zarrs::array::codec::api::{ArrayToBytesCodecTraits, BytesToBytesCodecTraits};
use zarrs::array::codec::{Crc32cCodec, GzipCodec, ZstdCodec};
use zarrs::array::{ArrayBuilder, ArrayBytes, ArraySubset, CodecOptions, DataType};
use zarrs::filesystem::FilesystemStore;

pub use serde_json::{Map, Value};

pub use zarrs::array::codec::{BloscCompressor, BloscShuffleMode};

use crate::io::atomic::{remove_temporaries, write_atomic};
use crate::io::store::{store_one, ChunkWriter, Completion, Store, StoreReport, WriteMode};
use crate::array::Array;
use crate::chunks::{ChunkSpec, Chunks};
use crate::ops::custom::block_array;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::block::Block;
use crate::graph::{BlockOp, Node};
use crate::exec::Context;

/// The marker a running store leaves in the array directory until it finishes.
pub const INCOMPLETE_MARKER: &str = ".chunked-incomplete";

/// The name of an unfinished store's `zarr.json`: renamed to `zarr.json`, in one
/// step, once every chunk is written.
pub const PENDING_METADATA: &str = "zarr.json.chunked-pending";

type ZArray = zarrs::array::Array<FilesystemStore>;

/// How [`from_zarr_with`] reads.
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

/// How [`Array::to_zarr`] writes.
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
    /// cache. Where the kernel's buffered writes are slow (the virtual machine the
    /// benchmark ran on: 0.7 GB/s buffered, 1.7 GB/s direct) this is much faster
    /// and leaves the cores to compression; the written data is then not cached
    /// for a read that follows. Ignored on file systems without direct I/O.
    pub direct_io: bool,
}

/// Reads array `array` (a path inside the store, "" for the root) of the Zarr
/// store at `path`, with blocks equal to the stored chunks. Lazy: nothing is read
/// until a compute, and then only the chunks the requested blocks touch.
///
/// # Errors
/// [`Error::Io`] naming the path when it is missing, holds no Zarr array, or holds
/// an interrupted store; [`Error::DtypeMismatch`] when the stored data type is not
/// `T`. A missing chunk reads as the fill value; a corrupt one fails the compute
/// with [`Error::Io`] naming the chunk file.
pub fn from_zarr<T: Element>(path: impl AsRef<Path>, array: &str) -> Result<Array<T>> {
    from_zarr_with(path, array, &ZarrReadOptions::default())
}

/// [`from_zarr`] with options (other blocks, reading an incomplete store).
///
/// # Errors
/// As [`from_zarr`], and [`Error::BadChunks`] for a chunk spec that does not fit.
pub fn from_zarr_with<T: Element>(path: impl AsRef<Path>, array: &str, options: &ZarrReadOptions) -> Result<Array<T>> {
    let root = path.as_ref();
    let location = Location::new(root, array)?;
    if !root.exists() {
        return Err(Error::io(root.display(), "no such file or directory"));
    }
    if !options.allow_incomplete && location.dir.join(INCOMPLETE_MARKER).exists() {
        return Err(Error::io(
            location.dir.display(),
            "a store into this array was interrupted and it is incomplete: rerun the store with WriteMode::Resume",
        ));
    }
    let za = location.open(options.direct_io, options.allow_incomplete)?;
    let want = zarr_data_type(T::DTYPE);
    if za.data_type() != &want {
        return Err(Error::DtypeMismatch {
            key: location.dir.display().to_string(),
            expected: T::DTYPE.to_string(),
            found: format!("{} (zarr data type)", za.data_type()),
        });
    }
    let shape: Vec<usize> = za.shape().iter().map(|&n| n as usize).collect();
    let stored = stored_chunks(&za, &location)?;
    let chunks = match &options.chunks {
        None => stored.clone(),
        Some(spec) => spec.resolve(&shape, T::DTYPE)?,
    };
    let aligned = chunks == stored;
    let source = ZarrSource { array: Arc::new(za), location, aligned, options: codec_options() };
    Ok(Array::source("from_zarr", chunks, source))
}

impl<T: Element> Array<T> {
    /// Writes the array to Zarr v3 array `array` (a path inside the store, "" for
    /// the root) of the store at `path`, each block as it is computed, with the
    /// default (threaded) scheduler. See the [module docs](crate::io::zarr).
    ///
    /// # Errors
    /// [`Error::Io`] naming the path or chunk file when the target exists (in
    /// [`WriteMode::Create`]), holds something that is not a Zarr array, does not
    /// match in [`WriteMode::Resume`], or when a write fails (a full disk); the
    /// array is then left marked incomplete. Task errors of the computation.
    pub fn to_zarr(&self, path: impl AsRef<Path>, array: &str, options: &ZarrWriteOptions) -> Result<StoreReport> {
        self.to_zarr_with(path, array, options, &Context::default())
    }

    /// [`Array::to_zarr`] with the given context.
    ///
    /// # Errors
    /// As [`Array::to_zarr`].
    ///
    /// With a context over several processes (MPI), rank 0 checks and prepares
    /// the target (and, to resume, finds the chunks already complete) and shares
    /// the plan with every rank; each chunk is then written by the rank that
    /// computes it.
    pub fn to_zarr_with(&self, path: impl AsRef<Path>, array: &str, options: &ZarrWriteOptions, ctx: &Context) -> Result<StoreReport> {
        let mut store = Store::new();
        store.zarr_with(self, path, array, options, ctx)?;
        store_one(store, ctx)
    }
}

impl Store {
    /// Adds Zarr v3 array `array` of the store at `path` as a target for `a` (see
    /// [`Array::to_zarr`]).
    ///
    /// # Errors
    /// As [`Array::to_zarr`], for what can be checked before computing.
    pub fn zarr<T: Element>(&mut self, a: &Array<T>, path: impl AsRef<Path>, array: &str, options: &ZarrWriteOptions) -> Result<&mut Self> {
        self.zarr_with(a, path, array, options, &Context::default())
    }

    /// [`Store::zarr`] for a store that runs with `ctx`: with several processes
    /// (MPI), rank 0 prepares the target and shares the plan (see
    /// [`Array::to_zarr_with`]); every rank must make the same call.
    ///
    /// # Errors
    /// As [`Store::zarr`]; on the other ranks, rank 0's error.
    pub fn zarr_with<T: Element>(&mut self, a: &Array<T>, path: impl AsRef<Path>, array: &str, options: &ZarrWriteOptions, ctx: &Context) -> Result<&mut Self> {
        a.check()?;
        let location = Location::new(path.as_ref(), array)?;
        let (source, chunk_shape) = crate::io::aligned_to_stored_chunks(a, options.chunks.as_deref())?;
        let za = build_array::<T>(&location, &source.shape(), &chunk_shape, options)?;
        let scheduler = ctx.scheduler();
        let root = scheduler.rank() == 0;
        let plan = if root { prepare_target(&location, &za, options, &source.chunks().grid()) } else { Ok((Vec::new(), 0)) };
        let (todo, skipped) = if scheduler.processes() > 1 { share_plan(scheduler, plan, &location)? } else { plan? };
        let writer = ZarrChunkWriter { array: Arc::new(za), location: location.clone(), options: codec_options(), direct_io: options.direct_io };
        let marker = location.dir.join(INCOMPLETE_MARKER);
        let (pending, metadata) = (location.dir.join(PENDING_METADATA), location.dir.join("zarr.json"));
        // Rank 0 alone marks the array complete: its run ends only once every
        // rank has finished writing. The metadata appears first (in one rename),
        // then the marker goes.
        let finish: Box<dyn FnOnce() -> Result<()> + Send> = if root {
            Box::new(move || {
                std::fs::rename(&pending, &metadata).map_err(|e| Error::io(pending.display(), e))?;
                std::fs::remove_file(&marker).map_err(|e| Error::io(marker.display(), e))
            })
        } else {
            Box::new(|| Ok(()))
        };
        // On failure the marker stays: the array is incomplete, and resumable.
        self.push(&source, "to_zarr", true, writer, (todo, skipped), Completion { finish, abort: Box::new(|| {}) });
        Ok(self)
    }
}

/// Rank 0's plan (the chunks to write, and how many were skipped), or its
/// error, on every rank.
fn share_plan(scheduler: &dyn crate::Scheduler, plan: Result<(Vec<usize>, usize)>, location: &Location) -> Result<(Vec<usize>, usize)> {
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
        Some((0, message)) => Err(Error::io(location.dir.display(), format!("rank 0 could not prepare the store: {}", String::from_utf8_lossy(message)))),
        _ => Err(Error::io(location.dir.display(), "rank 0 shared no store plan")),
    }
}

/// Checks the target against the write mode, writes the incomplete marker and
/// the pending metadata, and lists the chunks to write (all, or to resume, those not
/// already complete); returns them with the number skipped.
fn prepare_target(location: &Location, za: &ZArray, options: &ZarrWriteOptions, grid: &[usize]) -> Result<(Vec<usize>, usize)> {
    let existing = location.existing()?;
    let resume = options.mode == WriteMode::Resume && existing == Existing::ZarrV3;
    match (options.mode, existing) {
        (_, Existing::Nothing) => {}
        (WriteMode::Create, _) => {
            return Err(Error::io(location.dir.display(), "already exists (write with WriteMode::Overwrite to replace it)"))
        }
        (_, Existing::Other) => {
            return Err(Error::io(location.dir.display(), "holds something that is not a Zarr array; it is left untouched"))
        }
        (WriteMode::Resume, Existing::ZarrV2) => {
            return Err(Error::io(location.dir.display(), "holds a Zarr v2 array; only v3 stores can be resumed"))
        }
        (WriteMode::Resume, _) => check_same_layout(location, za)?,
        (WriteMode::Overwrite, _) => {
            std::fs::remove_dir_all(&location.dir).map_err(|e| Error::io(location.dir.display(), e))?;
        }
    }

    let marker = location.dir.join(INCOMPLETE_MARKER);
    write_atomic(&marker, b"a chunked store into this array has not finished\n", false)?;
    let text = serde_json::to_vec_pretty(&za.metadata_opt(&zarrs::array::ArrayMetadataOptions::default())).map_err(|e| Error::io(location.dir.display(), e))?;
    write_atomic(&location.dir.join(PENDING_METADATA), &text, false)?;
    // A resumed complete array is unfinished again (hidden from other clients)
    // until its chunks are checked; the pending metadata exists first, so a
    // crash here leaves a store that can still be resumed.
    let metadata = location.dir.join("zarr.json");
    if metadata.exists() {
        std::fs::remove_file(&metadata).map_err(|e| Error::io(metadata.display(), e))?;
    }
    remove_temporaries(&location.dir)?;

    let total: usize = grid.iter().product();
    Ok(if resume {
        let complete = complete_chunks(za, location, grid);
        let todo: Vec<usize> = (0..total).filter(|&b| !complete[b]).collect();
        let skipped = total - todo.len();
        (todo, skipped)
    } else {
        ((0..total).collect(), 0)
    })
}

/// The store root, the array's path inside it and its directory.
#[derive(Debug, Clone)]
struct Location {
    root: PathBuf,
    /// "/" or "/a/b", as zarrs names nodes.
    node: String,
    dir: PathBuf,
}

impl Location {
    fn new(root: &Path, array: &str) -> Result<Location> {
        let trimmed = array.trim_matches('/');
        if trimmed.split('/').any(|part| part == "." || part == "..") {
            return Err(Error::invalid("array", array, "a Zarr node path may not contain '.' or '..' components"));
        }
        let dir = if trimmed.is_empty() { root.to_path_buf() } else { root.join(trimmed) };
        Ok(Location { root: root.to_path_buf(), node: format!("/{trimmed}"), dir })
    }

    fn store(&self) -> Result<Arc<FilesystemStore>> {
        FilesystemStore::new(&self.root).map(Arc::new).map_err(|e| Error::io(self.root.display(), e))
    }

    /// The array, from its `zarr.json` (or `.zarray`), or from an unfinished
    /// store's pending metadata when `pending` allows it.
    fn open(&self, direct_io: bool, pending: bool) -> Result<ZArray> {
        let mut options = zarrs::filesystem::FilesystemStoreOptions::default();
        options.direct_io(direct_io);
        let store = Arc::new(FilesystemStore::new_with_options(&self.root, options).map_err(|e| Error::io(self.root.display(), e))?);
        let waiting = self.dir.join(PENDING_METADATA);
        if !self.dir.join("zarr.json").exists() && !self.dir.join(".zarray").exists() {
            if pending && waiting.exists() {
                let text = std::fs::read(&waiting).map_err(|e| Error::io(waiting.display(), e))?;
                let metadata = serde_json::from_slice(&text).map_err(|e| Error::io(waiting.display(), e))?;
                return ZArray::new_with_metadata(store, &self.node, metadata).map_err(|e| Error::io(waiting.display(), e));
            }
            return Err(Error::io(self.dir.display(), "no Zarr array here (neither zarr.json nor .zarray)"));
        }
        ZArray::open(store, &self.node).map_err(|e| Error::io(self.dir.display(), e))
    }

    fn chunk_path(&self, za: &ZArray, idx: &[u64]) -> PathBuf {
        self.root.join(za.chunk_key(idx).as_str())
    }

    fn existing(&self) -> Result<Existing> {
        if self.dir.join("zarr.json").exists() || self.dir.join(PENDING_METADATA).exists() {
            return Ok(Existing::ZarrV3);
        }
        if self.dir.join(".zarray").exists() {
            return Ok(Existing::ZarrV2);
        }
        match std::fs::read_dir(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Existing::Nothing),
            Err(e) => Err(Error::io(self.dir.display(), e)),
            // An empty directory, or one left by a store killed before its
            // metadata was written, holds nothing to lose.
            Ok(mut entries) => Ok(if entries.all(|e| e.is_ok_and(|e| e.file_name() == INCOMPLETE_MARKER)) {
                Existing::Nothing
            } else {
                Existing::Other
            }),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Existing {
    Nothing,
    ZarrV3,
    ZarrV2,
    Other,
}

fn codec_options() -> CodecOptions {
    // Blocks are already decoded in parallel, one per worker: nested parallelism
    // inside a codec would only oversubscribe the cores.
    let mut o = CodecOptions::default();
    o.set_concurrent_target(1).set_store_empty_chunks(true);
    o
}

fn zarr_data_type(dtype: DType) -> DataType {
    use zarrs::array::data_type as dt;
    match dtype {
        DType::F32 => dt::float32(),
        DType::F64 => dt::float64(),
        DType::I32 => dt::int32(),
        DType::I64 => dt::int64(),
        DType::U8 => dt::uint8(),
        DType::Bool | DType::Intermediate => dt::bool(),
    }
}

/// Block lengths per axis of the stored chunk grid (the last chunk on an axis cut
/// at the array's edge).
fn stored_chunks(za: &ZArray, location: &Location) -> Result<Chunks> {
    let grid = za.chunk_grid_shape().to_vec();
    let mut lengths = Vec::with_capacity(grid.len());
    for (axis, &g) in grid.iter().enumerate() {
        if g == 0 {
            lengths.push(vec![0]);
            continue;
        }
        let mut axis_lengths = Vec::with_capacity(g as usize);
        let mut idx = vec![0u64; grid.len()];
        for i in 0..g {
            idx[axis] = i;
            let subset = za.chunk_subset_bounded(&idx).map_err(|e| Error::io(location.dir.display(), e))?;
            axis_lengths.push(subset.shape()[axis] as usize);
        }
        lengths.push(axis_lengths);
    }
    Ok(Chunks::from_lengths(lengths))
}

/// Reads one block per task.
struct ZarrSource {
    array: Arc<ZArray>,
    location: Location,
    /// Blocks are the stored chunks: errors name the chunk file.
    aligned: bool,
    options: CodecOptions,
}

impl BlockOp for ZarrSource {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let start = node.chunks.block_start(idx);
        let shape = node.chunks.block_shape(idx);
        let ranges: Vec<std::ops::Range<u64>> = start.iter().zip(&shape).map(|(&s, &n)| s as u64..(s + n) as u64).collect();
        let subset = ArraySubset::new_with_ranges(&ranges);
        let chunk: Vec<u64> = idx.iter().map(|&i| i as u64).collect();
        // A block that is exactly one whole stored chunk decodes straight into its
        // array; others (edge chunks cut at the array's end, other blockings) go
        // through the subset path.
        let whole_chunk = self.aligned
            && self.array.chunk_shape(&chunk).is_ok_and(|c| c.iter().zip(&shape).all(|(c, &n)| c.get() == n as u64));
        let read = if whole_chunk {
            crate::block::dispatch_dtype!(node.dtype, read_chunk::<_>(self, &chunk))
        } else {
            crate::block::dispatch_dtype!(node.dtype, read_subset::<_>(self, &subset))
        };
        read.expect("a zarr source holds elements").map_err(|e| {
            let what = if self.aligned {
                self.location.chunk_path(&self.array, &chunk).display().to_string()
            } else {
                format!("{} region {ranges:?}", self.location.dir.display())
            };
            Error::io(what, e)
        })
    }
}

fn read_chunk<T: Element + zarrs::array::ElementOwned>(
    source: &ZarrSource,
    chunk: &[u64],
) -> Option<std::result::Result<Block, zarrs::array::ArrayError>> {
    Some(source.array.retrieve_chunk_opt::<ArrayD<T>>(chunk, &source.options).map(|a| Arc::new(a) as Block))
}

fn read_subset<T: Element + zarrs::array::ElementOwned>(
    source: &ZarrSource,
    subset: &ArraySubset,
) -> Option<std::result::Result<Block, zarrs::array::ArrayError>> {
    Some(source.array.retrieve_array_subset_opt::<ArrayD<T>>(subset, &source.options).map(|a| Arc::new(a) as Block))
}

fn build_array<T: Element>(location: &Location, shape: &[usize], chunk_shape: &[usize], options: &ZarrWriteOptions) -> Result<ZArray> {
    let store = location.store()?;
    let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
    let chunk_shape: Vec<u64> = chunk_shape.iter().map(|&n| n as u64).collect();
    let fill = fill_value::<T>();
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
    let mut builder = ArrayBuilder::new(shape, chunk_shape, zarr_data_type(T::DTYPE), fill);
    builder.bytes_to_bytes_codecs(codecs).attributes(options.attributes.clone());
    if let Some(names) = &options.dimension_names {
        if names.len() != location_ndim(&builder) {
            return Err(Error::invalid("dimension_names", names, format!("needs one name per axis ({})", location_ndim(&builder))));
        }
        builder.dimension_names(Some(names.clone()));
    }
    builder.build(store, &location.node).map_err(|e| Error::io(location.dir.display(), e))
}

fn location_ndim(builder: &ArrayBuilder) -> usize {
    builder.build_metadata().map(|m| m.shape.len()).unwrap_or(0)
}

/// The zero of `T` as a zarr fill value.
fn fill_value<T: Element>() -> zarrs::array::FillValue {
    match T::DTYPE {
        DType::F32 => 0f32.into(),
        DType::F64 => 0f64.into(),
        DType::I32 => 0i32.into(),
        DType::I64 => 0i64.into(),
        DType::U8 => 0u8.into(),
        DType::Bool | DType::Intermediate => false.into(),
    }
}

/// A resumed store must write exactly the layout that is there.
fn check_same_layout(location: &Location, want: &ZArray) -> Result<()> {
    let have = location.open(false, true)?;
    let describe = |a: &ZArray| {
        let chunk: Vec<u64> = a.chunk_grid_shape().iter().map(|_| 0).collect();
        let chunk_shape = a.chunk_shape(&chunk).map(|c| c.iter().map(|n| n.get()).collect::<Vec<_>>()).unwrap_or_default();
        let codecs = serde_json::to_value(a.metadata()).map(|m| m["codecs"].to_string()).unwrap_or_default();
        (a.shape().to_vec(), chunk_shape, a.data_type().to_string(), codecs)
    };
    let (h, w) = (describe(&have), describe(want));
    if h != w {
        return Err(Error::io(
            location.dir.display(),
            format!(
                "cannot resume: stored (shape {:?}, chunks {:?}, {}, codecs {}) differs from this store (shape {:?}, chunks {:?}, {}, codecs {})",
                h.0, h.1, h.2, h.3, w.0, w.1, w.2, w.3
            ),
        ));
    }
    Ok(())
}

/// Which chunks an earlier run wrote completely: the chunk file exists and decodes
/// to a whole chunk (checked in parallel).
fn complete_chunks(za: &ZArray, location: &Location, grid: &[usize]) -> Vec<bool> {
    let total: usize = grid.iter().product();
    let chunks = Chunks::from_lengths(grid.iter().map(|&g| vec![1; g]).collect());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(total.max(1));
    let options = codec_options();
    let check = |b: usize| {
        let idx: Vec<u64> = chunks.unravel(b).into_iter().map(|i| i as u64).collect();
        location.chunk_path(za, &idx).exists() && za.retrieve_chunk_opt::<ArrayBytes<'static>>(&idx, &options).is_ok()
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
    complete
}

/// Encodes a block as one stored chunk and writes it atomically.
struct ZarrChunkWriter {
    array: Arc<ZArray>,
    location: Location,
    options: CodecOptions,
    direct_io: bool,
}

impl ChunkWriter for ZarrChunkWriter {
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64> {
        let chunk: Vec<u64> = idx.iter().map(|&i| i as u64).collect();
        let path = self.location.chunk_path(&self.array, &chunk);
        let dtype = crate::block::block_dtype(block);
        let encoded = crate::block::dispatch_dtype!(dtype, encode_block::<_>(self, &chunk, block))
            .ok_or_else(|| Error::io(path.display(), "the block holds no elements"))?
            .map_err(|e| Error::io(path.display(), e))?;
        write_atomic(&path, &encoded, self.direct_io)?;
        Ok(encoded.len() as u64)
    }
}

fn encode_block<T: Element + zarrs::array::Element>(
    writer: &ZarrChunkWriter,
    chunk: &[u64],
    block: &Block,
) -> Option<std::result::Result<Vec<u8>, String>> {
    Some(encode_typed::<T>(writer, chunk, block))
}

fn encode_typed<T: Element + zarrs::array::Element>(writer: &ZarrChunkWriter, chunk: &[u64], block: &Block) -> std::result::Result<Vec<u8>, String> {
    let za = &writer.array;
    let a = block_array::<T>(block).map_err(|e| e.to_string())?;
    let chunk_shape = za.chunk_shape(chunk).map_err(|e| e.to_string())?;
    let full: Vec<usize> = chunk_shape.iter().map(|n| n.get() as usize).collect();
    // Zarr stores whole chunks: an edge block is padded with the fill value.
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
    let encoded = za
        .codecs()
        .encode(bytes, &shape, za.data_type(), za.fill_value(), &writer.options)
        .map_err(|e| e.to_string())?;
    Ok(encoded.into_owned())
}
