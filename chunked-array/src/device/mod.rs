//! Arrays on a device: blocks in GPU memory (or an emulated device's), as
//! dask users get with CuPy-backed arrays and dask-cuda.
//!
//! An array is placed on a device by [`crate::Array::to_device`]; every layer built on
//! it is placed there too, so a chain of operations stays on the device and
//! [`crate::Array::compute`] copies only the result to the host. Sources moved to a
//! device (random arrays, constants) make their blocks there directly.
//!
//! How a layer on a device runs its blocks:
//! - ops with device kernels take device blocks and make device blocks:
//!   random generation, fused elementwise chains, the partials of sum,
//!   nansum, prod, mean, min and max (var and std take two passes of them),
//!   matmul's block products, custom layers
//!   with a device kernel ([`crate::ops::custom::LayerOp::has_device_kernel`]; the
//!   TSQR, QR and SVD of chunked-linalg are such layers), and the moves;
//! - every other op gets its input blocks copied to the host, runs its CPU
//!   kernel, and its block is copied up to the device. On an emulated device
//!   those copies are memory copies; on a CUDA device they are PCIe/NVLink
//!   transfers, correct but slower than a device kernel would be.
//!
//! Device blocks are counted in the block store against the device memory
//! limit ([`crate::Context::with_device_memory_limit`]); past it the least
//! recently used idle ones move to pinned host buffers ([`PinnedBlock`]),
//! from where they spill on to disk under the host limit, and come back to the
//! device when a task reads them. A task that still finds its device out of
//! memory (kernels allocate scratch the limit does not see) moves idle blocks
//! down and runs again.

pub use crate::block::device::{DeviceBlock, PinnedBlock};
pub use chunked_gpu::{Backend, Device, DeviceBuffer, DeviceElement, PinnedBuffer};
