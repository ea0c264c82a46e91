//! Zarr on the file system (dask's `da.from_zarr` and `Array.to_zarr`), through
//! the `zarrs` crate: reads v3 and v2 arrays as zarr-python 2.x and 3.x write
//! them (blosc, zstd, gzip/zlib or no compression; C and F order; "." and "/"
//! chunk key separators; little- and big-endian), and writes v3 or v2 arrays
//! ([`ZarrFormat`]) block by block.
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
//! file (`.chunked-incomplete`), and the array's metadata (either format's)
//! waits under another name ([`PENDING_METADATA`]) until every chunk is
//! written: other Zarr clients (zarr-python) find no array there, rather than one with missing chunks read
//! as the fill value. Our readers refuse such an array (unless told otherwise)
//! and [`WriteMode::Resume`](crate::io::WriteMode::Resume) continues it.
//! Chunks reach the operating system when they are renamed, so they survive a
//! killed process; durability across a power cut would need an `fsync` per
//! chunk, which this does not do.

use std::path::Path;
use std::sync::Arc;

// JSON attributes (`ZarrWriteOptions::attributes`): serde_json's types, documented there.
#[doc(no_inline)]
pub use serde_json::{Map, Value};
/// The compressor inside [`Compression::Blosc`] (zarrs' type).
///
/// ```
/// use chunked_array::io::zarr::{BloscCompressor, BloscShuffleMode, Compression};
/// let blosc = Compression::Blosc { compressor: BloscCompressor::Zstd, level: 5, shuffle: BloscShuffleMode::BitShuffle };
/// assert_ne!(blosc, Compression::default());
/// ```
pub use zarrs::array::codec::BloscCompressor;
/// The shuffle before [`Compression::Blosc`]'s compressor (zarrs' type).
///
/// ```
/// use chunked_array::io::zarr::{BloscCompressor, BloscShuffleMode, Compression};
/// // zarr-python 2's default: lz4 at level 5 after a byte shuffle.
/// let zarr2 = Compression::Blosc { compressor: BloscCompressor::LZ4, level: 5, shuffle: BloscShuffleMode::Shuffle };
/// assert!(matches!(zarr2, Compression::Blosc { shuffle: BloscShuffleMode::Shuffle, .. }));
/// ```
pub use zarrs::array::codec::BloscShuffleMode;

mod bounded;
mod group;
mod info;
mod location;
mod metadata;
mod options;
mod read;
mod region;
mod untrusted;
mod write;

pub use group::{ZarrGroupOptions, consolidate_zarr_metadata, create_zarr_group};
pub use info::{ZarrArrayInfo, zarr_info, zarr_members};
pub use location::{INCOMPLETE_MARKER, PENDING_METADATA};
pub use options::{Compression, ShardingOptions, ZarrFormat, ZarrReadOptions, ZarrWriteOptions};
pub use region::{ZarrRegionOptions, create_zarr};

use crate::array::Array;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::exec::Context;
use crate::io::store::{Completion, Store, StoreReport, store_one};
use crate::ops::dynamic::AnyArray;
use location::{Location, ZArray, check_data_type, codec_options, stored_chunks, zarr_data_type};
use read::ZarrSource;
use write::{build_array, chunk_writer, prepare_target, share_plan};

/// Reads array `array` (a path inside the store, "" for the root) of the Zarr
/// store at `path`, with blocks equal to the stored chunks. Lazy: nothing is read
/// until a compute, and then only the chunks the requested blocks touch.
///
/// ```
/// use chunked_array::io::zarr::{from_zarr, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-from-zarr-{}", std::process::id()));
/// Array::<i32>::arange(0, 10, 1, 4).unwrap().to_zarr(&dir, "group/a", &ZarrWriteOptions::default()).unwrap();
/// let a = from_zarr::<i32>(&dir, "group/a").unwrap(); // lazy: reads nothing yet
/// assert_eq!(a.chunks().lengths()[0], vec![4, 4, 2]); // the stored chunks
/// assert_eq!(a.sum(None).unwrap().compute_scalar().unwrap(), 45);
/// assert!(from_zarr::<f64>(&dir, "group/a").is_err()); // stored as i32
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
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
/// ```
/// use chunked_array::io::zarr::{from_zarr_with, ZarrReadOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-from-zarr-with-{}", std::process::id()));
/// let x = Array::<f64>::ones(&[6, 6], 2).unwrap();
/// x.to_zarr(&dir, "", &ZarrWriteOptions::default()).unwrap(); // the array at the root
/// let options = ZarrReadOptions { chunks: Some(vec![3, 6].into()), ..Default::default() };
/// let y = from_zarr_with::<f64>(&dir, "", &options).unwrap(); // each block reads 3 chunks
/// assert_eq!((y.num_blocks(), y.compute().unwrap()), (2, x.compute().unwrap()));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// As [`from_zarr`], and [`Error::BadChunks`] for a chunk spec that does not fit.
pub fn from_zarr_with<T: Element>(path: impl AsRef<Path>, array: &str, options: &ZarrReadOptions) -> Result<Array<T>> {
    let (location, za) = open_checked(path.as_ref(), array, options)?;
    check_data_type::<T>(&za, &location)?;
    zarr_source(location, za, options)
}

/// The array `array` of the store at `root`, opened after the checks every
/// read makes: the store exists, and no interrupted store left it
/// incomplete (unless `options` allow it).
fn open_checked(root: &Path, array: &str, options: &ZarrReadOptions) -> Result<(Location, ZArray)> {
    let location = Location::new(root, array, &options.storage)?;
    if !location.root_exists() {
        return Err(Error::io(root.display(), "no such file or directory"));
    }
    if !options.allow_incomplete && location.exists(INCOMPLETE_MARKER)? {
        return Err(Error::io(
            location.name(),
            "a store into this array was interrupted and it is incomplete: rerun the store with WriteMode::Resume",
        ));
    }
    let za = location.open(options.direct_io, options.allow_incomplete)?;
    Ok((location, za))
}

/// The lazy array reading the opened `za` (whose data type is `T`'s).
fn zarr_source<T: Element>(location: Location, za: ZArray, options: &ZarrReadOptions) -> Result<Array<T>> {
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

/// Reads Zarr array `array` of the store at `path` whatever its element
/// type: the [`AnyArray`] of the type it stores.
///
/// ```
/// use chunked_array::io::zarr::{from_zarr_any, ZarrWriteOptions};
/// use chunked_array::{Array, Complex64, DType};
/// let dir = std::env::temp_dir().join(format!("chunked-doc-from-zarr-any-{}", std::process::id()));
/// let z = Array::from_vec(&[2], vec![Complex64::new(1.0, -1.0); 2], 1).unwrap();
/// z.to_zarr(&dir, "z", &ZarrWriteOptions::default()).unwrap();
/// let any = from_zarr_any(&dir, "z").unwrap();
/// assert_eq!(any.dtype(), DType::Complex128);
/// assert!(any.binary("arctan2", &any).is_err()); // arctan2 has no complex form
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// As [`from_zarr`]; [`Error::DtypeMismatch`] for a data type that no
/// element type stores.
pub fn from_zarr_any(path: impl AsRef<Path>, array: &str) -> Result<AnyArray> {
    fn typed<T: Element>(location: Location, za: ZArray, options: &ZarrReadOptions) -> Option<Result<AnyArray>>
    where
        AnyArray: From<Array<T>>,
    {
        Some(zarr_source::<T>(location, za, options).map(AnyArray::from))
    }
    let options = ZarrReadOptions::default();
    let (location, za) = open_checked(path.as_ref(), array, &options)?;
    let stored = za.data_type().clone();
    let Some(dtype) = DType::ALL.into_iter().find(|&d| zarr_data_type(d) == stored) else {
        return Err(Error::DtypeMismatch {
            key: location.name(),
            expected: "a numeric or bool data type".into(),
            found: format!("{stored} (zarr data type)"),
        });
    };
    crate::block::dispatch_dtype!(dtype, typed::<_>(location, za, &options)).expect("an element dtype, found above")
}

impl<T: Element> Array<T> {
    /// Writes the array to Zarr v3 array `array` (a path inside the store, "" for
    /// the root) of the store at `path`, each block as it is computed, with the
    /// default (threaded) scheduler. See the [module docs](crate::io::zarr).
    ///
    /// ```
    /// use chunked_array::io::zarr::{from_zarr, ZarrWriteOptions};
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-to-zarr-{}", std::process::id()));
    /// let x = Array::<f64>::linspace(0.0, 1.0, 9, true, 3).unwrap();
    /// let report = x.to_zarr(&dir, "x", &ZarrWriteOptions::default()).unwrap();
    /// assert_eq!(report.chunks_written, 3); // one chunk per block
    /// assert!(x.to_zarr(&dir, "x", &ZarrWriteOptions::default()).is_err()); // exists
    /// assert_eq!(from_zarr::<f64>(&dir, "x").unwrap().compute().unwrap(), x.compute().unwrap());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] naming the path or chunk file when the target exists (in
    /// [`WriteMode::Create`](crate::io::WriteMode::Create)), holds something that
    /// is not a Zarr array, does not match in
    /// [`WriteMode::Resume`](crate::io::WriteMode::Resume), or when a write fails (a full disk); the
    /// array is then left marked incomplete. Task errors of the computation.
    pub fn to_zarr(&self, path: impl AsRef<Path>, array: &str, options: &ZarrWriteOptions) -> Result<StoreReport> {
        self.to_zarr_on(path, array, options, &Context::default())
    }

    /// [`Array::to_zarr`] with the given context.
    ///
    /// ```
    /// use chunked_array::io::zarr::ZarrWriteOptions;
    /// use chunked_array::{Array, Context};
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-to-zarr-on-{}", std::process::id()));
    /// let x = Array::<i64>::arange(0, 12, 1, 5).unwrap();
    /// let report = x.to_zarr_on(&dir, "x", &ZarrWriteOptions::default(), &Context::sync()).unwrap();
    /// assert_eq!((report.chunks_written, report.chunks_skipped), (3, 0));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_zarr`].
    ///
    /// With a context over several processes (MPI), rank 0 checks and prepares
    /// the target (and, to resume, finds the chunks already complete) and shares
    /// the plan with every rank; each chunk is then written by the rank that
    /// computes it.
    pub fn to_zarr_on(
        &self,
        path: impl AsRef<Path>,
        array: &str,
        options: &ZarrWriteOptions,
        ctx: &Context,
    ) -> Result<StoreReport> {
        let mut store = Store::new();
        store.zarr_on(self, path, array, options, ctx)?;
        store_one(store, ctx)
    }
}

impl Store {
    /// Adds Zarr v3 array `array` of the store at `path` as a target for `a` (see
    /// [`Array::to_zarr`]).
    ///
    /// ```
    /// use chunked_array::io::zarr::{from_zarr, ZarrWriteOptions};
    /// use chunked_array::io::Store;
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-zarr-{}", std::process::id()));
    /// let x = Array::<f64>::linspace(0.0, 1.0, 8, true, 4).unwrap();
    /// let options = ZarrWriteOptions::default();
    /// let mut store = Store::new();
    /// store.zarr(&x, &dir, "x", &options).unwrap().zarr(&x.sin(), &dir, "sin", &options).unwrap();
    /// assert_eq!(store.run().unwrap().len(), 2); // x is made once for both
    /// assert_eq!(from_zarr::<f64>(&dir, "sin").unwrap().compute().unwrap(), x.sin().compute().unwrap());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_zarr`], for what can be checked before computing.
    pub fn zarr<T: Element>(
        &mut self,
        a: &Array<T>,
        path: impl AsRef<Path>,
        array: &str,
        options: &ZarrWriteOptions,
    ) -> Result<&mut Self> {
        self.zarr_on(a, path, array, options, &Context::default())
    }

    /// [`Store::zarr`] for a store that runs with `ctx`: with several processes
    /// (MPI), rank 0 prepares the target and shares the plan (see
    /// [`Array::to_zarr_on`]); every rank must make the same call.
    ///
    /// ```
    /// use chunked_array::io::zarr::ZarrWriteOptions;
    /// use chunked_array::io::Store;
    /// use chunked_array::{Array, Context};
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-zarr-on-{}", std::process::id()));
    /// let ctx = Context::threads(2);
    /// let x = Array::<f32>::ones(&[10], 5).unwrap();
    /// let mut store = Store::new();
    /// store.zarr_on(&x, &dir, "x", &ZarrWriteOptions::default(), &ctx).unwrap();
    /// assert_eq!(store.run_on(&ctx).unwrap()[0].chunks_written, 2);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Store::zarr`]; on the other ranks, rank 0's error.
    pub fn zarr_on<T: Element>(
        &mut self,
        a: &Array<T>,
        path: impl AsRef<Path>,
        array: &str,
        options: &ZarrWriteOptions,
        ctx: &Context,
    ) -> Result<&mut Self> {
        let scheduler = ctx.scheduler();
        let prepared = a.check().and_then(|()| {
            let location = Location::new(path.as_ref(), array, &options.storage)?;
            location.check_writable()?;
            let (source, chunk_shape) = crate::io::aligned_to_stored_chunks(a, options.chunks.as_deref())?;
            let za = build_array::<T>(&location, &source.shape(), &chunk_shape, options)?;
            Ok((location, source, za))
        });
        // An error here on one rank (its view of the file system) reaches
        // every rank before the plan's broadcast and the run, which it would
        // otherwise leave waiting for this rank.
        if scheduler.processes() > 1
            && let Some(rank) = scheduler.first_failed(prepared.is_ok())
            && prepared.is_ok()
        {
            return Err(Error::io(path.as_ref().display(), format!("rank {rank} could not prepare the store")));
        }
        let (location, source, za) = prepared?;
        let root = scheduler.rank() == 0;
        let plan =
            if root { prepare_target(&location, &za, options, &source.chunks().grid()) } else { Ok((Vec::new(), 0)) };
        let (todo, skipped) = if scheduler.processes() > 1 { share_plan(scheduler, plan, &location)? } else { plan? };
        let writer = chunk_writer(za, &location, options.direct_io, scheduler.processes());
        let uploads = writer.uploads_handle();
        // Each rank waits for its own uploads; rank 0 alone marks the array
        // complete: its run ends only once every rank has finished writing.
        // The metadata appears first (in one rename, or one object), then
        // the marker goes.
        let finish: Box<dyn FnOnce() -> Result<()> + Send> = Box::new(move || {
            uploads.finish()?;
            if root {
                location.publish_metadata()?;
                location.remove_file(INCOMPLETE_MARKER)?;
            }
            Ok(())
        });
        // On failure the marker stays: the array is incomplete, and resumable.
        self.push(&source, "to_zarr", true, writer, (todo, skipped), Completion { finish, abort: Box::new(|| {}) });
        Ok(self)
    }
}
