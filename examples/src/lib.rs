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
