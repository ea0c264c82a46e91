//! Futures (dask.distributed's Client API in process): results against the
//! same work done in a plain loop, every result once from `as_completed`,
//! cancellation stopping work not started, shared values without copies,
//! and delayed values spilling under a memory limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use chunked_array::delayed::{Delayed, fan_in};
use chunked_array::futures::{Client, Status, as_completed, wait};
use chunked_array::ndarray::{ArrayD, IxDyn};
use chunked_array::{Array, Context, Error};

fn clients() -> [Client; 2] {
    [Client::new(Context::sync()), Client::new(Context::threads(4))]
}

#[test]
fn map_and_gather_match_the_loop() {
    let want: Vec<u64> = (0..500u64).map(|i| (i * i) % 977).collect();
    for client in clients() {
        let futures = client.map("square mod", 0..500u64, |i| (i * i) % 977);
        assert_eq!(client.gather(&futures).unwrap(), want);
        assert!(futures.iter().all(|f| f.status() == Status::Finished));
    }
}

#[test]
fn as_completed_yields_every_result_exactly_once() {
    for client in clients() {
        let n = 300;
        // Uneven work, so that results finish out of order on threads.
        let futures = client.map("uneven", 0..n, |i: usize| {
            let spin = (i * 7919) % 13 * 1000;
            (0..spin).fold(i, |a, b| a ^ b) ^ (0..spin).fold(0, |a, b| a ^ b)
        });
        let mut seen = vec![0; n];
        for (i, r) in as_completed(&futures) {
            assert_eq!(r.unwrap(), i);
            seen[i] += 1;
        }
        assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
    }
}

#[test]
fn cancel_stops_work_not_yet_started() {
    let client = Client::new(Context::threads(2));
    let gate = Arc::new(Barrier::new(3));
    let ran = Arc::new(AtomicUsize::new(0));
    // Two jobs hold both client threads until the gate opens.
    let blockers: Vec<_> = (0..2)
        .map(|_| {
            let g = gate.clone();
            client.submit("blocker", move || {
                g.wait();
                1
            })
        })
        .collect();
    let r = ran.clone();
    let queued = client.map("queued", 0..20, move |i: usize| {
        r.fetch_add(1, Ordering::SeqCst);
        i
    });
    let (cancelled, kept) = queued.split_at(10);
    client.cancel(cancelled);
    gate.wait();
    wait(&blockers).unwrap();
    assert_eq!(client.gather(kept).unwrap(), (10..20).collect::<Vec<_>>());
    for f in cancelled {
        assert!(matches!(f.result(), Err(Error::Cancelled { .. })), "{f:?}");
        assert_eq!(f.status(), Status::Cancelled);
    }
    assert_eq!(ran.load(Ordering::SeqCst), 10, "only the ten kept ran");
    assert!(wait(&queued).is_err(), "wait reports the cancellations");
}

#[test]
fn cancel_stops_the_remaining_tasks_of_a_running_graph() {
    let client = Client::new(Context::sync());
    let started = Arc::new(Barrier::new(2));
    let release = Arc::new(Barrier::new(2));
    let ran = Arc::new(AtomicUsize::new(0));
    let (s, g, r) = (started.clone(), release.clone(), ran.clone());
    let first = Delayed::new("first", move || {
        s.wait();
        g.wait();
        1u32
    });
    // A chain after `first`: none of it may start once cancelled.
    let mut last = first;
    for _ in 0..50 {
        let r = r.clone();
        last = last.map("next", move |v| {
            r.fetch_add(1, Ordering::SeqCst);
            v + 1
        });
    }
    let future = client.compute(&last);
    started.wait();
    assert_eq!(future.status(), Status::Running);
    assert!(future.cancel());
    release.wait();
    let err = future.result().unwrap_err();
    assert!(matches!(err, Error::Cancelled { .. }), "{err}");
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[test]
fn a_panicking_submission_is_an_error_naming_it_and_the_client_goes_on() {
    for client in clients() {
        let bad = client.submit("fit pair (3, 17)", || -> f64 { panic!("singular matrix") });
        let good = client.submit("fine", || 2.0);
        let err = bad.result().unwrap_err().to_string();
        assert!(err.contains("fit pair (3, 17)") && err.contains("singular matrix"), "{err}");
        assert_eq!(good.result().unwrap(), 2.0);
        assert_eq!(bad.status(), Status::Error);
    }
}

#[test]
fn a_scattered_value_is_shared_by_every_task_without_copies() {
    let client = Client::new(Context::threads(4));
    let data: Vec<f64> = (0..10_000).map(|i| i as f64).collect();
    let address = data.as_ptr() as usize;
    let shared = client.scatter("data", data).to_delayed();
    let parts: Vec<Delayed<(usize, f64)>> = (0..8)
        .map(|k| shared.map("part", move |v| (v.as_ptr() as usize, v[k * 1000..(k + 1) * 1000].iter().sum())))
        .collect();
    let got = fan_in("all", &parts, |ps| ps.iter().map(|p| **p).collect::<Vec<_>>()).compute().unwrap();
    assert!(got.iter().all(|(ptr, _)| *ptr == address), "every task read the one value");
    let total: f64 = got.iter().map(|p| p.1).sum();
    assert_eq!(total, (0..8000).map(|i| i as f64).sum::<f64>());
}

#[test]
fn futures_feed_delayed_tasks_and_persist_runs_in_the_background() {
    let client = Client::new(Context::threads(2));
    let x = Array::<f64>::from_fn(&[40, 6], [10, 3], |i| (i[0] * 6 + i[1]) as f64).unwrap();
    let (centered, mean) = (&x - &x.mean(0).unwrap(), x.mean(None).unwrap());
    let held = client.persist((centered, mean));
    let counted = client.submit("rows", || 40usize);
    let scaled = counted.to_delayed().map("scale", |n| *n as f64 * 0.5);
    wait(std::slice::from_ref(&held)).unwrap();
    let (centered, mean) = held.result().unwrap();
    assert_eq!(centered.num_tasks(), 8, "the persisted blocks");
    assert_eq!(mean.compute_scalar().unwrap(), 119.5);
    let col_sums = centered.sum(0).unwrap().compute().unwrap();
    assert!(col_sums.iter().all(|s| s.abs() < 1e-9), "{col_sums}");
    assert_eq!(client.compute(&scaled).result().unwrap(), 20.0);
}

/// Two passes over values larger than the memory limit in total: each value
/// is summarized, then every value is read again against the total, so all
/// of them are held between the passes and must spill.
#[test]
fn encoded_delayed_values_spill_within_the_memory_limit() {
    let (n, len) = (16usize, 1 << 17); // 16 values of 1 MiB
    let limit = 4 << 20;
    let values: Vec<Delayed<Vec<f64>>> = (0..n)
        .map(|k| Delayed::new("load", move || (0..len).map(|i| ((i * 31 + k * 7) % 101) as f64).collect::<Vec<f64>>()))
        .map(|d| d.sized(|v| 8 * v.len()).encoded())
        .collect();
    let sums: Vec<Delayed<f64>> = values.iter().map(|v| v.map("sum", |v| v.iter().sum::<f64>())).collect();
    let mean = fan_in("mean", &sums, move |s| s.iter().copied().sum::<f64>() / (n * len) as f64);
    let deviations: Vec<Delayed<f64>> = values
        .iter()
        .map(|v| v.zip(&mean, "deviation", |v, m| v.iter().map(|x| (x - m) * (x - m)).sum::<f64>()))
        .collect();
    let var = fan_in("var", &deviations, move |d| {
        ArrayD::from_elem(IxDyn(&[]), d.iter().copied().sum::<f64>() / (n * len) as f64)
    });
    let var = Array::from_delayed(&var, &[]).unwrap();

    let all: Vec<f64> = (0..n).flat_map(|k| (0..len).map(move |i| ((i * 31 + k * 7) % 101) as f64)).collect();
    let m = all.iter().sum::<f64>() / all.len() as f64;
    let want = all.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / all.len() as f64;
    for ctx in [Context::sync(), Context::threads(2)] {
        let (got, stats) = var.compute_stats(&ctx.with_memory_limit(limit)).unwrap();
        assert!((got[[]] - want).abs() < 1e-9 * want, "{} against {want}", got[[]]);
        assert!(stats.tiers.spilled >= n / 2, "{stats:?}");
        // Past the limit by at most the values being made or read back by
        // the (at most two) workers.
        assert!(stats.tiers.peak_bytes <= limit + (2 << 20), "peak {} over the limit {limit}", stats.tiers.peak_bytes);
    }
}

#[test]
fn delayed_values_that_cannot_spill_past_the_limit_are_a_clear_error() {
    let values: Vec<Delayed<Vec<f64>>> = (0..16)
        .map(|k| Delayed::new("unencoded load", move || vec![k as f64; 1 << 17]).sized(|v| 8 * v.len()))
        .collect();
    let sums: Vec<Delayed<f64>> = values.iter().map(|v| v.map("sum", |v| v.iter().sum::<f64>())).collect();
    let total = fan_in("total", &sums, |s| s.iter().copied().sum::<f64>());
    // Every value read again after the total: all sixteen are held between.
    let again: Vec<Delayed<f64>> = values.iter().map(|v| v.zip(&total, "share", |v, t| v[0] / t)).collect();
    let all = fan_in("all", &again, |s| s.iter().copied().sum::<f64>());
    for ctx in [Context::sync(), Context::threads(2)] {
        let err = all.compute_on(&ctx.with_memory_limit(4 << 20)).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::ResourcesExhausted { .. }), "{text}");
        assert!(text.contains("unencoded load") && text.contains("encoded()"), "{text}");
    }
    // Without a limit it runs, and agrees with the loop.
    let want = (0..16).map(|k| k as f64 / (120.0 * (1 << 17) as f64)).sum::<f64>();
    assert!((all.compute().unwrap() - want).abs() < 1e-15);
}
