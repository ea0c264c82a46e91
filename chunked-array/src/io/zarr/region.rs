//! Region writes: an array written into part of an existing Zarr array
//! (dask's `store(regions=)`, xarray's `to_zarr(region=)`), so that several
//! jobs or MPI ranks fill disjoint parts of one array made beforehand with
//! [`create_zarr`](super::create_zarr).
//!
//! The array is cut at the stored chunks' edges, so each block is one
//! stored chunk or part of one. A region whose edges cut stored chunks is an
//! error unless [`ZarrRegionOptions::read_modify_write`] is set: each cut
//! chunk is then read, updated and written back under a lock (a lock file
//! in the array's directory, for other processes on a shared file system, and
//! a lock per chunk within the process; on an object store only the latter,
//! so two processes must not write regions that cut the same chunk).
//!
//! The array stays readable while regions are written: every chunk is
//! replaced whole (a rename, or one object), and a failed region write
//! leaves each chunk either old or new (write the region again).

use std::ops::Range;
use std::sync::{Mutex, MutexGuard, OnceLock};

use ndarray::{ArrayD, Slice};
use zarrs::array::CodecOptions;

use crate::block::Block;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::io::store::{ChunkWriter, Completion};
use crate::io::zarr::INCOMPLETE_MARKER;
use crate::io::zarr::location::{Location, REGION_LOCK, ZArray, check_data_type, stored_chunk_shape};
use crate::io::zarr::write::{ZarrChunkWriter, encode_block, encode_chunk};
use crate::io::zarr::write::{build_array, chunk_writer, prepare_target};
use crate::ops::custom::block_array;

/// How [`crate::array::Array::to_zarr_region`] writes.
///
/// ```
/// use chunked_array::io::zarr::ZarrRegionOptions;
/// let options = ZarrRegionOptions { read_modify_write: true, ..Default::default() };
/// assert!(!options.direct_io);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ZarrRegionOptions {
    /// Allow a region whose edges cut stored chunks (each cut chunk is read,
    /// updated and written back, under a lock). Default false: such a region
    /// is an error, since two writers of neighbouring regions would each
    /// rewrite the chunk they share.
    pub read_modify_write: bool,
    /// Write chunk files with direct I/O (see
    /// [`ZarrWriteOptions::direct_io`](super::ZarrWriteOptions::direct_io)).
    pub direct_io: bool,
    /// How an object store URL is reached (ignored for local paths).
    pub storage: crate::io::cloud::StorageOptions,
}

/// Checks `region` against the stored array's `shape` and the source's,
/// and returns the source's blocks: cut at the stored chunks' edges.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the region when it has the wrong
/// number of axes, lies outside the array, differs in shape from the source,
/// or (without `read_modify_write`) cuts stored chunks.
pub(super) fn region_blocks(
    region: &[Range<usize>],
    stored_shape: &[usize],
    chunk_shape: &[usize],
    source_shape: &[usize],
    read_modify_write: bool,
) -> Result<Vec<Vec<usize>>> {
    let bad = |why: String| Error::invalid("region", format!("{region:?}"), why);
    if region.len() != stored_shape.len() {
        return Err(bad(format!("has {} axes; the stored array has {}", region.len(), stored_shape.len())));
    }
    let mut lengths = Vec::with_capacity(region.len());
    for (axis, r) in region.iter().enumerate() {
        let (n, c) = (stored_shape[axis], chunk_shape[axis].max(1));
        if r.start > r.end || r.end > n {
            return Err(bad(format!("lies outside the stored array's shape {stored_shape:?} on axis {axis}")));
        }
        if r.end - r.start != source_shape[axis] {
            return Err(bad(format!("has a shape other than the array's {source_shape:?} (axis {axis})")));
        }
        let cuts = r.start % c != 0 || (r.end % c != 0 && r.end != n);
        if cuts && !read_modify_write {
            return Err(bad(format!(
                "cuts the stored chunks ({chunk_shape:?}) on axis {axis}; align it to them, or set read_modify_write"
            )));
        }
        let mut axis_lengths = Vec::new();
        let mut at = r.start;
        while at < r.end {
            let next = ((at / c + 1) * c).min(r.end);
            axis_lengths.push(next - at);
            at = next;
        }
        if axis_lengths.is_empty() {
            axis_lengths.push(0);
        }
        lengths.push(axis_lengths);
    }
    Ok(lengths)
}

/// Writes each block of a region into its stored chunk.
pub(super) struct RegionWriter {
    pub(super) inner: ZarrChunkWriter,
    /// The region's first index on each axis.
    pub(super) start: Vec<usize>,
    pub(super) chunk_shape: Vec<usize>,
    pub(super) stored_shape: Vec<usize>,
    /// The region's block lengths per axis (from [`region_blocks`]).
    pub(super) lengths: Vec<Vec<usize>>,
}

/// A lock per stored chunk within the process (striped by the chunk's name).
fn chunk_lock(name: &str) -> MutexGuard<'static, ()> {
    static STRIPES: OnceLock<Vec<Mutex<()>>> = OnceLock::new();
    let stripes = STRIPES.get_or_init(|| (0..64).map(|_| Mutex::new(())).collect());
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    stripes[(hash % 64) as usize].lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An exclusive `flock` on the array's lock file, held until dropped.
struct FileLock(std::fs::File);

impl FileLock {
    fn take(path: &std::path::Path) -> Result<FileLock> {
        use std::os::unix::io::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path.display(), e))?;
        // SAFETY: flock on a descriptor this function owns for the lock's life.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(Error::io(path.display(), std::io::Error::last_os_error()));
        }
        Ok(FileLock(file))
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        use std::os::unix::io::AsRawFd;
        // SAFETY: the descriptor is open (owned by self.0).
        unsafe { libc::flock(self.0.as_raw_fd(), libc::LOCK_UN) };
    }
}

impl ChunkWriter for RegionWriter {
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64> {
        let za = &self.inner.array;
        // The block's offset in its chunk (only the region's first block on an
        // axis may start inside one), and the chunk's index.
        let mut offset = Vec::with_capacity(idx.len());
        let mut chunk = Vec::with_capacity(idx.len());
        for (axis, &i) in idx.iter().enumerate() {
            let c = self.chunk_shape[axis].max(1);
            let first = self.start[axis] / c;
            offset.push(if i == 0 { self.start[axis] % c } else { 0 });
            chunk.push((first + i) as u64);
        }
        let whole = offset.iter().all(|&o| o == 0)
            && idx.iter().enumerate().all(|(axis, &i)| {
                let n = self.lengths[axis][i];
                let begin = chunk[axis] as usize * self.chunk_shape[axis];
                n == self.chunk_shape[axis].min(self.stored_shape[axis] - begin)
            });
        let name = self.inner.location.chunk_name(za, &chunk);
        let dtype = crate::block::block_dtype(block);
        if whole {
            let encoded = crate::block::dispatch_dtype!(dtype, encode_block::<_>(&self.inner, &chunk, block))
                .ok_or_else(|| Error::io(&name, "the block holds no elements"))?
                .map_err(|e| Error::io(&name, e))?;
            return self.inner.put_chunk(&chunk, encoded, false);
        }
        let _in_process = chunk_lock(&name);
        let _across = match self.inner.location.local_dir() {
            Some(dir) => Some(FileLock::take(&dir.join(REGION_LOCK))?),
            None => None,
        };
        let encoded =
            crate::block::dispatch_dtype!(dtype, update_chunk::<_>(za, &self.inner.options, &chunk, &offset, block))
                .ok_or_else(|| Error::io(&name, "the block holds no elements"))?
                .map_err(|e| Error::io(&name, e))?;
        // The chunk is stored before the locks go, so the next writer reads it.
        self.inner.put_chunk(&chunk, encoded, true)
    }
}

/// The stored chunk (the fill value where there is none) with `block`
/// written at `offset`, encoded.
fn update_chunk<T: Element + zarrs::array::Element + zarrs::array::ElementOwned>(
    za: &ZArray,
    options: &CodecOptions,
    chunk: &[u64],
    offset: &[usize],
    block: &Block,
) -> Option<std::result::Result<Vec<u8>, String>> {
    let update = || -> std::result::Result<Vec<u8>, String> {
        let a = block_array::<T>(block).map_err(|e| e.to_string())?;
        let mut stored: ArrayD<T> = za.retrieve_chunk_opt(chunk, options).map_err(|e| e.to_string())?;
        stored
            .slice_each_axis_mut(|ax| {
                let k = ax.axis.index();
                Slice::from(offset[k]..offset[k] + a.shape()[k])
            })
            .assign(a);
        encode_chunk(za, options, chunk, &stored)
    };
    Some(update())
}

/// Makes an empty Zarr array `array` of the store at `path` (every chunk
/// the fill value, zero unless `options` say otherwise) of `shape` in chunks
/// of `chunks`, for region writes to fill (dask's `to_zarr(compute=False)`,
/// zarr-python's `create_array`). The format, compression, checksums,
/// attributes and dimension names come from `options`, as does what to do
/// when the array exists.
///
/// ```
/// use chunked_array::io::zarr::{create_zarr, from_zarr, ZarrRegionOptions, ZarrWriteOptions};
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-create-zarr-{}", std::process::id()));
/// create_zarr::<f64>(&dir, "t", &[6, 4], &[2, 4], &ZarrWriteOptions::default()).unwrap();
/// let part = Array::<f64>::ones(&[2, 4], 2).unwrap();
/// part.to_zarr_region(&dir, "t", &[2..4, 0..4], &ZarrRegionOptions::default()).unwrap();
/// let t = from_zarr::<f64>(&dir, "t").unwrap().compute().unwrap();
/// assert_eq!((t[[1, 0]], t[[2, 0]], t[[4, 3]]), (0.0, 1.0, 0.0));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for chunks of the wrong length or zero, or
/// more chunks than an array may have; as [`crate::array::Array::to_zarr`] for the
/// target.
pub fn create_zarr<T: Element>(
    path: impl AsRef<std::path::Path>,
    array: &str,
    shape: &[usize],
    chunks: &[usize],
    options: &super::ZarrWriteOptions,
) -> Result<()> {
    if chunks.len() != shape.len() || chunks.contains(&0) {
        return Err(Error::invalid("chunks", chunks, format!("needs {} positive chunk lengths", shape.len())));
    }
    let grid: Vec<usize> = shape.iter().zip(chunks).map(|(&n, &c)| n.div_ceil(c)).collect();
    let total = grid.iter().try_fold(1usize, |t, &g| t.checked_mul(g.max(1)));
    if total.is_none_or(|t| t > crate::chunks::MAX_BLOCKS) {
        return Err(Error::invalid("chunks", chunks, format!("makes more than {} chunks", crate::chunks::MAX_BLOCKS)));
    }
    let location = Location::new(path.as_ref(), array, &options.storage)?;
    location.check_writable()?;
    let za = build_array::<T>(&location, shape, chunks, options)?;
    prepare_target(&location, &za, options, &grid)?;
    location.publish_metadata()?;
    location.remove_file(INCOMPLETE_MARKER)
}

impl<T: Element> crate::array::Array<T> {
    /// Writes the array into `region` (one range per axis) of the existing
    /// Zarr array `array` of the store at `path`: dask's `store(regions=)`,
    /// xarray's `to_zarr(region=)`. See [the region docs](super::ZarrRegionOptions)
    /// and [`create_zarr`].
    ///
    /// ```
    /// use chunked_array::io::zarr::{create_zarr, from_zarr, ZarrRegionOptions, ZarrWriteOptions};
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-to-zarr-region-{}", std::process::id()));
    /// create_zarr::<i32>(&dir, "r", &[10], &[4], &ZarrWriteOptions::default()).unwrap();
    /// let x = Array::<i32>::arange(1, 4, 1, 3).unwrap();
    /// assert!(x.to_zarr_region(&dir, "r", &[5..8], &ZarrRegionOptions::default()).is_err()); // cuts chunks
    /// let rmw = ZarrRegionOptions { read_modify_write: true, ..Default::default() };
    /// x.to_zarr_region(&dir, "r", &[5..8], &rmw).unwrap();
    /// let r = from_zarr::<i32>(&dir, "r").unwrap().compute().unwrap();
    /// assert_eq!(r.as_slice().unwrap(), &[0, 0, 0, 0, 0, 1, 2, 3, 0, 0]);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] naming the path when there is no complete array there;
    /// [`Error::DtypeMismatch`] when it stores another type;
    /// [`Error::InvalidArgument`] naming the region when it lies outside the
    /// array, differs in shape from this array, or cuts stored chunks without
    /// `read_modify_write`. Nothing is written then. Task and write errors of
    /// the run.
    pub fn to_zarr_region(
        &self,
        path: impl AsRef<std::path::Path>,
        array: &str,
        region: &[Range<usize>],
        options: &ZarrRegionOptions,
    ) -> Result<crate::io::StoreReport> {
        self.to_zarr_region_on(path, array, region, options, &crate::exec::Context::default())
    }

    /// [`crate::array::Array::to_zarr_region`] with the given context.
    ///
    /// ```
    /// use chunked_array::io::zarr::{create_zarr, ZarrRegionOptions, ZarrWriteOptions};
    /// use chunked_array::{Array, Context};
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-to-zarr-region-on-{}", std::process::id()));
    /// create_zarr::<u8>(&dir, "b", &[8], &[4], &ZarrWriteOptions::default()).unwrap();
    /// let x = Array::<u8>::ones(&[4], 4).unwrap();
    /// let report = x.to_zarr_region_on(&dir, "b", &[4..8], &ZarrRegionOptions::default(), &Context::sync()).unwrap();
    /// assert_eq!(report.chunks_written, 1);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`crate::array::Array::to_zarr_region`].
    pub fn to_zarr_region_on(
        &self,
        path: impl AsRef<std::path::Path>,
        array: &str,
        region: &[Range<usize>],
        options: &ZarrRegionOptions,
        ctx: &crate::exec::Context,
    ) -> Result<crate::io::StoreReport> {
        let mut store = crate::io::Store::new();
        store.zarr_region_on(self, path, array, region, options, ctx)?;
        crate::io::store::store_one(store, ctx)
    }
}

impl crate::io::Store {
    /// Adds a region write (see [`crate::array::Array::to_zarr_region`]) to the
    /// store: with several, one run fills several regions or arrays. With a
    /// context over several processes (MPI), every rank makes the same call
    /// and writes the chunks of the blocks it computes.
    ///
    /// ```
    /// use chunked_array::io::zarr::{create_zarr, from_zarr, ZarrRegionOptions, ZarrWriteOptions};
    /// use chunked_array::io::Store;
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-region-{}", std::process::id()));
    /// create_zarr::<f64>(&dir, "m", &[4, 4], &[2, 2], &ZarrWriteOptions::default()).unwrap();
    /// let (top, bottom) = (Array::<f64>::ones(&[2, 4], 2).unwrap(), Array::<f64>::full(&[2, 4], 2.0, 2).unwrap());
    /// let mut store = Store::new();
    /// let options = ZarrRegionOptions::default();
    /// store.zarr_region(&top, &dir, "m", &[0..2, 0..4], &options).unwrap();
    /// store.zarr_region(&bottom, &dir, "m", &[2..4, 0..4], &options).unwrap();
    /// store.run().unwrap();
    /// assert_eq!(from_zarr::<f64>(&dir, "m").unwrap().sum(None).unwrap().compute_scalar().unwrap(), 24.0);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`crate::array::Array::to_zarr_region`], for what can be checked before
    /// computing.
    pub fn zarr_region<T: Element>(
        &mut self,
        a: &crate::array::Array<T>,
        path: impl AsRef<std::path::Path>,
        array: &str,
        region: &[Range<usize>],
        options: &ZarrRegionOptions,
    ) -> Result<&mut Self> {
        self.zarr_region_on(a, path, array, region, options, &crate::exec::Context::default())
    }

    /// [`crate::io::Store::zarr_region`] for a store that runs with `ctx`.
    ///
    /// ```
    /// use chunked_array::io::zarr::{create_zarr, ZarrRegionOptions, ZarrWriteOptions};
    /// use chunked_array::io::Store;
    /// use chunked_array::{Array, Context};
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-region-on-{}", std::process::id()));
    /// create_zarr::<f32>(&dir, "v", &[6], &[3], &ZarrWriteOptions::default()).unwrap();
    /// let ctx = Context::threads(2);
    /// let mut store = Store::new();
    /// store.zarr_region_on(&Array::<f32>::ones(&[3], 3).unwrap(), &dir, "v", &[3..6], &ZarrRegionOptions::default(), &ctx).unwrap();
    /// assert_eq!(store.run_on(&ctx).unwrap()[0].chunks_written, 1);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`crate::io::Store::zarr_region`].
    pub fn zarr_region_on<T: Element>(
        &mut self,
        a: &crate::array::Array<T>,
        path: impl AsRef<std::path::Path>,
        array: &str,
        region: &[Range<usize>],
        options: &ZarrRegionOptions,
        ctx: &crate::exec::Context,
    ) -> Result<&mut Self> {
        a.check()?;
        let read = super::ZarrReadOptions {
            direct_io: options.direct_io,
            storage: options.storage.clone(),
            ..Default::default()
        };
        let (location, za) = super::open_checked(path.as_ref(), array, &read)?;
        location.check_writable()?;
        check_data_type::<T>(&za, &location)?;
        let stored_shape: Vec<usize> = za.shape().iter().map(|&n| n as usize).collect();
        let chunk_shape = stored_chunk_shape(&za, &location)?;
        let lengths = region_blocks(region, &stored_shape, &chunk_shape, &a.shape(), options.read_modify_write)?;
        let source = a.rechunk(lengths.clone())?;
        let todo: Vec<usize> = if a.shape().contains(&0) { Vec::new() } else { (0..source.num_blocks()).collect() };
        let inner = chunk_writer(za, &location, options.direct_io, ctx.scheduler().processes());
        let uploads = inner.uploads_handle();
        let start = region.iter().map(|r| r.start).collect();
        let writer = RegionWriter { inner, start, chunk_shape, stored_shape, lengths };
        let completion = Completion { finish: Box::new(move || uploads.finish()), abort: Box::new(|| {}) };
        self.push(&source, "to_zarr_region", true, writer, (todo, 0), completion);
        Ok(self)
    }
}
