//! The crate's error type. Every message carries the offending values.

use std::fmt;

/// Errors of `chunked-array`.
///
/// Every fallible call returns this type; match on the variant to react to a
/// kind of failure, or print it for a message that names the values.
///
/// ```
/// use chunked_array::{Array, Error};
/// let err = Array::from_vec(&[2, 3], vec![1.0f64; 5], 2).unwrap_err();
/// assert!(matches!(err, Error::InvalidArgument { ref value, .. } if value == "5"));
/// let a = Array::<f64>::ones(&[3], 3).unwrap();
/// let b = Array::<f64>::ones(&[4], 4).unwrap();
/// let err = a.maximum(&b).unwrap_err();
/// assert!(matches!(err, Error::ShapeMismatch { ref left, ref right, .. } if left == &[3] && right == &[4]));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two shapes that had to agree (or broadcast) do not.
    #[error("shape mismatch in {op}: {left:?} and {right:?} cannot be combined")]
    ShapeMismatch {
        /// The operation that needed the shapes to agree.
        op: String,
        /// Shape of the first operand.
        left: Vec<usize>,
        /// Shape of the second operand.
        right: Vec<usize>,
    },
    /// A chunk specification that does not fit the shape.
    #[error("bad chunks on axis {axis}: {message}")]
    BadChunks {
        /// The axis (or `usize::MAX` for the whole spec).
        axis: usize,
        /// What is wrong, with the values.
        message: String,
    },
    /// An axis outside `-ndim..ndim`, or given twice.
    #[error("axis {axis} is out of range for an array of {ndim} dimensions{detail}")]
    BadAxis {
        /// The axis as given.
        axis: isize,
        /// Number of dimensions of the array.
        ndim: usize,
        /// Further detail (e.g. " (repeated)").
        detail: String,
    },
    /// A block index outside the block grid.
    #[error("block index {index:?} is out of range for a grid of {grid:?} blocks")]
    BadBlockIndex {
        /// The index as given.
        index: Vec<usize>,
        /// Number of blocks per axis.
        grid: Vec<usize>,
    },
    /// An invalid argument value (e.g. a negative count, `high <= low`).
    #[error("invalid argument {name} = {value}: {reason}")]
    InvalidArgument {
        /// The parameter name.
        name: String,
        /// Its value, formatted.
        value: String,
        /// Why it is rejected.
        reason: String,
    },
    /// An operation with no meaning for an element type known only at run
    /// time (an [`crate::AnyArray`]): `arctan2` of complex, bitwise logic on
    /// floats, ordering of complex numbers.
    #[error("{op} is not defined for {dtype}")]
    UnsupportedDtype {
        /// The operation (NumPy's ufunc name).
        op: String,
        /// NumPy's name for the element type.
        dtype: String,
    },
    /// A block reached a kernel with a different element type than expected.
    #[error("block {key} has element type {found}, expected {expected}")]
    DtypeMismatch {
        /// The task key.
        key: String,
        /// Expected element type.
        expected: String,
        /// Element type found.
        found: String,
    },
    /// A task failed (returned an error or panicked). `key` names the task.
    #[error("task {key} failed: {message}")]
    Task {
        /// The task key: layer name, layer id and block index.
        key: String,
        /// The error or panic message.
        message: String,
    },
    /// Reading or writing a file failed, or a file holds something unexpected
    /// (a missing path, a corrupt or truncated chunk, a full disk). `path` names
    /// the file, chunk or dataset.
    #[error("I/O error at {path}: {message}")]
    Io {
        /// The file, chunk key or dataset.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A result was gathered on another process of a multi-process run (MPI rank
    /// 0, say): this process took part in computing it but does not hold it.
    #[error("rank {rank} of {ranks} does not receive the result: {how}")]
    ResultElsewhere {
        /// This process's rank.
        rank: usize,
        /// Number of processes in the run.
        ranks: usize,
        /// Where the result went and how to get it here.
        how: String,
    },
    /// The run was cancelled (a [`crate::futures::Future`] cancelled by its
    /// client) before task `key` started; tasks already running finished.
    #[error("cancelled before task {key} started")]
    Cancelled {
        /// The first task that did not start.
        key: String,
    },
    /// A device (GPU or emulated) failed: no device, out of its memory, a CUDA error.
    #[error("device error: {0}")]
    Device(#[from] chunked_gpu::Error),
    /// A resource (memory tier, threads) ran out: every tier is full.
    #[error("resources exhausted in {tier}: {requested} bytes could not be placed ({detail})")]
    ResourcesExhausted {
        /// The tiers that were full: "host memory and disk", "device".
        tier: String,
        /// Bytes requested.
        requested: u64,
        /// The limit in force (bytes).
        limit: u64,
        /// What was full, with the values and paths.
        detail: String,
    },
    /// Before running: a task needs more memory than the limit allows, so the
    /// plan cannot run within it whatever is spilled.
    #[error(
        "task {key} needs about {estimate} bytes (inputs and output) but the {tier} is {limit} bytes; {suggestion}"
    )]
    PlanExceedsMemory {
        /// The task's key.
        key: String,
        /// Estimated bytes of its inputs and output.
        estimate: u64,
        /// The limit.
        limit: u64,
        /// Which limit: "memory limit" (host) or "device memory limit".
        tier: String,
        /// A chunking that would fit.
        suggestion: String,
    },
    /// A routine's input is not of the kind it needs (a linear-algebra routine
    /// given an array that is not a matrix, not square, or wrongly blocked).
    #[error("{routine} needs {needs}, got shape {shape:?}")]
    BadInput {
        /// The routine.
        routine: String,
        /// What it needs.
        needs: String,
        /// The shape given.
        shape: Vec<usize>,
    },
    /// A matrix that must be symmetric positive definite is not (a Cholesky
    /// pivot that is not positive).
    #[error("{routine}: the matrix is not positive definite (pivot {pivot} of {block} is not positive)")]
    NotPositiveDefinite {
        /// The routine.
        routine: String,
        /// The block whose factorization failed, e.g. "diagonal block (2, 2)".
        block: String,
        /// The failing pivot's position within that block.
        pivot: usize,
    },
    /// A matrix that must be invertible is singular (a zero pivot).
    #[error("{routine}: the matrix is singular (zero pivot at {axis} {index}, in {block})")]
    Singular {
        /// The routine.
        routine: String,
        /// The block holding the zero pivot.
        block: String,
        /// "row" or "column".
        axis: String,
        /// The pivot's row or column (within the block or the matrix, as `block` says).
        index: usize,
    },
    /// An iterative factorization (an SVD) did not converge.
    #[error("{routine}: {what} did not converge: {reason}")]
    NoConvergence {
        /// The routine.
        routine: String,
        /// What was being factored.
        what: String,
        /// The kernel's report.
        reason: String,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn invalid(name: &str, value: impl fmt::Debug, reason: impl Into<String>) -> Self {
        Error::InvalidArgument { name: name.to_string(), value: format!("{value:?}"), reason: reason.into() }
    }

    pub(crate) fn io(path: impl fmt::Display, message: impl fmt::Display) -> Self {
        Error::Io { path: path.to_string(), message: message.to_string() }
    }

    pub(crate) fn shape(op: &str, left: &[usize], right: &[usize]) -> Self {
        Error::ShapeMismatch { op: op.to_string(), left: left.to_vec(), right: right.to_vec() }
    }
}
