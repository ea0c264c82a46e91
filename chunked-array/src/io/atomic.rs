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
///
/// With `direct`, the data bypasses the page cache (`O_DIRECT`, Linux): the
/// kernel's buffered write path costs more CPU than compressing the data on some
/// machines (measured in the I/O benchmark), and a store does not read its chunks
/// back. File systems without direct I/O (tmpfs) get a buffered write.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], direct: bool) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| Error::io(dir.display(), e))?;
    }
    let tmp = temporary_beside(path);
    let written = write_file(&tmp, bytes, direct).and_then(|()| fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(path.display(), e)
    })
}

fn write_file(path: &Path, bytes: &[u8], direct: bool) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if direct && !bytes.is_empty() {
        use std::os::unix::fs::OpenOptionsExt;
        match fs::OpenOptions::new().write(true).create(true).truncate(true).custom_flags(libc::O_DIRECT).open(path) {
            Ok(mut f) => return write_direct(&mut f, bytes),
            // No direct I/O on this file system: fall through to a buffered write.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
            Err(e) => return Err(e),
        }
    }
    let _ = direct;
    fs::File::create(path).and_then(|mut f| f.write_all(bytes))
}

/// Direct I/O wants page-aligned memory and lengths: the bytes are copied into a
/// per-thread aligned buffer, padded to whole pages, and the file cut back to size.
#[cfg(target_os = "linux")]
fn write_direct(f: &mut fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::cell::RefCell;
    const PAGE: usize = 4096;
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    let padded = bytes.len().next_multiple_of(PAGE);
    BUFFER.with_borrow_mut(|buf| {
        if buf.len() < padded + PAGE {
            *buf = vec![0u8; padded + PAGE];
        }
        let at = buf.as_ptr().align_offset(PAGE);
        let aligned = &mut buf[at..at + padded];
        aligned[..bytes.len()].copy_from_slice(bytes);
        aligned[bytes.len()..].fill(0);
        f.write_all(aligned)
    })?;
    f.set_len(bytes.len() as u64)
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
