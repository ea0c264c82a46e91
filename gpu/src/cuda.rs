//! The CUDA side of a device: its context and stream, cuBLAS and cuSOLVER
//! handles and the NVRTC-compiled kernels, each compiled once per device (after
//! [`CUDA_PRELUDE`]) and cached. It knows no devices or buffers: those modules
//! build on it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::cublas::CudaBlas;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};

use crate::{Error, Result, cuda_error};

/// A launch of 256-thread blocks for a kernel whose threads stride over
/// `threads` items (capped at 2^20 blocks: the threads loop over the rest).
pub(crate) fn grid_stride(threads: u64) -> cudarc::driver::LaunchConfig {
    let blocks = threads.div_ceil(256).clamp(1, 1 << 20) as u32;
    cudarc::driver::LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }
}

/// Maps the few CUDA intrinsics the kernel sources use (`bits_f64`,
/// `f64_bits`, `bits_f32`, `mul_hi_u64`, `nan_of`); NVRTC compiles every source after it.
/// Everything else in the sources is plain C++, so that a host compiler can
/// build them with its own definitions of these (chunked's tests do).
pub const CUDA_PRELUDE: &str = r#"
__device__ inline double bits_f64(unsigned long long x) { return __longlong_as_double((long long)x); }
__device__ inline unsigned long long f64_bits(double x) { return (unsigned long long)__double_as_longlong(x); }
__device__ inline float bits_f32(unsigned x) { return __int_as_float((int)x); }
__device__ inline unsigned long long mul_hi_u64(unsigned long long a, unsigned long long b) { return __umul64hi(a, b); }
__device__ inline double nan_of(double) { return bits_f64(0x7FF8000000000000ull); }
__device__ inline float nan_of(float) { return bits_f32(0x7FC00000u); }
"#;

/// What [`CudaState::keep_in_pool`] did.
pub(crate) enum Pooled {
    /// The pool keeps the bytes, filled.
    Kept,
    /// The device has no stream-ordered allocator: every allocation asks the driver.
    NoAllocator,
    /// The device's free memory cannot hold the fill: nothing changed.
    OutOfMemory,
}

pub(crate) struct CudaState {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    blas: OnceLock<Result<CudaBlas>>,
    /// Compiled modules by their source (a fused elementwise chain compiles
    /// once per device, however many blocks run it).
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    /// cuSOLVER's handle on the stream, created on first use (see `solver.rs`).
    pub(crate) solver: Mutex<Option<cudarc::cusolver::safe::DnHandle>>,
}

impl CudaState {
    pub fn new(ordinal: usize) -> Result<CudaState> {
        let ctx = CudaContext::new(ordinal).map_err(cuda_error("cuDevicePrimaryCtxRetain"))?;
        let stream = ctx.default_stream();
        Ok(CudaState {
            ctx,
            stream,
            blas: OnceLock::new(),
            modules: Mutex::new(HashMap::new()),
            solver: Mutex::new(None),
        })
    }

    pub fn zeros<R: DeviceRepr + ValidAsZeroBits>(&self, len: usize) -> Result<CudaSlice<R>> {
        self.stream.alloc_zeros::<R>(len).map_err(cuda_error("cuMemAlloc"))
    }

    /// Keeps up to `bytes` of freed memory in the device's default pool of
    /// the stream-ordered allocator (which cudarc allocates from), instead of
    /// handing it back to the driver at each synchronization, and fills the
    /// pool to that size at once. When the device cannot hold the fill, the
    /// pool keeps its former threshold.
    pub fn keep_in_pool(&self, bytes: usize) -> Result<Pooled> {
        use cudarc::driver::sys::{CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD as THRESHOLD, CUresult};
        let Some(pool) = self.default_pool()? else {
            return Ok(Pooled::NoAllocator);
        };
        let former = self.pool_attribute(pool, THRESHOLD)?;
        let set = |mut threshold: u64| {
            // SAFETY: the pool belongs to this context's device; the
            // attribute takes a u64 that outlives the call.
            unsafe { cudarc::driver::sys::cuMemPoolSetAttribute(pool, THRESHOLD, (&raw mut threshold).cast()) }
                .result()
                .map_err(cuda_error("cuMemPoolSetAttribute"))
        };
        set(bytes as u64)?;
        if bytes == 0 {
            return Ok(Pooled::Kept);
        }
        match self.stream.alloc_zeros::<u8>(bytes) {
            Ok(fill) => drop(fill),
            Err(e) => {
                set(former)?;
                if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                    return Ok(Pooled::OutOfMemory);
                }
                return Err(cuda_error("cuMemAllocAsync")(e));
            }
        }
        self.stream.synchronize().map_err(cuda_error("cuStreamSynchronize"))?;
        Ok(Pooled::Kept)
    }

    /// Bytes the default pool holds from the driver, in use or kept for
    /// reuse (`None` without a stream-ordered allocator).
    pub fn pool_reserved(&self) -> Result<Option<usize>> {
        let attr = cudarc::driver::sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT;
        match self.default_pool()? {
            Some(pool) => Ok(Some(self.pool_attribute(pool, attr)? as usize)),
            None => Ok(None),
        }
    }

    fn pool_attribute(
        &self,
        pool: cudarc::driver::sys::CUmemoryPool,
        attr: cudarc::driver::sys::CUmemPool_attribute,
    ) -> Result<u64> {
        let mut value = 0u64;
        // SAFETY: the pool belongs to this context's device; the byte-count
        // attributes write one u64.
        unsafe { cudarc::driver::sys::cuMemPoolGetAttribute(pool, attr, (&raw mut value).cast()) }
            .result()
            .map_err(cuda_error("cuMemPoolGetAttribute"))?;
        Ok(value)
    }

    /// The device's default pool of the stream-ordered allocator, if it has one.
    fn default_pool(&self) -> Result<Option<cudarc::driver::sys::CUmemoryPool>> {
        if !self.ctx.has_async_alloc() {
            return Ok(None);
        }
        self.ctx.bind_to_thread().map_err(cuda_error("cuCtxSetCurrent"))?;
        let mut pool = std::mem::MaybeUninit::uninit();
        // SAFETY: writes the device's default pool handle into `pool`.
        unsafe { cudarc::driver::sys::cuDeviceGetDefaultMemPool(pool.as_mut_ptr(), self.ctx.cu_device()) }
            .result()
            .map_err(cuda_error("cuDeviceGetDefaultMemPool"))?;
        // SAFETY: initialized by the successful call above.
        Ok(Some(unsafe { pool.assume_init() }))
    }

    pub fn upload<R: DeviceRepr + Unpin>(&self, host: &[R]) -> Result<CudaSlice<R>> {
        self.stream.clone_htod(host).map_err(cuda_error("cuMemcpyHtoD"))
    }

    pub fn download<R: DeviceRepr>(&self, src: &CudaSlice<R>, out: &mut [R]) -> Result<()> {
        self.stream.memcpy_dtoh(src, out).map_err(cuda_error("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(cuda_error("cuStreamSynchronize"))
    }

    /// The function `name` of the module compiled from `source` after
    /// [`CUDA_PRELUDE`] (compiled by NVRTC on first use;
    /// `module` names it in errors).
    pub fn function(&self, module: &str, source: &str, name: &str) -> Result<CudaFunction> {
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        let module = match modules.get(source) {
            Some(m) => m.clone(),
            None => {
                let ptx = compile_ptx(module, source, None)?;
                let loaded = self.ctx.load_module(ptx).map_err(cuda_error("cuModuleLoadData"))?;
                modules.insert(source.to_string(), loaded.clone());
                loaded
            }
        };
        module.load_function(name).map_err(cuda_error("cuModuleGetFunction"))
    }

    pub(crate) fn blas(&self) -> Result<&CudaBlas> {
        self.blas
            .get_or_init(|| {
                // SAFETY: only dlopens cuBLAS by its usual names.
                if !unsafe { cudarc::cublas::sys::is_culib_present() } {
                    return Err(Error::NoDevice { reason: "cuBLAS (libcublas) is not installed".into() });
                }
                CudaBlas::new(self.stream.clone())
                    .map_err(|e| Error::Cuda { call: "cublasCreate".into(), message: format!("{e:?}") })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// PTX of [`CUDA_PRELUDE`] followed by `source`, by NVRTC (which needs no
/// GPU; `module` names the source in errors), for the virtual architecture
/// `arch` (`"compute_90"`; `None`: NVRTC's default, which the driver compiles
/// for the device it runs on).
pub(crate) fn compile_ptx(module: &str, source: &str, arch: Option<&'static str>) -> Result<cudarc::nvrtc::Ptx> {
    // SAFETY: only dlopens NVRTC by its usual names.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(Error::NoDevice { reason: "NVRTC (libnvrtc) is not installed: kernels cannot be compiled".into() });
    }
    // No fused multiply-add contraction, IEEE division and square root:
    // arithmetic rounds as the CPU's does.
    let options = cudarc::nvrtc::CompileOptions {
        fmad: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        ftz: Some(false),
        arch,
        ..Default::default()
    };
    let full = format!("{}{source}", CUDA_PRELUDE);
    cudarc::nvrtc::compile_ptx_with_opts(full, options)
        .map_err(|e| Error::Cuda { call: format!("nvrtc compile of {module}"), message: format!("{e:?}") })
}
