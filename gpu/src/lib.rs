//! GPU support for chunked, through cudarc with dynamic loading: this crate builds
//! and its tests pass on machines with no CUDA at all.
//!
//! cudarc panics when it calls into a CUDA library that is not installed, so every
//! entry point here first checks that the driver library is present and returns
//! [`Error::NoDevice`] when it is not.
//!
//! So far the crate discovers devices; device buffers, cuBLAS, the Philox kernel,
//! cuSOLVER and the device memory pool come with the GPU issue.

use cudarc::driver::CudaContext;

/// Errors of the GPU layer.
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
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A visible CUDA device (after `CUDA_VISIBLE_DEVICES`, which the driver applies).
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
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the driver library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

fn cuda(call: &str) -> impl Fn(cudarc::driver::DriverError) -> Error + '_ {
    move |e| Error::Cuda { call: call.to_string(), message: format!("{e:?}") }
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
    if !driver_present() {
        return Err(Error::NoDevice { reason: "the CUDA driver library (libcuda) is not installed".into() });
    }
    let count = CudaContext::device_count().map_err(|e| Error::NoDevice { reason: format!("cuInit failed: {e:?}") })?;
    if count <= 0 {
        return Err(Error::NoDevice { reason: "the driver reports no devices".into() });
    }
    (0..count as usize)
        .map(|ordinal| {
            let ctx = CudaContext::new(ordinal).map_err(cuda("cuDevicePrimaryCtxRetain"))?;
            Ok(DeviceInfo {
                ordinal,
                name: ctx.name().map_err(cuda("cuDeviceGetName"))?,
                total_memory: ctx.total_mem().map_err(cuda("cuDeviceTotalMem"))?,
                compute_capability: ctx.compute_capability().map_err(cuda("cuDeviceGetAttribute"))?,
            })
        })
        .collect()
}
