//! The main job end to end: options, results, progress bar and profile report.

use std::process::Command;

#[test]
fn seed_job_runs_with_progress_and_profile() {
    let html = std::env::temp_dir().join(format!("seed-profile-{}.html", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_seed"))
        .args(["--rows", "3000", "--cols", "200", "--chunks", "500,100", "--seed", "7", "--progress", "--profile"])
        .arg(&html)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("shape=(3000, 200)") && stdout.contains("singular values = ["), "{stdout}");
    // The printed errors are small (independent probes of the computed factors).
    for label in ["reconstruction error", "orthogonality error"] {
        let line = stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label} missing: {stdout}"));
        let value: f64 = line.split('~').nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
        assert!(value < 1e-12, "{line}");
    }
    // The largest singular value of uniform [0,1) data is about sqrt(m n)/2.
    let top: f64 = stdout.split("singular values = [").nth(1).unwrap().split(',').next().unwrap().parse().unwrap();
    assert!((top / ((3000.0f64 * 200.0).sqrt() / 2.0) - 1.0).abs() < 0.02, "{top}");
    assert!(stderr.contains("tasks"), "the progress bar draws on stderr when asked: {stderr}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Task stream") && page.contains("tsqr-leaf"));
    let _ = std::fs::remove_file(&html);
}

#[test]
fn bad_options_are_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_seed")).args(["--chunks", "0,5"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("block length 0"));
    let out = Command::new(env!("CARGO_BIN_EXE_seed")).args(["--frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `--dashboard` serves the job's computes while it runs; the record, read
/// over HTTP during `--dashboard-linger`, holds the SVD's layers, every one
/// complete. An address that cannot be bound stops the job before any work.
#[test]
fn seed_job_serves_a_dashboard() {
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_seed"))
        .args(["--rows", "2000", "--cols", "100", "--chunks", "500,100", "--dashboard", "127.0.0.1:0"])
        .args(["--dashboard-linger", "20"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url =
        lines.by_ref().map_while(Result::ok).find_map(|l| l.strip_prefix("chunked dashboard: ").map(String::from));
    let url = url.expect("the URL is printed");
    // The job is done once it says it lingers.
    assert!(lines.map_while(Result::ok).any(|l| l.starts_with("dashboard stays up")));
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET /state.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("\"name\":\"tsqr-leaf\""), "the SVD's layers: {text}");
    assert!(!text.contains("\"finished\":null"), "every run finished");

    let out = Command::new(env!("CARGO_BIN_EXE_seed")).args(["--dashboard", "203.0.113.1:8787"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("203.0.113.1:8787") && out.stdout.is_empty(), "refused before any work: {stderr}");
}
