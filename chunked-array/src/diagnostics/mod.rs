//! Diagnostics without a server: a progress bar on long computations, and a
//! profiler whose record exports as Chrome-trace JSON (Perfetto opens it) and as
//! one self-contained HTML page with a task stream and a memory chart, like the
//! dask dashboard; and Graphviz pictures of the layers and tasks
//! (`Array::to_dot`, `to_svg`, `task_graph_dot`).

pub(crate) mod graphviz;
mod html;
mod profile;
mod progress;
mod span;

pub use profile::Profiler;
pub use progress::Progress;
pub use span::{Span, TierMark};
