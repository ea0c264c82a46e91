//! A store killed in the middle (SIGKILL to a child process) and resumed gives
//! the same array as an uninterrupted store, skipping what was already written.

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{INCOMPLETE_MARKER, PENDING_METADATA, ZarrWriteOptions, from_zarr};
use chunked_array::random::RandomState;
use chunked_array::{Array, Context, Error};
use support::TempDir;

const CHILD_DIR: &str = "CHUNKED_TEST_STORE_CHILD_DIR";
const BLOCKS: usize = 48;

/// The data: 48 row blocks of random numbers (the same for every run).
fn data() -> Array<f64> {
    RandomState::new(11).standard_normal(&[BLOCKS * 16, 512], [16, 512]).unwrap()
}

/// The child's store: 48 blocks, 50 ms each, so the parent can kill it midway.
#[test]
#[ignore = "the child process of killed_store_resumes_to_the_same_array"]
fn child_store_slowly() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        panic!("run by killed_store_resumes_to_the_same_array only");
    };
    let slow = data()
        .map_blocks(
            |b, _| {
                std::thread::sleep(Duration::from_millis(50));
                b.to_owned()
            },
            None,
        )
        .unwrap();
    slow.to_zarr_on(&dir, "r", &ZarrWriteOptions::default(), &Context::threads(2)).unwrap();
}

fn complete_chunk_files(dir: &Path) -> usize {
    (0..BLOCKS).filter(|b| dir.join(format!("r/c/{b}/0")).exists()).count()
}

#[test]
fn killed_store_resumes_to_the_same_array() {
    let dir = TempDir::new("kill");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["io_resume::child_store_slowly", "--exact", "--ignored", "--test-threads=1"])
        .env(CHILD_DIR, dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while complete_chunk_files(dir.path()) < 10 {
        assert!(child.try_wait().unwrap().is_none(), "the child ended before it was killed");
        assert!(Instant::now() < deadline, "the child wrote too little in 120 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let written_before = complete_chunk_files(dir.path());
    assert!(written_before < BLOCKS, "killed before the end");
    assert!(dir.path().join("r").join(INCOMPLETE_MARKER).exists());
    assert!(
        !dir.path().join("r/zarr.json").exists() && dir.path().join("r").join(PENDING_METADATA).exists(),
        "no array for other clients yet"
    );
    assert!(matches!(from_zarr::<f64>(dir.path(), "r"), Err(Error::Io { .. })), "an interrupted store is refused");

    let resume = ZarrWriteOptions { mode: WriteMode::Resume, ..Default::default() };
    let report = data().to_zarr(dir.path(), "r", &resume).unwrap();
    assert_eq!(report.chunks_skipped, written_before, "every complete chunk is kept, no other");
    assert_eq!(report.chunks_written, BLOCKS - written_before);

    let uninterrupted = TempDir::new("kill-ref");
    data().to_zarr(uninterrupted.path(), "r", &ZarrWriteOptions::default()).unwrap();
    let resumed = from_zarr::<f64>(dir.path(), "r").unwrap().compute().unwrap();
    assert_eq!(resumed, from_zarr::<f64>(uninterrupted.path(), "r").unwrap().compute().unwrap());
    assert_eq!(resumed, data().compute().unwrap());
    // Byte for byte the same chunk files.
    for b in 0..BLOCKS {
        let key = format!("r/c/{b}/0");
        assert_eq!(
            std::fs::read(dir.path().join(&key)).unwrap(),
            std::fs::read(uninterrupted.path().join(&key)).unwrap(),
            "{key}"
        );
    }
}
