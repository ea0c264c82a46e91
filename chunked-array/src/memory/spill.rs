//! The disk tier: spilled blocks appended to one file per run, each record with
//! its dtype, shape and a CRC32C checksum, so that a damaged record is detected
//! (and the block recomputed from its lineage) instead of read back wrong.
//!
//! One file rather than one per block: a file per block cost a create and an
//! unlink each, which dominated runs that spill many small pieces. Records start
//! on page boundaries; a record read back or released is punched out of the file
//! (`fallocate(PUNCH_HOLE)`, Linux), so the disk holds only live blocks. Reads
//! go through the file's open handle: a file swapped in under its name is never
//! read, and one deleted under a run still reads until the run ends.
//!
//! A run makes its own private directory ([`SpillDir`]) inside the configured
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
use crate::memory::spill_dir::SpillDir;

const MAGIC: &[u8; 8] = b"CHKSPIL1";

/// Bytes of a record's header for a block of `ndim` axes: the magic, the
/// dtype and axis count bytes, each axis length and the checksum.
fn header_len(ndim: usize) -> u64 {
    (MAGIC.len() + 2 + 8 * ndim + 4) as u64
}

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

/// The spill directory of one run.
pub(crate) struct DiskTier {
    parent: PathBuf,
    /// The rank named in the directory's name.
    rank: usize,
    /// The run's directory and its spill file, made on the first spill.
    arena: OnceLock<std::io::Result<SpillDir>>,
    /// Cap on bytes on disk at once (`u64::MAX`: none).
    pub limit: u64,
    pub used: AtomicU64,
    /// End of the file: where the next record goes.
    end: AtomicU64,
}

impl DiskTier {
    pub fn new(parent: PathBuf, rank: usize, limit: u64) -> DiskTier {
        DiskTier { parent, rank, arena: OnceLock::new(), limit, used: AtomicU64::new(0), end: AtomicU64::new(0) }
    }

    /// The configured spill directory (for messages).
    pub fn parent(&self) -> &Path {
        &self.parent
    }

    fn arena(&self) -> std::io::Result<&SpillDir> {
        let made = self.arena.get_or_init(|| SpillDir::create(&self.parent, self.rank));
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
        let file = &self.arena()?.file;
        let mut header = Vec::with_capacity(header_len(shape.len()) as usize);
        header.extend_from_slice(MAGIC);
        header.push(dtype);
        header.push(shape.len() as u8);
        for &n in &shape {
            header.extend_from_slice(&(n as u64).to_le_bytes());
        }
        header.extend_from_slice(&crc32c::crc32c(bytes).to_le_bytes());
        debug_assert_eq!(header.len() as u64, header_len(shape.len()));
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
        let arena = self.arena()?;
        let bad = |what: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} at {}: {what}", arena.path().display(), spilled.offset),
            )
        };
        let mut f = At { file: &arena.file, pos: spilled.offset, end: spilled.offset + spilled.len };
        read_record(&mut f, spilled.len, spilled.rebuild)
            .map_err(|e| if e.kind() == std::io::ErrorKind::InvalidData { bad(&e.to_string()) } else { e })
    }

    /// Frees a spilled block's record (its block was released, or read back).
    pub fn forget(&self, spilled: &SpilledBlock) {
        if let Some(Ok(arena)) = self.arena.get() {
            punch(&arena.file, spilled);
        }
        self.used.fetch_sub(spilled.nbytes as u64, Ordering::Relaxed);
    }
}

/// The block in the record of `len` bytes that `f` reads: an opaque image
/// that `rebuild` makes a block of, or elements. Every length in the header
/// is checked against `len` before anything is allocated. Bytes that are
/// not such a record are an `InvalidData` error.
pub(crate) fn read_record(
    f: &mut impl Read,
    len: u64,
    rebuild: Option<crate::block::Rebuild>,
) -> std::io::Result<Block> {
    let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let mut head = [0u8; 10];
    f.read_exact(&mut head)?;
    if &head[..8] != MAGIC {
        return Err(invalid("not a spill record"));
    }
    if let Some(rebuild) = rebuild {
        let mut crc = [0u8; 4];
        f.read_exact(&mut crc)?;
        let mut bytes = Vec::new();
        f.take(len).read_to_end(&mut bytes)?;
        if head[8] != OPAQUE || crc32c::crc32c(&bytes) != u32::from_le_bytes(crc) {
            return Err(invalid("checksum mismatch"));
        }
        return rebuild(&bytes).ok_or_else(|| invalid("cannot rebuild the block"));
    }
    let dtype = dtype_from_u8(head[8]).ok_or_else(|| invalid("unknown dtype"))?;
    let ndim = head[9] as usize;
    if header_len(ndim) > len {
        return Err(invalid(&format!("a header of {ndim} axes does not fit the record's {len} bytes")));
    }
    let mut shape = vec![0usize; ndim];
    for n in &mut shape {
        let mut b = [0u8; 8];
        f.read_exact(&mut b)?;
        *n = usize::try_from(u64::from_le_bytes(b)).map_err(|_| invalid("an axis longer than memory"))?;
    }
    let mut crc = [0u8; 4];
    f.read_exact(&mut crc)?;
    let room = len - header_len(shape.len());
    crate::block::dispatch_dtype!(dtype, read_array::<_>(f, &shape, u32::from_le_bytes(crc), room))
        .ok_or_else(|| invalid("not elements"))?
}

/// Gives a record's pages back to the file system.
fn punch(file: &File, spilled: &SpilledBlock) {
    // Miri has no fallocate; the pages only stay allocated.
    #[cfg(all(target_os = "linux", not(miri)))]
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
    #[cfg(any(not(target_os = "linux"), miri))]
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

fn dtype_from_u8(v: u8) -> Option<DType> {
    DType::ALL.into_iter().find(|&d| d as u8 == v)
}

/// Reads the elements of a record whose header gave `shape`; `room` is the
/// bytes the record holds after its header, which the shape must fill exactly
/// before anything is allocated.
fn read_array<T: Element>(f: &mut impl Read, shape: &[usize], crc: u32, room: u64) -> Option<std::io::Result<Block>> {
    let invalid = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let len = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    let bytes_len = len.and_then(|n| n.checked_mul(std::mem::size_of::<T>()));
    let (Some(len), Some(bytes_len)) = (len, bytes_len) else {
        return Some(Err(invalid(format!("a shape of {shape:?} is too large"))));
    };
    if bytes_len as u64 != room {
        return Some(Err(invalid(format!("a shape of {shape:?} does not fill the record's {room} bytes"))));
    }
    let mut values = crate::block::alloc::block_vec(len);
    values.resize(len, T::default());
    // SAFETY: every element type is a plain number (or bool) without padding,
    // and any bytes are a valid number; bools are checked below before use.
    let bytes = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), bytes_len) };
    let read = f.read_exact(bytes).and_then(|()| {
        if crc32c::crc32c(bytes) != crc {
            Err(invalid("checksum mismatch".into()))
        } else if T::DTYPE == DType::Bool && bytes.iter().any(|&b| b > 1) {
            Err(invalid("a bool that is neither 0 nor 1".into()))
        } else {
            Ok(())
        }
    });
    // ndarray also refuses a shape whose nonzero lengths overflow isize, which
    // a zero-length axis lets through the size check above.
    Some(read.and_then(|()| {
        let array = ArrayD::from_shape_vec(IxDyn(shape), values)
            .map_err(|e| invalid(format!("a shape of {shape:?} is not an array's: {e}")))?;
        Ok(Arc::new(array) as Block)
    }))
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

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex;

    fn tier() -> (tempfile::TempDir, DiskTier) {
        let parent = tempfile::tempdir().unwrap();
        let tier = DiskTier::new(parent.path().to_path_buf(), 0, u64::MAX);
        (parent, tier)
    }

    #[test]
    fn every_element_type_comes_back() {
        let (_parent, tier) = tier();
        fn round_trip<T: Element + PartialEq + std::fmt::Debug>(tier: &DiskTier, values: Vec<T>) {
            let block: Block = Arc::new(ArrayD::from_shape_vec(IxDyn(&[values.len()]), values.clone()).unwrap());
            let spilled = tier.write(&block).unwrap().expect("elements spill");
            let back = tier.read(&spilled).unwrap();
            assert_eq!(back.as_any().downcast_ref::<ArrayD<T>>().unwrap().as_slice().unwrap(), &values[..]);
        }
        round_trip(&tier, vec![1u16, 65535]);
        round_trip(&tier, vec![-3i8, 7]);
        round_trip(&tier, vec![u64::MAX, 0]);
        round_trip(&tier, vec![Complex::new(1.5f32, -2.0)]);
        round_trip(&tier, vec![Complex::new(-0.25f64, 9.0)]);
        round_trip(&tier, vec![true, false, true]);
    }

    /// Rewrites the record's bytes at `at` (from the record's start), as a
    /// forger who knows the format would.
    fn forge(tier: &DiskTier, spilled: &SpilledBlock, at: u64, bytes: &[u8]) {
        tier.arena().unwrap().file.write_all_at(bytes, spilled.offset + at).unwrap();
    }

    #[test]
    fn forged_records_are_errors_before_any_allocation() {
        let (_parent, tier) = tier();
        let block: Block = Arc::new(ArrayD::from_elem(IxDyn(&[4, 2]), 1.5f64));
        let spilled = tier.write(&block).unwrap().unwrap();
        forge(&tier, &spilled, 10, &(1u64 << 40).to_le_bytes());
        let err = tier.peek(&spilled).err().expect("a shape of 2^40 x 2 is refused");
        assert!(err.to_string().contains("does not fill the record"), "{err}");
        forge(&tier, &spilled, 10, &u64::MAX.to_le_bytes());
        let err = tier.peek(&spilled).err().expect("an overflowing shape is refused");
        assert!(err.to_string().contains("too large"), "{err}");
        // A bool that is 2, under a checksum made for it.
        let flags: Block = Arc::new(ArrayD::from_elem(IxDyn(&[3]), true));
        let spilled = tier.write(&flags).unwrap().unwrap();
        let data = [1u8, 2, 0];
        forge(&tier, &spilled, 18, &crc32c::crc32c(&data).to_le_bytes());
        forge(&tier, &spilled, 22, &data);
        let err = tier.peek(&spilled).err().expect("a bool of 2 is refused");
        assert!(err.to_string().contains("neither 0 nor 1"), "{err}");
        // An empty block whose other axis is past isize: zero elements fill the
        // record, and ndarray refuses the shape.
        let empty: Block = Arc::new(ArrayD::<f64>::zeros(IxDyn(&[0, 4])));
        let spilled = tier.write(&empty).unwrap().unwrap();
        forge(&tier, &spilled, 18, &0xFD00_0000_0000_0004u64.to_le_bytes());
        let err = tier.peek(&spilled).err().expect("a shape past isize is refused");
        assert!(err.to_string().contains("is not an array's"), "{err}");
    }

    proptest::proptest! {
        /// A record overwritten with arbitrary bytes reads back as the block
        /// or as an error, never a panic or an allocation past the record.
        #[test]
        fn records_of_arbitrary_bytes(at in 0u64..64, junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 1..48)) {
            let (_parent, tier) = tier();
            let block: Block = Arc::new(ArrayD::from_shape_fn(IxDyn(&[3, 2]), |i| i[0] as i32 - i[1] as i32));
            let spilled = tier.write(&block).unwrap().unwrap();
            forge(&tier, &spilled, at, &junk);
            if let Ok(back) = tier.peek(&spilled) {
                proptest::prop_assert_eq!(back.as_any().downcast_ref::<ArrayD<i32>>(), block.as_any().downcast_ref::<ArrayD<i32>>());
            }
        }
    }
}
