//! The bounded-memory issue's benchmark: the seed SVD and the 20000 x 20000
//! rechunk with `memory_limit` at 25% of the data, against the unlimited run:
//! time, peak RSS, spilled bytes. Each case runs in its own child process so
//! that its peak RSS (VmHWM) is its own.
//!
//! `cargo run --release -p chunked-benches --bin memory_report [-- --scale 1.0 --json]`

use std::process::Command;
use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::{Array, Context, RunStats};
use chunked_benches::{arg, vm_hwm_kib};

/// Runs one case in this process and prints `CASE seconds peak_rss_kib stats`.
fn child(case: &str, limit: Option<usize>, scale: f64) -> Result<(), Box<dyn std::error::Error>> {
    let spill = std::env::temp_dir();
    let mut ctx = Context::default().with_spill_dir(&spill);
    if let Some(l) = limit {
        ctx = ctx.with_memory_limit(l);
    }
    let t = Instant::now();
    let stats: RunStats = match case {
        "seed_svd" => {
            let rows = (100_000.0 * scale) as usize;
            let x: Array<f64> = RandomState::new(0).uniform(&[rows, 1000], [1000, 1000])?;
            let f = chunked_linalg::svd(&x)?;
            // s and u's column norms: u is computed in full, then reduced.
            let (_, stats) = f.u.sum(None)?.compute_stats(&ctx)?;
            stats
        }
        _ => {
            let n = (20_000.0 * scale.sqrt()) as usize;
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [n, 100])?;
            let y = (&x * 1.0).rechunk([100, n])?;
            let (_, stats) = y.sum(None)?.compute_stats(&ctx)?;
            stats
        }
    };
    println!(
        "CASE {case} {:.3} {} {} {} {} {}",
        t.elapsed().as_secs_f64(),
        vm_hwm_kib(),
        stats.tiers.peak_bytes,
        stats.tiers.spilled_bytes,
        stats.tiers.recomputed,
        stats.tiers.dropped_bytes
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scale: f64 = arg("--scale").map_or(1.0, |s| s.parse().unwrap());
    if let Some(case) = arg("--child") {
        let limit = arg("--limit").map(|s| s.parse().unwrap());
        return child(&case, limit, scale);
    }
    let json = std::env::args().any(|a| a == "--json");
    let exe = std::env::current_exe()?;
    let mut rows = Vec::new();
    for (case, data_bytes) in [
        ("seed_svd", (100_000.0 * scale) as usize * 1000 * 8),
        ("rechunk_20000", (20_000.0f64 * scale.sqrt()).powi(2) as usize * 8),
    ] {
        for limit in [None, Some(data_bytes / 4)] {
            let mut cmd = Command::new(&exe);
            cmd.args(["--child", case, "--scale", &scale.to_string()]);
            if let Some(l) = limit {
                cmd.args(["--limit", &l.to_string()]);
            }
            let out = cmd.output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let Some(line) = text.lines().find(|l| l.starts_with("CASE")) else {
                eprintln!("{case} limit {limit:?}: failed: {}", String::from_utf8_lossy(&out.stderr));
                continue;
            };
            let f: Vec<&str> = line.split_whitespace().collect();
            let (secs, rss_kib, peak, spilled, dropped): (f64, usize, usize, u64, u64) =
                (f[2].parse()?, f[3].parse()?, f[4].parse()?, f[5].parse()?, f[7].parse()?);
            let name = format!("{case}{}", if limit.is_some() { "_limit25" } else { "_unlimited" });
            eprintln!(
                "{name:<26} {secs:>8.2} s  peak RSS {:>7.0} MiB  peak held {:>7.0} MiB  spilled {:>7.0} MiB  dropped {:>7.0} MiB  (data {:.0} MiB{})",
                rss_kib as f64 / 1024.0,
                peak as f64 / 1048576.0,
                spilled as f64 / 1048576.0,
                dropped as f64 / 1048576.0,
                data_bytes as f64 / 1048576.0,
                limit.map_or(String::new(), |l| format!(", limit {:.0} MiB", l as f64 / 1048576.0))
            );
            rows.push(format!("\"{name}\": {{\"seconds\": {secs}, \"peak_rss_kib\": {rss_kib}, \"peak_held\": {peak}, \"spilled_bytes\": {spilled}, \"dropped_bytes\": {dropped}}}"));
        }
    }
    if json {
        println!("{{{}}}", rows.join(", "));
    }
    Ok(())
}
