//! The MPI batch-job examples under `mpirun -np 2`: the resumable pipeline is
//! interrupted and resumed, then the out-of-core reduction reads what it wrote.
//! Skips with a reason when `mpirun` is missing (the test command installs it).
#![cfg(feature = "mpi")]

use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// The job's output, or `None` without mpirun. A job that runs past five
/// minutes is killed and fails the test (a hang never stalls the suite), and
/// its ranks end themselves after two minutes without progress
/// (`CHUNKED_MPI_TIMEOUT`).
fn mpirun(np: usize, exe: &str, args: &[&str]) -> Option<Output> {
    Command::new("mpirun").arg("--version").output().ok()?;
    let child = Command::new("mpirun")
        .args(["--oversubscribe", "-np", &np.to_string(), exe])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("RUST_BACKTRACE", "0")
        .env("CHUNKED_MPI_TIMEOUT", "120")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mpirun");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait_with_output()));
    match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(out) => Some(out.expect("mpirun's output")),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("mpirun -np {np} {exe} {args:?} ran past 300 s");
        }
    }
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

#[test]
fn pipeline_resumes_and_reduce_reads_it() {
    let dir = std::env::temp_dir().join(format!("chunked-mpi-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("p.zarr");
    let out = out.to_str().unwrap();
    let pipeline = env!("CARGO_BIN_EXE_mpi_pipeline");
    let small = ["--rows", "4000", "--cols", "20", "--chunks", "200,20"];
    let Some(first) = mpirun(2, pipeline, &[&["--output", out, "--fail-at", "13"][..], &small[..]].concat()) else {
        crate::support::tool_missing("no mpirun (scripts/test.sh installs Open MPI)");
        return;
    };
    assert!(!first.status.success(), "the interrupted run succeeded:\n{}", text(&first));
    assert!(text(&first).contains("simulated failure in row block 13"), "{}", text(&first));
    let second = mpirun(2, pipeline, &[&["--output", out][..], &small[..]].concat()).unwrap();
    let log = text(&second);
    assert!(second.status.success(), "{log}");
    // Both ranks read the same plan: some of the 20 chunks were complete already.
    let skipped: Vec<usize> = log
        .lines()
        .filter_map(|l| l.split(", ").find_map(|p| p.strip_suffix(" already complete were skipped")?.parse().ok()))
        .collect();
    assert_eq!(skipped.len(), 2, "{log}");
    assert!(skipped[0] > 0 && skipped[0] < 20 && skipped[0] == skipped[1], "{log}");

    let reduce = env!("CARGO_BIN_EXE_mpi_zarr_reduce");
    let third = mpirun(2, reduce, &["--input", out, "--array", "standardized"]).unwrap();
    let log = text(&third);
    assert!(third.status.success(), "{log}");
    // Standardized columns: mean 0 and standard deviation 1 (ddof 0 written,
    // ddof 1 read back: sqrt(n/(n-1)) for n = 4000).
    let line = log.lines().find(|l| l.starts_with("column means")).unwrap_or_else(|| panic!("{log}"));
    let nums: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
        .filter_map(|t| t.parse().ok())
        .collect();
    assert_eq!(nums.len(), 4, "{line}");
    assert!(nums[0].abs() < 1e-4 && nums[1].abs() < 1e-4, "{line}");
    let sd = (4000.0f64 / 3999.0).sqrt();
    assert!((nums[2] - sd).abs() < 1e-4 && (nums[3] - sd).abs() < 1e-4, "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}
