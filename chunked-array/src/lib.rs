//! Chunked n-dimensional arrays built lazily as block task graphs: the dask.array
//! model for Rust.
//!
//! An [`Array`] is split into blocks ([`Chunks`]); every operation adds a layer to
//! a lazy graph and does no work. [`Array::compute`] optimizes the graph (fusing
//! elementwise chains into one pass per block), materializes the tasks needed for
//! the requested blocks only, orders them to keep memory low, and runs them on a
//! [`Scheduler`] (threaded by default, or [`SyncScheduler`] for debugging).
//!
//! ```
//! use chunked_array::{random::RandomState, Array};
//! let x: Array<f64> = RandomState::new(0).uniform(&[10_000, 100], [1_000, 100]).unwrap();
//! let centered = &x - &x.mean(0).unwrap();
//! let total = centered.pow(2.0).unwrap().sum(None).unwrap();
//! let var = total.compute_scalar().unwrap() / 1e6;
//! assert!((var - 1.0 / 12.0).abs() < 1e-2);
//! ```

pub mod array;
pub mod blockwise;
pub mod chunks;
pub mod contract;
mod creation;
pub mod custom;
pub mod device;
pub mod diagnostics;
mod diagonal;
mod dot;
mod einsum;
mod indexing;
pub mod element;
pub mod elementwise;
pub mod error;
pub mod graph;
pub mod io;
pub mod halo;
mod overlap;
mod manip;
pub mod random;
pub mod rechunk;
pub mod reduce;
mod repeat;
mod reshape;
pub mod schedule;
mod selection;
pub mod slicing;
mod splice;
mod vindex;

pub use array::{compute, Array, Computable};
pub use blockwise::{blockwise, BlockInfo};
pub use chunks::{AxisChunks, ChunkSpec, Chunks, DEFAULT_AUTO_BYTES};
pub use einsum::{einsum, einsum_with, EinsumOrder};
pub use element::{DType, Element, Float, Number};
pub use elementwise::{where_, Operand};
pub use manip::{concatenate, dstack, hstack, stack, vstack};
pub use error::{Error, Result};
pub use graph::task::TaskGraph;
pub use graph::wire::{Wire, WireValue};
pub use graph::{Block, BlockValue, Key, SpillImage};
pub use halo::{Boundary, PadMode};
pub use overlap::{map_overlap_arrays, Overlap};
pub use rechunk::RechunkOptions;
pub use reduce::ReduceOptions;
pub use diagnostics::Profiler;
pub use schedule::{Context, Deliver, RunObserver, RunStats, Scheduler, SyncScheduler, ThreadedScheduler};
pub use selection::SelectOptions;
pub use slicing::Idx;
pub use vindex::VIdx;

/// The README's example, compiled and run as a doctest.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
