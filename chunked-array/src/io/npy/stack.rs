//! Stacks of `.npy` files (dask's `to_npy_stack` and `from_npy_stack`): one
//! file per block along an axis (`0.npy`, `1.npy`, ...) and an `info` file
//! (a Python pickle of the chunks, dtype and axis), read and written in
//! dask's layout so that each side reads the other's.
//!
//! The `info` file is written last, so a stack whose store failed has none
//! and is refused. Reading takes only the axis from `info` (a bounded scan of
//! the pickle for its `axis` entry, never an unpickling); the blocks' shapes
//! and type come from the files' own headers, which must agree.

use std::path::{Path, PathBuf};

use crate::array::Array;
use crate::block::Block;
use crate::chunks::Chunks;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::graph::{BlockOp, Node};
use crate::io::atomic::write_atomic;
use crate::io::npy::format::{NpyElement, descr, header_bytes, read_header};
use crate::io::npy::{NpyHeader, NpySource, read_block};
use crate::io::store::{ChunkWriter, Completion, Store, StoreReport, WriteMode, store_one};
use crate::ops::custom::block_array;

/// The name of a stack's metadata file.
const INFO: &str = "info";
/// The largest `info` file read.
const MAX_INFO_BYTES: u64 = 1 << 20;

/// Reads the stack of `.npy` files in `dir` (written by dask's
/// `to_npy_stack` or [`Array::to_npy_stack`]): one block per file, lazy.
///
/// ```
/// use chunked_array::io::npy::from_npy_stack;
/// use chunked_array::io::WriteMode;
/// use chunked_array::Array;
/// let dir = std::env::temp_dir().join(format!("chunked-doc-from-npy-stack-{}", std::process::id()));
/// let x = Array::<f64>::from_fn(&[5, 3], [2, 3], |i| (3 * i[0] + i[1]) as f64).unwrap();
/// x.to_npy_stack(&dir, 0, WriteMode::Create).unwrap();
/// let y = from_npy_stack::<f64>(&dir).unwrap();
/// assert_eq!((y.chunks().lengths()[0].clone(), y.compute().unwrap()), (vec![2, 2, 1], x.compute().unwrap()));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
///
/// # Errors
/// [`Error::Io`] naming the file when `info` is missing, too large or holds
/// no axis, when a block file is missing or not a `.npy` file, or when the
/// files disagree on the other axes' lengths or the type;
/// [`Error::DtypeMismatch`] when they do not hold `T`.
pub fn from_npy_stack<T: Element>(dir: impl AsRef<Path>) -> Result<Array<T>> {
    let dir = dir.as_ref();
    let axis = read_axis(&dir.join(INFO))?;
    let mut files: Vec<(PathBuf, NpyHeader)> = Vec::new();
    loop {
        let path = dir.join(format!("{}.npy", files.len()));
        if !path.exists() {
            break;
        }
        if files.len() >= crate::chunks::MAX_BLOCKS {
            return Err(Error::io(dir.display(), format!("holds more than {} block files", crate::chunks::MAX_BLOCKS)));
        }
        let header = read_header(&path)?;
        if header.dtype != T::DTYPE {
            return Err(Error::DtypeMismatch {
                key: path.display().to_string(),
                expected: T::DTYPE.to_string(),
                found: header.dtype.to_string(),
            });
        }
        if let Some((_, first)) = files.first() {
            let other_axes = |h: &NpyHeader| {
                h.shape.iter().enumerate().filter(|&(k, _)| k != axis).map(|(_, &n)| n).collect::<Vec<_>>()
            };
            if header.shape.len() != first.shape.len() || other_axes(&header) != other_axes(first) {
                return Err(Error::io(
                    path.display(),
                    format!(
                        "has shape {:?}, which does not stack with 0.npy's {:?} on axis {axis}",
                        header.shape, first.shape
                    ),
                ));
            }
        }
        files.push((path, header));
    }
    let Some((_, first)) = files.first() else {
        return Err(Error::io(dir.join("0.npy").display(), "no block files in the stack"));
    };
    if axis >= first.shape.len() {
        return Err(Error::io(
            dir.join(INFO).display(),
            format!("axis {axis} for arrays of {} axes", first.shape.len()),
        ));
    }
    let lengths: Vec<Vec<usize>> = (0..first.shape.len())
        .map(|k| if k == axis { files.iter().map(|(_, h)| h.shape[k]).collect() } else { vec![first.shape[k]] })
        .collect();
    Ok(Array::source("from_npy_stack", Chunks::from_lengths(lengths), StackSource { files, axis }))
}

/// The `axis` entry of a dask `info` pickle: the key's string opcode
/// (protocol 4's SHORT_BINUNICODE or protocol 2's BINUNICODE), memo opcodes,
/// then an integer opcode.
fn read_axis(path: &Path) -> Result<usize> {
    let fail = |why: &str| Error::io(path.display(), why);
    let len = std::fs::metadata(path).map_err(|e| Error::io(path.display(), e))?.len();
    if len > MAX_INFO_BYTES {
        return Err(fail("is larger than a stack's info file may be"));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::io(path.display(), e))?;
    let keys: [&[u8]; 2] = [b"\x8c\x04axis", b"X\x04\x00\x00\x00axis"];
    let after = keys
        .iter()
        .find_map(|key| bytes.windows(key.len()).position(|w| w == *key).map(|at| at + key.len()))
        .ok_or_else(|| fail("holds no axis entry (not a dask npy stack's info pickle)"))?;
    let mut rest = &bytes[after..];
    loop {
        match rest {
            [0x94, tail @ ..] => rest = tail,
            [b'q', _, tail @ ..] => rest = tail,
            [b'r', _, _, _, _, tail @ ..] => rest = tail,
            _ => break,
        }
    }
    let axis = match rest {
        [b'K', n, ..] => *n as i64,
        [b'M', a, b, ..] => u16::from_le_bytes([*a, *b]) as i64,
        [b'J', a, b, c, d, ..] => i32::from_le_bytes([*a, *b, *c, *d]) as i64,
        _ => return Err(fail("holds an axis that is not a small integer")),
    };
    usize::try_from(axis).map_err(|_| fail("holds a negative axis"))
}

/// Reads block `i` along the axis from file `i`.
struct StackSource {
    files: Vec<(PathBuf, NpyHeader)>,
    axis: usize,
}

impl BlockOp for StackSource {
    fn deps(&self, _: &Node, _: &[usize], _: &mut Vec<(usize, usize)>) {}

    fn run(&self, node: &Node, idx: &[usize], _: &[&Block]) -> Result<Block> {
        let (path, header) = &self.files[idx[self.axis]];
        let file = std::fs::File::open(path).map_err(|e| Error::io(path.display(), e))?;
        let source = NpySource { file: std::sync::Arc::new(file), path: path.clone(), header: header.clone() };
        let start = vec![0; header.shape.len()];
        crate::block::dispatch_dtype!(node.dtype, read_block::<_>(&source, &start, &header.shape))
            .expect("an npy stack holds elements")
    }
}

/// dask's `info`: a protocol-2 pickle of `{"chunks": ..., "dtype": numpy.dtype(...), "axis": axis}`.
fn info_pickle(chunks: &[Vec<usize>], dtype: DType, axis: usize) -> Vec<u8> {
    fn text(out: &mut Vec<u8>, s: &str) {
        out.push(b'X');
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn int(out: &mut Vec<u8>, n: i64) {
        match i32::try_from(n) {
            Ok(small) => {
                out.push(b'J');
                out.extend_from_slice(&small.to_le_bytes());
            }
            Err(_) => {
                out.extend_from_slice(&[0x8a, 8]);
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
    }
    let mut out = vec![0x80, 2, b'}', b'('];
    text(&mut out, "chunks");
    out.push(b'(');
    for axis_chunks in chunks {
        out.push(b'(');
        axis_chunks.iter().for_each(|&n| int(&mut out, n as i64));
        out.push(b't');
    }
    out.push(b't');
    text(&mut out, "dtype");
    let (order, kind) = descr(dtype).split_at(1);
    out.extend_from_slice(b"cnumpy\ndtype\n");
    text(&mut out, kind);
    out.extend_from_slice(&[0x89, 0x88, 0x87, b'R', b'(', b'K', 3]);
    text(&mut out, order);
    out.extend_from_slice(b"NNN");
    int(&mut out, -1);
    int(&mut out, -1);
    out.extend_from_slice(&[b'K', 0, b't', b'b']);
    text(&mut out, "axis");
    int(&mut out, axis as i64);
    out.extend_from_slice(b"u.");
    out
}

/// Whether `name` is a stack's own file (removed by an overwrite).
fn owned_by_stack(name: &str) -> bool {
    name == INFO
        || name.ends_with(crate::io::atomic::TMP_SUFFIX)
        || name.strip_suffix(".npy").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Prepares `dir` for a new stack under `mode`: created, or (to overwrite)
/// emptied of a stack's files; anything else there is an error.
fn prepare_dir(dir: &Path, mode: WriteMode) -> Result<()> {
    let io = |e: std::io::Error| Error::io(dir.display(), e);
    if mode == WriteMode::Resume {
        return Err(Error::invalid("mode", mode, "npy stacks cannot be resumed; store to Zarr for that"));
    }
    let entries: Vec<std::fs::DirEntry> = match std::fs::read_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return std::fs::create_dir_all(dir).map_err(io),
        Err(e) => return Err(io(e)),
        Ok(entries) => entries.collect::<std::io::Result<_>>().map_err(io)?,
    };
    if entries.is_empty() {
        return Ok(());
    }
    if mode == WriteMode::Create {
        return Err(Error::io(dir.display(), "already exists (write with WriteMode::Overwrite to replace it)"));
    }
    if let Some(stranger) = entries.iter().find(|e| !owned_by_stack(&e.file_name().to_string_lossy())) {
        return Err(Error::io(stranger.path().display(), "is not part of an npy stack; nothing was removed"));
    }
    // The info goes first: a stack half removed is not mistaken for a whole one.
    let info = dir.join(INFO);
    if info.exists() {
        std::fs::remove_file(&info).map_err(|e| Error::io(info.display(), e))?;
    }
    for entry in entries {
        let _ = std::fs::remove_file(entry.path());
    }
    Ok(())
}

/// Writes block `i` along the axis to file `i`.
struct StackWriter {
    dir: PathBuf,
    axis: usize,
}

impl ChunkWriter for StackWriter {
    fn write(&self, idx: &[usize], block: &Block) -> Result<u64> {
        let path = self.dir.join(format!("{}.npy", idx[self.axis]));
        let dtype = crate::block::block_dtype(block);
        let bytes = crate::block::dispatch_dtype!(dtype, npy_file::<_>(block))
            .ok_or_else(|| Error::io(path.display(), "the block holds no elements"))??;
        write_atomic(&path, &bytes, false)?;
        Ok(bytes.len() as u64)
    }
}

/// A whole `.npy` file holding `block`.
fn npy_file<T: NpyElement>(block: &Block) -> Option<Result<Vec<u8>>> {
    Some(block_array::<T>(block).map(|a| {
        let mut bytes = header_bytes(T::DTYPE, a.shape());
        T::encode_le(a.iter().copied(), &mut bytes);
        bytes
    }))
}

impl<T: Element> Array<T> {
    /// Writes the array as a stack of `.npy` files in directory `dir`, one
    /// per block along `axis` (the other axes whole), with dask's `info`
    /// file: dask's `to_npy_stack(dir, x, axis)`.
    ///
    /// ```
    /// use chunked_array::io::npy::{from_npy, from_npy_stack};
    /// use chunked_array::io::WriteMode;
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-to-npy-stack-{}", std::process::id()));
    /// let x = Array::<i32>::arange(0, 12, 1, 4).unwrap().reshape(&[4, 3]).unwrap().rechunk([2, 1]).unwrap();
    /// assert_eq!(x.to_npy_stack(&dir, 1, WriteMode::Create).unwrap().chunks_written, 3); // a file per column
    /// assert_eq!(from_npy::<i32>(dir.join("2.npy"), 4).unwrap().compute().unwrap().into_raw_vec_and_offset().0, vec![2, 5, 8, 11]);
    /// assert!(x.to_npy_stack(&dir, 1, WriteMode::Create).is_err()); // exists
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an axis the array lacks or
    /// [`WriteMode::Resume`]; [`Error::Io`] naming the directory when it
    /// exists and is not empty (with [`WriteMode::Create`]) or holds other
    /// files than a stack's, or a write fails. Task errors of the run.
    pub fn to_npy_stack(&self, dir: impl AsRef<Path>, axis: usize, mode: WriteMode) -> Result<StoreReport> {
        let mut store = Store::new();
        store.npy_stack(self, dir, axis, mode)?;
        store_one(store, &crate::exec::Context::default())
    }
}

impl Store {
    /// Adds an npy stack in directory `dir` as a target for `a` (see
    /// [`Array::to_npy_stack`]).
    ///
    /// ```
    /// use chunked_array::io::{npy::from_npy_stack, Store, WriteMode};
    /// use chunked_array::Array;
    /// let dir = std::env::temp_dir().join(format!("chunked-doc-store-npy-stack-{}", std::process::id()));
    /// let x = Array::<u8>::ones(&[6, 2], 3).unwrap();
    /// let mut store = Store::new();
    /// store.npy_stack(&x, &dir, 0, WriteMode::Create).unwrap();
    /// assert!(from_npy_stack::<u8>(&dir).is_err()); // no info until the store has run
    /// store.run().unwrap();
    /// assert_eq!(from_npy_stack::<u8>(&dir).unwrap().num_blocks(), 2);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Array::to_npy_stack`], for what can be checked before computing.
    pub fn npy_stack<T: Element>(
        &mut self,
        a: &Array<T>,
        dir: impl AsRef<Path>,
        axis: usize,
        mode: WriteMode,
    ) -> Result<&mut Self> {
        a.check()?;
        if axis >= a.ndim() {
            return Err(Error::invalid("axis", axis, format!("the array has {} axes", a.ndim())));
        }
        let dir = dir.as_ref().to_path_buf();
        prepare_dir(&dir, mode)?;
        let shape = a.shape();
        let lengths: Vec<Vec<usize>> = a
            .chunks()
            .lengths()
            .iter()
            .enumerate()
            .map(|(k, l)| if k == axis { l.clone() } else { vec![shape[k]] })
            .collect();
        let source = a.rechunk(lengths.clone())?;
        let info = info_pickle(&lengths, T::DTYPE, axis);
        let info_path = dir.join(INFO);
        let finish = Box::new(move || write_atomic(&info_path, &info, false));
        let writer = StackWriter { dir, axis };
        let blocks = (0..source.num_blocks()).collect();
        self.push(&source, "to_npy_stack", false, writer, (blocks, 0), Completion { finish, abort: Box::new(|| {}) });
        Ok(self)
    }
}
