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
//! `--model-ranks 16,64 --t1 SECONDS` instead prints, for job sizes this
//! machine cannot run, what every rank would run and send, from the real
//! placement of the same graph ([`chunked_distributed::traffic`]), and a cost
//! model: `T(P) = T1 · (most tasks on a rank / all tasks) + α · (most messages
//! sent by a rank) + (most bytes sent by a rank) / β`, with T1 the measured
//! one-thread time, α = 2 µs and β = 12.5 GB/s (a 100 Gb/s InfiniBand link). The
//! model leaves out the tree's serial top levels (a few QRs of 4n x n).

use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::{Array, Computable};
use chunked_benches::arg;
use chunked_distributed::{Gather, Mpi};
use chunked_linalg::{TsqrOptions, tsqr};
use mpi::traits::*;

fn main() {
    let mpi = Mpi::init().expect("MPI");
    let workload = arg("--workload").unwrap_or_else(|| "tsqr".into());
    let num = |name: &str, default: usize| arg(name).map_or(default, |v| v.parse().expect("a number"));
    let (rows, cols, chunk_rows) = (num("--rows", 1_000_000), num("--cols", 100), num("--chunk-rows", 10_000));
    let (repeat, threads) = (num("--repeat", 3), num("--threads", 0));
    let scheduler = mpi.scheduler(Gather::Root, threads);
    let ctx = chunked_array::Context::with_scheduler(scheduler.clone());
    let x: Array<f64> = RandomState::new(1).standard_normal(&[rows, cols], [chunk_rows, cols]).expect("matrix");
    if let Some(ranks) = arg("--model-ranks") {
        let t1: f64 = arg("--t1").map_or(0.0, |v| v.parse().expect("seconds"));
        let layers = match workload.as_str() {
            "tsqr" => {
                let f = tsqr(&x, &TsqrOptions::default()).expect("tsqr");
                vec![f.q.sum(0).expect("sum").layer(), f.r.layer()]
            }
            _ => {
                let svd = chunked_linalg::svd(&x).expect("svd");
                vec![svd.u.sum(0).expect("sum").layer(), svd.s.layer(), svd.vt.layer()]
            }
        };
        let graph = chunked_array::custom::Layer::task_graph(&layers).expect("graph");
        for p in ranks.split(',').map(|p| p.trim().parse::<usize>().expect("a rank count")) {
            let per_rank =
                chunked_distributed::traffic(&graph, p, chunked_array::runtime::Deliver::Result, Gather::Root);
            let max = |f: fn(&chunked_distributed::TransferStats) -> u64| per_rank.iter().map(f).max().unwrap_or(0);
            let total: u64 = per_rank.iter().map(|r| r.bytes).sum();
            let active = per_rank.iter().filter(|r| r.tasks > 0).count() as u64;
            let bound = 2 * (active - 1) * (cols * cols * 8) as u64;
            let (tasks_max, bytes_max, messages_max) = (max(|r| r.tasks as u64), max(|r| r.bytes), max(|r| r.messages));
            let modeled =
                t1 * tasks_max as f64 / graph.len() as f64 + 2e-6 * messages_max as f64 + bytes_max as f64 / 12.5e9;
            println!(
                "| {workload} | {p} (model) | {rows} x {cols} | {chunk_rows} | {tasks_max} of {} | {modeled:.3} | {:.2} | {:.2} | {:.2} |",
                graph.len(),
                bytes_max as f64 / 1e6,
                total as f64 / 1e6,
                bound as f64 / 1e6
            );
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
