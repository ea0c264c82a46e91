//! Files that are either absent or complete: written under a temporary name in the
//! same directory and renamed over the final name (atomic on POSIX file systems),
//! so a killed process or a full disk never leaves a truncated file that looks
//! finished.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Suffix of temporary files; [`remove_temporaries`] deletes leftovers of a killed run.
pub(crate) const TMP_SUFFIX: &str = ".chunked-tmp";

/// A fresh temporary name beside `path` (hidden, unique per process and call).
pub(crate) fn temporary_beside(path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.{}-{n}{TMP_SUFFIX}", std::process::id()))
}

/// Writes `bytes` to `path` atomically, creating parent directories. On error the
/// temporary file is removed and `path` is untouched.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), e))?;
    }
    let tmp = temporary_beside(path);
    let written = fs::File::create(&tmp).and_then(|mut f| f.write_all(bytes)).and_then(|()| fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(path.display(), e)
    })
}

/// Removes the temporary files a killed run left under `dir` (recursively);
/// returns how many.
pub(crate) fn remove_temporaries(dir: &Path) -> Result<usize> {
    let mut removed = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = match fs::read_dir(&d) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(d.display(), e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(d.display(), e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| Error::io(path.display(), e))?;
            if kind.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(TMP_SUFFIX) {
                fs::remove_file(&path).map_err(|e| Error::io(path.display(), e))?;
                removed += 1;
            }
        }
    }
    Ok(removed)
}
