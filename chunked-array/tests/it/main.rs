//! The integration tests of chunked-array, one binary (each file a module):
//! one link of zarrs, hdf5 and faer instead of one per file.

mod common;
mod support;

mod arrange;
mod assignment;
mod calculus;
mod choosing;
mod device;
mod device_kernels;
mod device_sources;
mod diagnostics;
mod delayed;
mod dtypes;
mod dynamic;
mod einsum;
mod elementwise;
mod futures;
mod ergonomics;
mod graph;
mod counting;
mod distinct;
mod halo;
mod indexing;
mod io_hdf5;
mod io_interop;
mod io_npy;
mod io_resume;
mod io_store;
mod io_write_errors;
mod io_zarr;
mod manipulation;
mod map_blocks;
mod matmul;
mod memory;
mod oversized;
mod random;
mod rechunk;
mod reductions;
mod reshape;
mod slicing;
mod sorting;
mod statistics;
mod ufuncs;
mod user_functions;
mod vindex;
