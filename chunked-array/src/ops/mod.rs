//! Operations on arrays, one module per family. Each adds its methods to
//! [`crate::Array`] and its layers ([`crate::graph::BlockOp`]s) to the graph;
//! none runs anything until a compute.

pub(crate) mod apply;
pub(crate) mod assign;
pub mod blockwise;
pub(crate) mod broadcast;
pub(crate) mod choices;
pub mod contract;
pub(crate) mod counting;
pub(crate) mod convolution;
pub(crate) mod covariance;
pub(crate) mod creation;
pub mod custom;
pub(crate) mod dynamic;
pub(crate) mod diagonal;
pub(crate) mod differences;
pub(crate) mod einsum;
pub mod fft;
pub(crate) mod gather;
pub(crate) mod gradient;
pub(crate) mod grids;
pub(crate) mod gufunc;
pub mod elementwise;
pub(crate) mod manip;
pub(crate) mod map_many;
pub(crate) mod overlap;
pub mod pad;
pub mod random;
pub mod rechunk;
pub mod reduce;
pub(crate) mod repeat;
pub(crate) mod reshape;
pub mod slicing;
pub(crate) mod sorting;
pub(crate) mod splice;
pub(crate) mod transfer;
#[cfg(test)]
mod unsafe_paths;
