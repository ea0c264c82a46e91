//! The transport's α and β by ping-pong, and the cost model of a TSQR or SVD
//! over P ranks fitted from one measured run (see the binary's docs).

use std::collections::BTreeMap;
use std::time::Instant;

use chunked_array::custom::Layer;
use chunked_array::runtime::{Deliver, TaskGraph, set_process_count};
use chunked_array::{Array, Chunks, Computable, Context, Profiler, ThreadedScheduler};
use chunked_distributed::{Gather, Mpi, place_tasks, plan_run, rechunk_least_bytes};
use mpi::traits::*;

use crate::workload::{Job, rechunk_tasks};

/// Rank 0 and 1 bounce messages of 8 bytes and of 16 MiB; rank 0 prints α
/// (half the round trip of 8 bytes) and β (16 MiB over half its round trip).
pub fn pingpong(mpi: &Mpi) {
    let world = mpi.world();
    if world.size() < 2 {
        eprintln!("pingpong needs 2 ranks");
        return;
    }
    let half_round_trip = |bytes: usize, rounds: usize| -> f64 {
        let mut buf = vec![1u8; bytes];
        world.barrier();
        let start = Instant::now();
        for _ in 0..rounds {
            match world.rank() {
                0 => {
                    world.process_at_rank(1).send(&buf[..]);
                    world.process_at_rank(1).receive_into(&mut buf[..]);
                }
                1 => {
                    world.process_at_rank(0).receive_into(&mut buf[..]);
                    world.process_at_rank(0).send(&buf[..]);
                }
                _ => {}
            }
        }
        start.elapsed().as_secs_f64() / (2 * rounds) as f64
    };
    half_round_trip(8, 100); // warm-up
    let alpha = half_round_trip(8, 10_000);
    let big = 16 << 20;
    half_round_trip(big, 2);
    let beta = big as f64 / (half_round_trip(big, 20) - alpha);
    if world.rank() == 0 {
        println!("| {} | {:.2} | {:.2} |", std::env::var("TRANSPORT").unwrap_or_default(), alpha * 1e6, beta / 1e9);
    }
}

/// The graph of `job` shaped for `processes` ranks.
fn graph_for(job: &Job, processes: usize) -> TaskGraph {
    set_process_count(processes);
    let layers: Vec<Layer> = job.outputs(&job.input(1)).iter().map(|a| a.layer()).collect();
    set_process_count(1);
    Layer::task_graph(&layers).expect("graph")
}

/// The bytes of task `t`'s inputs, as the graph estimates them.
fn input_bytes(g: &TaskGraph, t: usize) -> f64 {
    g.deps(t).iter().map(|&d| g.estimated_bytes(d as usize) as f64).sum()
}

/// Whether task `t` moves nothing on the direct path or costs nothing: the
/// Householder W pieces (empty there) and a tree node of one child.
fn free_on_direct_path(g: &TaskGraph, t: usize) -> bool {
    let name = g.layer_name(t);
    name.starts_with("tsqr-w-part") || name.starts_with("tsqr-down") || (name == "tsqr-tree" && g.deps(t).len() == 1)
}

/// Seconds per input byte of each layer, from one profiled run of `job` on
/// one thread, and that run's time.
fn fit_rates(job: &Job) -> (BTreeMap<String, f64>, f64) {
    let g = graph_for(job, 1);
    let outputs = job.outputs(&job.input(1));
    let profiler = Profiler::new();
    let ctx = Context::with_scheduler(std::sync::Arc::new(ThreadedScheduler::new(1))).with_profiler(&profiler);
    let start = Instant::now();
    std::hint::black_box(outputs.as_slice().compute_on(&ctx).expect("the fitting run"));
    let t1 = start.elapsed().as_secs_f64();
    let mut time: BTreeMap<String, f64> = BTreeMap::new();
    for s in profiler.spans() {
        *time.entry(s.layer).or_default() += s.end - s.start;
    }
    let mut bytes: BTreeMap<String, f64> = BTreeMap::new();
    for t in (0..g.len()).filter(|&t| !free_on_direct_path(&g, t)) {
        *bytes.entry(g.layer_name(t).to_string()).or_default() += input_bytes(&g, t).max(1.0);
    }
    let rates = time
        .into_iter()
        .map(|(layer, secs)| (layer.clone(), secs / bytes.get(&layer).copied().unwrap_or(1.0)))
        .collect();
    (rates, t1)
}

/// The least a measured rechunk had to move: its graph placed as the run
/// placed it (`outputs`, built under this job's process count).
pub fn rechunk_least(job: &Job, outputs: &[Array<f64>], ranks: usize) -> f64 {
    let layers: Vec<Layer> = outputs.iter().map(|a| a.layer()).collect();
    let g = Layer::task_graph(&layers).expect("graph");
    rechunk_least_in(job, &g, ranks)
}

fn rechunk_least_in(job: &Job, g: &TaskGraph, ranks: usize) -> f64 {
    let old = Chunks::from_lengths(vec![blocks_of(job.rows, job.chunk_rows), blocks_of(job.cols, job.chunk_cols)]);
    let new = Chunks::from_lengths(vec![blocks_of(job.rows, job.chunk_cols), blocks_of(job.cols, job.chunk_rows)]);
    let owner = place_tasks(g, ranks);
    let tasks = rechunk_tasks(g, new.num_blocks());
    rechunk_least_bytes(&old, &new, 8, ranks, |b| owner[tasks[b]] as usize) as f64
}

/// `n` in blocks of `c` (the last one shorter).
fn blocks_of(n: usize, c: usize) -> Vec<usize> {
    (0..n.div_ceil(c)).map(|i| c.min(n - i * c)).collect()
}

/// Prints the model's row for each of `counts` ranks for `job`, the rates
/// fitted on `fit` (the same blocks, small enough to run here).
pub fn predict(fit: &Job, job: &Job, counts: &[usize], (alpha, beta): (f64, f64)) {
    let (rates, t1) = fit_rates(fit);
    println!(
        "<!-- {}: rates fitted from a one-thread run of {t1:.3} s on {} x {} -->",
        job.workload, fit.rows, fit.cols
    );
    let n = job.cols as f64;
    let tree = matches!(job.workload.as_str(), "tsqr" | "svd");
    for &p in counts {
        let g = graph_for(job, p);
        let owner = place_tasks(&g, p);
        let plan = plan_run(&g, p, Deliver::Result, Gather::Root);
        let (mut compute, mut sent, mut messages) = (vec![0.0; p], vec![0.0; p], vec![0.0; p]);
        for (t, &r) in owner.iter().enumerate() {
            let r = r as usize;
            let copies = plan.destinations[t].len() as f64;
            messages[r] += copies;
            if !free_on_direct_path(&g, t) {
                compute[r] += rates.get(g.layer_name(t)).copied().unwrap_or(0.0) * input_bytes(&g, t).max(1.0);
                sent[r] += copies * g.estimated_bytes(t) as f64;
            }
        }
        let busiest = (0..p).map(|r| compute[r] + messages[r] * alpha + sent[r] / beta).fold(0.0, f64::max);
        let steps = if tree { 2.0 * (p as f64).log2().ceil() * (alpha + n * n * 8.0 / beta) } else { 0.0 };
        let modeled = busiest + steps;
        let active = compute.iter().filter(|&&c| c > 0.0).count();
        let idle = 1.0 - compute.iter().sum::<f64>() / (active.max(1) as f64 * modeled);
        let least =
            job.lower_bound(active).or_else(|| (job.workload == "rechunk").then(|| rechunk_least_in(job, &g, p)));
        println!(
            "| {} | {p} (model) | {} x {} | {:.3} | {:.2} | {:.2} | {} | {:.0}% |",
            job.workload,
            job.rows,
            job.cols,
            modeled,
            sent.iter().copied().fold(0.0, f64::max) / 1e6,
            sent.iter().sum::<f64>() / 1e6,
            least.map_or("-".into(), |b| format!("{:.2}", b / 1e6)),
            100.0 * idle.max(0.0)
        );
    }
}
