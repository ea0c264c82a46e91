//! Temporary directories for the I/O tests, and a headless browser for the pages.
#![allow(dead_code)]

pub mod browser;

use std::path::{Path, PathBuf};

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "chunked-test-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Ends a test whose tool is missing: a failure where the tools are required
/// (`CI=true`, or `CHUNKED_REQUIRE_TOOLS=1`, which the test command sets as it
/// installs them), a note otherwise.
pub fn tool_missing(why: &str) {
    let set = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v == value);
    assert!(!set("CI", "true") && !set("CHUNKED_REQUIRE_TOOLS", "1"), "{why}: required here (CI or the test command)");
    println!("skipping: {why}");
}
