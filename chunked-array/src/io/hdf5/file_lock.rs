//! HDF5 files opened under a lock held on a descriptor of this process's own.
//!
//! libhdf5 locks a file with `flock` on the descriptor it opens, and opens it
//! without `O_CLOEXEC`. A child process started by any thread while that
//! descriptor is open and not yet marked close-on-exec inherits it, and with it
//! the lock, until the child exits: this process's next open of the file then
//! fails with "unable to lock file". So files are opened here with libhdf5's
//! locking off, and the same locks libhdf5 and h5py take (shared to read,
//! exclusive to write) are taken with `flock` on a descriptor the standard
//! library opens close-on-exec, so that other processes find the file locked
//! exactly as before.
//!
//! `flock` locks of two descriptors of one file conflict even within one
//! process, so the lock is taken once per file and counted: readers while this
//! process writes the file share the writer's lock, as libhdf5 shares one open
//! file between its handles. When `HDF5_USE_FILE_LOCKING` is set, libhdf5's
//! own locking (or none) is what the user asked for, and no lock is added.

use std::collections::BTreeMap;
use std::fs;
use std::ops::Deref;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use hdf5::File;
use hdf5::file::OpenMode;

/// An open HDF5 file and the lock that keeps other processes from writing it
/// (from opening it at all, for a writer). Clones share the lock, which is
/// released when the last of them and their [`FileLock`]s drop.
#[derive(Clone)]
pub(super) struct LockedFile {
    // Declared first so that libhdf5 closes the file before the lock goes.
    file: File,
    lock: Option<Arc<FileLock>>,
}

impl LockedFile {
    /// Opens `path` read-only under a shared lock.
    pub(super) fn open(path: &Path) -> Result<LockedFile, String> {
        let lock = lock(path, false)?;
        Ok(LockedFile { file: open_unlocked(path, OpenMode::Read, lock.is_some())?, lock })
    }

    /// Opens `path` to read and write under an exclusive lock, creating it
    /// when absent.
    pub(super) fn append(path: &Path) -> Result<LockedFile, String> {
        match fs::OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(created) => {
                drop(created);
                let lock = lock(path, true)?;
                let file = open_unlocked(path, OpenMode::Create, lock.is_some()).inspect_err(|_| {
                    let _ = fs::remove_file(path);
                })?;
                Ok(LockedFile { file, lock })
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let lock = lock(path, true)?;
                Ok(LockedFile { file: open_unlocked(path, OpenMode::ReadWrite, lock.is_some())?, lock })
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// The lock, for what outlives this handle (a dataset being written).
    pub(super) fn lock(&self) -> Option<Arc<FileLock>> {
        self.lock.clone()
    }
}

impl Deref for LockedFile {
    type Target = File;

    fn deref(&self) -> &File {
        &self.file
    }
}

/// Opens `path` with libhdf5, its own locking off when `locked_here` (this
/// module holds the lock instead).
fn open_unlocked(path: &Path, mode: OpenMode, locked_here: bool) -> Result<File, String> {
    let mut builder = File::with_options();
    if locked_here {
        builder.with_fapl(|p| p.file_locking(false));
    }
    close_on_exec(builder.open_as(path, mode), path).map_err(|e| e.to_string())
}

/// Marks an opened file's descriptor close-on-exec, so that a child process
/// started later does not keep the file open (its lock is on another
/// descriptor). The descriptor is the one libhdf5's default (sec2) driver
/// keeps; it is used only when it is an open descriptor of `path` itself.
fn close_on_exec(opened: hdf5::Result<File>, path: &Path) -> hdf5::Result<File> {
    use std::os::unix::fs::MetadataExt;
    unsafe extern "C" {
        fn H5Fget_vfd_handle(file_id: i64, fapl_id: i64, handle: *mut *mut std::ffi::c_void) -> i32;
    }
    let Ok(f) = &opened else { return opened };
    let Ok(meta) = std::fs::metadata(path) else { return opened };
    let mut handle: *mut std::ffi::c_void = std::ptr::null_mut();
    // SAFETY: H5Fget_vfd_handle writes the driver's handle for an open file id
    // (H5P_DEFAULT, 0, for the access list); for the sec2 driver it points to
    // the file's descriptor, an int, which is read only after the call succeeds.
    let fd = unsafe {
        if H5Fget_vfd_handle(f.id(), 0, &mut handle) < 0 || handle.is_null() {
            return opened;
        }
        *handle.cast::<libc::c_int>()
    };
    // SAFETY: fstat and fcntl on a descriptor number only query or set its
    // flags; a number that is not this file's open descriptor is left alone.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(fd, &mut st) == 0 && st.st_ino == meta.ino() && st.st_dev == meta.dev() {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
    opened
}

/// One process-wide lock of a file (device and inode), counted per holder.
pub(super) struct FileLock {
    key: (u64, u64),
    exclusive: bool,
}

struct Held {
    descriptor: fs::File,
    readers: usize,
    writers: usize,
}

static HELD: Mutex<BTreeMap<(u64, u64), Held>> = Mutex::new(BTreeMap::new());

/// Takes the lock of `path` through a read-only descriptor kept while it is
/// held, or counts one more holder of the lock this process already has;
/// `None` when `HDF5_USE_FILE_LOCKING` leaves locking to libhdf5.
fn lock(path: &Path, exclusive: bool) -> Result<Option<Arc<FileLock>>, String> {
    if std::env::var_os("HDF5_USE_FILE_LOCKING").is_some() {
        return Ok(None);
    }
    let descriptor = fs::File::open(path).map_err(|e| e.to_string())?;
    let meta = descriptor.metadata().map_err(|e| e.to_string())?;
    let key = (meta.dev(), meta.ino());
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    let refused =
        || format!("{} is locked by another process (an HDF5 writer, or readers while we write)", path.display());
    match held.get_mut(&key) {
        Some(h) if exclusive && h.writers == 0 => {
            // Readers of this process hold it shared: convert to exclusive,
            // and back to shared when another process holds it.
            if !flock(&h.descriptor, libc::LOCK_EX) {
                flock(&h.descriptor, libc::LOCK_SH);
                return Err(refused());
            }
            h.writers = 1;
        }
        Some(h) if exclusive => h.writers += 1,
        Some(h) => h.readers += 1,
        None => {
            if !flock(&descriptor, if exclusive { libc::LOCK_EX } else { libc::LOCK_SH }) {
                return Err(refused());
            }
            held.insert(key, Held { descriptor, readers: usize::from(!exclusive), writers: usize::from(exclusive) });
        }
    }
    Ok(Some(Arc::new(FileLock { key, exclusive })))
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(h) = held.get_mut(&self.key) else { return };
        if self.exclusive {
            h.writers -= 1;
        } else {
            h.readers -= 1;
        }
        if h.readers + h.writers == 0 {
            // Closing the descriptor releases the lock.
            held.remove(&self.key);
        } else if self.exclusive && h.writers == 0 {
            flock(&h.descriptor, libc::LOCK_SH);
        }
    }
}

/// `flock` without waiting; whether the lock was taken.
fn flock(descriptor: &fs::File, operation: libc::c_int) -> bool {
    // SAFETY: flock on a descriptor the standard library keeps open only
    // changes the lock of its open file description.
    unsafe { libc::flock(descriptor.as_raw_fd(), operation | libc::LOCK_NB) == 0 }
}
