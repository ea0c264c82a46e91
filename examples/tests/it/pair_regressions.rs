//! Seed 001's delayed regressions at a small size: the best pair and its R²
//! against a closed form on the whole data (R² of two regressors from their
//! correlations), the same on every scheduler and, under MPI, on 1 to 4 ranks.

use std::process::{Command, Output};

use chunked_array::random::RandomState;
use ndarray::{Array2, Ix2};

const ROWS: usize = 5000;
const FEATURES: usize = 12;

fn args(scheduler: &str) -> Vec<String> {
    ["--rows", &ROWS.to_string(), "--features", &FEATURES.to_string(), "--seed", "7", "--scheduler", scheduler]
        .map(String::from)
        .to_vec()
}

fn stdout(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    text
}

/// The printed best pair and its R².
fn best(stdout: &str) -> ((usize, usize), f64, String) {
    let line = stdout.lines().find(|l| l.starts_with("best pair: ")).unwrap_or_else(|| panic!("{stdout}"));
    let nums: Vec<&str> =
        line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '+')).collect();
    let index = |s: &str| s.trim_start_matches('x').parse::<usize>().unwrap();
    let xs: Vec<usize> = nums.iter().filter(|w| w.starts_with('x')).map(|w| index(w)).collect();
    let r2: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    ((xs[0], xs[1]), r2, line.to_string())
}

/// R² of `y ~ a + b + 1` for every pair, from the sample correlations.
fn oracle() -> Vec<((usize, usize), f64)> {
    let data = RandomState::new(7).standard_normal::<f64>(&[FEATURES + 1, ROWS], [5, 1000]).unwrap();
    let data: Array2<f64> = data.compute().unwrap().into_dimensionality::<Ix2>().unwrap();
    let centered: Vec<Vec<f64>> = data
        .rows()
        .into_iter()
        .map(|r| {
            let m = r.sum() / ROWS as f64;
            r.iter().map(|v| v - m).collect()
        })
        .collect();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let corr = |a: usize, b: usize| {
        let (a, b) = (&centered[a], &centered[b]);
        dot(a, b) / (dot(a, a) * dot(b, b)).sqrt()
    };
    let y = FEATURES;
    let mut out = Vec::new();
    for i in 0..FEATURES {
        for j in i + 1..FEATURES {
            let (ri, rj, rij) = (corr(y, i), corr(y, j), corr(i, j));
            out.push(((i, j), (ri * ri + rj * rj - 2.0 * ri * rj * rij) / (1.0 - rij * rij)));
        }
    }
    out
}

#[test]
fn the_best_pair_matches_the_closed_form_on_every_scheduler() {
    let want = oracle();
    let (pair, r2) = want.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    let mut lines = Vec::new();
    for scheduler in ["sync", "threads"] {
        let out = Command::new(env!("CARGO_BIN_EXE_pair_regressions")).args(args(scheduler)).output().unwrap();
        let text = stdout(&out);
        assert!(text.contains(&format!("{} fits", FEATURES * (FEATURES - 1) / 2)), "{text}");
        let (got_pair, got_r2, line) = best(&text);
        assert_eq!(got_pair, pair, "{text}");
        assert!((got_r2 - r2).abs() < 1e-7 * r2, "{got_r2} against {r2}");
        lines.push(line);
    }
    assert_eq!(lines[0], lines[1], "every scheduler gives the same digits");
}

#[cfg(feature = "mpi")]
#[test]
fn mpirun_on_one_to_four_ranks_gives_the_same_best_pair() {
    let sync = stdout(&Command::new(env!("CARGO_BIN_EXE_pair_regressions")).args(args("sync")).output().unwrap());
    let want = best(&sync).2;
    if Command::new("mpirun").arg("--version").output().is_err() {
        crate::support::tool_missing("no mpirun (scripts/test.sh installs Open MPI)");
        return;
    }
    for np in 1..=4 {
        let out = Command::new("mpirun")
            .args(["--oversubscribe", "-np", &np.to_string(), env!("CARGO_BIN_EXE_pair_regressions")])
            .args(args("mpi"))
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .output()
            .unwrap();
        let text = stdout(&out);
        assert_eq!(text.matches("best pair").count(), 1, "rank 0 alone prints: {text}");
        assert_eq!(best(&text).2, want, "-np {np}");
    }
}

#[test]
fn bad_options_are_refused() {
    for (flag, value) in [("--features", "1"), ("--scheduler", "dask"), ("--rows", "many")] {
        let out = Command::new(env!("CARGO_BIN_EXE_pair_regressions")).args([flag, value]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(value), "{flag} {value}");
    }
}
