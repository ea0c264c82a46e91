//! A panic outside a task on a rank must end the whole job: the other ranks
//! would otherwise wait for its blocks forever. The hook installed by
//! [`crate::Mpi::init`] calls `MPI_Abort`, which makes `mpirun` stop every rank
//! with an error. Panics inside a task are not such panics: the task graph
//! catches them and the run ends with an error on every rank through the
//! scheduler's own messages.

use std::cell::Cell;
use std::sync::Once;

thread_local! {
    static IN_TASK: Cell<bool> = const { Cell::new(false) };
}

/// Runs a task's kernel, marking the thread so that a panic in it is left to
/// the task graph's catch (it becomes the task's error).
pub(crate) fn in_task<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            IN_TASK.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(IN_TASK.with(|c| c.replace(true)));
    f()
}

/// Installs the hook once per process: on the MPI thread, a panic outside a
/// task prints its message and the rank, then aborts the job.
pub(crate) fn install_abort_hook(rank: usize) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let mpi_thread = std::thread::current().id();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            let inside_task = IN_TASK.with(Cell::get);
            if std::thread::current().id() == mpi_thread && !inside_task && mpi::is_initialized() && !mpi::is_finalized() {
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
