//! Dense factorizations of row-major matrices in device memory, by cuSOLVER:
//! thin QR (geqrf + orgqr) and the SVD of a wide or square matrix (gesvd), the
//! per-block kernels of chunked's TSQR and SVD on a GPU.
//!
//! chunked's blocks are row-major; cuSOLVER is column-major. A row-major
//! `m x n` buffer is the column-major `n x m` transpose, so:
//! - QR transposes the block into column-major scratch (a layout kernel),
//!   factors it there, and writes Q and R back out row-major;
//! - the SVD of a wide matrix (m <= n) needs no transpose at all: gesvd of the
//!   column-major `Aᵀ = U' S V'ᵀ` gives `A = V' S U'ᵀ`, and `V'ᵀ` (m x m) and
//!   `U'` (n x m) in column-major are exactly `A`'s U and Vᵀ in row-major.
//!
//! On an emulated device these return [`Error::Unsupported`]: callers run
//! their CPU kernels on the host slices, as for gemm.

use std::ffi::c_int;
use std::ops::Range;

use cudarc::cusolver::safe::DnHandle;
use cudarc::cusolver::sys::{self as cusolver_sys, cusolverDnHandle_t, cusolverStatus_t};
use cudarc::driver::{DevicePtr, DevicePtrMut, PushKernelArg};

use crate::buffer::DeviceBuffer;
use crate::cuda::{CudaState, grid_stride};
use crate::device::Device;
use crate::element::DeviceElement;
use crate::{Error, Result, cuda_error};

mod routines;

/// Element types cuSOLVER factors: `f32` and `f64`.
///
/// ```
/// use chunked_gpu::{Device, SolverElement};
/// fn singular_values<T: SolverElement>(dev: &Device, a: &[T], m: usize, n: usize) -> chunked_gpu::Result<Vec<T>> {
///     dev.svd(&dev.upload(a)?, (m, n))?.s.download()
/// }
/// let dev = Device::emulated(1 << 10);
/// assert!(singular_values(&dev, &[1.0f32, 0.0, 0.0, 1.0], 2, 2).is_err()); // cuSOLVER only
/// ```
pub trait SolverElement: DeviceElement + routines::Routines {}
impl SolverElement for f64 {}
impl SolverElement for f32 {}

/// The solver's own kernels:
/// - `col_to_row`: a column-major matrix (leading dimension `ld`) written out
///   row-major, optionally keeping only its upper triangle (R out of geqrf's
///   output). With the dimensions swapped it also turns row-major into
///   column-major. One thread per output element, so writes are coalesced.
/// - `svd_flip`: the SVD's deterministic signs.
pub const SOLVER_SOURCE: &str = r#"
template <typename T>
__device__ void col_to_row(const T* src, long long ld, long long rows, long long cols, int upper, T* dst) {
    long long n = rows * cols;
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += step) {
        long long i = e / cols, j = e % cols;
        dst[e] = (upper && j < i) ? (T)0 : src[i + j * ld];
    }
}
// Deterministic signs, as chunked's host SVD (dask's svd_flip with
// u_based_decision=False): the entry of largest magnitude of every row of vt
// (m x n) is made positive, flipping the matching column of u (m x m).
template <typename T>
__device__ void svd_flip(T* u, T* vt, long long m, long long n) {
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += step) {
        T* row = vt + j * n;
        long long best = 0;
        for (long long i = 1; i < n; i++) if (fabs(row[i]) > fabs(row[best])) best = i;
        if (n > 0 && row[best] < (T)0) {
            for (long long i = 0; i < n; i++) row[i] = -row[i];
            for (long long i = 0; i < m; i++) u[i * m + j] = -u[i * m + j];
        }
    }
}
extern "C" __global__ void svd_flip_f64(double* u, double* vt, long long m, long long n) { svd_flip<double>(u, vt, m, n); }
extern "C" __global__ void svd_flip_f32(float* u, float* vt, long long m, long long n) { svd_flip<float>(u, vt, m, n); }
extern "C" __global__ void col_to_row_f64(const double* src, long long ld, long long rows, long long cols, int upper, double* dst) {
    col_to_row<double>(src, ld, rows, cols, upper, dst);
}
extern "C" __global__ void col_to_row_f32(const float* src, long long ld, long long rows, long long cols, int upper, float* dst) {
    col_to_row<float>(src, ld, rows, cols, upper, dst);
}
"#;

/// The thin SVD of a row-major wide or square matrix: `a = u diag(s) vt`.
///
/// ```
/// use chunked_gpu::{Device, Error};
/// # fn main() -> chunked_gpu::Result<()> {
/// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20)); // emulated: no cuSOLVER
/// let a = dev.upload(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3
/// match dev.svd(&a, (2, 3)) {
///     Ok(f) => assert_eq!((f.u.len(), f.s.len(), f.vt.len()), (4, 2, 6)),
///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
/// }
/// # Ok(()) }
/// ```
pub struct SvdFactors<T: DeviceElement> {
    /// `m x m` left singular vectors, row-major.
    pub u: DeviceBuffer<T>,
    /// The `m` singular values, non-increasing.
    pub s: DeviceBuffer<T>,
    /// `m x n` right singular vectors as rows, row-major.
    pub vt: DeviceBuffer<T>,
}

fn int(device: &Device, what: &str, x: usize) -> Result<c_int> {
    c_int::try_from(x).map_err(|_| device.unsupported(format!("{what} {x} exceeds cuSOLVER's 32-bit sizes")))
}

fn status(call: &str, s: cusolverStatus_t) -> Result<()> {
    if s == cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cuda { call: call.into(), message: format!("{s:?}") })
    }
}

/// Fails when a cuSOLVER routine reported a bad argument or no convergence
/// in its device `info`.
fn check_info(routine: &str, info: *const c_int, stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> Result<()> {
    let mut code: c_int = 0;
    // SAFETY: `info` points to one device int the routine wrote on `stream`;
    // the synchronous copy waits for it.
    unsafe {
        cudarc::driver::result::memcpy_dtoh_async(
            std::slice::from_mut(&mut code),
            info as cudarc::driver::sys::CUdeviceptr,
            stream.cu_stream(),
        )
        .map_err(cuda_error("cuMemcpyDtoH"))?;
    }
    stream.synchronize().map_err(cuda_error("cuStreamSynchronize"))?;
    if code != 0 {
        let why = if code < 0 {
            format!("argument {} was invalid", -code)
        } else {
            format!("{code} superdiagonals did not converge")
        };
        return Err(Error::Cuda { call: format!("cusolverDn {routine}"), message: why });
    }
    Ok(())
}

impl Device {
    /// A new buffer holding the elements `range` of each part, one after the
    /// other (a block's sub-matrix of whole rows, R factors stacked). Works on
    /// every device.
    ///
    /// ```
    /// let dev = chunked_gpu::Device::emulated(1 << 10);
    /// let a = dev.upload(&[1i32, 2, 3, 4]).unwrap();
    /// let b = dev.upload(&[5i32, 6]).unwrap();
    /// let g = dev.gather(&[(&a, 2..4), (&b, 0..1)]).unwrap();
    /// assert_eq!(g.download().unwrap(), vec![3, 4, 5]);
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a part on another device or a range outside
    /// its buffer; [`Error::OutOfMemory`]; [`Error::Cuda`].
    pub fn gather<T: DeviceElement>(&self, parts: &[(&DeviceBuffer<T>, Range<usize>)]) -> Result<DeviceBuffer<T>> {
        for (buffer, range) in parts {
            if !buffer.device.same(self) || range.start > range.end || range.end > buffer.len {
                return Err(self.unsupported(format!(
                    "gather of elements {range:?} of {} elements on {}",
                    buffer.len,
                    buffer.device.describe()
                )));
            }
        }
        let len = parts.iter().map(|(_, r)| r.len()).sum();
        if self.is_emulated() {
            let mut out = Vec::with_capacity(len);
            for (buffer, range) in parts {
                out.extend_from_slice(&buffer.host().expect("host memory of an emulated device")[range.clone()]);
            }
            return self.upload_vec(out);
        }
        let mut out = self.zeros::<T>(len)?;
        let state = self.cuda_state("gather")?;
        let mut at = 0;
        for (buffer, range) in parts.iter().filter(|(_, r)| !r.is_empty()) {
            let src = buffer.cuda().expect("CUDA buffer on a CUDA device").slice(range.clone());
            let dst = out.cuda_mut().expect("CUDA buffer on a CUDA device");
            let mut dst = dst.slice_mut(at..at + range.len());
            state.stream.memcpy_dtod(&src, &mut dst).map_err(cuda_error("cuMemcpyDtoD"))?;
            at += range.len();
        }
        Ok(out)
    }

    /// The thin QR `a = q r` of the row-major `m x n` matrix `a` by cuSOLVER
    /// (geqrf, orgqr: the Householder QR LAPACK computes), packed in one
    /// buffer: `q` (`m x k`, orthonormal columns) then `r` (`k x n`, upper
    /// triangular), both row-major, k = min(m, n). One buffer, so that a QR
    /// holds its input, a column-major copy and its result, nothing more.
    ///
    /// ```
    /// use chunked_gpu::{Device, Error};
    /// # fn main() -> chunked_gpu::Result<()> {
    /// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20)); // emulated: no cuSOLVER
    /// let a = dev.upload(&[2.0f64, 0.0, 0.0, 3.0, 0.0, 0.0])?; // 3 x 2
    /// match dev.qr_packed(&a, (3, 2)) {
    ///     Ok(packed) => {
    ///         let r = &packed.download()?[6..]; // after q (3 x 2): r (2 x 2)
    ///         assert!((r[0].abs() - 2.0).abs() < 1e-12 && (r[3].abs() - 3.0).abs() < 1e-12 && r[2] == 0.0);
    ///     }
    ///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on an emulated device, for a buffer of another
    /// device or of the wrong length; [`Error::NoDevice`] without cuSOLVER;
    /// [`Error::OutOfMemory`]; [`Error::Cuda`].
    pub fn qr_packed<T: SolverElement>(&self, a: &DeviceBuffer<T>, (m, n): (usize, usize)) -> Result<DeviceBuffer<T>> {
        self.check_matrix("qr", a, m, n)?;
        let state = self.cuda_state("cuSOLVER qr")?;
        let k = m.min(n);
        let mut packed = self.zeros::<T>(m * k + k * n)?;
        if k == 0 {
            return Ok(packed);
        }
        let (mi, ni, ki) = (int(self, "rows", m)?, int(self, "columns", n)?, int(self, "rank", k)?);
        // Column-major scratch: the row-major a is a column-major n x m, so
        // writing that out row-major gives a in column-major.
        let mut work_a = self.zeros::<T>(m * n)?;
        self.col_to_row(a, n, (n, m), false, &mut work_a, 0)?;
        let mut tau = self.zeros::<T>(k)?;
        let mut info = self.zeros::<i32>(1)?;
        let stream = &state.stream;
        state.with_solver(|handle| {
            let (a_ptr, _a_sync) = work_a.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (tau_ptr, _tau_sync) = tau.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (info_ptr, _info_sync) = info.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (a_ptr, tau_ptr, info_ptr) = (a_ptr as *mut T, tau_ptr as *mut T, info_ptr as *mut c_int);
            let mut lwork: c_int = 0;
            // SAFETY: a_ptr holds m x n elements (lda m), tau k; lwork is a host int.
            status("cusolverDn geqrf_bufferSize", unsafe { T::geqrf_size(handle, mi, ni, a_ptr, mi, &mut lwork) })?;
            let mut lwork_q: c_int = 0;
            // SAFETY: as above; orgqr forms the k columns of Q from k reflectors.
            status("cusolverDn orgqr_bufferSize", unsafe {
                T::orgqr_size(handle, mi, ki, ki, a_ptr, mi, tau_ptr, &mut lwork_q)
            })?;
            let lwork = lwork.max(lwork_q).max(1);
            let mut work = self.zeros::<T>(lwork as usize)?;
            let (work_ptr, _work_sync) = work.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let work_ptr = work_ptr as *mut T;
            // SAFETY: work holds lwork elements, sized by cuSOLVER for both calls.
            status("cusolverDn geqrf", unsafe {
                T::geqrf(handle, mi, ni, a_ptr, mi, tau_ptr, work_ptr, lwork, info_ptr)
            })?;
            check_info("geqrf", info_ptr, stream)?;
            // R first: orgqr overwrites the upper triangle with Q.
            self.col_to_row_raw(a_ptr as *const T, m, (k, n), true, &mut packed, m * k)?;
            // SAFETY: as for geqrf.
            status("cusolverDn orgqr", unsafe {
                T::orgqr(handle, mi, ki, ki, a_ptr, mi, tau_ptr, work_ptr, lwork, info_ptr)
            })?;
            check_info("orgqr", info_ptr, stream)
        })?;
        self.col_to_row(&work_a, m, (m, k), false, &mut packed, 0)?;
        Ok(packed)
    }

    /// The thin SVD of the row-major `m x n` matrix `a`, `m <= n`, by cuSOLVER's
    /// gesvd (for a tall matrix take the SVD of its transpose, or its TSQR's R).
    /// Signs are deterministic: the entry of largest magnitude of every row of
    /// `vt` is positive (dask's `svd_flip`, as chunked's host SVD).
    ///
    /// ```
    /// use chunked_gpu::{Device, Error};
    /// # fn main() -> chunked_gpu::Result<()> {
    /// let dev = Device::cuda(0).unwrap_or_else(|_| Device::emulated(1 << 20)); // emulated: no cuSOLVER
    /// let a = dev.upload(&[0.0f64, 3.0, 2.0, 0.0])?; // 2 x 2
    /// match dev.svd(&a, (2, 2)) {
    ///     Ok(f) => {
    ///         let s = f.s.download()?;
    ///         assert!((s[0] - 3.0).abs() < 1e-12 && (s[1] - 2.0).abs() < 1e-12);
    ///     }
    ///     Err(e) => assert!(dev.is_emulated() && matches!(e, Error::Unsupported { .. }), "{e}"),
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] on an emulated device, for `m > n`, a buffer of
    /// another device or of the wrong length; [`Error::NoDevice`] without
    /// cuSOLVER; [`Error::OutOfMemory`]; [`Error::Cuda`], also when gesvd does
    /// not converge.
    pub fn svd<T: SolverElement>(&self, a: &DeviceBuffer<T>, (m, n): (usize, usize)) -> Result<SvdFactors<T>> {
        self.check_matrix("svd", a, m, n)?;
        if m > n {
            return Err(self.unsupported(format!(
                "svd of a tall {m}x{n} matrix (gesvd here takes wide or square ones; use the transpose or a TSQR)"
            )));
        }
        let state = self.cuda_state("cuSOLVER svd")?;
        let (mut u, mut s, mut vt) = (self.zeros::<T>(m * m)?, self.zeros::<T>(m)?, self.zeros::<T>(m * n)?);
        if m == 0 {
            return Ok(SvdFactors { u, s, vt });
        }
        let (mi, ni) = (int(self, "rows", m)?, int(self, "columns", n)?);
        // gesvd destroys its input: factor a copy. As column-major it is the
        // tall n x m transpose (lda n).
        let mut work_a = self.gather(&[(a, 0..a.len)])?;
        let mut info = self.zeros::<i32>(1)?;
        let stream = &state.stream;
        state.with_solver(|handle| {
            let mut lwork: c_int = 0;
            // SAFETY: lwork is a host int.
            status("cusolverDn gesvd_bufferSize", unsafe { T::gesvd_size(handle, ni, mi, &mut lwork) })?;
            let mut work = self.zeros::<T>(lwork.max(1) as usize)?;
            let (a_ptr, _a) = work_a.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (s_ptr, _s) = s.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            // Aᵀ = U' S V'ᵀ: U' (n x m, ldu n) is the row-major Vᵀ of a, V'ᵀ
            // (m x m, ldvt m) its row-major U.
            let (vt_ptr, _vt) = vt.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (u_ptr, _u) = u.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (work_ptr, _w) = work.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            let (info_ptr, _i) = info.cuda_mut().expect("CUDA buffer").device_ptr_mut(stream);
            // SAFETY: every pointer holds the elements its dimension says (n x m
            // input, m values, n x m and m x m outputs, lwork of workspace).
            status("cusolverDn gesvd", unsafe {
                T::gesvd(
                    handle,
                    ni,
                    mi,
                    a_ptr as *mut T,
                    ni,
                    s_ptr as *mut T,
                    vt_ptr as *mut T,
                    ni,
                    u_ptr as *mut T,
                    mi,
                    work_ptr as *mut T,
                    lwork,
                    info_ptr as *mut c_int,
                )
            })?;
            check_info("gesvd", info_ptr as *const c_int, stream)
        })?;
        let function = state.function("solver", SOLVER_SOURCE, &format!("svd_flip_{}", T::C_NAME))?;
        let (mm, nn) = (m as i64, n as i64);
        let mut launch = state.stream.launch_builder(&function);
        launch.arg(u.cuda_mut().expect("CUDA buffer")).arg(vt.cuda_mut().expect("CUDA buffer")).arg(&mm).arg(&nn);
        // SAFETY: u holds m x m elements and vt m x n; one thread per row of vt.
        unsafe { launch.launch(grid_stride(m as u64)) }.map_err(cuda_error("cuLaunchKernel svd_flip"))?;
        Ok(SvdFactors { u, s, vt })
    }

    fn check_matrix<T: DeviceElement>(&self, what: &str, a: &DeviceBuffer<T>, m: usize, n: usize) -> Result<()> {
        if !a.device.same(self) || a.len != m * n {
            return Err(self.unsupported(format!(
                "{what} of a {m}x{n} matrix given {} elements on {}",
                a.len,
                a.device.describe()
            )));
        }
        Ok(())
    }

    /// `dst[at..]` (rows x cols, row-major) = the column-major matrix in `src`
    /// with leading dimension `ld`, upper triangle only when `upper`.
    fn col_to_row<T: SolverElement>(
        &self,
        src: &DeviceBuffer<T>,
        ld: usize,
        (rows, cols): (usize, usize),
        upper: bool,
        dst: &mut DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        let state = self.cuda_state("layout kernel")?;
        let (ptr, _sync) = src.cuda().expect("CUDA buffer").device_ptr(&state.stream);
        self.col_to_row_raw(ptr as *const T, ld, (rows, cols), upper, dst, at)
    }

    fn col_to_row_raw<T: SolverElement>(
        &self,
        src: *const T,
        ld: usize,
        (rows, cols): (usize, usize),
        upper: bool,
        dst: &mut DeviceBuffer<T>,
        at: usize,
    ) -> Result<()> {
        let state = self.cuda_state("layout kernel")?;
        let function = state.function("solver", SOLVER_SOURCE, &format!("col_to_row_{}", T::C_NAME))?;
        let (ld, r, c, up) = (ld as i64, rows as i64, cols as i64, upper as i32);
        let src = src as u64;
        let cfg = grid_stride((rows * cols) as u64);
        let mut out = dst.cuda_mut().expect("CUDA buffer on a CUDA device").slice_mut(at..at + rows * cols);
        let mut launch = state.stream.launch_builder(&function);
        launch.arg(&src).arg(&ld).arg(&r).arg(&c).arg(&up).arg(&mut out);
        // SAFETY: src holds a column-major rows x cols matrix with leading
        // dimension ld (callers pass buffers of at least ld * cols elements);
        // the output view has rows * cols elements (slice_mut checks).
        unsafe { launch.launch(cfg) }.map_err(cuda_error("cuLaunchKernel col_to_row"))?;
        Ok(())
    }
}

impl CudaState {
    /// Runs `f` with the stream's cuSOLVER handle (created on first use), one
    /// caller at a time: a handle's workspace is not shared between threads.
    pub(crate) fn with_solver<R>(&self, f: impl FnOnce(cusolverDnHandle_t) -> Result<R>) -> Result<R> {
        let mut slot = self.solver.lock().unwrap_or_else(|p| p.into_inner());
        // The raw cuSOLVER and driver calls in `f` run in the current context.
        self.ctx.bind_to_thread().map_err(cuda_error("cuCtxSetCurrent"))?;
        if slot.is_none() {
            // SAFETY: only dlopens cuSOLVER by its usual names.
            if !unsafe { cusolver_sys::is_culib_present() } {
                return Err(Error::NoDevice { reason: "cuSOLVER (libcusolver) is not installed".into() });
            }
            let handle = DnHandle::new(self.stream.clone())
                .map_err(|e| Error::Cuda { call: "cusolverDnCreate".into(), message: format!("{e:?}") })?;
            *slot = Some(handle);
        }
        f(slot.as_ref().expect("created above").cu())
    }
}
