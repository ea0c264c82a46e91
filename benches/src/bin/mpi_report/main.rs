//! The MPI scheduler's scaling: TSQR, the seed SVD, a rechunk and a matmul,
//! each with its result gathered on rank 0: time, and bytes sent per rank
//! against the least the workload must move. Run under mpirun (see
//! `benches/run_mpi.sh`):
//!
//! ```text
//! mpirun --bind-to none -np P target/release/mpi_report --workload tsqr|svd|rechunk|matmul \
//!     --rows M --cols N --chunk-rows B [--chunk-cols C] [--repeat R] [--threads T]
//! ```
//!
//! Rank 0 prints one markdown row: ranks, shape, median time, GFLOP/s, the
//! most bytes any rank sent, all bytes sent (every message: blocks, progress
//! reports, closing messages), and the least the workload must move: for a
//! TSQR or SVD one n x n R up and one n x n matrix down per rank beyond the
//! first (the root's R⁻¹ or VΣ⁻¹ on the direct path, pieces of Q's basis on
//! the Householder one); for the rechunk, per new block, its elements whose
//! old block is on another rank; for the matmul none is printed.
//!
//! `--workload pingpong` (2 ranks) prints the transport's latency α (half a
//! round trip of 8 bytes) and bandwidth β (16 MiB messages), the parameters
//! of the model.
//!
//! `--model-ranks 1,2,...,1024 --alpha SECONDS --beta BYTES_PER_S
//! [--fit-rows M'] [--fit-cols N']` instead runs the graph of an M' x N'
//! matrix of the same blocks (default: M x N) once on one thread here, fits
//! each layer's time per input byte from its tasks, and predicts for each
//! rank count, from the real placement of the graph shaped for it: the
//! busiest rank's compute (its tasks' input bytes times their layer's rate; a
//! tree node of one child, which passes its R up, costs nothing), plus what
//! it sends (α per message, bytes / β), plus a tree over the ranks' critical
//! path (2·⌈log₂ P⌉ steps of α + n²·8/β for a TSQR or SVD). Bytes are the
//! direct path's, which both factorizations take here (κ ≤ 100): the
//! Householder W pieces are empty on it. Rank 0 prints a row per rank count:
//! time, bytes sent by the busiest rank and by all, the least, and the idle
//! share.

use std::time::Instant;

use chunked_array::Computable;
use chunked_benches::arg;
use chunked_distributed::{Gather, Mpi};
use mpi::traits::*;

mod model;
mod workload;
use workload::Job;

fn main() {
    let mpi = Mpi::init().expect("MPI");
    let workload = arg("--workload").unwrap_or_else(|| "tsqr".into());
    let num = |name: &str, default: usize| arg(name).map_or(default, |v| v.parse().expect("a number"));
    let (rows, cols, chunk_rows) = (num("--rows", 1_000_000), num("--cols", 100), num("--chunk-rows", 10_000));
    let job = Job { workload: workload.clone(), rows, cols, chunk_rows, chunk_cols: num("--chunk-cols", cols) };
    let (repeat, threads) = (num("--repeat", 3), num("--threads", 0));
    if workload == "pingpong" {
        return model::pingpong(&mpi);
    }
    if let Some(ranks) = arg("--model-ranks") {
        let float = |name: &str| arg(name).map(|v| v.parse::<f64>().expect("a number"));
        let (alpha, beta) = (float("--alpha").unwrap_or(2e-6), float("--beta").unwrap_or(12.5e9));
        let counts: Vec<usize> = ranks.split(',').map(|p| p.trim().parse().expect("a rank count")).collect();
        let fit = Job { rows: num("--fit-rows", rows), cols: num("--fit-cols", cols), ..job.clone() };
        if mpi.is_root() {
            model::predict(&fit, &job, &counts, (alpha, beta));
        }
        return;
    }

    let scheduler = mpi.scheduler(Gather::Root, threads);
    let ctx = chunked_array::Context::with_scheduler(scheduler.clone());
    let x = job.input(1);
    let outputs = job.outputs(&x);
    let run_once = || {
        let world = mpi.world();
        world.barrier();
        let start = Instant::now();
        std::hint::black_box(outputs.as_slice().compute_root(&ctx).expect("compute"));
        world.barrier();
        start.elapsed().as_secs_f64()
    };
    run_once(); // warm-up
    let median = chunked_benches::median((0..repeat).map(|_| run_once()).collect());

    let sent = scheduler.last_transfers();
    let world = mpi.world();
    let root = world.process_at_rank(0);
    let mine = [sent.bytes, sent.messages, sent.tasks as u64];
    if !mpi.is_root() {
        root.gather_into(&mine[..]);
        return;
    }
    let mut all = vec![0u64; 3 * mpi.size()];
    root.gather_into_root(&mine[..], &mut all[..]);
    let per_rank: Vec<&[u64]> = all.chunks(3).collect();
    let max_bytes = per_rank.iter().map(|r| r[0]).max().unwrap_or(0);
    let total: u64 = per_rank.iter().map(|r| r[0]).sum();
    // Ranks that hold rows (a job can have more ranks than row blocks).
    let active = per_rank.iter().filter(|r| r[2] > 0).count();
    let least = job
        .lower_bound(active)
        .or_else(|| (workload == "rechunk").then(|| model::rechunk_least(&job, &outputs, mpi.size())));
    println!(
        "| {workload} | {} | {rows} x {cols} | {chunk_rows} x {} | {} | {median:.3} | {:.1} | {:.2} | {:.2} | {} | {} |",
        mpi.size(),
        job.chunk_cols,
        scheduler.threads(),
        job.flops() / median / 1e9,
        max_bytes as f64 / 1e6,
        total as f64 / 1e6,
        least.map_or("-".into(), |b| format!("{:.2}", b / 1e6)),
        per_rank.iter().map(|r| r[2].to_string()).collect::<Vec<_>>().join("/"),
    );
}
