//! Reading and writing arrays: Zarr (v2 and v3 read, v3 write), HDF5 (feature
//! `hdf5`) and NumPy's `.npy`.
//!
//! Readers are lazy sources: each block reads only its own region of the file, so
//! `x.slice(..)` of a file-backed array reads only the chunks it touches. Writers
//! are *stores*: one task per block writes the block as soon as it is computed and
//! the scheduler releases it right after, so a store never holds the whole array
//! (dask's `store`/`to_zarr`). Every chunk file appears under its final name only
//! once it is complete (written to a temporary name, then renamed), and a store
//! marks its target incomplete until its last chunk is written, so nothing
//! half-written looks complete. Zarr stores can be resumed after a crash
//! ([`WriteMode::Resume`]).

#[cfg(any(feature = "zarr", feature = "hdf5"))]
mod aligned;
mod atomic;
pub mod cloud;
#[cfg(feature = "hdf5")]
pub mod hdf5;
pub mod npy;
mod store;
#[cfg(feature = "zarr")]
pub mod zarr;

#[cfg(any(feature = "zarr", feature = "hdf5"))]
pub(crate) use aligned::aligned_to_stored_chunks;
pub use store::{Store, StoreReport, WriteMode};
