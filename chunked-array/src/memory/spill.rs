//! The disk tier: spilled blocks appended to one file per run, each record with
//! its dtype, shape and a CRC32C checksum, so that a damaged record is detected
//! (and the block recomputed from its lineage) instead of read back wrong.
//!
//! One file rather than one per block: a file per block cost a create and an
//! unlink each, which dominated runs that spill many small pieces. Records start
//! on page boundaries; a record read back or released is punched out of the file
//! (`fallocate(PUNCH_HOLE)`, Linux), so the disk holds only live blocks. Reads
//! open the file by name, so a spill file deleted under a run is noticed.
//!
//! A run makes its own directory (`chunked-spill-<pid>-<n>`) inside the configured
//! spill directory on its first spill and removes it when it ends, whether it
//! succeeded, failed or panicked.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use ndarray::{ArrayD, IxDyn};

use crate::block::Block;
use crate::element::{DType, Element};

const MAGIC: &[u8; 8] = b"CHKSPIL1";

/// A block written to disk: where its record is in the run's spill file.
#[derive(Clone, Copy)]
pub(crate) struct SpilledBlock {
    offset: u64,
    /// Bytes of the record (header and data).
    len: u64,
    /// Bytes of the block in memory (what unspilling brings back).
    pub nbytes: usize,
    /// For blocks that are not arrays of elements: how to rebuild them.
    pub rebuild: Option<crate::block::Rebuild>,
}

const PAGE: u64 = 4096;

/// Dtype byte of an opaque image (see [`crate::block::SpillImage`]).
const OPAQUE: u8 = 255;

/// The run's spill file and its path.
type Arena = (PathBuf, File);

/// The spill directory of one run.
pub(crate) struct DiskTier {
    parent: PathBuf,
    /// The run's directory and its spill file, made on the first spill.
    arena: OnceLock<std::io::Result<Arena>>,
    /// Cap on bytes on disk at once (`u64::MAX`: none).
    pub limit: u64,
    pub used: AtomicU64,
    /// End of the file: where the next record goes.
    end: AtomicU64,
}

impl DiskTier {
    pub fn new(parent: PathBuf, limit: u64) -> DiskTier {
        DiskTier { parent, arena: OnceLock::new(), limit, used: AtomicU64::new(0), end: AtomicU64::new(0) }
    }

    /// The configured spill directory (for messages).
    pub fn parent(&self) -> &Path {
        &self.parent
    }

    fn arena(&self) -> std::io::Result<&Arena> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let made = self.arena.get_or_init(|| {
            let dir = self.parent.join(format!(
                "chunked-spill-{}-{}",
                std::process::id(),
                RUNS.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&dir)?;
            let path = dir.join("blocks.spill");
            let file = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
            Ok((path, file))
        });
        made.as_ref().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))
    }

    /// Appends `block` to the spill file. `Ok(None)` when the block can neither
    /// be seen as bytes nor has a spill image (such blocks stay in memory).
    pub fn write(&self, block: &Block) -> std::io::Result<Option<SpilledBlock>> {
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
        let (_, file) = self.arena()?;
        let mut header = Vec::with_capacity(32 + 8 * shape.len());
        header.extend_from_slice(MAGIC);
        header.push(dtype);
        header.push(shape.len() as u8);
        for &n in &shape {
            header.extend_from_slice(&(n as u64).to_le_bytes());
        }
        header.extend_from_slice(&crc32c::crc32c(bytes).to_le_bytes());
        let len = (header.len() + bytes.len()) as u64;
        let offset = self.end.fetch_add(len.next_multiple_of(PAGE), Ordering::Relaxed);
        let spilled = SpilledBlock { offset, len, nbytes, rebuild };
        if let Err(e) =
            file.write_all_at(&header, offset).and_then(|()| file.write_all_at(bytes, offset + header.len() as u64))
        {
            punch(file, &spilled);
            return Err(e);
        }
        self.used.fetch_add(nbytes as u64, Ordering::Relaxed);
        Ok(Some(spilled))
    }

    /// Reads a spilled block back and frees its record. Errors when the spill
    /// file is gone, cut short, or the record fails its checksum.
    pub fn read(&self, spilled: &SpilledBlock) -> std::io::Result<Block> {
        let block = self.peek(spilled);
        self.forget(spilled);
        block
    }

    /// Reads a spilled block and keeps its record (for recomputing a consumer
    /// while the block's own consumers still need it).
    pub fn peek(&self, spilled: &SpilledBlock) -> std::io::Result<Block> {
        let (path, _) = self.arena()?;
        let bad = |what: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} at {}: {what}", path.display(), spilled.offset),
            )
        };
        // By name, not through the open handle: a deleted file must read as lost.
        let file = File::open(path)?;
        let mut f = At { file: &file, pos: spilled.offset, end: spilled.offset + spilled.len };
        let mut head = [0u8; 10];
        f.read_exact(&mut head)?;
        if &head[..8] != MAGIC {
            return Err(bad("not a spill record"));
        }
        if let Some(rebuild) = spilled.rebuild {
            let mut crc = [0u8; 4];
            f.read_exact(&mut crc)?;
            let mut bytes = Vec::new();
            f.read_to_end(&mut bytes)?;
            if head[8] != OPAQUE || crc32c::crc32c(&bytes) != u32::from_le_bytes(crc) {
                return Err(bad("checksum mismatch"));
            }
            return rebuild(&bytes).ok_or_else(|| bad("cannot rebuild the block"));
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
        crate::block::dispatch_dtype!(dtype, read_array::<_>(&mut f, &shape, u32::from_le_bytes(crc)))
            .ok_or_else(|| bad("not elements"))?
            .map_err(|e| if e.kind() == std::io::ErrorKind::InvalidData { bad(&e.to_string()) } else { e })
    }

    /// Frees a spilled block's record (its block was released, or read back).
    pub fn forget(&self, spilled: &SpilledBlock) {
        if let Some(Ok((_, file))) = self.arena.get() {
            punch(file, spilled);
        }
        self.used.fetch_sub(spilled.nbytes as u64, Ordering::Relaxed);
    }
}

/// Gives a record's pages back to the file system.
fn punch(file: &File, spilled: &SpilledBlock) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: fallocate on an open descriptor with in-range arguments; a
        // failure (a file system without hole punching) only keeps the pages.
        unsafe {
            libc::fallocate(
                file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                spilled.offset as libc::off_t,
                spilled.len.next_multiple_of(PAGE) as libc::off_t,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, spilled);
}

/// Reads a record of the spill file through positioned reads.
struct At<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = buf.len().min(self.end.saturating_sub(self.pos) as usize);
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Drop for DiskTier {
    fn drop(&mut self) {
        if let Some(Ok((path, _))) = self.arena.get()
            && let Some(dir) = path.parent()
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn dtype_from_u8(v: u8) -> Option<DType> {
    [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8, DType::Bool].into_iter().find(|&d| d as u8 == v)
}

fn read_array<T: Element>(f: &mut impl Read, shape: &[usize], crc: u32) -> Option<std::io::Result<Block>> {
    let len: usize = shape.iter().product();
    let mut values = crate::block::alloc::block_vec(len);
    values.resize(len, T::default());
    // SAFETY: every element type is a plain number (or bool) without padding;
    // the bytes are checked against the checksum of bytes this process wrote
    // from values of the same type before they are used, so every bool is 0 or 1.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), len * std::mem::size_of::<T>()) };
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
        fn as_raw<T: Element>(block: &Block) -> Option<RawBlock<'_>> {
            let a = block.as_any().downcast_ref::<ArrayD<T>>()?;
            let slice = a.as_slice()?; // standard layout only; others stay in memory
            // SAFETY: plain numbers without padding, viewed as bytes for writing.
            let bytes =
                unsafe { std::slice::from_raw_parts(slice.as_ptr().cast::<u8>(), std::mem::size_of_val(slice)) };
            Some(RawBlock { dtype: T::DTYPE, shape: a.shape().to_vec(), bytes })
        }
        crate::block::dispatch_dtype!(crate::block::block_dtype(block), as_raw::<_>(block))
    }
}
