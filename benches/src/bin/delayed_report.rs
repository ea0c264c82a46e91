//! The per-task cost of delayed values: 10^5 trivial tasks (each returns its
//! number), summed in groups of 1000 and then in total, built and computed,
//! on the threaded and the sync scheduler: the time to build the graph and
//! the time to compute it, each over the task count (medians of three), as
//! `benches/python/compare_delayed.py` measures dask.delayed.
//!
//! `cargo run --release -p chunked-benches --bin delayed_report [-- --json]`

use chunked_array::delayed::{Delayed, fan_in};
use chunked_array::{Context, Result};
use chunked_benches::{median, print_rows, secs};

const LEAVES: u64 = 100_000;
const GROUP: usize = 1000;

/// The graph (built) and its total.
fn fan_out_fan_in() -> Delayed<u64> {
    let leaves: Vec<Delayed<u64>> = (0..LEAVES).map(|i| Delayed::new("leaf", move || i)).collect();
    let groups: Vec<Delayed<u64>> =
        leaves.chunks(GROUP).map(|g| fan_in("group", g, |v| v.iter().copied().sum::<u64>())).collect();
    fan_in("total", &groups, |v| v.iter().copied().sum::<u64>())
}

fn main() -> Result<()> {
    let json = std::env::args().any(|a| a == "--json");
    let tasks = LEAVES as usize + LEAVES as usize / GROUP + 1;
    let per_task = |t: f64| format!("{:.2} us per task", t / tasks as f64 * 1e6);
    let mut rows = Vec::new();
    let build = median((0..3).map(|_| secs(fan_out_fan_in).0).collect());
    rows.push(("10^5 delayed tasks, build".to_string(), build, per_task(build)));
    for (name, ctx) in [("threads", Context::threads(0)), ("sync", Context::sync())] {
        assert_eq!(fan_out_fan_in().compute_on(&ctx)?, LEAVES * (LEAVES - 1) / 2);
        let mut times = Vec::new();
        for _ in 0..3 {
            let graph = fan_out_fan_in();
            let (t, r) = secs(|| graph.compute_on(&ctx));
            r?;
            times.push(t);
        }
        let t = median(times);
        rows.push((format!("10^5 delayed tasks, compute, {name}"), t, per_task(t)));
    }
    print_rows(&rows, json);
    Ok(())
}
