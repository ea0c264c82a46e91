//! The dashboard under MPI: rank 0 serves it for every rank. A job on two
//! ranks computes under a memory limit that makes each rank spill; rank 0
//! reads its own dashboard's record over HTTP and prints what it holds per
//! rank, each rank prints what it ran, and the launcher compares the two.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use chunked_array::random::RandomState;
use chunked_distributed::Mpi;
use serde_json::Value;

use crate::launcher::run_job;

/// On each rank: the compute, then the record as rank 0's dashboard holds it.
pub fn rank_dashboard(dir: &Path) -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    let spill = dir.join(format!("spill-{}", mpi.rank()));
    std::fs::create_dir_all(&spill).expect("spill dir");
    // An address no interface has: every rank gets the error, before any work.
    let refused = mpi.context().with_dashboard("203.0.113.1:8787").is_err();
    println!("rank {}: unbindable address refused: {refused}", mpi.rank());
    let ctx = mpi.context_gather_all().with_memory_limit(2 * 16_000 + 4_000).with_spill_dir(&spill);
    let ctx = ctx.with_dashboard("127.0.0.1:0").expect("dashboard");
    println!("rank {}: serves the dashboard: {}", mpi.rank(), ctx.dashboard().is_some());
    let x = RandomState::new(17).standard_normal::<f64>(&[800, 100], [20, 100]).expect("array");
    let centered = (&x - &x.mean(0).expect("mean")).abs().sum(0).expect("sum");
    let (_, stats) = centered.compute_stats(&ctx).expect("compute");
    println!("rank {}: ran {} tasks, spilled {}", mpi.rank(), stats.tasks, stats.tiers.spilled);
    if let Some(dashboard) = ctx.dashboard() {
        dashboard.refresh();
        let state = state_json(dashboard.address());
        let run = &state["runs"][0];
        println!("dashboard: run of {} tasks, finished {}", run["tasks"], !run["finished"].is_null());
        for rank in 0..mpi.size() as u64 {
            let spans = state["spans"].as_array().expect("spans").iter().filter(|s| s[1] == rank).count();
            let marks = state["marks"].as_array().expect("marks").iter();
            let writes = marks.filter(|m| m[2] == rank && m[3] == "disk-write").count();
            println!("dashboard: rank {rank}: {spans} spans, {writes} disk-writes");
        }
        for t in state["transfer_totals"].as_array().expect("transfers") {
            println!("dashboard: transfers {}->{}: {} bytes", t[0], t[1], t[2]);
        }
    }
    ExitCode::SUCCESS
}

/// `/state.json` of the dashboard at `addr`.
fn state_json(addr: std::net::SocketAddr) -> Value {
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    write!(s, "GET /state.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").expect("request");
    let mut text = String::new();
    s.read_to_string(&mut text).expect("response");
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    serde_json::from_str(body).expect("the record is JSON")
}

/// The number after `prefix` on a line of `output`.
fn number_after(output: &str, prefix: &str) -> Option<usize> {
    output.lines().find_map(|l| {
        let rest = &l[l.find(prefix)? + prefix.len()..];
        rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
    })
}

/// Runs the job on two ranks and checks rank 0's record against each rank's
/// own counts.
pub fn dashboard_job(failures: &mut Vec<String>) {
    let dir = std::env::temp_dir().join(format!("chunked-mpi-dashboard-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let job = run_job(2, &["--rank-dashboard", dir.to_str().expect("utf-8 temp dir")], Duration::from_secs(120));
    let _ = std::fs::remove_dir_all(&dir);
    let out = &job.output;
    let mut wrong = Vec::new();
    for rank in 0..2 {
        let ran = number_after(out, &format!("rank {rank}: ran "));
        let spans = number_after(out, &format!("dashboard: rank {rank}: "));
        let spilled = number_after(out, &format!("rank {rank}: ran {} tasks, spilled ", ran.unwrap_or(0)));
        let writes = spans.and_then(|n| number_after(out, &format!("dashboard: rank {rank}: {n} spans, ")));
        if ran.is_none() || ran != spans {
            wrong.push(format!("rank {rank} ran {ran:?} tasks, its row on rank 0 has {spans:?}"));
        }
        if spilled == Some(0) || spilled != writes {
            wrong.push(format!("rank {rank} spilled {spilled:?} blocks, rank 0 saw {writes:?} disk-writes"));
        }
        if !out.contains(&format!("rank {rank}: unbindable address refused: true")) {
            wrong.push(format!("rank {rank} did not refuse an address rank 0 cannot bind"));
        }
        let serves = rank == 0;
        if !out.contains(&format!("rank {rank}: serves the dashboard: {serves}")) {
            wrong.push(format!("rank {rank} should serve: {serves}"));
        }
    }
    for (from, to) in [(0, 1), (1, 0)] {
        if number_after(out, &format!("dashboard: transfers {from}->{to}: ")).is_none_or(|b| b == 0) {
            wrong.push(format!("no transfer {from}->{to} on rank 0's dashboard"));
        }
    }
    println!("dashboard over 2 ranks: exit {:?}, {} problems", job.code, wrong.len());
    if job.code != Some(0) || job.timed_out || !wrong.is_empty() {
        failures.push(format!("dashboard over 2 ranks: {wrong:?} (exit {:?}):\n{out}", job.code));
    }
}
