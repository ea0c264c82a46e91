//! Checks of the layouts that only larger jobs take, run under `mpirun -np 8`
//! (oversubscribed): a matmul whose block products sit on a 2-D grid of
//! ranks, a rechunk through the common refinement, and a TSQR whose tree
//! reduces each rank's rows first, each against the same computation in one
//! process.

use std::process::ExitCode;

use chunked_array::custom::Layer;
use chunked_array::random::RandomState;
use chunked_array::{Computable, Context};
use chunked_distributed::Mpi;
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
    // Row blocks to column blocks: every piece crosses to its new block's rank.
    let r = a.rechunk([64, 3]).map_err(err)?;
    same(&r.compute_on(&all).map_err(err)?, &a.compute_on(&one).map_err(err)?, "rechunk by pieces", 0.0)?;
    // A TSQR of 20 row blocks: each rank's leaves first, then the ranks.
    let x = RandomState::new(3).standard_normal::<f64>(&[400, 12], [20, 12]).map_err(err)?;
    let f = chunked_linalg::tsqr(&x, &chunked_linalg::TsqrOptions::default()).map_err(|e| e.to_string())?;
    let (q, r) = (&f.q, &f.r).compute_on(&all).map_err(err)?;
    let (q1, r1) = (&f.q, &f.r).compute_on(&one).map_err(err)?;
    same(&q, &q1, "tsqr q", 1e-12)?;
    same(&r, &r1, "tsqr r", 1e-12)
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
