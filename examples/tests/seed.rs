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
    assert!(stdout.contains("shape=(3000, 200)") && stdout.contains("mean       = 0.49"), "{stdout}");
    assert!(stderr.contains("tasks"), "the progress bar draws on stderr when asked: {stderr}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Task stream") && page.contains("random_uniform"));
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
