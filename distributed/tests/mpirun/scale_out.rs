//! Checks of the layouts that only larger jobs take, run under `mpirun -np 8`
//! (oversubscribed): a matmul whose block products sit on a 2-D grid of
//! ranks (sending what its plan says), a rechunk through the common refinement (whose bytes sent are the
//! least it must move, and within each rank's memory limit), and a TSQR whose
//! tree reduces each rank's rows first, each against the same computation in
//! one process.

use std::process::ExitCode;

use chunked_array::custom::Layer;
use chunked_array::random::RandomState;
use chunked_array::runtime::Deliver;
use chunked_array::{Computable, Context};
use chunked_distributed::{Gather, Mpi, place_tasks, rechunk_least_bytes, traffic};
use ndarray::ArrayD;

fn same(a: &ArrayD<f64>, b: &ArrayD<f64>, what: &str, tol: f64) -> Result<(), String> {
    let worst = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    if a.shape() != b.shape() || worst > tol {
        return Err(format!("{what}: shapes {:?} and {:?}, largest difference {worst:e}", a.shape(), b.shape()));
    }
    Ok(())
}

fn checks(mpi: &Mpi) -> Result<(), String> {
    let err = |e: chunked_array::Error| e.to_string();
    let all = mpi.context_gather_all();
    let one = Context::sync();
    // 8 x 8 blocks over 8 ranks: a 2 x 4 grid of ranks.
    let a = &RandomState::new(1).standard_normal::<f64>(&[64, 64], [8, 8]).map_err(err)? * 1.0;
    let b = &RandomState::new(2).standard_normal::<f64>(&[64, 64], [8, 8]).map_err(err)? * 1.0;
    let c = a.matmul(&b).map_err(err)?;
    let g = Layer::task_graph(&[c.layer()]).map_err(err)?;
    if !(0..g.len()).any(|t| g.process_of(t, mpi.size()).is_some()) {
        return Err(format!("the matmul's products are not on a grid of {} ranks", mpi.size()));
    }
    same(&c.compute_on(&all).map_err(err)?, &c.compute_on(&one).map_err(err)?, "matmul on a grid", 1e-12)?;
    matmul_sends_its_plan(mpi)?;
    // Row blocks to column blocks: every piece crosses to its new block's rank.
    let r = a.rechunk([64, 3]).map_err(err)?;
    same(&r.compute_on(&all).map_err(err)?, &a.compute_on(&one).map_err(err)?, "rechunk by pieces", 0.0)?;
    rechunk_moves_the_least(mpi)?;
    rechunk_under_a_memory_limit(mpi)?;
    // A TSQR of 20 row blocks: each rank's leaves first, then the ranks.
    let x = RandomState::new(3).standard_normal::<f64>(&[400, 12], [20, 12]).map_err(err)?;
    let f = chunked_linalg::tsqr(&x, &chunked_linalg::TsqrOptions::default()).map_err(|e| e.to_string())?;
    let (q, r) = (&f.q, &f.r).compute_on(&all).map_err(err)?;
    let (q1, r1) = (&f.q, &f.r).compute_on(&one).map_err(err)?;
    same(&q, &q1, "tsqr q", 1e-12)?;
    same(&r, &r1, "tsqr r", 1e-12)
}

/// Computes `total` over the ranks (gathered on rank 0) and returns the bytes
/// every rank sent, summed, and the most the messages' own overhead can add
/// to a run's blocks: per message a 9-byte trailer, and in the progress
/// reports a 32-byte record of a block sent and a 24-byte header at most;
/// 72 bytes per task reported; closing messages.
fn sent_over_ranks(mpi: &Mpi, total: &chunked_array::Array<f64>) -> Result<(u64, u64), String> {
    use mpi::collective::SystemOperation;
    use mpi::traits::*;
    let scheduler = mpi.scheduler(Gather::Root, 0);
    total.compute_root(&Context::with_scheduler(scheduler.clone())).map_err(|e| e.to_string())?;
    let sent = scheduler.last_transfers();
    let mine = [sent.bytes, sent.messages, sent.tasks as u64];
    let mut all = [0u64; 3];
    mpi.world().all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
    let size = mpi.size() as u64;
    Ok((all[0], (9 + 32 + 24) * all[1] + 72 * all[2] + 64 * size * size))
}

/// A rechunk's bytes sent, summed over the ranks, against the least it must
/// move (computed from the grids' overlaps and the placement): no more than
/// the messages' own overhead above it (trailers, progress reports, the
/// closing messages, the scalar partial sums).
fn rechunk_moves_the_least(mpi: &Mpi) -> Result<(), String> {
    let err = |e: chunked_array::Error| e.to_string();
    let x = &RandomState::new(4).standard_normal::<f64>(&[512, 512], [64, 64]).map_err(err)? * 1.0;
    let r = x.rechunk([512, 24]).map_err(err)?;
    let total = r.sum(None).map_err(err)?;
    let (sent, overhead) = sent_over_ranks(mpi, &total)?;
    let g = Layer::task_graph(&[total.layer()]).map_err(err)?;
    let owner = place_tasks(&g, mpi.size());
    let mut assembler = vec![0; r.chunks().num_blocks()];
    for t in (0..g.len()).filter(|&t| g.layer_name(t) == "rechunk") {
        if g.consumers(t).iter().any(|&c| g.layer_name(c as usize) != "rechunk") {
            assembler[g.task_layer_block(t).1] = owner[t] as usize;
        }
    }
    let least = rechunk_least_bytes(x.chunks(), r.chunks(), 8, mpi.size(), |b| assembler[b]);
    if sent < least || sent > least + overhead {
        return Err(format!("the rechunk sent {sent} bytes; least {least}, overhead at most {overhead}"));
    }
    Ok(())
}

/// A matmul on the grid sends what its plan says and no more (the placement
/// test checks that the plan is each rank's bands less what it holds): the
/// bytes sent, summed over the ranks, against the plan's, within the
/// messages' own overhead.
fn matmul_sends_its_plan(mpi: &Mpi) -> Result<(), String> {
    let err = |e: chunked_array::Error| e.to_string();
    let a = &RandomState::new(6).standard_normal::<f64>(&[256, 256], [32, 32]).map_err(err)? * 1.0;
    let b = &RandomState::new(7).standard_normal::<f64>(&[256, 256], [32, 32]).map_err(err)? * 1.0;
    let total = a.matmul(&b).map_err(err)?.sum(None).map_err(err)?;
    let (sent, overhead) = sent_over_ranks(mpi, &total)?;
    let g = Layer::task_graph(&[total.layer()]).map_err(err)?;
    let planned: u64 = traffic(&g, mpi.size(), Deliver::Result, Gather::Root).iter().map(|r| r.bytes).sum();
    if planned < 256 * 256 * 8 || sent < planned || sent > planned + overhead {
        return Err(format!("the matmul sent {sent} bytes; planned {planned}, overhead at most {overhead}"));
    }
    Ok(())
}

/// A rechunk whose pieces arrive faster than they are assembled stays within
/// each rank's memory limit: what a rank holds (its blocks, the pieces it
/// makes for others, the pieces it receives) is more than the limit, so it
/// spills (about ten 32 kB pieces a rank here), and its peak stays within the
/// limit and one block.
fn rechunk_under_a_memory_limit(mpi: &Mpi) -> Result<(), String> {
    let err = |e: chunked_array::Error| e.to_string();
    let block = 64 * 1024 * 8;
    let limit = 2 * block + block / 2;
    let spill_dir = std::env::temp_dir().join(format!("chunked-scale-out-{}-{}", std::process::id(), mpi.rank()));
    std::fs::create_dir_all(&spill_dir).map_err(|e| e.to_string())?;
    let ctx = mpi.context_gather_all().with_memory_limit(limit).with_spill_dir(&spill_dir);
    // Row blocks of 64 x 1024 to column blocks of 1024 x 64: 16 pieces each.
    let x = &RandomState::new(5).standard_normal::<f64>(&[1024, 1024], [64, 1024]).map_err(err)? * 1.0;
    let r = x.rechunk([1024, 64]).map_err(err)?;
    let column_sums = r.sum(0).map_err(err)?;
    let (got, stats) = column_sums.compute_stats(&ctx).map_err(err)?;
    let _ = std::fs::remove_dir_all(&spill_dir);
    same(&got, &column_sums.compute_on(&Context::sync()).map_err(err)?, "rechunk under a memory limit", 1e-9)?;
    // Past the limit by at most a block: what is taken in before room is made.
    if stats.tiers.peak_bytes > limit + block {
        return Err(format!("held {} bytes at the peak over a limit of {limit}: {stats:?}", stats.tiers.peak_bytes));
    }
    Ok(())
}

/// Runs the checks on this rank; prints one line.
pub fn rank_scale_out() -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    match checks(&mpi) {
        Ok(()) => {
            println!("rank {}: scale-out checks passed", mpi.rank());
            ExitCode::SUCCESS
        }
        Err(why) => {
            println!("rank {}: FAILED scale-out checks: {why}", mpi.rank());
            ExitCode::FAILURE
        }
    }
}
