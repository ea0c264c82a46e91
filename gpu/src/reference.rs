//! The vendor's own operations, as the yardsticks chunked's kernels are
//! measured against: cuRAND's Philox generator and a device-to-device copy
//! (the device's memory bandwidth).

use cudarc::curand::{result as curand, sys as curand_sys};
use cudarc::driver::DevicePtrMut;

use crate::device::DeviceElement;
use crate::{cuda_error, DeviceBuffer, Error, Result};

/// Fills `out` with cuRAND's Philox4x32-10 uniform doubles (its own stream
/// layout, not chunked's: a speed reference, not the same numbers).
///
/// # Errors
/// [`Error::Unsupported`] on an emulated device; [`Error::NoDevice`] without
/// cuRAND; [`Error::Cuda`] when it fails.
pub fn curand_philox_uniform(out: &mut DeviceBuffer<f64>, seed: u64) -> Result<()> {
    let device = out.device().clone();
    let state = device.cuda_state("cuRAND")?;
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
    let generator = curand::create_generator_kind(curand_sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10).map_err(failed("curandCreateGenerator"))?;
    let len = out.len();
    let stream = state.stream.clone();
    let slice = out.cuda_mut().expect("CUDA buffer on a CUDA device");
    // SAFETY: the generator was just created and is destroyed once, below; the
    // pointer covers `len` doubles of `out`, kept alive by the borrow.
    let result = unsafe {
        curand::set_seed(generator, seed)
            .and_then(|_| curand::set_stream(generator, stream.cu_stream() as curand_sys::cudaStream_t))
            .and_then(|_| {
                let (ptr, _sync) = slice.device_ptr_mut(&stream);
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
/// [`Error::Unsupported`] on an emulated device or for lengths that differ;
/// [`Error::Cuda`].
pub fn copy<T: DeviceElement>(src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
    let device = dst.device().clone();
    if src.len() != dst.len() || !src.device().same(&device) {
        return Err(device.unsupported(format!("copy of {} elements on {} into {} elements", src.len(), src.device().describe(), dst.len())));
    }
    let state = device.cuda_state("device copy")?;
    if src.is_empty() {
        return Ok(());
    }
    let (from, to) = (src.cuda().expect("CUDA buffer"), dst.cuda_mut().expect("CUDA buffer"));
    state.stream.memcpy_dtod(from, to).map_err(cuda_error("cuMemcpyDtoD"))
}
