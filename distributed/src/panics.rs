//! A panic outside a task on a rank must end the whole job: the other ranks
//! would otherwise wait for its blocks forever. The hook installed by
//! [`crate::Mpi::init`] calls `MPI_Abort`, which makes `mpirun` stop every rank
//! with an error. Panics inside a task are not such panics: tasks run on worker
//! threads, the task graph catches their panics, and the run ends with an error
//! on every rank through the scheduler's own messages.

use std::sync::Once;

/// Installs the hook once per process: a panic on the MPI thread (which runs
/// no task) prints its message and the rank, then aborts the job.
pub(crate) fn install_abort_hook(rank: usize) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let mpi_thread = std::thread::current().id();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            if std::thread::current().id() == mpi_thread && mpi::is_initialized() && !mpi::is_finalized() {
                eprintln!("chunked: rank {rank} panicked outside a task; aborting the MPI job (MPI_Abort)");
                // SAFETY: MPI is initialized and not finalized (checked above);
                // MPI_Abort on the world communicator does not return.
                unsafe {
                    mpi::ffi::MPI_Abort(mpi::ffi::RSMPI_COMM_WORLD, 70);
                }
            }
        }));
    });
}
