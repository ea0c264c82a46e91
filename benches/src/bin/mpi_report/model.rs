//! The transport's α and β by ping-pong, and the cost model of a TSQR or SVD
//! over P ranks fitted from one measured run (see the binary's docs).

use std::collections::BTreeMap;
use std::time::Instant;

use chunked_array::custom::Layer;
use chunked_array::runtime::{Deliver, TaskGraph, set_process_count};
use chunked_array::{Array, Computable, Context, Profiler, ThreadedScheduler};
use chunked_distributed::{Gather, Mpi, place_tasks, plan_run};
use chunked_linalg::{TsqrOptions, tsqr};
use mpi::traits::*;

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

/// The layers of `workload` on `x` with the graph shaped for `processes` ranks.
fn layers(workload: &str, x: &Array<f64>, processes: usize) -> Vec<Layer> {
    set_process_count(processes);
    let layers = if workload == "tsqr" {
        let f = tsqr(x, &TsqrOptions { processes, ..TsqrOptions::default() }).expect("tsqr");
        vec![f.q.sum(0).expect("sum").layer(), f.r.layer()]
    } else {
        let svd = chunked_linalg::svd(x).expect("svd");
        vec![svd.u.sum(0).expect("sum").layer(), svd.s.layer(), svd.vt.layer()]
    };
    set_process_count(1);
    layers
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

/// Seconds per input byte of each layer, from one profiled run on one thread.
fn fit_rates(workload: &str, x: &Array<f64>) -> (BTreeMap<String, f64>, f64) {
    let g = Layer::task_graph(&layers(workload, x, 1)).expect("graph");
    let profiler = Profiler::new();
    let ctx = Context::with_scheduler(std::sync::Arc::new(ThreadedScheduler::new(1))).with_profiler(&profiler);
    let start = Instant::now();
    if workload == "tsqr" {
        let f = tsqr(x, &TsqrOptions { processes: 1, ..TsqrOptions::default() }).expect("tsqr");
        std::hint::black_box((&f.q.sum(0).expect("sum"), &f.r).compute_on(&ctx).expect("the fitting run"));
    } else {
        let svd = chunked_linalg::svd(x).expect("svd");
        let parts = (&svd.u.sum(0).expect("sum"), &svd.s, &svd.vt);
        std::hint::black_box(parts.compute_on(&ctx).expect("the fitting run"));
    }
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

/// Prints the model's row for each of `counts` ranks for `x`, the rates
/// fitted on `fit` (the same chunking, small enough to run here).
pub fn predict(workload: &str, fit: &Array<f64>, x: &Array<f64>, counts: &[usize], (alpha, beta): (f64, f64)) {
    let (rates, t1) = fit_rates(workload, fit);
    println!("<!-- {workload}: rates fitted from a one-thread run of {t1:.3} s on {:?} -->", fit.shape());
    let n = x.shape()[1] as f64;
    for &p in counts {
        let g = Layer::task_graph(&layers(workload, x, p)).expect("graph");
        let owner = place_tasks(&g, p);
        let plan = plan_run(&g, p, Deliver::Result, Gather::Root);
        let (mut compute, mut sent, mut messages) = (vec![0.0; p], vec![0.0; p], vec![0.0; p]);
        for (t, &r) in owner.iter().enumerate() {
            let r = r as usize;
            if !free_on_direct_path(&g, t) {
                compute[r] += rates.get(g.layer_name(t)).copied().unwrap_or(0.0) * input_bytes(&g, t).max(1.0);
            }
            let copies = plan.destinations[t].len() as f64;
            messages[r] += copies;
            if !free_on_direct_path(&g, t) {
                sent[r] += copies * g.estimated_bytes(t) as f64;
            }
        }
        let busiest: Vec<f64> = (0..p).map(|r| compute[r] + messages[r] * alpha + sent[r] / beta).collect();
        let steps = (p as f64).log2().ceil();
        let modeled = busiest.iter().copied().fold(0.0, f64::max) + 2.0 * steps * (alpha + n * n * 8.0 / beta);
        let active = compute.iter().filter(|&&c| c > 0.0).count() as f64;
        let busy: f64 = compute.iter().sum();
        let idle = 1.0 - busy / (active.max(1.0) * modeled);
        let bound = 2.0 * (active - 1.0).max(0.0) * n * n * 8.0;
        let total: f64 = sent.iter().sum();
        println!(
            "| {workload} | {p} (model) | {} x {} | {:.3} | {:.2} | {:.2} | {:.2} | {:.0}% |",
            x.shape()[0],
            x.shape()[1],
            modeled,
            sent.iter().copied().fold(0.0, f64::max) / 1e6,
            total / 1e6,
            bound / 1e6,
            100.0 * idle.max(0.0)
        );
    }
}
