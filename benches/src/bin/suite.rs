//! chunked's side of the benchmark suite (`benches/python/suite.py` runs dask and
//! numpy on the same workloads and prints the table).
//!
//! `suite --list` names the workloads. `suite --workload NAME [--scale S]
//! [--repeat R]` runs one of them: one warm-up run, then R timed runs. It prints
//! one JSON line: the times, the peak RSS of this process (VmHWM), and the work
//! (bytes or flops) that sets its physical limit. Run each workload in its own
//! process so that the peak RSS is its own. `suite --limits` measures the
//! machine: streaming-read GB/s and faer gemm GFLOP/s.

use std::time::Instant;

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{ZarrWriteOptions, from_zarr};
use chunked_array::random::RandomState;
use chunked_array::{Array, Boundary, Context, Overlap, RechunkOptions};
use chunked_benches::{arg, vm_hwm_kib};
use chunked_linalg::{CompressedOptions, TsqrOptions, svd, svd_compressed, tsqr};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// One timed run of a workload.
type Run = Box<dyn FnMut() -> Res<()>>;

/// The workloads, in the order the table lists them.
const WORKLOADS: [&str; 21] = [
    "overhead",
    "random_sum",
    "elementwise_reduction",
    "rechunk",
    "take_scattered",
    "matmul",
    "stacked_matmul",
    "tril_sum",
    "argwhere",
    "vindex",
    "vindex_grid",
    "einsum_rowdot",
    "einsum_chain",
    "laplacian",
    "weighted_laplacian",
    "tsqr",
    "seed_svd",
    "svd_compressed",
    "zarr_write",
    "zarr_read",
    "out_of_core_sum",
];

/// Where the Zarr workloads write: one folder per process, removed at exit.
fn work_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("chunked-suite-{}", std::process::id()))
}

/// A side length scaled so that the data scales by `scale`.
fn side(n: f64, scale: f64) -> usize {
    ((n * scale.sqrt()) as usize).max(1)
}

/// A workload's kind of work ("bytes" or "flops"), its amount, and one run.
type Workload = (&'static str, f64, Run);

/// The workload's kind of work ("bytes" or "flops"), its amount, and one run.
fn setup(name: &str, scale: f64) -> Res<Workload> {
    for group in [array_workload, indexing_workload, linalg_io_workload] {
        if let Some(workload) = group(name, scale, Context::default())? {
            return Ok(workload);
        }
    }
    Err(format!("unknown workload {name}; --list names them").into())
}

/// Reductions, rechunk, matmul, take, triangles and selections.
fn array_workload(name: &str, scale: f64, ctx: Context) -> Res<Option<Workload>> {
    let rows = ((100_000.0 * scale) as usize).max(1000);
    Ok(Some(match name {
        "overhead" => {
            let n = ((1_000_000.0 * scale) as usize).max(1000);
            let x = Array::<f64>::ones(&[n], 100)?;
            let s = x.sum(None)?;
            ("tasks", s.num_tasks() as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "random_sum" => {
            let x: Array<f64> = RandomState::new(0).uniform(&[rows, 1000], [1000, 1000])?;
            let s = x.sum(None)?;
            ("bytes", (rows * 1000 * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "elementwise_reduction" => {
            let n = side(20_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            let s = (&x - &x.mean(0)?).pow(2.0)?.sum(None)?;
            ("bytes", (2 * n * n * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "rechunk" => {
            let n = side(20_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [n, 100])?;
            let s = (&x * 1.0).rechunk_with([100, n], &RechunkOptions::default())?.sum(None)?;
            // Read and written once each.
            ("bytes", (2 * n * n * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "matmul" => {
            let n = ((10_000.0 * scale.cbrt()) as usize).max(100);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            let s = x.matmul(&x)?.sum(None)?;
            ("flops", 2.0 * (n as f64).powi(3), Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "take_scattered" => {
            // Every row of a random (rows, 1000) array once, in a scattered
            // order (i * 7919 mod rows, a permutation); blocks of 1000 rows.
            let mut n = ((100_000.0 * scale) as usize).max(1000);
            while n.is_multiple_of(7919) {
                n += 1;
            }
            let idx: Vec<isize> = (0..n).map(|i| ((i * 7919) % n) as isize).collect();
            let x: Array<f64> = RandomState::new(0).uniform(&[n, 1000], [1000, 1000])?;
            let s = x.take(&idx, 0)?.sum(None)?;
            // Read and written once each.
            ("bytes", (2 * n * 1000 * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "stacked_matmul" => {
            // A stack of 500 x 500 matrices, 32 to a block, times itself.
            let b = ((256.0 * scale) as usize).max(1);
            let x: Array<f64> = RandomState::new(0).uniform(&[b, 500, 500], [32, 500, 500])?;
            let s = x.matmul(&x)?.sum(None)?;
            (
                "flops",
                2.0 * b as f64 * 500.0f64.powi(3),
                Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)),
            )
        }
        "tril_sum" => {
            // The lower triangle of a random matrix, summed: blocks above the
            // diagonal are never generated.
            let n = side(20_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            let s = x.tril(0)?.sum(None)?;
            ("bytes", (n * n * 8 / 2) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "argwhere" => {
            // Coordinates of the elements over 0.99 (1%) of a random (n, n/4)
            // array; the per-block counts are computed in the timed run.
            let n = side(20_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n / 4], [2000, n / 4])?;
            (
                "bytes",
                (n * n / 4 * 8) as f64,
                Box::new(move || x.gt(0.99)?.argwhere()?.compute_on(&ctx).map(drop).map_err(Into::into)),
            )
        }
        _ => return Ok(None),
    }))
}

/// Point-wise indexing, einsum and stencils.
fn indexing_workload(name: &str, scale: f64, ctx: Context) -> Res<Option<Workload>> {
    Ok(Some(match name {
        "vindex" => {
            // A million scattered points (p·7919 mod n, p·104729 mod n) of a
            // random n x n array, summed; the graph is built in the timed run.
            let n = side(10_000.0, scale);
            let points = ((1_000_000.0 * scale) as usize).max(1000);
            let rows: Vec<isize> = (0..points).map(|p| ((p * 7919) % n) as isize).collect();
            let cols: Vec<isize> = (0..points).map(|p| ((p * 104_729) % n) as isize).collect();
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            (
                "bytes",
                (n * n * 8) as f64,
                Box::new(move || x.vindex(&[&rows, &cols])?.sum(None)?.compute_on(&ctx).map(drop).map_err(Into::into)),
            )
        }
        "vindex_grid" => {
            // x[:, rows, cols] of a random (4, n, n) array with 2-d index
            // arrays of a million points (rows and cols as in vindex, laid out
            // 1000 x 1000): the indexed axes follow a sliced one, and the
            // result is (1000, 1000, 4). Summed; graph built in the timed run.
            let n = side(6_000.0, scale);
            let m = ((1000.0 * scale.sqrt()) as usize).max(32);
            let rows =
                ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[m, m]), |i| (((i[0] * m + i[1]) * 7919) % n) as isize);
            let cols = ndarray::ArrayD::from_shape_fn(ndarray::IxDyn(&[m, m]), |i| {
                (((i[0] * m + i[1]) * 104_729) % n) as isize
            });
            let x: Array<f64> = RandomState::new(0).uniform(&[4, n, n], [1, 2000, 2000])?;
            let run = move || -> Res<()> {
                let index = [chunked_array::Idx::FULL.into(), (&rows).into(), (&cols).into()];
                x.vindex_at(&index)?.sum(None)?.compute_on(&ctx).map(drop).map_err(Into::into)
            };
            ("bytes", (4 * n * n * 8) as f64, Box::new(run))
        }
        "einsum_rowdot" => {
            // Row-wise dot products "ij,ij->i" of a random (1e6, 100) array, summed.
            let m = ((1_000_000.0 * scale) as usize).max(10_000);
            let x: Array<f64> = RandomState::new(0).uniform(&[m, 100], [100_000, 100])?;
            let s = chunked_array::einsum("ij,ij->i", &[&x, &x])?.sum(None)?;
            ("bytes", (m * 100 * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "einsum_chain" => {
            // "ij,jk,k->i": two random (n, n) matrices and a vector. The
            // cheapest pair first (jk·k, then ij·j) needs only matrix-vector
            // products: memory-bound, where left to right is an n³ matmul.
            let n = side(8_000.0, scale);
            let a: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            let b: Array<f64> = RandomState::new(1).uniform(&[n, n], [2000, 2000])?;
            let v: Array<f64> = RandomState::new(2).uniform(&[n], [2000])?;
            let s = chunked_array::einsum("ij,jk,k->i", &[&a, &b, &v])?.sum(None)?;
            ("bytes", (2 * n * n * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "laplacian" => {
            // A five-point Laplacian through map_overlap (depth 1, nearest),
            // summed: every block extended by one row and column of halo.
            let n = side(10_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            let s = x.map_overlap(laplacian, &[1, 1], Boundary::Nearest)?.sum(None)?;
            ("bytes", (n * n * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        "weighted_laplacian" => {
            // The Laplacian times a per-column weight vector, through
            // map_overlap over both arrays: the vector's blocks (extended along
            // its one axis) broadcast against the matrix's inside the function.
            let n = side(10_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [2000, 2000])?;
            let w: Array<f64> = RandomState::new(1).uniform(&[n], [2000])?;
            let weighted = |v: &[ndarray::ArrayViewD<'_, f64>], _: &chunked_array::BlockInfo<'_>| {
                let mut l = laplacian(v[0].view());
                l *= &v[1];
                l
            };
            let s = chunked_array::map_overlap_arrays(weighted, &[&x, &w], &Overlap::new(&[1, 1], Boundary::Nearest))?
                .sum(None)?;
            ("bytes", (n * n * 8) as f64, Box::new(move || s.compute_on(&ctx).map(drop).map_err(Into::into)))
        }
        _ => return Ok(None),
    }))
}

/// Linear algebra, I/O and out-of-core work.
fn linalg_io_workload(name: &str, scale: f64, ctx: Context) -> Res<Option<Workload>> {
    let rows = ((100_000.0 * scale) as usize).max(1000);
    Ok(Some(match name {
        "tsqr" => {
            let m = ((1_000_000.0 * scale) as usize).max(10_000);
            let a: Array<f64> = RandomState::new(1).uniform(&[m, 100], [10_000, 100])?;
            let f = tsqr(&a, &TsqrOptions::default())?;
            let (q, r) = (f.q.clone(), f.r.clone());
            (
                "flops",
                4.0 * m as f64 * 100.0f64.powi(2),
                Box::new(move || chunked_array::Computable::compute_on((&q, &r), &ctx).map(drop).map_err(Into::into)),
            )
        }
        "seed_svd" => {
            let x: Array<f64> = RandomState::new(0).uniform(&[rows, 1000], [1000, 1000])?;
            let f = svd(&x)?;
            // The leaves' QRs and U = A·VΣ⁻¹: 2mn² each.
            (
                "flops",
                4.0 * rows as f64 * 1e6,
                Box::new(move || {
                    chunked_array::Computable::compute_on((&f.u, &f.s, &f.vt), &ctx).map(drop).map_err(Into::into)
                }),
            )
        }
        "svd_compressed" => {
            let a: Array<f64> = RandomState::new(2).uniform(&[rows, 1000], [10_000, 1000])?.persist()?;
            let f = svd_compressed(&a, 10, &CompressedOptions::default())?;
            // Two passes over A (sketch and projection) of 2mn(k+p) flops each.
            (
                "flops",
                4.0 * rows as f64 * 1000.0 * 20.0,
                Box::new(move || {
                    chunked_array::Computable::compute_on((&f.u, &f.s, &f.vt), &ctx).map(drop).map_err(Into::into)
                }),
            )
        }
        "zarr_write" | "zarr_read" => {
            let n = side(20_000.0, scale);
            let dir = work_dir();
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [1000, 1000])?;
            let opts = ZarrWriteOptions { mode: WriteMode::Overwrite, ..Default::default() };
            x.to_zarr(&dir, "x", &opts)?;
            let bytes = (n * n * 8) as f64;
            if name == "zarr_write" {
                ("bytes", bytes, Box::new(move || x.to_zarr(&dir, "x", &opts).map(drop).map_err(Into::into)))
            } else {
                let y = from_zarr::<f64>(&dir, "x")?.sum(None)?;
                ("bytes", bytes, Box::new(move || y.compute_on(&ctx).map(drop).map_err(Into::into)))
            }
        }
        "out_of_core_sum" => {
            // An array 4x the memory limit, summed through a rechunk (so it must spill).
            let n = side(8_000.0, scale);
            let x: Array<f64> = RandomState::new(0).uniform(&[n, n], [n, 100])?;
            let limit = n * n * 8 / 4;
            // Rechunk tasks sized to the limit (the planner does not see the context).
            let s = (&x * 1.0).rechunk_with([100, n], &RechunkOptions { block_size_limit: limit / 4 })?.sum(None)?;
            let limited = Context::default().with_memory_limit(limit);
            ("bytes", (4 * n * n * 8) as f64, Box::new(move || s.compute_on(&limited).map(drop).map_err(Into::into)))
        }
        _ => return Ok(None),
    }))
}

/// The five-point Laplacian of an extended block: 4·centre minus the four
/// neighbours on its interior, zero on its one-element rim (which map_overlap
/// trims). Row slices zipped, so the loop vectorizes.
fn laplacian(b: ndarray::ArrayViewD<'_, f64>) -> ndarray::ArrayD<f64> {
    let b = b.into_dimensionality::<ndarray::Ix2>().expect("a 2-d block");
    let (rows, cols) = b.dim();
    let mut out = ndarray::Array2::<f64>::zeros((rows, cols));
    let b = b.as_standard_layout();
    for r in 1..rows.saturating_sub(1) {
        let (up, mid, down) = (b.row(r - 1), b.row(r), b.row(r + 1));
        let (up, mid, down) =
            (up.as_slice().expect("C order"), mid.as_slice().expect("C order"), down.as_slice().expect("C order"));
        let o = &mut out.row_mut(r).into_slice().expect("C order")[1..cols - 1];
        for (j, o) in o.iter_mut().enumerate() {
            *o = 4.0 * mid[j + 1] - up[j + 1] - down[j + 1] - mid[j] - mid[j + 2];
        }
    }
    out.into_dyn()
}

fn main() -> Res<()> {
    if std::env::args().any(|a| a == "--list") {
        println!("{}", WORKLOADS.join(" "));
        return Ok(());
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if std::env::args().any(|a| a == "--limits") {
        let bw = chunked_benches::streaming_read_gbs(1 << 27, threads);
        let gemm = chunked_benches::faer_gemm_gflops(3000);
        println!("{{\"read_gbs\": {bw:.2}, \"gemm_gflops\": {gemm:.1}, \"threads\": {threads}}}");
        return Ok(());
    }
    let name = arg("--workload").ok_or("--workload NAME (or --list, --limits)")?;
    let scale: f64 = arg("--scale").map_or(Ok(1.0), |s| s.parse())?;
    let repeat: usize = arg("--repeat").map_or(Ok(3), |s| s.parse())?;
    let (kind, work, mut run) = setup(&name, scale)?;
    let mut timed = || -> Res<Vec<f64>> {
        run()?; // warm-up
        let mut times = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            chunked_array::runtime::release_memory();
            let t = Instant::now();
            run()?;
            times.push(t.elapsed().as_secs_f64());
        }
        Ok(times)
    };
    let times = timed();
    // The Zarr workloads' 3.2 GB stores would otherwise pile up in the temp folder.
    let _ = std::fs::remove_dir_all(work_dir());
    let times = times?;
    let list: Vec<String> = times.iter().map(|t| format!("{t:.4}")).collect();
    println!(
        "{{\"workload\": \"{name}\", \"times\": [{}], \"peak_rss_kib\": {}, \"work_kind\": \"{kind}\", \"work\": {work}}}",
        list.join(", "),
        vm_hwm_kib()
    );
    Ok(())
}
