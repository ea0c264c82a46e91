//! GPU support for chunked (what CuPy is to dask arrays), through cudarc with
//! dynamic loading: this crate builds and its tests pass on machines with no
//! CUDA at all.
//!
//! - [`Device`]: a CUDA device, or an *emulated* one (host memory behind the same
//!   interface, with its own capacity) so that dispatch, memory accounting and
//!   spilling run and are tested on machines without a GPU.
//! - [`DeviceBuffer`]: elements in a device's memory, counted against the
//!   device's capacity while they live; [`PinnedBuffer`]: their copies in
//!   page-locked host memory, where device blocks spill to.
//! - Kernels on CUDA devices: the Philox random fill ([`philox`], the same
//!   stream as chunked's CPU generator), cuBLAS gemm ([`Device::gemm`]) and
//!   cuSOLVER's QR and SVD ([`Device::qr_packed`], [`Device::svd`]). On an
//!   emulated device the buffers are host slices ([`DeviceBuffer::host`]) and
//!   callers run their CPU kernels on them.
//!
//! cudarc panics when it calls into a CUDA library that is not installed, so every
//! entry point here first checks that the library is present and returns
//! [`Error::NoDevice`] when it is not.

// The modules form layers, each using only the ones below it: `element` (the
// element types), `cuda` (context, stream, library handles, compiled kernels),
// `device`, `buffer`, then the operations on buffers (`gemm`, `pinned`,
// `solver`, `kernels`, and `reduce` on `kernels`).
mod buffer;
mod cuda;
mod device;
mod element;
mod gemm;
pub mod kernels;
pub mod philox;
mod pinned;
pub mod reduce;
mod solver;

pub use buffer::DeviceBuffer;
pub use device::{Backend, Device};
pub use element::{ComplexBits, DeviceElement};
pub use gemm::Operand;
pub use pinned::PinnedBuffer;
pub use solver::{SOLVER_SOURCE, SolverElement, SvdFactors};

use cudarc::driver::CudaContext;

/// Errors of the GPU layer.
///
/// ```
/// use chunked_gpu::{Device, Error};
/// let dev = Device::emulated(16);
/// let e = dev.zeros::<f64>(4).unwrap_err(); // 32 bytes into 16
/// assert!(matches!(e, Error::OutOfMemory { requested: 32, in_use: 0, capacity: 16, .. }));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable CUDA driver or device; `reason` says which.
    #[error("no CUDA device: {reason}")]
    NoDevice {
        /// Why no device is usable.
        reason: String,
    },
    /// A CUDA call failed.
    #[error("CUDA error in {call}: {message}")]
    Cuda {
        /// The call that failed.
        call: String,
        /// The driver's message.
        message: String,
    },
    /// An allocation does not fit the device's memory.
    #[error("device {device} out of memory: {requested} bytes requested, {in_use} of {capacity} bytes in use")]
    OutOfMemory {
        /// The device, as [`Device::describe`] names it.
        device: String,
        /// Bytes asked for.
        requested: usize,
        /// Bytes allocated when it was asked.
        in_use: usize,
        /// The device's capacity.
        capacity: usize,
    },
    /// An operation the device cannot do (a kernel asked of an emulated device,
    /// buffers of two devices mixed, wrong lengths); `what` says which.
    #[error("unsupported on device {device}: {what}")]
    Unsupported {
        /// The device.
        device: String,
        /// What was asked.
        what: String,
    },
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A visible CUDA device (after `CUDA_VISIBLE_DEVICES`, which the driver applies).
///
/// ```
/// // Empty on a machine without CUDA.
/// for (i, info) in chunked_gpu::devices().unwrap_or_default().iter().enumerate() {
///     assert_eq!(info.ordinal, i);
///     assert!(info.total_memory > 0 && info.compute_capability.0 >= 1);
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Ordinal among the visible devices.
    pub ordinal: usize,
    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Total device memory in bytes.
    pub total_memory: usize,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
}

/// Whether the CUDA driver library can be loaded on this machine.
///
/// ```
/// if !chunked_gpu::driver_present() {
///     assert!(chunked_gpu::device_count().is_err());
///     assert!(chunked_gpu::Device::cuda(0).is_err());
/// }
/// ```
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the driver library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

pub(crate) fn cuda_error(call: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::Cuda { call: call.to_string(), message: format!("{e:?}") }
}

/// Number of visible CUDA devices.
///
/// ```
/// use chunked_gpu::Error;
/// match chunked_gpu::device_count() {
///     Ok(n) => assert_eq!(chunked_gpu::devices().unwrap().len(), n),
///     Err(e) => assert!(matches!(e, Error::NoDevice { .. })),
/// }
/// ```
///
/// # Errors
/// [`Error::NoDevice`] without a driver library, when `cuInit` fails or with no device.
pub fn device_count() -> Result<usize> {
    if !driver_present() {
        return Err(Error::NoDevice { reason: "the CUDA driver library (libcuda) is not installed".into() });
    }
    let count = CudaContext::device_count().map_err(|e| Error::NoDevice { reason: format!("cuInit failed: {e:?}") })?;
    if count <= 0 {
        return Err(Error::NoDevice { reason: "the driver reports no devices".into() });
    }
    Ok(count as usize)
}

/// The visible devices.
///
/// ```
/// match chunked_gpu::devices() {
///     Ok(list) => assert!(!list.is_empty()),
///     Err(e) => println!("running on the CPU: {e}"),
/// }
/// ```
///
/// # Errors
/// [`Error::NoDevice`] without a driver library or with no device;
/// [`Error::Cuda`] when the driver fails.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    (0..device_count()?)
        .map(|ordinal| {
            let ctx = CudaContext::new(ordinal).map_err(cuda_error("cuDevicePrimaryCtxRetain"))?;
            Ok(DeviceInfo {
                ordinal,
                name: ctx.name().map_err(cuda_error("cuDeviceGetName"))?,
                total_memory: ctx.total_mem().map_err(cuda_error("cuDeviceTotalMem"))?,
                compute_capability: ctx.compute_capability().map_err(cuda_error("cuDeviceGetAttribute"))?,
            })
        })
        .collect()
}
