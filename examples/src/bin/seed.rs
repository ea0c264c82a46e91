//! The main job: the seeds' random matrix and its SVD.
//!
//! Generates a random (100000, 1000) matrix in (1000, 1000) blocks (the seeds'
//! `da.random.random((100000, 1000), chunks=(1000, 1000))`), takes its thin SVD
//! by direct TSQR (`da.linalg.svd`), and prints the largest singular values,
//! `u[:5, :5]`, the reconstruction and orthogonality errors and the time, with a
//! progress bar on a terminal.
//!
//! Options: `--rows N --cols N --chunks R,C --seed S --scheduler threads|sync|mpi
//! --threads N --profile FILE.html --progress --memory-limit BYTES[K|M|G]
//! --spill-dir DIR --dashboard ADDR --dashboard-linger SECONDS` (a memory limit
//! spills blocks to disk past it; `--dashboard 8787` serves a live dashboard
//! on http://127.0.0.1:8787/ while the job runs).
//!
//! As an MPI batch job (built with `--features mpi`):
//! `mpirun -np 4 target/release/seed --scheduler mpi`. Every rank generates and
//! factors its share of the row blocks; only R factors travel; rank 0 gathers
//! the result and prints (the memory limit is then per rank).

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::diagnostics::{Profiler, Progress};
use chunked_array::random::RandomState;
use chunked_array::{Array, Computable, Context};
use chunked_examples::{DashboardFlags, MatrixOptions, SchedulerChoice};
use ndarray::{Axis, Ix1, Ix2, s};

struct Options {
    matrix: MatrixOptions,
    scheduler: SchedulerChoice,
    threads: usize,
    profile: Option<std::path::PathBuf>,
    progress: bool,
    memory_limit: Option<usize>,
    spill_dir: Option<std::path::PathBuf>,
    dashboard: DashboardFlags,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        matrix: MatrixOptions { rows: 100_000, cols: 1000, chunks: (1000, 1000), seed: 42 },
        scheduler: SchedulerChoice::Threads,
        threads: 0,
        profile: None,
        progress: false,
        memory_limit: None,
        spill_dir: None,
        dashboard: DashboardFlags::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err("usage: seed [--rows N] [--cols N] [--chunks R,C] [--seed S] [--scheduler threads|sync|mpi] [--threads N] [--profile FILE.html] [--progress] [--memory-limit BYTES[K|M|G]] [--spill-dir DIR] [--dashboard ADDR] [--dashboard-linger SECONDS]".into());
        }
        if flag == "--progress" {
            o.progress = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            _ if o.matrix.take(&flag, &value)? => {}
            _ if o.dashboard.take(&flag, &value)? => {}
            "--scheduler" => o.scheduler = SchedulerChoice::parse(&value)?,
            "--threads" => o.threads = num(&value)?,
            "--profile" => o.profile = Some(value.into()),
            "--memory-limit" => {
                o.memory_limit = Some(
                    chunked_examples::parse_bytes(&value)
                        .ok_or_else(|| format!("--memory-limit {value}: expected bytes, e.g. 200M or 4G"))?,
                )
            }
            "--spill-dir" => o.spill_dir = Some(value.into()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn run(o: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let (mut ctx, root, _mpi) = o.scheduler.context(o.threads)?;
    if let Some(limit) = o.memory_limit {
        ctx = ctx.with_memory_limit(limit);
    }
    if let Some(dir) = &o.spill_dir {
        ctx = ctx.with_spill_dir(dir);
    }
    ctx = ctx.with_progress(if o.progress { Progress::Always } else { Progress::Auto });
    let profiler = Profiler::new();
    if o.profile.is_some() {
        ctx = ctx.with_profiler(&profiler);
    }
    ctx = o.dashboard.attach(ctx)?;
    let x: Array<f64> = RandomState::new(o.matrix.seed)
        .uniform(&[o.matrix.rows, o.matrix.cols], [o.matrix.chunks.0, o.matrix.chunks.1])?;
    let svd = chunked_linalg::svd(&x)?;
    if root {
        println!("x = {x}");
        println!("u = {}", svd.u);
    }
    let start = Instant::now();
    // Under MPI the other ranks compute their share and stop here.
    let Some((u, s, vt)) = (&svd.u, &svd.s, &svd.vt).compute_root(&ctx)? else {
        // Under MPI rank 0's profile holds every rank's tasks; the other ranks
        // write their own beside it, FILE.rank<r>.html.
        if let Some(path) = &o.profile {
            let mine = path.with_extension(format!("rank{}.html", ctx.scheduler().rank()));
            profiler.write_html(&mine, &format!("chunked: seed SVD, rank {}", ctx.scheduler().rank()))?;
        }
        return Ok(());
    };
    let secs = start.elapsed().as_secs_f64();
    let u = u.into_dimensionality::<Ix2>()?;
    let vt = vt.into_dimensionality::<Ix2>()?;
    let s = s.into_dimensionality::<Ix1>()?;

    let top: Vec<String> = s.iter().take(6).map(|v| format!("{v:.6}")).collect();
    println!("singular values = [{}, ...] ({} of them)", top.join(", "), s.len());
    println!("u[:5, :5] =");
    for row in u.slice(s![..5.min(u.nrows()), ..5.min(u.ncols())]).rows() {
        println!("  [{}]", row.iter().map(|v| format!("{v:+.6e}")).collect::<Vec<_>>().join(", "));
    }
    // Errors measured on 16 Gaussian probes (the full products would cost as much
    // as the SVD): ||(A - U S Vᵀ) P|| / ||A P|| and ||(Uᵀ U - I) Q|| / ||Q||.
    let check = Instant::now();
    let probes = 16;
    let p = RandomState::new(o.matrix.seed)
        .with_stream(1)
        .standard_normal::<f64>(&[o.matrix.cols, probes], [o.matrix.chunks.1, probes])?;
    let ap = x.matmul(&p)?.compute_on(&Context::threads(o.threads))?.into_dimensionality::<Ix2>()?;
    let p = p.compute()?.into_dimensionality::<Ix2>()?;
    let usvp = u.dot(&(&vt.dot(&p) * &s.view().insert_axis(Axis(1))));
    let recon = fro(&(&ap - &usvp)) / fro(&ap);
    let q = RandomState::new(o.matrix.seed)
        .with_stream(2)
        .standard_normal::<f64>(&[s.len(), probes], [s.len().max(1), probes])?
        .compute()?
        .into_dimensionality::<Ix2>()?;
    let orth = fro(&(u.t().dot(&u.dot(&q)) - &q)) / fro(&q);
    println!("reconstruction error ||A - U S Vt|| / ||A|| ~ {recon:.3e}   (16 random probes)");
    println!("orthogonality error  ||Ut U - I||          ~ {orth:.3e}   (16 random probes)");
    // The leaves' QRs (2mn²) and U = A·VΣ⁻¹ (2mn²), the well-conditioned path.
    let gflop = 4.0 * o.matrix.rows as f64 * (o.matrix.cols as f64).powi(2) / 1e9;
    let on = match ctx.scheduler().processes() {
        1 => ctx.scheduler().name().to_string(),
        n => format!("{} ({n} ranks)", ctx.scheduler().name()),
    };
    println!(
        "time = {secs:.3} s for the SVD on {on} ({:.0} GFLOP/s counting 4mn^2 flops); checks {:.2} s",
        gflop / secs,
        check.elapsed().as_secs_f64()
    );
    println!("{}", chunked_array::kernels::describe());
    if let Some(path) = &o.profile {
        profiler.write_html(path, "chunked: seed SVD")?;
        println!("profile = {} ({} tasks)", path.display(), profiler.spans().len());
    }
    o.dashboard.linger(&ctx);
    Ok(())
}

fn fro(a: &ndarray::Array2<f64>) -> f64 {
    a.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn main() -> ExitCode {
    chunked_examples::main_with(parse, run)
}
