//! HDF5 through the `hdf5-metno` crate and the system libhdf5 (feature `hdf5`;
//! dask's `da.from_array` of an h5py dataset and `da.to_hdf5`): chunked and
//! contiguous datasets read with one hyperslab per block; chunked datasets
//! written block by block.
//!
//! ```
//! use chunked_array::io::hdf5::{from_hdf5, Hdf5WriteOptions};
//! use chunked_array::Array;
//! let file = std::env::temp_dir().join(format!("chunked-doc-{}.h5", std::process::id()));
//! let x = Array::<f64>::from_fn(&[6, 4], [3, 2], |i| (i[0] * 4 + i[1]) as f64).unwrap();
//! x.to_hdf5(&file, "group/x", &Hdf5WriteOptions::default()).unwrap();
//! let y = from_hdf5::<f64>(&file, "group/x").unwrap(); // one block: 128 MiB fit
//! assert_eq!(y.num_blocks(), 1);
//! assert_eq!(y.compute().unwrap(), x.compute().unwrap());
//! std::fs::remove_file(&file).unwrap();
//! ```
//!
//! A store writes into a hidden dataset (`.name.chunked-tmp` beside the target)
//! and renames it to the target's name when every block is written, so an
//! interrupted store never leaves a dataset under the target's name. HDF5 files
//! themselves are not crash-safe (a killed writer can leave the whole file
//! unreadable), so HDF5 stores cannot be resumed: use Zarr for that. libhdf5
//! serializes all calls behind one lock, so blocks are read and written one at a
//! time (the computation around them still runs in parallel). A file-backed array
//! holds no open file: reading a dataset and storing to another of the same file
//! in one pipeline works. Files are locked as libhdf5 locks them (shared to
//! read, exclusive while a store writes), on descriptors a child process cannot
//! inherit (see `file_lock`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hdf5::{Dataset, File, H5Type, Hyperslab, Selection, SliceOrIndex};

mod file_lock;
use file_lock::{FileLock, LockedFile};
use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::exec::Context;
use crate::graph::{BlockOp, Node};
use crate::io::store::{ChunkWriter, Completion, Store, StoreReport, WriteMode, store_one};
use crate::ops::custom::block_array;

/// How [`Array::to_hdf5`] writes.
///
/// ```
/// use chunked_array::io::hdf5::{from_hdf5, Hdf5WriteOptions};
/// use chunked_array::io::WriteMode;
/// use chunked_array::Array;
/// let path = std::env::temp_dir().join(format!("chunked-doc-hdf5-write-options-{}.h5", std::process::id()));
/// let x = Array::<f64>::ones(&[8, 8], 8).unwrap();
/// let options = Hdf5WriteOptions { deflate: Some(4), chunks: Some(vec![4, 4]), ..Default::default() };
/// assert_eq!(x.to_hdf5(&path, "x", &options).unwrap().chunks_written, 4); // rechunked to 4 x 4
/// let resume = Hdf5WriteOptions { mode: WriteMode::Resume, ..Default::default() };
/// assert!(x.to_hdf5(&path, "y", &resume).is_err()); // HDF5 stores do not resume
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Hdf5WriteOptions {
    /// What to do when the dataset exists ([`WriteMode::Resume`] is refused).
    pub mode: WriteMode,
    /// gzip (deflate) level 0..=9 for the chunks; `None` (default): uncompressed.
    pub deflate: Option<u8>,
    /// Stored chunk shape (the array is rechunked to it when its blocks differ);
    /// `None`: the array's blocks, as for Zarr.
    pub chunks: Option<Vec<usize>>,
}

/// Reads dataset `dataset` of the HDF5 file `file` lazily. Blocks: for a chunked
/// dataset, the automatic block size (128 MiB) rounded up to whole stored chunks;
/// for a contiguous one, the automatic block size.
///
/// ```
/// use chunked_array::io::hdf5::{from_hdf5, Hdf5WriteOptions};
/// use chunked_array::Array;
/// let path = std::env::temp_dir().join(format!("chunked-doc-from-hdf5-{}.h5", std::process::id()));
/// Array::<i64>::arange(0, 10, 1, 5).unwrap().to_hdf5(&path, "a", &Hdf5WriteOptions::default()).unwrap();
/// let a = from_hdf5::<i64>(&path, "a").unwrap();
/// assert_eq!(a.sum(None).unwrap().compute_scalar().unwrap(), 45);
/// assert!(from_hdf5::<i64>(&path, "missing").is_err());
/// assert!(from_hdf5::<f32>(&path, "a").is_err()); // stored as i64
/// std::fs::remove_file(&path).unwrap();
/// ```
///
/// # Errors
/// [`Error::Io`] naming the file and dataset when either is missing or unreadable;
/// [`Error::DtypeMismatch`] when the dataset does not hold `T`.
pub fn from_hdf5<T: Element>(file: impl AsRef<Path>, dataset: &str) -> Result<Array<T>> {
    auto_chunked(file.as_ref(), dataset, false)
}

/// [`from_hdf5`]'s blocks for the dataset, external data allowed or not.
fn auto_chunked<T: Element>(file: &Path, dataset: &str, allow_external: bool) -> Result<Array<T>> {
    let (ds, name, _file) = open_dataset::<T>(file, dataset, allow_external)?;
    let shape = ds.shape();
    let auto = ChunkSpec::auto().resolve(&shape, T::DTYPE)?;
    let chunks = match ds.chunk() {
        None => auto,
        Some(stored) => {
            let block: Vec<usize> = auto
                .lengths()
                .iter()
                .zip(&stored)
                .zip(&shape)
                .map(|((l, &c), &n)| (l[0].div_ceil(c.max(1)).max(1) * c.max(1)).min(n).max(1))
                .collect();
            ChunkSpec::from(block).resolve(&shape, T::DTYPE)?
        }
    };
    Ok(Array::source("from_hdf5", chunks, Hdf5Source::new(file, dataset, name)))
}

/// How [`from_hdf5_with`] reads.
///
/// ```
/// use chunked_array::io::hdf5::{from_hdf5_with, Hdf5ReadOptions, Hdf5WriteOptions};
/// use chunked_array::Array;
/// let path = std::env::temp_dir().join(format!("chunked-doc-hdf5-read-options-{}.h5", std::process::id()));
/// Array::<f32>::zeros(&[12], 12).unwrap().to_hdf5(&path, "z", &Hdf5WriteOptions::default()).unwrap();
/// let options = Hdf5ReadOptions { chunks: Some(4.into()), ..Default::default() };
/// assert_eq!(from_hdf5_with::<f32>(&path, "z", &options).unwrap().num_blocks(), 3);
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Hdf5ReadOptions {
    /// The blocks; `None` (the default): as [`from_hdf5`] picks them.
    pub chunks: Option<ChunkSpec>,
    /// Follow external links on the dataset's path and read datasets whose
    /// data lives in other files (HDF5 external storage). Default false: a file
    /// from elsewhere could point either at any file this process can read.
    pub allow_external: bool,
}

/// [`from_hdf5`] with options (other blocks).
///
/// ```
/// use chunked_array::io::hdf5::{from_hdf5_with, Hdf5ReadOptions, Hdf5WriteOptions};
/// use chunked_array::Array;
/// let path = std::env::temp_dir().join(format!("chunked-doc-from-hdf5-with-{}.h5", std::process::id()));
/// let x = Array::<f64>::from_fn(&[4, 4], 4, |i| (4 * i[0] + i[1]) as f64).unwrap();
/// x.to_hdf5(&path, "x", &Hdf5WriteOptions::default()).unwrap();
/// let options = Hdf5ReadOptions { chunks: Some(vec![2, 4].into()), ..Default::default() };
/// let y = from_hdf5_with::<f64>(&path, "x", &options).unwrap();
/// assert_eq!((y.num_blocks(), y.compute().unwrap()), (2, x.compute().unwrap()));
/// std::fs::remove_file(&path).unwrap();
/// ```
///
/// # Errors
/// As [`from_hdf5`], and [`Error::BadChunks`] for a chunk spec that does not fit.
pub fn from_hdf5_with<T: Element>(
    file: impl AsRef<Path>,
    dataset: &str,
    options: &Hdf5ReadOptions,
) -> Result<Array<T>> {
    let Some(spec) = &options.chunks else {
        return auto_chunked(file.as_ref(), dataset, options.allow_external);
    };
    let (ds, name, _file) = open_dataset::<T>(file.as_ref(), dataset, options.allow_external)?;
    let chunks = spec.resolve(&ds.shape(), T::DTYPE)?;
    Ok(Array::source("from_hdf5", chunks, Hdf5Source::new(file.as_ref(), dataset, name)))
}

/// The dataset, its name for errors, and the open file (which holds the lock
/// while the dataset is in use).
fn open_dataset<T: Element>(file: &Path, dataset: &str, allow_external: bool) -> Result<(Dataset, String, LockedFile)> {
    let name = format!("{}:{dataset}", file.display());
    if !file.exists() {
        return Err(Error::io(file.display(), "no such file"));
    }
    let f = LockedFile::open(file).map_err(|e| Error::io(file.display(), e))?;
    if !allow_external {
        refuse_external_links(&f, dataset).map_err(|e| Error::io(&name, e))?;
    }
    let ds = f.dataset(dataset).map_err(|e| Error::io(&name, e))?;
    if !allow_external && ds.dcpl().is_ok_and(|p| !p.external().is_empty()) {
        return Err(Error::io(
            &name,
            "keeps its data in external files (set Hdf5ReadOptions::allow_external to read them)",
        ));
    }
    let want = crate::block::dispatch_dtype!(T::DTYPE, descriptor::<_>()).expect("elements");
    let found = ds.dtype().and_then(|d| d.to_descriptor()).map_err(|e| Error::io(&name, e))?;
    if found != want {
        return Err(Error::DtypeMismatch { key: name, expected: T::DTYPE.to_string(), found: found.to_string() });
    }
    Ok((ds, name, f))
}

fn descriptor<T: H5Type>() -> Option<hdf5::types::TypeDescriptor> {
    Some(T::type_descriptor())
}

/// The hyperslab of a box: `start` and `shape` per axis.
fn hyperslab(start: &[usize], shape: &[usize]) -> Selection {
    let axes: Vec<SliceOrIndex> = start
        .iter()
        .zip(shape)
        .map(|(&s, &n)| SliceOrIndex::SliceCount { start: s, step: 1, count: n, block: 1 })
        .collect();
    Selection::from(Hyperslab::from(axes))
}

/// Reads blocks of a dataset. The file is opened per block, not held: libhdf5
/// refuses to open a file for writing while a read-only handle to it is open,
/// and a pipeline may well read one dataset of a file and store to another.
struct Hdf5Source {
    file: PathBuf,
    dataset: String,
    name: String,
}

impl Hdf5Source {
    fn new(file: &Path, dataset: &str, name: String) -> Hdf5Source {
        Hdf5Source { file: file.to_path_buf(), dataset: dataset.to_string(), name }
    }
}

impl BlockOp for Hdf5Source {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let start = node.chunks.block_start(idx);
        let shape = node.chunks.block_shape(idx);
        crate::block::dispatch_dtype!(node.dtype, read_block::<_>(self, &start, &shape))
            .expect("an hdf5 source holds elements")
    }
}

fn read_block<T: H5Type + Element>(src: &Hdf5Source, start: &[usize], shape: &[usize]) -> Option<Result<Block>> {
    let read = if shape.contains(&0) {
        Ok(ArrayD::<T>::from_elem(IxDyn(shape), T::default()))
    } else {
        LockedFile::open(&src.file).and_then(|f| {
            let ds = f.dataset(&src.dataset).map_err(|e| e.to_string())?;
            ds.read_slice::<T, _, IxDyn>(hyperslab(start, shape)).map_err(|e| e.to_string())
        })
    };
    Some(
        read.map(|a| Arc::new(a) as Block)
            .map_err(|e| Error::io(&src.name, format!("block at {start:?} of shape {shape:?}: {e}"))),
    )
}

impl<T: Element> Array<T> {
    /// Writes the array to a chunked dataset `dataset` (groups created as needed)
    /// of the HDF5 file `file` (created when absent), each block as it is
    /// computed, with the default scheduler.
    ///
    /// ```
    /// use chunked_array::io::hdf5::{from_hdf5, Hdf5WriteOptions};
    /// use chunked_array::Array;
    /// let path = std::env::temp_dir().join(format!("chunked-doc-to-hdf5-{}.h5", std::process::id()));
    /// let x = Array::<f64>::linspace(0.0, 1.0, 6, true, 3).unwrap();
    /// let report = x.to_hdf5(&path, "/data/x", &Hdf5WriteOptions::default()).unwrap();
    /// assert_eq!(report.chunks_written, 2);
    /// assert!(x.to_hdf5(&path, "/data/x", &Hdf5WriteOptions::default()).is_err()); // exists
    /// assert_eq!(from_hdf5::<f64>(&path, "data/x").unwrap().compute().unwrap(), x.compute().unwrap());
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] naming the file and dataset when the dataset exists in
    /// [`WriteMode::Create`] or a write fails; [`Error::InvalidArgument`] for
    /// [`WriteMode::Resume`] or a bad deflate level; task errors.
    pub fn to_hdf5(&self, file: impl AsRef<Path>, dataset: &str, options: &Hdf5WriteOptions) -> Result<StoreReport> {
        self.to_hdf5_on(file, dataset, options, &Context::default())
    }

    /// [`Array::to_hdf5`] run on the given context.
    ///
    /// ```
    /// use chunked_array::io::hdf5::Hdf5WriteOptions;
    /// use chunked_array::{Array, Context};
    /// let path = std::env::temp_dir().join(format!("chunked-doc-to-hdf5-on-{}.h5", std::process::id()));
    /// let x = Array::<i32>::ones(&[9], 3).unwrap();
    /// let report = x.to_hdf5_on(&path, "x", &Hdf5WriteOptions::default(), &Context::sync()).unwrap();
    /// assert_eq!((report.chunks_written, report.bytes_written), (3, 36));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_hdf5`].
    pub fn to_hdf5_on(
        &self,
        file: impl AsRef<Path>,
        dataset: &str,
        options: &Hdf5WriteOptions,
        ctx: &Context,
    ) -> Result<StoreReport> {
        let mut store = Store::new();
        store.hdf5(self, file, dataset, options)?;
        store_one(store, ctx)
    }
}

impl Store {
    /// Adds dataset `dataset` of the HDF5 file `file` as a target for `a` (see
    /// [`Array::to_hdf5`]).
    ///
    /// ```
    /// use chunked_array::io::hdf5::{from_hdf5, Hdf5WriteOptions};
    /// use chunked_array::io::Store;
    /// use chunked_array::Array;
    /// let path = std::env::temp_dir().join(format!("chunked-doc-store-hdf5-{}.h5", std::process::id()));
    /// let (x, options) = (Array::<f64>::ones(&[4], 2).unwrap(), Hdf5WriteOptions::default());
    /// let mut store = Store::new();
    /// store.hdf5(&x, &path, "x", &options).unwrap().hdf5(&(&x + 1.0), &path, "y", &options).unwrap();
    /// store.run().unwrap(); // two datasets of one file
    /// assert_eq!(from_hdf5::<f64>(&path, "y").unwrap().compute().unwrap().sum(), 8.0);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_hdf5`], for what can be checked before computing.
    pub fn hdf5<T: Element>(
        &mut self,
        a: &Array<T>,
        file: impl AsRef<Path>,
        dataset: &str,
        options: &Hdf5WriteOptions,
    ) -> Result<&mut Self> {
        a.check()?;
        let file = file.as_ref();
        let name = format!("{}:{dataset}", file.display());
        if options.mode == WriteMode::Resume {
            return Err(Error::invalid("mode", options.mode, "HDF5 stores cannot be resumed; store to Zarr for that"));
        }
        if let Some(level) = options.deflate.filter(|&l| l > 9) {
            return Err(Error::invalid("deflate", level, "gzip levels are 0..=9"));
        }
        let path = dataset.trim_matches('/').to_string();
        if path.is_empty() {
            return Err(Error::invalid("dataset", dataset, "needs a name"));
        }
        let (source, chunk_shape) = crate::io::aligned_to_stored_chunks(a, options.chunks.as_deref())?;
        let f = LockedFile::append(file).map_err(|e| Error::io(file.display(), e))?;
        if f.link_exists(&path) && options.mode == WriteMode::Create {
            return Err(Error::io(&name, "already exists (write with WriteMode::Overwrite to replace it)"));
        }
        let (parent, leaf) = path.rsplit_once('/').map_or(("", path.as_str()), |(p, l)| (p, l));
        let tmp =
            if parent.is_empty() { format!(".{leaf}.chunked-tmp") } else { format!("{parent}/.{leaf}.chunked-tmp") };
        let h5 = |name: &str| {
            let name = name.to_string();
            move |e: hdf5::Error| Error::io(&name, e)
        };
        if !parent.is_empty() && !f.link_exists(parent) {
            create_groups(&f, parent).map_err(h5(&name))?;
        }
        if f.link_exists(&tmp) {
            f.unlink(&tmp).map_err(h5(&name))?;
        }
        let ds = crate::block::dispatch_dtype!(
            T::DTYPE,
            create_dataset::<_>(&f, &tmp, &source.shape(), &chunk_shape, options.deflate)
        )
        .expect("elements")
        .map_err(h5(&name))?;
        let writer = Hdf5Writer { ds, chunks: source.chunks().clone(), name: name.clone(), _lock: f.lock() };
        let (f_done, tmp_done) = (f.clone(), tmp.clone());
        // The dataset appears under its name only when every block is in it; an
        // existing one is replaced only then.
        let finish = Box::new(move || {
            let err = h5(&name);
            if f_done.link_exists(&path) {
                f_done.unlink(&path).map_err(&err)?;
            }
            f_done.relink(&tmp_done, &path).map_err(&err)?;
            f_done.flush().map_err(&err)
        });
        let abort = Box::new(move || {
            let _ = f.unlink(&tmp);
        });
        self.push(
            &source,
            "to_hdf5",
            false,
            writer,
            ((0..source.num_blocks()).collect(), 0),
            Completion { finish, abort },
        );
        Ok(self)
    }
}

/// Refuses a dataset path through an external link (one that opens another
/// file); hard and soft links stay inside this file.
fn refuse_external_links(f: &File, dataset: &str) -> std::result::Result<(), String> {
    let mut group: hdf5::Group = (**f).clone();
    let parts: Vec<&str> = dataset.split('/').filter(|p| !p.is_empty()).collect();
    for (i, part) in parts.iter().enumerate() {
        let links = group.links(Default::default(), Default::default()).map_err(|e| e.to_string())?;
        let external = links.iter().any(|(n, info)| n == part && info.link_type == hdf5::LinkType::External);
        if external {
            return Err(format!(
                "{part} is an external link to another file (set Hdf5ReadOptions::allow_external to follow it)"
            ));
        }
        if i + 1 < parts.len() {
            group = group.group(part).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn create_groups(f: &File, path: &str) -> hdf5::Result<()> {
    let mut at = String::new();
    for part in path.split('/').filter(|p| !p.is_empty()) {
        if !at.is_empty() {
            at.push('/');
        }
        at.push_str(part);
        if !f.link_exists(&at) {
            f.create_group(&at)?;
        }
    }
    Ok(())
}

fn create_dataset<T: H5Type>(
    f: &File,
    name: &str,
    shape: &[usize],
    chunk: &[usize],
    deflate: Option<u8>,
) -> Option<hdf5::Result<Dataset>> {
    let mut b = f.new_dataset::<T>().shape(shape.to_vec());
    if !shape.is_empty() {
        b = b.chunk(chunk.to_vec());
    }
    if let Some(level) = deflate {
        b = b.deflate(level);
    }
    Some(b.create(name))
}

struct Hdf5Writer {
    ds: Dataset,
    chunks: Chunks,
    name: String,
    // The dataset keeps the file open in libhdf5 past the handle it came from.
    _lock: Option<Arc<FileLock>>,
}

impl ChunkWriter for Hdf5Writer {
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64> {
        let dtype = crate::block::block_dtype(block);
        crate::block::dispatch_dtype!(dtype, write_block::<_>(self, idx, block))
            .unwrap_or_else(|| Err(Error::io(&self.name, "the block holds no elements")))
    }
}

fn write_block<T: H5Type + Element>(w: &Hdf5Writer, idx: &[usize], block: &Block) -> Option<Result<u64>> {
    Some((|| {
        let a = block_array::<T>(block)?;
        if a.is_empty() {
            return Ok(0);
        }
        let start = w.chunks.block_start(idx);
        // hdf5 writes from standard-layout arrays only.
        let a = a.as_standard_layout();
        w.ds.write_slice(&a, hyperslab(&start, a.shape()))
            .map_err(|e| Error::io(&w.name, format!("block {idx:?}: {e}")))?;
        Ok((a.len() * T::DTYPE.size()) as u64)
    })())
}
