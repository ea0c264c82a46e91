//! Seed 001's notebook, translated, end to end at small sizes.

use std::process::Command;

/// The number after `label` ... `~` on the line starting with `label`.
fn figure(stdout: &str, label: &str) -> f64 {
    let line = stdout.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label} missing: {stdout}"));
    line.split('~')
        .nth(1)
        .unwrap()
        .split(|c: char| c == ';' || c.is_whitespace())
        .find(|w| !w.is_empty())
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn notebook_cells_run_and_check_themselves() {
    let out = Command::new(env!("CARGO_BIN_EXE_notebook_001"))
        .args(["--rows", "3000", "--big-rows", "6000", "--cols", "100", "--chunk", "100"])
        .args(["--ols-rows", "4000", "--features", "6", "--device", "emulated", "--device-memory-limit", "2MiB"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("x = chunked.Array<") && stdout.contains("shape=(6000, 100)"), "{stdout}");
    // The SVD's u has orthonormal columns, on both matrices.
    for norm_line in stdout.lines().filter(|l| l.starts_with("largest |column norm - 1|")) {
        assert!(figure(norm_line, "largest") < 1e-10, "{norm_line}");
    }
    // The leading left singular vector of a positive matrix is close to constant:
    // u[:5, 0] is about 1/sqrt(rows) in magnitude (3000 rows: 1.8e-2).
    let corner = stdout.split("u[:5, :5] =\n").nth(1).unwrap();
    let first: f64 = corner.trim_start_matches(['[', ' ']).split([',', ' ']).next().unwrap().parse().unwrap();
    assert!((first.abs() * 3000f64.sqrt() - 1.0).abs() < 0.1, "{first}");
    // 6 features give 15 pairs; the normal equations agree with lstsq.
    assert!(stdout.contains("15 fits"), "{stdout}");
    assert!(figure(&stdout, "first fit against lstsq") < 1e-9, "{stdout}");
    let spilled = stdout
        .lines()
        .filter_map(|l| l.split("device blocks spilled while persisting u: ").nth(1))
        .map(|n| n.trim().parse::<usize>().unwrap());
    assert!(spilled.max().unwrap() > 0, "a 2 MiB device limit spills: {stdout}");
}

#[test]
fn notebook_refuses_bad_options() {
    for (args, message) in [(["--features", "1"], "--features 1"), (["--device", "tpu"], "--device tpu")] {
        let out = Command::new(env!("CARGO_BIN_EXE_notebook_001")).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains(message));
    }
}
