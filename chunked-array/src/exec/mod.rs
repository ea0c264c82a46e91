//! Running graphs: the [`Context`] a run uses and the driver that takes layers
//! to blocks (optimize, materialize, check, schedule, collect).

mod context;
mod run;

pub use context::Context;
pub(crate) use context::shared_from_root;
pub(crate) use run::{Assemble, Collector, Hold, run, run_blocks, run_selected};
