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

/// What an example's `run` returns.
pub type JobResult = Result<(), Box<dyn std::error::Error>>;

/// The `main` of an MPI batch job: parses the options (exit 2 with the message
/// when they are wrong), initializes MPI, runs the job, and reports an error
/// with the rank (exit 1) followed by `hint`.
#[cfg(feature = "mpi")]
pub fn mpi_main<O>(parse: impl FnOnce() -> Result<O, String>, run: impl FnOnce(&O, &chunked_distributed::Mpi) -> JobResult, hint: &str) -> std::process::ExitCode {
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
