//! Files that are either absent or complete: written under a temporary name in the
//! same directory and renamed over the final name (atomic on POSIX file systems),
//! so a killed process or a full disk never leaves a truncated file that looks
//! finished.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Suffix of temporary files; [`remove_temporaries`] deletes leftovers of a killed run.
pub(crate) const TMP_SUFFIX: &str = ".chunked-tmp";

/// Creates a temporary file beside `path` and returns its name and handle: a
/// hidden name with a random part, created exclusively and never through a
/// symlink (`O_CREAT | O_EXCL | O_NOFOLLOW`), so a file or link that someone
/// else planted in the directory is never written through or truncated.
pub(crate) fn create_temporary_beside(path: &Path) -> std::io::Result<(PathBuf, fs::File)> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let made = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(TMP_SUFFIX).make_in(dir, |p| {
        use std::os::unix::fs::OpenOptionsExt;
        fs::OpenOptions::new().read(true).write(true).create_new(true).custom_flags(libc::O_NOFOLLOW).open(p)
    })?;
    let (file, tmp) = made.keep().map_err(|e| e.error)?;
    Ok((tmp, file))
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
    let (tmp, mut file) = create_temporary_beside(path).map_err(|e| Error::io(path.display(), e))?;
    let written = write_file(&mut file, bytes, direct).and_then(|()| fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(path.display(), e)
    })
}

fn write_file(file: &mut fs::File, bytes: &[u8], direct: bool) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if direct && !bytes.is_empty() && set_direct(file) {
        return write_direct(file, bytes);
    }
    let _ = direct;
    file.write_all(bytes)
}

/// Turns on `O_DIRECT` for `file`; `false` where its file system has no
/// direct I/O (tmpfs), which leaves it buffered.
#[cfg(target_os = "linux")]
fn set_direct(file: &fs::File) -> bool {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on an open descriptor, reading and setting its status flags.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_DIRECT) == 0
    }
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
#[cfg(feature = "zarr")]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planted_links_are_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep me").unwrap();
        // A symlink at the final name is replaced, not followed.
        let target = dir.path().join("out.bin");
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        write_atomic(&target, b"data", false).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(!fs::symlink_metadata(&target).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"data");
        // Temporaries get fresh random names, so two never collide, and a
        // link planted under a temporary's pattern is left alone.
        let planted = dir.path().join(format!(".out.bin.guess{TMP_SUFFIX}"));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let (a, _) = create_temporary_beside(&target).unwrap();
        let (b, _) = create_temporary_beside(&target).unwrap();
        assert!(a != b && a != planted && b != planted);
        assert!(a.file_name().unwrap().to_string_lossy().starts_with(".out.bin."));
        write_atomic(&target, b"again", true).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"again");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me");
    }
}
