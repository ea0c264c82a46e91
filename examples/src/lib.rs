//! Helpers shared by the example programs.

/// `200M`, `4G`, `512K` or a plain number of bytes.
///
/// ```
/// assert_eq!(chunked_examples::parse_bytes("200M"), Some(200 << 20));
/// assert_eq!(chunked_examples::parse_bytes("12"), Some(12));
/// assert_eq!(chunked_examples::parse_bytes("3X"), None);
/// ```
pub fn parse_bytes(v: &str) -> Option<usize> {
    let (digits, unit) = match v.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => v.split_at(i),
        None => (v, ""),
    };
    let scale: usize = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(scale)
}

/// The random matrix the SVD examples factor: `--rows`, `--cols`,
/// `--chunks R,C` and `--seed`.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixOptions {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Block shape.
    pub chunks: (usize, usize),
    /// Seed of the random matrix.
    pub seed: u64,
}

impl MatrixOptions {
    /// Takes `flag value` if it is one of the matrix options: `Ok(true)` when
    /// it was, `Ok(false)` when it is another option.
    ///
    /// ```
    /// let mut m = chunked_examples::MatrixOptions { rows: 1, cols: 1, chunks: (1, 1), seed: 0 };
    /// assert_eq!(m.take("--chunks", "500,100"), Ok(true));
    /// assert_eq!(m.chunks, (500, 100));
    /// assert_eq!(m.take("--threads", "2"), Ok(false));
    /// assert!(m.take("--rows", "many").is_err());
    /// ```
    ///
    /// # Errors
    /// A message naming the flag and the value when the value is malformed.
    pub fn take(&mut self, flag: &str, value: &str) -> Result<bool, String> {
        let num = |v: &str| v.parse::<usize>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag {
            "--rows" => self.rows = num(value)?,
            "--cols" => self.cols = num(value)?,
            "--chunks" => {
                let (r, c) = value.split_once(',').ok_or_else(|| format!("--chunks {value}: expected R,C"))?;
                self.chunks = (num(r)?, num(c)?);
            }
            "--seed" => self.seed = value.parse().map_err(|e| format!("--seed {value}: {e}"))?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `--dashboard ADDR`: a live dashboard of the program's computes in the
/// browser (`host:port`, or a port on loopback, `8787`); `--dashboard-linger
/// SECONDS`: keep it up that long after the job, to look at the finished
/// record. Under MPI rank 0 serves it for every rank.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DashboardFlags {
    /// The address to serve on.
    pub addr: Option<String>,
    /// Seconds to keep serving after the job.
    pub linger: f64,
}

impl DashboardFlags {
    /// Takes `--dashboard` and `--dashboard-linger`; `Ok(false)` for any other flag.
    ///
    /// ```
    /// let mut d = chunked_examples::DashboardFlags::default();
    /// assert!(d.take("--dashboard", "8787").unwrap());
    /// assert!(!d.take("--rows", "10").unwrap());
    /// assert!(d.take("--dashboard-linger", "-1").is_err());
    /// ```
    ///
    /// # Errors
    /// A message naming the flag when the linger time is not a number of seconds.
    pub fn take(&mut self, flag: &str, value: &str) -> Result<bool, String> {
        match flag {
            "--dashboard" => self.addr = Some(value.to_string()),
            "--dashboard-linger" => {
                self.linger = value
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("--dashboard-linger {value}: expected seconds"))?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `ctx` with the dashboard when one was asked for.
    ///
    /// ```
    /// let d = chunked_examples::DashboardFlags { addr: Some("127.0.0.1:0".into()), linger: 0.0 };
    /// let ctx = d.attach(chunked_array::Context::sync()).unwrap();
    /// assert!(ctx.dashboard().is_some());
    /// ```
    ///
    /// # Errors
    /// The address cannot be bound (an error naming it, before any work).
    pub fn attach(&self, ctx: chunked_array::Context) -> chunked_array::Result<chunked_array::Context> {
        match &self.addr {
            Some(addr) => ctx.with_dashboard(addr),
            None => Ok(ctx),
        }
    }

    /// Keeps this process (and so its dashboard) up for the linger time.
    ///
    /// ```
    /// let d = chunked_examples::DashboardFlags::default();
    /// d.linger(&chunked_array::Context::sync()); // no dashboard: returns at once
    /// ```
    pub fn linger(&self, ctx: &chunked_array::Context) {
        if let Some(dashboard) = ctx.dashboard()
            && self.linger > 0.0
        {
            eprintln!("dashboard stays up {} s more at {}", self.linger, dashboard.url());
            std::thread::sleep(std::time::Duration::from_secs_f64(self.linger));
        }
    }
}

/// What an example's `run` returns.
pub type JobResult = Result<(), Box<dyn std::error::Error>>;

/// The `main` of a program: parses the options (exit 2 with the message when
/// they are wrong), runs it, and reports an error (exit 1).
pub fn main_with<O>(
    parse: impl FnOnce() -> Result<O, String>,
    run: impl FnOnce(&O) -> JobResult,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    let options = match parse() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The `main` of an MPI batch job: parses the options (exit 2 with the message
/// when they are wrong), initializes MPI, runs the job, and reports an error
/// with the rank (exit 1) followed by `hint`.
#[cfg(feature = "mpi")]
pub fn mpi_main<O>(
    parse: impl FnOnce() -> Result<O, String>,
    run: impl FnOnce(&O, &chunked_distributed::Mpi) -> JobResult,
    hint: &str,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    let options = match parse() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let mpi = match chunked_distributed::Mpi::init() {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match run(&options, &mpi) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rank {}: error: {e}{hint}", mpi.rank());
            ExitCode::FAILURE
        }
    }
}

/// `--scheduler threads|sync|mpi`: where a program runs its graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerChoice {
    /// Every core of this process (`--threads N` to choose).
    Threads,
    /// One thread, in a deterministic order.
    Sync,
    /// The ranks of an `mpirun` job (built with `--features mpi`).
    Mpi,
}

/// The context a program runs with, whether this process prints (rank 0),
/// and what keeps MPI initialized (finalized when dropped).
pub type ProgramContext = (chunked_array::Context, bool, Option<Box<dyn std::any::Any>>);

impl SchedulerChoice {
    /// The choice `--scheduler value` names.
    ///
    /// ```
    /// use chunked_examples::SchedulerChoice;
    /// assert_eq!(SchedulerChoice::parse("sync"), Ok(SchedulerChoice::Sync));
    /// assert!(SchedulerChoice::parse("dask").unwrap_err().contains("dask"));
    /// ```
    ///
    /// # Errors
    /// A message naming the value when it is none of the three.
    pub fn parse(value: &str) -> Result<SchedulerChoice, String> {
        match value {
            "sync" => Ok(SchedulerChoice::Sync),
            "threads" => Ok(SchedulerChoice::Threads),
            "mpi" => Ok(SchedulerChoice::Mpi),
            other => Err(format!("--scheduler {other}: expected threads, sync or mpi")),
        }
    }

    /// The context for this choice (`threads` workers for `Threads`, 0: every
    /// core), whether this process prints, and the MPI guard.
    ///
    /// ```
    /// use chunked_examples::SchedulerChoice;
    /// let (ctx, prints, _guard) = SchedulerChoice::Threads.context(2).unwrap();
    /// assert_eq!((ctx.scheduler().name(), prints), ("threads", true));
    /// ```
    ///
    /// # Errors
    /// MPI's initialization failing, or `Mpi` in a build without the `mpi`
    /// feature.
    pub fn context(self, threads: usize) -> Result<ProgramContext, Box<dyn std::error::Error>> {
        use chunked_array::Context;
        Ok(match self {
            SchedulerChoice::Sync => (Context::sync(), true, None),
            SchedulerChoice::Threads => (Context::threads(threads), true, None),
            #[cfg(feature = "mpi")]
            SchedulerChoice::Mpi => {
                let mpi = chunked_distributed::Mpi::init()?;
                (mpi.context(), mpi.is_root(), Some(Box::new(mpi)))
            }
            #[cfg(not(feature = "mpi"))]
            SchedulerChoice::Mpi => {
                return Err("built without MPI: cargo build --release -p chunked-examples --features mpi".into());
            }
        })
    }
}

/// `x` with `a x = b` for a 3 x 3 system, by Gaussian elimination with
/// partial pivoting (the normal equations of a two-feature least-squares fit
/// with an intercept); `None` when it is singular.
///
/// ```
/// let x = chunked_examples::solve3([[2.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 4.0, 0.0]], [2.0, 3.0, 8.0]).unwrap();
/// assert_eq!(x, [1.0, 2.0, 3.0]);
/// assert!(chunked_examples::solve3([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]], [1.0; 3]).is_none());
/// ```
pub fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
        if a[pivot][col] == 0.0 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..3 {
            let factor = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (v, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *v -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let tail: f64 = (row + 1..3).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    Some(x)
}
