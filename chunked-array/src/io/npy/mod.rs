//! NumPy's `.npy` format (versions 1.0 to 3.0; NumPy's `np.load` with
//! `mmap_mode` and `np.save`, chunked): lazy chunked reads, each block
//! reading only its own byte ranges, and streaming writes, each block written at
//! its place in the file as soon as it is computed.
//!
//! ```
//! use chunked_array::io::{npy, WriteMode};
//! use chunked_array::Array;
//! let path = std::env::temp_dir().join(format!("chunked-doc-{}.npy", std::process::id()));
//! let x = Array::<i64>::from_fn(&[5, 4], [2, 3], |i| (10 * i[0] + i[1]) as i64).unwrap();
//! x.to_npy(&path, WriteMode::Overwrite).unwrap();
//! let y = npy::from_npy::<i64>(&path, [3, 4]).unwrap();
//! assert_eq!(y.compute().unwrap(), x.compute().unwrap());
//! std::fs::remove_file(&path).unwrap();
//! ```
//!
//! Reads accept little- and big-endian data and C or Fortran order; writes are
//! little-endian, C order. The file appears under its name only when complete
//! (written under a temporary name, then renamed). `.npy` has no chunk layout to
//! resume from: [`WriteMode::Resume`] is refused (use Zarr).
//!
//! Written by hand rather than through `ndarray-npy`, which reads and writes whole
//! arrays only: chunked reads and writes need the header's data offset.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ndarray::{ArrayD, IxDyn};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::{ChunkSpec, Chunks};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::exec::Context;
use crate::graph::{BlockOp, Node};
use crate::io::atomic::create_temporary_beside;
use crate::io::store::{ChunkWriter, Completion, Store, StoreReport, WriteMode, store_one};
use crate::ops::custom::block_array;
use crate::ops::dynamic::AnyArray;

pub(crate) mod format;
mod stack;

use format::{NpyElement, header_bytes};
pub use format::{NpyHeader, read_header};
pub use stack::from_npy_stack;

/// Reads the `.npy` file at `path` as a lazy array with blocks `chunks`: each
/// block reads only its own byte ranges.
///
/// ```
/// use chunked_array::io::{npy, WriteMode};
/// use chunked_array::Array;
/// let path = std::env::temp_dir().join(format!("chunked-doc-from-npy-{}.npy", std::process::id()));
/// let x = Array::<f64>::from_fn(&[4, 3], 4, |i| (3 * i[0] + i[1]) as f64).unwrap();
/// x.to_npy(&path, WriteMode::Create).unwrap();
/// let y = npy::from_npy::<f64>(&path, [2, 3]).unwrap(); // blocks of 2 rows
/// assert_eq!((y.num_blocks(), y.compute().unwrap()), (2, x.compute().unwrap()));
/// assert!(npy::from_npy::<i64>(&path, 2).is_err()); // the file holds f64
/// std::fs::remove_file(&path).unwrap();
/// ```
///
/// # Errors
/// As [`read_header`]; [`Error::DtypeMismatch`] when the file does not hold `T`;
/// [`Error::BadChunks`] for a chunk spec that does not fit the shape.
pub fn from_npy<T: Element>(path: impl AsRef<Path>, chunks: impl Into<ChunkSpec>) -> Result<Array<T>> {
    let path = path.as_ref();
    let header = read_header(path)?;
    if header.dtype != T::DTYPE {
        return Err(Error::DtypeMismatch {
            key: path.display().to_string(),
            expected: T::DTYPE.to_string(),
            found: header.dtype.to_string(),
        });
    }
    npy_source(path, header, chunks.into())
}

/// The lazy array reading the file at `path`, whose header (of `T`) was read.
fn npy_source<T: Element>(path: &Path, header: NpyHeader, chunks: ChunkSpec) -> Result<Array<T>> {
    let chunks = chunks.resolve(&header.shape, T::DTYPE)?;
    let file = File::open(path).map_err(|e| Error::io(path.display(), e))?;
    Ok(Array::source("from_npy", chunks, NpySource { file: Arc::new(file), path: path.to_path_buf(), header }))
}

/// Reads the `.npy` file at `path` whatever its element type: the
/// [`AnyArray`] of the type its header names (`np.load` without knowing the
/// dtype ahead).
///
/// ```
/// use chunked_array::io::{npy, WriteMode};
/// use chunked_array::{Array, DType};
/// let path = std::env::temp_dir().join(format!("chunked-doc-from-npy-any-{}.npy", std::process::id()));
/// Array::<u16>::ones(&[3, 2], 2).unwrap().to_npy(&path, WriteMode::Create).unwrap();
/// let x = npy::from_npy_any(&path, 2).unwrap();
/// assert_eq!((x.dtype(), x.shape()), (DType::U16, vec![3, 2]));
/// assert!(x.unary("invert").is_ok() && x.unary("sqrt").is_err()); // sqrt asks for a float: astype first
/// std::fs::remove_file(&path).unwrap();
/// ```
///
/// # Errors
/// As [`from_npy`].
pub fn from_npy_any(path: impl AsRef<Path>, chunks: impl Into<ChunkSpec>) -> Result<AnyArray> {
    fn typed<T: Element>(path: &Path, header: NpyHeader, chunks: ChunkSpec) -> Option<Result<AnyArray>>
    where
        AnyArray: From<Array<T>>,
    {
        Some(npy_source::<T>(path, header, chunks).map(AnyArray::from))
    }
    let (path, header) = (path.as_ref(), read_header(path.as_ref())?);
    crate::block::dispatch_dtype!(header.dtype, typed::<_>(path, header, chunks.into())).expect("an element dtype")
}

struct NpySource {
    file: Arc<File>,
    path: PathBuf,
    header: NpyHeader,
}

impl BlockOp for NpySource {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let start = node.chunks.block_start(idx);
        let shape = node.chunks.block_shape(idx);
        crate::block::dispatch_dtype!(node.dtype, read_block::<_>(self, &start, &shape))
            .expect("an npy source holds elements")
    }
}

fn read_block<T: NpyElement>(src: &NpySource, start: &[usize], shape: &[usize]) -> Option<Result<Block>> {
    let h = &src.header;
    // A Fortran-order file is the C-order file of the reversed shape.
    let rev = |v: &[usize]| v.iter().rev().copied().collect::<Vec<_>>();
    let (file_shape, start_c, shape_c) = if h.fortran_order {
        (rev(&h.shape), rev(start), rev(shape))
    } else {
        (h.shape.clone(), start.to_vec(), shape.to_vec())
    };
    let read = read_c_region::<T>(src, &file_shape, &start_c, &shape_c).map(|data| {
        let a = ArrayD::from_shape_vec(IxDyn(&shape_c), data).expect("region length");
        let block = if h.fortran_order { a.reversed_axes().as_standard_layout().into_owned() } else { a };
        Arc::new(block) as Block
    });
    Some(read)
}

/// The elements of a box of a C-order file, in C order: one positioned read per
/// contiguous run.
fn read_c_region<T: NpyElement>(
    src: &NpySource,
    file_shape: &[usize],
    start: &[usize],
    shape: &[usize],
) -> Result<Vec<T>> {
    let size = T::DTYPE.size();
    let total: usize = shape.iter().product();
    let mut out = Vec::with_capacity(total);
    if total == 0 {
        return Ok(out);
    }
    let plan = Runs::new(file_shape, start, shape);
    let mut buf = vec![0u8; plan.run_len * size];
    let mut result = Ok(());
    plan.for_each(|element_offset| {
        if result.is_ok() {
            let at = src.header.data_offset + (element_offset * size) as u64;
            result = src.file.read_exact_at(&mut buf, at);
            T::decode(&buf, src.header.big_endian, &mut out);
        }
    });
    result.map_err(|e| Error::io(src.path.display(), format!("reading block at {start:?}: {e}")))?;
    Ok(out)
}

/// The contiguous runs of a box inside a C-order array: trailing axes that the
/// box spans whole merge into one run.
struct Runs {
    /// Elements per run.
    run_len: usize,
    /// Element strides of the array.
    strides: Vec<usize>,
    start: Vec<usize>,
    /// The box's extent on the axes iterated (those before the run's axis).
    outer: Vec<usize>,
}

impl Runs {
    fn new(full: &[usize], start: &[usize], shape: &[usize]) -> Runs {
        let d = full.len();
        let mut strides = vec![1; d];
        for a in (0..d.saturating_sub(1)).rev() {
            strides[a] = strides[a + 1] * full[a + 1];
        }
        // The run axis j: axes after j are spanned whole.
        let mut j = d;
        let mut run_len = 1;
        while j > 0 {
            j -= 1;
            run_len *= shape[j];
            if shape[j] != full[j] {
                break;
            }
        }
        Runs { run_len, strides, start: start.to_vec(), outer: shape[..j.min(d)].to_vec() }
    }

    /// Calls `f` with the element offset of every run, in C order.
    fn for_each(&self, mut f: impl FnMut(usize)) {
        let k = self.outer.len();
        let base: usize = self.start.iter().zip(&self.strides).map(|(s, t)| s * t).sum();
        if self.outer.contains(&0) {
            return;
        }
        let mut i = vec![0usize; k];
        loop {
            f(base + i.iter().zip(&self.strides).map(|(x, t)| x * t).sum::<usize>());
            let mut a = k;
            loop {
                if a == 0 {
                    return;
                }
                a -= 1;
                i[a] += 1;
                if i[a] < self.outer[a] {
                    break;
                }
                i[a] = 0;
            }
        }
    }
}

impl<T: Element> Array<T> {
    /// Writes the array to a `.npy` file at `path`, each block as it is computed,
    /// with the default scheduler.
    ///
    /// ```
    /// use chunked_array::io::{npy, WriteMode};
    /// use chunked_array::Array;
    /// let path = std::env::temp_dir().join(format!("chunked-doc-to-npy-{}.npy", std::process::id()));
    /// let x = Array::<u8>::from_fn(&[6], 4, |i| i[0] as u8 * 10).unwrap(); // blocks of 4 and 2
    /// let report = x.to_npy(&path, WriteMode::Create).unwrap();
    /// assert_eq!((report.chunks_written, report.bytes_written), (2, 6));
    /// assert_eq!(npy::from_npy::<u8>(&path, 6).unwrap().compute().unwrap(), x.compute().unwrap());
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it exists in [`WriteMode::Create`] or a
    /// write fails (the file is then not created); [`Error::InvalidArgument`] for
    /// [`WriteMode::Resume`]; task errors of the computation.
    pub fn to_npy(&self, path: impl AsRef<Path>, mode: WriteMode) -> Result<StoreReport> {
        self.to_npy_on(path, mode, &Context::default())
    }

    /// [`Array::to_npy`] with the given context.
    ///
    /// ```
    /// use chunked_array::io::WriteMode;
    /// use chunked_array::{Array, Context};
    /// let path = std::env::temp_dir().join(format!("chunked-doc-to-npy-on-{}.npy", std::process::id()));
    /// let x = Array::<f64>::ones(&[10], 5).unwrap();
    /// let report = x.to_npy_on(&path, WriteMode::Create, &Context::threads(2)).unwrap();
    /// assert_eq!(report.chunks_written, 2);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_npy`].
    pub fn to_npy_on(&self, path: impl AsRef<Path>, mode: WriteMode, ctx: &Context) -> Result<StoreReport> {
        let mut store = Store::new();
        store.npy(self, path, mode)?;
        store_one(store, ctx)
    }
}

impl Store {
    /// Adds the `.npy` file `path` as a target for `a` (see [`Array::to_npy`]).
    ///
    /// ```
    /// use chunked_array::io::{npy, Store, WriteMode};
    /// use chunked_array::Array;
    /// let path = std::env::temp_dir().join(format!("chunked-doc-store-npy-{}.npy", std::process::id()));
    /// let mut store = Store::new();
    /// store.npy(&Array::<i32>::arange(0, 5, 1, 2).unwrap(), &path, WriteMode::Create).unwrap();
    /// assert!(!path.exists()); // the file appears when the store has run
    /// store.run().unwrap();
    /// assert_eq!(npy::read_header(&path).unwrap().shape, vec![5]);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_npy`], for what can be checked before computing.
    pub fn npy<T: Element>(&mut self, a: &Array<T>, path: impl AsRef<Path>, mode: WriteMode) -> Result<&mut Self> {
        a.check()?;
        let path = path.as_ref().to_path_buf();
        match mode {
            WriteMode::Resume => {
                return Err(Error::invalid("mode", mode, ".npy files cannot be resumed; store to Zarr for that"));
            }
            WriteMode::Create if path.exists() => {
                return Err(Error::io(
                    path.display(),
                    "already exists (write with WriteMode::Overwrite to replace it)",
                ));
            }
            _ => {}
        }
        let header = header_bytes(T::DTYPE, &a.shape());
        let (tmp, file) = create_temporary_beside(&path).map_err(|e| Error::io(path.display(), e))?;
        if let Err(e) = file.write_all_at(&header, 0) {
            let _ = std::fs::remove_file(&tmp);
            return Err(Error::io(tmp.display(), e));
        }
        let writer =
            NpyWriter { file, path: path.clone(), chunks: a.chunks().clone(), data_offset: header.len() as u64 };
        let (tmp_done, tmp_abort) = (tmp.clone(), tmp);
        // The file appears under its name only when every block is in it.
        let finish = Box::new(move || std::fs::rename(&tmp_done, &path).map_err(|e| Error::io(path.display(), e)));
        let abort = Box::new(move || {
            let _ = std::fs::remove_file(&tmp_abort);
        });
        self.push(a, "to_npy", false, writer, ((0..a.num_blocks()).collect(), 0), Completion { finish, abort });
        Ok(self)
    }
}

struct NpyWriter {
    file: File,
    path: PathBuf,
    chunks: Chunks,
    data_offset: u64,
}

impl ChunkWriter for NpyWriter {
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64> {
        let dtype = crate::block::block_dtype(block);
        crate::block::dispatch_dtype!(dtype, write_block::<_>(self, idx, block))
            .unwrap_or_else(|| Err(Error::io(self.path.display(), "the block holds no elements")))
    }
}

fn write_block<T: NpyElement>(w: &NpyWriter, idx: &[usize], block: &Block) -> Option<Result<u64>> {
    Some((|| {
        let a = block_array::<T>(block)?;
        let start = w.chunks.block_start(idx);
        let plan = Runs::new(&w.chunks.shape(), &start, a.shape());
        let mut values = a.iter().copied();
        let mut bytes = Vec::with_capacity(plan.run_len * T::DTYPE.size());
        let mut result = Ok(());
        plan.for_each(|element_offset| {
            if result.is_ok() {
                bytes.clear();
                T::encode_le(values.by_ref().take(plan.run_len), &mut bytes);
                result = w.file.write_all_at(&bytes, w.data_offset + (element_offset * T::DTYPE.size()) as u64);
            }
        });
        result.map_err(|e| Error::io(w.path.display(), format!("writing block {idx:?}: {e}")))?;
        Ok((a.len() * T::DTYPE.size()) as u64)
    })())
}
