//! Where a Zarr array lives on disk, what is there already, and the codec
//! settings and data types both directions share.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use zarrs::array::{CodecOptions, DataType};
use zarrs::filesystem::FilesystemStore;

use crate::chunks::Chunks;
use crate::element::DType;
use crate::error::{Error, Result};
pub(super) use crate::io::zarr::untrusted::ZArray;
use crate::io::zarr::untrusted::check_metadata_files;

/// The marker a running store leaves in the array directory until it finishes.
pub const INCOMPLETE_MARKER: &str = ".chunked-incomplete";

/// The name of an unfinished store's `zarr.json`: renamed to `zarr.json`, in one
/// step, once every chunk is written.
pub const PENDING_METADATA: &str = "zarr.json.chunked-pending";

/// The store root, the array's path inside it and its directory.
#[derive(Debug, Clone)]
pub(super) struct Location {
    pub(super) root: PathBuf,
    /// "/" or "/a/b", as zarrs names nodes.
    pub(super) node: String,
    pub(super) dir: PathBuf,
}

impl Location {
    pub(super) fn new(root: &Path, array: &str) -> Result<Location> {
        let trimmed = array.trim_matches('/');
        if trimmed.split('/').any(|part| part == "." || part == "..") {
            return Err(Error::invalid("array", array, "a Zarr node path may not contain '.' or '..' components"));
        }
        let dir = if trimmed.is_empty() { root.to_path_buf() } else { root.join(trimmed) };
        Ok(Location { root: root.to_path_buf(), node: format!("/{trimmed}"), dir })
    }

    pub(super) fn store(&self) -> Result<Arc<FilesystemStore>> {
        FilesystemStore::new(&self.root).map(Arc::new).map_err(|e| Error::io(self.root.display(), e))
    }

    /// The array, from its `zarr.json` (or `.zarray`), or from an unfinished
    /// store's pending metadata when `pending` allows it.
    pub(super) fn open(&self, direct_io: bool, pending: bool) -> Result<ZArray> {
        check_metadata_files(&self.dir, &["zarr.json", ".zarray", ".zattrs", PENDING_METADATA])?;
        let mut options = zarrs::filesystem::FilesystemStoreOptions::default();
        options.direct_io(direct_io);
        let store = Arc::new(
            FilesystemStore::new_with_options(&self.root, options).map_err(|e| Error::io(self.root.display(), e))?,
        );
        let waiting = self.dir.join(PENDING_METADATA);
        if !self.dir.join("zarr.json").exists() && !self.dir.join(".zarray").exists() {
            if pending && waiting.exists() {
                let text = std::fs::read(&waiting).map_err(|e| Error::io(waiting.display(), e))?;
                let metadata = serde_json::from_slice(&text).map_err(|e| Error::io(waiting.display(), e))?;
                return ZArray::new_with_metadata(store, &self.node, metadata)
                    .map_err(|e| Error::io(waiting.display(), e));
            }
            return Err(Error::io(self.dir.display(), "no Zarr array here (neither zarr.json nor .zarray)"));
        }
        ZArray::open(store, &self.node).map_err(|e| Error::io(self.dir.display(), e))
    }

    pub(super) fn chunk_path(&self, za: &ZArray, idx: &[u64]) -> PathBuf {
        self.root.join(za.chunk_key(idx).as_str())
    }

    pub(super) fn existing(&self) -> Result<Existing> {
        check_metadata_files(&self.dir, &["zarr.json", PENDING_METADATA])?;
        let v3 = self.dir.join("zarr.json");
        let group = match std::fs::read(&v3) {
            Ok(text) => serde_json::from_slice::<serde_json::Value>(&text)
                .map_err(|e| Error::io(v3.display(), e))?
                .get("node_type")
                .is_some_and(|t| t == "group"),
            Err(_) => false,
        };
        if group || self.dir.join(".zgroup").exists() {
            return Ok(Existing::Group);
        }
        if v3.exists() || self.dir.join(PENDING_METADATA).exists() {
            return Ok(Existing::ZarrV3);
        }
        if self.dir.join(".zarray").exists() {
            return Ok(Existing::ZarrV2);
        }
        match std::fs::read_dir(&self.dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Existing::Nothing),
            Err(e) => Err(Error::io(self.dir.display(), e)),
            // An empty directory, or one left by a store killed before its
            // metadata was written, holds nothing to lose.
            Ok(mut entries) => Ok(if entries.all(|e| e.is_ok_and(|e| e.file_name() == INCOMPLETE_MARKER)) {
                Existing::Nothing
            } else {
                Existing::Other
            }),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Existing {
    Nothing,
    ZarrV3,
    ZarrV2,
    Group,
    Other,
}

/// Removes an array's files from `dir` for an overwrite: its metadata, its
/// chunks (`c/` or v2-style numbered keys), and this crate's markers and
/// temporaries; anything else in the directory makes it an error before
/// anything is removed, as it is not the array's to lose.
///
/// # Errors
/// [`Error::Io`] naming the first entry that is not the array's, or a failed
/// removal.
pub(super) fn clear_array_dir(dir: &Path) -> Result<()> {
    let owned = |name: &str| {
        ["zarr.json", ".zarray", ".zattrs", "c", INCOMPLETE_MARKER, PENDING_METADATA].contains(&name)
            || name.ends_with(crate::io::atomic::TMP_SUFFIX)
            || (!name.is_empty() && name.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    };
    let io = |e: std::io::Error| Error::io(dir.display(), e);
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !owned(&name) {
            return Err(Error::io(
                entry.path().display(),
                "is not part of the Zarr array being overwritten; nothing was removed",
            ));
        }
        entries.push((entry.path(), entry.file_type().map_err(io)?.is_dir()));
    }
    for (path, is_dir) in entries {
        let removed = if is_dir { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        removed.map_err(|e| Error::io(path.display(), e))?;
    }
    Ok(())
}

pub(super) fn codec_options() -> CodecOptions {
    // Blocks are already decoded in parallel, one per worker: nested parallelism
    // inside a codec would only oversubscribe the cores.
    let mut o = CodecOptions::default();
    o.set_concurrent_target(1).set_store_empty_chunks(true);
    o
}

pub(super) fn zarr_data_type(dtype: DType) -> DataType {
    use zarrs::array::data_type as dt;
    match dtype {
        DType::I8 => dt::int8(),
        DType::I16 => dt::int16(),
        DType::I32 => dt::int32(),
        DType::I64 => dt::int64(),
        DType::U8 => dt::uint8(),
        DType::U16 => dt::uint16(),
        DType::U32 => dt::uint32(),
        DType::U64 => dt::uint64(),
        DType::F32 => dt::float32(),
        DType::F64 => dt::float64(),
        DType::Complex64 => dt::complex64(),
        DType::Complex128 => dt::complex128(),
        DType::Bool | DType::Intermediate => dt::bool(),
    }
}

/// Block lengths per axis of the stored chunk grid (the last chunk on an axis cut
/// at the array's edge).
pub(super) fn stored_chunks(za: &ZArray, location: &Location) -> Result<Chunks> {
    let grid = za.chunk_grid_shape().to_vec();
    // The grid comes from a file: bounded before a length per block is kept.
    let blocks = grid.iter().try_fold(1u64, |n, &g| n.checked_mul(g.max(1)));
    if blocks.is_none_or(|n| n > crate::chunks::MAX_BLOCKS as u64) {
        return Err(Error::io(
            location.dir.display(),
            format!("a chunk grid of {grid:?} is more than the {} blocks an array may have", crate::chunks::MAX_BLOCKS),
        ));
    }
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
            let subset = za.chunk_subset_bounded(&idx).map_err(|e| Error::io(location.dir.display(), e))?;
            axis_lengths.push(subset.shape()[axis] as usize);
        }
        lengths.push(axis_lengths);
    }
    Ok(Chunks::from_lengths(lengths))
}
