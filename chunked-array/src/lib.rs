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

// The floors, bottom to top: each imports only the ones listed before it
// (see ARCHITECTURE.md).
mod element;
mod error;
mod units;
mod chunks;
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
mod index;
pub mod io;

/// The ndarray version this crate is built with, for results and inputs.
pub use ndarray;

pub use array::{Array, Computable, compute};
pub use chunks::{AxisChunks, BlockSizeOptions, ChunkSpec, Chunks, DEFAULT_AUTO_BYTES, MAX_BLOCKS};
pub use diagnostics::{Profiler, Progress};
pub use element::{DType, Element, Float, Number};
pub use error::{Error, Result};
pub use exec::Context;
pub use index::selection::SelectOptions;
pub use index::vindex::VIdx;
pub use memory::TierStats;
pub use ops::blockwise::{BlockInfo, Indexed, blockwise};
pub use ops::contract::{Gemm, MatmulOptions};
pub use ops::einsum::{EinsumOptions, EinsumOrder, einsum, einsum_with};
pub use ops::elementwise::{Operand, where_};
pub use ops::manip::{concatenate, dstack, hstack, stack, vstack};
pub use ops::overlap::{Overlap, map_overlap_arrays};
pub use ops::pad::{Boundary, PadMode};
pub use ops::rechunk::RechunkOptions;
pub use ops::reduce::ReduceOptions;
pub use ops::slicing::{Idx, IndexValue, RangeEnd, SliceRange};
pub use ops::{custom, random};
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
    pub use crate::events::{Clock, NoObserver, Observer, RunInfo, RunObserver, TaskEvent, TierEvent, TierEventKind};
    pub use crate::graph::task::TaskGraph;
    pub use crate::graph::wire::Wire;
    pub use crate::graph::{Key, Placement};
    pub use crate::memory::{BlockStore, MemoryConfig, physical_memory};
    pub use crate::schedule::{Deliver, OutputSink, Run};
}
