//! TSQR and the seed SVD under the MPI scheduler: time, and bytes sent per rank
//! against what the direct TSQR must send. Run under mpirun (see
//! `benches/run_mpi.sh`, which runs the weak and strong scaling series):
//!
//! ```text
//! mpirun --bind-to none -np P target/release/mpi_report --workload tsqr|svd \
//!     --rows M --cols N --chunk-rows B [--repeat R] [--threads T]
//! ```
//!
//! Rank 0 prints one markdown row: ranks, shape, median time, GFLOP/s (at
//! 2mn² for the QR and 2mn² for forming Q = A·R⁻¹ or U = A·VΣ⁻¹: 4mn² in all, the
//! well-conditioned path), the most bytes any rank sent, all bytes sent, and
//! the lower bound: the tree's R factors going up and an n x n matrix coming
//! down (the root's R⁻¹ or VΣ⁻¹, or on the Householder path pieces of Q's
//! basis), (P-1) of each, n² values
//! apiece (P: the ranks that hold rows). The result (Q's or U's column sums, R or S and Vᵀ) is gathered on
//! rank 0, so that only the factorization's own traffic is measured.
//!
//! `--workload pingpong` (2 ranks) prints the transport's latency α (half a
//! round trip of 8 bytes) and bandwidth β (16 MiB messages), the parameters
//! of the model.
//!
//! `--model-ranks 1,2,...,1024 --alpha SECONDS --beta BYTES_PER_S
//! [--fit-rows M']` instead runs the graph of M' rows (default: M) once on one
//! thread here, fits each layer's time per input
//! byte from its tasks, and predicts for each rank count, from the real
//! placement of the graph shaped for it: the busiest rank's compute (its
//! tasks' input bytes times their layer's rate; a tree node of one child,
//! which passes its R up, costs nothing), plus what it sends (α per message,
//! bytes / β), plus the tree over the ranks' critical path (2·⌈log₂ P⌉ steps
//! of α + n²·8/β). Bytes are the direct path's, which both workloads take
//! (κ ≤ 100): the Householder W pieces are empty on it. Rank 0 prints a row
//! per rank count: time, bytes sent by the busiest rank and by all, the
//! lower bound, and the idle share.

use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::{Array, Computable};
use chunked_benches::arg;
use chunked_distributed::{Gather, Mpi};
use chunked_linalg::{TsqrOptions, tsqr};
use mpi::traits::*;

mod model;

fn main() {
    let mpi = Mpi::init().expect("MPI");
    let workload = arg("--workload").unwrap_or_else(|| "tsqr".into());
    let num = |name: &str, default: usize| arg(name).map_or(default, |v| v.parse().expect("a number"));
    let (rows, cols, chunk_rows) = (num("--rows", 1_000_000), num("--cols", 100), num("--chunk-rows", 10_000));
    let (repeat, threads) = (num("--repeat", 3), num("--threads", 0));
    let scheduler = mpi.scheduler(Gather::Root, threads);
    let ctx = chunked_array::Context::with_scheduler(scheduler.clone());
    let x: Array<f64> = RandomState::new(1).standard_normal(&[rows, cols], [chunk_rows, cols]).expect("matrix");
    if workload == "pingpong" {
        return model::pingpong(&mpi);
    }
    if let Some(ranks) = arg("--model-ranks") {
        let float = |name: &str| arg(name).map(|v| v.parse::<f64>().expect("a number"));
        let (alpha, beta) = (float("--alpha").unwrap_or(2e-6), float("--beta").unwrap_or(12.5e9));
        let counts: Vec<usize> = ranks.split(',').map(|p| p.trim().parse().expect("a rank count")).collect();
        let fit_rows = num("--fit-rows", rows);
        let fit: Array<f64> =
            RandomState::new(1).standard_normal(&[fit_rows, cols], [chunk_rows, cols]).expect("matrix");
        if mpi.is_root() {
            model::predict(&workload, &fit, &x, &counts, (alpha, beta));
        }
        return;
    }

    let run_once = || {
        let world = mpi.world();
        world.barrier();
        let start = Instant::now();
        match workload.as_str() {
            "tsqr" => {
                let f = tsqr(&x, &TsqrOptions::default()).expect("tsqr");
                let got = (&f.q.sum(0).expect("sum"), &f.r).compute_root(&ctx).expect("compute");
                std::hint::black_box(got);
            }
            "svd" => {
                let svd = chunked_linalg::svd(&x).expect("svd");
                let got = (&svd.u.sum(0).expect("sum"), &svd.s, &svd.vt).compute_root(&ctx).expect("compute");
                std::hint::black_box(got);
            }
            other => panic!("--workload {other}: expected tsqr or svd"),
        }
        world.barrier();
        start.elapsed().as_secs_f64()
    };
    run_once(); // warm-up
    let median = chunked_benches::median((0..repeat).map(|_| run_once()).collect());

    let sent = scheduler.last_transfers();
    let world = mpi.world();
    let root = world.process_at_rank(0);
    let mine = [sent.bytes, sent.messages, sent.tasks as u64];
    if mpi.is_root() {
        let mut all = vec![0u64; 3 * mpi.size()];
        root.gather_into_root(&mine[..], &mut all[..]);
        let per_rank: Vec<&[u64]> = all.chunks(3).collect();
        let max_bytes = per_rank.iter().map(|r| r[0]).max().unwrap_or(0);
        let total: u64 = per_rank.iter().map(|r| r[0]).sum();
        // Ranks that hold rows (a job can have more ranks than row blocks).
        let active = per_rank.iter().filter(|r| r[2] > 0).count() as u64;
        let bound = 2 * (active - 1) * (cols * cols * 8) as u64;
        let gflops = 4.0 * rows as f64 * (cols as f64).powi(2) / median / 1e9;
        println!(
            "| {workload} | {} | {rows} x {cols} | {chunk_rows} | {} | {median:.3} | {gflops:.1} | {:.2} | {:.2} | {:.2} | {} |",
            mpi.size(),
            scheduler.threads(),
            max_bytes as f64 / 1e6,
            total as f64 / 1e6,
            bound as f64 / 1e6,
            per_rank.iter().map(|r| r[2].to_string()).collect::<Vec<_>>().join("/"),
        );
    } else {
        root.gather_into(&mine[..]);
    }
}
