//! The private directory a run spills into, and the sweep of those that dead
//! processes left behind.
//!
//! A spill directory is made by `tempfile` inside the configured spill
//! directory: an unpredictable name (so no other user can plant it first),
//! mode 0700 (no other user can read spilled data or swap a file in it), and
//! a name that says whose it is, `chunked-spill-<host>-r<rank>-p<pid>-<random>`,
//! so ranks on different nodes sharing a spill directory never collide. The
//! spill file in it is created exclusively (`O_EXCL`) and read through its open
//! handle. When the run ends, the directory is removed with it; a process that
//! was killed leaves it behind, and the next run on the same host that spills
//! removes every such directory of this user whose process is gone (never
//! one whose process is alive).

use std::fs::File;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The spill file's name inside its directory.
const SPILL_FILE: &str = "blocks.spill";

/// A run's spill directory (removed when dropped) and its open spill file.
pub(crate) struct SpillDir {
    dir: tempfile::TempDir,
    pub file: File,
}

impl SpillDir {
    /// Makes the directory and its spill file inside `parent` (created if
    /// missing), first sweeping the directories that dead processes of this
    /// user on this host left there.
    pub fn create(parent: &Path, rank: usize) -> std::io::Result<SpillDir> {
        std::fs::create_dir_all(parent)?;
        let host = host_name();
        let mine = format!("chunked-spill-{host}-");
        sweep_abandoned(parent, &mine);
        let dir = tempfile::Builder::new()
            .permissions(std::fs::Permissions::from_mode(0o700))
            .prefix(&format!("{mine}r{rank}-p{}-", std::process::id()))
            .tempdir_in(parent)?;
        let file =
            std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(dir.path().join(SPILL_FILE))?;
        Ok(SpillDir { dir, file })
    }

    /// The spill file's path (for messages).
    pub fn path(&self) -> PathBuf {
        self.dir.path().join(SPILL_FILE)
    }
}

/// This host's name, with anything but letters, digits, `.` and `_` made `_`
/// (the name goes into a file name, and `-` separates its fields).
fn host_name() -> String {
    if cfg!(miri) {
        return "miri".into(); // Miri has no gethostname
    }
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into `buf`.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let name: String = buf[..if ok { len } else { 0 }]
        .iter()
        .map(|&b| if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' { b as char } else { '_' })
        .collect();
    if name.is_empty() { "host".into() } else { name }
}

/// Removes the directories in `parent` named `<mine>r<rank>-p<pid>-...` that
/// are this user's own directories (not symlinks) and whose process is gone.
fn sweep_abandoned(parent: &Path, mine: &str) {
    if cfg!(miri) {
        return; // Miri cannot ask whether another process lives
    }
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) =
            name.strip_prefix(mine).and_then(|rest| rest.split('-').nth(1)?.strip_prefix('p')?.parse().ok())
        else {
            continue;
        };
        let path = entry.path();
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if ours && !alive(pid) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Whether process `pid` exists on this host (signal 0 checks without sending).
fn alive(pid: libc::pid_t) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_directories_and_the_sweep_of_dead_processes() {
        let parent = tempfile::tempdir().unwrap();
        let run = SpillDir::create(parent.path(), 3).unwrap();
        let dir = run.path().parent().unwrap().to_path_buf();
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mine = format!("chunked-spill-{}-", host_name());
        assert!(name.starts_with(&format!("{mine}r3-p{}-", std::process::id())), "{name}");
        // A dead process's directory goes; a live one's, another host's, a
        // symlink and a stranger's name stay.
        let dead = parent.path().join(format!("{mine}r0-p{}-abc", i32::MAX - 7));
        let live = parent.path().join(format!("{mine}r1-p1-abc"));
        let other_host = parent.path().join(format!("chunked-spill-elsewhere-r0-p{}-abc", i32::MAX - 7));
        let link = parent.path().join(format!("{mine}r2-p{}-abc", i32::MAX - 7));
        for d in [&dead, &live, &other_host] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join(SPILL_FILE), b"x").unwrap();
        }
        std::os::unix::fs::symlink(&live, &link).unwrap();
        let second = SpillDir::create(parent.path(), 0).unwrap();
        assert!(!dead.exists() && live.exists() && other_host.exists() && link.exists());
        assert!(dir.exists(), "the first run's directory, its process alive, stays");
        drop((run, second));
        assert!(!dir.exists(), "a run's directory goes with it");
    }
}
