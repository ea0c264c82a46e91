//! The MPI scheduler under `mpirun -np 1, 2, 3 and 4`, against the same
//! computations run in one process by the sync scheduler (and ndarray where a
//! whole-array oracle is simple).
//!
//! This binary is both the launcher (`mpirun/launcher.rs`) and the MPI program
//! (`harness = false`): run by
//! `cargo test`, it starts itself under `mpirun` with the checks to run, and
//! fails when a job fails, prints a failed check, or hangs past its time limit.
//! Without `mpirun` on the machine it prints why and skips, or fails where the
//! tools are required (`CI=true`, or the test command, which installs Open MPI).
//!
//! Bit-identical: random generation, elementwise work, rechunking, persisted
//! blocks, Zarr round trips (every task computes exactly what it computes in one
//! process; only where it runs changes). Reductions and linear algebra are
//! compared within tolerances all the same (1e-12 relative), though they also
//! come out identical.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use chunked_array::io::WriteMode;
use chunked_array::io::zarr::{ZarrWriteOptions, from_zarr};
use chunked_array::random::RandomState;
use chunked_array::{Array, Computable, Context, Error};
use chunked_distributed::Mpi;
use ndarray::{ArrayD, Ix2};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--rank-checks") => rank_checks(Path::new(&args[2])),
        Some("--rank-kill") => faults::rank_kill(),
        Some("--rank-panic") => faults::rank_panic(),
        Some("--rank-encoder-panic") => faults::rank_encoder_panic(),
        Some("--rank-sleep") => faults::rank_sleep(),
        Some("--rank-store-error") => faults::rank_store_error(Path::new(&args[2])),
        Some("--rank-progress") => rank_progress(),
        Some("--rank-scale-out") => scale_out::rank_scale_out(),
        Some("--rank-dashboard") => dashboard::rank_dashboard(Path::new(&args[2])),
        _ => launch(),
    }
}

#[path = "mpirun/launcher.rs"]
mod launcher;
use launcher::launch;
#[path = "mpirun/random_checks.rs"]
mod random_checks;
#[path = "mpirun/scale_out.rs"]
mod scale_out;
#[path = "mpirun/faults.rs"]
mod faults;
#[path = "mpirun/dashboard.rs"]
mod dashboard;

// ---------------------------------------------------------------- on each rank

/// Runs every check on this rank; prints one line per failure and a final line.
fn rank_checks(dir: &Path) -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    let mut failed = Vec::new();
    let checks: [(&str, RankCheck); 16] = [
        ("random and elementwise, bit-identical", check_elementwise),
        ("every random distribution, bit-identical", random_checks::check_distributions),
        ("reductions", check_reductions),
        ("rechunk and transpose", check_rechunk),
        ("matmul", check_matmul),
        ("tsqr and svd", check_svd),
        ("lu, cholesky and solve", check_solvers),
        ("persist keeps blocks on owners", check_persist),
        ("gather on rank 0", check_gather_root),
        ("selections counted over the ranks", check_selections),
        ("store to zarr", check_store),
        ("error on one rank ends the run on every rank", check_task_error),
        ("interrupted store resumes", check_resume),
        ("each rank spills past its own memory limit", check_spill),
        ("device arrays, one device per rank", check_device),
        ("delayed values and a client's futures over the ranks", check_delayed),
    ];
    for (name, check) in checks {
        if let Err(why) = check(&mpi, dir) {
            println!("rank {}: FAILED {name}: {why}", mpi.rank());
            failed.push(name);
        }
    }
    if failed.is_empty() {
        println!("rank {}: all checks passed", mpi.rank());
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn close(a: &ArrayD<f64>, b: &ArrayD<f64>, what: &str) -> Result<(), String> {
    if a.shape() != b.shape() {
        return Err(format!("{what}: shapes {:?} and {:?}", a.shape(), b.shape()));
    }
    let scale = b.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let worst = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
    if worst > 1e-12 * scale {
        return Err(format!("{what}: differs by {worst:e} (scale {scale:e})"));
    }
    Ok(())
}

fn same<T: PartialEq + std::fmt::Debug>(a: &ArrayD<T>, b: &ArrayD<T>, what: &str) -> Result<(), String> {
    if a != b {
        return Err(format!("{what}: not bit-identical to the one-process result"));
    }
    Ok(())
}

fn err(e: Error) -> String {
    e.to_string()
}

fn check_elementwise(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let all = mpi.context_gather_all();
    let x = RandomState::new(7).standard_normal::<f64>(&[400, 90], [70, 40]).map_err(err)?;
    let y = (&(&x * 2.0) + 1.0).exp().sin();
    same(&x.compute_on(&all).map_err(err)?, &x.compute_on(&Context::sync()).map_err(err)?, "random normal")?;
    same(&y.compute_on(&all).map_err(err)?, &y.compute_on(&Context::sync()).map_err(err)?, "elementwise chain")?;
    let u = RandomState::new(3).uniform::<f32>(&[1000], 64).map_err(err)?;
    same(&u.compute_on(&all).map_err(err)?, &u.compute_on(&Context::sync()).map_err(err)?, "random uniform f32")
}

fn check_reductions(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let all = mpi.context_gather_all();
    let x = RandomState::new(11).standard_normal::<f64>(&[300, 200], [40, 30]).map_err(err)?;
    let whole = x.compute_on(&Context::sync()).map_err(err)?;
    let total = x.sum(None).map_err(err)?.compute_on(&all).map_err(err)?;
    close(&total, &ndarray::arr0(whole.sum()).into_dyn(), "sum")?;
    let cols = x.mean(0).map_err(err)?;
    close(
        &cols.compute_on(&all).map_err(err)?,
        &whole.mean_axis(ndarray::Axis(0)).expect("rows").into_dyn(),
        "mean over axis 0",
    )?;
    let sd = x.std(None, 1).map_err(err)?;
    close(&sd.compute_on(&all).map_err(err)?, &sd.compute_on(&Context::sync()).map_err(err)?, "std")?;
    let am = x.argmax(Some(1)).map_err(err)?;
    same(&am.compute_on(&all).map_err(err)?, &am.compute_on(&Context::sync()).map_err(err)?, "argmax over axis 1")
}

fn check_rechunk(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let all = mpi.context_gather_all();
    let x = RandomState::new(5).uniform::<f64>(&[240, 180], [240, 20]).map_err(err)?;
    let y = (&x * 3.0).rechunk([15, 180]).map_err(err)?.t();
    same(
        &y.compute_on(&all).map_err(err)?,
        &y.compute_on(&Context::sync()).map_err(err)?,
        "rechunk of a product, transposed",
    )
}

fn check_matmul(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let all = mpi.context_gather_all();
    let a = RandomState::new(1).standard_normal::<f64>(&[120, 90], [40, 30]).map_err(err)?;
    let b = RandomState::new(2).standard_normal::<f64>(&[90, 60], [30, 20]).map_err(err)?;
    let c = a.matmul(&b).map_err(err)?;
    let (wa, wb) = (
        a.compute().map_err(err)?.into_dimensionality::<Ix2>().expect("2-d"),
        b.compute().map_err(err)?.into_dimensionality::<Ix2>().expect("2-d"),
    );
    close(&c.compute_on(&all).map_err(err)?, &wa.dot(&wb).into_dyn(), "matmul against ndarray")
}

fn check_svd(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let all = mpi.context_gather_all();
    let a = RandomState::new(9).standard_normal::<f64>(&[1200, 40], [100, 40]).map_err(err)?;
    let svd = chunked_linalg::svd(&a).map_err(|e| e.to_string())?;
    let (u, s, vt) = (&svd.u, &svd.s, &svd.vt).compute_on(&all).map_err(err)?;
    let (u0, s0, vt0) = (&svd.u, &svd.s, &svd.vt).compute_on(&Context::sync()).map_err(err)?;
    close(&s, &s0, "singular values")?;
    close(&u, &u0, "u")?;
    close(&vt, &vt0, "vt")?;
    // And against the matrix itself: A = U diag(s) Vt.
    let u2 = u.into_dimensionality::<Ix2>().expect("2-d");
    let vt2 = vt.into_dimensionality::<Ix2>().expect("2-d");
    let us = &u2 * &s.into_dimensionality::<ndarray::Ix1>().expect("1-d");
    let whole = a.compute().map_err(err)?.into_dimensionality::<Ix2>().expect("2-d");
    let residual = (&us.dot(&vt2) - &whole).mapv(|v| v * v).sum().sqrt() / whole.mapv(|v| v * v).sum().sqrt();
    if residual > 1e-13 {
        return Err(format!("||A - U S Vt|| / ||A|| = {residual:e}"));
    }
    Ok(())
}

fn check_solvers(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let all = mpi.context_gather_all();
    let n = 96;
    let m = RandomState::new(4).standard_normal::<f64>(&[n, n], [32, 32]).map_err(err)?;
    let eye = Array::<f64>::eye(n, None, 0, 32).map_err(err)?;
    let spd = (&m.matmul(&m.t()).map_err(err)? + &(&eye * n as f64)).rechunk([32, 32]).map_err(err)?;
    let b = RandomState::new(6).standard_normal::<f64>(&[n, 3], [32, 3]).map_err(err)?;
    let l = chunked_linalg::cholesky(&spd, true).map_err(|e| e.to_string())?;
    close(&l.compute_on(&all).map_err(err)?, &l.compute_on(&Context::sync()).map_err(err)?, "cholesky")?;
    let (p, lo, up) = chunked_linalg::lu(&m).map_err(|e| e.to_string())?;
    let (p1, l1, u1) = (&p, &lo, &up).compute_on(&all).map_err(err)?;
    let (p0, l0, u0) = (&p, &lo, &up).compute_on(&Context::sync()).map_err(err)?;
    close(&p1, &p0, "lu p")?;
    close(&l1, &l0, "lu l")?;
    close(&u1, &u0, "lu u")?;
    let x = chunked_linalg::solve(&spd, &b).map_err(|e| e.to_string())?;
    close(&x.compute_on(&all).map_err(err)?, &x.compute_on(&Context::sync()).map_err(err)?, "solve")
}

fn check_persist(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let ctx = mpi.context_gather_all();
    let x = RandomState::new(21).standard_normal::<f64>(&[500, 30], [50, 30]).map_err(err)?;
    let held = x.persist_on(&ctx).map_err(err)?;
    // Each rank holds its share of the 10 blocks: a one-process run of the
    // persisted array must fail on every rank but a one-rank job.
    let alone = held.compute_on(&Context::sync());
    if mpi.size() > 1 && alone.is_ok() {
        return Err("a persisted array was complete on one rank of several".into());
    }
    let twice = (&held * 2.0).sum(0).map_err(err)?;
    let want = (&x * 2.0).sum(0).map_err(err)?;
    close(
        &twice.compute_on(&ctx).map_err(err)?,
        &want.compute_on(&Context::sync()).map_err(err)?,
        "sum of a persisted array",
    )?;
    same(&held.compute_on(&ctx).map_err(err)?, &x.compute_on(&Context::sync()).map_err(err)?, "persisted blocks")
}

/// A delayed graph whose values travel between ranks (encoded), a chain of
/// unencoded values (run where they are made), and a client's futures (every
/// rank making the same calls, each a collective run), against plain loops.
fn check_delayed(mpi: &Mpi, _: &Path) -> Result<(), String> {
    use chunked_array::delayed::{Delayed, fan_in};
    use chunked_array::futures::Client;
    let all = mpi.context_gather_all();
    let leaves: Vec<Delayed<Vec<u64>>> =
        (0..40u64).map(|i| Delayed::new("leaf", move || vec![i, i * i]).encoded()).collect();
    let total = fan_in("total", &leaves, |v| v.iter().map(|p| p[1]).sum::<u64>()).encoded();
    let want: u64 = (0..40u64).map(|i| i * i).sum();
    let got = total.compute_on(&all).map_err(err)?;
    if got != want {
        return Err(format!("encoded fan-in: {got} against {want}"));
    }
    let chain = (0..10).fold(Delayed::new("start", || 1u64), |d, _| d.map("double", |v| v * 2)).encoded();
    if chain.compute_on(&all).map_err(err)? != 1024 {
        return Err("a chain of unencoded values".into());
    }
    // Values that cannot travel are made on rank 0, which receives them.
    let root_client = Client::new(mpi.context());
    let squares = root_client.map("square", 0..30u64, |i| i * i);
    match (mpi.is_root(), root_client.gather(&squares)) {
        (true, Ok(got)) if got == (0..30u64).map(|i| i * i).collect::<Vec<_>>() => {}
        (false, Err(Error::ResultElsewhere { .. })) => {}
        (root, got) => return Err(format!("client.map/gather on rank 0 ({root}): {got:?}")),
    }
    let client = Client::new(all);
    let x = RandomState::new(5).standard_normal::<f64>(&[200, 20], [50, 20]).map_err(err)?;
    let (doubled, sum) = client.persist(((&x * 2.0), x.sum(None).map_err(err)?)).result().map_err(err)?;
    let again = doubled.sum(None).map_err(err)?.compute_on(&mpi.context_gather_all()).map_err(err)?;
    close(&(&sum.compute_on(&mpi.context_gather_all()).map_err(err)? * 2.0), &again, "persisted through a client")
}

fn check_gather_root(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let ctx = mpi.context();
    let x = RandomState::new(8).uniform::<f64>(&[100, 10], [10, 10]).map_err(err)?;
    let got = x.compute_root(&ctx).map_err(err)?;
    match (mpi.is_root(), got) {
        (true, Some(a)) => same(&a, &x.compute_on(&Context::sync()).map_err(err)?, "gathered on rank 0")?,
        (false, None) => {}
        (root, got) => return Err(format!("root {root} got a result: {}", got.is_some())),
    }
    match x.compute_on(&ctx) {
        Ok(_) if !mpi.is_root() => Err("compute_on gave a result on a rank that should not receive one".into()),
        Err(Error::ResultElsewhere { rank, .. }) if rank == mpi.rank() && !mpi.is_root() => Ok(()),
        Ok(_) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// x[mask], argwhere and compress with lengths counted by every rank together
/// (rank 0's counts shared, whether results gather on rank 0 or everywhere):
/// every rank builds the same lazy selection, which computes as in one process.
fn check_selections(mpi: &Mpi, _: &Path) -> Result<(), String> {
    use chunked_array::SelectOptions;
    let x = RandomState::new(9).uniform::<f64>(&[120, 30], [25, 12]).map_err(err)?;
    let mask = x.gt(0.8).map_err(err)?;
    let want_masked = x.masked(&mask).map_err(err)?.compute_on(&Context::sync()).map_err(err)?;
    let want_coords = mask.argwhere().map_err(err)?.compute_on(&Context::sync()).map_err(err)?;
    let rows = x.sum(1).map_err(err)?.gt(15.0).map_err(err)?;
    let want_rows = x.compress_array(&rows, 0).map_err(err)?.compute_on(&Context::sync()).map_err(err)?;
    for ctx in [mpi.context(), mpi.context_gather_all()] {
        let opts = SelectOptions::default();
        let masked = x.masked_with(&mask, &opts, &ctx).map_err(err)?;
        let coords = mask.argwhere_with(&opts, &ctx).map_err(err)?;
        let picked = x.compress_array_on(&rows, 0, &ctx).map_err(err)?;
        if masked.shape() != [want_masked.len()]
            || coords.shape() != want_coords.shape()
            || picked.shape() != want_rows.shape()
        {
            return Err(format!("shapes {:?} {:?} {:?}", masked.shape(), coords.shape(), picked.shape()));
        }
        if let Some(got) = masked.compute_root(&ctx).map_err(err)? {
            same(&got, &want_masked, "x[mask]")?;
        }
        if let Some(got) = coords.compute_root(&ctx).map_err(err)? {
            same(&got, &want_coords, "argwhere")?;
        }
        if let Some(got) = picked.compute_root(&ctx).map_err(err)? {
            same(&got, &want_rows, "compress")?;
        }
    }
    Ok(())
}

fn zarr_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.zarr"))
}

fn check_store(mpi: &Mpi, dir: &Path) -> Result<(), String> {
    let ctx = mpi.context();
    let x = RandomState::new(12).standard_normal::<f64>(&[300, 40], [30, 20]).map_err(err)?;
    let y = &x.exp() - 1.0;
    let report = y.to_zarr_on(zarr_path(dir, "store"), "y", &ZarrWriteOptions::default(), &ctx).map_err(err)?;
    // Each rank tallies the chunks delivered to it: the even spread of the 20.
    let share = chunked_distributed::owned_range(20, mpi.size(), mpi.rank()).len();
    if report.chunks_written != share {
        return Err(format!("rank wrote {} chunks, its share is {share}", report.chunks_written));
    }
    mpi.barrier();
    let back =
        from_zarr::<f64>(zarr_path(dir, "store"), "y").map_err(err)?.compute_on(&Context::sync()).map_err(err)?;
    same(&back, &y.compute_on(&Context::sync()).map_err(err)?, "zarr written by every rank, read back")
}

/// An array whose block `bad` fails (a task error, on whichever rank runs it).
fn failing(x: &Array<f64>, bad: usize) -> Result<Array<f64>, String> {
    x.map_blocks(
        move |b, info| {
            if info.index[0] == bad && std::env::var_os("CHUNKED_TEST_NO_FAIL").is_none() {
                panic!("block {bad} refuses");
            }
            b.to_owned()
        },
        None,
    )
    .map_err(err)
}

fn check_task_error(mpi: &Mpi, _: &Path) -> Result<(), String> {
    let ctx = mpi.context_gather_all();
    let x = RandomState::new(2).uniform::<f64>(&[200, 10], [20, 10]).map_err(err)?;
    let y = failing(&x, 7)?.sum(None).map_err(err)?;
    match y.compute_on(&ctx) {
        Ok(_) => Err("a failing task gave a result".into()),
        Err(e) if e.to_string().contains("block 7 refuses") => Ok(()),
        Err(e) => Err(format!("the error does not say what failed: {e}")),
    }?;
    // The scheduler is usable again after a failed run.
    close(
        &x.sum(None).map_err(err)?.compute_on(&ctx).map_err(err)?,
        &x.sum(None).map_err(err)?.compute_on(&Context::sync()).map_err(err)?,
        "sum after a failed run",
    )
}

fn check_resume(mpi: &Mpi, dir: &Path) -> Result<(), String> {
    let ctx = mpi.context();
    let x = RandomState::new(13).uniform::<f64>(&[400, 30], [20, 30]).map_err(err)?;
    let path = zarr_path(dir, "resume");
    let first = failing(&x, 17)?.to_zarr_on(&path, "x", &ZarrWriteOptions::default(), &ctx);
    if first.is_ok() {
        return Err("the interrupted store succeeded".into());
    }
    mpi.barrier();
    let options = ZarrWriteOptions { mode: WriteMode::Resume, ..ZarrWriteOptions::default() };
    let second = x.to_zarr_on(&path, "x", &options, &ctx).map_err(err)?;
    // Every rank sees the same chunks on disk: all but the failed one and those
    // left unwritten when the run stopped are skipped.
    if second.chunks_skipped == 0 {
        return Err("the resumed store skipped nothing".into());
    }
    mpi.barrier();
    let back = from_zarr::<f64>(&path, "x").map_err(err)?.compute_on(&Context::sync()).map_err(err)?;
    same(&back, &x.compute_on(&Context::sync()).map_err(err)?, "resumed store read back")
}

/// A compute with the bar on: rank 0 draws it for both ranks.
fn rank_progress() -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    let x = RandomState::new(1).uniform::<f64>(&[400, 10], [10, 10]).expect("array");
    let slow = x
        .map_blocks(
            |b, _| {
                std::thread::sleep(Duration::from_millis(10));
                b.to_owned()
            },
            None,
        )
        .expect("map_blocks");
    let y = slow.sum(None).expect("sum");
    if mpi.is_root() {
        let graph = chunked_array::custom::Layer::task_graph(&[y.layer()]).expect("graph");
        println!("tasks in the graph: {}", graph.len());
    }
    let profiler = chunked_array::Profiler::new();
    let ctx = mpi.context().with_progress(chunked_array::diagnostics::Progress::Always).with_profiler(&profiler);
    y.compute_root(&ctx).expect("compute");
    // Rank 0's profile holds every rank's tasks, each with its rank; the
    // others' hold their own.
    let spans = profiler.spans();
    let ranks: std::collections::BTreeSet<usize> = spans.iter().map(|s| s.rank).collect();
    let html = profiler.html_report("mpi");
    let ordered = spans.iter().all(|s| s.end >= s.start && s.start >= 0.0);
    println!(
        "rank {}: {} spans from ranks {ranks:?}, ordered {ordered}, rows named by rank {}",
        mpi.rank(),
        spans.len(),
        html.contains("\"r1.w0\"")
    );
    ExitCode::SUCCESS
}

/// The sum of centered values of 40 blocks of 16 kB, all held until the
/// column means are known, with each rank allowed 2 blocks (in host memory, or
/// on `device` when given); the rank's run statistics and how many blocks it owns.
fn centered_under_limit(
    mpi: &Mpi,
    dir: &Path,
    device: Option<&chunked_array::device::Device>,
) -> Result<(chunked_array::RunStats, usize), String> {
    let spill_dir = dir.join(format!("spill-{}-{}", mpi.rank(), device.is_some()));
    std::fs::create_dir_all(&spill_dir).map_err(|e| e.to_string())?;
    let limit = 2 * 16_000 + 4_000;
    let mut ctx = mpi.context_gather_all().with_spill_dir(&spill_dir);
    ctx = if device.is_some() { ctx.with_device_memory_limit(limit) } else { ctx.with_memory_limit(limit) };
    let mut x = RandomState::new(17).standard_normal::<f64>(&[800, 100], [20, 100]).map_err(err)?;
    if let Some(d) = device {
        x = x.to_device(d);
    }
    let centered = (&x - &x.mean(0).map_err(err)?).abs().sum(0).map_err(err)?;
    let (got, stats) = centered.compute_stats(&ctx).map_err(err)?;
    close(&got, &centered.compute_on(&Context::sync()).map_err(err)?, "sum of centered values under a memory limit")?;
    if std::fs::read_dir(&spill_dir).map_err(|e| e.to_string())?.count() != 0 {
        return Err("spill files left after the run".into());
    }
    Ok((stats, chunked_distributed::owned_range(40, mpi.size(), mpi.rank()).len()))
}

fn check_spill(mpi: &Mpi, dir: &Path) -> Result<(), String> {
    // Every rank that holds more than its 2 blocks spills to its own files.
    let (stats, mine) = centered_under_limit(mpi, dir, None)?;
    if mine > 3 && stats.tiers.spilled == 0 {
        return Err(format!("rank holds {mine} blocks over a 2-block limit and spilled nothing ({stats:?})"));
    }
    Ok(())
}

/// Each rank's device: its GPU by local rank, or an emulated device where
/// there is none (so that the device code paths run under MPI everywhere).
fn rank_device(mpi: &Mpi) -> chunked_array::device::Device {
    mpi.device().unwrap_or_else(|e| {
        if mpi.is_root() {
            println!("device check on emulated devices: {e}");
        }
        chunked_array::device::Device::emulated(256 << 20)
    })
}

fn check_device(mpi: &Mpi, dir: &Path) -> Result<(), String> {
    let device = rank_device(mpi);
    let all = mpi.context_gather_all();
    let x = RandomState::new(7).standard_normal::<f64>(&[400, 90], [70, 40]).map_err(err)?;
    let y = (&(&x.to_device(&device) * 2.0) + 1.0).exp().sin();
    // Normal draws on a CUDA device differ from the host's by a few ulp.
    if device.is_emulated() {
        same(
            &y.compute_on(&all).map_err(err)?,
            &y.compute_on(&Context::sync()).map_err(err)?,
            "device elementwise chain",
        )?;
    } else {
        close(
            &y.compute_on(&all).map_err(err)?,
            &y.compute_on(&Context::sync()).map_err(err)?,
            "device elementwise chain",
        )?;
    }
    let a = RandomState::new(9).standard_normal::<f64>(&[1200, 40], [100, 40]).map_err(err)?;
    let s = chunked_linalg::svd(&a.to_device(&device)).map_err(|e| e.to_string())?.s;
    close(
        &s.compute_on(&all).map_err(err)?,
        &chunked_linalg::svd(&a).map_err(|e| e.to_string())?.s.compute().map_err(err)?,
        "singular values of a device array",
    )?;
    // Centering holds each rank's blocks on its device past its own limit.
    let (stats, mine) = centered_under_limit(mpi, dir, Some(&device))?;
    if mine > 3 && stats.tiers.device_spilled == 0 {
        return Err(format!(
            "rank holds {mine} device blocks over a 2-block device limit and moved none to the host ({stats:?})"
        ));
    }
    if device.in_use() != 0 {
        return Err(format!("{} bytes left on the rank's device", device.in_use()));
    }
    Ok(())
}

/// One check run on every rank: its result is that rank's verdict.
type RankCheck = fn(&Mpi, &Path) -> Result<(), String>;
