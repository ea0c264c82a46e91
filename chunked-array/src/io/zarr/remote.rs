//! zarrs' view of an object store: every object it reads is bounded before
//! its body arrives (metadata by [`MAX_METADATA_BYTES`], a chunk by the
//! array's largest chunk), and a chunk's outermost compressor is checked as
//! for a local chunk file.

use std::sync::{Arc, OnceLock};

use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::{MaybeBytes, MaybeBytesIterator, ReadableStorageTraits, StorageError, StoreKey};

use crate::io::cloud::remote::Remote;
use crate::io::zarr::untrusted::{ChunkBound, MAX_METADATA_BYTES};

/// The metadata file names of Zarr v2 and v3.
const METADATA_NAMES: [&str; 5] = ["zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"];

/// An object store as zarrs reads it.
#[derive(Debug)]
pub(super) struct RemoteStorage {
    pub(super) remote: Arc<Remote>,
    /// The bound of the array's chunks, known once its metadata is read;
    /// before that only metadata objects are read.
    pub(super) bound: OnceLock<ChunkBound>,
}

fn is_metadata(key: &StoreKey) -> bool {
    let name = key.as_str().rsplit('/').next().unwrap_or("");
    METADATA_NAMES.contains(&name)
}

impl RemoteStorage {
    fn chunk_bound(&self, key: &StoreKey) -> Result<&ChunkBound, StorageError> {
        self.bound.get().ok_or_else(|| {
            StorageError::Other(format!("{}: read before its array's metadata", self.remote.url_of(key.as_str())))
        })
    }
}

impl ReadableStorageTraits for RemoteStorage {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        let other = |e: crate::error::Error| StorageError::Other(e.to_string());
        if is_metadata(key) {
            return self.remote.get(key.as_str(), MAX_METADATA_BYTES).map_err(other);
        }
        let bound = self.chunk_bound(key)?;
        let bytes = self.remote.get(key.as_str(), bound.cap).map_err(other)?;
        if let Some(bytes) = &bytes {
            bound
                .check(bytes)
                .map_err(|why| StorageError::Other(format!("{} {why}", self.remote.url_of(key.as_str()))))?;
        }
        Ok(bytes)
    }

    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let other = |e: crate::error::Error| StorageError::Other(e.to_string());
        let cap = if is_metadata(key) { MAX_METADATA_BYTES } else { self.chunk_bound(key)?.cap };
        let Some(size) = self.remote.size(key.as_str()).map_err(other)? else { return Ok(None) };
        if size > cap {
            let url = self.remote.url_of(key.as_str());
            return Err(StorageError::Other(format!("{url} holds {size} bytes, more than the {cap} it may")));
        }
        let mut parts = Vec::new();
        for range in byte_ranges {
            match self.remote.get_range(key.as_str(), range.to_range(size)).map_err(other)? {
                Some(bytes) => parts.push(Ok(bytes)),
                None => return Ok(None),
            }
        }
        Ok(Some(Box::new(parts.into_iter())))
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.remote.size(key.as_str()).map_err(|e| StorageError::Other(e.to_string()))
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}
