//! The vendor's own operations on a CUDA device, as the yardsticks chunked's
//! kernels are measured against: cuRAND's Philox generator and a
//! device-to-device copy (the device's memory bandwidth). They call cudarc
//! directly, on buffers of their own, so that a yardstick shares no code with
//! what it measures.

use std::sync::Arc;

use chunked_gpu::{Error, Result};
use cudarc::curand::{result as curand, sys as curand_sys};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, DriverError};

fn driver_error(call: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::Cuda { call: call.to_string(), message: format!("{e:?}") }
}

/// A CUDA device's default stream, in the primary context that chunked's
/// `Device::cuda` also uses.
pub struct CudaReference {
    ordinal: usize,
    stream: Arc<CudaStream>,
}

impl CudaReference {
    /// Visible CUDA device `ordinal`.
    ///
    /// # Errors
    /// [`Error::NoDevice`] without a driver or device; [`Error::Cuda`].
    pub fn new(ordinal: usize) -> Result<CudaReference> {
        chunked_gpu::device_count()?;
        let ctx = CudaContext::new(ordinal).map_err(driver_error("cuDevicePrimaryCtxRetain"))?;
        Ok(CudaReference { ordinal, stream: ctx.default_stream() })
    }

    /// `len` zeros on the device.
    ///
    /// # Errors
    /// [`Error::Cuda`] when the allocation fails.
    pub fn zeros(&self, len: usize) -> Result<CudaSlice<f64>> {
        self.stream.alloc_zeros::<f64>(len).map_err(driver_error("cuMemAlloc"))
    }

    /// Waits for the stream's queued work.
    ///
    /// # Errors
    /// [`Error::Cuda`] when that work failed.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(driver_error("cuStreamSynchronize"))
    }

    /// Fills `out` with cuRAND's Philox4x32-10 uniform doubles (its own stream
    /// layout, not chunked's: a speed reference, not the same numbers).
    ///
    /// # Errors
    /// [`Error::NoDevice`] without cuRAND; [`Error::Cuda`] when it fails.
    pub fn curand_philox_uniform(&self, out: &mut CudaSlice<f64>, seed: u64) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: only dlopens cuRAND by its usual names.
        if !unsafe { curand_sys::is_culib_present() } {
            return Err(Error::NoDevice { reason: "cuRAND (libcurand) is not installed".into() });
        }
        fn failed(call: &'static str) -> impl Fn(curand::CurandError) -> Error {
            move |e| Error::Cuda { call: call.to_string(), message: format!("{e:?}") }
        }
        let generator = curand::create_generator_kind(curand_sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10)
            .map_err(failed("curandCreateGenerator"))?;
        let len = out.len();
        let stream = &self.stream;
        // SAFETY: the generator was just created and is destroyed once, below; the
        // pointer covers `len` doubles of `out`, kept alive by the borrow.
        let result = unsafe {
            curand::set_seed(generator, seed)
                .and_then(|_| curand::set_stream(generator, stream.cu_stream() as curand_sys::cudaStream_t))
                .and_then(|_| {
                    let (ptr, _sync) = out.device_ptr_mut(stream);
                    curand::generate::uniform_f64(generator, ptr as *mut f64, len)
                })
        };
        // SAFETY: created above, destroyed once.
        let destroyed = unsafe { curand::destroy_generator(generator) };
        result.map_err(failed("curandGenerateUniformDouble"))?;
        destroyed.map_err(failed("curandDestroyGenerator"))
    }

    /// Copies `src` into `dst` on the device (the same length).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for lengths that differ; [`Error::Cuda`].
    pub fn copy(&self, src: &CudaSlice<f64>, dst: &mut CudaSlice<f64>) -> Result<()> {
        if src.len() != dst.len() {
            return Err(Error::Unsupported {
                device: format!("cuda:{}", self.ordinal),
                what: format!("copy of {} elements into {}", src.len(), dst.len()),
            });
        }
        if src.is_empty() {
            return Ok(());
        }
        self.stream.memcpy_dtod(src, dst).map_err(driver_error("cuMemcpyDtoD"))
    }
}
