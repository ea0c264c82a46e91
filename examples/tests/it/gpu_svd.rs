//! The larger-than-device-memory SVD on an emulated device: the statistics
//! show blocks moving from the device to the host and back, and on to disk
//! under a host limit too; the singular values match the host run's.

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu_svd")).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

fn number_after(text: &str, label: &str) -> f64 {
    let rest = text.split(label).nth(1).unwrap_or_else(|| panic!("{label} missing: {text}"));
    rest.trim_start().split(|c: char| !(c.is_ascii_digit() || c == '.')).next().unwrap().parse().unwrap()
}

#[test]
fn spills_from_the_device_and_gets_the_same_values() {
    let small = ["--rows", "6000", "--cols", "100", "--chunks", "500,100", "--device", "emulated", "--threads", "2"];
    let spill = std::env::temp_dir().join(format!("chunked-gpu-svd-{}", std::process::id()));
    let limited = run(&[
        &small[..],
        &["--device-memory-limit", "3M", "--memory-limit", "1500K", "--spill-dir", spill.to_str().unwrap()],
    ]
    .concat());
    assert!(limited.contains("device = emulated device"), "{limited}");
    assert!(number_after(&limited, "device spilled to host =") > 0.0, "{limited}");
    assert!(number_after(&limited, "spilled to disk =") > 0.0, "{limited}");
    let unlimited = run(&small);
    assert_eq!(number_after(&unlimited, "device spilled to host ="), 0.0, "{unlimited}");
    let values =
        |t: &str| t.lines().find(|l| l.starts_with("singular values")).unwrap().split('=').nth(1).unwrap().to_string();
    assert_eq!(values(&limited), values(&unlimited), "spilling changes nothing in the result");
    let _ = std::fs::remove_dir_all(&spill);
}

#[test]
fn a_missing_cuda_device_is_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpu_svd"))
        .args(["--device", "cuda", "--rows", "100", "--cols", "10", "--chunks", "50,10"])
        .output()
        .unwrap();
    if out.status.success() {
        return println!("a CUDA device is present: nothing to refuse");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no CUDA device"), "{stderr}");
}
