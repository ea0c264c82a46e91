//! The CUDA side of a device: its context and stream, cuBLAS handle and the
//! NVRTC-compiled kernels, each compiled once per device and cached.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::cublas::{sys::cublasOperation_t, CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream};

use crate::buffer::DeviceBuffer;
use crate::device::{Device, DeviceElement, Operand};
use crate::{cuda_error, Error, Result};

/// A launch of 256-thread blocks for a kernel whose threads stride over
/// `threads` items (capped at 2^20 blocks: the threads loop over the rest).
pub(crate) fn grid_stride(threads: u64) -> cudarc::driver::LaunchConfig {
    let blocks = threads.div_ceil(256).clamp(1, 1 << 20) as u32;
    cudarc::driver::LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }
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
        Ok(CudaState { ctx, stream, blas: OnceLock::new(), modules: Mutex::new(HashMap::new()), solver: Mutex::new(None) })
    }

    pub fn zeros<T: DeviceElement>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.stream.alloc_zeros::<T>(len).map_err(cuda_error("cuMemAlloc"))
    }

    pub fn upload<T: DeviceElement>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        self.stream.clone_htod(host).map_err(cuda_error("cuMemcpyHtoD"))
    }

    pub fn download<T: DeviceElement>(&self, src: &CudaSlice<T>, out: &mut [T]) -> Result<()> {
        self.stream.memcpy_dtoh(src, out).map_err(cuda_error("cuMemcpyDtoH"))?;
        self.stream.synchronize().map_err(cuda_error("cuStreamSynchronize"))
    }

    /// The function `name` of the module compiled from `source` after
    /// [`crate::kernels::CUDA_PRELUDE`] (compiled by NVRTC on first use;
    /// `module` names it in errors).
    pub fn function(&self, module: &str, source: &str, name: &str) -> Result<CudaFunction> {
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        let module = match modules.get(source) {
            Some(m) => m.clone(),
            None => {
                // SAFETY: only dlopens NVRTC by its usual names.
                if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
                    return Err(Error::NoDevice { reason: "NVRTC (libnvrtc) is not installed: kernels cannot be compiled".into() });
                }
                // No fused multiply-add contraction, IEEE division and square
                // root: arithmetic rounds as the CPU's does.
                let options = cudarc::nvrtc::CompileOptions { fmad: Some(false), prec_div: Some(true), prec_sqrt: Some(true), ftz: Some(false), ..Default::default() };
                let full = format!("{}{source}", crate::kernels::CUDA_PRELUDE);
                let ptx = cudarc::nvrtc::compile_ptx_with_opts(full, options).map_err(|e| Error::Cuda { call: format!("nvrtc compile of {module}"), message: format!("{e:?}") })?;
                let loaded = self.ctx.load_module(ptx).map_err(cuda_error("cuModuleLoadData"))?;
                modules.insert(source.to_string(), loaded.clone());
                loaded
            }
        };
        module.load_function(name).map_err(cuda_error("cuModuleGetFunction"))
    }

    fn blas(&self) -> Result<&CudaBlas> {
        self.blas
            .get_or_init(|| {
                // SAFETY: only dlopens cuBLAS by its usual names.
                if !unsafe { cudarc::cublas::sys::is_culib_present() } {
                    return Err(Error::NoDevice { reason: "cuBLAS (libcublas) is not installed".into() });
                }
                CudaBlas::new(self.stream.clone()).map_err(|e| Error::Cuda { call: "cublasCreate".into(), message: format!("{e:?}") })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Row-major `c = alpha op(a) op(b) + beta c` as cuBLAS's column-major
    /// `c^T = op(b)^T op(a)^T`: a row-major matrix is its transpose in column
    /// major, so the operands swap and keep their own transpose flags.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm<T: DeviceElement>(&self, device: &Device, (m, n, k): (usize, usize, usize), alpha: T, a: Operand<'_, T>, b: Operand<'_, T>, beta: T, c: &mut DeviceBuffer<T>) -> Result<()> {
        let int = |x: usize| i32::try_from(x).map_err(|_| device.unsupported(format!("gemm size {x} exceeds cuBLAS's 32-bit sizes")));
        let op = |t: bool| if t { cublasOperation_t::CUBLAS_OP_T } else { cublasOperation_t::CUBLAS_OP_N };
        let (mi, ni, ki, lda, ldb) = (int(m)?, int(n)?, int(k)?, int(b.ld)?, int(a.ld)?);
        if m == 0 || n == 0 {
            return Ok(());
        }
        if k == 0 {
            // An empty sum: c = beta c, for the betas used (0 and 1).
            if beta == T::default() {
                let c = c.cuda_mut().expect("CUDA buffer on a CUDA device");
                self.stream.memset_zeros(c).map_err(cuda_error("cuMemsetD8"))?;
            } else if beta != T::MUL_IDENTITY {
                return Err(device.unsupported(format!("gemm with an empty inner dimension and beta {beta:?} (only 0 and 1 scale c)")));
            }
            return Ok(());
        }
        let blas = self.blas()?;
        let a_slice = a.buffer.cuda().expect("CUDA buffer on a CUDA device");
        let b_slice = b.buffer.cuda().expect("CUDA buffer on a CUDA device");
        let c = c.cuda_mut().expect("CUDA buffer on a CUDA device");
        let failed = |e: cudarc::cublas::result::CublasError| Error::Cuda { call: "cublas gemm".into(), message: format!("{e:?}") };
        macro_rules! call {
            ($t:ty) => {
                if let (Some(a_all), Some(b_all), Some(c), Some(&alpha), Some(&beta)) = (
                    (a_slice as &dyn Any).downcast_ref::<CudaSlice<$t>>(),
                    (b_slice as &dyn Any).downcast_ref::<CudaSlice<$t>>(),
                    (c as &mut dyn Any).downcast_mut::<CudaSlice<$t>>(),
                    (&alpha as &dyn Any).downcast_ref::<$t>(),
                    (&beta as &dyn Any).downcast_ref::<$t>(),
                ) {
                    let cfg = GemmConfig { transa: op(b.transpose), transb: op(a.transpose), m: ni, n: mi, k: ki, alpha, lda, ldb, beta, ldc: ni };
                    // SAFETY: Device::gemm checked that each operand's extent
                    // fits its buffer and that c holds m x n elements.
                    let (av, bv) = (a_all.slice(a.offset..), b_all.slice(b.offset..));
                    return unsafe { blas.gemm(cfg, &bv, &av, c) }.map_err(failed);
                }
            };
        }
        call!(f64);
        call!(f32);
        Err(device.unsupported(format!("gemm of {} (cuBLAS has f32 and f64)", T::C_NAME)))
    }
}
