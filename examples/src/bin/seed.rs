//! The main job: the seeds' random matrix, reduced.
//!
//! Generates a random (100000, 1000) matrix in (1000, 1000) blocks (the seeds'
//! `da.random.random((100000, 1000), chunks=(1000, 1000))`), then computes its
//! statistics in one pass that shares the random blocks between all outputs, and
//! prints the results and the time. (The linear-algebra issue turns this into the
//! seeds' SVD.)
//!
//! Options: `--rows N --cols N --chunks R,C --seed S --scheduler threads|sync
//! --threads N --profile FILE.html --progress`.

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::random::RandomState;
use chunked_array::diagnostics::{Profiler, Progress};
use chunked_array::{Array, Computable, Context};

struct Options {
    rows: usize,
    cols: usize,
    chunks: (usize, usize),
    seed: u64,
    sync: bool,
    threads: usize,
    profile: Option<std::path::PathBuf>,
    progress: bool,
}

fn parse() -> Result<Options, String> {
    let mut o = Options { rows: 100_000, cols: 1000, chunks: (1000, 1000), seed: 42, sync: false, threads: 0, profile: None, progress: false };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err("usage: seed [--rows N] [--cols N] [--chunks R,C] [--seed S] [--scheduler threads|sync] [--threads N] [--profile FILE.html] [--progress]".into());
        }
        if flag == "--progress" {
            o.progress = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--rows" => o.rows = num(&value)?,
            "--cols" => o.cols = num(&value)?,
            "--chunks" => {
                let (r, c) = value.split_once(',').ok_or_else(|| format!("--chunks {value}: expected R,C"))?;
                o.chunks = (num(r)?, num(c)?);
            }
            "--seed" => o.seed = value.parse().map_err(|e| format!("--seed {value}: {e}"))?,
            "--scheduler" => match value.as_str() {
                "sync" => o.sync = true,
                "threads" => o.sync = false,
                other => return Err(format!("--scheduler {other}: expected threads or sync")),
            },
            "--threads" => o.threads = num(&value)?,
            "--profile" => o.profile = Some(value.into()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn run(o: &Options) -> chunked_array::Result<()> {
    let mut ctx = if o.sync { Context::sync() } else { Context::threads(o.threads) };
    if o.progress {
        ctx = ctx.with_progress(Progress::Always);
    }
    let profiler = Profiler::new();
    if o.profile.is_some() {
        ctx = ctx.with_profiler(&profiler);
    }
    let x: Array<f64> = RandomState::new(o.seed).uniform(&[o.rows, o.cols], [o.chunks.0, o.chunks.1])?;
    println!("x = {x}");
    let start = Instant::now();
    let sum = x.sum(None)?;
    let mean = x.mean(None)?;
    let std = x.std(None, 0)?;
    let min = x.min(None)?;
    let max = x.max(None)?;
    let col_means = x.mean(0)?;
    let (sum, mean, std, min, max, col_means) = (&sum, &mean, &std, &min, &max, &col_means).compute_with(&ctx)?;
    let secs = start.elapsed().as_secs_f64();
    let head: Vec<String> = col_means.iter().take(5).map(|v| format!("{v:.6}")).collect();
    println!("sum        = {:.6}", sum[[]]);
    println!("mean       = {:.8}   (uniform on [0, 1): 0.5)", mean[[]]);
    println!("std        = {:.8}   (sqrt(1/12) = {:.8})", std[[]], (1.0f64 / 12.0).sqrt());
    println!("min, max   = {:.3e}, {:.12}", min[[]], max[[]]);
    println!("col means  = [{}, ...]", head.join(", "));
    let gb = x.nbytes() as f64 / 1e9;
    println!("time       = {secs:.3} s on {} ({gb:.2} GB generated and reduced, {:.2} GB/s)", ctx.scheduler().name(), gb / secs);
    if let Some(path) = &o.profile {
        profiler.write_html(path, "chunked: seed job")?;
        println!("profile    = {} ({} tasks)", path.display(), profiler.spans().len());
    }
    Ok(())
}

fn main() -> ExitCode {
    let o = match parse() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
