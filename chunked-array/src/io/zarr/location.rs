//! Where a Zarr array lives on disk, what is there already, and the codec
//! settings and data types both directions share.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use zarrs::array::CodecOptions;
use zarrs::filesystem::FilesystemStore;

use crate::chunks::Chunks;
use crate::error::{Error, Result};
use crate::io::atomic::write_atomic;
use crate::io::cloud::StorageOptions;
#[cfg(feature = "cloud")]
use crate::io::cloud::remote::Remote;
use crate::io::zarr::bounded::{BoundedStorage, Objects};
pub(super) use crate::io::zarr::metadata::zarr_data_type;
use crate::io::zarr::metadata::{format_of, published_files};
use crate::io::zarr::options::ZarrFormat;
#[cfg(feature = "cloud")]
use crate::io::zarr::untrusted::MAX_METADATA_BYTES;
pub(super) use crate::io::zarr::untrusted::ZArray;
use crate::io::zarr::untrusted::{ChunkBound, check_metadata_files};

/// The local path a `file://` URL names.
fn url_file(text: &str) -> Result<PathBuf> {
    let path = text.strip_prefix("file://").unwrap_or(text);
    if !path.starts_with('/') {
        return Err(Error::invalid("url", text, "a file URL names an absolute path (file:///data/x.zarr)"));
    }
    Ok(PathBuf::from(path))
}

#[cfg(feature = "cloud")]
fn remote_root(text: &str, storage: &StorageOptions) -> Result<Root> {
    Ok(Root::Remote(Arc::new(Remote::open(text, storage)?)))
}

#[cfg(not(feature = "cloud"))]
fn remote_root(text: &str, _: &StorageOptions) -> Result<Root> {
    Err(Error::invalid("url", text, "object store URLs need chunked-array's `cloud` feature"))
}

/// The marker a running store leaves in the array directory until it finishes.
pub const INCOMPLETE_MARKER: &str = ".chunked-incomplete";

/// The lock file that serialises read-modify-writes of cut chunks (region
/// writes) across processes.
pub(super) const REGION_LOCK: &str = ".chunked-region-lock";

/// The name of an unfinished store's metadata (Zarr v3's or v2's, in one
/// document), published once every chunk is written: renamed to `zarr.json`
/// in one step, or split into `.zattrs` and `.zarray`.
pub const PENDING_METADATA: &str = "zarr.json.chunked-pending";

/// Where a store's root is: a local directory or an object store prefix.
#[derive(Debug, Clone)]
pub(super) enum Root {
    Local(PathBuf),
    #[cfg(feature = "cloud")]
    Remote(Arc<Remote>),
}

/// The store root, the array's path inside it and its directory.
#[derive(Debug, Clone)]
pub(super) struct Location {
    pub(super) root: Root,
    /// "/" or "/a/b", as zarrs names nodes.
    pub(super) node: String,
    /// "" or "a/b": the array's folder under the root.
    rel: String,
}

impl Location {
    /// The array `array` of the store at `root`: a local path, or a URL
    /// (see [`crate::io::cloud`]) reached with `storage`.
    pub(super) fn new(root: &Path, array: &str, storage: &StorageOptions) -> Result<Location> {
        let trimmed = array.trim_matches('/');
        if trimmed.split('/').any(|part| part == "." || part == "..") {
            return Err(Error::invalid("array", array, "a Zarr node path may not contain '.' or '..' components"));
        }
        let text = root.to_string_lossy();
        let root = if text.starts_with("file://") {
            let url = url_file(&text)?;
            Root::Local(url)
        } else if crate::io::cloud::is_url(&text) {
            remote_root(&text, storage)?
        } else {
            Root::Local(root.to_path_buf())
        };
        Ok(Location { root, node: format!("/{trimmed}"), rel: trimmed.to_string() })
    }

    /// The array's directory, for a local store.
    pub(super) fn local_dir(&self) -> Option<PathBuf> {
        match &self.root {
            Root::Local(root) => Some(if self.rel.is_empty() { root.clone() } else { root.join(&self.rel) }),
            #[cfg(feature = "cloud")]
            Root::Remote(_) => None,
        }
    }

    /// The array's directory or URL, for messages.
    pub(super) fn name(&self) -> String {
        self.name_of("")
    }

    /// The key of `file` in the array's folder, relative to the root.
    fn key(&self, file: &str) -> String {
        match (self.rel.is_empty(), file.is_empty()) {
            (true, _) => file.to_string(),
            (false, true) => self.rel.clone(),
            (false, false) => format!("{}/{file}", self.rel),
        }
    }

    /// The path or URL of `file` in the array's folder, for messages.
    pub(super) fn name_of(&self, file: &str) -> String {
        self.name_at(&self.key(file))
    }

    /// The path or URL of `key` (relative to the root), for messages.
    fn name_at(&self, key: &str) -> String {
        match &self.root {
            Root::Local(root) => root.join(key).display().to_string(),
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => remote.url_of(key),
        }
    }

    /// Whether the store's root exists (an object store's always does).
    pub(super) fn root_exists(&self) -> bool {
        match &self.root {
            Root::Local(root) => root.exists(),
            #[cfg(feature = "cloud")]
            Root::Remote(_) => true,
        }
    }

    /// Whether `file` exists in the array's folder.
    pub(super) fn exists(&self, file: &str) -> Result<bool> {
        match &self.root {
            Root::Local(_) => Ok(self.local_dir().expect("local").join(file).exists()),
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => Ok(remote.size(&self.key(file))?.is_some()),
        }
    }

    /// Metadata file `file` of the array's folder (bounded), if there is one.
    pub(super) fn read_metadata(&self, file: &str) -> Result<Option<Vec<u8>>> {
        match &self.root {
            Root::Local(_) => {
                let dir = self.local_dir().expect("local");
                check_metadata_files(&dir, &[file])?;
                match std::fs::read(dir.join(file)) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(Error::io(dir.join(file).display(), e)),
                    Ok(text) => Ok(Some(text)),
                }
            }
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => Ok(remote.get(&self.key(file), MAX_METADATA_BYTES)?.map(|b| b.to_vec())),
        }
    }

    /// Writes `file` in the array's folder whole or not at all; with
    /// `create`, only where there is none (on an object store with
    /// conditional writes; locally, the caller checked).
    pub(super) fn write_file(&self, file: &str, bytes: &[u8], create: bool) -> Result<()> {
        match &self.root {
            Root::Local(_) => {
                let _ = create;
                write_atomic(&self.local_dir().expect("local").join(file), bytes, false)
            }
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => remote.put(&self.key(file), bytes.to_vec(), create),
        }
    }

    /// Checks that the store can be written (an http(s) store cannot).
    pub(super) fn check_writable(&self) -> Result<()> {
        match &self.root {
            Root::Local(_) => Ok(()),
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => remote.writable(&self.key("")),
        }
    }

    /// Removes `file` from the array's folder, if it is there.
    pub(super) fn remove_file(&self, file: &str) -> Result<()> {
        match &self.root {
            Root::Local(_) => {
                let path = self.local_dir().expect("local").join(file);
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path.display(), e)),
                    _ => Ok(()),
                }
            }
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => remote.delete(&self.key(file)),
        }
    }

    /// Publishes the pending metadata: as Zarr v3's `zarr.json`, one rename
    /// locally; on an object store, a copy (an object appears whole) and the
    /// removal of the pending one. Zarr v2's `.zattrs` and then `.zarray` are
    /// each written whole, and the pending metadata removed.
    pub(super) fn publish_metadata(&self) -> Result<()> {
        let pending = self.name_of(PENDING_METADATA);
        let Some(text) = self.read_metadata(PENDING_METADATA)? else {
            return Err(Error::io(pending, "the pending metadata is gone"));
        };
        if let (Root::Local(_), Some(ZarrFormat::V3)) = (&self.root, format_of(&text)) {
            let dir = self.local_dir().expect("local");
            let (pending, metadata) = (dir.join(PENDING_METADATA), dir.join("zarr.json"));
            return std::fs::rename(&pending, &metadata).map_err(|e| Error::io(pending.display(), e));
        }
        for (file, bytes) in published_files(&text).map_err(|why| Error::io(&pending, why))? {
            self.write_file(file, &bytes, false)?;
        }
        self.remove_file(PENDING_METADATA)
    }

    /// Hides a published array from other clients (removes its metadata
    /// files) while a resumed store checks and completes it.
    pub(super) fn unpublish_metadata(&self) -> Result<()> {
        ["zarr.json", ".zarray", ".zattrs"].into_iter().try_for_each(|file| self.remove_file(file))
    }

    /// The names of the objects in the array's folder (at most `limit`):
    /// for a local store, its entries; for an object store, every object
    /// under it, at any depth.
    pub(super) fn list(&self, limit: usize) -> Result<Vec<String>> {
        match &self.root {
            Root::Local(_) => {
                let dir = self.local_dir().expect("local");
                let io = |e: std::io::Error| Error::io(dir.display(), e);
                let mut names = Vec::new();
                for entry in std::fs::read_dir(&dir).map_err(io)?.take(limit) {
                    names.push(entry.map_err(io)?.file_name().to_string_lossy().into_owned());
                }
                Ok(names)
            }
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => remote.list(&self.key(""), limit),
        }
    }

    /// The keys (relative to the root) of every object in the array's
    /// folder of an object store.
    pub(super) fn stored_keys(&self) -> Result<std::collections::HashSet<String>> {
        Ok(self.list(usize::MAX)?.iter().map(|name| self.key(name)).collect())
    }

    /// The storage zarrs reads the array through.
    fn storage(&self, direct_io: bool) -> Result<Arc<BoundedStorage>> {
        match &self.root {
            Root::Local(root) => {
                let mut options = zarrs::filesystem::FilesystemStoreOptions::default();
                options.direct_io(direct_io);
                let files =
                    FilesystemStore::new_with_options(root, options).map_err(|e| Error::io(root.display(), e))?;
                Ok(BoundedStorage::new(Objects::Local { root: root.clone(), files }))
            }
            #[cfg(feature = "cloud")]
            Root::Remote(remote) => Ok(BoundedStorage::new(Objects::Remote(remote.clone()))),
        }
    }

    /// Sets the bound of `za`'s chunks on the storage it reads through.
    fn bound_chunks(&self, za: &ZArray, storage: &BoundedStorage) -> Result<()> {
        let shape = largest_chunk(za, self)?;
        let bound = ChunkBound::new(za, &shape).map_err(|why| Error::io(self.name(), why))?;
        storage.bound.set(bound).map_err(|_| Error::io(self.name(), "its chunks were bounded twice"))
    }

    /// The array, from its `zarr.json` (or `.zarray`), or from an unfinished
    /// store's pending metadata when `pending` allows it.
    pub(super) fn open(&self, direct_io: bool, pending: bool) -> Result<ZArray> {
        // zarrs reads the metadata through `storage`, which bounds it; the
        // pending metadata is read (and bounded) by `read_metadata`.
        let storage = self.storage(direct_io)?;
        let store: Arc<dyn zarrs::storage::ReadableStorageTraits> = storage.clone();
        let za = if !self.exists("zarr.json")? && !self.exists(".zarray")? {
            let waiting = self.name_of(PENDING_METADATA);
            match self.read_metadata(PENDING_METADATA)? {
                Some(text) if pending => {
                    let metadata = serde_json::from_slice(&text).map_err(|e| Error::io(&waiting, e))?;
                    ZArray::new_with_metadata(store, &self.node, metadata).map_err(|e| Error::io(&waiting, e))?
                }
                _ => return Err(Error::io(self.name(), "no Zarr array here (neither zarr.json nor .zarray)")),
            }
        } else {
            ZArray::open(store, &self.node).map_err(|e| Error::io(self.name(), e))?
        };
        self.bound_chunks(&za, &storage)?;
        Ok(za)
    }

    /// A new array's handle (its metadata is written by the store).
    pub(super) fn build(&self, metadata: zarrs::array::ArrayMetadata) -> Result<ZArray> {
        let storage = self.storage(false)?;
        let store: Arc<dyn zarrs::storage::ReadableStorageTraits> = storage.clone();
        let za = ZArray::new_with_metadata(store, &self.node, metadata).map_err(|e| Error::io(self.name(), e))?;
        self.bound_chunks(&za, &storage)?;
        Ok(za)
    }

    /// The path or URL of chunk `idx`, for messages.
    pub(super) fn chunk_name(&self, za: &ZArray, idx: &[u64]) -> String {
        self.name_at(za.chunk_key(idx).as_str())
    }

    /// The file of chunk `idx`, for a local store.
    pub(super) fn chunk_path(&self, za: &ZArray, idx: &[u64]) -> Option<PathBuf> {
        match &self.root {
            Root::Local(root) => Some(root.join(za.chunk_key(idx).as_str())),
            #[cfg(feature = "cloud")]
            Root::Remote(_) => None,
        }
    }

    pub(super) fn existing(&self) -> Result<Existing> {
        if let Some(dir) = self.local_dir() {
            check_metadata_files(&dir, &["zarr.json", PENDING_METADATA])?;
        }
        let v3 = self.read_metadata("zarr.json")?;
        let group = match &v3 {
            Some(text) => serde_json::from_slice::<serde_json::Value>(text)
                .map_err(|e| Error::io(self.name_of("zarr.json"), e))?
                .get("node_type")
                .is_some_and(|t| t == "group"),
            None => false,
        };
        if group || self.exists(".zgroup")? {
            return Ok(Existing::Group);
        }
        if v3.is_some() {
            return Ok(Existing::Zarr(ZarrFormat::V3));
        }
        if self.exists(".zarray")? {
            return Ok(Existing::Zarr(ZarrFormat::V2));
        }
        if let Some(pending) = self.read_metadata(PENDING_METADATA)? {
            let format = format_of(&pending)
                .ok_or_else(|| Error::io(self.name_of(PENDING_METADATA), "names no Zarr format (2 or 3)"))?;
            return Ok(Existing::Zarr(format));
        }
        match self.list(2) {
            Err(Error::Io { .. }) if self.local_dir().is_some_and(|d| !d.exists()) => Ok(Existing::Nothing),
            Err(e) => Err(e),
            // An empty directory, or one left by a store killed before its
            // metadata was written, holds nothing to lose.
            Ok(names) => {
                Ok(if names.iter().all(|n| n == INCOMPLETE_MARKER) { Existing::Nothing } else { Existing::Other })
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Existing {
    Nothing,
    Zarr(ZarrFormat),
    Group,
    Other,
}

/// Whether `name` (a path in an array's folder) is the array's own: its
/// metadata, its chunks (`c/` or v2-style numbered keys), and this crate's
/// markers and temporaries.
fn owned_by_array(name: &str) -> bool {
    let first = name.split('/').next().unwrap_or(name);
    ["zarr.json", ".zarray", ".zattrs", "c", INCOMPLETE_MARKER, PENDING_METADATA, REGION_LOCK].contains(&first)
        || first.ends_with(crate::io::atomic::TMP_SUFFIX)
        || (!first.is_empty() && first.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

impl Location {
    /// Removes the array's files for an overwrite; anything else in its
    /// folder makes it an error before anything is removed, as it is not
    /// the array's to lose.
    ///
    /// # Errors
    /// [`Error::Io`] naming the first entry that is not the array's, or a
    /// failed removal.
    pub(super) fn clear(&self) -> Result<()> {
        let names = self.list(usize::MAX)?;
        if let Some(stranger) = names.iter().find(|n| !owned_by_array(n)) {
            return Err(Error::io(
                self.name_of(stranger),
                "is not part of the Zarr array being overwritten; nothing was removed",
            ));
        }
        for name in names {
            match self.local_dir() {
                Some(dir) => {
                    let path = dir.join(&name);
                    let removed =
                        if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
                    removed.map_err(|e| Error::io(path.display(), e))?;
                }
                None => self.remove_file(&name)?,
            }
        }
        Ok(())
    }
}

/// Checks that `za` (at `location`) stores `T`'s data type.
///
/// # Errors
/// [`Error::DtypeMismatch`] naming the array and both types.
pub(super) fn check_data_type<T: crate::element::Element>(za: &ZArray, location: &Location) -> Result<()> {
    if za.data_type() != &zarr_data_type(T::DTYPE) {
        return Err(Error::DtypeMismatch {
            key: location.name(),
            expected: T::DTYPE.to_string(),
            found: format!("{} (zarr data type)", za.data_type()),
        });
    }
    Ok(())
}

/// The stored chunk (or shard) shape: the first chunk's, which is every
/// chunk's in a regular grid.
///
/// # Errors
/// [`Error::Io`] naming the array when zarrs has no such chunk.
pub(super) fn stored_chunk_shape(za: &ZArray, location: &Location) -> Result<Vec<usize>> {
    let first = vec![0u64; za.shape().len()];
    let shape = za.chunk_shape(&first).map_err(|e| Error::io(location.name(), e))?;
    Ok(shape.iter().map(|n| n.get() as usize).collect())
}

pub(super) fn codec_options() -> CodecOptions {
    // Blocks are already decoded in parallel, one per worker: nested parallelism
    // inside a codec would only oversubscribe the cores.
    let mut o = CodecOptions::default();
    o.set_concurrent_target(1).set_store_empty_chunks(true);
    o
}

/// The array's chunk grid, bounded (it comes from a file) before a length
/// per block is kept.
fn checked_grid(za: &ZArray, location: &Location) -> Result<Vec<u64>> {
    let grid = za.chunk_grid_shape().to_vec();
    let blocks = grid.iter().try_fold(1u64, |n, &g| n.checked_mul(g.max(1)));
    if blocks.is_none_or(|n| n > crate::chunks::MAX_BLOCKS as u64) {
        return Err(Error::io(
            location.name(),
            format!("a chunk grid of {grid:?} is more than the {} blocks an array may have", crate::chunks::MAX_BLOCKS),
        ));
    }
    Ok(grid)
}

/// The shape of the array's largest stored chunk (the largest chunk length
/// on each axis).
fn largest_chunk(za: &ZArray, location: &Location) -> Result<Vec<u64>> {
    let grid = checked_grid(za, location)?;
    let mut largest = Vec::with_capacity(grid.len());
    for (axis, &g) in grid.iter().enumerate() {
        let mut idx = vec![0u64; grid.len()];
        let mut longest = 0;
        for i in 0..g {
            idx[axis] = i;
            let shape = za.chunk_shape(&idx).map_err(|e| Error::io(location.name(), e))?;
            longest = longest.max(shape[axis].get());
        }
        largest.push(longest);
    }
    Ok(largest)
}

/// Block lengths per axis of the stored chunk grid (the last chunk on an axis cut
/// at the array's edge).
pub(super) fn stored_chunks(za: &ZArray, location: &Location) -> Result<Chunks> {
    let grid = checked_grid(za, location)?;
    let mut lengths = Vec::with_capacity(grid.len());
    for (axis, &g) in grid.iter().enumerate() {
        if g == 0 {
            lengths.push(vec![0]);
            continue;
        }
        let mut axis_lengths = Vec::with_capacity(g as usize);
        let mut idx = vec![0u64; grid.len()];
        for i in 0..g {
            idx[axis] = i;
            let subset = za.chunk_subset_bounded(&idx).map_err(|e| Error::io(location.name(), e))?;
            axis_lengths.push(subset.shape()[axis] as usize);
        }
        lengths.push(axis_lengths);
    }
    Ok(Chunks::from_lengths(lengths))
}
