//! Diagnostics: a live dashboard in the browser while computes run
//! ([`Dashboard`]), a progress bar on long computations, and a
//! profiler whose record exports as Chrome-trace JSON (Perfetto opens it) and as
//! one self-contained HTML page with a task stream and a memory chart, like the
//! dask dashboard; and Graphviz pictures of the layers and tasks
//! (`Array::to_dot`, `to_svg`, `task_graph_dot`).

mod dashboard;
pub(crate) mod graphviz;
mod html;
mod profile;
mod progress;
mod span;

pub(crate) use dashboard::ReportTimes;
pub use dashboard::{DEFAULT_DASHBOARD_ADDRESS, Dashboard, DashboardOptions, LAYER_COLOURS};
pub use profile::Profiler;
pub use progress::Progress;
pub use span::{Span, TierMark};
