//! A resumable pipeline writing Zarr, as an MPI batch job.
//!
//! ```text
//! mpirun -np 4 target/release/mpi_pipeline --output out.zarr [--rows N --cols N --chunks R,C] [--fail-at BLOCK]
//!     [--dashboard ADDR] [--dashboard-linger SECONDS]
//! ```
//!
//! Generates a random matrix, standardizes each column (a reduction over all
//! ranks, then an elementwise pass) and stores the result to Zarr, each chunk
//! from the rank that computes it. The store resumes: when a run stops part
//! way (here `--fail-at BLOCK` makes that row block's task fail, as a crash
//! would), running the same command again verifies the chunks already written,
//! skips them and writes only the rest. Each rank prints what it wrote.

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::ZarrWriteOptions;
use chunked_array::random::RandomState;
use chunked_distributed::Mpi;

struct Options {
    output: std::path::PathBuf,
    rows: usize,
    cols: usize,
    chunks: (usize, usize),
    fail_at: Option<usize>,
    dashboard: chunked_examples::DashboardFlags,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        output: "pipeline.zarr".into(),
        rows: 200_000,
        cols: 500,
        chunks: (10_000, 500),
        fail_at: None,
        dashboard: chunked_examples::DashboardFlags::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value (usage: mpi_pipeline --output DIR [--rows N] [--cols N] [--chunks R,C] [--fail-at BLOCK] [--dashboard ADDR] [--dashboard-linger SECONDS])"))?;
        let num = |v: &str| v.trim().parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            _ if o.dashboard.take(&flag, &value)? => {}
            "--output" => o.output = value.into(),
            "--rows" => o.rows = num(&value)?,
            "--cols" => o.cols = num(&value)?,
            "--chunks" => {
                let (r, c) = value.split_once(',').ok_or_else(|| format!("--chunks {value}: expected R,C"))?;
                o.chunks = (num(r)?, num(c)?);
            }
            "--fail-at" => o.fail_at = Some(num(&value)?),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn run(o: &Options, mpi: &Mpi) -> chunked_examples::JobResult {
    let ctx = o.dashboard.attach(mpi.context())?;
    let x = RandomState::new(7).normal::<f64>(3.0, 2.0, &[o.rows, o.cols], [o.chunks.0, o.chunks.1])?;
    let standardized = &(&x - &x.mean(0)?) / &x.std(0, 0)?;
    let fail_at = o.fail_at;
    let y = standardized.map_blocks(
        move |block, info| {
            if Some(info.index[0]) == fail_at {
                panic!("simulated failure in row block {}", info.index[0]);
            }
            block.to_owned()
        },
        None,
    )?;
    let start = Instant::now();
    let options = ZarrWriteOptions { mode: WriteMode::Resume, ..ZarrWriteOptions::default() };
    let report = y.to_zarr_on(&o.output, "standardized", &options, &ctx)?;
    println!(
        "rank {}: wrote {} chunks ({:.1} MB), {} already complete were skipped, in {:.2} s",
        mpi.rank(),
        report.chunks_written,
        report.bytes_written as f64 / 1e6,
        report.chunks_skipped,
        start.elapsed().as_secs_f64()
    );
    o.dashboard.linger(&ctx);
    Ok(())
}

fn main() -> ExitCode {
    chunked_examples::mpi_main(parse, run, " (run the same command again to resume)")
}
