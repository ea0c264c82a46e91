//! The launcher side of `mpirun.rs`: starts this test binary under `mpirun`
//! with 1 to 4 ranks and reads what every rank reported.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// A launcher: the program, its leading arguments and the environment it needs.
type Launcher = (String, Vec<String>, Vec<(String, String)>);

/// The MPI launcher (`CHUNKED_MPIRUN`, default `mpirun`: the one matching the
/// MPI library this test was built against) and the environment it needs, or
/// why there is none.
fn mpirun() -> Result<Launcher, String> {
    let launcher = std::env::var("CHUNKED_MPIRUN").unwrap_or_else(|_| "mpirun".into());
    let version = Command::new(&launcher).arg("--version").output().map_err(|e| format!("no {launcher} ({e})"))?;
    let text = String::from_utf8_lossy(&version.stdout).to_string() + &String::from_utf8_lossy(&version.stderr);
    if text.contains("Open MPI") || text.contains("OpenRTE") {
        // As root, and with more ranks than the CI machine's 2 cores.
        let env = [
            ("OMPI_ALLOW_RUN_AS_ROOT", "1"),
            ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
            ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
        ];
        Ok((
            launcher,
            vec!["--oversubscribe".into()],
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        ))
    } else {
        // MPICH's hydra needs neither.
        Ok((launcher, Vec::new(), Vec::new()))
    }
}

pub struct Job {
    pub code: Option<i32>,
    pub output: String,
    pub elapsed: Duration,
    pub timed_out: bool,
}

pub fn run_job(np: usize, args: &[&str], limit: Duration) -> Job {
    run_job_over(np, args, limit, &[])
}

/// The environment that sends every message between ranks through the TCP
/// stack (loopback here), the path of a job across nodes: Open MPI's TCP
/// transport under its ob1 messaging layer (UCX, where installed, would
/// otherwise take the shared memory), MPICH's "no local" mode.
const OVER_TCP: [(&str, &str); 4] =
    [("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_btl", "tcp,self"), ("MPIR_CVAR_NOLOCAL", "1"), ("MPIR_CVAR_CH3_NOLOCAL", "1")];

/// [`run_job`] with `extra` added to the environment.
fn run_job_over(np: usize, args: &[&str], limit: Duration, extra: &[(&str, &str)]) -> Job {
    let (launcher, flags, env) = mpirun().expect("checked before");
    let exe = std::env::current_exe().expect("own path");
    let out_path = std::env::temp_dir().join(format!(
        "chunked-mpirun-{}-{np}-{}.log",
        std::process::id(),
        args[0].trim_start_matches('-')
    ));
    let log = std::fs::File::create(&out_path).expect("log file");
    let start = Instant::now();
    let mut child = Command::new(launcher)
        .args(&flags)
        .args(["-np", &np.to_string()])
        .arg(&exe)
        .args(args)
        .envs(env)
        .envs(extra.iter().copied())
        // The checks panic on purpose inside tasks: keep the log short.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("log"))
        .stderr(log)
        .spawn()
        .expect("start mpirun");
    let (code, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break (status.code(), false);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = std::fs::read_to_string(&out_path).unwrap_or_default();
    let _ = std::fs::remove_file(&out_path);
    Job { code, output, elapsed: start.elapsed(), timed_out }
}

pub fn launch() -> ExitCode {
    if let Err(why) = mpirun() {
        // Where the tools are required (CI, or the test command that installs
        // them), a missing mpirun fails the run instead of skipping it.
        let set = |name: &str, value: &str| std::env::var(name).is_ok_and(|v| v == value);
        if set("CI", "true") || set("CHUNKED_REQUIRE_TOOLS", "1") {
            eprintln!("FAILED: {why}, and the MPI tests are required here");
            return ExitCode::FAILURE;
        }
        println!("skipping the MPI tests: {why}; the test command (scripts/test.sh) installs Open MPI");
        return ExitCode::SUCCESS;
    }
    let mut failures = Vec::new();
    rank_check_jobs(&mut failures);
    // The layouts of larger jobs: 8 ranks (oversubscribed), over shared memory.
    let job = run_job(8, &["--rank-scale-out"], Duration::from_secs(180));
    let oks = (0..8).filter(|r| job.output.contains(&format!("rank {r}: scale-out checks passed"))).count();
    println!(
        "scale-out checks, 8 ranks: exit {:?} in {:.1} s, {oks} of 8 ranks passed",
        job.code,
        job.elapsed.as_secs_f64()
    );
    if job.code != Some(0) || oks != 8 || job.timed_out {
        failures.push(format!("scale-out checks on 8 ranks (exit {:?}):\n{}", job.code, job.output));
    }
    // Rank 0's progress bar counts every rank's tasks.
    let job = run_job(2, &["--rank-progress"], Duration::from_secs(120));
    // mpirun forwards stdout and stderr (where the bar draws) as they come, so
    // the line may not start with it.
    let total = job.output.lines().find_map(|l| {
        let rest = &l[l.find("tasks in the graph: ")? + "tasks in the graph: ".len()..];
        Some(rest.chars().take_while(char::is_ascii_digit).collect::<String>())
    });
    match &total {
        Some(n) if job.code == Some(0) && job.output.contains(&format!("{n}/{n} tasks")) => {
            println!("progress on rank 0: {n}/{n} tasks")
        }
        _ => failures
            .push(format!("rank 0's bar did not reach every rank's task count (exit {:?}):\n{}", job.code, job.output)),
    }
    // And its profile holds every rank's tasks.
    match &total {
        Some(n)
            if job
                .output
                .contains(&format!("rank 0: {n} spans from ranks {{0, 1}}, ordered true, rows named by rank true")) =>
        {
            println!("profile on rank 0: {n} spans from ranks 0 and 1")
        }
        _ => failures.push(format!("rank 0's profile does not hold every rank's tasks:\n{}", job.output)),
    }
    // A rank killed in the middle of a compute, and a rank panicking outside a
    // task: the job must end with an error, within a bounded time, never hang.
    let cases = [
        ("killed rank", "--rank-kill", &[][..]),
        ("panicking rank", "--rank-panic", &[][..]),
        ("killed rank over tcp", "--rank-kill", &OVER_TCP[..]),
    ];
    for (what, flag, extra) in cases {
        let job = run_job_over(3, &[flag], Duration::from_secs(120), extra);
        println!("{what}: exit {:?} after {:.1} s", job.code, job.elapsed.as_secs_f64());
        if job.timed_out || job.code == Some(0) {
            failures.push(format!(
                "{what}: the job did not end with an error (exit {:?}, timed out: {}):\n{}",
                job.code, job.timed_out, job.output
            ));
        }
        if job.elapsed > Duration::from_secs(60) {
            failures.push(format!("{what}: the job took {:.1} s to end", job.elapsed.as_secs_f64()));
        }
    }
    fault_jobs(&mut failures);
    crate::dashboard::dashboard_job(&mut failures);
    if failures.is_empty() {
        println!("MPI tests passed");
        ExitCode::SUCCESS
    } else {
        for f in &failures {
            eprintln!("FAILED {f}");
        }
        ExitCode::FAILURE
    }
}

/// The rank checks over shared memory at 1 to 4 ranks, then over TCP at 2 and 4.
fn rank_check_jobs(failures: &mut Vec<String>) {
    let runs = (1..=4).map(|np| (np, "shared memory", &[][..])).chain([2, 4].map(|np| (np, "tcp", &OVER_TCP[..])));
    for (np, transport, extra) in runs {
        let dir = std::env::temp_dir().join(format!("chunked-mpi-checks-{}-{np}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let args = ["--rank-checks", dir.to_str().expect("utf-8 temp dir")];
        let job = run_job_over(np, &args, Duration::from_secs(180), extra);
        let _ = std::fs::remove_dir_all(&dir);
        let oks = (0..np).filter(|r| job.output.contains(&format!("rank {r}: all checks passed"))).count();
        println!(
            "mpirun -np {np} over {transport}: exit {:?} in {:.1} s, {oks} of {np} ranks passed",
            job.code,
            job.elapsed.as_secs_f64()
        );
        if job.code != Some(0) || oks != np || job.timed_out {
            failures.push(format!(
                "-np {np} over {transport} (exit {:?}, timed out: {}):\n{}",
                job.code, job.timed_out, job.output
            ));
        }
    }
}

/// Faults that must end the job on every rank, within seconds, with the cause
/// on rank 0's side, on 2, 3 and 4 ranks: a value's encoder panicking on a
/// worker thread; a rank asleep in a task past CHUNKED_MPI_TIMEOUT (3 s in the
/// job), whose waiting ranks end the job saying what they waited for; a Zarr
/// store whose preparation fails on rank 1 only.
fn fault_jobs(failures: &mut Vec<String>) {
    let dir = std::env::temp_dir().join(format!("chunked-mpi-store-error-{}", std::process::id()));
    let dir = dir.to_str().expect("utf-8 temp dir").to_string();
    for np in 2..=4 {
        let cases: [(&str, Vec<&str>, String); 3] = [
            ("panicking encoder", vec!["--rank-encoder-panic"], "encoder bomb".into()),
            ("sleeping rank", vec!["--rank-sleep"], "while waiting for".into()),
            ("store failing on rank 1", vec!["--rank-store-error", &dir], "rank 1 could not prepare the store".into()),
        ];
        for (what, args, cause) in cases {
            let job = run_job(np, &args, Duration::from_secs(120));
            let _ = std::fs::remove_dir_all(&dir);
            println!("{what}, {np} ranks: exit {:?} after {:.1} s", job.code, job.elapsed.as_secs_f64());
            let ended = !job.timed_out && job.code != Some(0) && job.elapsed < Duration::from_secs(40);
            // Every rank prints its error, except where the job is aborted.
            let said = |r: usize| {
                let mine = format!("rank {r}: ");
                job.output.lines().any(|l| l.contains(&mine) && l.contains("returned Err"))
            };
            let every_rank = what == "sleeping rank" || (0..np).all(said);
            if !ended || !job.output.contains(&cause) || !every_rank {
                failures.push(format!(
                    "{what}, {np} ranks: no error within 40 s naming the cause (exit {:?}, {:.1} s):\n{}",
                    job.code,
                    job.elapsed.as_secs_f64(),
                    job.output
                ));
            }
        }
    }
}
