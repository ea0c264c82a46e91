//! Indexing: basic slicing, `take` and `compress` along an axis, point-wise
//! `vindex`, and boolean selections whose sizes are known only after a run.

pub(crate) mod selection;
pub mod slicing;
pub(crate) mod take;
pub(crate) mod vindex;
