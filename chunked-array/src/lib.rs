//! Chunked n-dimensional arrays built lazily as block task graphs: the dask.array
//! model for Rust.
//!
//! An [`Array`] is split into blocks ([`Chunks`]); every operation adds a layer to
//! a lazy graph and does no work. [`Array::compute`] optimizes the graph (fusing
//! elementwise chains into one pass per block), materializes the tasks needed for
//! the requested blocks only, orders them to keep memory low, and runs them on a
//! [`Scheduler`] (threaded by default, or [`SyncScheduler`] for debugging).
//! `docs/dask-users.md` in the repository maps dask.array's whole API onto this
//! crate's names.
//!
//! ```
//! use chunked_array::{random::RandomState, Array};
//! # fn main() -> Result<(), chunked_array::Error> {
//! let x: Array<f64> = RandomState::new(0).uniform(&[10_000, 100], [1_000, 100])?;
//! let centered = &x - &x.mean(0)?;
//! let total = centered.pow(2.0)?.sum(None)?;
//! let var = total.compute_scalar()? / 1e6;
//! assert!((var - 1.0 / 12.0).abs() < 1e-2);
//! # Ok(()) }
//! ```
//!
//! # Slicing, results and ndarray
//!
//! - [`s!`] writes NumPy's index expressions: `x.slice(s![..5, 1..;2, -1, NewAxis, ...])?`
//!   is `x[:5, 1::2, -1, None, ...]`, negative steps included.
//! - [`Array::compute`] returns an `ndarray::ArrayD`; [`Array::compute_as`]
//!   an array of a fixed dimension (`compute_as::<Ix2>()`), checked before
//!   anything runs; [`Array::compute_scalar`] the value of a 0-d array. The
//!   dimension stays a run-time property of [`Array`] (as in NumPy and dask),
//!   since reshapes, reductions and index expressions change it from values,
//!   and a type parameter for it would appear in every signature.
//! - [`Array::from_ndarray`] takes owned arrays (moved), views (copied once)
//!   and `ArcArray`s; [`Array::from_vec`] and [`Array::from_slice`] take flat
//!   data with a shape. [`ndarray`] is re-exported, so results and inputs use
//!   the version this crate is built with.
//!
//! ```
//! use chunked_array::{Array, ndarray::{Ix2, array}, s};
//! # fn main() -> Result<(), chunked_array::Error> {
//! let x = Array::from_vec(&[3, 4], (0..12).collect(), [2, 2])?;
//! let corner = x.slice(s![..2, ..;-2])?.compute_as::<Ix2>()?; // x[:2, ::-2]
//! assert_eq!(corner, array![[3, 1], [7, 5]]);
//! # Ok(()) }
//! ```
//!
//! # Errors: one rule
//!
//! Every fallible call returns [`Result`] with the one [`Error`] type, which
//! chunked-linalg's failures are variants of, so one `?` takes both crates'.
//!
//! - A method returns `Result` when its own arguments can be wrong (shapes
//!   that do not broadcast, an axis or index out of range, chunks that do not
//!   fit): `sum`, `slice`, `matmul`, `pow`, `gt`, `maximum`, `reshape`, ... The
//!   error comes at once, when the graph is built, naming the values.
//! - Operators (`+ - * / %`, unary `-`, and `& | ^ !` on `Array<bool>`) cannot
//!   return `Result`, and methods whose arguments cannot be wrong (`sqrt`,
//!   `exp`, `abs`, `clip`, `map`, `astype`, `t`, `to_device`, ...) need not:
//!   they return an [`Array`]. None of them panics. Given operands that do not
//!   broadcast, or an input that already carries an error, the result carries
//!   it, and the next `Result`-returning call on it (or [`Array::check`], or
//!   `compute`) reports it with both shapes.
//! - Errors while running name the task (a layer and a block index) or the
//!   file; a task that cannot fit the memory limit is refused before the run.
//!
//! ```
//! use chunked_array::{Array, Error};
//! let a = Array::<f64>::ones(&[3, 4], 2).unwrap();
//! let b = Array::<f64>::ones(&[5], 2).unwrap();
//! let c = (&a + &b).sqrt(); // no panic: the error travels with `c`
//! match c.sum(None) {
//!     Err(Error::ShapeMismatch { left, right, .. }) => assert_eq!((left, right), (vec![3, 4], vec![5])),
//!     other => panic!("{other:?}"),
//! }
//! ```

// The floors, bottom to top: each imports only the ones listed before it
// (see ARCHITECTURE.md).
mod element;
mod error;
mod units;
mod chunks;
pub mod kernels;
mod block;
mod graph;
mod events;
mod memory;
mod schedule;
pub mod diagnostics;
mod exec;
mod array;
pub mod device;
mod ops;
pub mod delayed;
pub mod futures;
mod index;
pub mod io;

/// The ndarray version this crate is built with, for results and inputs.
pub use ndarray;

pub use array::{Array, Computable, ComputePart, PersistPart, Persistable, compute, persist};
pub use chunks::{AxisChunks, BlockSizeOptions, ChunkSpec, Chunks, DEFAULT_AUTO_BYTES, MAX_BLOCKS};
pub use diagnostics::{Profiler, Progress};
pub use element::{ComplexFloat, DType, Element, Float, Inexact, Integer, Number, Promote, Real};
pub use error::{Error, Result};
pub use exec::Context;
pub use index::selection::SelectOptions;
pub use index::unique::{Unique, UniqueOptions};
pub use index::vindex::VIdx;
pub use memory::TierStats;
/// num-complex's complex types, the element types of NumPy's `complex64`
/// ([`Complex32`]) and `complex128` ([`Complex64`]).
#[doc(no_inline)]
pub use num_complex::{Complex, Complex32, Complex64};
pub use ops::blockwise::{BlockInfo, Indexed, blockwise};
pub use ops::choices::{Piece, choose, select};
pub use ops::contract::{Gemm, MatmulOptions};
pub use ops::convolution::ConvolveMode;
pub use ops::counting::{Bins, HistogramDdOptions, HistogramOptions, histogram2d};
pub use ops::dynamic::AnyArray;
pub use ops::einsum::{EinsumOptions, EinsumOrder, einsum, einsum_with};
pub use ops::elementwise::{CloseOptions, Operand, where_};
pub use ops::gradient::{GradientOptions, Spacing};
pub use ops::grids::{Indexing, meshgrid};
pub use ops::gufunc::{GufuncOptions, apply_gufunc};
pub use ops::manip::{Nested, block, concatenate, dstack, hstack, stack, vstack};
pub use ops::map_many::{map_blocks2, map_blocks3};
pub use ops::overlap::{Overlap, map_overlap_arrays};
pub use ops::pad::{Boundary, PadMode};
pub use ops::rechunk::RechunkOptions;
pub use ops::reduce::user::reduction;
pub use ops::reduce::{QuantileMethod, QuantileOptions, ReduceOptions, ReductionOptions};
pub use ops::slicing::{Idx, IndexValue, RangeEnd, SliceRange};
pub use ops::{custom, fft, random};
pub use schedule::{RunStats, Scheduler, SyncScheduler, ThreadedScheduler};
pub use units::{human_bytes, parse_bytes};

/// What scheduler implementors and custom layers need beyond the user API:
/// task graphs, blocks and their wire and spill forms, the block store and
/// memory limits, run events and observers, and allocation controls.
pub mod runtime {
    pub use crate::block::alloc::{
        HUGE_PAGE_MIN_BYTES, block_vec, full_block, owned_block, release_memory, set_huge_pages, tune_allocator,
        uninit_block,
    };
    pub use crate::block::{Block, BlockValue, Rebuild, SpillImage};
    pub use crate::element::WireValue;
    pub use crate::events::{
        Clock, NoObserver, Observer, RunInfo, RunObserver, TaskEvent, TierEvent, TierEventKind, TransferEvent,
    };
    pub use crate::graph::task::{TaskGraph, panic_message};
    pub use crate::graph::wire::Wire;
    pub use crate::graph::{Key, Placement};
    pub use crate::memory::{BlockStore, MemoryConfig, physical_memory};
    pub use crate::schedule::spread::{owned_range, owner_of, process_count, set_process_count};
    pub use crate::schedule::{Deliver, OutputSink, Run};
}

/// Entry points for the fuzz targets under `fuzz/`, built only by `cargo
/// fuzz` (which sets `--cfg fuzzing`): readers of outside bytes that the
/// public API reaches only through files of its own making.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    /// Reads `bytes` as one spill record of elements, then as one of an
    /// opaque image; whether either gave a block.
    pub fn spill_record(bytes: &[u8]) -> bool {
        let len = bytes.len() as u64;
        let elements = crate::memory::spill::read_record(&mut &bytes[..], len, None).is_ok();
        let rebuild: crate::block::Rebuild = |b| {
            let image = ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[b.len()]), b.to_vec()).ok()?;
            Some(std::sync::Arc::new(image) as crate::block::Block)
        };
        let opaque = crate::memory::spill::read_record(&mut &bytes[..], len, Some(rebuild)).is_ok();
        elements || opaque
    }
}
