//! The disk tier: blocks of elements written to files in a spill directory, each
//! with a CRC32C checksum so that a damaged file is detected (and the block
//! recomputed from its lineage) instead of read back wrong.
//!
//! A run makes its own directory (`chunked-spill-<pid>-<n>`) inside the configured
//! spill directory on its first spill and removes it when it ends, whether it
//! succeeded, failed or panicked.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use ndarray::{ArrayD, IxDyn};

use crate::element::{DType, Element};
use crate::graph::Block;

const MAGIC: &[u8; 8] = b"CHKSPIL1";

/// A block written to disk.
pub(crate) struct SpilledBlock {
    pub path: PathBuf,
    /// Bytes of the block in memory (what unspilling brings back).
    pub nbytes: usize,
    /// For blocks that are not arrays of elements: how to rebuild them.
    pub rebuild: Option<fn(&[u8]) -> Option<Block>>,
}

/// Dtype byte of an opaque image (see [`crate::SpillImage`]).
const OPAQUE: u8 = 255;

/// The spill directory of one run.
pub(crate) struct DiskTier {
    parent: PathBuf,
    dir: OnceLock<std::io::Result<PathBuf>>,
    /// Cap on bytes on disk at once (`u64::MAX`: none).
    pub limit: u64,
    pub used: AtomicU64,
    next: AtomicU64,
}

impl DiskTier {
    pub fn new(parent: PathBuf, limit: u64) -> DiskTier {
        DiskTier { parent, dir: OnceLock::new(), limit, used: AtomicU64::new(0), next: AtomicU64::new(0) }
    }

    /// The configured spill directory (for messages).
    pub fn parent(&self) -> &Path {
        &self.parent
    }

    fn run_dir(&self) -> std::io::Result<&PathBuf> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let made = self.dir.get_or_init(|| {
            let dir = self.parent.join(format!("chunked-spill-{}-{}", std::process::id(), RUNS.fetch_add(1, Ordering::Relaxed)));
            std::fs::create_dir_all(&dir).map(|()| dir)
        });
        made.as_ref().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))
    }

    /// Writes `block` to a new file. `Ok(None)` when the block is not an array of
    /// elements (such blocks stay in memory).
    pub fn write(&self, task: usize, block: &Block) -> std::io::Result<Option<SpilledBlock>> {
        let image;
        let (dtype, shape, bytes, rebuild) = match RawBlock::of(block) {
            Some(raw) => (raw.dtype as u8, raw.shape, raw.bytes, None),
            None => match block.spill_image() {
                Some(img) => {
                    image = img;
                    (OPAQUE, Vec::new(), &image.bytes[..], Some(image.rebuild))
                }
                None => return Ok(None),
            },
        };
        let nbytes = block.nbytes();
        let dir = self.run_dir()?;
        let path = dir.join(format!("{task}-{}.blk", self.next.fetch_add(1, Ordering::Relaxed)));
        let mut header = Vec::with_capacity(32 + 8 * shape.len());
        header.extend_from_slice(MAGIC);
        header.push(dtype);
        header.push(shape.len() as u8);
        for &n in &shape {
            header.extend_from_slice(&(n as u64).to_le_bytes());
        }
        header.extend_from_slice(&crc32c::crc32c(bytes).to_le_bytes());
        let written = File::create(&path).and_then(|mut f| {
            f.write_all(&header)?;
            f.write_all(bytes)
        });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        self.used.fetch_add(nbytes as u64, Ordering::Relaxed);
        Ok(Some(SpilledBlock { path, nbytes, rebuild }))
    }

    /// Reads a spilled block back and removes its file. Errors when the file is
    /// missing, truncated or fails its checksum.
    pub fn read(&self, spilled: &SpilledBlock) -> std::io::Result<Block> {
        let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: {what}", spilled.path.display()));
        let mut f = File::open(&spilled.path)?;
        let mut head = [0u8; 10];
        f.read_exact(&mut head)?;
        if &head[..8] != MAGIC {
            return Err(bad("not a spill file"));
        }
        if let Some(rebuild) = spilled.rebuild {
            let mut crc = [0u8; 4];
            f.read_exact(&mut crc)?;
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes)?;
            if head[8] != OPAQUE || crc32c::crc32c(&bytes) != u32::from_le_bytes(crc) {
                return Err(bad("checksum mismatch"));
            }
            let block = rebuild(&bytes).ok_or_else(|| bad("cannot rebuild the block"))?;
            self.forget(spilled);
            return Ok(block);
        }
        let dtype = dtype_from_u8(head[8]).ok_or_else(|| bad("unknown dtype"))?;
        let mut shape = vec![0usize; head[9] as usize];
        for n in &mut shape {
            let mut b = [0u8; 8];
            f.read_exact(&mut b)?;
            *n = u64::from_le_bytes(b) as usize;
        }
        let mut crc = [0u8; 4];
        f.read_exact(&mut crc)?;
        let block = crate::elementwise::dispatch_dtype!(dtype, read_array::<_>(&mut f, &shape, u32::from_le_bytes(crc)))
            .ok_or_else(|| bad("not elements"))?
            .map_err(|e| if e.kind() == std::io::ErrorKind::InvalidData { bad(&e.to_string()) } else { e })?;
        self.forget(spilled);
        Ok(block)
    }

    /// Removes a spilled block's file (its block was released, or read back).
    pub fn forget(&self, spilled: &SpilledBlock) {
        let _ = std::fs::remove_file(&spilled.path);
        self.used.fetch_sub(spilled.nbytes as u64, Ordering::Relaxed);
    }
}

impl Drop for DiskTier {
    fn drop(&mut self) {
        if let Some(Ok(dir)) = self.dir.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn dtype_from_u8(v: u8) -> Option<DType> {
    [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8, DType::Bool].into_iter().find(|&d| d as u8 == v)
}

fn read_array<T: Element>(f: &mut File, shape: &[usize], crc: u32) -> Option<std::io::Result<Block>> {
    let len: usize = shape.iter().product();
    let mut values = vec![T::default(); len];
    // SAFETY: every element type is a plain number (or bool) without padding;
    // the bytes are checked against the checksum of bytes this process wrote
    // from values of the same type before they are used, so every bool is 0 or 1.
    let bytes = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), len * std::mem::size_of::<T>()) };
    let read = f.read_exact(bytes).and_then(|()| {
        if crc32c::crc32c(bytes) == crc {
            Ok(())
        } else {
            Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "checksum mismatch"))
        }
    });
    Some(read.map(|()| Arc::new(ArrayD::from_shape_vec(IxDyn(shape), values).expect("shape")) as Block))
}

/// A block of elements seen as bytes.
struct RawBlock<'a> {
    dtype: DType,
    shape: Vec<usize>,
    bytes: &'a [u8],
}

impl<'a> RawBlock<'a> {
    fn of(block: &'a Block) -> Option<RawBlock<'a>> {
        fn try_as<'b, T: Element>(block: &'b Block) -> Option<RawBlock<'b>> {
            let a = block.as_any().downcast_ref::<ArrayD<T>>()?;
            let slice = a.as_slice()?; // standard layout only; others stay in memory
            // SAFETY: plain numbers without padding, viewed as bytes for writing.
            let bytes = unsafe { std::slice::from_raw_parts(slice.as_ptr().cast::<u8>(), std::mem::size_of_val(slice)) };
            Some(RawBlock { dtype: T::DTYPE, shape: a.shape().to_vec(), bytes })
        }
        try_as::<f64>(block)
            .or_else(|| try_as::<f32>(block))
            .or_else(|| try_as::<i64>(block))
            .or_else(|| try_as::<i32>(block))
            .or_else(|| try_as::<u8>(block))
            .or_else(|| try_as::<bool>(block))
    }
}
