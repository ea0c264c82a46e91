//! The storage zarrs reads an array through, local or remote: every object is
//! bounded before its bytes are kept (metadata by [`MAX_METADATA_BYTES`], a
//! chunk by its [`ChunkBound`]'s size), and a chunk's bytes are checked by
//! that bound before zarrs decodes them. zarrs reads each chunk once, from
//! here; the check works on the bytes it reads.

use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use zarrs::filesystem::FilesystemStore;
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator};
use zarrs::storage::{Bytes, MaybeBytes, MaybeBytesIterator, ReadableStorageTraits, StorageError, StoreKey};

#[cfg(feature = "cloud")]
use crate::io::cloud::remote::Remote;
use crate::io::zarr::untrusted::{ChunkBound, MAX_METADATA_BYTES, PartVerdict, metadata_too_large};

/// The metadata file names of Zarr v2 and v3.
const METADATA_NAMES: [&str; 5] = ["zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"];

/// Where the objects are.
#[derive(Debug)]
pub(super) enum Objects {
    /// Files under a directory, read by zarrs's filesystem store once their
    /// type and size are checked.
    Local { root: PathBuf, files: FilesystemStore },
    #[cfg(feature = "cloud")]
    Remote(Arc<Remote>),
}

fn other(e: impl std::fmt::Display) -> StorageError {
    StorageError::Other(e.to_string())
}

impl Objects {
    /// The path or URL of `key`, for messages.
    fn name(&self, key: &StoreKey) -> String {
        match self {
            Objects::Local { root, .. } => root.join(key.as_str()).display().to_string(),
            #[cfg(feature = "cloud")]
            Objects::Remote(remote) => remote.url_of(key.as_str()),
        }
    }

    /// The size of object `key`, `None` when there is none; a local object
    /// must be a regular file (not a device, a pipe or a directory).
    fn size(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        match self {
            Objects::Local { root, .. } => match std::fs::metadata(root.join(key.as_str())) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(other(format!("{}: {e}", self.name(key)))),
                Ok(m) if !m.is_file() => Err(other(format!("{} is not a regular file", self.name(key)))),
                Ok(m) => Ok(Some(m.len())),
            },
            #[cfg(feature = "cloud")]
            Objects::Remote(remote) => remote.size(key.as_str()).map_err(other),
        }
    }

    /// Object `key` whole, an error past `cap` bytes (`over` says why, from
    /// the object's size).
    fn get(&self, key: &StoreKey, cap: u64, over: &dyn Fn(u64) -> String) -> Result<MaybeBytes, StorageError> {
        let too_big = |len: u64| other(format!("{} {}", self.name(key), over(len)));
        match self {
            Objects::Local { files, .. } => {
                match self.size(key)? {
                    None => return Ok(None),
                    Some(len) if len > cap => return Err(too_big(len)),
                    Some(_) => {}
                }
                let bytes = files.get(key)?;
                match bytes {
                    // A file that grew since it was sized.
                    Some(b) if b.len() as u64 > cap => Err(too_big(b.len() as u64)),
                    bytes => Ok(bytes),
                }
            }
            #[cfg(feature = "cloud")]
            Objects::Remote(remote) => {
                let _ = over;
                remote.get(key.as_str(), cap).map_err(other)
            }
        }
    }

    /// The `ranges` of object `key` (each within its `size`).
    fn get_ranges(&self, key: &StoreKey, ranges: &[Range<u64>], size: u64) -> Result<Option<Vec<Bytes>>, StorageError> {
        match self {
            Objects::Local { files, .. } => {
                let _ = size;
                let requested = ranges.iter().map(|r| ByteRange::new(r.clone())).collect::<Vec<_>>();
                match files.get_partial_many(key, Box::new(requested.into_iter()))? {
                    None => Ok(None),
                    Some(parts) => parts.collect::<Result<Vec<_>, _>>().map(Some),
                }
            }
            #[cfg(feature = "cloud")]
            Objects::Remote(remote) => remote.get_ranges(key.as_str(), ranges, size).map_err(other),
        }
    }
}

/// An array's objects as zarrs reads them.
#[derive(Debug)]
pub(super) struct BoundedStorage {
    pub(super) objects: Objects,
    /// The bound of the array's chunks, known once its metadata is read;
    /// before that only metadata objects are read.
    pub(super) bound: OnceLock<ChunkBound>,
}

/// The bytes `range` names in an object of `size` bytes, `None` past its
/// end (a suffix longer than the object, a start past it).
fn within(range: &ByteRange, size: u64) -> Option<Range<u64>> {
    match *range {
        ByteRange::FromStart(start, None) => (start <= size).then_some(start..size),
        ByteRange::FromStart(start, Some(len)) => {
            start.checked_add(len).filter(|&end| end <= size).map(|end| start..end)
        }
        ByteRange::Suffix(len) => (len <= size).then(|| size - len..size),
    }
}

fn is_metadata(key: &StoreKey) -> bool {
    let name = key.as_str().rsplit('/').next().unwrap_or("");
    METADATA_NAMES.contains(&name)
}

impl BoundedStorage {
    pub(super) fn new(objects: Objects) -> Arc<BoundedStorage> {
        Arc::new(BoundedStorage { objects, bound: OnceLock::new() })
    }

    fn chunk_bound(&self, key: &StoreKey) -> Result<&ChunkBound, StorageError> {
        self.bound.get().ok_or_else(|| other(format!("{}: read before its array's metadata", self.objects.name(key))))
    }

    fn refuse(&self, key: &StoreKey, why: String) -> StorageError {
        other(format!("{} {why}", self.objects.name(key)))
    }

    /// Object `key` whole, checked by its bound.
    fn checked_whole(&self, key: &StoreKey, bound: &ChunkBound) -> Result<MaybeBytes, StorageError> {
        let over = |len: u64| bound.check_stored(len).err().unwrap_or_default();
        let bytes = self.objects.get(key, bound.cap, &over)?;
        if let Some(bytes) = &bytes {
            bound.check(bytes).map_err(|why| self.refuse(key, why))?;
        }
        Ok(bytes)
    }
}

impl ReadableStorageTraits for BoundedStorage {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        if is_metadata(key) {
            return self.objects.get(key, MAX_METADATA_BYTES, &metadata_too_large);
        }
        self.checked_whole(key, self.chunk_bound(key)?)
    }

    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let bound = if is_metadata(key) { None } else { Some(self.chunk_bound(key)?) };
        let Some(size) = self.objects.size(key)? else { return Ok(None) };
        match bound {
            Some(bound) => bound.check_stored(size).map_err(|why| self.refuse(key, why))?,
            None if size > MAX_METADATA_BYTES => return Err(self.refuse(key, metadata_too_large(size))),
            None => {}
        }
        let mut ranges: Vec<Range<u64>> = Vec::new();
        for range in byte_ranges {
            let within = within(&range, size);
            ranges.push(within.ok_or_else(|| self.refuse(key, format!("has no bytes {range:?} (it holds {size})")))?);
        }
        let Some(parts) = self.objects.get_ranges(key, &ranges, size)? else { return Ok(None) };
        let Some(bound) = bound else { return Ok(Some(Box::new(parts.into_iter().map(Ok)))) };
        let mut whole_needed = false;
        for (part, range) in parts.iter().zip(&ranges) {
            match bound.check_part(part, range.clone(), size).map_err(|why| self.refuse(key, why))? {
                PartVerdict::Checked => {}
                PartVerdict::NeedsWhole => whole_needed = true,
            }
        }
        if !whole_needed {
            return Ok(Some(Box::new(parts.into_iter().map(Ok))));
        }
        // A part the bound cannot check alone: the object is read and
        // checked whole, and the parts cut from that.
        let Some(whole) = self.checked_whole(key, bound)? else { return Ok(None) };
        let mut cut = Vec::with_capacity(ranges.len());
        for range in &ranges {
            if range.end > whole.len() as u64 {
                return Err(self.refuse(key, format!("shrank to {} bytes while it was read", whole.len())));
            }
            cut.push(Ok(whole.slice(range.start as usize..range.end as usize)));
        }
        Ok(Some(Box::new(cut.into_iter())))
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.objects.size(key)
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}
