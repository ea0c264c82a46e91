//! What the file-reading targets share: a scratch directory of this process,
//! and reading an array to the end.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use chunked_array::{Array, Element, Result};

/// This process's scratch directory (made once, emptied at the start).
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("chunked-fuzz-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir
    })
}

/// Computes what a reader opened: a value or an error, either is fine; a
/// panic or an allocation past the limit is what the fuzzer reports.
pub fn settle<T: Element>(read: Result<Array<T>>) {
    if let Ok(a) = read {
        let _ = a.compute();
    }
}
