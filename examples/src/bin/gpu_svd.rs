//! The seeds' larger-than-GPU-memory workflow: a random (300000, 1000) matrix
//! made on the GPU, a device memory limit well below its 2.4 GB, and its SVD,
//! with the spilling between device, host and disk shown in the statistics
//! (dask-cuda's `LocalCUDACluster(device_memory_limit=...)` with
//! `da.random.RandomState(RandomState=cupy.random.RandomState)`).
//!
//! By default the matrix is centered first (a PCA): centering holds every
//! block until the column means are known, so the device holds the whole
//! matrix unless it spills, which is what makes the job larger than the
//! device's memory. `--no-center` takes the plain SVD, whose blocks are
//! consumed as they are made.
//!
//! Options: `--rows N --cols N --chunks R,C --seed S --device auto|cuda|all|emulated
//! --device-memory-limit BYTES[K|M|G] --memory-limit BYTES --spill-dir DIR
//! --threads N --no-center --dashboard ADDR --dashboard-linger SECONDS`
//! (`--dashboard 8787`: the spills live on http://127.0.0.1:8787/). With `auto` (the default) the first visible CUDA
//! device is used, or an emulated device (host memory) where there is none;
//! `all` spreads the blocks over every visible GPU (`CUDA_VISIBLE_DEVICES`
//! applies), one device memory limit each, like `LocalCUDACluster`.

use std::process::ExitCode;
use std::time::Instant;

use chunked_array::device::Device;
use chunked_array::random::RandomState;
use chunked_array::{Array, Context};
use chunked_examples::{DashboardFlags, MatrixOptions, parse_bytes};

struct Options {
    matrix: MatrixOptions,
    device: String,
    device_memory_limit: usize,
    memory_limit: Option<usize>,
    spill_dir: Option<std::path::PathBuf>,
    threads: usize,
    center: bool,
    dashboard: DashboardFlags,
}

const USAGE: &str = "usage: gpu_svd [--rows N] [--cols N] [--chunks R,C] [--seed S] [--device auto|cuda|all|emulated] [--device-memory-limit BYTES] [--memory-limit BYTES] [--spill-dir DIR] [--threads N] [--no-center] [--dashboard ADDR] [--dashboard-linger SECONDS]";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        matrix: MatrixOptions { rows: 300_000, cols: 1000, chunks: (1000, 1000), seed: 12 },
        device: "auto".into(),
        device_memory_limit: 1 << 30,
        memory_limit: None,
        spill_dir: None,
        threads: 0,
        center: true,
        dashboard: DashboardFlags::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--help" | "-h" => return Err(USAGE.into()),
            "--no-center" => {
                o.center = false;
                continue;
            }
            _ => {}
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        let bytes = |v: &str| parse_bytes(v).ok_or_else(|| format!("{flag} {v}: expected bytes, e.g. 512M or 1G"));
        match flag.as_str() {
            _ if o.matrix.take(&flag, &value)? => {}
            _ if o.dashboard.take(&flag, &value)? => {}
            "--device" => match value.as_str() {
                "auto" | "cuda" | "all" | "emulated" => o.device = value,
                other => return Err(format!("--device {other}: expected auto, cuda, all or emulated")),
            },
            "--device-memory-limit" => o.device_memory_limit = bytes(&value)?,
            "--memory-limit" => o.memory_limit = Some(bytes(&value)?),
            "--spill-dir" => o.spill_dir = Some(value.into()),
            "--threads" => o.threads = num(&value)?,
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    Ok(o)
}

/// The devices `--device` asks for; an emulated one is as large as host memory.
fn devices(o: &Options) -> Result<Vec<Device>, Box<dyn std::error::Error>> {
    let emulated = || Device::emulated(chunked_array::runtime::physical_memory().unwrap_or(u64::MAX) as usize);
    Ok(match o.device.as_str() {
        "cuda" => vec![Device::cuda(0)?],
        "all" => Device::visible()?,
        "emulated" => vec![emulated()],
        _ => vec![Device::cuda(0).unwrap_or_else(|e| {
            println!("no CUDA device ({e}): using an emulated device");
            emulated()
        })],
    })
}

fn run(o: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let devices = devices(o)?;
    let mut ctx = Context::threads(o.threads).with_device_memory_limit(o.device_memory_limit);
    if let Some(limit) = o.memory_limit {
        ctx = ctx.with_memory_limit(limit);
    }
    if let Some(dir) = &o.spill_dir {
        ctx = ctx.with_spill_dir(dir);
    }
    let ctx = o.dashboard.attach(ctx)?;
    let x: Array<f64> = RandomState::new(o.matrix.seed)
        .on_devices(&devices)
        .uniform(&[o.matrix.rows, o.matrix.cols], [o.matrix.chunks.0, o.matrix.chunks.1])?;
    let a = if o.center { &x - &x.mean(0)? } else { x.clone() };
    let svd = chunked_linalg::svd(&a)?;
    println!("device = {}", devices.iter().map(Device::describe).collect::<Vec<_>>().join(", "));
    println!(
        "x = {x} ({:.1} MB), device memory limit {:.1} MB",
        (o.matrix.rows * o.matrix.cols * 8) as f64 / 1e6,
        o.device_memory_limit as f64 / 1e6
    );
    let start = Instant::now();
    let (s, stats) = svd.s.compute_stats(&ctx)?;
    let secs = start.elapsed().as_secs_f64();
    let top: Vec<String> = s.iter().take(6).map(|v| format!("{v:.6}")).collect();
    println!(
        "singular values{} = [{}, ...] ({} of them)",
        if o.center { " of the centered matrix" } else { "" },
        top.join(", "),
        s.len()
    );
    println!("time = {secs:.3} s, {} tasks", stats.tasks);
    println!("device: peak {:.1} MB held", stats.tiers.device_peak_bytes as f64 / 1e6);
    println!(
        "device spilled to host = {} blocks ({:.1} MB, {} in pinned memory), back to the device = {} blocks ({:.1} MB)",
        stats.tiers.device_spilled,
        stats.tiers.device_spilled_bytes as f64 / 1e6,
        stats.tiers.device_spilled_pinned,
        stats.tiers.device_unspilled,
        stats.tiers.device_unspilled_bytes as f64 / 1e6
    );
    println!(
        "host: peak {:.1} MB held; spilled to disk = {} blocks ({:.1} MB), read back = {}",
        stats.tiers.peak_bytes as f64 / 1e6,
        stats.tiers.spilled,
        stats.tiers.spilled_bytes as f64 / 1e6,
        stats.tiers.unspilled
    );
    o.dashboard.linger(&ctx);
    Ok(())
}

fn main() -> ExitCode {
    chunked_examples::main_with(parse, run)
}
