//! The MPI programs of the fault tests: a rank killed, panicking, stuck in a
//! task, failing to encode a value or to prepare a store. Each job must end
//! with an error on every rank, within seconds, never hang.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use chunked_array::Array;
use chunked_array::io::zarr::ZarrWriteOptions;
use chunked_array::random::RandomState;
use chunked_distributed::Mpi;

/// Rank 1 kills itself (SIGKILL) inside a task of a long compute.
pub fn rank_kill() -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    let me = mpi.rank();
    let x = RandomState::new(1).uniform::<f64>(&[4000, 100], [100, 100]).expect("array");
    let y = x
        .map_blocks(
            move |b, info| {
                if me == 1 && info.index[0] == 25 {
                    // SAFETY: kill(2) on our own pid.
                    unsafe { libc::kill(std::process::id() as i32, libc::SIGKILL) };
                }
                std::thread::sleep(Duration::from_millis(20));
                b.to_owned()
            },
            None,
        )
        .expect("map_blocks");
    let r = y.sum(None).expect("sum").compute_root(&mpi.context());
    println!("rank {me}: compute returned {:?}", r.map(|_| ()));
    ExitCode::SUCCESS
}

/// Rank 2 panics outside any task while the others wait in a compute for it.
pub fn rank_panic() -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    if mpi.rank() == 2 {
        std::thread::sleep(Duration::from_millis(300));
        panic!("rank 2 fails before its share of the compute");
    }
    let x = RandomState::new(1).uniform::<f64>(&[600, 10], [10, 10]).expect("array");
    let r = x.sum(None).expect("sum").compute_root(&mpi.context());
    println!("rank {}: compute returned {:?}", mpi.rank(), r.map(|_| ()));
    ExitCode::SUCCESS
}

/// A value whose encoder panics: it is encoded on a worker thread, outside
/// its task, when it must travel to another rank.
#[derive(Clone)]
struct Bomb(u64);

impl chunked_array::delayed::Encode for Bomb {
    fn encode(&self, _: &mut Vec<u8>) {
        panic!("encoder bomb {}", self.0)
    }
    fn decode(bytes: &mut &[u8]) -> Option<Self> {
        u64::decode(bytes).map(Bomb)
    }
}

/// Values of every rank gathered into one: the encoders panic, and every rank
/// must end with the error (exit 1) instead of waiting for the lost value.
pub fn rank_encoder_panic() -> ExitCode {
    use chunked_array::delayed::{Delayed, fan_in};
    let mpi = Mpi::init().expect("MPI");
    let leaves: Vec<Delayed<Bomb>> = (0..40u64).map(|i| Delayed::new("leaf", move || Bomb(i)).encoded()).collect();
    // The total goes to every rank from the one that makes it: its encoder runs.
    let total = fan_in("total", &leaves, |v| Bomb(v.iter().map(|b| b.0).sum::<u64>())).encoded();
    let r = total.compute_on(&mpi.context_gather_all());
    println!("rank {}: compute returned {:?}", mpi.rank(), r.as_ref().map(|b| b.0));
    if r.is_err() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// Rank 1 sleeps in a task past the progress timeout (3 s here): the ranks
/// waiting for its blocks end the job, naming what they waited for.
pub fn rank_sleep() -> ExitCode {
    // SAFETY: set before MPI or any other thread starts.
    unsafe { std::env::set_var("CHUNKED_MPI_TIMEOUT", "3") };
    let mpi = Mpi::init().expect("MPI");
    let me = mpi.rank();
    let x = RandomState::new(1).uniform::<f64>(&[600, 10], [10, 10]).expect("array");
    let stuck = x
        .map_blocks(
            move |b, _| {
                if me == 1 {
                    std::thread::sleep(Duration::from_secs(60));
                }
                b.to_owned()
            },
            None,
        )
        .expect("map_blocks");
    let r = stuck.sum(None).expect("sum").compute_root(&mpi.context());
    println!("rank {}: compute returned {:?}", mpi.rank(), r.map(|_| ()));
    ExitCode::SUCCESS
}

/// A Zarr store whose preparation fails on rank 1 alone (its array path is
/// refused): every rank must end with an error instead of waiting for rank 1.
pub fn rank_store_error(dir: &Path) -> ExitCode {
    let mpi = Mpi::init().expect("MPI");
    let name = if mpi.rank() == 1 { "../escape" } else { "a" };
    let x = Array::<f64>::ones(&[40], 10).expect("array");
    let r = x.to_zarr_on(dir, name, &ZarrWriteOptions::default(), &mpi.context());
    println!("rank {}: store returned {:?}", mpi.rank(), r.as_ref().map(|_| ()));
    if r.is_err() { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
