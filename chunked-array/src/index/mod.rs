//! Advanced indexing, above the operations it is built from: `take` and
//! `compress` along an axis, point-wise `vindex`, and boolean selections whose
//! sizes are known only after a run. Basic slicing is an operation
//! (`ops::slicing`): other operations (flip, roll, insert, delete) slice.

pub(crate) mod selection;
pub(crate) mod take;
pub(crate) mod unique;
pub(crate) mod vindex;
