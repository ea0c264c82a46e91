//! Seed 001's notebook ("Dask Overview") cell by cell: a GPU cluster with a
//! device memory limit, the SVD of a random matrix with `persist` and
//! `u[:5, :5]`, the same on a matrix three times larger with spilling, and the
//! 1225 least-squares fits the notebook runs with `dask.delayed`. The
//! dataframe cells (dask_cudf, `map_partitions`) have no counterpart: chunked
//! holds arrays only.
//!
//! Options: `--rows N` (100000) `--big-rows N` (300000) `--cols N` (1000)
//! `--chunk N` (1000) `--ols-rows N` (1000000) `--features N` (50) `--seed S`
//! (12) `--device-memory-limit BYTES` (4GiB, dask's units) `--device
//! auto|emulated`: `auto` (the default) puts the arrays on every visible CUDA
//! device, or keeps them in host memory where there is none; `emulated` puts
//! them on an emulated device (host memory behind the device interface), where
//! the device memory limit and its spilling apply without a GPU.

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::device::Device;
use chunked_array::diagnostics::Profiler;
use chunked_array::ndarray::{Array1, Array2, Ix1, Ix2};
use chunked_array::random::RandomState;
use chunked_array::runtime::TierEventKind;
use chunked_array::{Array, Context, compute, concatenate, parse_bytes, s};
use chunked_examples::{JobResult, main_with, solve3};

struct Options {
    rows: usize,
    big_rows: usize,
    cols: usize,
    chunk: usize,
    ols_rows: usize,
    features: usize,
    seed: u64,
    device_memory_limit: usize,
    emulated: bool,
}

const USAGE: &str = "usage: notebook_001 [--rows N] [--big-rows N] [--cols N] [--chunk N] [--ols-rows N] [--features N] [--seed S] [--device-memory-limit BYTES] [--device auto|emulated]";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        rows: 100_000,
        big_rows: 300_000,
        cols: 1000,
        chunk: 1000,
        ols_rows: 1_000_000,
        features: 50,
        seed: 12,
        device_memory_limit: 4 << 30,
        emulated: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        if flag == "--help" || flag == "-h" {
            return Err(USAGE.into());
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let num = || value.parse::<usize>().map_err(|e| format!("{flag} {value}: {e}"));
        match flag.as_str() {
            "--rows" => o.rows = num()?,
            "--big-rows" => o.big_rows = num()?,
            "--cols" => o.cols = num()?,
            "--chunk" => o.chunk = num()?,
            "--ols-rows" => o.ols_rows = num()?,
            "--features" => o.features = num()?,
            "--seed" => o.seed = num()? as u64,
            "--device-memory-limit" => o.device_memory_limit = parse_bytes(&value).map_err(|e| e.to_string())?,
            "--device" => {
                o.emulated = match value.as_str() {
                    "auto" => false,
                    "emulated" => true,
                    other => return Err(format!("--device {other}: expected auto or emulated")),
                }
            }
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    if o.features < 2 {
        return Err(format!("--features {}: the fits take pairs of features, so at least 2", o.features));
    }
    Ok(o)
}

fn main() -> ExitCode {
    main_with(parse, run)
}

fn run(o: &Options) -> JobResult {
    // In [1]: cluster = LocalCUDACluster(CUDA_VISIBLE_DEVICES="0,3",
    //                                    device_memory_limit=parse_bytes("4GiB"), rmm_pool_size=...)
    // One worker per visible GPU is one device per visible GPU here; the pool
    // (rmm_pool_size, In [2]'s allocator) has no counterpart yet.
    let gpus = if o.emulated {
        // Host memory stands in for the device; only the limit below bounds it.
        vec![Device::emulated(chunked_array::runtime::physical_memory().map_or(usize::MAX, |b| b as usize))]
    } else {
        Device::visible().unwrap_or_default()
    };
    let names: Vec<String> = gpus.iter().map(Device::describe).collect();
    println!(
        "In [1]: {} device(s){}",
        gpus.len(),
        if names.is_empty() { ": host memory".into() } else { format!(": {}", names.join(", ")) }
    );
    // The profiler records every block moved between memory tiers (the
    // dashboard's spill counts; a live dashboard is not there yet).
    let profiler = Profiler::new();
    let ctx = Context::default().with_device_memory_limit(o.device_memory_limit).with_profiler(&profiler);

    random_svd(o, &gpus, &ctx, &profiler, o.rows, "In [4]-[9]")?;
    random_svd(o, &gpus, &ctx, &profiler, o.big_rows, "In [10]-[14]")?;
    println!("In [15]-[22]: dask_cudf dataframes: no counterpart (chunked holds arrays)");
    least_squares_fits(o)
}

/// Cells 4-9 (and 10-14 with more rows): a random matrix persisted on
/// the devices, its SVD, `u` persisted, `u[:5, :5]`.
fn random_svd(o: &Options, gpus: &[Device], ctx: &Context, profiler: &Profiler, rows: usize, cells: &str) -> JobResult {
    let start = Instant::now();
    // In [4]: rs = da.random.RandomState(RandomState=cp.random.RandomState, seed=12)
    //         x = rs.random((100000, 1000), chunks=(1000, 1000)); x = x.persist()
    let x = RandomState::new(o.seed).on_devices(gpus).uniform::<f64>(&[rows, o.cols], [o.chunk, o.chunk])?;
    let x = x.persist_on(ctx)?;
    println!("{cells}\nx = {x}"); // In [5]
    // In [6]: u, s, v = da.linalg.svd(x)
    let svd = chunked_linalg::svd(&x)?;
    println!("u = {}", svd.u); // In [7]: lazy, nothing has run
    // In [8]: u, s, v = dask.persist(u, s, v); wait(u)
    let moves_before = profiler.tier_marks().len();
    let u = svd.u.persist_on(ctx)?;
    let marks = profiler.tier_marks();
    let spills = marks[moves_before..].iter().filter(|m| m.kind == TierEventKind::DeviceSpill).count();
    // In [9]: u[:5, :5].compute()
    let corner = u.slice(s![..5, ..5])?.compute_as::<Ix2>()?;
    println!("u[:5, :5] =\n{corner:10.3e}");
    // Every column of u has unit norm.
    let norms = u.pow(2.0)?.sum(Some(0))?.compute_on(ctx)?;
    let worst = norms.iter().map(|n| (n - 1.0).abs()).fold(0.0, f64::max);
    println!("largest |column norm - 1| ~ {worst:.1e}; device blocks spilled while persisting u: {spills}");
    println!("{cells} took {:.2} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// Cells 23-31: one least-squares fit `y ~ x_i + x_j + 1` per pair of the
/// feature columns (1225 fits of 50 features). dask runs one delayed task per
/// fit, each reading the whole frame; here one chunked pass computes the
/// Gram matrix `[X 1]ᵀ[X 1]`, after which every fit is a 3 x 3 solve of the
/// normal equations.
fn least_squares_fits(o: &Options) -> JobResult {
    let start = Instant::now();
    let f = o.features;
    // In [24]: df = DataFrame({f"x{i}": randn(nrows) for i in range(50)}); df["y"] = randn(nrows)
    let chunk_rows = (o.chunk * o.chunk / (f + 1)).max(1);
    let data = RandomState::new(o.seed).standard_normal::<f64>(&[o.ols_rows, f + 1], [chunk_rows, f + 1])?;
    let gram = data.t().matmul(&data)?;
    let sums = data.sum(Some(0))?;
    let (gram, sums) = compute((&gram, &sums))?;
    let gram = gram.into_dimensionality::<Ix2>()?;
    let sums = sums.into_dimensionality::<Ix1>()?;
    // In [25]-[31]: combinations of the features, fit_ols per pair, dask.compute(*results)
    let mut fits = Vec::with_capacity(f * (f - 1) / 2);
    for i in 0..f {
        for j in i + 1..f {
            fits.push(((i, j), fit_pair(&gram, &sums, o.ols_rows as f64, i, j, f)?));
        }
    }
    println!("In [23]-[31]: {} fits in {:.2} s", fits.len(), start.elapsed().as_secs_f64());
    for ((i, j), coef) in fits.iter().take(10) {
        println!("(x{i}, x{j}): coef [{:+.3e}, {:+.3e}], intercept {:+.3e}", coef[0], coef[1], coef[2]);
    }
    // An independent check of the first fit: least squares on its design matrix.
    let (i, j) = fits[0].0;
    let design = concatenate(
        &[&data.slice(s![.., i..=i])?, &data.slice(s![.., j..=j])?, &Array::ones(&[o.ols_rows, 1], [chunk_rows, 1])?],
        1,
    )?;
    let direct = chunked_linalg::lstsq(&design, &data.slice(s![.., f])?, None)?.x.compute_as::<Ix1>()?;
    let gap = direct.iter().zip(&fits[0].1).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    println!("first fit against lstsq on its design matrix: largest difference ~ {gap:.1e}");
    Ok(())
}

/// The coefficients of `y ~ x_i + x_j + 1` from the Gram matrix of `[X y]`
/// and its column sums (`y` is column `y`), by the normal equations.
fn fit_pair(gram: &Array2<f64>, sums: &Array1<f64>, n: f64, i: usize, j: usize, y: usize) -> Result<[f64; 3], String> {
    let a = [[gram[[i, i]], gram[[i, j]], sums[i]], [gram[[j, i]], gram[[j, j]], sums[j]], [sums[i], sums[j], n]];
    let b = [gram[[i, y]], gram[[j, y]], sums[y]];
    solve3(a, b).ok_or_else(|| format!("the design matrix of (x{i}, x{j}) is singular"))
}
