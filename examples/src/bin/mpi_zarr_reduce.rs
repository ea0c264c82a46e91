//! An out-of-core reduction of a Zarr array as an MPI batch job.
//!
//! ```text
//! mpirun -np 4 target/release/mpi_zarr_reduce --input data.zarr [--array x] \
//!     [--make ROWS,COLS --chunks R,C] [--memory-limit 200M] [--spill-dir DIR] \
//!     [--dashboard ADDR] [--dashboard-linger SECONDS]
//! ```
//!
//! With `--make`, the ranks first write a random normal array (named by
//! `--array`, default `x`) of that shape
//! to the store together (each chunk from the rank that generates it). Then
//! every rank reads its share of the chunks, reduces them to partial sums and
//! moments, and only those partials travel: rank 0 prints each column's mean and
//! standard deviation summary and the total, with this rank's memory figures.
//! Each rank's memory stays within its limit however large the input is.

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::Computable;
use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{ZarrWriteOptions, from_zarr};
use chunked_array::random::RandomState;
use chunked_distributed::Mpi;

struct Options {
    input: std::path::PathBuf,
    array: String,
    make: Option<(usize, usize)>,
    chunks: (usize, usize),
    memory_limit: Option<usize>,
    spill_dir: Option<std::path::PathBuf>,
    dashboard: chunked_examples::DashboardFlags,
}

fn pair(flag: &str, v: &str) -> Result<(usize, usize), String> {
    let (a, b) = v.split_once(',').ok_or_else(|| format!("{flag} {v}: expected A,B"))?;
    let num = |x: &str| x.trim().parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
    Ok((num(a)?, num(b)?))
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        input: "x.zarr".into(),
        array: "x".into(),
        make: None,
        chunks: (10_000, 1000),
        memory_limit: None,
        spill_dir: None,
        dashboard: chunked_examples::DashboardFlags::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value (usage: mpi_zarr_reduce --input DIR [--array NAME] [--make ROWS,COLS --chunks R,C] [--memory-limit BYTES] [--spill-dir DIR] [--dashboard ADDR] [--dashboard-linger SECONDS])"))?;
        match flag.as_str() {
            _ if o.dashboard.take(&flag, &value)? => {}
            "--input" => o.input = value.into(),
            "--array" => o.array = value,
            "--make" => o.make = Some(pair(&flag, &value)?),
            "--chunks" => o.chunks = pair(&flag, &value)?,
            "--memory-limit" => {
                o.memory_limit = Some(
                    chunked_examples::parse_bytes(&value)
                        .ok_or_else(|| format!("--memory-limit {value}: expected bytes, e.g. 200M"))?,
                )
            }
            "--spill-dir" => o.spill_dir = Some(value.into()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn run(o: &Options, mpi: &Mpi) -> chunked_examples::JobResult {
    let mut ctx = mpi.context();
    if let Some(limit) = o.memory_limit {
        ctx = ctx.with_memory_limit(limit);
    }
    if let Some(dir) = &o.spill_dir {
        ctx = ctx.with_spill_dir(dir);
    }
    let ctx = o.dashboard.attach(ctx)?;
    if let Some((rows, cols)) = o.make {
        let start = Instant::now();
        let x = RandomState::new(1).standard_normal::<f64>(&[rows, cols], [o.chunks.0, o.chunks.1])?;
        let options = ZarrWriteOptions { mode: WriteMode::Overwrite, ..ZarrWriteOptions::default() };
        let report = x.to_zarr_on(&o.input, &o.array, &options, &ctx)?;
        println!(
            "rank {}: wrote {} chunks ({} MB) in {:.2} s",
            mpi.rank(),
            report.chunks_written,
            report.bytes_written / 1_000_000,
            start.elapsed().as_secs_f64()
        );
    }
    // Every rank waits for the store to be complete before reading it.
    mpi.barrier();
    let x = from_zarr::<f64>(&o.input, &o.array)?;
    let start = Instant::now();
    let (total, mean, std) = (&x.sum(None)?, &x.mean(0)?, &x.std(0, 1)?)
        .compute_root(&ctx)?
        .map_or((None, None, None), |(t, m, s)| (Some(t), Some(m), Some(s)));
    let secs = start.elapsed().as_secs_f64();
    let ranks = ctx.scheduler().processes();
    if let (Some(total), Some(mean), Some(std)) = (total, mean, std) {
        let gb = x.nbytes() as f64 / 1e9;
        println!("x = {x}");
        println!("sum = {:.6e}", total[[]]);
        let range = |a: &ndarray::ArrayD<f64>| {
            a.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)))
        };
        println!(
            "column means in [{:.4}, {:.4}], column stds in [{:.4}, {:.4}]",
            range(&mean).0,
            range(&mean).1,
            range(&std).0,
            range(&std).1
        );
        println!("time = {secs:.3} s over {ranks} ranks ({:.2} GB/s read and reduced)", gb / secs);
    }
    o.dashboard.linger(&ctx);
    Ok(())
}

fn main() -> ExitCode {
    chunked_examples::mpi_main(parse, run, "")
}
