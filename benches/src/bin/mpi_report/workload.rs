//! The four workloads of the MPI report, each a few arrays computed together
//! with their results gathered on rank 0 (so that what travels is the
//! workload's own traffic), and the least each must move between ranks.

use chunked_array::Array;
use chunked_array::random::RandomState;
use chunked_array::runtime::TaskGraph;
use chunked_linalg::{TsqrOptions, tsqr};

/// What to run, on a `rows` x `cols` matrix of `chunk_rows` x `chunk_cols` blocks.
#[derive(Debug, Clone)]
pub struct Job {
    /// `tsqr`, `svd`, `rechunk` (to blocks of `chunk_cols` x `chunk_rows`) or
    /// `matmul` (the matrix times a second one of the transposed shape).
    pub workload: String,
    pub rows: usize,
    pub cols: usize,
    pub chunk_rows: usize,
    pub chunk_cols: usize,
}

impl Job {
    /// The input matrix.
    pub fn input(&self, seed: u64) -> Array<f64> {
        let x = RandomState::new(seed)
            .standard_normal(&[self.rows, self.cols], [self.chunk_rows, self.chunk_cols])
            .expect("matrix");
        // Not a source for the data-moving workloads (a source's rechunk
        // regenerates it where needed, moving nothing).
        if matches!(self.workload.as_str(), "rechunk" | "matmul") { &x * 1.0 } else { x }
    }

    /// The arrays to compute, built now (TSQR trees take the process count
    /// of this moment, [`chunked_array::runtime::process_count`]).
    pub fn outputs(&self, x: &Array<f64>) -> Vec<Array<f64>> {
        let sum0 = |a: &Array<f64>| a.sum(0).expect("sum");
        match self.workload.as_str() {
            "tsqr" => {
                let f = tsqr(x, &TsqrOptions::default()).expect("tsqr");
                vec![sum0(&f.q), f.r]
            }
            "svd" => {
                let svd = chunked_linalg::svd(x).expect("svd");
                vec![sum0(&svd.u), svd.s, svd.vt]
            }
            "rechunk" => vec![sum0(&x.rechunk([self.chunk_cols, self.chunk_rows]).expect("rechunk"))],
            "matmul" => {
                let y = Job { rows: self.cols, cols: self.rows, ..self.clone() }.input(2);
                vec![sum0(&x.matmul(&y).expect("matmul"))]
            }
            other => panic!("--workload {other}: expected tsqr, svd, rechunk or matmul"),
        }
    }

    /// Flops of the workload (for GFLOP/s): 4mn² for a TSQR or SVD on the
    /// direct path, 2mnm for the matmul, none for the rechunk.
    pub fn flops(&self) -> f64 {
        let (m, n) = (self.rows as f64, self.cols as f64);
        match self.workload.as_str() {
            "tsqr" | "svd" => 4.0 * m * n * n,
            "matmul" => 2.0 * m * n * m,
            _ => 0.0,
        }
    }

    /// The least this workload must move between `active` ranks, in bytes:
    /// for a TSQR or SVD one n x n R up and one n x n matrix down per rank
    /// beyond the first; for the others `None` (the rechunk's depends on the
    /// placement: see [`chunked_distributed::rechunk_least_bytes`]).
    pub fn lower_bound(&self, active: usize) -> Option<f64> {
        let n = self.cols as f64;
        matches!(self.workload.as_str(), "tsqr" | "svd").then(|| 2.0 * active.saturating_sub(1) as f64 * n * n * 8.0)
    }
}

/// The task of `graph` that assembles each block of the rechunked array (the
/// input of the sum), by block number.
pub fn rechunk_tasks(graph: &TaskGraph, blocks: usize) -> Vec<usize> {
    let mut tasks = vec![usize::MAX; blocks];
    for t in 0..graph.len() {
        if graph.layer_name(t) == "rechunk"
            && graph.consumers(t).iter().any(|&c| graph.layer_name(c as usize) != "rechunk")
        {
            let (_, b) = graph.task_layer_block(t);
            if b < blocks {
                tasks[b] = t;
            }
        }
    }
    tasks
}
